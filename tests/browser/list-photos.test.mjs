// The list's photos (issue #44), on a phone: off by default (the list stays compact, no
// request for covers); ticked on My bar ("Show each recipe's photo in the list"), a row
// whose recipe has a cover shows its thumbnail in the glass's place, 44 px, loaded, the
// row no taller, nothing scrolling sideways; other rows keep their glass; unticked, the
// photos go. The choice is this device's and comes back after a reload. axe finds nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launch, phone, startServer, watch } from "./lib/browser.mjs";
import { axe, loaded, until } from "./lib/checks.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// What each listed row shows in its first column, by name: "photo" (drawn, 44×44) or
// "glass"; and the tallest row's height.
const rows = (page) => page.locator("#recipes > li:not([hidden]) > a.row").evaluateAll((as) => ({
  shows: Object.fromEntries(as.map((a) => {
    const img = a.querySelector("img.row-photo");
    const box = img?.getBoundingClientRect();
    const drawn = img && img.complete && img.naturalWidth > 0 && Math.round(box.width) === 44 && Math.round(box.height) === 44;
    const glass = a.querySelector(".glass");
    return [a.querySelector(".name").textContent, img ? (drawn ? "photo" : "photo not drawn") : glass.getBoundingClientRect().width > 0 ? "glass" : "nothing"];
  })),
  tallest: Math.max(...as.map((a) => a.getBoundingClientRect().height)),
}));

test("a phone shows the list's photos only once asked, in the glass's place, and the rows stay as tall", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-list-photos-"));
  const server = await startServer(["--local-identity", "alice@example.com", "--state-dir", dir]);
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    // Negroni (1) and Martini (6) have a photo; sent as a script would (one of our screenshots).
    for (const id of [1, 6]) {
      const sent = await fetch(server.url(`/api/recipes/${id}/photos`), {
        method: "POST", headers: { "Content-Type": "image/png" },
        body: readFileSync(join(ROOT, "docs/screenshots/list-light.png")),
      });
      assert.equal(sent.status, 201, await sent.text());
    }
    const page = await context.newPage();
    let asked = 0;
    page.on("request", (r) => { if (r.url().endsWith("/api/photos/covers")) asked++; });
    await page.goto(server.url("/?q=martini"));
    await loaded(page);
    await until(async () => "Martini" in (await rows(page)).shows, true, "the list answers the search");
    const before = await rows(page);
    assert.deepEqual(Object.values(before.shows).filter((s) => s !== "glass"), [], "off by default");
    assert.equal(asked, 0, "no covers asked for while the choice is off");

    await page.goto(server.url("/shelf"));
    const choice = page.getByLabel("Show each recipe's photo in the list");
    await choice.check();
    await page.goto(server.url("/?q=martini"));
    await loaded(page);
    await until(async () => (await rows(page)).shows.Martini, "photo", "Martini's row shows its photo");
    const on = await rows(page);
    for (const [name, shows] of Object.entries(on.shows)) assert.equal(shows, name === "Martini" ? "photo" : "glass", name);
    assert.ok(on.tallest <= before.tallest + 0.5, `rows as tall: ${on.tallest} vs ${before.tallest}`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, "no sideways scroll");
    assert.deepEqual(await axe(page), []);
    assert.equal(asked, 1, "every cover in one request");

    // The whole list: Negroni's too.
    await page.goto(server.url("/"));
    await loaded(page);
    await until(async () => (await rows(page)).shows.Negroni, "photo", "Negroni's row shows its photo");

    // Unticked: gone.
    await page.goto(server.url("/shelf"));
    await page.getByLabel("Show each recipe's photo in the list").uncheck();
    await page.goto(server.url("/"));
    await loaded(page);
    const off = await rows(page);
    assert.deepEqual(Object.values(off.shows).filter((s) => s !== "glass"), []);
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
