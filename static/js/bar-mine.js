// "Mine" on My bar: the person's favourites, ratings, notes and recently made recipes
// (GET /api/me through household.js), each linking to its recipe. What belongs to a recipe
// no longer in the collection is kept by the server (an undo brings the recipe back), so it
// is shown as "recipe removed" with its rating and note, never left out.
import { el } from "./markup.js";

const RECENT = 10; // "made one" entries shown

// Fills #mine. `own`: { known, favourites: Set, ratings: Map, notes: Map, conflicts: Map,
// made: [{id, at}] } (an unknown visitor: only the favourites this device keeps);
// `names`: Map(id → name), or null while the recipes are not known.
export function showMine(own, names) {
  const root = document.getElementById("mine");
  if (!root) return;
  const help = document.getElementById("mine-help");
  help.textContent = own.known
    ? "Yours on every device the tailnet knows you on: favourites, ratings, notes and the recipes you made lately."
    : "The favourites kept on this device. Ratings, notes and “Made one” are kept for a person the tailnet knows.";
  const byName = (a, b) => sortName(names, a).localeCompare(sortName(names, b)) || a - b;
  const groups = [group("Favourites", Array.from(own.favourites).sort(byName).map((id) => entry(names, id, own)),
    "None yet: open a recipe and tap Favourite.")];
  if (own.known) {
    const rated = Array.from(own.ratings.keys()).sort((a, b) => own.ratings.get(b) - own.ratings.get(a) || byName(a, b));
    groups.push(group("Rated", rated.map((id) => entry(names, id, own, { stars: true })), "No ratings yet."));
    const noted = Array.from(new Set([...own.notes.keys(), ...own.conflicts.keys()])).sort(byName);
    groups.push(group("Notes", noted.map((id) => entry(names, id, own, { note: true })), "No notes yet."));
    const made = own.made.slice(0, RECENT).map((m) => entry(names, m.id, own, { at: m.at }));
    groups.push(group("Recently made", made, "Nothing made yet: a recipe's “Made one” logs it."));
  }
  root.replaceChildren(...groups);
}

// Names the removed sort after the rest, by id.
const sortName = (names, id) => (names ? (names.has(id) ? names.get(id) : "\uffff" + String(id).padStart(12, "0")) : String(id).padStart(12, "0"));

function group(title, items, none) {
  return el("section", { class: "mine-group" },
    el("h3", null, title, items.length ? el("span", { class: "n" }, " " + items.length) : null),
    items.length ? el("ul", { class: "mine-list" }, ...items) : el("p", { class: "help" }, none));
}

const STARS = (n) => "★".repeat(n) + "☆".repeat(Math.max(0, 5 - n));

// One recipe of the person's: its name (a link), or "recipe removed"; with `show`'s parts.
function entry(names, id, own, show = {}) {
  const removed = names !== null && !names.has(id);
  const head = removed
    ? el("span", { class: "removed" }, "Recipe removed", el("span", { class: "id" }, " (no. " + id + ")"))
    : el("a", { href: "/recipes/" + id }, names ? names.get(id) : "Recipe " + id);
  const parts = [head];
  const stars = own.ratings?.get(id);
  // A removed recipe keeps everything visible: it is all the person has of it now.
  if ((show.stars || removed) && stars) {
    parts.push(" ", el("span", { class: "stars", "aria-hidden": "true" }, STARS(stars)),
      el("span", { class: "visually-hidden" }, stars + (stars === 1 ? " star" : " stars")));
  }
  if (show.at !== undefined) {
    const when = new Date(show.at);
    parts.push(" ", el("time", { datetime: when.toISOString() },
      when.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" })));
  }
  const note = own.notes?.get(id);
  if ((show.note || removed) && note) parts.push(el("p", { class: "mine-note" }, note));
  const conflicts = own.conflicts?.get(id);
  if ((show.note || removed) && conflicts && conflicts.length) {
    parts.push(el("p", { class: "mine-note conflict" },
      conflicts.length + (conflicts.length === 1 ? " other version" : " other versions") +
      " from another device, kept until you choose on the recipe: ", conflicts.join(" · ")));
  }
  return el("li", { class: removed ? "gone" : null }, ...parts);
}
