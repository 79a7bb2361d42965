// A person's own, under a recipe (the `details.mine` of view.js and recipe_body.html):
// their rating, "made one" log and private note, and the household's ratings. Shown only
// to someone the tailnet names (household.js); an unknown visitor keeps the device's star
// and reads why nothing follows them (the footer's line). Every change goes through
// pending.js, so it shows at once, waits offline, and is sent when the connection returns.
import { household, madeOne, onHousehold, setNote, setRating, unmake } from "./household.js";
import { onPending } from "./pending.js";
import { el } from "./markup.js";

const cleared = new Map(); // recipe id → the stars a Clear took away (for Undo)
const justMade = new Map(); // recipe id → the `at` of the entry Made one just added (for Undo)
const theirs = new Map(); // recipe id → GET /api/recipes/{id}'s ratings, or "asking"
const saying = new Map(); // recipe id → what the note's status line says

const plural = (n, one, many) => (n === 1 ? one : n + " " + many);
function day(at) {
  const d = new Date(at);
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return d.toLocaleDateString("en-GB", sameYear ? { day: "numeric", month: "short" } : { day: "numeric", month: "short", year: "numeric" });
}
const roundStars = (n) => String(Math.round(n * 10) / 10);

// "4.5 ★ · 2 ratings: Alice 5, Bob 4", or null for none.
export function ratingsLine(ratings) {
  if (!ratings || !ratings.count) return null;
  const by = (ratings.by || []).map((p) => p.name + " " + p.stars).join(", ");
  return roundStars(ratings.average) + " ★ · " + plural(ratings.count, "1 rating", "ratings") + (by ? ": " + by : "");
}

// "made 3 times, last 2 Dec", "never made".
export function madeLine(times, last) {
  if (!times) return "never made";
  return "made " + plural(times, "once", "times") + ", last " + day(last);
}

// Asks the household's ratings of recipe `id` (again, when `fresh`), then paints.
function askRatings(id, fresh) {
  if (!fresh && theirs.has(id)) return;
  theirs.set(id, theirs.get(id) ?? "asking");
  fetch("/api/recipes/" + id, { headers: { Accept: "application/json" } })
    .then((r) => (r.ok ? r.json() : null))
    .then((r) => { theirs.set(id, r && r.ratings ? r.ratings : null); repaint(id); })
    .catch(() => { theirs.set(id, null); });
}
const repaint = (id) => document.querySelectorAll('.recipe[data-id="' + id + '"]').forEach(paintMine);

// Shows `root`'s (a `.recipe`) own part as `household` says.
export function paintMine(root) {
  const box = root.querySelector("details.mine");
  if (!box) return;
  const id = Number(root.dataset.id);
  if (!household.known) { box.hidden = true; return; }
  box.hidden = false;
  askRatings(id, false);
  const stars = household.ratings.get(id) ?? null;
  const made = household.made.filter((m) => m.id === id);
  const note = household.notes.get(id) ?? "";
  const conflicts = household.conflicts.get(id) ?? [];

  const summary = [
    stars ? stars + " ★" : null,
    made.length ? "made " + plural(made.length, "once", "times") : null,
    conflicts.length ? "note changed on two devices" : note ? "note" : null,
  ].filter(Boolean).join(" · ");
  setText(box.querySelector("summary"), summary ? "Yours: " + summary : "Rating, note, made one");
  if (conflicts.length && box.dataset.conflicts !== JSON.stringify(conflicts)) box.open = true;

  const line = ratingsLine(theirs.get(id) && theirs.get(id) !== "asking" ? theirs.get(id) : null);
  const all = box.querySelector(".ratings");
  all.hidden = line === null;
  setText(all, line ? "Household: " + line : "");

  for (const input of box.querySelectorAll(".rate input")) {
    const n = Number(input.value);
    input.checked = n === stars;
    input.parentElement.classList.toggle("on", stars !== null && n <= stars);
  }
  box.querySelector(".unrate").hidden = stars === null;
  box.querySelector(".rerate").hidden = !(stars === null && cleared.has(id));

  setText(box.querySelector(".made-log"), madeLine(made.length, made[0]?.at));
  box.querySelector(".unmade").hidden = !(justMade.has(id) && made.some((m) => m.at === justMade.get(id)));

  const area = box.querySelector("textarea");
  // What the person is typing stays; otherwise the note as it is now.
  if (area.value === (area.dataset.shown ?? "") && area.value !== note) area.value = note;
  area.dataset.shown = note;
  paintConflict(box, id, note, conflicts);
  setText(box.querySelector(".note-status"), saying.get(id) ?? "");
}

function paintConflict(box, id, note, conflicts) {
  const div = box.querySelector(".conflict");
  const key = JSON.stringify([note, conflicts]);
  box.dataset.conflicts = JSON.stringify(conflicts);
  if (div.dataset.key === key) return;
  div.dataset.key = key;
  div.hidden = conflicts.length === 0;
  if (conflicts.length === 0) { div.replaceChildren(); return; }
  const texts = [note, ...conflicts];
  div.replaceChildren(
    el("p", null, "This note was changed on another device too. Keep one:"),
    el("ol", null, ...texts.map((text, i) => el("li", null,
      el("p", { class: "text", id: "note-" + id + "-" + i }, text === "" ? "(no note)" : text),
      el("button", { type: "button", class: "keep", "data-i": String(i), "aria-describedby": "note-" + id + "-" + i },
        i === 0 ? "Keep this (saved last)" : "Keep this")))));
}

function setText(node, text) {
  if (node && node.textContent !== text) node.textContent = text;
}

// What the note's status line says once a change is answered.
function answered(id, answer, done) {
  if (answer === null) saying.set(id, "Waiting to be sent (kept on this device).");
  else if (answer.error !== undefined) saying.set(id, "Not saved: " + answer.error + (answer.field ? " (" + answer.field + ")" : ""));
  else if (Array.isArray(answer.conflicts) && answer.conflicts.length) saying.set(id, "Saved, but another device changed this note meanwhile: both are kept, keep one.");
  else saying.set(id, done);
  repaint(id);
}

// The controls of every recipe on the page (delegated: recipes come and go).
export function startMine(paintAll) {
  onHousehold(paintAll);
  // The household's average changes with the person's own rating.
  onPending(({ change, answer }) => {
    if (!change || !answer) return;
    const id = Number(/\/(\d+)/.exec(change.path)?.[1]);
    // A note sent later (back online, or the next visit) says how it went.
    if (change.path.startsWith("/api/me/notes/")) answered(id, answer, "Saved.");
    if (answer.error === undefined && change.path.startsWith("/api/me/ratings/") && document.querySelector('.recipe[data-id="' + id + '"]')) {
      askRatings(id, true);
    }
  });
  const recipeId = (node) => Number(node.closest(".recipe").dataset.id);
  document.addEventListener("change", (event) => {
    const input = event.target;
    if (!input.matches(".recipe .mine .rate input[type=radio]")) return;
    const id = recipeId(input);
    cleared.delete(id);
    setRating(id, Number(input.value));
  });
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".recipe .mine button");
    if (!button) return;
    const id = recipeId(button);
    if (button.matches(".unrate")) {
      const stars = household.ratings.get(id);
      if (stars !== undefined) cleared.set(id, stars);
      setRating(id, null);
      button.closest(".rate").querySelector(".rerate").focus();
    } else if (button.matches(".rerate")) {
      const stars = cleared.get(id);
      cleared.delete(id);
      if (stars) setRating(id, stars);
      button.closest(".rate").querySelector("input[value='" + stars + "']")?.focus();
    } else if (button.matches(".made-one")) {
      const at = Date.now();
      justMade.set(id, at);
      // Stored at the server's time (a clock ahead of it counts as now).
      madeOne(id, at).then((answer) => {
        if (answer && answer.at !== undefined && justMade.get(id) === at) { justMade.set(id, Number(answer.at)); repaint(id); }
      });
    } else if (button.matches(".unmade")) {
      const at = justMade.get(id);
      justMade.delete(id);
      if (at !== undefined) unmake(id, at);
      button.parentElement.querySelector(".made-one").focus();
    } else if (button.matches(".keep")) {
      const conflicts = household.conflicts.get(id) ?? [];
      const texts = [household.notes.get(id) ?? "", ...conflicts];
      const chosen = texts[Number(button.dataset.i)];
      const area = button.closest("form").querySelector("textarea");
      area.value = chosen;
      saying.set(id, "Saving…");
      setNote(id, chosen, conflicts).then((answer) => answered(id, answer, "Kept the one you chose."));
      area.focus();
    }
  });
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches(".recipe .mine form.note")) return;
    event.preventDefault();
    const id = recipeId(form);
    const text = form.querySelector("textarea").value.replace(/\s+$/u, "");
    saying.set(id, "Saving…");
    setNote(id, text, null).then((answer) => answered(id, answer, text === "" ? "Note taken away." : "Saved."));
    repaint(id);
  });
}
