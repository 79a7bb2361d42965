// A recipe's controls, wherever it is shown (its own page, opened in the list, in the
// pane): units, servings and favourite, and a person's own (mine.js). Units are this
// phone's choice (storage.js); the favourite is the person's when the tailnet names them
// (household.js), else this phone's; servings last while the page does; `?units=&serves=`
// of a shared link win for its page. Every recipe on the page is painted again when a
// choice changes.
import { UNITS, amount } from "./model.js";
import { bar, changeBar, drinkGrams, onChange } from "./storage.js";
import { household, setFavourite } from "./household.js";
import { paintMine, startMine } from "./mine.js";
import { toDOM } from "./markup.js";
import { caption, recipeArticle as recipeArticleOf, recipeBody, recipeHref, serveLink, strengthLine, unitLink } from "./view.js";
import { wakeToggle } from "./wake.js";
import { addPhotos } from "./photos.js";

let servings = 1;
let pageUnits; // undefined: the phone's choice
// The servings offered as one tap and the most one may ask for, as the server's page
// says (data-serves and data-max-serves on the list, from crates/web/src/view/templates.rs and
// crates/model/src/units.rs).
const offered = { serves: [], max: Infinity };

const unitsNow = () => (pageUnits !== undefined ? pageUnits : bar.units);

// How a recipe is to be shown now (see view.js).
const choices = () => ({ units: unitsNow(), servings, serves: offered.serves, max: offered.max, grams: drinkGrams() });

// The address of recipe `id` as shown now; the units only when the page's address chose them.
export const addressOf = (id) => recipeHref(id, pageUnits ?? null, servings);

// The same, opened from the list: with what is typed in the search box (`q`), so that a
// reload shows the same list beside it (list.js reads `?q=` back).
export function addressWithSearch(id, q) {
  const address = addressOf(id);
  if (q.trim() === "") return address;
  return address + (address.includes("?") ? "&" : "?") + "q=" + encodeURIComponent(q);
}

// A recipe's <div class="recipe">, as its page has it, ready to use.
export function recipePanel(r) {
  const panel = toDOM(recipeBody(r, choices()));
  paint(panel);
  return panel;
}

// A recipe's <article class="single"> (heading, base, recipe), for the pane; `glass` is the
// icon to show in the heading.
export function recipeArticle(r, glass) {
  const article = toDOM(recipeArticleOf(r, glass, choices()));
  paint(article.querySelector(".recipe"));
  return article;
}

// Shows a recipe's amounts and tools as the current choices say.
function paint(root) {
  const now = choices(), id = root.dataset.id;
  for (const td of root.querySelectorAll("td.amount[data-measure]")) {
    td.textContent = amount(td.dataset.measure, td.dataset.unit, { unit: now.units, servings });
  }
  const mark = (a, link) => {
    if (link.current) a.setAttribute("aria-current", "true"); else a.removeAttribute("aria-current");
    a.href = link.href;
  };
  for (const a of root.querySelectorAll("[data-units]")) mark(a, unitLink(id, a.dataset.units, now));
  for (const a of root.querySelectorAll("[data-serves]")) mark(a, serveLink(id, Number(a.dataset.serves), now));
  const strength = root.querySelector("details.strength[data-abv]");
  if (strength) {
    const d = strength.dataset;
    const figures = { abv: Number(d.abv), volume_ml: Number(d.ml), standard_drinks: Number(d.drinks), approximate: "approximate" in d };
    strength.querySelector("summary").textContent = strengthLine(figures, servings, now.grams);
    const standard = strength.querySelector(".standard");
    if (standard) standard.textContent = "1 drink = " + now.grams + " g of alcohol. An estimate, not a promise; pour responsibly.";
  }
  const title = root.querySelector(".ingredients caption");
  if (title) title.textContent = caption(servings);
  const field = root.querySelector("input.servings");
  if (field && parseInt(field.value, 10) !== servings) field.value = String(servings);
  const hidden = root.querySelector("input[name=units]");
  if (hidden) hidden.value = now.units || "";
  const star = root.querySelector(".star");
  if (star) {
    // Once the page knows whose star it is.
    star.hidden = !household.ready;
    star.setAttribute("aria-pressed", String(isFavourite(Number(id))));
  }
  paintMine(root);
}
// The person's favourites, or this device's for an unknown visitor.
export const isFavourite = (id) => (household.known ? household.favourites : bar.favourites).has(id);
const paintAll = () => document.querySelectorAll(".recipe[data-id]").forEach(paint);

// The address keeps in step with the recipe it names, so that a reload shows the same: a
// recipe's own page with its units, one opened from the list with the search beside it.
function keepAddress() {
  const single = document.querySelector(".single .recipe[data-id]");
  if (single) {
    history.replaceState(null, "", recipeHref(single.dataset.id, unitsNow(), servings));
    return;
  }
  const id = location.pathname.match(/^\/recipes\/(\d+)$/)?.[1];
  if (id) history.replaceState(null, "", addressWithSearch(id, new URLSearchParams(location.search).get("q") ?? ""));
}

export function startRecipes() {
  const list = document.getElementById("recipes");
  if (list) {
    offered.serves = list.dataset.serves.split(" ").map(Number);
    offered.max = Number(list.dataset.maxServes);
  }
  const here = new URLSearchParams(location.search);
  servings = Math.min(offered.max, Math.max(1, parseInt(here.get("serves"), 10) || 1));
  pageUnits = UNITS.includes(here.get("units")) ? here.get("units") : undefined;
  onChange(paintAll);
  startMine(paintAll);
  startControls();
  const single = document.querySelector(".single");
  if (single) {
    wakeToggle(single);
    const recipe = single.querySelector(".recipe");
    if (recipe) paint(recipe);
    const name = single.querySelector("h1 .name")?.textContent ?? "";
    if (recipe) addPhotos(single.querySelector("h1"), single, recipe.dataset.id, name);
  }
}

// The units and servings links and the favourite button, of every recipe on the page.
function startControls() {
  document.addEventListener("click", (event) => {
    const target = event.target.closest(".recipe [data-units], .recipe [data-serves], .recipe .star");
    if (!target || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (target.dataset.units) {
      const chosen = target.dataset.units === unitsNow() ? null : target.dataset.units;
      pageUnits = undefined;
      changeBar((b) => { b.units = chosen; });
    } else if (target.dataset.serves) {
      servings = Number(target.dataset.serves);
      paintAll();
    } else {
      const id = Number(target.closest(".recipe").dataset.id);
      if (household.known) setFavourite(id, !household.favourites.has(id));
      else changeBar((b) => { if (b.favourites.has(id)) b.favourites.delete(id); else b.favourites.add(id); });
    }
    keepAddress();
  });
  document.addEventListener("input", (event) => {
    if (!event.target.matches(".recipe input.servings")) return;
    const n = Number(event.target.value);
    const fits = Number.isInteger(n) && n >= 1 && n <= offered.max;
    sayServings(event.target, fits || event.target.value === "" ? "" : `From 1 to ${offered.max} servings: still shown for ${servings}.`);
    if (fits) { servings = n; paintAll(); keepAddress(); }
  });
  document.addEventListener("submit", (event) => {
    if (!event.target.matches(".recipe form.serves")) return;
    event.preventDefault();
    event.target.querySelector("input.servings")?.blur();
    paintAll();
  });
}

// A servings number out of range is said beside the field, never taken silently.
function sayServings(field, message) {
  let note = field.parentElement.querySelector(".serves-note");
  if (!note) {
    note = document.createElement("span");
    note.className = "serves-note";
    note.setAttribute("role", "status");
    field.after(note);
  }
  note.textContent = message;
  if (message) field.setAttribute("aria-invalid", "true");
  else field.removeAttribute("aria-invalid");
}
