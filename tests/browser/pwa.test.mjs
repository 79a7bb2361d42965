// The phone as the owner uses it: installable, works with the network gone, keeps the
// screen on while a recipe is open.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { FULL_CHROMIUM, LAUNCH_ARGS, PHONE, ROOT, launch, launchFull, phone, startServer, watch } from "./lib/browser.mjs";
import { loaded, workerInControl } from "./lib/checks.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const names = (page) =>
  page.evaluate(() => Array.from(document.querySelectorAll("#recipes > li:not([hidden]) .name"), (n) => n.textContent));

test("installable: manifest, icons, no installability errors", async () => {
  const server = await startServer();
  // Chromium does not install from incognito profiles, which new contexts are.
  const profile = mkdtempSync(join(tmpdir(), "libations-install-"));
  const context = await chromium.launchPersistentContext(profile, { ...PHONE, executablePath: FULL_CHROMIUM, args: LAUNCH_ARGS });
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(server.url("/"));
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
    assert.deepEqual(installabilityErrors, []);
    const { errors } = await cdp.send("Page.getAppManifest");
    assert.deepEqual(errors, []);
    const response = await fetch(server.url("/manifest.webmanifest"));
    assert.match(response.headers.get("content-type"), /^application\/manifest\+json/);
    const manifest = await response.json();
    assert.equal(manifest.name, "Libations");
    assert.equal(manifest.short_name, "Libations");
    assert.equal(manifest.start_url, "/");
    assert.equal(manifest.display, "standalone");
    assert.match(manifest.theme_color, /^#[0-9a-f]{6}$/);
    assert.match(manifest.background_color, /^#[0-9a-f]{6}$/);
    const icons = [...manifest.icons];
    const apple = await page.getAttribute("link[rel=apple-touch-icon]", "href");
    icons.push({ src: apple, sizes: "180x180", purpose: "apple" });
    for (const purpose of ["any", "maskable"]) assert.ok(icons.some((i) => i.purpose === purpose), purpose);
    for (const size of ["192x192", "512x512"]) assert.ok(icons.some((i) => i.sizes === size && i.purpose === "any"), size);
    for (const icon of icons) {
      const png = Buffer.from(await (await fetch(server.url(icon.src))).arrayBuffer());
      assert.equal(png.subarray(1, 4).toString(), "PNG", icon.src);
      const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
      assert.equal(`${w}x${h}`, icon.sizes, icon.src);
    }
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(profile, { recursive: true, force: true });
  }
});

test("offline: a reload with the network gone shows every recipe and search works; back online nothing is stale", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-offline-"));
  const file = join(dir, "bar.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  let server = await startServer(["--recipes-file", file]);
  const addr = server.base.replace("http://", "");
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const data = await (await fetch(server.url("/api/recipes"))).json();
    const all = data.map((r) => r.name);
    const unvisited = data[data.length - 1];
    const lime = (await (await fetch(server.url("/api/recipes?q=lime"))).json()).map((r) => r.name);
    const page = await context.newPage();
    await page.goto(server.url("/"));
    await loaded(page);
    await workerInControl(page);
    assert.equal(await page.isVisible("#offline"), false, "no offline hint while online");

    // The network is gone: the phone is offline and the server is down.
    await server.stop();
    await context.setOffline(true);
    await page.reload();
    await loaded(page);
    assert.deepEqual(await names(page), all, "every recipe is listed");
    assert.equal(await page.isVisible("#offline"), true, "the offline hint shows");
    await page.locator("#q").fill("lime");
    assert.deepEqual(await names(page), lime, "search works offline");
    await page.locator("#recipes > li:not([hidden]) a.row").first().tap();
    assert.equal(await page.locator("#recipes > li.open .ingredients tr").count() > 0, true, "a recipe opens offline");
    // A search address and a recipe never visited still answer, from the saved list.
    await page.goto(server.url("/?q=lime"));
    await loaded(page);
    assert.deepEqual(await names(page), lime);
    await page.goto(server.url(`/recipes/${unvisited.id}`));
    await loaded(page);
    assert.equal(await page.locator("#recipes > li.open .name").textContent(), unvisited.name);

    // Back online with changed recipes: the page shows the new data, never the saved copy.
    const recipes = JSON.parse(readFileSync(file, "utf8"));
    recipes.push({ id: 99999, name: "Brand New Fizz", base: ["Gin"], glass: ["Highball"], ingredients: [{ name: "Gin", measure: "50", unit: "ml" }] });
    recipes[0].name = "Renamed While Away";
    writeFileSync(file, JSON.stringify(recipes));
    server = await startServer(["--recipes-file", file], { addr });
    await context.setOffline(false);
    await page.goto(server.url("/"));
    await loaded(page);
    const fresh = await names(page);
    assert.ok(fresh.includes("Brand New Fizz") && fresh.includes("Renamed While Away"), "new data shown online");
    assert.equal(fresh.length, all.length + 1);
    assert.equal(await page.isVisible("#offline"), false);

    // And the saved copy has been brought up to date: offline again, the new data is there.
    await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.getRegistration();
      await reg.update();
      await navigator.serviceWorker.ready;
    });
    await server.stop();
    await context.setOffline(true);
    await page.reload();
    await loaded(page);
    assert.deepEqual(await names(page), fresh, "the offline copy was updated");
    assert.deepEqual(await watcher.problems([/net::ERR_INTERNET_DISCONNECTED/, /Failed to load resource/]), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The requests the server has answered, by route, from its metrics listener. */
async function answered(metrics) {
  const text = await (await fetch(metrics)).text();
  const counts = {};
  for (const m of text.matchAll(/^libations_http_requests_total\{route="([^"]+)",status="\d+"\} (\d+)$/gm)) {
    counts[m[1]] = (counts[m[1]] ?? 0) + Number(m[2]);
  }
  return counts;
}

test("with the worker in control, a reload asks the server for the page but not for the files named by their content", async () => {
  const server = await startServer(["--metrics-addr", "127.0.0.1:0"]);
  const metrics = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(server.log())?.[1];
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    assert.ok(metrics, `the metrics address is logged:\n${server.log()}`);
    const page = await context.newPage();
    await page.goto(server.url("/"));
    await loaded(page);
    await workerInControl(page);
    const worker = await (await fetch(server.url("/sw.js"))).text();
    const named = JSON.parse(/^const NAMED_BY_CONTENT = (.*);$/m.exec(worker)[1]);
    const html = await (await fetch(server.url("/"))).text();
    for (const file of [/<link rel="stylesheet" href="([^"]+)">/.exec(html)[1], /<script type="module" src="([^"]+)">/.exec(html)[1]]) {
      assert.ok(named.includes(file), `${file} is among the files named by their content`);
    }
    const before = await answered(metrics);
    await page.reload();
    await loaded(page);
    const after = await answered(metrics);
    const asked = (route) => (after[route] ?? 0) - (before[route] ?? 0);
    assert.ok(asked("/") >= 1, "the page itself is asked for (network first)");
    assert.equal(asked("/static/{*file}"), 0, "the stylesheet, icons and modules come from the worker's cache");
    assert.equal(await page.locator("#recipes > li").count(), 28, "the page runs as before");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
  }
});

// Records every wake lock the page takes, to see it held and released.
const SPY = () => {
  window.__locks = [];
  if (!("wakeLock" in navigator)) return;
  const request = WakeLock.prototype.request;
  WakeLock.prototype.request = async function (type) {
    const sentinel = await request.call(this, type);
    window.__locks.push(sentinel);
    return sentinel;
  };
};
const locks = (page) => page.evaluate(() => window.__locks.map((s) => (s.released ? "released" : "held")));

test("keep screen on: held while the recipe is open and visible, released when it closes or hides", async () => {
  const server = await startServer();
  const full = await launchFull();
  try {
    await wakeLockHeldAndReleased(server, full);
    await noToggleWithoutWakeLock(server, full);
  } finally {
    await full.close();
    await server.stop();
  }
});

async function wakeLockHeldAndReleased(server, full) {
  const context = await phone(full);
  const watcher = await watch(context);
  try {
    await context.addInitScript(SPY);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Browser.setPermission", {
      permission: { name: "screen-wake-lock" }, setting: "granted", origin: server.base,
    }).catch(() => cdp.send("Browser.grantPermissions", { permissions: ["wakeLockScreen"], origin: server.base }));
    await page.goto(server.url("/"));
    await loaded(page);
    assert.equal(await page.evaluate(() => window.isSecureContext && "wakeLock" in navigator), true);
    const row = page.locator("#recipes > li a.row").nth(2);
    await row.tap();
    const toggle = page.locator("#recipes > li.open .wake");
    assert.equal(await toggle.isVisible(), true, "the toggle shows where wake locks work");
    assert.equal(await toggle.getAttribute("aria-pressed"), "false");
    await toggle.tap();
    await page.waitForFunction(() => window.__locks.length === 1);
    assert.deepEqual(await locks(page), ["held"]);
    assert.equal(await toggle.getAttribute("aria-pressed"), "true");

    // The page is hidden (headless chromium keeps every tab visible, so the test says so
    // itself): released; visible again: held again.
    const visibility = (state) => page.evaluate((state) => {
      Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
    }, state);
    await visibility("hidden");
    await page.waitForFunction(() => window.__locks.every((s) => s.released));
    assert.equal(await toggle.getAttribute("aria-pressed"), "true", "the toggle stays on");
    await visibility("visible");
    await page.waitForFunction(() => window.__locks.length === 2);
    assert.deepEqual(await locks(page), ["released", "held"]);

    // Closing the recipe releases it.
    await row.tap();
    await page.waitForFunction(() => window.__locks.every((s) => s.released));
    assert.equal(await page.locator("#recipes > li.open").count(), 0);

    // Switched off by hand.
    await row.tap();
    await toggle.tap();
    await page.waitForFunction(() => window.__locks.length === 3);
    await toggle.tap();
    await page.waitForFunction(() => window.__locks.every((s) => s.released));
    assert.equal(await toggle.getAttribute("aria-pressed"), "false");

    // The recipe page has the same toggle.
    await page.goto(server.url("/recipes/" + (await (await fetch(server.url("/api/recipes"))).json())[0].id));
    await page.locator(".single .wake").tap();
    await page.waitForFunction(() => window.__locks.length === 1 && !window.__locks[0].released);
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
  }
}

// Where the browser has no wake lock, there is no toggle.
async function noToggleWithoutWakeLock(server, full) {
  const bare = await phone(full);
  try {
    await bare.addInitScript(() => { delete Navigator.prototype.wakeLock; });
    const page = await bare.newPage();
    await page.goto(server.url("/"));
    await loaded(page);
    await page.locator("#recipes > li a.row").first().tap();
    assert.equal(await page.locator("#recipes > li.open .wake").isHidden(), true);
    assert.equal(await page.locator("#recipes > li.open .ingredients").isVisible(), true);
  } finally {
    await bare.close();
  }
}
