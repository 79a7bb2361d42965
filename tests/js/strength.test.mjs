// tests/strength-cases.json from the page's side: the server, given the cases' recipes as
// a recipes file, answers each case's `want` in the list JSON (the page reads the figures,
// it never works them out again), and view.js writes the line from them as
// crates/web/src/view/strength.rs does (its rounding: halves up). The household's case is left
// to the Rust tests (it needs the household's table). Needs a built binary, as markup.test.mjs.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { startServer, tempDir } from "../browser/lib/server.mjs";
import { oneDecimal, percent, strengthLine, upToTwo } from "../../static/js/view.js";

const root = new URL("../../", import.meta.url);
const table = JSON.parse(readFileSync(new URL("tests/strength-cases.json", root), "utf8"));
const cases = table.cases.filter((c) => !c.household);

let server;
before(async () => {
  const dir = tempDir("libations-strength-");
  writeFileSync(dir + "/cases.json", JSON.stringify(cases.map((c) => c.recipe)));
  server = await startServer(["--recipes-file", dir + "/cases.json"]);
});
after(() => server?.stop());

const near = (got, want, within) => (got === null || want === null ? got === want : Math.abs(got - want) <= within);

test("the list JSON carries each worked example's figures", async () => {
  const recipes = await (await fetch(server.url("/api/recipes"))).json();
  assert.ok(cases.length >= 9);
  for (const c of cases) {
    const s = recipes.find((r) => r.id === c.recipe.id).strength;
    const w = c.want;
    assert.ok(near(s.abv, w.abv, 0.05), `${c.about}: abv ${s.abv}, want ${w.abv}`);
    assert.ok(near(s.volume_ml, w.volume_ml, 0.05), `${c.about}: volume ${s.volume_ml}`);
    assert.ok(near(s.standard_drinks, w.standard_drinks, 0.005), `${c.about}: drinks ${s.standard_drinks}`);
    assert.ok(near(s.undiluted_abv, w.undiluted_abv, 0.05), `${c.about}: undiluted ${s.undiluted_abv}`);
    assert.ok(Math.abs(s.dilution - w.dilution) <= 0.0005, `${c.about}: dilution ${s.dilution}`);
    assert.equal(s.approximate, w.approximate, c.about);
    assert.deepEqual(s.not_counted, w.not_counted, c.about);
  }
});

test("the line: rounded halves up, servings scale volume and drinks, the standard drink divides", () => {
  assert.equal(percent(15.5), "16");
  assert.equal(percent(0.3), "<1");
  assert.equal(percent(0), "0");
  assert.equal(oneDecimal(1.25), "1.3");
  assert.equal(oneDecimal(0), "0.0");
  assert.equal(upToTwo(0.05), "0.05");
  assert.equal(upToTwo(0.9), "0.9");
  assert.equal(upToTwo(60), "60");
  const daiquiri = cases.find((c) => c.about.startsWith("Daiquiri")).want;
  assert.equal(strengthLine(daiquiri, 1, 10), "≈ 16% ABV · 150 ml · 1.9 std drinks (10 g)");
  assert.equal(strengthLine(daiquiri, 2, 10), "≈ 16% ABV · 300 ml · 3.8 std drinks (10 g)");
  assert.equal(strengthLine(daiquiri, 1, 14), "≈ 16% ABV · 150 ml · 1.3 std drinks (14 g)");
  assert.equal(strengthLine(daiquiri, 1, 8), "≈ 16% ABV · 150 ml · 2.4 std drinks (8 g)");
  const highball = cases.find((c) => c.about.startsWith("Highball")).want;
  assert.equal(strengthLine(highball, 1, 10), "≈ 32% ABV · 63+ ml · 1.6+ std drinks (10 g)");
  const none = cases.find((c) => c.want.abv === null).want;
  assert.equal(strengthLine(none, 1, 10), "Strength not worked out");
});
