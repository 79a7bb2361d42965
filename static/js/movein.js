// Moving in: the first time a person the tailnet names opens the app on a device that
// kept its own choices (storage.js, from before the household or from an unknown visit),
// the device's favourites join theirs (a union: each one they lack is starred, with now as
// its time), and, if they may change the shelf, they are asked (in the page, Add or Not
// now) whether the bottles ticked here go on the household's shelf. Done once per login
// on this device (remembered in localStorage); the device's own choices are never deleted.
import { bar, loadBar } from "./storage.js";
import { changeShelf, household, onHousehold, setFavourite } from "./household.js";
import { el } from "./markup.js";

export const STORE = "libations-moved-in"; // { login: { favourites: true, shelf: "added" | "declined" } }
const SHELF_CAP = 500; // names in one shelf change (docs/HOUSEHOLD.md)

function done() {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch (error) { return {}; }
}
function remember(login, what) {
  const all = done();
  all[login] = { ...(all[login] || {}), ...what };
  try { localStorage.setItem(STORE, JSON.stringify(all)); } catch (error) { /* asked again next time */ }
}

// The device's favourites the person lacks, and its ticked bottles the shelf lacks.
export function whatMoves(device, person) {
  return {
    favourites: Array.from(device.favourites).filter((id) => !person.favourites.has(id)).sort((a, b) => a - b),
    shelf: person.shelf ? Array.from(device.shelf).filter((k) => !person.shelf.has(k)).sort() : [],
  };
}

let asking = false; // the offer is on the page
let moving = false; // moveIn is running (each star it makes calls it again)
function moveIn() {
  if (!household.ready || !household.known || asking || moving) return;
  moving = true;
  try { move(); } finally { moving = false; }
}

function move() {
  const login = household.login;
  const before = done()[login] || {};
  loadBar();
  const moves = whatMoves(bar, household);
  // Nothing kept here yet: nothing to move, and nothing remembered (choices kept later,
  // by an unknown visit or an imported file, move the next time).
  if (!before.favourites && bar.favourites.size > 0) {
    // Remembered first: each star below tells the household's listeners, this one too.
    remember(login, { favourites: true });
    for (const id of moves.favourites) setFavourite(id, true);
  }
  if (!before.shelf && household.mayShelf && household.shelf && moves.shelf.length > 0) offerShelf(login, moves.shelf);
}

// The in-page question: the device's bottles onto the household's shelf?
function offerShelf(login, keys) {
  const main = document.getElementById("main");
  if (!main) return;
  asking = true;
  const n = keys.length;
  const add = el("button", { type: "button", class: "button" }, "Add");
  const later = el("button", { type: "button", class: "button" }, "Not now");
  const box = el("section", { class: "move-in", "aria-labelledby": "move-in-h" },
    el("h2", { id: "move-in-h" }, "Bottles on this device"),
    el("p", null, "This device has " + n + (n === 1 ? " bottle" : " bottles") + " ticked that the household's shelf does not: " +
      keys.slice(0, 8).join(", ") + (n > 8 ? " and " + (n - 8) + " more" : "") + ". Add them to the shelf for everyone?"),
    el("div", { class: "seg acts" }, add, later));
  const close = (answer) => {
    remember(login, { shelf: answer });
    box.remove();
    asking = false;
  };
  add.addEventListener("click", () => {
    for (let i = 0; i < keys.length; i += SHELF_CAP) changeShelf(keys.slice(i, i + SHELF_CAP), []);
    close("added");
  });
  later.addEventListener("click", () => close("declined"));
  main.prepend(box);
}

export function startMoveIn() {
  onHousehold(moveIn);
}
