// /shelf, My bar. For a person the tailnet knows (household.js, GET /api/me): the
// household's shelf (GET /api/bar; a tick is PUT /api/bar/shelf through pending.js, so a
// tick made offline is kept and sent later), read-only without the shelf grant, and their
// own favourites, ratings, notes and log ("Mine"). For an unknown visitor: this device's
// shelf and favourites (storage.js), as before, with a line saying why. For everyone: what
// the shelf makes and the best next bottles (bottles.js), the household's shopping list
// (shopping.js), its own rules (rules.js), the units (per device), and the export file. The page's HTML is the
// same for everyone (rendered once per collection): all of this is filled in here.
import { analyseNeeds } from "./model.js";
import { bar, barJSON, changeBar, forgetBar, loadBar, onChange, readBar } from "./storage.js";
import { barAnswer, changeShelf, household, onHousehold, setFavourite } from "./household.js";
import { el } from "./markup.js";
import { collection } from "./collection.js";
import { showMakes, startBottles } from "./bottles.js";
import { showMine } from "./bar-mine.js";
import { startShopping } from "./shopping.js";
import { startPicker } from "./picker.js";
import { startRules } from "./rules.js";

const REFUSED = "This browser would not store the change (storage is full or turned off): it will be lost when the page closes.";
const plural = (n, one, many) => n + " " + (n === 1 ? one : many);
const summary = () => (bar.units ? "amounts in " + bar.units : "amounts as written") + ", " +
  plural(bar.shelf.size, "ingredient", "ingredients") + " on the shelf, " +
  plural(bar.favourites.size, "favourite", "favourites");

// Whether the page speaks for a person (the household's shelf, their own lists) or for
// this device alone (an unknown visitor, or nobody could be asked).
const person = () => household.ready && household.known;
// The shelf shown: the household's for a person (null until read), else this device's.
const shelfNow = () => (person() ? household.shelf : bar.shelf);

let collected = null; // collection.js's answer, once it is in
let asked = false; // collection.js has answered (null when the recipes could not be had)
let refusal = ""; // why the server refused the last tick, shown until the next one

export function startShelf() {
  const root = document.getElementById("bar");
  if (!root) return;
  for (const control of root.querySelectorAll("[disabled]")) {
    if (!control.closest("#shelf, #shop-add, .shop-list, #shop-share, #shop-copy, #shop-clear, #rule-add")) control.disabled = false;
  }
  const status = document.getElementById("bar-status");
  const say = (text) => { if (text) status.textContent = text; };
  const shopStatus = document.getElementById("shop-status");
  startShopping();
  startRules();
  startBottles((text) => { if (text) shopStatus.textContent = text; });
  const ticks = startTicks(root);
  document.getElementById("export").addEventListener("click", () => say(exportBar()));
  const picker = document.getElementById("import");
  picker.addEventListener("change", () => importBar(picker).then(say));
  document.getElementById("forget").addEventListener("click", () => {
    const what = person() ? "Clear this device's own units, shelf and favourites? (Yours on the server stay.)"
      : "Clear the units, shelf and favourites kept on this phone?";
    if (!confirm(what)) return;
    forgetBar();
    say("Cleared. Import an exported file to get them back.");
  });

  let lastShelf = null, lastAnalysis = null;
  function render() {
    ticks.show();
    showWho();
    // Until both have answered the page keeps what it says without them (no flash of
    // "Recipe 7" before the names arrive).
    if (!household.ready || !asked) return;
    const shelf = shelfNow();
    let analysis = null;
    if (collected && shelf) {
      // Worked out here, so that ticks still waiting to be sent count at once.
      const rules = person() ? household.rules : [];
      const key = Array.from(shelf).sort().join("\n") + "\n" + JSON.stringify(rules);
      if (key !== lastShelf) { lastShelf = key; lastAnalysis = analyseNeeds(collected.needed, shelf, collected.vocabulary, rules); }
      analysis = lastAnalysis;
    } else if (person()) {
      analysis = barAnswer();
    }
    showMakes(analysis, collected && collected.names, !shelf || shelf.size === 0);
    showMine(person() ? household : { known: false, favourites: bar.favourites }, collected && collected.names);
  }
  onChange(render);
  onHousehold(render);
  collection().then((c) => { collected = c; asked = true; render(); });
  render();
}

// The line under the title: whose shelf this is, or why nothing here follows the visitor;
// and the words of the "move" section, which differ for a person.
function showWho() {
  const line = document.getElementById("bar-who");
  const rights = document.getElementById("shelf-rights");
  if (!household.ready) return;
  const who = household.name || household.login;
  let text;
  if (person()) {
    text = (who ? who + ": the" : "The") + " shelf is the household's, one for everyone at home" +
      (household.mayShelf ? ": a tick here shows on every device. " : ". ") +
      "Your favourites, ratings and notes follow you to each of your devices.";
  } else if (household.why) {
    text = household.why + " Nothing here follows you to another device: the shelf, favourites and units are kept on this one.";
  } else {
    text = "The server could not be asked who you are (offline?): the shelf, favourites and units shown are this device's own.";
  }
  line.textContent = text;
  line.hidden = false;
  const readOnly = person() && !household.mayShelf;
  const unread = person() && household.shelf === null;
  rights.hidden = !(readOnly || unread || refusal);
  if (refusal) {
    rights.textContent = refusal;
  } else if (readOnly) {
    rights.textContent = "You can see the household's shelf but not change it: only people the tailnet's policy grants the shelf ({\"shelf\": true}) or editing may tick it. Ask whoever runs the bar's tailnet.";
  } else if (unread) {
    rights.textContent = "The household's shelf could not be read just now (offline?): it shows once the server answers.";
  }
  const move = document.getElementById("move-h");
  const help = document.getElementById("move-help");
  const forget = document.getElementById("forget");
  if (person()) {
    move.textContent = "Move this device's own choices";
    help.textContent = "Your favourites, ratings, notes and log follow you to every device the tailnet knows you on, and the shelf is the household's: they need no file. " +
      "This file moves what stays on this device: its units, and any shelf and favourites it kept before. Importing one adds its favourites to yours and offers its ticked bottles to the household's shelf.";
    forget.textContent = "Clear this device's own";
  } else {
    move.textContent = "Move to another phone";
    help.textContent = "A small file with your units, shelf and favourites. Nothing leaves this phone unless you move the file yourself.";
    forget.textContent = "Clear this phone";
  }
}

// The units and the ticks (picker.js). Returns { show }.
function startTicks(root) {
  const shown = document.getElementById("shelf-count");
  const fieldset = document.getElementById("shelf");
  const rights = document.getElementById("shelf-rights");
  const picker = startPicker({
    shelfNow,
    count: (ticked, offered, elsewhere) => {
      shown.textContent = (person() ? "The household's shelf: " : "") + ticked + " of " + plural(offered, "bottle", "bottles") + " ticked" +
        (elsewhere ? ", and " + elsewhere + " from another collection (kept)" : "");
    },
    tick: (have, out) => {
      if (!person()) {
        if (!changeBar((b) => { out.forEach((k) => b.shelf.delete(k)); have.forEach((k) => b.shelf.add(k)); })) shown.textContent = REFUSED;
        return;
      }
      if (!household.mayShelf) { show(); return; }
      refusal = "";
      changeShelf(have, out).then((answer) => {
        if (answer && answer.error !== undefined) {
          // The box shows the server's shelf again (household.js); this says why.
          refusal = "Not saved: " + answer.error + (answer.field ? " (" + answer.field + ")" : "");
          rights.textContent = refusal;
          rights.hidden = false;
        }
      });
    },
  });
  function show() {
    for (const radio of root.querySelectorAll("input[name=units]")) radio.checked = radio.value === (bar.units || "");
    for (const radio of root.querySelectorAll("input[name=drink]")) radio.checked = radio.value === String(bar.drink ?? 10);
    const photos = root.querySelector("input[name=list-photos]");
    if (photos) photos.checked = bar.photos;
    const shelf = shelfNow();
    fieldset.disabled = !household.ready || (person() && (!household.mayShelf || shelf === null));
    if (!household.ready) return;
    picker.show();
  }

  root.addEventListener("change", (event) => {
    const t = event.target;
    if (t.name === "units") {
      if (!changeBar((b) => { b.units = t.value || null; })) document.getElementById("bar-status").textContent = REFUSED;
    } else if (t.name === "drink") {
      if (!changeBar((b) => { b.drink = Number(t.value); })) document.getElementById("bar-status").textContent = REFUSED;
    } else if (t.name === "list-photos") {
      if (!changeBar((b) => { b.photos = t.checked; })) document.getElementById("bar-status").textContent = REFUSED;
    }
  });
  return { show };
}

// Saves the device's choices as libations-bar.json; returns what to tell.
function exportBar() {
  const file = new Blob([JSON.stringify(barJSON(), null, 1) + "\n"], { type: "application/json" });
  const url = URL.createObjectURL(file);
  const link = el("a", { href: url, download: "libations-bar.json", hidden: "" });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return "Exported libations-bar.json: " + summary() + ".";
}

// Reads the file picked: for an unknown visitor it replaces the device's choices (after
// asking, if there are any); for a person see `importForPerson`. Returns what to tell, or
// null when no file was picked.
async function importBar(picker) {
  const file = picker.files && picker.files[0];
  if (!file) return null;
  try {
    let data;
    try { data = JSON.parse(await file.text()); } catch (error) { throw new Error("not JSON (" + error.message + ")"); }
    const incoming = readBar(data);
    if (person()) return importForPerson(file.name, incoming);
    loadBar();
    const anything = bar.units !== null || bar.shelf.size > 0 || bar.favourites.size > 0;
    if (anything && !confirm("Replace the units, shelf and favourites on this phone with those in " + file.name + "?")) {
      return "Import cancelled: nothing was changed.";
    }
    const stored = changeBar((b) => Object.assign(b, incoming));
    return stored ? "Imported " + file.name + ": " + summary() + "." : REFUSED;
  } catch (error) {
    return file.name + ": " + error.message + ". Nothing was changed.";
  } finally {
    picker.value = "";
  }
}

// For a person: the units become this device's; the favourites join theirs (a union: none
// is taken away); the ticked bottles the household's shelf lacks are offered to it, if they
// may change it. Says what happened to each part, so nothing is dropped silently.
function importForPerson(name, incoming) {
  const told = [];
  if (!changeBar((b) => { b.units = incoming.units; })) told.push(REFUSED);
  else told.push(incoming.units ? "amounts in " + incoming.units + " on this device" : "amounts as written on this device");
  const names = collected && collected.names;
  const fresh = Array.from(incoming.favourites).filter((id) => !household.favourites.has(id));
  const known = names ? fresh.filter((id) => names.has(id)) : fresh;
  for (const id of known) setFavourite(id, true);
  told.push(plural(known.length, "favourite", "favourites") + " joined yours");
  if (known.length < fresh.length) {
    told.push(plural(fresh.length - known.length, "favourite is", "favourites are") + " not in this collection and " +
      (fresh.length - known.length === 1 ? "was" : "were") + " left out (ids " + fresh.filter((id) => !known.includes(id)).join(", ") + ")");
  }
  const lacking = household.shelf ? Array.from(incoming.shelf).filter((k) => !household.shelf.has(k)).sort() : Array.from(incoming.shelf);
  if (lacking.length > 0) {
    const bottles = plural(lacking.length, "ticked bottle", "ticked bottles");
    if (!household.mayShelf || household.shelf === null) {
      told.push("its " + bottles + " (" + lacking.join(", ") + ") were not added: " +
        (household.mayShelf ? "the household's shelf could not be read" : "you may not change the household's shelf"));
    } else if (confirm("Add the " + bottles + " in " + name + " to the household's shelf? " + lacking.join(", "))) {
      changeShelf(lacking, []);
      told.push(bottles + " added to the household's shelf");
    } else {
      told.push("its " + bottles + " were not added to the household's shelf (" + lacking.join(", ") + ")");
    }
  }
  return "Imported " + name + ": " + told.join("; ") + ".";
}
