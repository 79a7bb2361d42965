// The recipe form on a phone (390×844; issue 43, item 8): what a person types first at
// the bar comes first; glass, method and the other lists are single fields with the
// collection's values to choose from, a second one added when a recipe has two; "Used
// here:" values are buttons to tap; the measure takes "1 1/2" and "½"; the unit
// suggestions have oz and cl; and without JavaScript a row button comes back to its row.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launch, phone, startServer, watch } from "./lib/browser.mjs";
import { axe, fitsWidth } from "./lib/checks.mjs";

const LISTS = ["base", "glass", "method", "ice", "garnish"];
const sample = () => JSON.parse(readFileSync(join(ROOT, "recipes/sample.json"), "utf8"));
const byName = (name) => sample().find((r) => r.name === name);

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A server editing a fresh copy of the sample collection. */
async function editable() {
  const dir = mkdtempSync(join(tmpdir(), "libations-form-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  const server = await startServer(["--recipes-file", file, "--allow-edits", "--local-edit"]);
  return {
    server,
    async recipe(id) {
      return (await fetch(server.url(`/api/recipes/${id}`))).json();
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A phone with or without JavaScript, its page, and the server; closed after `body`. */
async function onPhone(js, body) {
  const app = await editable();
  const context = await phone(browser, { javaScriptEnabled: js });
  const watcher = js ? await watch(context) : null;
  try {
    await body(await context.newPage(), app);
    if (watcher) assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await app.stop();
  }
}

/** The values of a list field's inputs, in order. */
const values = (page, field) =>
  page.locator(`.list-field[data-list=${field}] input`).evaluateAll((inputs) => inputs.map((i) => i.value));

/** What the lists of a saved recipe hold. */
const lists = (recipe) => Object.fromEntries(LISTS.map((f) => [f, recipe[f]]));

/** The values of the collection's recipes for `field`, most used first (ties by name). */
function mostUsed(field) {
  const counts = new Map();
  for (const r of sample()) for (const v of r[field]) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([v]) => v);
}

async function saveAndWait(page) {
  await page.click("button.save");
  // An unchanged recipe is saved as no change: no number to undo.
  await page.waitForURL(/\/recipes\/\d+\?saved=\d*$/, { timeout: 10_000 });
}

for (const js of [true, false]) {
  test(`${js ? "with" : "without"} JavaScript: name, ingredients and notes come first, then base, glass, method, ice, garnish`, async () => {
    await onPhone(js, async (page, app) => {
      for (const path of ["/recipes/new", "/recipes/3/edit"]) {
        await page.goto(app.server.url(path));
        const order = ["#name", ".ing-row", "#notes", ...LISTS.map((f) => `#${f}`)];
        const tops = await page.evaluate(
          (selectors) => selectors.map((s) => document.querySelector(s)?.getBoundingClientRect().top ?? null),
          order,
        );
        assert.ok(tops.every((t) => t !== null), `${path}: every field is there: ${tops}`);
        const sorted = [...tops].sort((a, b) => a - b);
        assert.deepEqual(tops, sorted, `${path}: in the order ${order.join(", ")}: ${tops}`);
        assert.ok(await fitsWidth(page), `${path}: the form fits the phone`);
        // axe needs scripts to run: the page without them has the same fields.
        if (js) assert.deepEqual(await axe(page), [], `${path}: axe`);
      }
    });
  });
}

test("with JavaScript: glass and method are single fields with the collection's values, most used first; two glasses stay two", async () => {
  await onPhone(true, async (page, app) => {
    const margarita = byName("Margarita");
    assert.deepEqual(margarita.glass, ["Coupe", "Rocks"], "the sample has two glasses");
    await page.goto(app.server.url(`/recipes/${margarita.id}/edit`));
    for (const field of LISTS) {
      const input = page.locator(`#${field}`);
      assert.equal(await input.evaluate((el) => el.tagName), "INPUT", `${field} is one text field`);
      const list = await input.getAttribute("list");
      const options = await page.locator(`datalist#${list} option`).evaluateAll((os) => os.map((o) => o.value));
      assert.deepEqual(options, mostUsed(field).slice(0, options.length), `${field}: the collection's values, most used first`);
      assert.ok(options.length >= Math.min(5, mostUsed(field).length), `${field}: suggestions ${options}`);
    }
    assert.deepEqual(await values(page, "glass"), ["Coupe", "Rocks"], "both glasses, in order, no blank one");
    assert.deepEqual(await values(page, "method"), margarita.method);
    await saveAndWait(page);
    assert.deepEqual(lists(await app.recipe(margarita.id)), lists(margarita), "saved as it was: nothing lost or reordered");

    // One glass: saving keeps one; "Add another glass" makes room for a second.
    const daiquiri = byName("Daiquiri");
    await page.goto(app.server.url(`/recipes/${daiquiri.id}/edit`));
    assert.deepEqual(await values(page, "glass"), ["Coupe"]);
    const add = page.locator(".list-field[data-list=glass] button.add-value");
    assert.equal(await add.textContent(), "Add another glass");
    const box = await add.boundingBox();
    assert.ok(box.height >= 44 && box.width >= 44, `a tap target: ${box.width}×${box.height}`);
    await add.tap();
    const second = page.locator(".list-field[data-list=glass] input").nth(1);
    assert.ok(await second.evaluate((el) => el === document.activeElement), "the new field has the focus");
    await second.fill("Rocks");
    assert.deepEqual(await axe(page), [], "axe with a second glass");
    await saveAndWait(page);
    assert.deepEqual((await app.recipe(daiquiri.id)).glass, ["Coupe", "Rocks"]);

    const negroni = byName("Negroni");
    await page.goto(app.server.url(`/recipes/${negroni.id}/edit`));
    await saveAndWait(page);
    assert.deepEqual(lists(await app.recipe(negroni.id)), lists(negroni), "one glass stays one");
  });
});

test("without JavaScript: a second, empty glass field when the recipe has one; two stay two", async () => {
  await onPhone(false, async (page, app) => {
    const daiquiri = byName("Daiquiri");
    await page.goto(app.server.url(`/recipes/${daiquiri.id}/edit`));
    assert.equal(await page.locator("#glass").evaluate((el) => el.tagName), "INPUT");
    assert.deepEqual(await values(page, "glass"), ["Coupe", ""], "one glass and a blank one to add a second");
    assert.equal(await page.locator("button.add-value").count(), await page.locator("button.add-value[hidden]").count(),
      "no button that needs JavaScript shows");
    await page.locator(".list-field[data-list=glass] input").nth(1).fill("Rocks");
    await saveAndWait(page);
    assert.deepEqual((await app.recipe(daiquiri.id)).glass, ["Coupe", "Rocks"]);

    const margarita = byName("Margarita");
    await page.goto(app.server.url(`/recipes/${margarita.id}/edit`));
    assert.deepEqual(await values(page, "glass"), ["Coupe", "Rocks", ""]);
    await saveAndWait(page);
    assert.deepEqual(lists(await app.recipe(margarita.id)), lists(margarita), "nothing lost or reordered");
    const negroni = byName("Negroni");
    await page.goto(app.server.url(`/recipes/${negroni.id}/edit`));
    await saveAndWait(page);
    assert.deepEqual(lists(await app.recipe(negroni.id)), lists(negroni), "one glass stays one");

    // "Used here:" stays words: the datalist offers the values.
    const hint = page.locator(".list-field[data-list=glass] .used-here");
    await page.goto(app.server.url("/recipes/new"));
    assert.match(await hint.textContent(), /^Used here: /);
    assert.equal(await hint.locator("button").count(), 0, "no buttons that would do nothing");
  });
});

test("with JavaScript: a \"Used here\" value is a 44 px button that fills its field", async () => {
  await onPhone(true, async (page, app) => {
    await page.goto(app.server.url("/recipes/new"));
    const chips = (field) => page.locator(`.list-field[data-list=${field}] .used-here button`);
    for (const field of ["base", "glass", "method", "ice", "garnish"]) {
      assert.ok(await chips(field).count() > 0, `${field} has values to tap`);
      for (const box of await chips(field).evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().toJSON()))) {
        assert.ok(box.width >= 44 && box.height >= 44, `${field}: ${box.width}×${box.height}`);
      }
    }
    const [first, other] = mostUsed("glass");
    await chips("glass").filter({ hasText: first }).tap();
    assert.deepEqual(await values(page, "glass"), [first], "the glass is filled");
    await chips("glass").filter({ hasText: other }).tap();
    assert.deepEqual(await values(page, "glass"), [other], "a single choice: another tap replaces it");
    const [g1, g2] = mostUsed("garnish");
    await chips("garnish").filter({ hasText: g1 }).first().tap();
    await chips("garnish").filter({ hasText: g2 }).first().tap();
    assert.deepEqual(await values(page, "garnish"), [g1, g2], "a list: a second tap adds a second");
    assert.ok(await fitsWidth(page));
    assert.deepEqual(await axe(page), [], "axe with the buttons");
  });
});

test("the measure takes \"1 1/2\" and \"½\" as typed on a phone, and the units offered include oz and cl", async () => {
  await onPhone(true, async (page, app) => {
    await page.goto(app.server.url("/recipes/new"));
    const measure = page.locator(".ing-row [name=ing-measure]").first();
    const mode = await measure.getAttribute("inputmode");
    assert.ok(!["decimal", "numeric"].includes(mode), `no number pad without a slash or space: ${mode}`);
    assert.ok(await measure.getAttribute("enterkeyhint"), "the keyboard's Enter says what it does");
    const units = await page.locator(`datalist#${await page.locator("[name=ing-unit]").first().getAttribute("list")} option`)
      .evaluateAll((os) => os.map((o) => o.value));
    for (const unit of ["ml", "oz", "cl", "dash", "barspoon", "tsp"]) assert.ok(units.includes(unit), `${unit} in ${units}`);
    assert.equal(units[0], "ml", "the collection's most used unit first");
    assert.ok(units.indexOf("top up") < units.indexOf("oz"), "the collection's own units before the others");

    await page.fill("#name", "Typed Gimlet");
    const rows = page.locator(".ing-row");
    await measure.pressSequentially("1 1/2");
    await rows.nth(0).locator("[name=ing-unit]").pressSequentially("oz");
    await rows.nth(0).locator("[name=ing-name]").fill("Gin");
    await rows.nth(1).locator("[name=ing-measure]").pressSequentially("½");
    await rows.nth(1).locator("[name=ing-unit]").fill("oz");
    await rows.nth(1).locator("[name=ing-name]").fill("Lime Juice");
    await saveAndWait(page);
    const id = new URL(page.url()).pathname.split("/").pop();
    const saved = await app.recipe(id);
    assert.deepEqual(saved.ingredients.map((i) => [i.measure, i.unit]), [["1 1/2", "oz"], ["½", "oz"]]);
    const shown = await page.locator(".ingredients tbody tr")
      .evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => c.textContent.trim()).join(" ")));
    assert.match(shown[0].replace(/\s+/g, " "), /\b45 ml Gin|1 ?(1\/2|½) oz Gin/, `shown: ${shown[0]}`);
    assert.match(shown[1].replace(/\s+/g, " "), /\b15 ml Lime Juice|½ oz Lime Juice/, `shown: ${shown[1]}`);
  });
});

test("without JavaScript: a row button comes back to its row, not to the top of the page", async () => {
  await onPhone(false, async (page, app) => {
    const zombie = byName("Zombie");
    await page.goto(app.server.url(`/recipes/${zombie.id}/edit`));
    const rows = page.locator(".ing-row");
    const before = await rows.count();
    await page.locator("button.add-row").scrollIntoViewIfNeeded();
    await Promise.all([page.waitForEvent("load"), page.locator("button.add-row").tap()]);
    assert.equal(await rows.count(), before + 1, "a row more");
    const inView = async (row) => {
      const box = await row.boundingBox();
      return box.y >= 0 && box.y + box.height <= 844;
    };
    assert.ok(await inView(rows.last()), `the new row is on the screen (scrolled to ${await page.evaluate(() => scrollY)})`);

    // Moving a row down: the row it went to is on the screen, holding what was moved.
    const moved = await rows.nth(5).locator("[name=ing-name]").inputValue();
    await rows.nth(5).locator("button[value^=down]").scrollIntoViewIfNeeded();
    await page.evaluate(() => scrollBy(0, -300));
    await Promise.all([page.waitForEvent("load"), rows.nth(5).locator("button[value^=down]").tap()]);
    assert.equal(await rows.nth(6).locator("[name=ing-name]").inputValue(), moved);
    assert.ok(await inView(rows.nth(6)), "the moved row is on the screen");
  });
});

// Enter in a field submits a form by its first submit button: once, that was the first
// row's "Move up", so Enter in the name field moved an ingredient. It saves, with and
// without JavaScript, and the ingredients stay in their order.
for (const js of [true, false]) {
  test(`${js ? "with" : "without"} JavaScript: Enter in the name field saves, moving nothing`, async () => {
    await onPhone(js, async (page, app) => {
      const before = await app.recipe(3);
      await page.goto(app.server.url("/recipes/3/edit"));
      await page.locator("#name").fill(before.name + " Royale");
      await Promise.all([
        page.waitForURL(/\/recipes\/3\?saved=\d*$/, { timeout: 10_000 }),
        page.locator("#name").press("Enter"),
      ]);
      const after = await app.recipe(3);
      assert.equal(after.name, before.name + " Royale");
      assert.deepEqual(after.ingredients.map((i) => i.name), before.ingredients.map((i) => i.name));
    });
  });
}
