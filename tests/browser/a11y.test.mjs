// Accessibility: axe-core finds nothing on the list, an opened recipe, search results and
// the 404 page, in light and dark; search, open and close work from the keyboard alone.
// The same pages are saved as phone-sized screenshots in docs/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { ROOT, SIZES, launch, phone, settle, startServer, watch, wideContext } from "./lib/browser.mjs";
import { axe, loaded, shelfBox } from "./lib/checks.mjs";

const SHOTS = ROOT + "docs/screenshots/";

let browser, server;
before(async () => { browser = await launch(); server = await startServer(); mkdirSync(SHOTS, { recursive: true }); });
after(async () => { await browser?.close(); await server?.stop(); });

for (const colorScheme of ["light", "dark"]) {
  test(`axe finds no violations (${colorScheme}); screenshots`, async () => {
    const context = await phone(browser, { colorScheme });
    const watcher = await watch(context);
    const page = await context.newPage();
    await page.goto(server.url("/"));
    await loaded(page);
    assert.deepEqual(await axe(page), [], "list");
    await page.screenshot({ path: `${SHOTS}list-${colorScheme}.png`, scale: "css" });

    await page.locator("#recipes > li > a.row").nth(3).tap();
    await settle(page);
    assert.deepEqual(await axe(page), [], "opened recipe");
    await page.screenshot({ path: `${SHOTS}recipe-${colorScheme}.png`, scale: "css" });

    await page.locator("#q").fill("lime");
    await page.waitForFunction(() => !document.getElementById("recipes").hasAttribute("aria-busy"));
    await page.evaluate(() => scrollTo(0, 0));
    assert.deepEqual(await axe(page), [], "search results");
    await page.screenshot({ path: `${SHOTS}search-${colorScheme}.png`, scale: "css" });

    await page.goto(server.url("/?q=zzzzzz"));
    assert.deepEqual(await axe(page), [], "no results");
    await page.goto(server.url("/recipes/1"));
    assert.deepEqual(await axe(page), [], "recipe page");
    await page.locator('.recipe [data-units="oz"]').click();
    await page.locator(".recipe .star").click();
    assert.deepEqual(await axe(page), [], "recipe page in oz, starred");
    await page.goto(server.url("/shelf"));
    await (await shelfBox(page, "gin")).check();
    assert.deepEqual(await axe(page), [], "shelf page");
    await page.screenshot({ path: `${SHOTS}shelf-${colorScheme}.png`, scale: "css" });
    await page.goto(server.url("/?q=can:make"));
    await loaded(page);
    assert.deepEqual(await axe(page), [], "can make");
    const missing = await page.goto(server.url("/no/such/page"));
    assert.equal(missing.status(), 404);
    assert.deepEqual(await axe(page), [], "404 page");
    assert.deepEqual(await watcher.problems([/status of 404/]), []);
    await context.close();
  });
}

test("keyboard only: search, open, close", async () => {
  const context = await phone(browser, { hasTouch: false, isMobile: false });
  const watcher = await watch(context);
  const page = await context.newPage();
  await page.goto(server.url("/"));
  await loaded(page);
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "q", "the search box comes first");
  await page.keyboard.type("gin");
  const want = (await (await fetch(server.url("/api/recipes?q=gin"))).json()).map((r) => r.name);
  // Past the navigation (Recipes, My bar: this visitor may not edit or compose), the first
  // visit's line and the six filters (can make, missing one, favourites, light, lightest
  // first, my bar) to the first result.
  const nav = [];
  for (let i = 0; i < 2; i++) {
    await page.keyboard.press("Tab");
    nav.push(await page.evaluate(() => document.activeElement.closest("nav.top") && document.activeElement.textContent));
  }
  assert.deepEqual(nav, ["Recipes", "My bar"]);
  // A first visit: the line saying what this is, its link and its Got it.
  const intro = [];
  for (let i = 0; i < 2; i++) {
    await page.keyboard.press("Tab");
    intro.push(await page.evaluate(() => document.activeElement.closest("#intro") && document.activeElement.textContent));
  }
  assert.deepEqual(intro, ["My bar", "Got it"]);
  const filters = [];
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press("Tab");
    filters.push(await page.evaluate(() => document.activeElement.closest(".filters") && document.activeElement.textContent));
  }
  assert.deepEqual(filters, ["Can make", "Missing one", "Favourites", "Up to 10% ABV", "Lowest ABV first", "My bar"]);
  await page.keyboard.press("Tab");
  const focused = () => page.evaluate(() => document.activeElement.closest("li")?.querySelector(".name").textContent);
  assert.equal(await focused(), want[0], "Tab goes to the first result");
  await page.keyboard.press("Enter");
  const open = page.locator("#recipes > li.open");
  assert.equal(await open.locator(".name").textContent(), want[0]);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-expanded")), "true");
  assert.equal(await open.locator(".ingredients").isVisible(), true);
  // Into the recipe (its first control: the strength line, then the ml unit), then Escape
  // closes and returns focus.
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.matches("details.strength > summary")), true);
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.units), "ml");
  await page.keyboard.press("Escape");
  assert.equal(await open.count(), 0, "Escape closes the recipe");
  assert.equal(await focused(), want[0], "focus is back on its row");
  // Enter opens and Enter again closes.
  await page.keyboard.press("Enter");
  assert.equal(await open.count(), 1);
  await page.keyboard.press("Enter");
  assert.equal(await open.count(), 0);
  // The next row opens with Tab and Enter.
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  assert.equal(await open.locator(".name").textContent(), want[1]);
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, "none", "focus is visible");
  // The ring is drawn inside the opened row (not under the search bar above it, nor
  // across the recipe's first line below it).
  await page.waitForTimeout(400); // the row scrolls under the search bar
  const ring = await page.evaluate(() => {
    const a = document.activeElement, s = getComputedStyle(a);
    return { offset: parseFloat(s.outlineOffset), width: parseFloat(s.outlineWidth),
      top: a.getBoundingClientRect().top, bar: document.querySelector("header.bar").getBoundingClientRect().bottom };
  });
  assert.ok(ring.offset + ring.width <= 0, `the ring is inside its row: ${JSON.stringify(ring)}`);
  assert.ok(ring.top >= ring.bar - 0.5, `the row is below the search bar: ${JSON.stringify(ring)}`);
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});

// Tablets and laptops: the two panes, the keys, a recipe's own page beside the list.
for (const size of SIZES.slice(0, 2)) {
  for (const colorScheme of ["light", "dark"]) {
    test(`axe finds no violations at ${size.width}×${size.height} (${colorScheme})`, async () => {
      const context = await wideContext(browser, size, { colorScheme });
      const watcher = await watch(context);
      const page = await context.newPage();
      await page.goto(server.url("/"));
      await loaded(page);
      assert.deepEqual(await axe(page), [], "list with the empty pane");
      await page.locator("#recipes > li > a.row").nth(3).click();
      await page.waitForSelector("#pane .single");
      assert.deepEqual(await axe(page), [], "recipe in the pane");
      await page.locator("#pane [data-units=oz]").click();
      await page.locator("#pane .star").click();
      assert.deepEqual(await axe(page), [], "in oz, starred");
      await page.locator("#keys-toggle").click();
      assert.equal(await page.locator("#keys").isVisible(), true);
      assert.deepEqual(await axe(page), [], "keys shown");
      await page.locator("#q").fill("lime");
      await page.waitForFunction(() => !document.getElementById("recipes").hasAttribute("aria-busy"));
      assert.deepEqual(await axe(page), [], "search results beside the recipe");
      await page.goto(server.url("/recipes/1"));
      await loaded(page);
      assert.deepEqual(await axe(page), [], "a recipe's page with the list");
      assert.deepEqual(await watcher.problems(), []);
      await context.close();
    });
  }
}
