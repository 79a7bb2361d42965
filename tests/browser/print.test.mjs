// Printing a recipe: one page (A5, A4 or Letter), a clean card with the name, glass,
// ingredients in the chosen units and servings, method, garnish and notes; no search box,
// buttons or list. Every sample recipe, in ml and in oz ×4, read back from the PDF.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { SIZES, launch, phone, startServer, watch, wideContext } from "./lib/browser.mjs";
import { readPdf } from "./lib/pdf.mjs";

const FORMATS = ["A5", "A4", "Letter"];
const SHOWN = [{ units: "ml", serves: 1 }, { units: "oz", serves: 4 }];
// Words of the screen around a recipe that a card must not have.
const CHROME = ["Search", "Favourite", "Keep screen on", "Can make", "My bar", "×8", "updated"];

let browser, server;
before(async () => { browser = await launch(); server = await startServer(); });
after(async () => { await browser?.close(); await server?.stop(); });

const squash = (t) => t.normalize("NFKC").replace(/\s+/g, "");

/** What the card must show: name, ingredient lines as on screen, the facts and the notes. */
function card(page, scope) {
  return page.locator(scope).evaluate((root) => ({
    name: root.querySelector(".name").textContent,
    lines: Array.from(root.querySelectorAll(".ingredients tbody tr"), (tr) => tr.querySelector("td").textContent + " " + tr.querySelector("th").textContent),
    facts: Array.from(root.querySelectorAll(".facts dd"), (dd) => dd.textContent),
    notes: root.querySelector(".notes")?.textContent ?? "",
  }));
}

function assertCard(pdf, want, label) {
  assert.equal(pdf.pages, 1, `${label}: exactly one page`);
  const text = squash(pdf.text);
  for (const part of [want.name, ...want.lines, ...want.facts]) {
    assert.ok(text.includes(squash(part)), `${label}: the card has "${part}"`);
  }
  // Notes: the first and last words at least (long notes wrap across lines).
  const words = want.notes.split(/\s+/).filter(Boolean);
  for (const w of [words[0], words.at(-1)].filter(Boolean)) assert.ok(text.includes(squash(w)), `${label}: notes "${w}"`);
  for (const word of CHROME) {
    if (!squash(want.notes + want.name + want.lines.join("") + want.facts.join("")).includes(squash(word))) {
      assert.ok(!text.includes(squash(word)), `${label}: no "${word}" on the card`);
    }
  }
}

test("every sample recipe prints on one page, in ml and in oz ×4, on A5, A4 and Letter", async () => {
  const recipes = await (await fetch(server.url("/api/recipes"))).json();
  const context = await wideContext(browser, SIZES[1]);
  const watcher = await watch(context);
  const page = await context.newPage();
  let cards = 0;
  for (const r of recipes) {
    for (const { units, serves } of SHOWN) {
      await page.goto(server.url(`/recipes/${r.id}?units=${units}&serves=${serves}`));
      const want = await card(page, "#pane .single");
      assert.equal(want.lines.length, (r.ingredients || []).length);
      if (serves !== 1 && want.lines.length) {
        assert.ok(want.lines.some((l) => / oz /.test(l)) || !r.ingredients.some((i) => /^(ml|cl|oz)$/i.test((i.unit || "").trim())), `${r.name}: in oz`);
      }
      for (const format of FORMATS) {
        assertCard(await readPdf(await page.pdf({ format })), want, `${r.name} (${units} ×${serves}, ${format})`);
        cards++;
      }
    }
  }
  console.log(`printed ${cards} cards: ${recipes.length} recipes × ${SHOWN.length} ways × ${FORMATS.length} paper sizes, one page each`);
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});

test("a recipe opened in its row on a phone prints alone", async () => {
  const recipes = await (await fetch(server.url("/api/recipes"))).json();
  const context = await phone(browser);
  const watcher = await watch(context);
  const page = await context.newPage();
  await page.goto(server.url("/"));
  await page.waitForSelector("#recipes a.row[aria-expanded]");
  for (const i of [0, 5, recipes.length - 1]) {
    await page.locator("#recipes > li > a.row").nth(i).tap();
    await page.locator('#recipes > li.open .seg.serves a[data-serves="4"]').tap();
    const want = await card(page, "#recipes > li.open");
    assert.equal(want.name, recipes[i].name);
    const pdf = await readPdf(await page.pdf({ format: "A5" }));
    assertCard(pdf, want, `${want.name} from the phone`);
    // (Printed in capitals: compare without case.)
    assert.ok(squash(pdf.text).toLowerCase().includes("ingredients,for4"), `${want.name}: the servings are on the card`);
    const other = recipes[i === 0 ? 1 : 0].name;
    assert.ok(!squash(pdf.text).includes(squash(other)) || want.notes.includes(other), `${want.name}: no other row (${other})`);
  }
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});
