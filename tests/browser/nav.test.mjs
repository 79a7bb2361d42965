// One navigation on every page (Recipes · My bar · Menus · New and the person's name), each
// link a thumb's size on a phone, the page's own link marked; and a recipe opened from the
// list, in its row on a phone or in the pane on a tablet or laptop, carries Edit, Delete,
// Share and Print and has an address: Back closes it inside the app, Forward reopens it,
// reload shows it. Without JavaScript the navigation is plain links, Menus and New too.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, SIZES, launch, phone, startServer, watch, wideContext } from "./lib/browser.mjs";
import { fitsWidth, until } from "./lib/checks.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A server editing a fresh copy of the sample collection, with a household; `extra`: who the visitor is. */
async function editable(extra = ["--allow-edits", "--local-edit"]) {
  const dir = mkdtempSync(join(tmpdir(), "libations-nav-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  const server = await startServer(["--recipes-file", file, "--state-dir", join(dir, "state"), ...extra]);
  return { server, async stop() { await server.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

const TABLET = SIZES.find((s) => s.name === "tablet");
const LAPTOP = SIZES.find((s) => s.name === "laptop");
const CURRENT = { "/": "Recipes", "/recipes/1": "Recipes", "/shelf": "My bar", "/menus": "Menus", "/recipes/new": "New", "/changes": null, "/recipes/import": null };

/** In the page: the navigation's shown links, their boxes, the marked one. */
const readNav = (page) => page.evaluate(() => {
  const nav = document.querySelector("nav.top");
  if (!nav) return null;
  const links = [...nav.querySelectorAll("a")].filter((a) => a.getClientRects().length > 0).map((a) => {
    const b = a.getBoundingClientRect();
    return { text: a.textContent.trim(), width: b.width, height: b.height, bottom: b.bottom, current: a.getAttribute("aria-current") };
  });
  return { links, bottom: nav.getBoundingClientRect().bottom, who: document.getElementById("who")?.closest("nav.top") !== null };
});

for (const [name, open] of [["phone", (b) => phone(b)], ["tablet", (b) => wideContext(b, TABLET)]]) {
  test(`${name}: the same navigation on every page, each link at least 44×44 px, the page's own marked`, async () => {
    const app = await editable(["--allow-edits", "--local-edit", "--local-identity", "alice@example.com"]);
    const context = await open(browser);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      for (const [path, current] of Object.entries(CURRENT)) {
        await page.goto(app.server.url(path));
        // The editor's own links come with /api/whoami's answer.
        await page.locator("nav.top a", { hasText: "New" }).waitFor({ state: "visible", timeout: 10_000 });
        await page.locator("#who").waitFor({ state: "visible", timeout: 10_000 });
        const nav = await readNav(page);
        assert.ok(nav, `${path}: a <nav class="top">`);
        assert.deepEqual(nav.links.map((l) => l.text), ["Recipes", "My bar", "Menus", "New"], path);
        for (const l of nav.links) assert.ok(l.width >= 44 && l.height >= 44, `${path}: ${l.text} is ${l.width}×${l.height}`);
        assert.ok(nav.bottom <= 160, `${path}: the navigation is in the first screen, under the search (bottom ${nav.bottom})`);
        assert.ok(nav.who, `${path}: the name is in the navigation`);
        assert.deepEqual(nav.links.filter((l) => l.current === "page").map((l) => l.text), current ? [current] : [], `${path}: aria-current`);
        assert.ok(await fitsWidth(page), `${path}: no sideways scrolling`);
      }
      assert.deepEqual(await watcher.problems(), []);
    } finally {
      await context.close();
      await app.stop();
    }
  });
}

test("a visitor who may not edit or compose sees Recipes and My bar only", async () => {
  const app = await editable(["--local-identity", "bob@example.com"]);
  const context = await phone(browser);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/"));
    await page.locator("#who").waitFor({ state: "visible", timeout: 10_000 });
    const nav = await readNav(page);
    assert.deepEqual(nav.links.map((l) => l.text), ["Recipes", "My bar"]);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("without JavaScript the navigation is links that work", async () => {
  const app = await editable();
  const context = await phone(browser, { javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/1"));
    await page.locator("nav.top a", { hasText: "My bar" }).click();
    await page.waitForURL(/\/shelf$/);
    assert.equal(await page.locator("nav.top a[aria-current=page]").textContent(), "My bar");
    await page.locator("nav.top a", { hasText: "Recipes" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    assert.ok(await page.locator("#recipes > li").count() > 10, "the list");
    // Menus and New: the page can't ask who this is, so they are offered, and lead there.
    const shown = () => page.locator("nav.top a:visible").allTextContents();
    assert.deepEqual(await shown(), ["Recipes", "My bar", "Menus", "New"]);
    for (const l of (await readNav(page)).links) assert.ok(l.width >= 44 && l.height >= 44, `${l.text} is ${l.width}×${l.height}`);
    assert.ok(await fitsWidth(page), "no sideways scrolling");
    await page.locator("nav.top a:visible", { hasText: "Menus" }).click();
    await page.waitForURL(/\/menus$/);
    assert.deepEqual(await shown(), ["Recipes", "My bar", "Menus", "New"], "Menus once, marked");
    assert.equal(await page.locator("nav.top a[aria-current=page]").textContent(), "Menus");
    await page.locator("nav.top a:visible", { hasText: "New" }).click();
    await page.waitForURL(/\/recipes\/new$/);
    assert.equal(await page.locator("nav.top a[aria-current=page]").textContent(), "New");
    assert.equal(await page.locator("form input[name=name]").count(), 1, "the recipe form");
  } finally {
    await context.close();
    await app.stop();
  }
});

/** The opened recipe's actions shown (`root`: where the recipe opened). */
async function actionsShown(page, root) {
  const shown = async (name, role) => page.locator(root).getByRole(role, { name, exact: true }).isVisible();
  await page.locator(root).getByRole("link", { name: "Edit", exact: true }).waitFor({ state: "visible", timeout: 10_000 });
  return {
    edit: await shown("Edit", "link"), delete: await shown("Delete", "button"),
    share: await shown("Share", "button"), print: await shown("Print", "button"),
  };
}
const ALL = { edit: true, delete: true, share: true, print: true };

test("phone: Negroni opened in its row has its actions and an address; Back, Forward and reload", async () => {
  const app = await editable();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto("about:blank");
    await page.goto(app.server.url("/"));
    await page.fill("#q", "gin");
    const row = page.locator("#recipes > li", { hasText: "Negroni" }).first();
    await row.locator("a.row").click();
    await page.locator("#recipes > li.open").waitFor({ timeout: 10_000 });
    assert.deepEqual(await actionsShown(page, "#recipes > li.open"), ALL, "Edit, Delete, Share and Print in the row");
    const id = await row.getAttribute("data-id");
    assert.equal(new URL(page.url()).pathname, `/recipes/${id}`, "opening gives it its address");
    assert.equal(new URL(page.url()).searchParams.get("q"), "gin", "the search stays in the address");

    await page.goBack();
    assert.equal(new URL(page.url()).origin, app.server.url("/").replace(/\/$/, ""), "Back stays in the app");
    await until(() => page.locator("#recipes > li.open").count(), 0, "Back closes the recipe");
    assert.equal(new URL(page.url()).pathname, "/");
    assert.ok(await page.locator("#recipes > li", { hasText: "Negroni" }).first().isVisible(), "the list is shown");

    await page.goForward();
    await page.locator("#recipes > li.open", { hasText: "Negroni" }).waitFor({ timeout: 10_000 });
    assert.equal(new URL(page.url()).pathname, `/recipes/${id}`, "Forward reopens it");

    await page.reload();
    assert.equal(await page.locator("h1 .name").textContent(), "Negroni", "reload shows the same recipe");
    assert.deepEqual(await actionsShown(page, ".single"), ALL, "and its actions");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await app.stop();
  }
});

for (const size of [TABLET, LAPTOP]) {
  test(`${size.name}: Negroni opened in the pane has Edit, Delete, Share and Print without a reload; Back, Forward, reload`, async () => {
    const app = await editable();
    const context = await wideContext(browser, size);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      await page.goto("about:blank");
      await page.goto(app.server.url("/"));
      const row = page.locator("#recipes > li", { hasText: "Negroni" }).first();
      await row.locator("a.row").click();
      await page.locator("#pane .single .name", { hasText: "Negroni" }).waitFor({ timeout: 10_000 });
      assert.deepEqual(await actionsShown(page, "#pane .single"), ALL);
      const id = await row.getAttribute("data-id");
      assert.equal(new URL(page.url()).pathname, `/recipes/${id}`);
      await page.goBack();
      await until(() => page.locator("#pane .single").count(), 0, "Back closes the pane's recipe");
      assert.equal(new URL(page.url()).pathname, "/", "Back stays in the app");
      await page.goForward();
      await page.locator("#pane .single .name", { hasText: "Negroni" }).waitFor({ timeout: 10_000 });
      await page.reload();
      assert.equal(await page.locator("#pane .single .name").textContent(), "Negroni");
      assert.deepEqual(await actionsShown(page, "#pane .single"), ALL);
      assert.deepEqual(await watcher.problems(), []);
    } finally {
      await context.close();
      await app.stop();
    }
  });
}

// #43 item 9: a first visit says what this is, on the first screen of a phone; "Got it"
// puts it away for good on this device; without JavaScript it is always there, one
// paragraph; a search's page and a recipe's page don't carry it.
test("a first visit says what Libations is; Got it puts it away on this device", async () => {
  const server = await startServer();
  try {
    const context = await phone(browser);
    const watcher = await watch(context);
    const page = await context.newPage();
    await page.goto(server.url("/"));
    const intro = page.locator("#intro");
    await intro.waitFor({ state: "visible" });
    assert.match(await intro.textContent(), /^Libations: this household's cocktail recipes\./);
    const box = await intro.boundingBox();
    assert.ok(box.y + box.height <= 844, `the line is on the first screen (ends at ${box.y + box.height})`);
    const done = page.locator("#intro-done");
    const button = await done.boundingBox();
    assert.ok(button.width >= 44 && button.height >= 44, `Got it is ${button.width}×${button.height}`);
    await done.tap();
    await until(() => intro.isVisible(), false, "Got it hides the line");
    await page.reload();
    await page.waitForSelector("#recipes a.row[aria-expanded]");
    assert.equal(await intro.isVisible(), false, "not shown again on this device");
    for (const address of ["/?q=lime", "/recipes/1"]) {
      const fresh = await (await phone(browser)).newPage();
      await fresh.goto(server.url(address));
      await fresh.waitForLoadState("load");
      assert.equal(await fresh.locator("section.intro").count(), 0, `${address} has no intro`);
      await fresh.context().close();
    }
    assert.deepEqual(await watcher.problems(), []);
    await context.close();

    const plain = await phone(browser, { javaScriptEnabled: false });
    const noJs = await plain.newPage();
    await noJs.goto(server.url("/"));
    const shown = noJs.locator("section.intro:visible", { hasText: "this household's cocktail recipes" });
    assert.equal(await shown.count(), 1, "without JavaScript the line is shown, once");
    await plain.close();
  } finally {
    await server.stop();
  }
});
