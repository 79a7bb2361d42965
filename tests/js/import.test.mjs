// static/js/import.js's pure parts: the content type a file is sent with, and the line of
// ingredients the list to choose from shows (as the server's list writes it).
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
