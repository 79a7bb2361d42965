// Printing a recipe: one page (A5, A4 or Letter), a clean card with the name, glass,
// ingredients in the chosen units and servings, method, garnish and notes; no search box,
// buttons or list. Every sample recipe, in ml and in oz ×4, is opened in the laptop's pane
// by a click on its row and measured on each paper under print media (a PDF of every card
// took 2 minutes; a page load for each, 40 s); the tallest card of each paper and unit is
// printed from its own page to a real PDF and read back, and on each paper a card moved
// down to just inside, then just past, the bottom margin shows that measuring agrees with
// printing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, SIZES, launch, phone, startServer, watch, wideContext } from "./lib/browser.mjs";
import { loaded } from "./lib/checks.mjs";
import { readPdf } from "./lib/pdf.mjs";

const FORMATS = ["A5", "A4", "Letter"];
const SHOWN = [{ units: "ml", serves: 1 }, { units: "oz", serves: 4 }];
// Words of the screen around a recipe that a card must not have.
const CHROME = ["Search", "Favourite", "Keep screen on", "Can make", "My bar", "×8", "updated"];
// Each paper in mm and static/app.css's @page margin. Printing evaluates media queries at
// the paper's size and lays the card out inside the margins: measured, the viewport is the
// paper (rounded down) and the margins are the root's padding. The padded cards check both.
const PAPER_MM = { A5: [148, 210], A4: [210, 297], Letter: [215.9, 279.4] };
const MARGIN = "12mm";
const paper = (format) => {
  const [width, height] = PAPER_MM[format].map((mm) => Math.floor((mm * 96) / 25.4));
  return { width, height };
};

let browser, server;
before(async () => { browser = await launch(); server = await startServer(); });
after(async () => { await browser?.close(); await server?.stop(); });

const squash = (t) => t.normalize("NFKC").replace(/\s+/g, "");

/** What the card must show: name, ingredient lines as on screen, the facts and the notes. */
function card(page, scope) {
  return page.locator(scope).evaluate((root) => ({
    name: root.querySelector(".name").textContent,
    lines: Array.from(root.querySelectorAll(".ingredients tbody tr"), (tr) => tr.querySelector("td").textContent + " " + tr.querySelector("th").textContent),
    facts: Array.from(root.querySelectorAll(".facts dd"), (dd) => dd.textContent),
    notes: root.querySelector(".notes")?.textContent ?? "",
  }));
}

function assertCard(pdf, want, label) {
  assert.equal(pdf.pages, 1, `${label}: exactly one page`);
  const text = squash(pdf.text);
  for (const part of [want.name, ...want.lines, ...want.facts]) {
    assert.ok(text.includes(squash(part)), `${label}: the card has "${part}"`);
  }
  // Notes: the first and last words at least (long notes wrap across lines).
  const words = want.notes.split(/\s+/).filter(Boolean);
  for (const w of [words[0], words.at(-1)].filter(Boolean)) assert.ok(text.includes(squash(w)), `${label}: notes "${w}"`);
  for (const word of CHROME) {
    if (!squash(want.notes + want.name + want.lines.join("") + want.facts.join("")).includes(squash(word))) {
      assert.ok(!text.includes(squash(word)), `${label}: no "${word}" on the card`);
    }
  }
}

/**
 * The page as it prints on `format`, measured (see `paper`): `pages` is 1 if nothing reaches
 * past the paper's bottom margin, `height` is the page's height with its margins, and `text`
 * is what is shown. With `padTo`, the card is first moved down to make the page that tall.
 */
async function measured(page, format, padTo = null) {
  await page.emulateMedia({ media: "print" });
  await page.setViewportSize(paper(format));
  return page.evaluate(([margin, padTo]) => {
    const root = document.documentElement;
    root.style.padding = margin;
    // The lowest box shown (a closed <details> keeps its boxes, unpainted) and the bottom margin.
    const height = () =>
      Math.max(...Array.from(document.body.querySelectorAll("*"), (e) => (e.checkVisibility() ? e.getBoundingClientRect().bottom : 0))) +
      scrollY + parseFloat(getComputedStyle(root).paddingBottom);
    if (padTo !== null) {
      // Moves the whole card down (a pad inside it could end above its lowest box).
      const single = document.querySelector("#pane .single");
      for (let i = 0; i < 3; i++) single.style.marginTop = `${parseFloat(getComputedStyle(single).marginTop) + padTo - height()}px`;
    }
    const got = { height: height(), text: document.body.innerText };
    got.pages = got.height <= innerHeight ? 1 : 2;
    root.style.padding = "";
    return got;
  }, [MARGIN, padTo]);
}

/** The laptop's screen (screen media, 1280×800), as the page is shown before printing. */
async function onScreen(page) {
  await page.emulateMedia({ media: null });
  await page.setViewportSize({ width: SIZES[1].width, height: SIZES[1].height });
}

/** Loads a recipe's own page as a laptop shows it; the card it should print. */
async function open(page, r, { units, serves }) {
  await onScreen(page);
  await page.goto(server.url(`/recipes/${r.id}?units=${units}&serves=${serves}`));
  return card(page, "#pane .single");
}

/**
 * Opens a recipe in the laptop's pane by a click on its row, on a page loaded in the
 * units and servings `shown` (which the pane keeps from recipe to recipe); the card it
 * should print.
 */
async function openInPane(page, r, { units, serves }) {
  await onScreen(page);
  await page.locator(`#recipes > li[data-id="${r.id}"] > a.row`).click();
  await page.waitForFunction((id) => document.querySelector("#pane .recipe")?.dataset.id === id, String(r.id));
  if ((r.ingredients || []).length) {
    const chosen = await page.locator("#pane .recipe").evaluate((recipe) => ({
      units: recipe.querySelector(".seg.units [aria-current=true]")?.dataset.units,
      serves: recipe.querySelector(".seg.serves [aria-current=true]")?.dataset.serves,
    }));
    assert.deepEqual(chosen, { units, serves: String(serves) }, `${r.name}: shown in ${units} ×${serves}`);
  }
  return card(page, "#pane .single");
}

test("every sample recipe prints on one page, in ml and in oz ×4, on A5, A4 and Letter", async () => {
  const recipes = await (await fetch(server.url("/api/recipes"))).json();
  const context = await wideContext(browser, SIZES[1]);
  const watcher = await watch(context);
  const page = await context.newPage();
  let cards = 0;
  const tallest = new Map(); // "A5 ml" → the tallest card on that paper in those units
  for (const shown of SHOWN) {
    await open(page, recipes[0], shown);
    await loaded(page);
    for (const r of recipes) {
      const want = await openInPane(page, r, shown);
      assert.equal(want.lines.length, (r.ingredients || []).length);
      if (shown.serves !== 1 && want.lines.length) {
        assert.ok(want.lines.some((l) => / oz /.test(l)) || !r.ingredients.some((i) => /^(ml|cl|oz)$/i.test((i.unit || "").trim())), `${r.name}: in oz`);
      }
      for (const format of FORMATS) {
        const got = await measured(page, format);
        assertCard(got, want, `${r.name} (${shown.units} ×${shown.serves}, ${format}, measured)`);
        const key = `${format} ${shown.units}`;
        if (!(tallest.get(key)?.height >= got.height)) tallest.set(key, { r, shown, format, height: got.height });
        cards++;
      }
    }
  }
  // The tallest cards, printed: one page, with everything on it and nothing around it.
  for (const { r, shown, format } of tallest.values()) {
    const want = await open(page, r, shown);
    assertCard(await readPdf(await page.pdf({ format })), want, `${r.name} (${shown.units} ×${shown.serves}, ${format}, printed)`);
  }
  // The measurement agrees with printing: on each paper, the tallest card padded to just
  // inside the printable height prints on one page, and just past it on two.
  for (const format of FORMATS) {
    const { r, shown } = [...tallest.values()].filter((t) => t.format === format).sort((a, b) => b.height - a.height)[0];
    await open(page, r, shown);
    const { height } = paper(format);
    for (const [edge, pages] of [[height - 1, 1], [height + 4, 2]]) {
      assert.equal((await measured(page, format, edge)).pages, pages, `${format}: a page ${edge} px tall measures as ${pages} page(s)`);
      await page.emulateMedia({ media: null });
      assert.equal((await readPdf(await page.pdf({ format }))).pages, pages, `${format}: a page ${edge} px tall prints on ${pages} page(s)`);
    }
  }
  console.log(
    `measured ${cards} cards: ${recipes.length} recipes × ${SHOWN.length} ways × ${FORMATS.length} paper sizes, one page each; ` +
    `printed the tallest ${tallest.size} and ${FORMATS.length * 2} padded to each paper's edge; tallest (px, with margins): ` +
    [...tallest].map(([key, t]) => `${key} ${Math.ceil(t.height)} of ${paper(t.format).height}`).join(", "),
  );
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});

test("a recipe opened in its row on a phone prints alone", async () => {
  const recipes = await (await fetch(server.url("/api/recipes"))).json();
  const context = await phone(browser);
  const watcher = await watch(context);
  const page = await context.newPage();
  await page.goto(server.url("/"));
  await page.waitForSelector("#recipes a.row[aria-expanded]");
  for (const i of [0, 5, recipes.length - 1]) {
    await page.locator("#recipes > li > a.row").nth(i).tap();
    await page.locator('#recipes > li.open .seg.serves a[data-serves="4"]').tap();
    const want = await card(page, "#recipes > li.open");
    assert.equal(want.name, recipes[i].name);
    const pdf = await readPdf(await page.pdf({ format: "A5" }));
    assertCard(pdf, want, `${want.name} from the phone`);
    // (Printed in capitals: compare without case.)
    assert.ok(squash(pdf.text).toLowerCase().includes("ingredients,for4"), `${want.name}: the servings are on the card`);
    const other = recipes[i === 0 ? 1 : 0].name;
    assert.ok(!squash(pdf.text).includes(squash(other)) || want.notes.includes(other), `${want.name}: no other row (${other})`);
  }
  assert.deepEqual(await watcher.problems(), []);
  await context.close();
});

test("an editor's recipe page prints the card, not the editing controls", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-print-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  const editing = await startServer(["--recipes-file", file, "--allow-edits", "--local-edit"]);
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    // Right after a save: Undo is offered too.
    await page.goto(editing.url("/recipes/1?saved=1"));
    for (const control of ["Edit", "Delete", "New recipe", "Add from a link", "Recent changes"]) {
      assert.ok(await page.getByText(control, { exact: true }).first().isVisible(), `${control} is on the screen`);
    }
    const want = await card(page, ".single");
    const pdf = await readPdf(await page.pdf({ format: "A5" }));
    assertCard(pdf, want, "an editor's Negroni");
    const text = squash(pdf.text);
    const own = squash(want.notes + want.name + want.lines.join("") + want.facts.join(""));
    for (const control of ["Edit", "Delete", "Share", "New recipe", "Add from a link", "Recent changes", "Undo"]) {
      if (!own.includes(squash(control))) assert.ok(!text.includes(squash(control)), `no "${control}" on the printed card`);
    }
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await editing.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
