// My bar for the household (issue 26), in a real browser against the real binary, at a
// phone's size and a laptop's: a person granted the shelf ticks bottles and another person
// (the binary restarted with another --local-identity on the same state directory) sees
// them ticked, read-only, and the same "Can make"; the best next bottle and its recipes;
// the household's shopping list (Alice adds and buys, Bob's browser shows it); "Mine" keeps a removed recipe's note and rating.
//
// Expected values worked out by hand from recipes/sample.json: with gin, lime juice and
// simple syrup ("Sugar Syrup") on the shelf, Gimlet (10: gin, lime juice, sugar syrup) is the one recipe
// that can be made; Daiquiri (2: white rum, lime juice, sugar syrup) is the only one
// missing one thing, so White rum (the vocabulary's name for the bottle) is the one next bottle and
// unlocks Daiquiri alone. Every other recipe lacks two or more (Mojito: white rum and
// mint; French 75: lemon juice and champagne; Last Word: chartreuse and maraschino).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launch, phone, startServer, watch, wideContext } from "./lib/browser.mjs";
import { axe, shelfBox, until } from "./lib/checks.mjs";

const SAMPLE = JSON.parse(readFileSync(ROOT + "recipes/sample.json", "utf8"));
const ALICE = "alice@example.com";
const BOB = "bob@example.com";
const NOJITO = 27; // rated and noted, then taken out of the recipes file

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const SIZES = [
  { name: "phone 390x844", open: (b) => phone(b) },
  { name: "laptop 1280x800", open: (b) => wideContext(b, { width: 1280, height: 800, touch: false }) },
];

// My bar once it has heard who is asking (the line under the title is filled then).
async function goShelf(page, url) {
  await page.goto(url("/shelf"));
  await page.locator("#bar-who").waitFor({ state: "visible" });
}
const box = (page, key) => page.locator(`#shelf input[type=checkbox][value="${key}"]`);
const ticked = (page) => page.locator("#shelf input:checked").evaluateAll((l) => l.map((b) => b.value).sort());
const counts = (page) => page.evaluate(() => [
  document.getElementById("can-make-n").textContent, document.getElementById("missing-one-n").textContent]);
const bottles = (page) => page.locator("#next-bottles > li").evaluateAll((lis) => lis.map((li) => ({
  name: li.querySelector(".bottle-name").textContent,
  recipes: Array.from(li.querySelectorAll(".unlocked a"), (a) => [a.textContent, a.getAttribute("href")]),
})));
const shopping = (page) => page.locator("#shop-list > li:not(.empty)").evaluateAll((lis) => lis.map((li) =>
  [li.querySelector(".name").textContent, li.querySelector("input").checked]));

for (const size of SIZES) {
  test(`${size.name}: the household's shelf, the best next bottle, the shopping list and Mine`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "libations-hh-bar-"));
    const recipes = join(dir, "recipes.json");
    writeFileSync(recipes, JSON.stringify(SAMPLE));
    const serve = (login, grant) => startServer(["--local-identity", login, "--state-dir", join(dir, "state"),
      "--recipes-file", recipes, ...(grant ? ["--local-edit"] : [])]);
    let server = await serve(ALICE, true);
    let context = await size.open(browser);
    let watcher = await watch(context);
    const problems = [];
    try {
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
      let page = await context.newPage();
      await goShelf(page, server.url);
      assert.match(await page.locator("#bar-who").textContent(), /^alice: the shelf is the household's/);
      assert.equal(await page.isDisabled("#shelf input[value=gin]"), false, "Alice may tick");
      assert.equal(await page.isVisible("#shelf-rights"), false, "no read-only line for Alice");
      await until(() => counts(page), ["0", "0"], "an empty shelf makes nothing");

      // Alice ticks three bottles: each is a PUT /api/bar/shelf, answered with the shelf.
      const puts = [];
      page.on("response", (r) => { if (r.url().endsWith("/api/bar/shelf")) puts.push(r.status()); });
      for (const key of ["gin", "lime juice", "simple syrup"]) await (await shelfBox(page, key)).check();
      await until(() => puts, [200, 200, 200], "three shelf changes sent and answered");
      await until(() => counts(page), ["1", "1"], "Gimlet can be made; Daiquiri misses one");
      await until(() => bottles(page), [{ name: "White rum", recipes: [["Daiquiri", "/recipes/2"]] }], "the best next bottle");
      const stored = await page.evaluate(() => fetch("/api/bar").then((r) => r.json()));
      assert.deepEqual([...stored.shelf].sort(), ["gin", "lime juice", "simple syrup"], "the server holds the shelf");
      assert.equal(await page.evaluate(() => localStorage.getItem("libations-pending")), "[]", "nothing left waiting");
      assert.equal(await page.getAttribute("a[href='/?q=can:make']:has(#can-make-n)", "href"), "/?q=can:make");
      assert.equal(await page.getAttribute("a[href='/?q=missing:one']:has(#missing-one-n)", "href"), "/?q=missing:one");

      // The next bottle's recipe is one tap away.
      await page.locator("#next-bottles a", { hasText: "Daiquiri" }).click();
      await page.waitForURL(/\/recipes\/2$/);
      assert.equal(await page.locator("main h1 .name").textContent(), "Daiquiri");
      await goShelf(page, server.url);

      // The shopping list: add the next bottle and a typed item, tick one, copy, reload.
      const look = () => page.locator("#next-bottles button.add").evaluate((b) => {
        const s = getComputedStyle(b);
        return [s.color, s.backgroundColor, s.borderColor, s.cursor].join(" / ");
      });
      const enabledLook = await look();
      await page.locator("#next-bottles button.add").click();
      await until(() => shopping(page), [["White rum", false]], "the next bottle is on the list");
      assert.equal(await page.isDisabled("#next-bottles button.add"), true, "and its button says so");
      // Read once the list has settled (it is drawn again as the shopping list answers; a
      // button taken out of the page meanwhile has no computed style).
      const settled = async () => {
        const now = await look();
        return now !== " /  /  / " && now !== enabledLook && now.endsWith(" default");
      };
      await until(settled, true, `a button that can't be pressed looks unlike one that can, and has no pointer (${enabledLook})`);
      assert.match(await page.locator("#next-bottles button.add").textContent(), /On the shopping list/);
      await page.fill("#shop-item", "Limes");
      await page.press("#shop-item", "Enter");
      await page.fill("#shop-item", "white rum ");
      await page.locator("#shop-add button[type=submit]").click();
      assert.match(await page.locator("#shop-status").textContent(), /on the list already/);
      await page.locator("#shop-list li", { hasText: "Limes" }).locator("input").check();
      await until(() => shopping(page), [["White rum", false], ["Limes", true]], "Limes ticked off");
      await until(() => page.evaluate(() => fetch("/api/bar/shopping").then((r) => r.json()).then((j) => j.items.map((i) => [i.name, i.got]))),
        [["White rum", false], ["Limes", true]], "the household's list is on the server");
      await page.click("#shop-copy");
      await until(() => page.locator("#shop-status").textContent(), "Copied 1 item to the clipboard (ticked items left out).", "copied");
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "Shopping list\n- White rum\n");
      await page.reload();
      await page.locator("#bar-who").waitFor({ state: "visible" });
      await until(() => shopping(page), [["White rum", false], ["Limes", true]], "the list is kept after a reload");
      await page.locator("#shop-list li", { hasText: "Limes" }).locator("button.remove").click();
      await until(() => shopping(page), [["White rum", false]], "removed");

      // Alice's own: a favourite, and a rating and a note on Nojito (through the API, as the
      // recipe page's controls send them).
      const sent = await page.evaluate(async (nojito) => {
        const put = (path, body) => fetch(path, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.status);
        return [await put("/api/me/favourites/2", {}), await put("/api/me/ratings/" + nojito, { stars: 4 }),
          await put("/api/me/notes/" + nojito, { text: "less sugar next time" })];
      }, NOJITO);
      assert.deepEqual(sent, [200, 200, 200]);
      await goShelf(page, server.url);
      await until(() => page.locator("#mine a").evaluateAll((l) => l.map((a) => [a.textContent, a.getAttribute("href")])),
        [["Daiquiri", "/recipes/2"], ["Nojito", "/recipes/27"], ["Nojito", "/recipes/27"]], "Mine: favourite, rated, noted");
      assert.deepEqual(await axe(page), [], "axe: Alice's My bar");
      problems.push(...await watcher.problems());
      await context.close();
      await server.stop();

      // Bob, without the grant, on the same household: the same ticks, read-only.
      server = await serve(BOB, false);
      context = await size.open(browser);
      watcher = await watch(context);
      page = await context.newPage();
      await goShelf(page, server.url);
      await until(() => ticked(page), ["gin", "lime juice", "limes", "simple syrup"], "Bob sees Alice's ticks (Limes, bought from the list)");
      await until(() => counts(page), ["1", "1"], "and the same Can make and Missing one");
      assert.equal(await page.isDisabled("#shelf input[value=gin]"), true, "read-only for Bob");
      assert.match(await page.locator("#shelf-rights").textContent(), /can see the household's shelf but not change it/);
      await until(() => shopping(page), [["White rum", false]], "Bob's browser shows the household's list Alice made");
      assert.equal(await page.isDisabled("#shop-item"), true, "read-only for Bob");
      assert.equal(await page.locator("#shop-list button.remove").count(), 0, "no Remove for Bob");
      assert.deepEqual(await page.locator("#mine a").count(), 0, "Alice's own are not Bob's");
      assert.deepEqual(await axe(page), [], "axe: Bob's My bar");
      problems.push(...await watcher.problems());
      await context.close();
      await server.stop();

      // Bob granted now ticks White Rum: Alice then can make Daiquiri too. Nojito is taken
      // out of the recipes file before Alice comes back.
      server = await serve(BOB, true);
      context = await size.open(browser);
      watcher = await watch(context);
      page = await context.newPage();
      await goShelf(page, server.url);
      // Offline: the tick is kept on the device, counts at once, and is sent when back.
      await context.setOffline(true);
      await (await shelfBox(page, "white rum")).check();
      await until(() => counts(page), ["2", "1"], "Daiquiri can be made; Mojito misses mint");
      await until(() => page.locator("#pending").textContent(), "1 change waiting to be sent (offline)", "shown as waiting");
      assert.equal(await box(page, "white rum").isChecked(), true, "the tick stays while it waits");
      await context.setOffline(false);
      await until(() => page.evaluate(() => localStorage.getItem("libations-pending")), "[]", "sent once back");
      await until(() => page.evaluate(() => fetch("/api/bar").then((r) => r.json()).then((b) => b.shelf.includes("white rum"))), true, "stored");
      // Going offline makes the browser report the requests it could not make.
      problems.push(...await watcher.problems([/net::ERR_INTERNET_DISCONNECTED/, /Failed to load resource/]));
      await context.close();
      await server.stop();
      writeFileSync(recipes, JSON.stringify(SAMPLE.filter((r) => r.id !== NOJITO)));

      server = await serve(ALICE, true);
      context = await size.open(browser);
      watcher = await watch(context);
      page = await context.newPage();
      await goShelf(page, server.url);
      await until(() => ticked(page), ["gin", "lime juice", "limes", "simple syrup", "white rum"], "Alice sees Bob's tick");
      await until(() => counts(page), ["2", "1"], "and Can make changed");
      await until(() => page.locator("#mine li.gone").evaluateAll((l) => l.map((li) => li.textContent)),
        ["Recipe removed (no. 27) ★★★★☆4 starsless sugar next time", "Recipe removed (no. 27) ★★★★☆4 starsless sugar next time"],
        "the removed recipe stays in Mine, its rating and note with it");
      assert.deepEqual(await page.locator("#mine a").evaluateAll((l) => l.map((a) => a.textContent)), ["Daiquiri"]);
      assert.deepEqual(await axe(page), [], "axe: a removed recipe");
      problems.push(...await watcher.problems());
      assert.deepEqual(problems, [], "no console errors");
    } finally {
      await context.close().catch(() => {});
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test("an unknown visitor keeps the shelf on the device, and is told why", async () => {
  const server = await startServer(); // --local without --state-dir: nobody is known
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await goShelf(page, server.url);
    assert.match(await page.locator("#bar-who").textContent(), /Nothing here follows you to another device/);
    assert.equal(await page.locator("#why").isHidden(), true, "said once, under the title, not again in the footer");
    await (await shelfBox(page, "gin")).check();
    await (await shelfBox(page, "lime juice")).check();
    await (await shelfBox(page, "simple syrup")).check();
    await until(() => counts(page), ["1", "1"], "worked out on the device");
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("libations")).shelf.sort());
    assert.deepEqual(stored, ["gin", "lime juice", "simple syrup"]);
    assert.equal(await page.evaluate(() => localStorage.getItem("libations-pending") ?? "[]"), "[]", "nothing sent");
    assert.match(await page.locator("#move-h").textContent(), /Move to another phone/);
    assert.deepEqual(await axe(page), [], "axe");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
  }
});

test("a person imports an old export file: its favourites join theirs, its bottles are offered to the shelf", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-hh-bar-"));
  const server = await startServer(["--local-identity", ALICE, "--state-dir", dir, "--local-edit"]);
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await goShelf(page, server.url);
    assert.equal(await page.evaluate(() => fetch("/api/me/favourites/1", { method: "PUT" }).then((r) => r.status)), 200);
    assert.match(await page.locator("#move-h").textContent(), /Move this device's own choices/);
    const asked = [];
    page.on("dialog", (d) => { asked.push(d.message()); d.accept(); });
    const file = { version: 1, units: "oz", shelf: ["Campari", "gin"], favourites: [2, 5, 9999] };
    await page.setInputFiles("#import", { name: "libations-bar.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(file)) });
    await until(() => page.locator("#bar-status").textContent(),
      "Imported libations-bar.json: amounts in oz on this device; 2 favourites joined yours; 1 favourite is not in this collection and was left out (ids 9999); 2 ticked bottles added to the household's shelf.",
      "what happened to each part");
    assert.deepEqual(asked, ["Add the 2 ticked bottles in libations-bar.json to the household's shelf? campari, gin"]);
    await until(() => page.evaluate(() => localStorage.getItem("libations-pending")), "[]", "sent");
    const me = await page.evaluate(() => fetch("/api/me").then((r) => r.json()));
    assert.deepEqual([...me.favourites].sort((a, b) => a - b), [1, 2, 5], "a union: Alice's own favourite stays");
    const shelf = await page.evaluate(() => fetch("/api/bar").then((r) => r.json()).then((b) => b.shelf.sort()));
    assert.deepEqual(shelf, ["campari", "gin"]);
    assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem("libations")).units), "oz", "units stay per device");
    await until(() => ticked(page), ["campari", "gin"], "the page shows the household's shelf");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a tick the server refuses (the grant taken away meanwhile) is undone, and the page says why", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-hh-bar-"));
  const args = ["--local-identity", ALICE, "--state-dir", dir];
  let server = await startServer([...args, "--local-edit"]);
  const addr = new URL(server.base).host;
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await goShelf(page, server.url);
    assert.equal(await page.isDisabled("#shelf input[value=gin]"), false, "granted when the page was read");
    await server.stop();
    server = await startServer(args, { addr }); // the same address, without the grant
    await (await shelfBox(page, "gin")).click(); // not check(): the refusal may untick it before that looks
    await until(() => box(page, "gin").isChecked(), false, "the box shows the server's shelf again");
    await until(() => page.locator("#shelf-rights:visible").textContent().then((t) => t.startsWith("Not saved: ")), true,
      "the refusal is shown by the shelf, and stays");
    assert.deepEqual(await page.evaluate(() => fetch("/api/bar").then((r) => r.json()).then((b) => b.shelf)), []);
    assert.equal(await page.evaluate(() => localStorage.getItem("libations-pending")), "[]", "not kept for later: refused");
    // The browser reports the refused request itself.
    assert.deepEqual(await watcher.problems([/status of 403/]), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

// #43 item 12: without JavaScript My bar showed nothing ticked. A known person's page now
// comes with the household's shelf ticked by the server (an older spelling ticks its
// bottle), counted per kind and in all; the device-only sections (units, standard drink,
// moving a phone) are not shown, since nothing there works without JavaScript.
test("without JavaScript, a person's My bar shows the household's shelf ticked", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-hh-nojs-"));
  const recipes = join(dir, "recipes.json");
  writeFileSync(recipes, JSON.stringify(SAMPLE));
  const server = await startServer(["--local-identity", ALICE, "--local-edit", "--state-dir", join(dir, "state"), "--recipes-file", recipes]);
  try {
    const withJs = await phone(browser);
    const page = await withJs.newPage();
    await page.goto(server.url("/shelf"));
    const status = await page.evaluate(() => fetch("/api/bar/shelf", {
      method: "PUT", headers: { "content-type": "application/json" },
      body: JSON.stringify({ have: ["gin", "sugar syrup"], out: [] }),
    }).then((r) => r.status));
    assert.equal(status, 200);
    await withJs.close();

    const plain = await phone(browser, { javaScriptEnabled: false });
    const noJs = await plain.newPage();
    const response = await noJs.goto(server.url("/shelf"));
    assert.match(response.headers()["cache-control"], /private/, "a person's page is theirs");
    assert.deepEqual(await ticked(noJs), ["gin", "simple syrup"], "the shelf as the household has it");
    const total = await noJs.locator("#shelf input[type=checkbox]").count();
    assert.equal(await noJs.locator("#shelf-count").textContent(), `The household's shelf: 2 of ${total} bottles ticked`);
    const kinds = await noJs.locator("#shelf details.kind").evaluateAll((ds) => ds
      .map((d) => [d.querySelector(".kind-name").textContent, d.querySelector(".kind-n").textContent])
      .filter(([, n]) => n !== ""));
    assert.equal(kinds.reduce((sum, [, n]) => sum + Number.parseInt(n, 10), 0), 2, JSON.stringify(kinds));
    for (const id of ["units-choice", "drink-choice", "export"]) {
      assert.equal(await noJs.locator("#" + id).isVisible(), false, `#${id} needs JavaScript and is not shown`);
    }
    await plain.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
