// Runs static/js/rules.js's search against the table that src/search.rs is tested with, so the
// instant (JavaScript) search and the server's search cannot drift apart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as S from "../../static/js/rules.js";

const root = new URL("../../", import.meta.url);
const table = JSON.parse(readFileSync(new URL("tests/search-cases.json", root), "utf8"));

test("rules.js loads without a DOM and exposes the search", () => {
  assert.equal(typeof S.search, "function");
});

test("fold table", () => {
  for (const [input, want] of table.fold) assert.equal(S.fold(input), want, `fold(${JSON.stringify(input)})`);
});

test("search table", () => {
  const docs = table.recipes.map(S.doc);
  // The server sorts by folded name, then id; the page lists recipes in that order.
  const order = table.recipes
    .map((r, i) => [S.fold(r.name), r.id, i])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]))
    .map((x) => x[2]);
  const sortedDocs = order.map((i) => docs[i]);
  const sortedRecipes = order.map((i) => table.recipes[i]);
  assert.ok(table.cases.length >= 20);
  for (const c of table.cases) {
    const got = [...S.search(sortedDocs, S.parse(c.query))].map((i) => sortedRecipes[i].name);
    assert.deepEqual(got, c.expect, `query ${JSON.stringify(c.query)}`);
  }
});

test("a term matches only where a word starts", () => {
  assert.equal(S.startsAWord("lime juice", "ice"), false);
  assert.equal(S.startsAWord("crushed ice", "ice"), true);
  assert.equal(S.startsAWord("baaa", "aa"), false);
  assert.equal(S.startsAWord("baaa aa", "aa"), true);
  assert.equal(S.startsAWord("x-gin", "gin"), true);
});

test("limits table: identical terms count once, too many or too long is refused", () => {
  const limits = table.limits;
  assert.equal(S.MAX_TERMS, limits.max_terms);
  assert.equal(S.MAX_TERM_CHARS, limits.max_term_chars);
  for (const c of limits.cases) {
    const query = c.repeat ? c.repeat[0].repeat(c.repeat[1]) : c.query;
    const terms = S.parse(query);
    const refused = S.refusal(terms);
    const shown = JSON.stringify(query.slice(0, 40));
    if (c.error !== undefined) {
      assert.equal(refused, c.error, shown);
    } else {
      assert.equal(refused, null, shown);
      assert.equal(terms.filter((t) => !t.device).length, c.terms, shown);
    }
  }
});
