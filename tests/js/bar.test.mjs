// Runs static/js/model.js's amounts and shelf rules against the tables crates/model/src/units.rs,
// crates/model/src/ingredients.rs and crates/model/src/makes.rs are tested with, so the phone
// and the no-JS page never disagree.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as L from "../../static/js/model.js";
import { Vocabulary } from "../../static/js/vocabulary.js";
import { recordSkip } from "../skip-log.mjs";

const root = new URL("../../", import.meta.url);
const read = (name) => JSON.parse(readFileSync(new URL(name, root), "utf8"));
const vocabulary = new Vocabulary(read("data/vocabulary.json"));

test("units table", () => {
  const { cases } = read("tests/units-cases.json");
  assert.ok(cases.length >= 25);
  const failures = [];
  for (const c of cases) {
    const got = L.amount(c.measure, c.unit, { unit: c.to, servings: c.servings });
    if (got !== c.want) failures.push(`${JSON.stringify(c)}: got ${JSON.stringify(got)}`);
  }
  assert.deepEqual(failures, []);
});

test("ingredient table", () => {
  const t = read("tests/ingredient-cases.json");
  for (const [name, want] of t.keys) assert.equal(L.ingredientKey(name), want, `key(${JSON.stringify(name)})`);
  for (const [name, want] of t.staples) assert.equal(L.isStaple(L.ingredientKey(name)), want, `staple ${name}`);
  for (const [name, want] of t.optional) assert.equal(L.isOptional(name), want, `optional ${name}`);
});

test("a key is its own key (a stored shelf survives being read again)", () => {
  const t = read("tests/ingredient-cases.json");
  const sample = read("recipes/sample.json").flatMap((r) => (r.ingredients || []).map((i) => i.name));
  for (const name of [...t.keys.map(([n]) => n), ...sample, "Freshly Squeezed Fresh Lime"]) {
    const once = L.ingredientKey(name);
    assert.equal(L.ingredientKey(once), once, `key(key(${JSON.stringify(name)}))`);
  }
});

test("a recipe's needs leave out staples and optional ingredients, each key once", () => {
  const need = L.needs({
    ingredients: [
      { name: "Gin" }, { name: "Fresh Lime Juice" }, { name: "Lime juice" },
      { name: "Soda Water" }, { name: "Egg White (optional)" }, { name: "Crushed Ice" },
    ],
  });
  assert.deepEqual(JSON.parse(JSON.stringify(need)), [["gin", "Gin"], ["lime juice", "Fresh Lime Juice"]]);
  assert.deepEqual([...L.missing(need, new Set(["lime juice"]))], ["Gin"]);
});

test("can make and missing one on iba.json with a fixed shelf (tests/shelf-cases.json)", (t) => {
  const c = read("tests/shelf-cases.json");
  const path = new URL("../shared/data/" + c.file, root);
  if (!existsSync(path)) {
    assert.notEqual(process.env.LIBATIONS_REQUIRE_SHARED_DATA, "1", `LIBATIONS_REQUIRE_SHARED_DATA=1 but ${path.pathname} is missing`);
    const reason = `${path.pathname} not found (the shared test data lives beside this clone, in ../shared/data)`;
    recordSkip(t, reason);
    t.skip(reason);
    return;
  }
  // Stored as a shelf stores them: keys.
  const shelf = new Set(c.shelf.map(L.ingredientKey));
  const canMake = [];
  const missingOne = {};
  const recipes = JSON.parse(readFileSync(path, "utf8"));
  const rows = L.shelfRows(recipes.map((r) => [r.id, L.needs(r)]), shelf, vocabulary);
  recipes.forEach((r, i) => {
    const gap = rows[i].missing;
    if (gap.length === 0) canMake.push(r.name);
    if (gap.length === 1) missingOne[r.name] = gap[0][1];
  });
  assert.deepEqual(canMake.sort(), [...c.can_make].sort());
  assert.deepEqual(missingOne, c.missing_one);
});

test("the bar's analysis table: can make, missing one, next bottles (tests/shelf-cases.json)", () => {
  const { recipes, cases } = read("tests/shelf-cases.json").analysis;
  assert.ok(cases.length >= 5);
  for (const c of cases) {
    const got = L.analyse(recipes, new Set(c.shelf.map(L.ingredientKey)), vocabulary);
    const want = { can_make: c.can_make, how: c.how, missing_one: c.missing_one, next_bottles: c.next_bottles };
    assert.deepEqual(got, want, c.about);
  }
});

test("the household's rules and a row's substitutes (tests/shelf-cases.json, household)", () => {
  const { recipes, cases } = read("tests/shelf-cases.json").household;
  assert.ok(cases.length >= 3);
  for (const c of cases) {
    const got = L.analyse(recipes, new Set(c.shelf.map(L.ingredientKey)), vocabulary, c.rules);
    const want = { can_make: c.can_make, how: c.how, missing_one: c.missing_one, next_bottles: c.next_bottles };
    assert.deepEqual(got, want, c.about);
  }
});

test("links in notes table", () => {
  const { cases } = read("tests/link-cases.json");
  assert.ok(cases.length >= 10);
  for (const [notes, want] of cases) {
    assert.deepEqual(JSON.parse(JSON.stringify(L.noteParts(notes))), want, JSON.stringify(notes));
  }
});
