// This phone's choices: units, shelf, favourites, the standard drink, photos in the list, kept in localStorage and never sent
// anywhere. Every change is made on top of what is stored now (another tab or the
// installed app may have changed it), and every page showing them is told (`onChange`).
import { UNITS, ingredientKey } from "./model.js";

const STORE = "libations"; // the localStorage key
export const bar = { units: null, shelf: new Set(), favourites: new Set(), drink: null, photos: false };

// The grams of alcohol in a standard drink one may choose: 10 (WHO, Australia, most of
// Europe), 8 (a UK unit), 14 (a US standard drink).
export const DRINK_GRAMS = [10, 8, 14];
// The standard drink this phone counts in: its owner's choice (My bar), else 10 g, the
// server's own, so that a page with and without JavaScript says the same until the owner
// chooses (a guess from the browser's language made a US phone's 1.3 disagree with the
// server's 1.9). The line always names the standard it counts in.
export function drinkGrams() {
  return bar.drink ?? 10;
}

// Checks an export (or what is stored) and returns it as `bar` holds it; throws a message
// naming the field at fault.
export function readBar(data) {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new Error("expected an object with version, units, shelf and favourites");
  }
  if (data.version !== 1) throw new Error("\"version\" must be 1, not " + JSON.stringify(data.version));
  const units = data.units ?? null;
  if (units !== null && !UNITS.includes(units)) {
    throw new Error("\"units\" must be \"ml\", \"oz\", \"cl\" or null, not " + JSON.stringify(units));
  }
  const list = (field) => {
    const value = data[field] ?? [];
    if (!Array.isArray(value)) throw new Error("\"" + field + "\" must be a list");
    return value;
  };
  const shelf = list("shelf").map((v, i) => {
    if (typeof v !== "string" || ingredientKey(v) === "") throw new Error("\"shelf\"[" + i + "] is not an ingredient name: " + JSON.stringify(v));
    return ingredientKey(v);
  });
  const favourites = list("favourites").map((v, i) => {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error("\"favourites\"[" + i + "] is not a recipe id: " + JSON.stringify(v));
    return v;
  });
  const drink = data.drink ?? null;
  if (drink !== null && !DRINK_GRAMS.includes(drink)) {
    throw new Error("\"drink\" must be 10, 8, 14 or null, not " + JSON.stringify(drink));
  }
  const photos = data.photos ?? false;
  if (typeof photos !== "boolean") throw new Error("\"photos\" must be true or false, not " + JSON.stringify(photos));
  return { units, shelf: new Set(shelf), favourites: new Set(favourites), drink, photos };
}
export const barJSON = () => ({
  version: 1, units: bar.units, drink: bar.drink, photos: bar.photos,
  shelf: Array.from(bar.shelf).sort(), favourites: Array.from(bar.favourites).sort((a, b) => a - b),
});
const nothing = () => ({ units: null, shelf: new Set(), favourites: new Set(), drink: null, photos: false });
const onBarChange = [];
const barChanged = () => { for (const f of onBarChange) f(); };
// Runs `f` whenever the choices change (here, in another tab, or coming back to the page).
export const onChange = (f) => { onBarChange.push(f); };

// Reads the stored choices (another tab or the installed app may have changed them).
export function loadBar() {
  let stored = null;
  try { stored = localStorage.getItem(STORE); } catch (error) { return; } // storage disabled
  if (stored === null) { Object.assign(bar, nothing()); return; }
  try {
    Object.assign(bar, readBar(JSON.parse(stored)));
  } catch (error) {
    // A damaged entry is set aside, never overwritten, and this phone starts afresh.
    try {
      if (localStorage.getItem(STORE + "-unreadable") === null) localStorage.setItem(STORE + "-unreadable", stored);
      localStorage.removeItem(STORE);
    } catch (ignored) { /* storage disabled */ }
    Object.assign(bar, nothing());
    console.warn("libations: stored choices could not be read (kept as " + STORE + "-unreadable): " + error.message);
  }
}
// Changes the choices on top of what is stored now; false when the browser refused to
// store them (full, or disabled), so that the page can say so.
export function changeBar(change) {
  loadBar();
  change(bar);
  let stored = true;
  try { localStorage.setItem(STORE, JSON.stringify(barJSON())); } catch (error) { stored = false; }
  barChanged();
  return stored;
}

// Clears the choices and what is stored (a file exported earlier brings them back).
export function forgetBar() {
  changeBar((b) => Object.assign(b, nothing()));
  try { localStorage.removeItem(STORE); } catch (error) { /* disabled */ }
}

// Reads the stored choices, and again whenever another tab changes them or the page
// comes back from the back-forward cache.
export function startStorage() {
  loadBar();
  addEventListener("storage", (event) => {
    if (event.key === STORE || event.key === null) { loadBar(); barChanged(); }
  });
  addEventListener("pageshow", (event) => {
    if (event.persisted) { loadBar(); barChanged(); }
  });
}
