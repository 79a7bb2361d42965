// /shelf: units, the ingredients on hand, and moving them to another phone (export,
// import, forget). The page's controls are disabled until this runs.
import { fold, parse, startsAWord } from "./rules.js";
import { bar, barJSON, changeBar, forgetBar, loadBar, onChange, readBar } from "./storage.js";
import { el } from "./markup.js";

const REFUSED = "This browser would not store the change (storage is full or turned off): it will be lost when the page closes.";
const plural = (n, one, many) => n + " " + (n === 1 ? one : many);
const summary = () => (bar.units ? "amounts in " + bar.units : "amounts as written") + ", " +
  plural(bar.shelf.size, "ingredient", "ingredients") + " on the shelf, " +
  plural(bar.favourites.size, "favourite", "favourites");

export function startShelf() {
  const root = document.getElementById("bar");
  if (!root) return;
  for (const control of root.querySelectorAll("[disabled]")) control.disabled = false;
  const status = document.getElementById("bar-status");
  const say = (text) => { if (text) status.textContent = text; };
  startTicks(root, say);
  document.getElementById("export").addEventListener("click", () => say(exportBar()));
  const picker = document.getElementById("import");
  picker.addEventListener("change", () => importBar(picker).then(say));
  document.getElementById("forget").addEventListener("click", () => {
    if (!confirm("Clear the units, shelf and favourites kept on this phone?")) return;
    forgetBar();
    say("Cleared. Import an exported file to get them back.");
  });
}

// The units and the ticked ingredients, kept as the phone's choices say; the search box
// over the ingredients.
function startTicks(root, say) {
  const shown = document.getElementById("shelf-count");
  const find = document.getElementById("shelf-q");
  const boxes = Array.from(root.querySelectorAll("#shelf input[type=checkbox]"));
  const listed = new Set(boxes.map((b) => b.value));
  function show() {
    for (const radio of root.querySelectorAll("input[name=units]")) radio.checked = radio.value === (bar.units || "");
    let ticked = 0;
    for (const box of boxes) { box.checked = bar.shelf.has(box.value); ticked += box.checked; }
    const elsewhere = Array.from(bar.shelf).filter((k) => !listed.has(k)).length;
    shown.textContent = ticked + " of " + boxes.length + " ticked" +
      (elsewhere ? ", and " + elsewhere + " from another collection (kept)" : "");
  }
  onChange(show);
  show();

  root.addEventListener("change", (event) => {
    const t = event.target;
    let stored = true;
    if (t.name === "units") {
      stored = changeBar((b) => { b.units = t.value || null; });
    } else if (t.type === "checkbox" && listed.has(t.value)) {
      stored = changeBar((b) => { if (t.checked) b.shelf.add(t.value); else b.shelf.delete(t.value); });
    }
    if (!stored) say(REFUSED);
  });
  find.addEventListener("input", () => {
    const terms = parse(find.value).filter((t) => !t.personal).map((t) => t.text);
    for (const box of boxes) {
      const name = fold(box.parentElement.querySelector(".name").textContent);
      box.closest("li").hidden = !terms.every((t) => startsAWord(name, t));
    }
  });
}

// Saves the choices as libations-bar.json; returns what to tell.
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

// Replaces the choices with the file picked (after asking, if there are any); returns
// what to tell, or null when no file was picked.
async function importBar(picker) {
  const file = picker.files && picker.files[0];
  if (!file) return null;
  try {
    let data;
    try { data = JSON.parse(await file.text()); } catch (error) { throw new Error("not JSON (" + error.message + ")"); }
    const incoming = readBar(data);
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
