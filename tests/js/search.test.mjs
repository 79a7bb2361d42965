// Runs static/js/model.js's search against the table that crates/model/src/search.rs is tested with, so the
// instant (JavaScript) search and the server's search cannot drift apart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as S from "../../static/js/model.js";
import * as G from "../../static/js/guess.js";
import { Vocabulary } from "../../static/js/vocabulary.js";

const root = new URL("../../", import.meta.url);
const table = JSON.parse(readFileSync(new URL("tests/search-cases.json", root), "utf8"));
const words = new Vocabulary(JSON.parse(readFileSync(new URL("data/vocabulary.json", root), "utf8")));

test("model.js loads without a DOM and exposes the search", () => {
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
    const got = [...S.search(sortedDocs, S.parse(c.query), words)].map((i) => sortedRecipes[i].name);
    assert.deepEqual(got, c.expect, `query ${JSON.stringify(c.query)}`);
  }
});

// The recipes in the server's order: by folded name, then id.
function sorted(recipes) {
  return recipes
    .map((r) => [S.fold(r.name), r.id, r])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]))
    .map((x) => x[2]);
}

// A context as model.js takes it, from the table's (ids as object keys, a shelf of names).
function mineOf(m) {
  const ids = (o) => new Map(Object.entries(o).map(([id, v]) => [Number(id), v]));
  return {
    favourites: new Set(m.favourites), ratings: ids(m.ratings), lastMade: ids(m.last_made),
    now: m.now, shelf: m.shelf === null ? null : new Set(m.shelf.map(S.ingredientKey)),
  };
}

test("personal table: terms that depend on who is asking", () => {
  const { mines, cases } = table.personal;
  const recipes = sorted(table.recipes);
  const docs = recipes.map(S.doc);
  const need = recipes.map(S.needs);
  assert.ok(cases.length >= 30);
  for (const c of cases) {
    const terms = S.parse(c.query);
    let hits = S.search(docs, terms, words);
    if (c.mine !== null) {
      const mine = mineOf(mines[c.mine]);
      const personal = terms.filter((t) => t.personal).map((t) => t.personal);
      hits = hits.filter((i) => {
        const gaps = mine.shelf === null ? null : S.missing(need[i], mine.shelf).length;
        return personal.every((p) => S.personalPasses(p, mine, recipes[i].id, gaps));
      });
    }
    assert.deepEqual(hits.map((i) => recipes[i].name), c.expect, `query ${JSON.stringify(c.query)}, mine ${c.mine}`);
  }
});

test("personal terms: each canonical spelling, and what stays a plain term", () => {
  const spelt = (q) => S.parse(q).filter((t) => t.personal).map((t) => t.personal);
  assert.deepEqual(
    spelt("RATING:>=4 rating:>4 rating:4 rating:<=4 rating:<4 made:never made:recent"),
    ["rating:>=4", "rating:>4", "rating:4", "rating:<=4", "rating:<4", "made:never", "made:recent"],
  );
  assert.deepEqual(spelt("is:starred missing:1 can:make is:fav"), ["is:fav", "missing:one", "can:make"]);
  for (const plain of ["rating:0", "rating:6", "rating:abc", "rating:=4", "rating:>=", "rating:", "rating:45", "rating:+4", "made:often"]) {
    const terms = S.parse(plain);
    assert.deepEqual(terms, [{ field: null, text: plain }], plain);
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
      assert.equal(terms.filter((t) => !t.personal).length, c.terms, shown);
    }
  }
});

// `figures` in tests/search-cases.json: abv:, drinks: and sort: over the recipes of
// tests/strength-cases.json, each carrying the strength its `want` gives (as the list JSON
// carries the server's), held to the same answers as crates/model/src/search.rs.
test("figures table: abv:, drinks: and sort: over the strength cases", () => {
  const strengths = JSON.parse(readFileSync(new URL("tests/strength-cases.json", root), "utf8"));
  const recipes = sorted(strengths.cases.map((c) => ({ ...c.recipe, strength: c.want })));
  const docs = recipes.map(S.doc);
  assert.ok(table.figures.cases.length >= 8);
  for (const c of table.figures.cases) {
    const got = S.search(docs, S.parse(c.query), words).map((i) => recipes[i].id);
    assert.deepEqual(got, c.expect, `query ${JSON.stringify(c.query)}`);
  }
  const plain = S.parse("abv:abc abv:< drinks:-1 abv:1e3 abv:10. drinks:1%");
  assert.equal(plain.filter((t) => t.figure).length, 0);
  assert.equal(plain.length, 6);
  assert.equal(S.refusal(S.parse("abv:<10 sort:abv")), null, "figures and sort are not words");
});

// `bottles`: terms the vocabulary knows, the plural rule, has:; `guesses`: typos forgiven.
// The same answers as crates/model/src/search (bottles_table, guesses_table).
test("bottles table: spellings fold, whole words, plurals, has:", () => {
  for (const [word, want] of table.bottles.singular) assert.equal(S.singular(word), want, word);
  const recipes = sorted(table.bottles.recipes);
  const docs = recipes.map(S.doc);
  assert.ok(table.bottles.cases.length >= 20);
  for (const c of table.bottles.cases) {
    const got = S.search(docs, S.parse(c.query), words).map((i) => recipes[i].name);
    assert.deepEqual(got, c.expect, `query ${JSON.stringify(c.query)}`);
  }
  for (const c of table.bottles.limits) {
    const terms = S.parse(c.query);
    if (c.error !== undefined) assert.equal(S.refusal(terms), c.error, c.query);
    else assert.equal(S.refusal(terms), null, c.query);
  }
});

test("guesses table: a typo in a name or a bottle, closest first", () => {
  assert.equal(G.MAX_GUESSES, table.guesses.max);
  for (const [a, b, want] of table.guesses.distance) {
    assert.equal(G.distance(Array.from(a), Array.from(b), 10), want, `${a} ${b}`);
    assert.equal(G.distance(Array.from(a), Array.from(b), Math.max(0, want - 1)) !== -1, want === 0);
  }
  const recipes = sorted(table.bottles.recipes);
  const docs = recipes.map(S.doc);
  for (const c of table.guesses.cases) {
    const got = G.guesses(docs, S.parse(c.query), words).map((i) => recipes[i].name);
    assert.deepEqual(got, c.expect, `query ${JSON.stringify(c.query)}`);
  }
});

// `misread`: a number's field without a number, said in words (guess.rs's `misread`).
test("misread table: abv:abc says what abv: takes", () => {
  assert.ok(table.misread.cases.length >= 8);
  for (const c of table.misread.cases) assert.equal(G.misread(S.parse(c.query)), c.say, c.query);
});
