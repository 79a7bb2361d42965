// Editing on a phone (390×844): add a recipe with three ingredients with and without
// JavaScript, find it by search, delete it and undo that, two tabs that disagree, and a
// draft that survives going offline. The form must fit the phone and pass axe.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launch, phone, startServer, watch } from "./lib/browser.mjs";
import { axe, fitsWidth } from "./lib/checks.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A server editing a fresh copy of the sample collection. */
async function editable() {
  const dir = mkdtempSync(join(tmpdir(), "libations-edit-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  const server = await startServer(["--recipes-file", file, "--allow-edits", "--local-edit"]);
  return {
    server,
    file,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function fillRecipe(page, name) {
  await page.fill("#name", name);
  await page.fill("#base", "Gin");
  await page.fill("#glass", "Coupe");
  const rows = [["Gin", "50", "ml"], ["Blackberry Liqueur", "15", "ml"], ["Lemon Juice", "25", "ml"]];
  for (const [i, [ingredient, measure, unit]] of rows.entries()) {
    const row = page.locator(".ing-row").nth(i);
    await row.locator("[name=ing-measure]").fill(measure);
    await row.locator("[name=ing-unit]").fill(unit);
    await row.locator("[name=ing-name]").fill(ingredient);
  }
  await page.fill("#notes", "Drizzle the liqueur over crushed ice.");
}

test("with JavaScript: add a recipe, find it, delete it and undo the delete", async () => {
  const app = await editable();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/new"));
    assert.ok(await fitsWidth(page), "the form fits the phone");
    assert.deepEqual(await axe(page), [], "axe on the empty form");
    await fillRecipe(page, "Browser Bramble");
    await page.click("button.save");
    await page.waitForURL(/\/recipes\/\d+\?saved=\d+$/, { timeout: 10_000 });
    assert.equal(await page.locator("h1 .name").textContent(), "Browser Bramble");
    assert.equal(await page.locator(".ingredients tbody tr").count(), 3);
    assert.ok(await page.locator(".saved-note button").isVisible(), "Undo after the save");
    const id = new URL(page.url()).pathname.split("/").pop();

    // Search as you type finds it.
    await page.goto(app.server.url("/"));
    await page.fill("#q", "bramble");
    await page.locator(`#recipes li:not([hidden]) a[href="/recipes/${id}"]`).waitFor({ timeout: 10_000 });

    // Delete, then undo from the history.
    await page.goto(app.server.url(`/recipes/${id}`));
    await page.click("button.danger");
    await page.waitForURL(/\/changes\?done=\d+$/);
    assert.match(await page.locator(".notice").textContent(), /deleted Browser Bramble/);
    assert.equal((await fetch(app.server.url(`/api/recipes/${id}`))).status, 404);
    assert.deepEqual(await axe(page), [], "axe on the history");
    await page.locator(".change-list li").first().locator("button").click();
    await page.waitForURL(/\/changes\?done=\d+$/);
    assert.equal((await fetch(app.server.url(`/api/recipes/${id}`))).status, 200, "undo brought it back");
    const onDisk = JSON.parse(readFileSync(app.file, "utf8"));
    assert.ok(onDisk.some((r) => r.name === "Browser Bramble"), "and it is in the file");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("without JavaScript: add a row, save, see the problems, save again", async () => {
  const app = await editable();
  const context = await phone(browser, { javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/new"));
    const before = await page.locator(".ing-row").count();
    await page.click("button.add-row");
    await page.waitForLoadState();
    assert.equal(await page.locator(".ing-row").count(), before + 1, "a row more, from the server");
    await fillRecipe(page, "");
    await page.click("button.save");
    await page.waitForLoadState();
    assert.ok(await page.locator("#name-error").isVisible(), "the name's problem is next to it");
    assert.equal(await page.locator("#name").getAttribute("aria-invalid"), "true");
    assert.equal(await page.locator(".ing-row [name=ing-name]").first().inputValue(), "Gin", "typing kept");
    await page.fill("#name", "Plain Bramble");
    await page.click("button.save");
    await page.waitForURL(/\/recipes\/\d+\?saved=\d+$/);
    assert.equal(await page.locator("h1 .name").textContent(), "Plain Bramble");
    const all = await (await fetch(app.server.url("/api/recipes?q=plain+bramble"))).json();
    assert.equal(all.length, 1);
    assert.equal(all[0].ingredients.length, 3);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("two tabs editing one recipe: the second sees both versions and chooses", async () => {
  const app = await editable();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const [a, b] = [await context.newPage(), await context.newPage()];
    for (const page of [a, b]) await page.goto(app.server.url("/recipes/1/edit"));
    await a.fill("#notes", "Tab A's notes.");
    await a.click("button.save");
    await a.waitForURL(/saved=/);
    await b.fill("#name", "Negroni (tab B)");
    await b.click("button.save");
    const box = b.locator(".conflict-js");
    await box.waitFor({ state: "visible", timeout: 10_000 });
    assert.match(await box.textContent(), /Tab A's notes\./, "theirs is shown");
    assert.equal(await b.inputValue("#name"), "Negroni (tab B)", "mine is still in the form");
    await box.locator("button", { hasText: "Save mine over theirs" }).click();
    await b.waitForURL(/saved=/);
    const saved = await (await fetch(app.server.url("/api/recipes/1"))).json();
    assert.equal(saved.name, "Negroni (tab B)");
    // 409 is the expected answer the page handled; the browser logs it as a failed load.
    assert.deepEqual(await watcher.problems([/409/]), []);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("offline, the form keeps the draft on the phone instead of losing it", async () => {
  const app = await editable();
  const context = await phone(browser);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/new"));
    await fillRecipe(page, "Offline Sour");
    await context.setOffline(true);
    await page.click("button.save");
    const status = page.locator(".form-status");
    await status.waitFor({ state: "visible" });
    assert.match(await status.textContent(), /offline.*draft is kept/i);
    await context.setOffline(false);
    await page.reload();
    assert.equal(await page.inputValue("#name"), "Offline Sour", "the draft came back");
    assert.equal(await page.locator(".ing-row [name=ing-name]").nth(2).inputValue(), "Lemon Juice");
    assert.match(await status.textContent(), /draft/);
    const all = await (await fetch(app.server.url("/api/recipes?q=offline+sour"))).json();
    assert.equal(all.length, 0, "nothing was saved while offline");
  } finally {
    await context.close();
    await app.stop();
  }
});

test("a draft restored after someone else saved is a conflict, never a silent overwrite", async () => {
  const app = await editable();
  const context = await phone(browser);
  const someoneElse = await phone(browser);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/2/edit"));
    await page.fill("#notes", "My draft notes.");
    await page.close();
    // Someone else, on another phone, saves recipe 2 meanwhile.
    const other = await someoneElse.newPage();
    await other.goto(app.server.url("/recipes/2/edit"));
    await other.fill("#name", "Renamed by someone else");
    await other.click("button.save");
    await other.waitForURL(/saved=/);
    // Back on the first phone: the draft is restored, and saving it shows both versions.
    const back = await context.newPage();
    await back.goto(app.server.url("/recipes/2/edit"));
    assert.equal(await back.inputValue("#notes"), "My draft notes.", "the draft came back");
    await back.click("button.save");
    const box = back.locator(".conflict-js");
    await box.waitFor({ state: "visible", timeout: 10_000 });
    assert.match(await box.textContent(), /Renamed by someone else/);
    const saved = await (await fetch(app.server.url("/api/recipes/2"))).json();
    assert.equal(saved.name, "Renamed by someone else", "nothing was overwritten");
  } finally {
    await someoneElse.close();
    await context.close();
    await app.stop();
  }
});

test("with JavaScript: a second recipe of a name is asked about; ticking the box saves it", async () => {
  const app = await editable();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/new"));
    await fillRecipe(page, "negroni");
    await page.click("button.save");
    const already = page.locator(".already");
    await already.waitFor({ state: "visible", timeout: 10_000 });
    assert.match(await already.textContent(), /A recipe called “negroni” is already here: open it\. Nothing was saved\./);
    assert.equal(await already.locator("a").getAttribute("href"), "/recipes/1");
    const names = () => JSON.parse(readFileSync(app.file, "utf8")).filter((r) => r.name.toLowerCase() === "negroni").length;
    assert.equal(names(), 1, "nothing saved yet");
    const box = await already.locator("label").boundingBox();
    assert.ok(box.height >= 44, `the box to tick is a tap target (${box.height}px)`);
    assert.deepEqual(await axe(page), [], "axe with the question shown");
    await already.locator("input[name=duplicate]").check();
    await page.click("button.save");
    await page.waitForURL(/\/recipes\/\d+\?saved=\d+$/, { timeout: 10_000 });
    assert.equal(names(), 2, "saved once it was meant");
    // The 409 is the question the page handled; the browser logs it as a failed load.
    assert.deepEqual(await watcher.problems([/409/]), []);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("Recent changes on a phone set elsewhere: each time in the phone's own zone", async () => {
  const app = await editable();
  const timezoneId = "Pacific/Auckland";
  const context = await phone(browser, { timezoneId, locale: "en-NZ" });
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/new"));
    await fillRecipe(page, "Auckland Bramble");
    await page.click("button.save");
    await page.waitForURL(/\/recipes\/\d+\?saved=\d+$/, { timeout: 10_000 });
    await page.goto(app.server.url("/changes"));
    const time = page.locator(".change-list time").first();
    const iso = await time.getAttribute("datetime");
    const want = new Intl.DateTimeFormat("en-NZ", { dateStyle: "medium", timeStyle: "short", timeZone: timezoneId }).format(new Date(iso));
    assert.equal(await time.textContent(), want, "shown in the phone's zone");
    assert.ok(!want.includes("UTC"));
    assert.deepEqual(await axe(page), [], "axe on the history");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("a recipes file that cannot be written: the editor is told on the page, not only in the log", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-readonly-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  chmodSync(file, 0o444);
  const server = await startServer(["--recipes-file", file, "--allow-edits", "--local-edit"]);
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(server.url("/recipes/1"));
    const notice = page.locator(".editing-off");
    assert.ok(await notice.isVisible(), "the notice is shown");
    assert.match(await notice.textContent(), /^Editing is off: .*recipes\.json/);
    assert.equal(await page.locator('a[href="/recipes/1/edit"]').count(), 0, "no Edit that would fail");
    assert.deepEqual(await axe(page), [], "axe with the notice");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a measure that is no amount is named on its row, never saved as nothing", async () => {
  const app = await editable();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/new"));
    await fillRecipe(page, "Sixty Bramble");
    await page.locator(".ing-row").nth(0).locator("[name=ing-measure]").fill("sixty");
    await page.click("button.save");
    const problems = page.locator(".problems");
    await problems.waitFor({ state: "visible", timeout: 10_000 });
    assert.match(await problems.textContent(), /“sixty” is not an amount/);
    assert.match(await problems.textContent(), /ingredients\[0\]\.measure|row 1|Gin/i);
    const onDisk = JSON.parse(readFileSync(app.file, "utf8"));
    assert.ok(!onDisk.some((r) => r.name === "Sixty Bramble"), "nothing saved");
    assert.deepEqual(await watcher.problems([/422/]), []);
  } finally {
    await context.close();
    await app.stop();
  }
});
