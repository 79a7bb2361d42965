// A photo taken offline (issue #44: "offline it waits like other changes"), on a phone: the
// picture shows at once from the phone and the spot says it waits; it is sent when the
// connection returns, and the server's thumbnail replaces the phone's. Taken offline and
// the page closed before the connection returns, it is still sent by the next page (it is
// kept in the browser's IndexedDB, not in the page). A file the server refuses when it
// finally gets it is not kept, and the spot says why.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launch, phone, startServer, watch } from "./lib/browser.mjs";
import { loaded, until } from "./lib/checks.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const PICTURE = join(ROOT, "docs/screenshots/list-light.png");
const OPEN = "#recipes > li.open";
// What a page offline prints about requests it could not make, and the refused upload.
const OFFLINE = [/ERR_INTERNET_DISCONNECTED/, /net::ERR_FAILED/, /Failed to fetch/, /status of 415/];

async function open(page, name) {
  await loaded(page);
  const name_ = page.locator(".name", { hasText: new RegExp(`^${name}$`) });
  await page.locator("#recipes > li > a.row").filter({ has: name_ }).tap();
  await page.waitForSelector(`${OPEN} td.amount`);
  await page.locator(`${OPEN} .photo-spot label.photo-add`).waitFor({ state: "visible" });
}

test("a photo taken offline waits on the phone and is sent when the connection returns, even from a closed page", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-photo-queue-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  const server = await startServer(["--recipes-file", file, "--state-dir", join(dir, "state"), "--local-identity", "alice@example.com"]);
  const photos = async (id) => (await (await fetch(server.url(`/api/recipes/${id}/photos`))).json()).length;
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(server.url("/"));
    await open(page, "Negroni");
    await context.setOffline(true);
    await page.locator(`${OPEN} input[type=file]`).setInputFiles(PICTURE);
    const thumb = page.locator(`${OPEN} .photo-thumb img`);
    await thumb.waitFor({ state: "visible" });
    assert.match(await thumb.getAttribute("src"), /^data:image\/jpeg/, "the phone's own picture, at once");
    await until(() => page.locator(`${OPEN} .photo-status`).textContent(), "Waiting to be sent: it goes when the connection returns.", "said");
    assert.equal(await photos(1), 0, "nothing reached the server");

    await context.setOffline(false);
    await until(() => thumb.getAttribute("src").then((s) => s.startsWith("/photos/")), true, "the server's thumbnail once sent");
    await until(() => page.locator(`${OPEN} .photo-status`).textContent(), "Photo added.", "said");
    assert.equal(await photos(1), 1);

    // Taken offline, the page closed: the next page sends it.
    await page.goto(server.url("/"));
    await open(page, "Martini");
    await context.setOffline(true);
    await page.locator(`${OPEN} input[type=file]`).setInputFiles(PICTURE);
    await until(() => page.locator(`${OPEN} .photo-status`).textContent(), "Waiting to be sent: it goes when the connection returns.", "said");
    await page.close();
    await context.setOffline(false);
    assert.equal(await photos(6), 0);
    const next = await context.newPage();
    await next.goto(server.url("/"));
    await until(() => photos(6), 1, "the photo a closed page kept, sent by the next one");

    // A file the server refuses once it gets it: not kept, and said.
    await open(next, "Daiquiri");
    await context.setOffline(true);
    await next.locator(`${OPEN} input[type=file]`).setInputFiles({ name: "notes.txt", mimeType: "image/jpeg", buffer: Buffer.from("not a picture") });
    await until(() => next.locator(`${OPEN} .photo-status`).textContent(), "Waiting to be sent: it goes when the connection returns.", "said");
    await context.setOffline(false);
    await until(() => next.locator(`${OPEN} .photo-status`).textContent().then((t) => t.startsWith("Not saved:")), true, "the refusal is said");
    assert.equal(await photos(2), 0);
    const left = await next.evaluate(() => new Promise((resolve) => {
      const r = indexedDB.open("libations-photos");
      r.onsuccess = () => { const q = r.result.transaction("waiting").objectStore("waiting").count(); q.onsuccess = () => resolve(q.result); };
    }));
    assert.equal(left, 0, "nothing left waiting");
    assert.deepEqual(await watcher.problems(OFFLINE), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
