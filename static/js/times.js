// Times as the phone's clock reads them. The server writes every moment as
// <time datetime="…Z">, its text in UTC, so the page reads right without JavaScript;
// this shows each one in the phone's own zone and language instead.

/** A moment (ISO 8601 with a time) in `timeZone` (the phone's when undefined). */
export function localTime(iso, timeZone = undefined, locale = undefined) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(at);
}

/** Rewrites the moments of the history (/changes) in the phone's zone. */
export function startTimes() {
  for (const time of document.querySelectorAll(".change-list time[datetime*='T']")) {
    const shown = localTime(time.dateTime);
    if (shown) time.textContent = shown;
  }
}
