// How strong is it, at 390×844: a recipe opened in its row shows the strength line on one
// line, within the screen; tapping it opens the working and tapping again closes it; the
// standard drink is 10 g, as without JavaScript, on every phone until its owner chooses,
// and the line names it; Light, abv: and
// sort:abv work without JavaScript (the server answers), and Light toggles with it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, phone, settle, startServer, watch } from "./lib/browser.mjs";

let browser, server, recipes;
before(async () => {
  browser = await launch();
  server = await startServer();
  recipes = await (await fetch(server.url("/api/recipes"))).json();
});
after(async () => { await server?.stop(); await browser?.close(); });

const named = (name) => recipes.find((r) => r.name === name);

async function openRow(page, id) {
  await page.locator(`#recipes > li[data-id="${id}"] > a.row`).tap();
  await page.waitForSelector(`#recipes > li.open[data-id="${id}"] details.strength`);
  await settle(page);
}

test("the line fits on the opened recipe, and the working opens and closes", async () => {
  const context = await phone(browser, { locale: "en-AU" });
  const watcher = await watch(context);
  const page = await context.newPage();
  await page.goto(server.url("/"));
  await page.waitForSelector("#recipes a.row[aria-expanded]");
  const strong = recipes.filter((r) => r.strength.abv !== null).sort((a, b) => b.ingredients.length - a.ingredients.length)[0];
  await openRow(page, strong.id);
  const line = page.locator(`#recipes > li.open details.strength > summary`);
  const box = await line.boundingBox();
  const lineHeight = await line.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
  // Its text on one line (the summary itself is a 44 px tap target, taller than its line).
  const textHeight = await line.evaluate((el) => { const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect().height; });
  assert.ok(textHeight <= lineHeight * 1.5, `one line: ${textHeight}px, a line ${lineHeight}px`);
  assert.ok(box.height >= 44, `a 44 px target: ${box.height}px`);
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `within the width: ${JSON.stringify(box)}`);
  assert.ok(box.y + box.height <= 844, `within the screen: ${JSON.stringify(box)}`);
  const text = (await line.textContent()).trim();
  assert.match(text, /^≈ \d+% ABV · \d+\+? ml · \d+\.\d\+? std drinks? \(10 g\)$/, text);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, "no sideways scrolling");
  // Closed, the working takes no room; a tap opens it, another closes it.
  const working = page.locator("#recipes > li.open details.strength .working");
  assert.equal(await working.isVisible(), false);
  await line.tap();
  await working.waitFor({ state: "visible" });
  assert.equal(await working.locator("li").count(), strong.ingredients.length, "a line per ingredient");
  assert.match(await page.locator("#recipes > li.open details.strength").textContent(), /pour responsibly/);
  await line.tap();
  await working.waitFor({ state: "hidden" });
  // ×2: twice the volume and the drinks, the same ABV.
  await page.locator(`#recipes > li.open .seg.serves a[data-serves="2"]`).tap();
  await page.waitForFunction(() => /·/.test(document.querySelector("#recipes > li.open details.strength > summary").textContent)
    && document.querySelector(`#recipes > li.open .seg.serves a[data-serves="2"]`).getAttribute("aria-current") === "true");
  const doubled = (await line.textContent()).trim();
  assert.equal(doubled.split(" · ")[0], text.split(" · ")[0], "the same ABV");
  assert.notEqual(doubled, text);
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});

test("the standard drink: 10 g on every phone, as without JavaScript, until its owner chooses", async () => {
  const daiquiri = named("Daiquiri") || recipes.find((r) => r.strength.standard_drinks > 1);
  const line = async (locale, stored, javaScriptEnabled = true) => {
    const context = await phone(browser, { locale, javaScriptEnabled });
    if (stored) {
      await context.addInitScript((drink) => {
        if (location.protocol !== "http:") return;
        localStorage.setItem("libations", JSON.stringify({ version: 1, units: null, shelf: [], favourites: [], drink }));
      }, stored);
    }
    const page = await context.newPage();
    await page.goto(server.url("/recipes/" + daiquiri.id));
    if (javaScriptEnabled) {
      await page.waitForFunction(() => document.documentElement.classList.contains("js"));
      await settle(page);
    }
    const text = (await page.locator(".single details.strength > summary").textContent()).trim();
    const standard = (await page.locator(".single details.strength .standard").textContent()).trim();
    await context.close();
    return { text, standard };
  };
  const drinks = (text) => Number(/· ([\d.]+)\+? std drinks? \((\d+) g\)$/.exec(text)[1]);
  const served = await line("en-US", null, false);
  for (const locale of ["en-AU", "en-GB", "en-US"]) {
    const shown = await line(locale);
    assert.equal(shown.text, served.text, `${locale}: the same line as the server's`);
    assert.match(shown.standard, /^1 drink = 10 g/);
  }
  assert.match(served.text, / std drinks? \(10 g\)$/, "the server names the standard");
  const uk = await line("en-US", 8);
  const us = await line("en-GB", 14);
  assert.match(uk.standard, /^1 drink = 8 g/, "the owner's choice");
  assert.match(uk.text, /\(8 g\)$/);
  assert.match(us.text, /\(14 g\)$/);
  assert.ok(drinks(uk.text) > drinks(served.text) && drinks(served.text) > drinks(us.text), `${uk.text} / ${served.text} / ${us.text}`);
});

test("without JavaScript: Light, abv: and sort:abv are answered by the server", async () => {
  const context = await phone(browser, { javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(server.url("/"));
  const light = page.locator('.filters a[data-term="abv:<=10"]');
  assert.equal(await light.isVisible(), true, "Light shows without JavaScript");
  assert.equal(await page.locator('.filters a[data-term="is:fav"]').isVisible(), false, "the device's filters do not");
  await light.tap();
  await page.waitForURL(/q=abv/);
  const shown = await page.locator("#recipes > li").evaluateAll((lis) => lis.map((li) => Number(li.dataset.id)));
  const want = recipes.filter((r) => r.strength.abv !== null && r.strength.abv <= 10).map((r) => r.id);
  assert.deepEqual(shown, want);
  await page.goto(server.url("/?q=" + encodeURIComponent("abv:>=25 sort:-abv")));
  const strong = await page.locator("#recipes > li").evaluateAll((lis) => lis.map((li) => Number(li.dataset.id)));
  const wantStrong = recipes.filter((r) => r.strength.abv >= 25).sort((a, b) => b.strength.abv - a.strength.abv).map((r) => r.id);
  assert.deepEqual(strong, wantStrong);
  // The recipe page's working opens without JavaScript.
  await page.goto(server.url("/recipes/" + recipes[0].id));
  await page.locator(".single details.strength > summary").tap();
  await page.locator(".single details.strength .working").waitFor({ state: "visible" });
  await context.close();
});

test("with JavaScript, Light filters the list as you tap it, and again to undo", async () => {
  const context = await phone(browser);
  const page = await context.newPage();
  await page.goto(server.url("/"));
  await page.waitForSelector("#recipes a.row[aria-expanded]");
  const light = page.locator('.filters a[data-term="abv:<=10"]');
  await light.tap();
  await page.waitForFunction(() => document.querySelector('.filters a[data-term="abv:<=10"]').getAttribute("aria-current") === "true");
  assert.equal(await page.inputValue("#q"), "abv:<=10");
  const want = recipes.filter((r) => r.strength.abv !== null && r.strength.abv <= 10).length;
  await page.waitForFunction((n) => document.querySelectorAll("#recipes > li:not([hidden])").length === n, want);
  await light.tap();
  await page.waitForFunction(() => document.querySelector("#q").value === "");
  await context.close();
});

// abv:abc is not "No recipe matches" alone: the page says what abv: takes, with and
// without JavaScript, and the usual "Try one word" comes back once the term is a number.
for (const js of [true, false]) {
  test(`abv:abc says abv: takes a number (${js ? "with" : "without"} JavaScript)`, async () => {
    const context = await phone(browser, { javaScriptEnabled: js });
    const page = await context.newPage();
    const why = page.locator("#empty-why");
    const said = "abv: takes a number, as in abv:<=10, abv:>20 or abv:15; “abc” is not one.";
    if (js) {
      await page.goto(server.url("/"));
      await page.waitForSelector("#recipes a.row[aria-expanded]");
      await page.fill("#q", "abv:abc");
    } else {
      await page.goto(server.url("/?q=abv:abc"));
    }
    await why.waitFor({ state: "visible" });
    assert.equal(await why.textContent(), said);
    assert.equal(await page.locator("#empty-try").isVisible(), false);
    if (js) {
      await page.fill("#q", "abv:>=99");
      await page.locator("#empty-try").waitFor({ state: "visible" });
      assert.equal(await why.isVisible(), false, "a number's search that finds nothing says only that");
    }
    await context.close();
  });
}
