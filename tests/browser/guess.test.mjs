// A typo forgiven on a phone (issue 42): "margerita" finds no recipe, and the list page says
// so and offers the closest guesses, marked as guesses, Margarita first (the shorter name
// of the two Margaritas in recipes/sample.json: "Margarita (Mezcal)" is as near). Typed
// into the search box, list.js works the guesses out in the page (guess.js); without
// JavaScript the server's page lists them; both list the same recipes in the same order.
// axe finds nothing on the page of guesses, as served and as typed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, phone, startServer, watch } from "./lib/browser.mjs";
import { axe, loaded, until } from "./lib/checks.mjs";

let browser, server;
before(async () => {
  browser = await launch();
  server = await startServer();
});
after(async () => {
  await server?.stop();
  await browser?.close();
});

// What the page shows now: the "no recipe matches" line, the guesses paragraph and whether
// it says they are guesses, and the recipes it links to, in order. Through locators, which
// work with the page's scripts off (page.evaluate does not).
async function shown(page) {
  const box = page.locator("#guesses");
  return {
    empty: await page.locator("#empty").isVisible(),
    guesses: await box.isVisible(),
    marked: (await box.textContent()).startsWith("Closest guesses, not exact matches:"),
    names: await page.locator("#guess-list a").allTextContents(),
  };
}

async function withoutJs() {
  const context = await phone(browser, { javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(server.url("/?q=margerita"));
  return { context, page, seen: await shown(page) };
}

test("phone: 'margerita' shows the marked guesses, Margarita first, with and without JS; axe 0", async () => {
  const plain = await withoutJs();
  try {
    assert.equal(plain.seen.empty, true, "without JS: no recipe matches");
    assert.equal(plain.seen.guesses, true, "without JS: the guesses are shown");
    assert.equal(plain.seen.marked, true, "without JS: marked as guesses");
    assert.equal(plain.seen.names[0], "Margarita", JSON.stringify(plain.seen));
    assert.ok(plain.seen.names.includes("Margarita (Mezcal)"), JSON.stringify(plain.seen));
    // (axe needs scripts to run: the server's page is checked below, with them on.)
  } finally {
    await plain.context.close();
  }

  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    // The server's page for the search, as a browser with scripts sees it.
    await page.goto(server.url("/?q=margerita"));
    await loaded(page);
    assert.deepEqual(await shown(page), plain.seen, "with JS, from the address");
    assert.deepEqual(await axe(page), [], "axe on the server's page of guesses");
    await page.goto(server.url("/"));
    await loaded(page);
    assert.equal((await shown(page)).guesses, false, "no guesses before a search");
    await page.locator("#q").pressSequentially("margerita");
    // Worked out in the page: the same recipes, in the same order, as the server's page.
    await until(() => shown(page), plain.seen, "with JS: the guesses as without");
    assert.deepEqual(await axe(page), [], "axe with the guesses shown");
    // A search that finds something takes the guesses away.
    await page.locator("#q").fill("margarita");
    await until(async () => (await shown(page)).guesses, false, "no guesses once something matches");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
  }
});
