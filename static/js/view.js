// A recipe as the server writes it: the heading of templates/recipe.html and all of
// templates/recipe_body.html, with the same elements, attributes and order, so that a
// recipe opened in place is its own page's recipe. tests/js/markup.test.mjs renders every
// recipe of the sample both ways and compares them. No DOM here: see markup.js.
import { h } from "./markup.js";
import { UNITS, amount, noteParts } from "./rules.js";

// How a recipe is shown: `units` ("ml", "oz", "cl"; null: as the file writes them),
// `servings`, and from the server's page the servings offered as one tap (`serves`)
// and the most one may ask for (`max`).
//   { units, servings, serves: [1, 2, 4, 8], max: 100 }

// The address of recipe `id` shown in `units` for `n` servings (src/web/view/templates.rs).
export function recipeHref(id, units, n) {
  const q = [];
  if (units) q.push("units=" + units);
  if (n !== 1) q.push("serves=" + n);
  return "/recipes/" + id + (q.length ? "?" + q.join("&") : "");
}

// The link to `unit`: the current unit's leads back to the file's own units.
export function unitLink(id, unit, { units, servings }) {
  const current = unit === units;
  return { href: recipeHref(id, current ? null : unit, servings), current };
}

// The link to `n` servings, in the current units.
export function serveLink(id, n, { units, servings }) {
  return { href: recipeHref(id, units, n), current: n === servings };
}

export const caption = (servings) => "Ingredients" + (servings === 1 ? "" : ", for " + servings);

// <article class="single">: the heading (with `glass`, the list row's icon), the base
// spirits, the recipe, and Share.
export function recipeArticle(r, glass, choices) {
  const base = r.base && r.base.length ? h("p", { class: "base" }, r.base.join(", ")) : null;
  // Share: shown by share.js where the phone can share or copy.
  const share = h("p", { class: "share-row" },
    h("button", { type: "button", class: "chip share", hidden: true }, "Share"),
    h("span", { class: "share-status", role: "status" }));
  return h("article", { class: "single" },
    h("h1", { tabindex: "-1" }, glass, h("span", { class: "name" }, r.name)), base, recipeBody(r, choices), share);
}

// <div class="recipe">: templates/recipe_body.html.
export function recipeBody(r, choices) {
  const ingredients = r.ingredients || [];
  const table = ingredients.length === 0 ? null : h("table", { class: "ingredients" },
    h("caption", { class: "visually-hidden" }, caption(choices.servings)),
    h("tbody", null, ...ingredients.map((i) => h("tr", null,
      h("td", { class: "amount", "data-measure": i.measure || "", "data-unit": i.unit || "" },
        amount(i.measure, i.unit, { unit: choices.units, servings: choices.servings })),
      h("th", { scope: "row" }, i.name)))));
  const facts = [["Method", r.method], ["Glass", r.glass], ["Ice", r.ice], ["Garnish", r.garnish]]
    .filter(([, v]) => v && v.length)
    .map(([k, v]) => h("div", null, h("dt", null, k), h("dd", null, v.join(", "))));
  const notes = !r.notes ? null : h("p", { class: "notes" }, ...noteParts(r.notes).map(([text, link]) =>
    (link ? h("a", { href: text, rel: "noopener noreferrer" }, text) : text)));
  const acts = h("div", { class: "seg acts" },
    h("button", { type: "button", class: "star", "aria-pressed": "false", hidden: true }, "Favourite"),
    h("button", { type: "button", class: "wake", "aria-pressed": "false", hidden: true }, "Keep screen on"));
  const tools = ingredients.length === 0 ? [acts, mine(r.id)] : [...amountTools(r.id, choices), acts, mine(r.id)];
  return h("div", { class: "recipe", id: "recipe-" + r.id, "data-id": String(r.id) },
    table, h("dl", { class: "facts" }, ...facts), notes, h("div", { class: "tools" }, ...tools));
}

// The units and servings choices: links that work without JavaScript too.
function amountTools(id, choices) {
  const chip = (link, data, label) =>
    h("a", { class: "chip", href: link.href, ...data, "aria-current": link.current ? "true" : null }, label);
  const units = UNITS.map((u) => chip(unitLink(id, u, choices), { "data-units": u }, u));
  const serves = choices.serves.map((n) => chip(serveLink(id, n, choices), { "data-serves": String(n) }, "×" + n));
  const hidden = choices.units ? h("input", { type: "hidden", name: "units", value: choices.units }) : null;
  return [
    h("div", { class: "seg units", role: "group", "aria-label": "Units" }, ...units),
    h("form", { class: "seg serves", method: "get", action: "/recipes/" + id, "aria-label": "Servings" },
      ...serves, hidden,
      h("input", {
        class: "servings", name: "serves", type: "number", min: "1", max: String(choices.max), step: "1",
        inputmode: "numeric", value: String(choices.servings), "aria-label": "Servings",
      }),
      h("button", { class: "go", type: "submit" }, "Go")),
  ];
}

// A person's own (static/js/mine.js fills it in): the household's ratings, theirs, "made
// one" and a private note. Hidden until the page knows who is asking.
function mine(id) {
  const stars = [1, 2, 3, 4, 5].map((n) => h("label", null,
    h("input", { class: "visually-hidden", type: "radio", name: "stars-" + id, value: String(n) }),
    h("span", { class: "glyph", "aria-hidden": "true" }),
    h("span", { class: "visually-hidden" }, n + (n === 1 ? " star" : " stars"))));
  return h("details", { class: "mine", hidden: true },
    h("summary", null, "Rating, note, made one"),
    h("p", { class: "ratings", hidden: true }),
    h("fieldset", { class: "rate" }, h("legend", null, "Your rating"), ...stars,
      h("button", { type: "button", class: "unrate" }, "Clear"),
      h("button", { type: "button", class: "rerate", hidden: true }, "Undo")),
    h("div", { class: "made" },
      h("button", { type: "button", class: "made-one" }, "Made one"),
      h("button", { type: "button", class: "unmade", hidden: true }, "Undo"),
      h("span", { class: "made-log" })),
    h("form", { class: "note" },
      h("label", { for: "note-" + id }, "Your note (only you see it)"),
      h("textarea", { id: "note-" + id, name: "note", rows: "3", maxlength: "2000" }),
      h("div", { class: "conflict", hidden: true }),
      h("button", { type: "submit", class: "save-note" }, "Save note"),
      h("span", { class: "note-status", role: "status" })));
}
