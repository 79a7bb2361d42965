// Runs static/js/vocabulary.js against tests/vocabulary-cases.json, the table
// crates/model/src/vocabulary is tested with: the browser reads data/vocabulary.json (one
// table, served beside the modules) and meets each row exactly as the server does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Vocabulary } from "../../static/js/vocabulary.js";
import { ingredientKey } from "../../static/js/model.js";

const root = new URL("../../", import.meta.url);
const read = (name) => JSON.parse(readFileSync(new URL(name, root), "utf8"));
const vocabulary = new Vocabulary(read("data/vocabulary.json"));

test("every shared case is met as the table says (tests/vocabulary-cases.json)", () => {
  const { cases } = read("tests/vocabulary-cases.json");
  assert.ok(cases.length > 40);
  const failures = [];
  for (const c of cases) {
    const rules = (c.rules || []).map(([have, wanted]) => ({ have, wanted }));
    const how = vocabulary.meetsRow(vocabulary.shelf(c.shelf, rules), vocabulary.row(c.row, c.exact === true, c.substitutes || []));
    const got = how === null ? { met: false } : { met: true, how: vocabulary.explain(how) };
    const want = c.met ? { met: true, how: c.how ?? null } : { met: false };
    if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${JSON.stringify(c)}: got ${JSON.stringify(got)}`);
  }
  assert.deepEqual(failures, []);
});

test("a shelf stored as keys reads as the names it was ticked as", () => {
  for (const name of ["Cointreau", "Sweet Red Vermouth", "Fresh Lime Juice", "House Falernum"]) {
    const ticked = vocabulary.shelf([name]), stored = vocabulary.shelf([ingredientKey(name)]);
    assert.deepEqual([...stored.entries], [...ticked.entries], name);
    assert.deepEqual([...stored.names], [...ticked.names], name);
  }
});

test("several bottles of a kind: the first in the vocabulary's order stands in, whatever the tick order", () => {
  const one = vocabulary.meetsName(vocabulary.shelf(["Bourbon", "Rye whiskey"]), "Whiskey");
  const two = vocabulary.meetsName(vocabulary.shelf(["Rye whiskey", "Bourbon"]), "Whiskey");
  assert.equal(vocabulary.explain(one), vocabulary.explain(two));
});
