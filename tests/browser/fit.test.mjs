// Every recipe, opened as the owner opens it (a tap on its row), must fit on a 390×844
// phone screen without scrolling: from its name to the last line of its notes. Also with
// amounts in oz for 8 servings (the widest amounts the tools make: "13¼ oz", "16 dash").
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, phone, settle, sharedData, startServer, watch } from "./lib/browser.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/**
 * Opens every row of the list in turn; returns [{name, fits, over, ingredients}]. `units`
 * is stored on the phone before the page loads; `serves` is tapped on each opened recipe.
 */
async function openEveryRecipe(server, { units = null, serves = 1 } = {}) {
  const context = await phone(browser);
  const watcher = await watch(context);
  if (units) {
    await context.addInitScript((units) => {
      if (location.protocol !== "http:") return; // about:blank has no storage
      localStorage.setItem("libations", JSON.stringify({ version: 1, units, shelf: [], favourites: [] }));
    }, units);
  }
  const page = await context.newPage();
  await page.goto(server.url("/"));
  await page.waitForSelector("#recipes a.row[aria-expanded]"); // the data has arrived
  const recipes = await (await fetch(server.url("/api/recipes"))).json();
  const rows = page.locator("#recipes > li > a.row");
  assert.equal(await rows.count(), recipes.length);
  const results = [];
  for (let i = 0; i < recipes.length; i++) {
    await rows.nth(i).tap();
    if (serves !== 1 && (recipes[i].ingredients || []).length > 0) {
      const chip = page.locator(`#recipes > li.open .tools .seg.serves a[data-serves="${serves}"]`);
      if ((await chip.getAttribute("aria-current")) !== "true") await chip.tap();
      await page.waitForSelector(`#recipes > li.open .tools .seg.serves a[data-serves="${serves}"][aria-current="true"]`, { timeout: 5000 });
    }
    await settle(page);
    const m = await page.evaluate(() => {
      const li = document.querySelector("#recipes > li.open");
      if (!li) return null;
      const box = li.getBoundingClientRect();
      const bar = document.querySelector(".bar").getBoundingClientRect();
      return {
        name: li.querySelector(".name").textContent,
        top: box.top, bottom: box.bottom, barBottom: bar.bottom, height: innerHeight,
        ingredients: li.querySelectorAll(".ingredients tbody tr").length,
        hasNotes: li.querySelector(".notes") !== null,
        // Anything too wide makes a phone zoom the page out: the viewport must stay 390 wide.
        scrolls: innerWidth !== 390 || document.documentElement.scrollWidth > innerWidth,
        // Amounts as shown, with the file's unit of each.
        amounts: Array.from(li.querySelectorAll(".ingredients td.amount"), (td) => ({ measure: td.dataset.measure, unit: td.dataset.unit, text: td.textContent.trim() })),
      };
    });
    assert.ok(m, `tapping row ${i} (${recipes[i].name}) opened it`);
    assert.equal(m.name, recipes[i].name);
    assert.equal(m.ingredients, (recipes[i].ingredients || []).length, `${m.name}: every ingredient shown`);
    assert.equal(m.hasNotes, Boolean(recipes[i].notes), `${m.name}: notes shown`);
    assert.equal(m.scrolls, false, `${m.name}: no sideways scrolling`);
    assert.equal(m.height, 844, `${m.name}: the page is not zoomed out`);
    if (units) {
      // A number of ml shows in the chosen units (the amounts really were converted).
      const ml = m.amounts.filter((a) => /^ml$/i.test((a.unit ?? "").trim()) && /^\d+(\.\d+)?$/.test((a.measure ?? "").trim()));
      for (const a of ml) assert.match(a.text, new RegExp(` ${units}$`), `${m.name}: "${a.text}" in ${units}`);
    }
    const over = Math.max(0, m.bottom - m.height, m.barBottom - m.top);
    results.push({ name: m.name, fits: over < 0.5, over: Math.round(over), height: Math.round(m.bottom - m.top) });
  }
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
  return results;
}

function report(label, results) {
  const fit = results.filter((r) => r.fits).length;
  const fraction = fit / results.length;
  const worst = results.filter((r) => !r.fits).sort((a, b) => b.over - a.over).slice(0, 8);
  console.log(`fits on one screen, ${label}: ${fit}/${results.length} = ${(100 * fraction).toFixed(1)}%` +
    (worst.length ? "; worst: " + worst.map((r) => `${r.name} (+${r.over}px)`).join(", ") : ""));
  return fraction;
}

// As the file has it, and in oz scaled ×8.
const SHOWN = [
  { label: "", options: {} },
  { label: ", in oz ×8", options: { units: "oz", serves: 8 } },
];

for (const { label, options } of SHOWN) {
  test(`every sample recipe fits on the phone screen${label}`, async () => {
    const server = await startServer();
    try {
      const fraction = report("sample" + label, await openEveryRecipe(server, options));
      assert.equal(fraction, 1);
    } finally {
      await server.stop();
    }
  });
}

for (const file of ["iba.json", "bar-assistant.json"]) {
  for (const { label, options } of SHOWN) {
    test(`${file}: at least 98% of the recipes fit on the phone screen${label}`, async (t) => {
      const path = sharedData(file, t);
      if (!path) return;
      const server = await startServer(["--recipes-file", path]);
      try {
        const fraction = report(file + label, await openEveryRecipe(server, options));
        assert.ok(fraction >= 0.98, `${file}${label}: ${(100 * fraction).toFixed(1)}% fit`);
      } finally {
        await server.stop();
      }
    });
  }
}
