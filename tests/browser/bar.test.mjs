// At the bar (issue 8): units, scaling, "what can I make", favourites and moving them to
// another phone, all kept in this browser's localStorage. Every scenario runs twice: online,
// and with the network cut (the service worker installed, then the server stopped and the
// phone set offline) so each step is answered from the phone alone.
//
// The expected strings and recipe sets are worked out by hand from recipes/sample.json (the
// recipes built into the binary), not read back from the app: each one says how.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, phone, startServer, watch } from "./lib/browser.mjs";
import { loaded, shelfBox, until, workerInControl } from "./lib/checks.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const MODES = ["online", "offline"];
// With the network gone, the browser reports the requests it could not make.
const OFFLINE_NOISE = [/net::ERR_INTERNET_DISCONNECTED/, /Failed to load resource/];

// The opened recipe: in place on the list, or the recipe page (offline the recipe page is
// the list with that recipe open).
const OPEN = ":is(.single, #recipes > li.open) .recipe";

const stored = (page) => page.evaluate(() => JSON.parse(localStorage.getItem("libations")));
const visibleNames = (page) =>
  page.evaluate(() => Array.from(document.querySelectorAll("#recipes > li:not([hidden]) .name"), (n) => n.textContent).sort());
const amounts = (page) =>
  page.locator(`${OPEN} td.amount`).evaluateAll((tds) => tds.map((td) => td.textContent.trim()));
const sorted = (list) => [...list].sort();

/** The storage with its lists sorted (so the order things were ticked in does not matter). */
function normal(state) {
  if (!state) return { units: null, shelf: [], favourites: [] };
  return {
    units: state.units ?? null,
    shelf: sorted(state.shelf ?? []),
    favourites: [...(state.favourites ?? [])].sort((a, b) => a - b),
  };
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const row = (page, name) =>
  page.locator("#recipes > li > a.row", { has: page.locator(".name", { hasText: new RegExp(`^${escape(name)}$`) }) });

/** Taps a recipe's row on the list and waits for it to open in place. */
async function openRow(page, name) {
  await row(page, name).tap();
  await page.waitForSelector(`#recipes > li.open .name >> text="${name}"`);
  await page.waitForSelector(`${OPEN} td.amount`);
}

const tool = (page, selector) => page.locator(`${OPEN} .tools ${selector}`);

/**
 * A server (the built-in sample recipes), a phone and a watcher. Offline: the first visit
 * installs the service worker, then the server stops and the phone loses its network, so
 * everything after that comes from the phone.
 */
async function setup(mode) {
  const server = await startServer();
  const context = await phone(browser);
  const watcher = await watch(context);
  const page = await context.newPage();
  await page.goto(server.url("/"));
  await loaded(page);
  if (mode === "offline") {
    await workerInControl(page);
    await server.stop();
    await context.setOffline(true);
    await page.reload();
    await loaded(page);
    assert.equal(await page.isVisible("#offline"), true, "offline from here on: the hint shows");
  }
  return {
    page,
    context,
    url: server.url,
    problems: () => watcher.problems(mode === "offline" ? OFFLINE_NOISE : []),
    close: async () => { await context.close(); await server.stop(); },
  };
}

async function goList(page, url, q = "") {
  await page.goto(url(q ? `/?q=${encodeURIComponent(q)}` : "/"));
  await loaded(page);
}

async function goShelf(page, url) {
  await page.goto(url("/shelf"));
  await page.waitForSelector("#shelf:not([disabled])");
}

// Whiskey Sour (id 8) in the file: Bourbon 50 ml, Lemon Juice 25 ml, Sugar Syrup 15 ml,
// Egg White 1/2 egg, Angostura Bitters 3 dash.
const SOUR_AS_WRITTEN = ["50 ml", "25 ml", "15 ml", "1/2 egg", "3 dash"];
// In oz (30 ml = 1 oz, nearest ¼): 50/30 = 1.67 → 1¾; 25/30 = 0.83 → ¾; 15/30 = ½.
// "egg" and "dash" are not volumes: as written.
const SOUR_OZ = ["1¾ oz", "¾ oz", "½ oz", "1/2 egg", "3 dash"];
// In cl (nearest 0.5): 5; 2.5; 1.5.
const SOUR_CL = ["5 cl", "2.5 cl", "1.5 cl", "1/2 egg", "3 dash"];

for (const mode of MODES) {
  test(`${mode}: units: oz on an opened recipe converts its measures and the choice persists across reloads`, async () => {
    const { page, url, problems, close } = await setup(mode);
    try {
      await goList(page, url);
      await openRow(page, "Whiskey Sour");
      await until(() => amounts(page), SOUR_AS_WRITTEN, "the file's own units at first");
      const address = page.url();

      await tool(page, '.seg.units a[data-units="oz"]').tap();
      await until(() => amounts(page), SOUR_OZ, "converted to oz");
      assert.equal(page.url(), address, "converted in place, no navigation");
      assert.equal(await tool(page, '.seg.units a[data-units="oz"]').getAttribute("aria-current"), "true");
      for (const other of ["ml", "cl"]) {
        assert.notEqual(await tool(page, `.seg.units a[data-units="${other}"]`).getAttribute("aria-current"), "true", other);
      }
      assert.equal((await stored(page)).version, 1);
      assert.equal((await stored(page)).units, "oz");

      // Another recipe opens in oz too. Old Fashioned: Bourbon 60 ml → 2 oz, Demerara Syrup
      // 7.5 ml → ¼ oz, bitters 2 dash and 1 dash as written.
      await openRow(page, "Old Fashioned");
      await until(() => amounts(page), ["2 oz", "¼ oz", "2 dash", "1 dash"], "another recipe in oz");

      // Reloaded (an opened recipe has its own address, so the reload shows it): still oz,
      // there, on the list and on the recipe's own page.
      await page.reload();
      await page.waitForSelector(`${OPEN} td.amount`);
      await until(() => amounts(page), ["2 oz", "¼ oz", "2 dash", "1 dash"], "oz on the reloaded recipe");
      await goList(page, url);
      await openRow(page, "Whiskey Sour");
      await until(() => amounts(page), SOUR_OZ, "oz after a reload");
      assert.equal(await tool(page, '.seg.units a[data-units="oz"]').getAttribute("aria-current"), "true");
      await page.goto(url("/recipes/8"));
      await page.waitForSelector(`${OPEN} td.amount`);
      await until(() => amounts(page), SOUR_OZ, "oz on the recipe page");

      // cl, then tapping cl again goes back to the file's own units (and that persists too).
      await tool(page, '.seg.units a[data-units="cl"]').tap();
      await until(() => amounts(page), SOUR_CL, "converted to cl");
      assert.equal((await stored(page)).units, "cl");
      await tool(page, '.seg.units a[data-units="cl"]').tap();
      await until(() => amounts(page), SOUR_AS_WRITTEN, "back to the file's units");
      assert.equal((await stored(page)).units, null);
      for (const u of ["ml", "oz", "cl"]) {
        assert.notEqual(await tool(page, `.seg.units a[data-units="${u}"]`).getAttribute("aria-current"), "true", u);
      }
      await page.reload();
      await page.waitForSelector(`${OPEN} td.amount`);
      await until(() => amounts(page), SOUR_AS_WRITTEN, "the file's units after a reload");

      assert.deepEqual(await problems(), []);
    } finally {
      await close();
    }
  });

  test(`${mode}: scaling: ×2, ×4 and a custom number of servings; counts multiply, "top up" stays`, async () => {
    const { page, url, problems, close } = await setup(mode);
    try {
      await goList(page, url);
      // Mojito (id 9): White Rum 50 ml, Lime Juice 25 ml, Sugar Syrup 15 ml, Mint 8 leaves,
      // Soda Water "top up" (no measure).
      await openRow(page, "Mojito");
      await until(() => amounts(page), ["50 ml", "25 ml", "15 ml", "8 leaves", "top up"], "×1 as written");
      assert.equal(await tool(page, '.seg.serves a[data-serves="1"]').getAttribute("aria-current"), "true");
      const address = page.url();

      // ×4 in the file's ml: 200, 100, 60 (all multiples of 5 already); 8 leaves × 4 = 32.
      await tool(page, '.seg.serves a[data-serves="4"]').tap();
      await until(() => amounts(page), ["200 ml", "100 ml", "60 ml", "32 leaves", "top up"], "×4 in ml");
      assert.equal(new URL(page.url()).pathname, new URL(address).pathname, "scaled in place, no navigation");
      assert.equal(new URL(page.url()).searchParams.get("serves"), "4", "the address says ×4");
      assert.equal(await tool(page, '.seg.serves a[data-serves="4"]').getAttribute("aria-current"), "true");
      assert.notEqual(await tool(page, '.seg.serves a[data-serves="1"]').getAttribute("aria-current"), "true");

      // ×4 in oz: 200/30 = 6.67 → 6¾; 100/30 = 3.33 → 3¼; 60/30 = 2.
      await tool(page, '.seg.units a[data-units="oz"]').tap();
      await until(() => amounts(page), ["6¾ oz", "3¼ oz", "2 oz", "32 leaves", "top up"], "×4 in oz");

      // A custom 3 servings in oz: 150/30 = 5; 75/30 = 2½; 45/30 = 1½; 24 leaves.
      const custom = tool(page, "input.servings");
      await custom.fill("3");
      await custom.press("Enter");
      await until(() => amounts(page), ["5 oz", "2½ oz", "1½ oz", "24 leaves", "top up"], "×3 in oz");
      assert.equal(new URL(page.url()).pathname, new URL(address).pathname, "no navigation for a custom number");
      assert.equal(await custom.inputValue(), "3");

      // Back to ml (tap oz again), custom 7: 350, 175, 105 ml; 56 leaves.
      await tool(page, '.seg.units a[data-units="oz"]').tap();
      await custom.fill("7");
      await custom.press("Enter");
      await until(() => amounts(page), ["350 ml", "175 ml", "105 ml", "56 leaves", "top up"], "×7 in ml");

      // Out of range (0, 150): said beside the field, and the amounts stay as they were.
      for (const wrong of ["0", "150"]) {
        await custom.fill(wrong);
        const note = tool(page, ".serves-note");
        await until(() => note.textContent(), "From 1 to 100 servings: still shown for 7.", `${wrong} is said to be out of range`);
        assert.equal(await custom.getAttribute("aria-invalid"), "true");
        assert.deepEqual(await amounts(page), ["350 ml", "175 ml", "105 ml", "56 leaves", "top up"], `${wrong} changes nothing`);
      }
      await custom.fill("7");
      await until(() => tool(page, ".serves-note").textContent(), "", "a good number clears the note");

      // Whiskey Sour ×4: 200, 100, 60 ml; the half egg is a count: ½ × 4 = 2 egg; 12 dash.
      await openRow(page, "Whiskey Sour");
      await tool(page, '.seg.serves a[data-serves="4"]').tap();
      await until(() => amounts(page), ["200 ml", "100 ml", "60 ml", "2 egg", "12 dash"], "Whiskey Sour ×4");
      // ×3 custom: the egg is 1½ (an exact half shows as a glyph); 9 dash.
      await tool(page, "input.servings").fill("3");
      await tool(page, "input.servings").press("Enter");
      await until(() => amounts(page), ["150 ml", "75 ml", "45 ml", "1½ egg", "9 dash"], "Whiskey Sour ×3");

      // Old Fashioned ×8 in oz: 60 × 8 = 480 ml = 16 oz; 7.5 × 8 = 60 ml = 2 oz; 16 and 8 dash.
      await openRow(page, "Old Fashioned");
      await tool(page, '.seg.units a[data-units="oz"]').tap();
      await tool(page, '.seg.serves a[data-serves="8"]').tap();
      await until(() => amounts(page), ["16 oz", "2 oz", "16 dash", "8 dash"], "Old Fashioned ×8 in oz");
      // ×2 in oz: 120 ml = 4 oz; 15 ml = ½ oz; 4 and 2 dash.
      await tool(page, '.seg.serves a[data-serves="2"]').tap();
      await until(() => amounts(page), ["4 oz", "½ oz", "4 dash", "2 dash"], "Old Fashioned ×2 in oz");
      // The address follows the tap, so a reload shows ×2 (not the ×3 typed on another recipe).
      if (mode === "online") {
        assert.match(page.url(), /serves=2/, "the address says ×2");
        await page.reload();
        await page.waitForSelector(`${OPEN} td.amount`);
        await until(() => amounts(page), ["4 oz", "½ oz", "4 dash", "2 dash"], "Old Fashioned ×2 after a reload");
      }

      // Servings are for this pour only: the recipe visited afresh (its own address, no
      // query) shows ×1, in the units still chosen.
      await page.goto(url(new URL(page.url()).pathname));
      await page.waitForSelector(`${OPEN} td.amount`);
      await until(() => amounts(page), ["2 oz", "¼ oz", "2 dash", "1 dash"], "×1 after a reload, still oz");
      assert.equal(await tool(page, '.seg.serves a[data-serves="1"]').getAttribute("aria-current"), "true");
      const state = await stored(page);
      assert.equal(state.units, "oz");
      assert.equal(JSON.stringify(state).includes("serv"), false, "servings are not stored");

      // The recipe page scales in place too.
      await page.goto(url("/recipes/9"));
      await page.waitForSelector(`${OPEN} td.amount`);
      const pageAddress = page.url();
      await tool(page, '.seg.serves a[data-serves="8"]').tap();
      // ×8 in oz: 400/30 = 13.33 → 13¼; 200/30 = 6.67 → 6¾; 120/30 = 4; 64 leaves.
      await until(() => amounts(page), ["13¼ oz", "6¾ oz", "4 oz", "64 leaves", "top up"], "recipe page ×8 in oz");
      // No navigation; the recipe's own page (online) records the choice in its address,
      // so that a reload shows the same (offline the list stands in for it and keeps "/").
      assert.equal(new URL(page.url()).pathname, new URL(pageAddress).pathname);
      if (await page.locator(".single").count()) assert.equal(new URL(page.url()).search, "?units=oz&serves=8");

      assert.deepEqual(await problems(), []);
    } finally {
      await close();
    }
  });

  test(`${mode}: shelf: ticking a small shelf gives exactly the "can make" and "missing one" recipes`, async () => {
    const { page, url, problems, close } = await setup(mode);
    try {
      // Nothing ticked yet: "can make" says the shelf is empty, once, not also "No recipe matches".
      await goList(page, url, "can:make");
      await until(() => page.locator("#device-note").isVisible(), true, "the empty-shelf hint");
      assert.match(await page.locator("#device-note").textContent(), /^Your shelf is empty/);
      assert.equal(await page.locator("#empty").isVisible(), false, "not also 'No recipe matches'");
      await goShelf(page, url);
      // The bottles of recipes/sample.json, grouped by kind: the 58 distinct ingredient keys
      // less the two staples ("soda water", "hot water") read through data/vocabulary.json as
      // 56 bottles, and the bottles more specific than a kind a recipe names, and the parts
      // of a prep (Sugar for Simple syrup): 83 boxes. "Sugar Syrup" is ticked as Simple syrup.
      const boxes = page.locator("#shelf input[type=checkbox]");
      assert.equal(await boxes.count(), 83);
      for (const staple of ["soda water", "hot water"]) {
        assert.equal(await page.locator(`#shelf input[value="${staple}"]`).count(), 0, `${staple} is a staple, not listed`);
      }
      assert.equal(await page.locator('#shelf input[value="sugar syrup"]').count(), 0, "a spelling is no box of its own");
      assert.match(await page.locator('#shelf li[data-entry="simple-syrup"]').textContent(), /as “Sugar Syrup”/,
        "the collection's spelling shows under the bottle it means");
      const shown = () =>
        page.locator("#shelf input[type=checkbox]").evaluateAll((inputs) =>
          inputs.filter((i) => i.checkVisibility()).map((i) => i.value).sort());
      assert.deepEqual(await shown(), [], "every kind starts closed");

      // The filter box: accents and case folded; a kind shows the bottles under it, and
      // the groups with a match open.
      await page.locator("#shelf-q").fill("CURAÇAO");
      await until(shown, ["blue curacao", "curacao", "dry curacao"], "filter CURAÇAO");
      await page.locator("#shelf-q").fill("crème");
      await until(shown, ["creme de cassis"], "filter crème");
      await page.locator("#shelf-q").fill("ginger");
      await until(shown, ["ginger", "ginger beer", "ginger juice"], "filter ginger");
      for (const key of ["ginger beer", "ginger juice"]) await page.locator(`#shelf input[value="${key}"]`).check();
      await page.locator("#shelf-q").fill("zzz");
      await until(() => page.locator("#shelf-found").textContent(), "No bottle or spelling here matches “zzz”.", "none found");
      await page.locator("#shelf-q").fill("");
      await until(shown, [], "the groups close again");
      assert.equal(await page.locator("#shelf li[hidden], #shelf details[hidden]").count(), 0, "nothing is left hidden");
      assert.match(await page.locator('#shelf details:has(input[value="ginger beer"]) .kind-n').textContent(), /^1 ticked$/);

      // The shelf: gin, lime juice, sugar syrup, white rum, mint, vodka, ginger beer, ginger
      // juice, honey syrup, cayenne pepper.
      const SHELF = ["cayenne pepper", "gin", "ginger beer", "ginger juice", "honey syrup", "lime juice", "mint",
        "simple syrup", "vodka", "white rum"];
      for (const key of SHELF) {
        const box = await shelfBox(page, key);
        if (!(await box.isChecked())) await box.check();
      }
      await until(async () => normal(await stored(page)).shelf, SHELF, "ticking saves at once");
      assert.match(await page.locator("#shelf-count").textContent(), /\b10\b/, "the count says how many are ticked");

      // By hand, recipe by recipe, with that shelf (staples and garnishes never count):
      //   can make:  Daiquiri (white rum, lime, sugar), Mojito (white rum, lime, sugar, mint;
      //              soda water is a staple; the mint sprig garnish does not count), Gimlet
      //              (gin, lime, sugar), Moscow Mule (vodka, lime, ginger beer).
      //   missing one: Dark 'n' Stormy (Dark Rum), Mint Julep (Bourbon), Nojito (Saline
      //              Solution; soda water is a staple), Ginger Shot (Lemon Juice; "Fresh
      //              Ginger Juice" is ginger juice).
      //   every other recipe misses two or more (e.g. Negroni: campari, sweet vermouth;
      //   French 75: lemon juice, champagne; Tom Collins: old tom gin, lemon juice).
      const CAN_MAKE = ["Daiquiri", "Gimlet", "Mojito", "Moscow Mule"];
      const MISSING_ONE = { "Dark 'n' Stormy": "Dark Rum", "Ginger Shot": "Lemon Juice", "Mint Julep": "Bourbon", "Nojito": "Saline Solution" };

      await goList(page, url);
      const marks = () =>
        page.evaluate(() => {
          const out = { all: [], one: {} };
          for (const li of document.querySelectorAll("#recipes > li")) {
            const name = li.querySelector(".name").textContent;
            if (li.dataset.have === "all") out.all.push(name);
            if (li.dataset.have === "one") out.one[name] = li.querySelector("a.row span.missing")?.textContent.trim() ?? "";
          }
          out.all.sort();
          return out;
        });
      await until(async () => (await marks()).all, CAN_MAKE, 'rows marked data-have="all"');
      const one = (await marks()).one;
      assert.deepEqual(Object.keys(one).sort(), Object.keys(MISSING_ONE), 'rows marked data-have="one"');
      for (const [name, missing] of Object.entries(MISSING_ONE)) {
        assert.ok(one[name].toLowerCase().includes(missing.toLowerCase()), `${name}: "${one[name]}" names ${missing}`);
      }

      // The header's toggles filter the list, and put the term in the search box.
      await page.locator('nav.filters a[data-term="can:make"]').tap();
      await until(() => visibleNames(page), CAN_MAKE, "can make now");
      assert.match(await page.locator("#q").inputValue(), /(^|\s)can:make(\s|$)/);
      await page.locator('nav.filters a[data-term="can:make"]').tap();
      await until(() => visibleNames(page), sorted((await visibleNamesAll(page))), "toggled off: every recipe");
      assert.doesNotMatch(await page.locator("#q").inputValue(), /can:make/);
      await page.locator('nav.filters a[data-term="missing:one"]').tap();
      await until(() => visibleNames(page), Object.keys(MISSING_ONE), "missing one");

      // Typed terms do the same, with the ordinary search rules: "rum" narrows can:make to
      // the two rum drinks (base Rum, White Rum).
      await page.locator("#q").fill("can:make rum");
      await until(() => visibleNames(page), ["Daiquiri", "Mojito"], "can:make rum");
      await page.locator("#q").fill("missing:one");
      await until(() => visibleNames(page), Object.keys(MISSING_ONE), "typed missing:one");
      // And from an address.
      await goList(page, url, "can:make");
      await until(() => visibleNames(page), CAN_MAKE, "/?q=can:make");

      // Unticking a bottle moves recipes: without white rum, Daiquiri and Mojito miss it.
      await goShelf(page, url);
      assert.equal(await page.locator('#shelf input[value="white rum"]').isChecked(), true, "the shelf is shown ticked");
      await (await shelfBox(page, "white rum")).uncheck();
      await until(async () => normal(await stored(page)).shelf, SHELF.filter((k) => k !== "white rum"), "unticked");
      await goList(page, url, "can:make");
      await until(() => visibleNames(page), ["Gimlet", "Moscow Mule"], "can make without white rum");
      await goList(page, url, "missing:one");
      await until(() => visibleNames(page), sorted([...Object.keys(MISSING_ONE), "Daiquiri", "Mojito"]), "missing one without white rum");

      assert.deepEqual(await problems(), []);
    } finally {
      await close();
    }
  });

  test(`${mode}: favourites: star two recipes and filter to them`, async () => {
    const { page, url, problems, close } = await setup(mode);
    try {
      await goList(page, url);
      const all = await visibleNamesAll(page);
      assert.equal(all.length, 28);
      for (const name of ["Negroni", "Last Word"]) {
        await openRow(page, name);
        const star = tool(page, "button.star");
        assert.equal(await star.isVisible(), true, `${name}: the star shows`);
        assert.equal(await star.getAttribute("aria-pressed"), "false");
        await star.tap();
        await until(() => star.getAttribute("aria-pressed"), "true", `${name}: starred`);
      }
      // Negroni is id 1, Last Word id 17.
      await until(async () => normal(await stored(page)).favourites, [1, 17], "stored as recipe ids");
      const favRows = () =>
        page.evaluate(() => Array.from(document.querySelectorAll("#recipes > li.fav .name"), (n) => n.textContent).sort());
      await until(favRows, ["Last Word", "Negroni"], "starred rows are marked");

      await page.locator('nav.filters a[data-term="is:fav"]').tap();
      await until(() => visibleNames(page), ["Last Word", "Negroni"], "favourites");
      assert.match(await page.locator("#q").inputValue(), /(^|\s)is:fav(\s|$)/);
      await page.locator('nav.filters a[data-term="is:fav"]').tap();
      await until(() => visibleNames(page), all, "toggled off");

      // After a reload, by address and with other words.
      await goList(page, url, "is:fav");
      await until(() => visibleNames(page), ["Last Word", "Negroni"], "/?q=is:fav after a reload");
      await until(favRows, ["Last Word", "Negroni"], "still marked after a reload");
      await page.locator("#q").fill("is:fav word");
      await until(() => visibleNames(page), ["Last Word"], "is:fav word");

      // The recipe page knows it too; unstarring there takes it off the list.
      await page.goto(url("/recipes/1"));
      await page.waitForSelector(`${OPEN} td.amount`);
      await until(() => tool(page, "button.star").getAttribute("aria-pressed"), "true", "starred on the recipe page");
      await tool(page, "button.star").tap();
      await until(() => tool(page, "button.star").getAttribute("aria-pressed"), "false", "unstarred");
      await until(async () => normal(await stored(page)).favourites, [17], "unstarred in storage");
      await goList(page, url, "is:fav");
      await until(() => visibleNames(page), ["Last Word"], "one favourite left");

      assert.deepEqual(await problems(), []);
    } finally {
      await close();
    }
  });

  test(`${mode}: export, clear, import: units, shelf and favourites come back; a broken file changes nothing`, async () => {
    const { page, url, problems, close } = await setup(mode);
    const dir = mkdtempSync(join(tmpdir(), "libations-bar-"));
    try {
      // Choose oz, tick gin, lime juice and sugar syrup, star the Gimlet (id 10).
      await goShelf(page, url);
      await page.locator('#units-choice input[name=units][value="oz"]').check();
      for (const key of ["gin", "lime juice", "simple syrup"]) await (await shelfBox(page, key)).check();
      await goList(page, url);
      await openRow(page, "Gimlet");
      await tool(page, "button.star").tap();
      const WANT = { units: "oz", shelf: ["gin", "lime juice", "simple syrup"], favourites: [10] };
      await until(async () => normal(await stored(page)), WANT, "the state to export");

      await goShelf(page, url);
      const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#export").tap()]);
      assert.equal(download.suggestedFilename(), "libations-bar.json");
      const file = join(dir, "libations-bar.json");
      await download.saveAs(file);
      const exported = JSON.parse(readFileSync(file, "utf8"));
      assert.equal(exported.version, 1);
      assert.deepEqual(normal(exported), WANT, "the file holds units, shelf and favourites");
      assert.deepEqual(exported, await stored(page), "the file is the stored JSON");

      // "Clear this phone" asks first: cancelled, nothing changes.
      page.once("dialog", (d) => d.dismiss());
      await page.locator("#forget").tap();
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(normal(await stored(page)), WANT, "cancelled: nothing cleared");
      // Accepted: everything goes.
      page.once("dialog", (d) => d.accept());
      await page.locator("#forget").tap();
      await until(async () => normal(await stored(page)), normal(null), "cleared");
      const ticked = () => page.locator("#shelf input[type=checkbox]:checked").evaluateAll((l) => l.map((i) => i.value).sort());
      const units = () => page.locator("#units-choice input[name=units]:checked").evaluate((i) => i.value);
      await until(ticked, [], "no box ticked after clearing");
      assert.equal(await units(), "", "as written after clearing");
      await page.reload();
      await page.waitForSelector("#shelf:not([disabled])");
      assert.deepEqual(await ticked(), [], "still cleared after a reload");

      // Import the file: everything is back.
      await page.locator("#import").setInputFiles(file);
      await until(async () => normal(await stored(page)), WANT, "imported");
      await until(ticked, WANT.shelf, "the boxes are ticked again");
      assert.equal(await units(), "oz");
      assert.notEqual((await page.locator("#bar-status").textContent()).trim(), "", "the import says what it did");
      await goList(page, url);
      // With gin, lime juice and sugar syrup only the Gimlet can be made (Daiquiri and
      // Mojito need white rum, Last Word chartreuse and maraschino, ...).
      await page.locator('nav.filters a[data-term="can:make"]').tap();
      await until(() => visibleNames(page), ["Gimlet"], "can make after the import");
      await page.locator('nav.filters a[data-term="can:make"]').tap();
      await page.locator('nav.filters a[data-term="is:fav"]').tap();
      await until(() => visibleNames(page), ["Gimlet"], "favourites after the import");
      await openRow(page, "Gimlet");
      // Gimlet: Gin 50 ml → 1¾ oz, Lime Juice 20 ml → ¾ oz (0.67), Sugar Syrup 15 ml → ½ oz.
      await until(() => amounts(page), ["1¾ oz", "¾ oz", "½ oz"], "oz after the import");
      assert.equal(await tool(page, "button.star").getAttribute("aria-pressed"), "true");

      // Broken files: a clear message naming the problem, and nothing changes.
      await goShelf(page, url);
      const before = await stored(page);
      const BROKEN = [
        ["not JSON", "{\"version\": 1, \"shelf\": [\"gin\"", /json|read|pars/i],
        ["not a bar file", "[1, 2, 3]", /libations|bar|file|object|version/i],
        ["an unknown unit", JSON.stringify({ version: 1, units: "gallons", shelf: [], favourites: [] }), /unit/i],
        ["a shelf that is not a list", JSON.stringify({ version: 1, units: null, shelf: "gin", favourites: [] }), /shelf/i],
        ["favourites that are not ids", JSON.stringify({ version: 1, units: null, shelf: [], favourites: ["Negroni"] }), /favourite/i],
      ];
      for (const [what, text, names] of BROKEN) {
        await page.evaluate(() => { document.getElementById("bar-status").textContent = ""; });
        await page.locator("#import").setInputFiles({ name: "broken.json", mimeType: "application/json", buffer: Buffer.from(text) });
        await until(async () => (await page.locator("#bar-status").textContent()).trim() !== "", true, `${what}: a message`);
        const message = (await page.locator("#bar-status").textContent()).trim();
        assert.match(message, names, `${what}: "${message}" names the problem`);
        assert.deepEqual(await stored(page), before, `${what}: storage unchanged`);
        assert.deepEqual(await ticked(), WANT.shelf, `${what}: the boxes unchanged`);
        assert.equal(await units(), "oz", `${what}: the units unchanged`);
      }

      // Over existing choices an import asks first: declined, nothing changes.
      const other = { version: 1, units: "cl", shelf: ["vodka"], favourites: [2] };
      const offer = () => page.locator("#import").setInputFiles({ name: "other.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(other)) });
      const asked = [];
      page.once("dialog", (d) => { asked.push(d.message()); d.dismiss(); });
      await offer();
      await until(async () => (await page.locator("#bar-status").textContent()).trim(), "Import cancelled: nothing was changed.", "declined");
      assert.equal(asked.length, 1, "the import asked before replacing");
      assert.deepEqual(await stored(page), before, "declined: storage unchanged");
      // Accepted, it replaces this phone's choices (it does not merge them).
      page.once("dialog", (d) => d.accept());
      await offer();
      await until(async () => normal(await stored(page)), normal(other), "replaced, not merged");
      await until(ticked, ["vodka"], "only the imported box is ticked");
      assert.equal(await units(), "cl");

      assert.deepEqual(await problems(), []);
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** Every row's name (filters off), sorted. */
function visibleNamesAll(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll("#recipes > li .name"), (n) => n.textContent).sort());
}

test("two tabs: a change in one is neither lost nor undone by the other", async () => {
  const { page, context, url, problems, close } = await setup("online");
  try {
    const recipe = await context.newPage();
    await recipe.goto(url("/recipes/1"));
    await recipe.waitForSelector(".single .recipe .star:not([hidden])");
    // Tab 2 ticks the shelf after tab 1 has loaded; tab 1 then stars Negroni.
    await goShelf(page, url);
    await (await shelfBox(page, "gin")).check();
    await (await shelfBox(page, "campari")).check();
    await recipe.locator(".single .recipe .star").click();
    await until(async () => normal(await stored(recipe)), { units: null, shelf: ["campari", "gin"], favourites: [1] }, "both changes kept");
    // Tab 1's units reach tab 2's open shelf page at once (the storage event).
    await recipe.locator('.single .recipe [data-units="oz"]').click();
    await until(() => page.locator("#units-choice input:checked").getAttribute("value"), "oz", "the other tab follows");
    assert.deepEqual(await problems(), []);
  } finally {
    await close();
  }
});

test("a recipe page opened from a shared address keeps the reader's later choice on reload", async () => {
  const { page, url, problems, close } = await setup("online");
  try {
    // Negroni (id 1): 25 ml each of gin, Campari and sweet vermouth.
    await page.goto(url("/recipes/1?units=oz&serves=2"));
    await page.waitForSelector(".single .recipe .star:not([hidden])");
    assert.deepEqual(await amounts(page), ["1¾ oz", "1¾ oz", "1¾ oz"]);
    await page.locator('.single .recipe [data-units="cl"]').click();
    await page.locator('.single .recipe [data-serves="4"]').click();
    assert.deepEqual(await amounts(page), ["10 cl", "10 cl", "10 cl"]);
    assert.equal(new URL(page.url()).search, "?units=cl&serves=4");
    await page.reload();
    await page.waitForSelector(".single .recipe .star:not([hidden])");
    assert.deepEqual(await amounts(page), ["10 cl", "10 cl", "10 cl"]);
    assert.deepEqual(await problems(), []);
  } finally {
    await close();
  }
});

test("a damaged stored entry is set aside, not overwritten", async () => {
  const { page, url, problems, close } = await setup("online");
  try {
    const damaged = JSON.stringify({ version: 1, units: "oz", shelf: ["gin"], favourites: ["Negroni"] });
    await page.evaluate((text) => localStorage.setItem("libations", text), damaged);
    await goShelf(page, url);
    await (await shelfBox(page, "campari")).check();
    assert.equal(await page.evaluate(() => localStorage.getItem("libations-unreadable")), damaged);
    assert.deepEqual(normal(await stored(page)), { units: null, shelf: ["campari"], favourites: [] });
    const warnings = await problems();
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0], /favourites.*not a recipe id/);
  } finally {
    await close();
  }
});
