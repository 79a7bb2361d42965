// Tablets and laptops: the list and the opened recipe side by side, the address following
// the recipe (back, forward, reload), no JavaScript needed for the two panes, every recipe
// fitting in its pane, the keyboard from search to a recipe and back, links in notes.
// Saves the tablet and laptop screenshots in docs/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, SIZES, launch, settle, sharedData, startServer, watch, wideContext } from "./lib/browser.mjs";
import { loaded } from "./lib/checks.mjs";
import { coverShown, photoHousehold } from "./lib/photos.mjs";

const SHOTS = ROOT + "docs/screenshots/";
let browser;
before(async () => { browser = await launch(); mkdirSync(SHOTS, { recursive: true }); });
after(async () => { await browser?.close(); });

/** In the page: where the list and the pane are, and whether the page scrolls sideways. */
function place() {
  const box = (el) => { const b = el.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom, width: b.width }; };
  const pane = document.getElementById("pane");
  // The row in the middle of the list's column, if that is where the list is.
  const column = document.querySelector(".list-pane").getBoundingClientRect();
  const barBottom = document.querySelector(".bar").getBoundingClientRect().bottom;
  const firstRow = column.width > 0
    ? document.elementFromPoint(column.left + column.width / 2, (barBottom + innerHeight) / 2)?.closest("#recipes > li > a.row") : null;
  return {
    path: location.pathname,
    sideways: document.documentElement.scrollWidth > innerWidth,
    width: innerWidth, height: innerHeight,
    bar: box(document.querySelector(".bar")),
    list: firstRow && getComputedStyle(document.querySelector(".list-pane")).display !== "none" ? box(firstRow) : null,
    pane: getComputedStyle(pane).display !== "none" ? box(pane) : null,
    paneScrolls: pane.scrollHeight > pane.clientHeight + 0.5,
    name: pane.querySelector(".single .name")?.textContent ?? null,
  };
}

const layout = (page) => page.evaluate(place);

/** Both panes on screen, side by side, nothing sideways. */
function assertSideBySide(m, label) {
  assert.equal(m.sideways, false, `${label}: no horizontal scroll`);
  assert.ok(m.list, `${label}: the list is shown`);
  assert.ok(m.pane, `${label}: the recipe pane is shown`);
  assert.ok(m.list.right <= m.pane.left, `${label}: list left of the recipe`);
  assert.ok(m.list.top >= m.bar.bottom && m.list.bottom <= m.height, `${label}: a row of the list is on screen`);
  assert.ok(m.pane.top >= m.bar.bottom && m.pane.bottom <= m.height + 0.5, `${label}: the pane is on screen`);
  assert.ok(m.pane.right <= m.width, `${label}: the pane is not cut off`);
}

for (const size of SIZES) {
  test(`${size.width}×${size.height}: list and recipe side by side; the address follows; back, forward, reload`, async () => {
    const server = await startServer();
    const context = await wideContext(browser, size);
    const watcher = await watch(context);
    const page = await context.newPage();
    try {
      await page.goto(server.url("/"));
      await loaded(page);
      const recipes = await (await fetch(server.url("/api/recipes"))).json();
      const rows = page.locator("#recipes > li > a.row");
      await rows.nth(2).click();
      await page.waitForFunction((name) => document.querySelector("#pane .single .name")?.textContent === name, recipes[2].name);
      let m = await layout(page);
      assertSideBySide(m, "opened");
      assert.equal(m.path, `/recipes/${recipes[2].id}`);
      assert.equal(await page.locator("#recipes > li.open").count(), 0, "not opened inside the list");
      assert.equal(await page.title(), `${recipes[2].name} · Libations`);
      // The pane stays in view while the list scrolls.
      await page.mouse.wheel(0, 2000);
      await settle(page);
      assert.ok(await page.evaluate(() => scrollY > 0), "the list scrolled");
      m = await layout(page);
      assertSideBySide(m, "list scrolled");
      assert.equal(m.name, recipes[2].name);
      await page.evaluate(() => scrollTo(0, 0));

      await rows.nth(4).click();
      await page.waitForFunction((name) => document.querySelector("#pane .single .name")?.textContent === name, recipes[4].name);
      assert.equal(new URL(page.url()).pathname, `/recipes/${recipes[4].id}`);
      await page.goBack();
      await page.waitForFunction((name) => document.querySelector("#pane .single .name")?.textContent === name, recipes[2].name);
      assert.equal(new URL(page.url()).pathname, `/recipes/${recipes[2].id}`);
      await page.goBack();
      await page.waitForFunction(() => document.querySelector("#pane .single") === null);
      assert.equal(new URL(page.url()).pathname, "/");
      await page.goForward();
      await page.waitForFunction((name) => document.querySelector("#pane .single .name")?.textContent === name, recipes[2].name);

      // Reload: the server's recipe page, with the list beside it and the row marked.
      await page.reload();
      await loaded(page);
      m = await layout(page);
      assertSideBySide(m, "reloaded");
      assert.equal(m.name, recipes[2].name);
      assert.equal(await page.locator("#recipes > li.current").getAttribute("data-id"), String(recipes[2].id));
      // Another row from there opens in the same pane, without loading a page.
      await page.evaluate(() => { window.__samePage = true; });
      await rows.nth(0).click();
      await page.waitForFunction((name) => document.querySelector("#pane .single .name")?.textContent === name, recipes[0].name);
      assert.equal(await page.evaluate(() => window.__samePage), true);
      assert.equal(await page.locator(".recipe").count(), 1, "one recipe on the page");
      if (size.name !== "desktop") {
        await page.screenshot({ path: `${SHOTS}${size.name}-light.png` });
      }
      assert.deepEqual(await watcher.problems(), []);
    } finally {
      await context.close();
      await server.stop();
    }
  });
}

test("without JavaScript a recipe's page shows the list beside it on a wide screen", async () => {
  const server = await startServer();
  try {
    for (const size of SIZES) {
      const context = await wideContext(browser, size, { javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(server.url("/recipes/1?units=oz&serves=2"));
      const m = await layout(page);
      assertSideBySide(m, `${size.width}×${size.height} without JS`);
      assert.ok(m.name, "the recipe is in the pane");
      assert.ok(await page.locator('.list-pane #recipes a.row[href="/recipes/1"]').count() === 1, "the list links to recipes");
      await context.close();
    }
    // The phone still gets only the recipe.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(server.url("/recipes/1"));
    const m = await layout(page);
    assert.equal(m.list, null, "no list beside the recipe on a phone");
    assert.ok(m.pane && m.name, "the recipe is shown");
    await context.close();
  } finally {
    await server.stop();
  }
});

/**
 * In the page: opens every row of the list in turn by a click (the pane fills at once), and
 * returns for each what `place` says of the page, the id in the pane, and the bottom of the
 * lowest thing in the pane.
 */
async function measureEveryPane(place, coverShown) {
  const click = (el) => el.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window, detail: 1, button: 0 }));
  const pane = document.getElementById("pane");
  const seen = [];
  for (const row of document.querySelectorAll("#recipes > li > a.row")) {
    click(row);
    // With photos, each is measured once its cover shows (lib/photos.mjs), the cover
    // counted among what must fit.
    const photo = coverShown ? await coverShown("#pane .single > h1") : null;
    const items = pane.querySelectorAll(".single > *, .recipe > *, .single > h1 .photo-spot");
    seen.push({
      ...place(),
      id: pane.querySelector(".recipe")?.dataset.id ?? null,
      last: Math.max(...Array.from(items, (e) => e.getBoundingClientRect().bottom)),
      photo,
    });
  }
  return seen;
}

/**
 * Opens every recipe by a click on its row at `size`; returns [{name, fits, over}] for
 * its pane. The first row is clicked through the browser's mouse; the rest are clicked
 * and measured in one evaluation inside the page (seconds for hundreds of recipes).
 */
async function openEveryRecipe(server, size, { photos = false } = {}) {
  const context = await wideContext(browser, size);
  const watcher = await watch(context);
  const page = await context.newPage();
  await page.goto(server.url("/"));
  await loaded(page);
  const recipes = await (await fetch(server.url("/api/recipes"))).json();
  const rows = page.locator("#recipes > li > a.row");
  assert.equal(await rows.count(), recipes.length);
  await rows.first().click();
  await page.waitForFunction((id) => document.querySelector("#pane .recipe")?.dataset.id === id, String(recipes[0].id));
  const seen = await page.evaluate(`(${measureEveryPane})(${place}, ${photos ? coverShown : null})`);
  assert.equal(seen.length, recipes.length);
  const results = seen.map((m, i) => {
    assert.equal(m.id, String(recipes[i].id), `row ${i} (${recipes[i].name}) opened in the pane`);
    assert.equal(m.name, recipes[i].name);
    assert.equal(m.sideways, false, `${m.name}: no horizontal scroll`);
    if (photos) assert.equal(m.photo, true, `${m.name}: its cover shown`);
    assert.ok(m.list && m.pane, `${m.name}: list and recipe both shown`);
    const over = Math.max(0, m.paneScrolls ? 1 : 0, m.last - m.height, m.last - m.pane.bottom);
    return { name: m.name, fits: over < 0.5, over: Math.round(over) };
  });
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
  return results;
}

function report(label, results) {
  const fit = results.filter((r) => r.fits).length;
  const worst = results.filter((r) => !r.fits).sort((a, b) => b.over - a.over).slice(0, 8);
  console.log(`fits in its pane, ${label}: ${fit}/${results.length}` +
    (worst.length ? "; worst: " + worst.map((r) => `${r.name} (+${r.over}px)`).join(", ") : ""));
  return fit;
}

const ONLY = process.env.WIDE_FIT_ONLY; // e.g. "1280": measure one size while changing the CSS
const FIT_SIZES = SIZES.filter((s) => !ONLY || String(s.width) === ONLY);
const AT = FIT_SIZES.map((s) => `${s.width}×${s.height}`).join(", ");
for (const file of [null, "bar-assistant.json"]) {
  const label = file ?? "sample";
  test(`${file ? `${file}: every recipe` : "every sample recipe"} fits in its pane at ${AT}`, async (t) => {
    const path = file && sharedData(file, t);
    if (file && !path) return;
    const server = await startServer(path ? ["--recipes-file", path] : []);
    try {
      for (const size of FIT_SIZES) {
        const results = await openEveryRecipe(server, size);
        assert.equal(report(`${label} at ${size.width}×${size.height}`, results), results.length, `${label} at ${size.width}×${size.height}`);
      }
    } finally {
      await server.stop();
    }
  });
}

// With a photo on every recipe (issue #44), at every pane size. In a laptop's pane
// (1280×800, the shortest for its width) the cover is 160 px in the corner beside the
// facts (120 px when many ingredients put the notes in that column too), whose column it
// can lengthen: the recipes decide. In a tablet's narrow pane (820×1180) it is 88 px
// beside the name, the same height added to every recipe. So every recipe of the shared
// collection is measured at each size, and the sample too (it has no skip). The phone's
// 44 px cover lies over its row (fit.test.mjs). Each recipe is measured once its cover is
// painted (some 90 ms each), so one household is photographed and measured at every size.
for (const file of [null, "bar-assistant.json"]) {
  const label = file ?? "sample";
  test(`with a photo on every recipe, every recipe of ${label} fits in its pane at ${AT}`, async (t) => {
    const path = file ? sharedData(file, t) : join(ROOT, "recipes/sample.json");
    if (!path) return;
    const home = photoHousehold(path);
    try {
      await home.photograph(browser);
      const server = await home.start(["--local-nobody"]);
      try {
        for (const size of FIT_SIZES) {
          const at = `${label} at ${size.width}×${size.height} with photos`;
          const results = await openEveryRecipe(server, size, { photos: true });
          assert.equal(report(at, results), results.length, at);
        }
      } finally {
        await server.stop();
      }
    } finally {
      home.remove();
    }
  });
}

test("keyboard only at 1280×800: / to search, ↓ ↑ through results, Enter opens, Esc closes and clears; ? shows the keys", async () => {
  const server = await startServer();
  const context = await wideContext(browser, SIZES[1]);
  const watcher = await watch(context);
  const page = await context.newPage();
  try {
    await page.goto(server.url("/"));
    await loaded(page);
    const active = () => page.evaluate(() => {
      const a = document.activeElement;
      return { id: a.id, row: a.closest("#recipes > li")?.querySelector(".name").textContent ?? null, tag: a.tagName,
        outline: getComputedStyle(a).outlineStyle };
    });
    await page.keyboard.press("/");
    assert.equal((await active()).id, "q", "/ focuses the search box");
    await page.keyboard.type("gin");
    const want = (await (await fetch(server.url("/api/recipes?q=gin"))).json()).map((r) => r.name);
    assert.ok(want.length >= 3);
    await page.keyboard.press("ArrowDown");
    assert.equal((await active()).row, want[0], "↓ goes to the first result");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    assert.equal((await active()).row, want[2], "↓ moves down the results");
    await page.keyboard.press("ArrowUp");
    const at = await active();
    assert.equal(at.row, want[1], "↑ moves up");
    assert.notEqual(at.outline, "none", "focus is visible on a row");
    await page.keyboard.press("Enter");
    await page.waitForFunction((name) => document.querySelector("#pane .single .name")?.textContent === name, want[1]);
    const heading = await active();
    assert.equal(heading.tag, "H1", "Enter takes the focus to the opened recipe");
    assert.notEqual(heading.outline, "none", "focus is visible on the recipe");
    assert.match(new URL(page.url()).pathname, /^\/recipes\/\d+$/);
    // Into the recipe's controls, then Esc closes it and the focus is back on its row.
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement.matches("details.strength > summary")), true, "Tab reaches the strength line");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement.dataset.units), "ml", "Tab reaches the recipe's units");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector("#pane .single") === null);
    assert.equal((await active()).row, want[1], "Esc closes the recipe and returns to its row");
    assert.equal(new URL(page.url()).pathname, "/");
    // ↑ from the first row goes back to the search box; Esc there clears the search.
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    assert.equal((await active()).id, "q", "↑ from the first result returns to the search box");
    await page.keyboard.press("Escape");
    assert.equal(await page.inputValue("#q"), "", "Esc clears the search");
    await page.waitForFunction(() => document.getElementById("count").textContent.endsWith("recipes"));
    // ? shows the keys, and hides them again; nothing holds the focus.
    await page.locator("#q").blur();
    await page.keyboard.press("?");
    assert.equal(await page.locator("#keys").isVisible(), true, "? shows the keys");
    assert.equal(await page.locator("#keys-toggle").getAttribute("aria-expanded"), "true");
    await page.keyboard.press("?");
    assert.equal(await page.locator("#keys").isVisible(), false, "? hides them");
    // Tab from the search box leaves it (nothing traps the focus).
    await page.keyboard.press("/");
    await page.keyboard.press("Tab");
    assert.notEqual((await active()).id, "q", "Tab moves on from the search box");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
  }
});

test("links in notes: http and https only, escaped, rel=noopener noreferrer; the page and the pane agree", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-links-"));
  const file = join(dir, "links.json");
  const notes = "Source: https://example.com/a?b=1&c=<2>. Also http://example.org/x, not javascript:alert(1) nor ftp://example.net; <b>bold</b>";
  writeFileSync(file, JSON.stringify([{ id: 1, name: "Linked", notes, ingredients: [{ name: "Gin", measure: "50", unit: "ml" }] }]));
  const server = await startServer(["--recipes-file", file]);
  const context = await wideContext(browser, SIZES[1]);
  const watcher = await watch(context);
  const page = await context.newPage();
  const links = () => page.locator("#pane .notes").evaluate((p) => ({
    text: p.textContent,
    links: Array.from(p.querySelectorAll("a"), (a) => [a.getAttribute("href"), a.getAttribute("rel"), a.textContent]),
    elements: p.querySelectorAll("*").length,
  }));
  try {
    const want = {
      text: notes,
      links: [
        ["https://example.com/a?b=1&c=<2>", "noopener noreferrer", "https://example.com/a?b=1&c=<2>"],
        ["http://example.org/x", "noopener noreferrer", "http://example.org/x"],
      ],
      elements: 2,
    };
    await page.goto(server.url("/recipes/1"));
    assert.deepEqual(await links(), want, "server-rendered page");
    await page.goto(server.url("/"));
    await loaded(page);
    await page.locator("#recipes > li > a.row").first().click();
    await page.waitForSelector("#pane .notes");
    assert.deepEqual(await links(), want, "opened in the pane by app.js");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("dark mode, forced colours and reduced motion hold at every size", async () => {
  const server = await startServer();
  try {
    for (const size of SIZES) {
      for (const emulate of [{ colorScheme: "dark" }, { forcedColors: "active" }, { reducedMotion: "reduce" }]) {
        const context = await wideContext(browser, size, emulate);
        const watcher = await watch(context);
        const page = await context.newPage();
        await page.goto(server.url("/"));
        await loaded(page);
        await page.locator("#recipes > li > a.row").nth(1).click();
        await page.waitForSelector("#pane .single");
        const label = `${size.width}×${size.height} ${JSON.stringify(emulate)}`;
        assertSideBySide(await layout(page), label);
        if (emulate.colorScheme === "dark") {
          const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
          assert.equal(bg, "rgb(23, 20, 15)", `${label}: dark background`);
          if (size.name !== "desktop") await page.screenshot({ path: `${SHOTS}${size.name}-dark.png` });
        }
        assert.deepEqual(await watcher.problems(), [], label);
        await context.close();
      }
    }
  } finally {
    await server.stop();
  }
});

/**
 * In the page: each list name's width, and the words of it that the layout broke across
 * lines (a word whose text spans two line boxes).
 */
function brokenNames() {
  return Array.from(document.querySelectorAll("#recipes > li > a.row .name"), (name) => {
    const text = name.firstChild;
    const broken = [];
    if (text?.nodeType === Node.TEXT_NODE) {
      // Words as a reader sees them: a break after a hyphen ("St-/Germain") is a break between.
      for (const m of text.textContent.matchAll(/[^\s\-\u2010\u2013]+/g)) {
        const range = document.createRange();
        range.setStart(text, m.index);
        range.setEnd(text, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
    return { name: name.textContent, width: name.getBoundingClientRect().width, broken };
  });
}

test("820×1180: the list is at least 360 px wide and no recipe's name breaks inside a word", async (t) => {
  const path = sharedData("bar-assistant.json", t);
  for (const file of [null, ...(path ? [path] : [])]) {
    const server = await startServer(file ? ["--recipes-file", file] : []);
    const context = await wideContext(browser, SIZES[0]);
    const page = await context.newPage();
    try {
      await page.goto(server.url("/recipes/1"));
      await loaded(page);
      await page.evaluate(() => { for (const li of document.querySelectorAll(".recipes > li")) li.style.contentVisibility = "visible"; });
      const list = await page.locator(".list-pane").evaluate((e) => e.getBoundingClientRect().width);
      assert.ok(list >= 360, `the list is ${list} px wide`);
      const names = await page.evaluate(brokenNames);
      assert.ok(names.length > 20, `${names.length} names measured`);
      const broken = names.filter((n) => n.broken.length > 0).map((n) => `${n.name} (${Math.round(n.width)} px: ${n.broken.join(", ")})`);
      assert.deepEqual(broken, [], `${file ?? "sample"}: names broken inside a word`);
      const pane = await page.locator("#pane").evaluate((e) => e.getBoundingClientRect().width);
      assert.ok(pane >= 400, `the recipe pane keeps ${pane} px`);
    } finally {
      await context.close();
      await server.stop();
    }
  }
});

/**
 * In the page: for each recipe of `ids`, in the pane already or opened there by a click on
 * its row, how its Garnish is laid out: its lines, its width and the facts' column's width.
 */
function garnishEveryPane(ids) {
  const click = (el) => el.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window, detail: 1, button: 0 }));
  return ids.map((id) => {
    if (document.querySelector("#pane .recipe")?.dataset.id !== id) click(document.querySelector(`#recipes > li[data-id="${id}"] > a.row`));
    const facts = document.querySelector(`#pane .recipe[data-id="${id}"] .facts`);
    const div = Array.from(facts?.children ?? []).find((d) => d.querySelector("dt")?.textContent === "Garnish");
    if (!div) return { id, lines: 0 };
    const dd = div.querySelector("dd");
    const lines = Math.round(dd.getBoundingClientRect().height / parseFloat(getComputedStyle(dd).lineHeight || "0") || 1);
    return { id, lines, width: div.getBoundingClientRect().width, column: facts.getBoundingClientRect().width };
  });
}

test("1280×800: Garnish is not squeezed into half of the facts' column", async () => {
  const server = await startServer();
  const context = await wideContext(browser, SIZES[1]);
  const watcher = await watch(context);
  const page = await context.newPage();
  try {
    const recipes = await (await fetch(server.url("/api/recipes"))).json();
    const garnished = recipes.filter((r) => (r.garnish ?? []).length > 0);
    assert.ok(garnished.length >= 5);
    // The first on its own page, the rest opened in the pane as a click opens them.
    const ids = garnished.map((r) => String(r.id));
    await page.goto(server.url(`/recipes/${ids[0]}`));
    await loaded(page);
    const seen = await page.evaluate(garnishEveryPane, ids);
    const squeezed = [];
    for (const [i, m] of seen.entries()) {
      const r = garnished[i];
      assert.ok(m.lines > 0, `${r.name}: its Garnish is shown in the pane`);
      // One line, or the whole width of the facts' column: never wrapped in half of it.
      if (m.lines > 1 && m.width < m.column - 1) squeezed.push(`${r.name}: ${m.lines} lines in ${Math.round(m.width)} of ${Math.round(m.column)} px`);
    }
    assert.deepEqual(squeezed, []);
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
  }
});
