// Who is at the bar: the navigation quietly names the visitor ("alice · local" with
// --local-identity; "Alice · iphone" on the tailnet), from /api/whoami, without breaking
// the strict CSP or the phone layout.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, phone, startServer, watch } from "./lib/browser.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test("the navigation shows who you are, on the list and on a recipe page", async () => {
  const server = await startServer(["--local-identity", "alice@example.com"]);
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    for (const path of ["/", "/recipes/1", "/shelf"]) {
      await page.goto(server.url(path));
      const who = page.locator("#who");
      await who.waitFor({ state: "visible", timeout: 10_000 });
      assert.equal(await who.textContent(), "alice \u00b7 local", path);
      assert.equal(await who.getAttribute("title"), "alice@example.com");
      // Quietly: at the end of the navigation, one line, nothing wider than the phone.
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);
      assert.ok(fits, `${path}: no sideways scrolling`);
      const inNav = await page.evaluate(() => document.getElementById("who").closest("nav.top") !== null);
      assert.ok(inNav, `${path}: the name is in the navigation`);
    }
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
  }
});

test("offline pages do not show a stale name: /api/whoami is never cached", async () => {
  const server = await startServer(["--local-identity", "bob@example.com"]);
  try {
    const r = await fetch(server.url("/api/whoami"));
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("cache-control"), "private, no-store");
    const me = await r.json();
    assert.equal(me.login, "bob@example.com");
    assert.equal(me.label, "bob \u00b7 local");
  } finally {
    await server.stop();
  }
});
