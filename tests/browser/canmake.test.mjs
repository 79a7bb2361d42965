// "Can make" explains itself (issue 42), in a real browser against the real binary, at a
// phone's size and a laptop's, and without JavaScript: under a recipe the household's shelf
// makes with a stand-in or a prep, the words for it; My bar's counts and best next bottle,
// worked out in the page from the vocabulary the server serves beside the modules, agree
// with the server's own answer (GET /api/bar); axe finds nothing.
//
// Expected words worked out by hand from recipes/sample.json and data/vocabulary.json: the
// shelf holds Gin, Limes, Sugar, Cointreau, Blanco tequila and Agave syrup. The Margarita
// (3: Blanco Tequila, Triple Sec, Lime Juice, Agave Syrup) takes Cointreau for the triple
// sec and limes squeezed for the juice; the Gimlet (10: Gin, Lime Juice, Sugar Syrup)
// squeezes limes and makes simple syrup from sugar (water is always there). The Daiquiri
// lacks only White Rum, named as the vocabulary names the bottle: "White rum".
// While the page takes the list over, the rows never flash the device's own (empty) shelf's
// answer before the household's shelf has come (a flake of session 19's CI, now forced).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, phone, startServer, watch, wideContext } from "./lib/browser.mjs";
import { axe, until } from "./lib/checks.mjs";

const SHELF = ["Gin", "Limes", "Sugar", "Cointreau", "Blanco tequila", "Agave syrup"];
const LIMES = "Limes for Lime juice (squeezed from limes: about 25 ml a lime; keeps best the day it is squeezed)";
const SYRUP = "Sugar and Water for Simple syrup (sugar and water, 1:1 by volume, stirred until clear (2:1 makes a rich syrup); keeps about a month in the fridge)";
const WORDS = {
  Margarita: `can make now: Cointreau for Triple sec; ${LIMES}`,
  Gimlet: `can make now: ${LIMES}; ${SYRUP}`,
};

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const SIZES = [
  { name: "phone 390x844", open: (b, o = {}) => phone(b, o) },
  { name: "laptop 1280x800", open: (b, o = {}) => wideContext(b, { width: 1280, height: 800, touch: false }, o) },
];

// The "have" line of each listed recipe, by name.
const haves = (page) => page.locator("#recipes > li:not([hidden])").evaluateAll((lis) => Object.fromEntries(
  lis.map((li) => [li.querySelector(".name").textContent, li.querySelector(".have")?.textContent ?? null])));

for (const size of SIZES) {
  test(`${size.name}: can make says how, with and without JavaScript, and agrees with the server`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "libations-canmake-"));
    const server = await startServer(["--local-identity", "alice@example.com", "--state-dir", dir, "--local-edit"]);
    // (No service worker: its fetches would pass by the route that makes the shelf late.)
    const context = await size.open(browser, { serviceWorkers: "block" });
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      await page.goto(server.url("/shelf"));
      await page.locator("#bar-who").waitFor({ state: "visible" });
      const bar = await page.evaluate(async (have) => {
        const r = await fetch("/api/bar/shelf", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ have }) });
        return r.json();
      }, SHELF);
      assert.ok(bar.can_make.includes(3) && bar.can_make.includes(10), JSON.stringify(bar));

      // My bar, worked out in the page: the server's counts and bottles, named as bottles.
      await page.reload();
      await page.locator("#bar-who").waitFor({ state: "visible" });
      const counts = () => page.evaluate(() => [
        document.getElementById("can-make-n").textContent, document.getElementById("missing-one-n").textContent]);
      await until(counts, [String(bar.can_make.length), String(bar.missing_one.length)], "My bar's counts are the server's");
      const names = await page.locator("#next-bottles .bottle-name").allTextContents();
      assert.deepEqual(names, bar.next_bottles.slice(0, 5).map((b) => b.name));
      assert.ok(names.includes("White rum"), names.join(", "));

      // The list, searched for can:make: each row says how, in the page. The household's
      // shelf is made to come late, after the list's own data: until it comes, the rows
      // stay the server's, never the device's empty shelf's answer (none), then back.
      await page.route("**/api/bar", async (route) => {
        await new Promise((r) => setTimeout(r, 1500));
        await route.continue();
      });
      await page.goto(server.url("/?q=can:make"));
      const seen = [];
      const key = (rows) => JSON.stringify(Object.entries(rows).sort());
      for (const end = Date.now() + 3000; Date.now() < end;) {
        seen.push(key(await haves(page)));
        await new Promise((r) => setTimeout(r, 40));
      }
      assert.deepEqual([...new Set(seen)], [key(WORDS)], "the rows while the page took the list over");
      await page.unroute("**/api/bar");
      await until(() => haves(page), WORDS, "what the shelf makes, and only that, each saying how");
      const shown = await haves(page);
      assert.deepEqual(await axe(page), []);
      assert.deepEqual(await watcher.problems([/Service Worker registration blocked by Playwright/]), []);

      // The same words from the server, for a browser without JavaScript.
      const plain = await size.open(browser, { javaScriptEnabled: false });
      const still = await plain.newPage();
      const answer = await still.goto(server.url("/?q=can:make"));
      assert.equal(answer.status(), 200, await answer.text());
      const served = await haves(still);
      assert.deepEqual(served, shown);
      // (axe needs scripts to run: the page without them is checked above, with the same rows.)
      await plain.close();
    } finally {
      await context.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
