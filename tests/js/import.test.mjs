// static/js/import.js's pure parts: the content type a file is sent with, and the line of
// ingredients the list to choose from shows (as the server's list writes it), and the
// guesses said once above the list rather than on every row.
import { test } from "node:test";
import assert from "node:assert/strict";
import { summary, typeOf } from "../../static/js/import.js";

test("a file is sent as zip, HTML, Markdown or JSON by its name", () => {
  assert.equal(typeOf("export.ZIP"), "application/zip");
  assert.equal(typeOf("page.html"), "text/html");
  assert.equal(typeOf("page.htm"), "text/html");
  assert.equal(typeOf("recipes.md"), "text/markdown");
  assert.equal(typeOf("data.json"), "application/json");
  assert.equal(typeOf("recipes.jsonld"), "application/json");
  assert.equal(typeOf("no-extension"), "application/json");
});

test("the ingredients line leaves out what a row lacks", () => {
  const recipe = {
    ingredients: [
      { name: "Gin", measure: "50", unit: "ml" },
      { name: "Soda water", measure: "", unit: "top up" },
      { name: "Egg white", measure: "1", unit: "" },
    ],
  };
  assert.equal(summary(recipe), "50 ml Gin, top up Soda water, 1 Egg white");
  assert.equal(summary({}), "");
});

test("a note said of two or more recipes is said once, with how many; each keeps its own", async () => {
  const { splitNotes } = await import("../../static/js/import.js");
  const problems = [
    { recipe: 0, field: "base", message: "base guessed from the ingredients" },
    { recipe: 1, field: "base", message: "base guessed from the ingredients" },
    { recipe: 1, field: "glass", message: "not given" },
    { recipe: 2, field: "base", message: "base guessed from the ingredients" },
    { recipe: 2, field: "ice", message: "ice guessed from the instructions" },
    { recipe: 0, field: "ice", message: "ice guessed from the instructions" },
  ];
  const { each, shared } = splitNotes(problems);
  assert.deepEqual(shared, [
    { text: "base guessed from the ingredients", n: 3 },
    { text: "ice guessed from the instructions", n: 2 },
  ]);
  assert.deepEqual(each.get(0), []);
  assert.deepEqual(each.get(1), ["glass: not given"]);
  assert.deepEqual(each.get(2), []);
  assert.deepEqual(splitNotes([]).shared, []);
});
