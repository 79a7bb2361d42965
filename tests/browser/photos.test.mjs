// A photo of the drink (issue #44) at 390×844: a person opens Negroni, taps the camera
// button beside its name and gives it a picture (the file input a phone's camera fills);
// the picture shows there at once, the recipe still fits the screen, and after a reload
// it comes from the server; tapped, it opens large and closes. A visitor the household
// does not know sees no camera button. axe finds nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launch, phone, startServer, watch } from "./lib/browser.mjs";
import { axe, loaded, until } from "./lib/checks.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// A picture to give the camera's input: one of our own screenshots (a PNG, 390 px wide).
const PICTURE = join(ROOT, "docs/screenshots/list-light.png");

/** A household on a fresh copy of the sample: `start(extra)` serves it as `extra` says. */
function household() {
  const dir = mkdtempSync(join(tmpdir(), "libations-photos-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  return {
    start: (extra) => startServer(["--recipes-file", file, "--state-dir", join(dir, "state"), ...extra]),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const OPEN = "#recipes > li.open";

async function openNegroni(page) {
  await loaded(page);
  await page.locator("#recipes > li > a.row", { hasText: "Negroni" }).tap();
  await page.waitForSelector(`${OPEN} td.amount`);
}

/** The opened row's top and bottom and the search bar's bottom: the recipe is on one screen. */
const onScreen = (page) => page.evaluate((open) => {
  const li = document.querySelector(open).getBoundingClientRect();
  const bar = document.querySelector(".bar").getBoundingClientRect();
  return li.top >= bar.bottom - 0.5 && li.bottom <= innerHeight + 0.5;
}, OPEN);

test("a person adds a photo beside the name; it stays, opens large, and the recipe fits", async () => {
  const home = household();
  const server = await home.start(["--local-identity", "alice@example.com"]);
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(server.url("/"));
    await openNegroni(page);
    const add = page.locator(`${OPEN} .photo-spot label.photo-add`);
    await add.waitFor({ state: "visible" });
    const box = await add.boundingBox();
    assert.ok(box.width >= 44 && box.height >= 44, `the camera button is ${box.width}×${box.height}`);
    assert.equal(await add.getAttribute("aria-label"), "Add a photo of Negroni");
    assert.equal(await page.locator(`${OPEN} input[type=file]`).getAttribute("capture"), "environment");
    const sent = page.waitForResponse((r) => r.url().endsWith("/photos") && r.request().method() === "POST");
    await page.locator(`${OPEN} input[type=file]`).setInputFiles(PICTURE);
    const thumb = page.locator(`${OPEN} .photo-thumb img`);
    await thumb.waitFor({ state: "visible" });
    assert.equal((await sent).status(), 201);
    await until(() => thumb.getAttribute("src").then((s) => s.startsWith("/photos/") && s.endsWith(".thumb.jpg")), true, "the server's thumbnail");
    await until(() => page.locator(`${OPEN} .photo-status`).textContent(), "Photo added.", "said");
    assert.ok(await onScreen(page), "Negroni still fits the screen with its photo");

    // After a reload (the recipe's own page, at its address), the photo comes from the
    // server, beside the name.
    await page.reload();
    const served = page.locator(".single h1 .photo-thumb img");
    await served.waitFor({ state: "visible" });
    assert.ok(await served.evaluate((img) => img.complete && img.naturalWidth > 0), "the thumbnail loads");
    const fits = await page.evaluate(() => document.querySelector(".single").getBoundingClientRect().bottom <= innerHeight + 0.5);
    assert.ok(fits, "the recipe's page still fits the screen");
    await page.locator(".single h1 .photo-thumb").tap();
    const large = page.locator("dialog.photo-view img");
    await large.waitFor({ state: "visible" });
    await until(() => large.evaluate((img) => img.complete && img.naturalWidth), 390, "the large picture, as wide as it was given");
    assert.deepEqual(await axe(page), []);
    await page.locator("dialog.photo-view button", { hasText: "Close" }).tap();
    await until(() => page.locator("dialog.photo-view").count(), 0, "Close closes it");
    assert.deepEqual(await axe(page), []);
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
    home.remove();
  }
});

test("a visitor the household does not know sees the photo and no camera button", async () => {
  const home = household();
  let server = await home.start(["--local-identity", "alice@example.com"]);
  let context = await phone(browser);
  try {
    let page = await context.newPage();
    await page.goto(server.url("/"));
    await openNegroni(page);
    await page.locator(`${OPEN} input[type=file]`).setInputFiles(PICTURE);
    await page.waitForSelector(`${OPEN} .photo-thumb img[src^="/photos/"]`);
    await context.close();
    await server.stop();

    // The same household, served to a visitor the tailnet does not name.
    server = await home.start(["--local-nobody"]);
    context = await phone(browser);
    page = await context.newPage();
    await page.goto(server.url("/"));
    await openNegroni(page);
    await page.waitForSelector(`${OPEN} .photo-thumb img[src^="/photos/"]`);
    await page.locator("#recipes > li > a.row", { hasText: "Daiquiri" }).tap();
    await page.waitForSelector(`${OPEN} td.amount`);
    // Once the photos' answer is painted (none for Daiquiri), there is no camera button.
    await page.waitForSelector(`${OPEN} .photo-spot .photo-status`, { state: "attached" });
    assert.equal(await page.locator(`${OPEN} .photo-add`).count(), 0, "no camera button for a stranger");
    await page.locator("#recipes > li > a.row", { hasText: "Negroni" }).tap();
    await page.locator(`${OPEN} .photo-thumb`).tap();
    await page.locator("dialog.photo-view img").waitFor({ state: "visible" });
    assert.equal(await page.locator("dialog.photo-view label").count(), 0, "nor an Add photo in the large view");
  } finally {
    await context.close();
    await server.stop();
    home.remove();
  }
});
