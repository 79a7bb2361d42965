// A recipe as the server writes it: the heading of templates/recipe.html and all of
// templates/recipe_body.html, with the same elements, attributes and order, so that a
// recipe opened in place is its own page's recipe. tests/js/markup.test.mjs renders every
// recipe of the sample both ways and compares them. No DOM here: see markup.js.
import { h } from "./markup.js";
import { UNITS, amount, noteParts } from "./model.js";

// How a recipe is shown: `units` ("ml", "oz", "cl"; null: as the file writes them),
// `servings`, and from the server's page the servings offered as one tap (`serves`)
// and the most one may ask for (`max`).
//   { units, servings, serves: [1, 2, 4, 8], max: 100 }

// The address of recipe `id` shown in `units` for `n` servings (crates/web/src/view/templates.rs).
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
// spirits, the recipe, and Share and Print.
export function recipeArticle(r, glass, choices) {
  const base = r.base && r.base.length ? h("p", { class: "base" }, r.base.join(", ")) : null;
  return h("article", { class: "single" },
    h("h1", { tabindex: "-1" }, glass, h("span", { class: "name" }, r.name)), base, recipeBody(r, choices), shareRow());
}

// Share and Print (templates/recipe.html's share row): shown by share.js where the phone
// can share or copy, and print.
export const shareRow = () => h("p", { class: "share-row" },
  h("button", { type: "button", class: "chip share", hidden: true }, "Share"),
  h("button", { type: "button", class: "chip print", hidden: true }, "Print"),
  h("span", { class: "share-status", role: "status" }));

// <div class="recipe">: templates/recipe_body.html.
export function recipeBody(r, choices) {
  const ingredients = r.ingredients || [];
  const table = ingredients.length === 0 ? null : h("table", { class: "ingredients" },
    h("caption", { class: "visually-hidden" }, caption(choices.servings)),
    h("tbody", null, ...ingredients.map((i) => h("tr", null,
      h("td", { class: "amount", "data-measure": i.measure || "", "data-unit": i.unit || "" },
        amount(i.measure, i.unit, { unit: choices.units, servings: choices.servings })),
      h("th", { scope: "row" }, i.name)))));
  const strength = r.strength ? strengthPart(r, r.strength, choices) : null;
  const facts = [["Method", r.method], ["Glass", r.glass], ["Ice", r.ice], ["Garnish", r.garnish]]
    .filter(([, v]) => v && v.length)
    .map(([k, v]) => h("div", null, h("dt", null, k), h("dd", null, v.join(", "))));
  const notes = !r.notes ? null : h("p", { class: "notes" }, ...noteParts(r.notes).map(([text, link]) =>
    (link ? h("a", { href: text, rel: "noopener noreferrer" }, text) : text)));
  const star = () => h("button", { type: "button", class: "star", "aria-pressed": "false", hidden: true }, "Favourite");
  const wake = () => h("button", { type: "button", class: "wake", "aria-pressed": "false", hidden: true }, "Keep screen on");
  const acts = (...buttons) => h("div", { class: "seg acts" }, ...buttons);
  // On a phone, two rows of 44 px targets: units and Keep screen on, servings and Favourite.
  const [units, serves] = amountTools(r.id, choices);
  const tools = ingredients.length === 0
    ? [acts(star(), wake()), mine(r.id)]
    : [units, acts(wake()), serves, acts(star()), mine(r.id)];
  return h("div", { class: "recipe", id: "recipe-" + r.id, "data-id": String(r.id) },
    table, h("dl", { class: "facts" }, ...facts), strength, notes, h("div", { class: "tools" }, ...tools));
}

// ---- How strong it is: keep in step with crates/web/src/view/strength.rs ----------------------
// Rounded as the server rounds: halves up, by whole numbers.
const whole = (x) => Math.floor(x + 0.5);
export const percent = (x) => (whole(x) === 0 && x > 0 ? "<1" : String(whole(x)));
export function oneDecimal(x) {
  const t = Math.floor(x * 10 + 0.5);
  return Math.floor(t / 10) + "." + (t % 10);
}
export function upToTwo(x) {
  const t = Math.floor(x * 100 + 0.5), w = Math.floor(t / 100), f = t % 100;
  if (f === 0) return String(w);
  return f % 10 === 0 ? w + "." + f / 10 : w + "." + String(f).padStart(2, "0");
}

// The line for `servings` and a standard drink of `grams` (10, 8 in the UK, 14 in the US),
// named in it: "1.9 std drinks (10 g)", never "drinks" alone, which reads as servings.
export function strengthLine(s, servings, grams) {
  if (s.abv === null || s.volume_ml === null || s.standard_drinks === null) return "Strength not worked out";
  const more = s.approximate ? "+" : "";
  const count = s.standard_drinks * servings * 10 / grams;
  const unit = oneDecimal(count) === "1.0" ? "std drink" : "std drinks";
  return "≈ " + percent(s.abv) + "% ABV · " + whole(s.volume_ml * servings) + more + " ml · " + oneDecimal(count) + more + " " + unit + " (" + grams + " g)";
}

const METHODS = {
  shaken: (w) => "Shaken: the ice adds " + w + "% water (Dave Arnold's measurements).",
  stirred: (w) => "Stirred: the ice adds " + w + "% water (Dave Arnold's measurements).",
  built: (w) => "Built on ice: the ice adds " + w + "% water.",
  blended: (w) => "Blended: taken as shaken, the ice adds " + w + "% water.",
  swizzled: (w) => "Swizzled: taken as shaken, the ice adds " + w + "% water.",
  thrown: (w) => "Thrown: taken as stirred, the ice adds " + w + "% water.",
  neat: () => "No ice: no water added.",
  unknown: () => "Method not known: counted undiluted.",
};
const WHOSE = { recipe: "this recipe's", household: "our bar's" };

// <details class="strength">: the line, and how it was worked out (templates/recipe_body.html).
function strengthPart(r, s, choices) {
  let before = 0;
  const rows = (r.ingredients || []).map((line, i) => {
    const [ml, abv, from = "table"] = s.rows[i] || [null, null, "unknown"];
    if (ml === null) return line.name + ": not counted";
    before += ml;
    if (abv === null) return line.name + ": " + upToTwo(ml) + " ml, strength not known (counted as 0%)";
    return line.name + ": " + upToTwo(ml) + " ml at " + upToTwo(abv) + "% (" + (WHOSE[from] || "built-in") + ")";
  });
  const how = (METHODS[s.method] || METHODS.unknown)(percent(s.dilution * 100));
  const method = s.undiluted_abv === null
    ? (s.reason || "Nothing could be counted") + "."
    : "Before ice: " + upToTwo(before) + " ml at " + percent(s.undiluted_abv) + "%. " + how;
  const figures = s.abv !== null && s.volume_ml !== null && s.standard_drinks !== null;
  return h("details", {
    class: "strength",
    "data-abv": figures ? String(s.abv) : null, "data-ml": figures ? String(s.volume_ml) : null,
    "data-drinks": figures ? String(s.standard_drinks) : null, "data-approximate": s.approximate ? true : null,
  },
  h("summary", null, strengthLine(s, choices.servings, choices.grams || 10)),
  h("ul", { class: "working" }, ...rows.map((row) => h("li", null, row))),
  h("p", null, method),
  s.not_counted.length ? h("p", null, "Not counted, so at least this much: " + s.not_counted.join(", ") + ".") : null,
  h("p", { class: "standard" }, "1 drink = " + (choices.grams || 10) + " g of alcohol. An estimate, not a promise; pour responsibly."));
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
