// Adding recipes from elsewhere on a phone (390×844): a link to a page served on
// 127.0.0.1 (allowed with --import-allow-host) opens the form filled in, edited and saved;
// a file of five recipes is read into a list, two are chosen and added as one change, and
// one Undo in Recent changes takes both back. No console errors, no CSP violations.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launch, phone, startServer, watch } from "./lib/browser.mjs";
import { axe, fitsWidth } from "./lib/checks.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// A recipe page as recipe sites write them: schema.org Recipe in JSON-LD.
const PAGE = `<!doctype html><html><head><title>Whiskey Sour</title>
<script type="application/ld+json">${JSON.stringify({
  "@context": "https://schema.org",
  "@type": "Recipe",
  name: "Browser Whiskey Sour",
  recipeCategory: "Cocktail",
  recipeIngredient: ["2 oz bourbon", "3/4 oz fresh lemon juice", "3/4 oz simple syrup", "1 egg white"],
  recipeInstructions: [{ "@type": "HowToStep", text: "Dry shake, then shake with ice and strain." }],
})}</script></head><body><h1>Whiskey Sour</h1></body></html>`;

// A page of three recipes without a base: the server's list to choose from.
const THREE = `<!doctype html><html><head><title>Three</title>
<script type="application/ld+json">${JSON.stringify([1, 2, 3].map((i) => ({
  "@context": "https://schema.org", "@type": "Recipe", name: `Linked ${i}`,
  recipeIngredient: ["2 oz gin", "4 oz tonic water"],
})))}</script></head><body></body></html>`;

/** A page server on 127.0.0.1. */
async function pages() {
  const server = createServer((req, res) => {
    if (req.url === "/sour.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(PAGE);
    } else if (req.url === "/three.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(THREE);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: (p) => `http://127.0.0.1:${server.address().port}${p}`, close: () => server.close() };
}

async function editable() {
  const dir = mkdtempSync(join(tmpdir(), "libations-import-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  const server = await startServer([
    "--recipes-file", file, "--allow-edits", "--local-edit", "--import-allow-host", "127.0.0.1",
  ]);
  return {
    server,
    file,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test("add from a link: the form comes filled in, is edited and saved, and shared", async () => {
  const app = await editable();
  const site = await pages();
  const context = await phone(browser, { permissions: ["clipboard-read", "clipboard-write"] });
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/import"));
    assert.ok(await fitsWidth(page), "the page fits the phone");
    assert.deepEqual(await axe(page), [], "axe on the import page");
    await page.fill("#source", site.url("/sour.html"));
    await page.click("form.import-link button[type=submit]");
    await page.locator("form.edit").waitFor({ timeout: 15_000 });
    assert.equal(await page.inputValue("#name"), "Browser Whiskey Sour");
    assert.ok(await page.locator(".guesses").isVisible(), "what was guessed is shown");
    assert.match(await page.inputValue("#notes"), /Source: http:\/\/127\.0\.0\.1:\d+\/sour\.html$/);
    const names = await page.locator("[name=ing-name]").evaluateAll((inputs) => inputs.map((i) => i.value));
    assert.ok(names.some((n) => /bourbon/i.test(n)), `${names}`);
    assert.ok(await fitsWidth(page), "the filled form fits the phone");
    assert.equal((await (await fetch(app.server.url("/api/changes"))).json()).changes.length, 0, "nothing saved yet");
    await page.fill("#name", "Browser Sour, mine");
    await page.fill("#glass", "Coupe");
    await page.click("button.save");
    await page.waitForURL(/\/recipes\/\d+\?saved=\d+$/, { timeout: 10_000 });
    assert.equal(await page.locator("h1 .name").textContent(), "Browser Sour, mine");
    const onDisk = JSON.parse(readFileSync(app.file, "utf8"));
    const saved = onDisk.find((r) => r.name === "Browser Sour, mine");
    assert.ok(saved, "in the file");
    assert.deepEqual(saved.glass, ["Coupe"]);
    // Share: no share sheet on this desktop browser, so the card goes to the clipboard.
    const share = page.locator(".single .share");
    assert.ok(await share.isVisible(), "Share is offered");
    await share.click();
    await page.locator(".single .share-status", { hasText: "Copied." }).waitFor({ timeout: 5_000 });
    const card = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(card, /^Browser Sour, mine\n• .*bourbon/i);
    assert.ok(card.trimEnd().endsWith(new URL(page.url()).pathname), card);
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    site.close();
    await app.stop();
  }
});

test("upload a file: choose two of five, add them as one change, undo", async () => {
  const app = await editable();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const five = [1, 2, 3, 4, 5].map((i) => ({
      name: `Uploaded ${i}`,
      base: ["Gin"],
      ingredients: [{ name: "Gin", measure: "50", unit: "ml" }, { name: "Tonic", measure: "100", unit: "ml" }],
    }));
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/import"));
    await page.setInputFiles("#import-file", {
      name: "five.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(five)),
    });
    const boxes = page.locator(".import-choices input[name=pick]");
    await boxes.first().waitFor({ timeout: 15_000 });
    assert.equal(await boxes.count(), 5);
    for (const i of [0, 2, 4]) await boxes.nth(i).uncheck();
    const add = page.locator(".import-choices button.save");
    assert.equal(await add.textContent(), "Add 2");
    assert.ok(await fitsWidth(page), "the list fits the phone");
    assert.deepEqual(await axe(page), [], "axe on the list");
    await add.click();
    await page.waitForURL(/\/changes\?done=\d+$/, { timeout: 10_000 });
    assert.match(await page.locator(".notice").textContent(), /Uploaded 2 and 1 more/);
    const names = () => JSON.parse(readFileSync(app.file, "utf8")).map((r) => r.name).filter((n) => n.startsWith("Uploaded"));
    assert.deepEqual(names().sort(), ["Uploaded 2", "Uploaded 4"]);
    const history = (await (await fetch(app.server.url("/api/changes"))).json()).changes;
    assert.equal(history.length, 1, "one change");
    await page.locator(".change-list li").first().locator("button").click();
    await page.waitForURL(/\/changes\?done=\d+$/);
    assert.deepEqual(names(), [], "one undo took both back");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("Share → Libations: the manifest's share target opens Add from a link with the shared page's address", async () => {
  const app = await editable();
  const site = await pages();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const manifest = await (await fetch(app.server.url("/manifest.webmanifest"))).json();
    const target = manifest.share_target;
    assert.ok(target, "the manifest has a share_target");
    assert.equal(target.method, "GET");
    // As Android's share sheet sends it: the address inside the shared text, no url.
    const shared = new URL(app.server.url(target.action));
    shared.searchParams.set(target.params.title, "Whiskey Sour");
    shared.searchParams.set(target.params.text, `Look at this ${site.url("/sour.html")}`);
    const page = await context.newPage();
    await page.goto(shared.href);
    assert.equal(await page.inputValue("#source"), site.url("/sour.html"), "the link is in the field");
    await page.click("form.import-link button[type=submit]");
    await page.locator("form.edit").waitFor({ timeout: 15_000 });
    assert.equal(await page.inputValue("#name"), "Browser Whiskey Sour");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    site.close();
    await app.stop();
  }
});

test("a file of one recipe says '1 recipe', not '1 recipes'", async () => {
  const app = await editable();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/import"));
    const one = [{ name: "Moscow Mule, mine", base: ["Vodka"], ingredients: [{ name: "Vodka", measure: "50", unit: "ml" }] }];
    await page.setInputFiles("#import-file", { name: "moscow-mule.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(one)) });
    await page.locator(".import-choices input[name=pick]").first().waitFor({ timeout: 15_000 });
    assert.match(await page.locator(".import-choices").textContent(), /\b1 recipe in moscow-mule\.json\. Choose/);
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("choosing 3 of 16 takes 4 taps (Select none, then 3); a guess made of every row is said once", async () => {
  const app = await editable();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    // JSON-LD as recipe sites write it, with no base: guessed from the ingredients, for each.
    const sixteen = Array.from({ length: 16 }, (_, i) => ({
      "@context": "https://schema.org", "@type": "Recipe", name: `Sixteen ${i + 1}`,
      recipeIngredient: ["2 oz gin", "4 oz tonic water"],
      recipeInstructions: "Build over ice in a highball glass.",
    }));
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/import"));
    await page.setInputFiles("#import-file", { name: "sixteen.jsonld", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(sixteen)) });
    const boxes = page.locator(".import-choices input[name=pick]");
    await boxes.first().waitFor({ timeout: 15_000 });
    assert.equal(await boxes.count(), 16);
    const text = await page.locator(".import-choices").textContent();
    assert.equal(text.match(/base guessed from the ingredients/g)?.length, 1, `said once: ${text}`);
    assert.match(await page.locator(".import-choices .guess.shared").textContent(), /base guessed from the ingredients \(every recipe\)/);
    assert.equal(await page.locator(".import-choices .choices .guess").count(), 0, "no row repeats it");
    let taps = 0;
    const toggle = page.locator(".import-choices button.select-all");
    assert.equal(await toggle.textContent(), "Select none");
    await toggle.tap(); taps++;
    assert.equal(await page.locator(".import-choices input[name=pick]:checked").count(), 0, "none ticked");
    assert.equal(await toggle.textContent(), "Select all");
    for (const i of [2, 7, 11]) { await boxes.nth(i).tap(); taps++; }
    assert.ok(taps <= 4, `${taps} taps`);
    const add = page.locator(".import-choices button.save");
    assert.equal(await add.textContent(), "Add 3");
    assert.ok(await fitsWidth(page), "the list fits the phone");
    assert.deepEqual(await axe(page), [], "axe on the list with its toggle");
    await add.click();
    await page.waitForURL(/\/changes\?done=\d+$/, { timeout: 10_000 });
    const names = JSON.parse(readFileSync(app.file, "utf8")).map((r) => r.name).filter((n) => n.startsWith("Sixteen"));
    assert.deepEqual(names.sort(), ["Sixteen 12", "Sixteen 3", "Sixteen 8"]);
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await app.stop();
  }
});

test("a page of several recipes: the server's list says a shared guess once and offers Select none", async () => {
  const app = await editable();
  const site = await pages();
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(app.server.url("/recipes/import"));
    await page.fill("#source", site.url("/three.html"));
    await page.click("form.import-link button[type=submit]");
    const boxes = page.locator("form.import-choose input[name=pick]");
    await boxes.first().waitFor({ timeout: 15_000 });
    assert.equal(await boxes.count(), 3);
    const text = await page.locator("form.import-choose").textContent();
    assert.equal(text.match(/base guessed from the ingredients/g)?.length, 1, `said once: ${text}`);
    assert.match(await page.locator("form.import-choose .guess.shared").textContent(), /base guessed from the ingredients \(every recipe\)/);
    const toggle = page.locator("form.import-choose button.select-all");
    await toggle.tap();
    assert.equal(await page.locator("form.import-choose input[name=pick]:checked").count(), 0);
    await boxes.nth(1).tap();
    await page.click("form.import-choose button.save");
    await page.waitForURL(/\/changes\?done=\d+$/, { timeout: 10_000 });
    const names = JSON.parse(readFileSync(app.file, "utf8")).map((r) => r.name).filter((n) => n.startsWith("Linked"));
    assert.deepEqual(names, ["Linked 2"]);
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    site.close();
    await app.stop();
  }
});
