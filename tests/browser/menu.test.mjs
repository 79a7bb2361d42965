// Tonight's menu for guests (issue #27, docs/MENU.md) in a real browser against the real
// binary with a household: a host composes a menu on /menus at 390×844 (search as you
// type, reorder by keyboard, a description, switch on, delete after a confirm); the
// guests' page on the bar's tablet (820×1180) follows the host's changes made through the
// API within a few seconds, without a reload; the printed card is one page of A5, A4 and
// Letter, in one and two columns, read back from the PDF. Each with no console error and
// no CSP violation, and axe on the pages people use.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ROOT, SIZES, launch, phone, startServer, tempDir, watch, wideContext } from "./lib/browser.mjs";
import { axe, workerInControl } from "./lib/checks.mjs";
import { readPdf } from "./lib/pdf.mjs";

const TABLET = SIZES.find((s) => s.name === "tablet");
// Screenshots for the README's Guests section (the card's was taken once: its QR code
// holds a test server's port, which changes every run).
const SHOTS = ROOT + "docs/screenshots/";

let browser, server;
before(async () => {
  browser = await launch();
  const state = tempDir("libations-menu-");
  server = await startServer(["--state-dir", state, "--local-identity", "host@example.com", "--local-edit"]);
});
after(async () => { await browser?.close(); await server?.stop(); });

// A write as a script of the host's would make it (Node sends no Origin: same as curl).
async function api(method, path, body) {
  const response = await fetch(server.url(path), {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}
const menus = async () => (await api("GET", "/api/menus")).menus;
const clear = async () => { for (const m of await menus()) await api("DELETE", `/api/menus/${m.id}`); };

test("a host composes a menu on a phone: search, reorder by keyboard, describe, switch on, delete", async () => {
  await clear();
  const context = await phone(browser, { colorScheme: "dark" });
  const watcher = await watch(context);
  const page = await context.newPage();
  await page.goto(server.url("/menus"));
  await page.locator("#menu-new").click();
  await page.locator("#menu-title").fill("Friday");
  assert.equal(await page.locator("#menu-new").isVisible(), false, "no New while editing");
  assert.equal(await page.locator("#menu-delete").isVisible(), false, "nothing to delete yet");
  const find = page.locator("#menu-find");
  await find.pressSequentially("negr");
  await page.getByRole("button", { name: "Add Negroni" }).click();
  await find.pressSequentially("marti");
  // Enter adds the first match (names starting with it first): Martini, not Espresso Martini.
  await find.press("Enter");
  await find.pressSequentially("daiq");
  await find.press("Enter");
  const rows = page.locator("#menu-drinks-edit .drink-name");
  assert.deepEqual(await rows.allTextContents(), ["Negroni", "Martini", "Daiquiri"]);
  // The Daiquiri up twice, by keyboard: the focus follows the row.
  await page.getByRole("button", { name: "Move Daiquiri up" }).focus();
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "Move Daiquiri up");
  await page.keyboard.press(" ");
  assert.deepEqual(await rows.allTextContents(), ["Daiquiri", "Negroni", "Martini"]);
  await page.getByRole("textbox", { name: "Description of Martini" }).fill("very cold, very dry");
  await page.locator("#menu-ingredients").uncheck();
  assert.deepEqual(await axe(page), [], "axe: the editor");
  await page.locator("#menu-editor h2").scrollIntoViewIfNeeded();
  await page.screenshot({ path: SHOTS + "menu-compose-dark.png" });
  await page.locator("#menu-save").click();
  await page.locator("#menus-status", { hasText: "is saved" }).waitFor();
  assert.equal(await page.locator("#menu-editor").isHidden(), true);
  let [friday] = await menus();
  assert.equal(friday.title, "Friday");
  assert.deepEqual(friday.recipes, [{ id: 2, description: null }, { id: 1, description: null }, { id: 6, description: "very cold, very dry" }]);
  assert.equal(friday.show_ingredients, false);
  assert.equal(friday.on, false);

  await page.getByRole("button", { name: "Switch on" }).click();
  await page.locator(".menu-item .on-badge").waitFor();
  [friday] = await menus();
  assert.equal(friday.on, true);
  assert.deepEqual(await page.locator(".menu-item .menu-names li").allTextContents(), ["Daiquiri", "Negroni", "Martini"]);
  assert.deepEqual(await axe(page), [], "axe: the list");

  // Without JavaScript: the menus are listed, and a form switches one off.
  const plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
  const noJs = await plain.newPage();
  await noJs.goto(server.url("/menus"));
  assert.deepEqual(await noJs.locator(".menu-item .menu-names li").allTextContents(), ["Daiquiri", "Negroni", "Martini"]);
  await noJs.getByRole("button", { name: "Switch off" }).click();
  await noJs.waitForURL(server.url("/menus"));
  assert.equal((await menus())[0].on, false);
  await noJs.getByRole("button", { name: "Switch on" }).click();
  await noJs.waitForURL(server.url("/menus"));
  assert.equal((await menus())[0].on, true);
  await plain.close();

  // Delete, after a confirm.
  await page.reload();
  await page.getByRole("button", { name: "Edit" }).click();
  assert.equal(await page.locator("#menu-title").inputValue(), "Friday");
  assert.deepEqual(await rows.allTextContents(), ["Daiquiri", "Negroni", "Martini"]);
  page.once("dialog", (dialog) => { assert.match(dialog.message(), /Delete the menu “Friday”\? It is on/); dialog.accept(); });
  await page.locator("#menu-delete").click();
  await page.locator("#menus-status", { hasText: "is deleted" }).waitFor();
  assert.deepEqual(await menus(), []);
  assert.equal(await page.locator("#menus-none").isVisible(), true);
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});

test("the guests' page on the bar's tablet follows the host's changes within seconds, without a reload", async () => {
  await clear();
  const { id } = await api("POST", "/api/menus", { title: "Friday", recipes: [{ id: 1 }, { id: 6, description: "very cold" }] });
  await api("POST", `/api/menus/${id}/on`);
  const context = await wideContext(browser, TABLET);
  const watcher = await watch(context);
  const page = await context.newPage();
  await page.goto(server.url("/menu"));
  const names = () => page.locator(".menu-drinks h2 span").allTextContents();
  assert.deepEqual(await names(), ["Negroni", "Martini"]);
  // The one script is the feed's; nothing leads into the app.
  const scripts = await page.locator("script").evaluateAll((s) => s.map((e) => new URL(e.src).pathname));
  assert.equal(scripts.length, 1);
  assert.match(scripts[0], /^\/menu\/assets\/js\.[0-9a-f]+\/menu\.js$/);
  assert.equal(await page.locator("a, form, input").count(), 0);
  // "Keep screen on" shows where the browser has a wake lock.
  const canWake = await page.evaluate(() => window.isSecureContext && "wakeLock" in navigator);
  assert.equal(await page.locator(".wake").isVisible(), canWake);
  assert.deepEqual(await axe(page), [], "axe: the guests' page");
  await page.evaluate(() => { window.__sameDocument = true; });

  const started = Date.now();
  await api("PUT", `/api/menus/${id}`, { title: "Friday late", recipes: [{ id: 6, description: "very cold" }, { id: 2 }, { id: 1 }] });
  await page.locator("h1", { hasText: "Friday late" }).waitFor({ timeout: 10_000 });
  assert.deepEqual(await names(), ["Martini", "Daiquiri", "Negroni"]);
  const took = Date.now() - started;
  assert.ok(took < 8_000, `followed in ${took} ms`);
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "no reload");
  assert.equal(await page.title(), "Friday late");
  await page.screenshot({ path: SHOTS + "menu-tablet-light.png" });

  await api("POST", "/api/menus/off");
  await page.locator("h1", { hasText: "No menu tonight" }).waitFor({ timeout: 10_000 });
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "no reload");
  console.log(`the tablet followed a change in ${took} ms`);
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});

const PAPER = { a5: [420, 595], a4: [595, 842], letter: [612, 792] };

test("the printed card is one page of A5, A4 and Letter, in one and two columns", async () => {
  await clear();
  const recipes = await (await fetch(server.url("/api/recipes"))).json();
  const some = recipes.slice(0, 12).map((r, i) => ({ id: r.id, description: i % 2 ? "Shaken hard, served very cold, with a twist" : null }));
  const { id } = await api("POST", "/api/menus", { title: "Saturday", recipes: some });
  await api("POST", `/api/menus/${id}/on`);
  // A long menu too: every recipe, each described.
  const { id: long } = await api("POST", "/api/menus", {
    title: "Everything", recipes: recipes.map((r) => ({ id: r.id, description: "A long line that tells the guests what this drink tastes like" })),
  });
  const context = await wideContext(browser, SIZES.find((s) => s.name === "laptop"));
  const watcher = await watch(context);
  let cards = 0;
  for (const [menu, title, count] of [["", "Saturday", some.length], [`&menu=${long}`, "Everything", recipes.length]]) {
    for (const size of Object.keys(PAPER)) {
      for (const columns of [1, 2]) {
        // A page of its own for each card: chromium keeps the first named page's size
        // for later PDFs of the same tab.
        const page = await context.newPage();
        await page.goto(server.url(`/menu/print?size=${size}&columns=${columns}${menu}`));
        assert.equal(await page.locator(".menu-drinks > li").count(), count);
        assert.equal(await page.locator("svg.qr").count(), 1);
        const pdf = await readPdf(await page.pdf({ preferCSSPageSize: true, printBackground: true }));
        const label = `${title}, ${size}, ${columns} column(s)`;
        assert.equal(pdf.pages, 1, `${label}: one page`);
        assert.deepEqual([pdf.width, pdf.height], PAPER[size], `${label}: the paper`);
        assert.ok(pdf.text.includes(title), `${label}: the title`);
        assert.ok(pdf.text.includes(recipes[0].name), `${label}: the first drink`);
        assert.ok(!pdf.text.includes("Paper") && !pdf.text.includes("Columns"), `${label}: no controls`);
        // Unless the page warned that the menu is long for this paper, every drink is
        // on the card (a drink never falls off its end unsaid).
        const crowded = (await page.locator(".card-hint").textContent()).includes("long for one page");
        if (title === "Saturday" || (size !== "a5" && columns === 2)) assert.equal(crowded, false, `${label}: fits`);
        if (!crowded) {
          const flat = pdf.text.replace(/\s+/g, " ");
          for (const name of await page.locator(".menu-drinks h2 span").allTextContents()) {
            assert.ok(flat.includes(name), `${label}: ${name} is on the card`);
          }
        }
        cards++;
        await page.close();
      }
    }
  }
  console.log(`printed ${cards} cards, one page each`);
  const page = await context.newPage();
  await page.goto(server.url("/menu/print"));
  assert.deepEqual(await axe(page), [], "axe: the card's page");
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});

// A photo for a recipe, sent as a script of the host's would (one of our screenshots).
async function addPhoto(recipe) {
  const response = await fetch(server.url(`/api/recipes/${recipe}/photos`), {
    method: "POST", headers: { "Content-Type": "image/png" }, body: readFileSync(SHOTS + "list-light.png"),
  });
  assert.equal(response.status, 201, await response.text());
}

// Where each drink's photo is, against its name: drawn (loaded), beside the text (right
// of the name, its top within the drink's row), never above it.
const photoPlaces = (page) => page.locator(".menu-drinks > li").evaluateAll((lis) => lis.map((li) => {
  const img = li.querySelector("img.menu-photo");
  const name = li.querySelector("h2 span").getBoundingClientRect();
  if (!img) return { name: li.querySelector("h2 span").textContent, photo: false };
  const box = img.getBoundingClientRect(), row = li.getBoundingClientRect();
  return {
    name: li.querySelector("h2 span").textContent, photo: img.complete && img.naturalWidth > 0,
    beside: box.left >= name.right && box.right <= row.right + 0.5 && box.top >= row.top - 0.5 && box.top <= name.bottom,
  };
}));

test("with covers on, each drink's photo sits beside it on the tablet and the phone, and the card still fits", async () => {
  await clear();
  await addPhoto(1);
  await addPhoto(6);
  const { id } = await api("POST", "/api/menus", { title: "Pictured", recipes: [{ id: 1 }, { id: 6, description: "very cold" }, { id: 2 }], show_photos: true });
  await api("POST", `/api/menus/${id}/on`);
  const want = [
    { name: "Negroni", photo: true, beside: true },
    { name: "Martini", photo: true, beside: true },
    { name: "Daiquiri", photo: false },
  ];
  for (const open of [(b) => wideContext(b, TABLET), (b) => phone(b)]) {
    const context = await open(browser);
    const watcher = await watch(context);
    const page = await context.newPage();
    await page.goto(server.url("/menu"));
    await page.waitForFunction(() => [...document.images].every((i) => i.complete));
    assert.deepEqual(await photoPlaces(page), want);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, "no sideways scroll");
    assert.deepEqual(await axe(page), [], "axe: the guests' page with photos");
    assert.deepEqual(await watcher.problems(), []);
    await context.close();
  }
  // The card, one page of A5 with every drink and its photo.
  const context = await wideContext(browser, SIZES.find((s) => s.name === "laptop"));
  const page = await context.newPage();
  await page.goto(server.url("/menu/print?size=a5&columns=1"));
  await page.waitForFunction(() => [...document.images].every((i) => i.complete));
  assert.deepEqual(await photoPlaces(page), want);
  const pdf = await readPdf(await page.pdf({ preferCSSPageSize: true, printBackground: true }));
  assert.equal(pdf.pages, 1);
  for (const { name } of want) assert.ok(pdf.text.includes(name), `${name} is on the card`);
  assert.deepEqual(await axe(page), [], "axe: the card with photos");
  await context.close();
  await api("DELETE", `/api/menus/${id}`);
});

test("offline, the tablet keeps showing the last menu (the service worker's copy), never the app", async () => {
  await clear();
  const { id } = await api("POST", "/api/menus", { title: "Sunday", recipes: [{ id: 9 }, { id: 2 }] });
  await api("POST", `/api/menus/${id}/on`);
  const context = await wideContext(browser, TABLET);
  const watcher = await watch(context);
  const page = await context.newPage();
  // The host opened the app on this tablet once: its service worker is there.
  await page.goto(server.url("/"));
  await workerInControl(page);
  await page.goto(server.url("/menu"));
  const names = () => page.locator(".menu-drinks h2 span").allTextContents();
  assert.deepEqual(await names(), ["Mojito", "Daiquiri"]);
  // The worker keeps its copy after answering: wait until it is there.
  const kept = await page.evaluate(async () => {
    for (let i = 0; i < 100; i++) {
      for (const key of await caches.keys()) if (await (await caches.open(key)).match("/menu")) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  });
  assert.equal(kept, true, "the service worker kept /menu");
  await context.setOffline(true);
  await page.reload();
  assert.deepEqual(await names(), ["Mojito", "Daiquiri"], "the last copy");
  assert.equal(await page.locator("h1").textContent(), "Sunday");
  // Its own files came from the copy too: styled, with its script.
  assert.equal(await page.locator(".menu-drinks").evaluate((e) => getComputedStyle(e).listStyleType), "none");
  await context.setOffline(false);
  // Offline, the service worker's own tries of the network fail first (as in pwa.test.mjs):
  // the browser's network errors, and nothing else.
  assert.deepEqual(await watcher.problems([/net::ERR_INTERNET_DISCONNECTED/, /Failed to load resource/, /Failed to fetch/]), []);
  await context.close();
});
