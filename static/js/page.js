// What every page has: the offline hint and the service worker (static/sw.js), who you
// are on the tailnet and their links (in the navigation), and the keyboard help.

// Shows or hides "Offline: showing the recipes saved on this phone".
export function showOffline(on) {
  const hint = document.getElementById("offline");
  if (hint) hint.hidden = !on;
}

export function startPage() {
  document.documentElement.classList.add("js");
  startOffline();
  showWho();
  startKeys();
}

// Offline: the service worker keeps the list, the recipes and the assets.
function startOffline() {
  if (!navigator.onLine) showOffline(true);
  addEventListener("offline", () => showOffline(true));
  addEventListener("online", () => showOffline(false));
  if ("serviceWorker" in navigator && !(navigator.serviceWorker.controller && !navigator.onLine)) {
    addEventListener("load", () => {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => showOffline(!navigator.onLine));
    });
  }
}

// Who you are on the tailnet, in the navigation ("Alice · iphone"), and the links that are
// theirs: Menus for those who may compose, New (and, in the footer, Add from a link and
// Recent changes) for editors. Pages are shared and cached, so all this comes from
// /api/whoami, which is per person and never cached; `whoami` is its answer (null: unknown).
let answered;
export const whoami = new Promise((resolve) => { answered = resolve; });

function showWho() {
  if (!navigator.onLine) { answered(null); return; }
  fetch("/api/whoami", { headers: { Accept: "application/json" }, cache: "no-store" })
    .then((r) => (r.ok ? r.json() : null))
    .then((me) => { answered(me); if (me) showTheirs(me); })
    .catch(() => answered(null));
}

function showTheirs(me) {
  const show = (selector, on) => document.querySelectorAll(selector).forEach((e) => { if (on) e.hidden = false; });
  show("nav.top .for-edit, #edit-links", me.can_edit === true);
  show("nav.top .for-compose", me.can_compose === true);
  const who = document.getElementById("who");
  if (!who || !me.known || !me.label) return;
  who.textContent = me.label;
  who.title = me.login || (me.tags || []).join(", ");
  who.hidden = false;
}

// Keys: `/` searches, `?` shows or hides the list of keys (templates/keys.html).
function startKeys() {
  const input = document.getElementById("q");
  const keysToggle = document.getElementById("keys-toggle");
  const keysBox = document.getElementById("keys");
  const showKeys = (on) => {
    if (!keysBox) return;
    keysBox.hidden = !on;
    keysToggle?.setAttribute("aria-expanded", String(on));
  };
  keysToggle?.addEventListener("click", () => showKeys(keysBox.hidden));
  const typing = (target) => target instanceof Element && target.closest("input, textarea, select, [contenteditable]") !== null;
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "?") { event.preventDefault(); showKeys(keysBox?.hidden); }
    else if (event.key === "/" && input) { event.preventDefault(); input.focus(); input.select(); }
    else if (event.key === "Escape" && keysBox && !keysBox.hidden) { event.preventDefault(); showKeys(false); }
  });
}
