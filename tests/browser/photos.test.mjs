// A photo of the drink (issue #44) at 390×844: a person opens Negroni, taps the camera
// button beside its name and gives it a picture (the file input a phone's camera fills);
// the picture shows there at once, the recipe still fits the screen, and after a reload
// it comes from the server; tapped, it opens large and closes; deleted, it is listed under
// "Recently deleted photos", and there later, in the recipe's row, Restore brings it back
// as the cover. A visitor the household does not know sees the photos (a second in the
// row's strip) and no camera button. Without JavaScript (390×844): the recipe's page
// shows the photo beside the name as a link to its own page, its plain form sends a real
// JPEG and comes back to the recipe with it; a second person gets no Delete, an editor
// makes another photo the cover and deletes one after a confirm page, then Undo brings it
// back, and deleted again, the recipe's "Recently deleted photos" Restore does. With
// JavaScript at 820×1180 and 1280×800: the cover in the pane (160 px in a laptop's corner,
// beside the facts, the pane not scrolling), the dialog's Make cover and Delete (asked
// first), its Undo, and "Add a photo" after Made one. axe finds nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, SIZES, launch, phone, startServer, watch, wideContext } from "./lib/browser.mjs";
import { drawJpeg, sendPhoto } from "./lib/photos.mjs";
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

    // Deleted (asked first): listed at once under "Recently deleted photos".
    const src = await served.getAttribute("src");
    await page.locator(".single h1 .photo-thumb").tap();
    await page.locator("dialog.photo-view button", { hasText: "Delete" }).tap();
    await page.locator("dialog.photo-view .photo-ask button", { hasText: "Delete" }).tap();
    await until(() => page.locator(".single h1 .photo-thumb").count(), 0, "deleted");
    await until(() => page.locator(".single details.photos-gone summary").textContent(), "Recently deleted photos (1)", "listed");

    // Later, the recipe opened again in its row (the Undo long gone): still listed, with
    // Restore, which brings the photo back as the cover.
    await page.goto(server.url("/"));
    await openNegroni(page);
    const gone = page.locator(`${OPEN} details.photos-gone`);
    await gone.locator("summary", { hasText: "Recently deleted photos (1)" }).tap();
    const restore = gone.locator("button", { hasText: "Restore" });
    const restoreBox = await restore.boundingBox();
    assert.ok(restoreBox.width >= 44 && restoreBox.height >= 44, `Restore is ${restoreBox.width}×${restoreBox.height}`);
    assert.equal(await gone.locator("img").getAttribute("alt"), "Deleted photo of Negroni, taken by alice@example.com");
    assert.ok(await gone.locator("img").evaluate((img) => img.complete && img.naturalWidth > 0), "its thumbnail, shown to her");
    assert.deepEqual(await axe(page), []);
    await restore.tap();
    await until(() => page.locator(`${OPEN} .photo-thumb img`).getAttribute("src").catch(() => null), src, "the cover again");
    await until(() => gone.count(), 0, "none left to restore");
    await until(() => page.locator(`${OPEN} .photo-status`).textContent(), "Photo restored.", "said");
    assert.equal((await photosOf(server, 1)).length, 1, "restored on the server");
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
    await sendPhoto(server, 1, await drawJpeg(browser)); // a second: the strip
    await context.close();
    await server.stop();

    // The same household, served to a visitor the tailnet does not name.
    server = await home.start(["--local-nobody"]);
    context = await phone(browser);
    page = await context.newPage();
    await page.goto(server.url("/"));
    await openNegroni(page);
    await page.waitForSelector(`${OPEN} .photo-thumb img[src^="/photos/"]`);
    await page.locator(`${OPEN} .recipe .photo-strip a`).waitFor({ state: "visible" });
    assert.equal(await page.locator(`${OPEN} .photo-strip a`).count(), 1, "the other photo in the row's strip");
    assert.equal(await page.locator(`${OPEN} details.photos-gone`).count(), 0, "nothing a stranger could restore");
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

/**
 * axe's findings on `path` as a browser without JavaScript shows it, after `act(page)`:
 * axe itself needs JavaScript (it hangs in a context without it), so here the app's own
 * scripts are refused instead.
 */
async function axeWithoutScripts(server, path, act = async () => {}) {
  const context = await phone(browser);
  try {
    await context.route((url) => url.pathname.endsWith(".js"), (route) => route.abort());
    const page = await context.newPage();
    await page.goto(server.url(path));
    await act(page);
    assert.equal(await page.evaluate(() => document.documentElement.classList.contains("js")), false, "no script ran");
    return await axe(page);
  } finally {
    await context.close();
  }
}

/** The photos of recipe `id`, as the API lists them (the cover first). */
const photosOf = async (server, id) => (await fetch(server.url(`/api/recipes/${id}/photos`))).json();

test("without JavaScript: the form sends a JPEG, it shows beside the name; Delete and Make cover for whoever may", { timeout: 90_000 }, async () => {
  const home = household();
  const red = await drawJpeg(browser);
  const blue = await drawJpeg(browser, { top: "#2a4fb3", bottom: "#e0c040" });
  let server = await home.start(["--local-identity", "alice@example.com"]);
  let context = await phone(browser, { javaScriptEnabled: false });
  try {
    let page = await context.newPage();
    await page.goto(server.url("/recipes/1"));
    for (const [n, jpeg] of [[1, red], [2, blue]]) {
      await page.locator("form.photo-form input[type=file]").setInputFiles({ name: `photo${n}.jpg`, mimeType: "image/jpeg", buffer: jpeg });
      await page.locator("form.photo-form button[type=submit]").tap();
      await until(() => page.locator(".single h1 a.photo-thumb, .photo-strip a").count(), n, `photo ${n} shown`);
      assert.equal(new URL(page.url()).pathname, "/recipes/1", "back on the recipe");
    }
    const cover = page.locator(".single h1 .photo-spot a.photo-thumb img");
    assert.equal(await cover.getAttribute("alt"), "Photo of Negroni, taken by alice@example.com");
    assert.ok(await cover.evaluate((img) => img.complete && img.naturalWidth > 0), "the thumbnail loads");
    const box = await page.locator(".single h1 .photo-spot a.photo-thumb").boundingBox();
    assert.ok(Math.round(box.width) === 44 && Math.round(box.height) === 44, `44 px beside the name: ${box.width}×${box.height}`);
    assert.equal(await page.locator(".photo-strip a").count(), 1, "the other photo under the recipe");
    const strip = await page.locator(".photo-strip").boundingBox();
    const ingredients = await page.locator(".single .ingredients").boundingBox();
    assert.ok(strip.y > ingredients.y + ingredients.height, "the strip is under the ingredients");
    assert.deepEqual(await axeWithoutScripts(server, "/recipes/1"), []);
    const [first, second] = await photosOf(server, 1);

    // Tapped: the photo large on its own page; alice's own, so Delete; not an editor.
    await page.locator(".single h1 a.photo-thumb").tap();
    await page.waitForURL(server.url(`/recipes/1/photos/${first.id}`));
    assert.ok(await page.locator("img.photo-large").evaluate((img) => img.complete && img.naturalWidth === 320), "large");
    assert.equal(await page.locator("button", { hasText: "Delete" }).count(), 1);
    assert.equal(await page.locator("button", { hasText: "Make cover" }).count(), 0);
    assert.deepEqual(await axeWithoutScripts(server, `/recipes/1/photos/${first.id}`), []);
    await context.close();
    await server.stop();

    // Bob, known but no editor: no button on alice's photo.
    server = await home.start(["--local-identity", "bob@example.com"]);
    context = await phone(browser, { javaScriptEnabled: false });
    page = await context.newPage();
    await page.goto(server.url(`/recipes/1/photos/${first.id}`));
    assert.equal(await page.locator(".photo-acts button").count(), 0, "nothing for bob to do to alice's photo");
    await context.close();
    await server.stop();

    // Carol, an editor: makes the second the cover, then deletes the first after asking.
    server = await home.start(["--local-identity", "carol@example.com", "--local-edit"]);
    context = await phone(browser, { javaScriptEnabled: false });
    page = await context.newPage();
    await page.goto(server.url(`/recipes/1/photos/${second.id}`));
    await Promise.all([page.waitForURL(server.url("/recipes/1")), page.locator("button", { hasText: "Make cover" }).tap()]);
    assert.equal(await page.locator(".single h1 a.photo-thumb").getAttribute("href"), `/recipes/1/photos/${second.id}`);
    await page.locator(".photo-strip a").tap();
    await page.waitForURL(server.url(`/recipes/1/photos/${first.id}`));
    await page.locator("button", { hasText: "Delete" }).tap();
    await page.locator("h1", { hasText: "Delete this photo of Negroni?" }).waitFor();
    assert.equal((await photosOf(server, 1)).length, 2, "asking deletes nothing");
    const asking = async (p) => {
      await p.locator("button", { hasText: "Delete" }).tap();
      await p.locator("h1", { hasText: "Delete this photo of Negroni?" }).waitFor();
    };
    assert.deepEqual(await axeWithoutScripts(server, `/recipes/1/photos/${first.id}`, asking), []);
    assert.equal(await page.getByText("cannot be undone").count(), 0, "it can be");
    await Promise.all([page.waitForURL(server.url(`/recipes/1?photo_deleted=${first.id}`)), page.locator("button", { hasText: "Delete" }).tap()]);
    assert.deepEqual((await photosOf(server, 1)).map((p) => p.id), [second.id]);
    assert.equal(await page.locator(".photo-strip").count(), 0);

    // Back on the recipe: "Photo deleted." and Undo, which brings it back as it was.
    const undo = page.locator(".photo-undo button", { hasText: "Undo" });
    assert.match(await page.locator(".photo-undo").textContent(), /Photo deleted\./);
    const undoBox = await undo.boundingBox();
    assert.ok(undoBox.width >= 44 && undoBox.height >= 44, `Undo is ${undoBox.width}×${undoBox.height}`);
    assert.deepEqual(await axeWithoutScripts(server, `/recipes/1?photo_deleted=${first.id}`), []);
    await Promise.all([page.waitForURL(server.url("/recipes/1")), undo.tap()]);
    assert.deepEqual((await photosOf(server, 1)).map((p) => p.id), [second.id, first.id], "the same photo, not the cover");
    assert.equal(await page.locator(".photo-strip a").getAttribute("href"), `/recipes/1/photos/${first.id}`);

    // Deleted again: the recipe lists it under "Recently deleted photos", with Restore.
    await page.goto(server.url(`/recipes/1/photos/${first.id}`));
    await page.locator("button", { hasText: "Delete" }).tap();
    await page.locator("h1", { hasText: "Delete this photo of Negroni?" }).waitFor();
    await Promise.all([page.waitForURL(/photo_deleted=/), page.locator("button", { hasText: "Delete" }).tap()]);
    await page.goto(server.url("/recipes/1"));
    assert.equal(await page.locator(".photo-undo").count(), 0, "said once, after the delete");
    const gone = page.locator("details.photos-gone");
    await gone.locator("summary", { hasText: "Recently deleted photos (1)" }).tap();
    assert.ok(await gone.locator("img").evaluate((img) => img.complete && img.naturalWidth > 0), "its thumbnail, shown to an editor");
    const openList = async (p) => { await p.locator("details.photos-gone summary").tap(); };
    assert.deepEqual(await axeWithoutScripts(server, "/recipes/1", openList), []);
    const restored = page.waitForResponse((r) => r.url().endsWith(`/photos/${first.id}/restore`));
    await gone.locator("button", { hasText: "Restore" }).tap();
    assert.equal((await restored).status(), 303, "back to the recipe");
    await until(async () => (await photosOf(server, 1)).map((p) => p.id), [second.id, first.id], "restored");
    await until(() => page.locator("details.photos-gone").count(), 0, "none left to restore");
    assert.equal(await page.locator(".photo-strip a").count(), 1, "in the strip again");
  } finally {
    await context.close();
    await server.stop();
    home.remove();
  }
});

for (const size of SIZES.slice(0, 2)) {
  test(`${size.width}×${size.height}: the cover in the pane; the dialog's Make cover and Delete; a photo after Made one`, { timeout: 90_000 }, async () => {
    const home = household();
    let server = await home.start(["--local-identity", "alice@example.com"]);
    const first = await sendPhoto(server, 1, await drawJpeg(browser));
    const other = await sendPhoto(server, 1, await drawJpeg(browser, { top: "#2a4fb3" }));
    await server.stop();
    server = await home.start(["--local-identity", "carol@example.com", "--local-edit"]);
    const context = await wideContext(browser, size);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      await page.goto(server.url("/"));
      await loaded(page);
      await page.locator("#recipes > li > a.row", { hasText: "Negroni" }).click();
      const cover = page.locator("#pane .single h1 .photo-thumb img");
      await until(() => cover.evaluate((img) => img.complete && img.naturalWidth > 0).catch(() => false), true, "the cover in the pane");
      const box = await page.locator("#pane .single h1 .photo-thumb").boundingBox();
      const want = size.width >= 1280 ? 160 : 88;
      assert.ok(Math.abs(box.width - want) <= 1 && Math.abs(box.height - want) <= 1, `about ${want} px: ${box.width}×${box.height}`);
      const ingredients = await page.locator("#pane .ingredients").boundingBox();
      const apart = box.x >= ingredients.x + ingredients.width || box.y + box.height <= ingredients.y;
      assert.ok(apart, "the cover is not over the ingredients");
      assert.ok(await page.evaluate(() => { const p = document.getElementById("pane"); return p.scrollHeight <= p.clientHeight + 0.5; }), "the pane does not scroll");

      // The strip's photo, large: an editor makes it the cover.
      await page.locator("#pane .photo-strip a").click();
      const dialog = page.locator("dialog.photo-view");
      await dialog.locator("img").waitFor({ state: "visible" });
      assert.deepEqual(await axe(page), []);
      await dialog.locator("button", { hasText: "Make cover" }).click();
      await until(async () => (await photosOf(server, 1))[0].id, other.id, "the cover chosen");
      await until(() => page.locator("#pane .single h1 .photo-thumb").getAttribute("href"), `/recipes/1/photos/${other.id}`, "painted");

      // Delete asks first (and says it can be restored); Keep it keeps it; Delete deletes.
      await page.locator("#pane .single h1 .photo-thumb").click();
      await dialog.locator("button", { hasText: "Delete" }).click();
      await dialog.locator("button", { hasText: "Keep it" }).click();
      assert.equal((await photosOf(server, 1)).length, 2);
      await dialog.locator("button", { hasText: "Delete" }).click();
      assert.match(await dialog.locator(".photo-ask").textContent(), /You can restore it for 30 days/);
      assert.deepEqual(await axe(page), []);
      await dialog.locator("button", { hasText: "Delete" }).click();
      await until(async () => (await photosOf(server, 1)).length, 1, "deleted");
      await until(() => page.locator("#pane .photo-strip").count(), 0, "the strip goes with the second photo");
      await until(() => dialog.count(), 0, "the dialog closes");

      // "Photo deleted." with Undo: it comes back, the same photo, in the strip again.
      const note = page.locator("#pane .photo-undo");
      assert.match(await note.textContent(), /Photo deleted\./);
      const undo = note.locator("button", { hasText: "Undo" });
      const undoBox = await undo.boundingBox();
      assert.ok(undoBox.width >= 44 && undoBox.height >= 44, `Undo is ${undoBox.width}×${undoBox.height}`);
      assert.deepEqual(await axe(page), []);
      await undo.click();
      await until(async () => (await photosOf(server, 1)).map((p) => p.id).sort((a, b) => a - b), [first.id, other.id].sort((a, b) => a - b), "restored, its own id");
      await until(() => page.locator("#pane .photo-strip a").count(), 1, "back in the strip");
      await until(() => note.count(), 0, "the Undo goes once done");
      await until(() => page.locator("#pane .photo-status").textContent(), "Photo restored.", "said");

      // Made one: the camera is offered beside it.
      await page.locator("#pane details.mine summary").click();
      await page.locator("#pane .made-one").click();
      const camera = page.locator("#pane .made label.photo-made");
      await camera.waitFor({ state: "visible" });
      assert.equal(await camera.locator("input[type=file]").getAttribute("capture"), "environment");
      assert.deepEqual(await watcher.problems(), []);
    } finally {
      await context.close();
      await server.stop();
      home.remove();
    }
  });
}
