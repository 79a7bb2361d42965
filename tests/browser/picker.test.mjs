// My bar's picker (issue 42), in a real browser against the real binary, at a phone's size
// and a laptop's: bottles grouped by kind, each collection's spelling under the bottle it
// means; finding "rye" and ticking it makes the Manhattan ("Bourbon or Rye Whiskey"); a shelf
// ticked in an older spelling ("Bourbon Whiskey") shows as Bourbon, and unticking Bourbon
// takes every spelling of it away but never the Rye of an "X or Y" tick; a brand found by
// name (Cointreau) meets a recipe's "Triple Sec"; axe finds nothing.
//
// Expected values by hand from the file below and data/vocabulary.json: "Bourbon or Rye
// Whiskey" reads as Bourbon or Rye whiskey, "Sweet Red Vermouth" as Sweet vermouth,
// "Angostura aromatic bitters" as Angostura bitters, "Triple Sec" as Triple sec (Cointreau
// is one), "Blanco Tequila" as Tequila blanco.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, phone, startServer, watch, wideContext } from "./lib/browser.mjs";
import { axe, fitsWidth, until } from "./lib/checks.mjs";

const row = (name, measure = "30", unit = "ml") => ({ name, measure, unit });
const recipe = (id, name, ingredients) =>
  ({ id, name, base: [], glass: ["Coupe"], method: ["Stir"], ice: [], ingredients, garnish: [] });
const RECIPES = [
  recipe(1, "Manhattan", [row("Bourbon or Rye Whiskey", "50"), row("Sweet Red Vermouth", "20"), row("Angostura aromatic bitters", "2", "dash")]),
  recipe(2, "Whiskey Sour", [row("Bourbon Whiskey", "50"), row("Lemon Juice", "25"), row("Simple Syrup", "15")]),
  recipe(3, "Margarita", [row("Blanco Tequila", "50"), row("Triple Sec", "20"), row("Lime Juice", "15")]),
];

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const SIZES = [
  { name: "phone 390x844", open: (b) => phone(b) },
  { name: "laptop 1280x800", open: (b) => wideContext(b, { width: 1280, height: 800, touch: false }) },
];

const shown = (page) => page.locator("#shelf input[type=checkbox]").evaluateAll((inputs) =>
  inputs.filter((i) => i.checkVisibility()).map((i) => i.value).sort());
const ticked = (page) => page.locator("#shelf input:checked").evaluateAll((l) => l.map((b) => b.value).sort());
const serverBar = (page) => page.evaluate(() => fetch("/api/bar").then((r) => r.json()));
const put = (page, change) => page.evaluate(async (body) => {
  const r = await fetch("/api/bar/shelf", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return r.status;
}, change);

for (const size of SIZES) {
  test(`${size.name}: the picker finds bottles by name and spelling, and ticks bottles, not spellings`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "libations-picker-"));
    const file = join(dir, "recipes.json");
    writeFileSync(file, JSON.stringify(RECIPES));
    const server = await startServer(["--recipes-file", file, "--local-identity", "alice@example.com", "--state-dir", dir, "--local-edit"]);
    const context = await size.open(browser);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      await page.goto(server.url("/shelf"));
      await page.waitForSelector("#shelf:not([disabled])");
      const kinds = await page.locator("#shelf details.kind summary .kind-name").allTextContents();
      assert.deepEqual(kinds, ["Spirits", "Liqueurs", "Wines", "Bitters", "Syrups", "Juices", "Fresh", "Pantry"]);

      // Find "rye": the Rye whiskey row with the spelling it stands for, under Whiskey.
      await page.locator("#shelf-q").fill("rye");
      await until(() => shown(page), ["rye whiskey"], "rye");
      const rye = page.locator('#shelf li[data-entry="rye-whiskey"]');
      assert.match(await rye.textContent(), /meets “Bourbon or Rye Whiskey”/);
      assert.equal(await page.locator('#shelf li[data-entry="whiskey"]').isVisible(), true, "the kind above it shows");
      assert.match(await page.locator("#shelf-found").textContent(), /^1 bottle matches “rye”\.$/);
      await rye.locator("input").check();
      for (const name of ["sweet", "angostura"]) {
        await page.locator("#shelf-q").fill(name);
        await page.locator("#shelf input[type=checkbox]:visible").first().check();
      }
      await until(async () => (await serverBar(page)).shelf, ["angostura bitters", "rye whiskey", "sweet vermouth"], "three ticks");
      await until(async () => (await serverBar(page)).can_make, [1], "the Manhattan, from rye");
      await until(() => page.locator("#can-make-n").textContent(), "1", "My bar counts it");

      // A brand found by name meets "Triple Sec".
      await page.locator("#shelf-q").fill("cointreau");
      await until(() => shown(page), ["cointreau", "triple sec"], "Cointreau, under the kind it is");
      await page.locator('#shelf input[value="cointreau"]').check();
      assert.equal(await put(page, { have: ["Tequila blanco", "Limes"] }), 200);
      await until(async () => (await serverBar(page)).can_make, [1, 3], "the Margarita, from Cointreau and limes");

      // A shelf ticked in older spellings: "Bourbon Whiskey" ticks Bourbon; unticking it
      // takes that spelling away. "Bourbon or Rye Whiskey" ticks both; unticking Bourbon
      // keeps Rye.
      assert.equal(await put(page, { have: ["Bourbon Whiskey"], out: ["Rye whiskey"] }), 200);
      await page.reload();
      await page.waitForSelector("#shelf:not([disabled])");
      await page.locator("#shelf-q").fill("bourbon");
      await until(async () => (await ticked(page)).includes("bourbon"), true, "Bourbon shows ticked");
      await page.locator('#shelf input[value="bourbon"]').uncheck();
      await until(async () => (await serverBar(page)).shelf.includes("bourbon whiskey"), false, "every spelling of it goes");
      assert.equal(await put(page, { have: ["Bourbon or Rye Whiskey"] }), 200);
      await page.reload();
      await page.waitForSelector("#shelf:not([disabled])");
      await page.locator("#shelf-q").fill("whiskey");
      await until(async () => (await ticked(page)).filter((k) => ["bourbon", "rye whiskey"].includes(k)), ["bourbon", "rye whiskey"], "both show ticked");
      await page.locator('#shelf input[value="bourbon"]').uncheck();
      await until(async () => (await serverBar(page)).shelf.filter((k) => /bourbon|rye/.test(k)), ["rye whiskey"], "Rye stays");
      assert.equal(await page.locator('#shelf input[value="rye whiskey"]').isChecked(), true);

      assert.equal(await fitsWidth(page), true, "no sideways scroll");
      assert.deepEqual(await axe(page), []);
      assert.deepEqual(await watcher.problems(), []);
    } finally {
      await context.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
