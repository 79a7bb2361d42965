// A recipe opened in place (static/js/view.js) must be the recipe its own page shows
// (templates/recipe.html and recipe_body.html). Renders every recipe of the embedded
// sample both ways — the real binary's page, and view.js turned into HTML in Node — in
// several units and servings, and compares the markup (whitespace between tags aside).
// Needs a built binary: $LIBATIONS_BIN, else the newer of target/{release,debug}/libations.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer, tempDir } from "../browser/lib/server.mjs";
import { recipeArticle } from "../../static/js/view.js";
import { toHTML } from "../../static/js/markup.js";

let server;
before(async () => { server = await startServer(); });
after(() => server?.stop());

async function page(path) {
  const response = await fetch(server.url(path));
  assert.equal(response.status, 200, path);
  return response.text();
}

// What the browser reads from the server's page: the list's servings choices and a row's
// glass icon (view.js takes both from the page, see recipe.js and pane.js).
function fromPage(html, id) {
  const list = /<ol class="recipes" id="recipes"[^>]*>/.exec(html)?.[0];
  assert.ok(list, "the page has the list");
  const serves = / data-serves="([^"]*)"/.exec(list)?.[1];
  const max = / data-max-serves="([^"]*)"/.exec(list)?.[1];
  assert.ok(serves && max, "the list carries the servings choices: " + list);
  const row = new RegExp(`<li data-id="${id}"><a class="row"[^>]*>(<svg class="glass".*?</svg>)`).exec(html);
  assert.ok(row, `the list has a row with an icon for ${id}`);
  return { serves: serves.split(" ").map(Number), max: Number(max), glass: { html: row[1] } };
}

const article = (html) => /<article class="single">([\s\S]*?)<\/article>/.exec(html)?.[1];
const normal = (html) => html.replace(/>\s+</g, "><").replace(/\s+/g, " ").trim();

// Where two strings first differ, with some context, for the failure message.
function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}:\n  server: …${a.slice(Math.max(0, i - 80), i + 80)}\n  view.js: …${b.slice(Math.max(0, i - 80), i + 80)}`;
}

test("every sample recipe: view.js writes the markup of the recipe page", async () => {
  const recipes = JSON.parse(await page("/api/recipes"));
  assert.ok(recipes.length >= 20, "the embedded sample");
  const first = fromPage(await page("/"), recipes[0].id);
  // The file's own units, each unit, servings offered as one tap, typed and the most.
  const shown = [[null, 1], ["oz", 4], ["ml", 2], ["cl", 8], [null, 3], ["oz", first.max]];
  let compared = 0;
  let notes = 0;
  for (const r of recipes) {
    for (const [units, servings] of shown) {
      const query = [units && "units=" + units, servings !== 1 && "serves=" + servings].filter(Boolean).join("&");
      const html = await page(`/recipes/${r.id}${query ? "?" + query : ""}`);
      const { serves, max, glass } = fromPage(html, r.id);
      const server = normal(article(html) ?? "");
      const js = normal(toHTML(recipeArticle(r, glass, { units, servings, serves, max })).replace(/^<article class="single">|<\/article>$/g, ""));
      assert.ok(server.includes('<div class="recipe"'), `${r.name}: the page shows the recipe`);
      assert.equal(js, server, `${r.name} (${query || "as written"}) differs ${firstDifference(server, js)}`);
      compared++;
    }
    if (r.notes) notes++;
  }
  assert.equal(compared, recipes.length * shown.length);
  assert.ok(notes > 0, "the sample has notes, so their markup is compared too");
});

test("a recipe with markup in every field and a link in its notes is written the same", async (t) => {
  // Served from a file of our own: names and notes with characters the template escapes.
  const { writeFileSync } = await import("node:fs");
  const dir = tempDir("libations-markup-");
  const tricky = [{
    id: 7, name: "Tom & Jerry's \"<b>Flip</b>\"", base: ["Rum & <i>Brandy</i>"], glass: ["Mug"],
    method: ["Shake", "Strain"], ice: [], garnish: ["Nutmeg's dust"],
    ingredients: [
      { name: "Dark <rum>", measure: "1 1/2", unit: "oz" }, { name: "Egg", measure: "1" },
      { name: "Sugar & spice", measure: "2-3", unit: "tsp" }, { name: "Salt", measure: "a pinch" },
    ],
    notes: "From https://example.com/a?b=1&c=<2>. Also http://example.org/x, not javascript:alert(1); <b>bold</b> & 'quoted'",
  }];
  writeFileSync(dir + "/recipes.json", JSON.stringify(tricky));
  const own = await startServer(["--recipes-file", dir + "/recipes.json"]);
  t.after(() => own.stop());
  const [r] = await (await fetch(own.url("/api/recipes"))).json();
  for (const [units, servings, query] of [[null, 1, ""], ["ml", 4, "?units=ml&serves=4"]]) {
    const html = await (await fetch(own.url(`/recipes/7${query}`))).text();
    const { serves, max, glass } = fromPage(html, 7);
    const server = normal(article(html) ?? "");
    const js = normal(toHTML(recipeArticle(r, glass, { units, servings, serves, max })).replace(/^<article class="single">|<\/article>$/g, ""));
    assert.ok(server.includes("&#60;b&#62;"), "the page escapes the markup");
    assert.equal(js, server, `differs ${firstDifference(server, js)}`);
  }
});
