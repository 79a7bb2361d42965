// A person's own in the browser (docs/HOUSEHOLD.md; static/js/household.js, pending.js,
// mine.js, movein.js), against the real binary with a household (`--state-dir`) and a
// person (`--local-identity`), at 390×844 and 1280×800: the star, a rating, a note,
// "made one" and the household's average with two people (the server restarted as
// another person on the same state directory); a note changed on two devices shown and
// settled; a star made offline kept, shown as waiting and sent when back; a device's own
// favourites and shelf moving in; an unknown visitor told why nothing follows them. Each
// with axe and no console errors. GET /api/me from Node answers for the same person (with
// --local every visitor is that identity), so it checks what the server really stored.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { SIZES, launch, phone, startServer, tempDir, watch, wideContext } from "./lib/browser.mjs";
import { axe, until, workerInControl } from "./lib/checks.mjs";

const LAPTOP = SIZES.find((s) => s.name === "laptop");
const SCREENS = [
  // The phone in dark mode, the laptop in light: axe checks the contrast of both.
  { name: "390x844", context: (browser, options = {}) => phone(browser, { colorScheme: "dark", ...options }) },
  { name: "1280x800", context: (browser, options = {}) => wideContext(browser, LAPTOP, options) },
];

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const stateDir = () => tempDir("libations-household-");
const as = (login, dir, more = []) => startServer(["--local-identity", login, "--state-dir", dir, ...more]);
const me = async (server) => (await fetch(server.url("/api/me"))).json();

// A recipe's own page, once the page knows who is asking (the star shows then).
async function openRecipe(page, server, id) {
  await page.goto(server.url("/recipes/" + id));
  const recipe = page.locator(`.single .recipe[data-id="${id}"]`);
  await recipe.locator(".star:not([hidden])").waitFor();
  return recipe;
}

// The ids of the rows the list shows for `q`, typed into the search box.
async function search(page, server, q) {
  if (!page.url().endsWith("/")) await page.goto(server.url("/"));
  await page.waitForSelector("#recipes a.row[aria-expanded]", { state: "attached" });
  await page.locator("#q").fill(q);
  await page.waitForFunction(() => !document.getElementById("recipes").hasAttribute("aria-busy"));
  return page.evaluate(() => Array.from(document.querySelectorAll("#recipes > li:not([hidden])"), (li) => Number(li.dataset.id)).sort((a, b) => a - b));
}

for (const screen of SCREENS) {
  test(`${screen.name}: star, rate, note and made one are the person's, and the household sees the average`, async () => {
    const dir = stateDir();
    let server = await as("alice@example.com", dir);
    let context = await screen.context(browser);
    let watcher = await watch(context);
    try {
      let page = await context.newPage();
      let recipe = await openRecipe(page, server, 1);
      const star = recipe.locator(".star");
      assert.equal(await star.getAttribute("aria-pressed"), "false");
      await star.click();
      await until(() => star.getAttribute("aria-pressed"), "true", "starred");
      await until(async () => (await me(server)).favourites, [1], "the star is the person's");
      // Not this device's: its own favourites are left alone.
      assert.equal(await page.evaluate(() => localStorage.getItem("libations")), null);

      const mine = recipe.locator("details.mine");
      assert.equal(await mine.isVisible(), true, "a person's own shows");
      await mine.locator("summary").click();
      await mine.locator(".rate label").nth(3).click(); // 4 stars
      await until(async () => (await me(server)).ratings, { 1: 4 }, "rated 4");
      assert.equal(await mine.locator(".rate label.on").count(), 4);
      assert.equal(await mine.locator(".rate input[value='4']").isChecked(), true);
      // Clear, then Undo brings the 4 back.
      await mine.locator(".unrate").click();
      await until(async () => (await me(server)).ratings, {}, "cleared");
      assert.equal(await mine.locator(".rate label.on").count(), 0);
      await mine.locator(".rerate").click();
      await until(async () => (await me(server)).ratings, { 1: 4 }, "undone");
      await until(() => mine.locator(".ratings").textContent(), "Household: 4 ★ · 1 rating: alice 4", "the household's line");

      await mine.locator("textarea").fill("less sugar next time");
      await mine.locator(".save-note").click();
      await until(() => mine.locator(".note-status").textContent(), "Saved.", "the note is saved");
      assert.deepEqual((await me(server)).notes, { 1: "less sugar next time" });

      const made = mine.locator(".made-one");
      await made.click();
      await until(() => mine.locator(".made-log").textContent().then((t) => /^made once, last \d{1,2} [A-Z][a-z]{2}$/.test(t)), true, "made once");
      await made.click();
      await until(async () => (await me(server)).made.length, 2, "two entries");
      await until(() => mine.locator(".made-log").textContent().then((t) => t.startsWith("made 2 times, last ")), true, "made twice");
      // Undo takes back the last one only.
      await mine.locator(".unmade").click();
      await until(async () => (await me(server)).made.length, 1, "one taken back");
      assert.match(await mine.locator("summary").textContent(), /^Yours: 4 ★ · made once · note$/);
      assert.deepEqual(await axe(page), [], "the recipe with the person's own open");

      // The list answers the personal terms from the person's own.
      assert.deepEqual(await search(page, server, "is:fav"), [1]);
      // The recipe opened from the list (in its row, or in the pane) shows the same.
      await page.locator('#recipes > li[data-id="1"] > a.row').click();
      await until(() => page.locator('.recipe[data-id="1"] details.mine summary').textContent(), "Yours: 4 ★ · made once · note", "opened from the list");
      assert.equal(await page.locator('.recipe[data-id="1"] .star').getAttribute("aria-pressed"), "true");
      assert.deepEqual(await search(page, server, "rating:>=4"), [1]);
      assert.deepEqual(await search(page, server, "made:recent"), [1]);
      assert.equal((await search(page, server, "made:never")).includes(1), false);
      assert.deepEqual(await page.evaluate(() => Array.from(document.querySelectorAll("#recipes > li.fav"), (li) => li.dataset.id)), ["1"]);
      assert.deepEqual(await watcher.problems(), []);
      await context.close();
      await server.stop();

      // Bob, on the same household: his own star is not Alice's; his rating joins hers.
      server = await as("bob@example.com", dir);
      context = await screen.context(browser);
      watcher = await watch(context);
      page = await context.newPage();
      recipe = await openRecipe(page, server, 1);
      assert.equal(await recipe.locator(".star").getAttribute("aria-pressed"), "false", "Alice's star is hers");
      const his = recipe.locator("details.mine");
      await until(() => his.locator(".ratings").textContent(), "Household: 4 ★ · 1 rating: alice 4", "Alice's rating shows to Bob");
      assert.equal(await his.locator("summary").textContent(), "Rating, note, made one", "nothing of Alice's is Bob's");
      await his.locator("summary").click();
      assert.equal(await his.locator("textarea").inputValue(), "", "Alice's note is hers");
      await his.locator(".rate label").nth(4).click(); // 5 stars
      await until(async () => (await me(server)).ratings, { 1: 5 }, "Bob rated 5");
      await until(() => his.locator(".ratings").textContent().then((t) => /^Household: 4\.5 ★ · 2 ratings: (alice 4, bob 5|bob 5, alice 4)$/.test(t)), true, "the average of two");
      assert.deepEqual(await axe(page), [], "the average of two");
      assert.deepEqual(await watcher.problems(), []);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test(`${screen.name}: a note changed on two devices shows both, and the person keeps one`, async () => {
    const server = await as("alice@example.com", stateDir());
    const phoneA = await screen.context(browser);
    const phoneB = await screen.context(browser);
    const watcherA = await watch(phoneA);
    const watcherB = await watch(phoneB);
    try {
      const a = await phoneA.newPage();
      const b = await phoneB.newPage();
      const noteOn = async (page) => {
        const mine = (await openRecipe(page, server, 2)).locator("details.mine");
        await mine.locator("summary").click();
        return mine;
      };
      const mineA = await noteOn(a);
      await mineA.locator("textarea").fill("shake harder");
      await mineA.locator(".save-note").click();
      await until(() => mineA.locator(".note-status").textContent(), "Saved.");
      // Device B reads it, then device A changes it again; B, not knowing, writes its own.
      const mineB = await noteOn(b);
      assert.equal(await mineB.locator("textarea").inputValue(), "shake harder");
      await mineA.locator("textarea").fill("shake harder, double strain");
      await mineA.locator(".save-note").click();
      await until(async () => (await me(server)).notes, { 2: "shake harder, double strain" });
      await mineB.locator("textarea").fill("stir instead");
      await mineB.locator(".save-note").click();
      await until(async () => (await me(server)).note_conflicts, { 2: ["shake harder, double strain"] }, "kept as a conflict");
      const conflict = mineB.locator(".conflict");
      await conflict.waitFor();
      assert.deepEqual(await conflict.locator(".text").allTextContents(), ["stir instead", "shake harder, double strain"]);
      assert.deepEqual(await axe(b), [], "the conflict shown");
      if (process.env.LIBATIONS_SHOTS) await b.screenshot({ path: `${process.env.LIBATIONS_SHOTS}/conflict-${screen.name}.png`, scale: "css" });
      // B keeps A's text: the conflict is settled everywhere and nothing else is lost.
      await conflict.locator(".keep").nth(1).click();
      await until(async () => { const m = await me(server); return [m.notes, m.note_conflicts]; },
        [{ 2: "shake harder, double strain" }, {}], "settled");
      await conflict.waitFor({ state: "hidden" });
      assert.equal(await mineB.locator("textarea").inputValue(), "shake harder, double strain");
      assert.deepEqual(await watcherA.problems(), []);
      assert.deepEqual(await watcherB.problems(), []);
    } finally {
      await phoneA.close();
      await phoneB.close();
      await server.stop();
    }
  });

  test(`${screen.name}: a star made offline waits on the device, shown, and is sent when back`, async () => {
    const server = await as("alice@example.com", stateDir());
    const context = await screen.context(browser);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      // Routed for the whole context from the start, so that the failure below reaches the
      // page whether it or its service worker asks.
      let armed = false, failedOnce = false;
      await context.route("**/api/me", (route) => {
        if (!armed || failedOnce) return route.continue();
        failedOnce = true;
        return route.abort("internetdisconnected");
      });
      const star = (await openRecipe(page, server, 3)).locator(".star");
      const pending = page.locator("#pending");
      assert.equal(await pending.isHidden(), true, "nothing waits");
      await context.setOffline(true);
      await star.click();
      await until(() => star.getAttribute("aria-pressed"), "true", "shown starred at once");
      // Tapped three more times: one change waits, the last.
      await star.click();
      await star.click();
      await star.click();
      assert.equal(await star.getAttribute("aria-pressed"), "false");
      await star.click();
      await until(() => pending.textContent(), "1 change waiting to be sent (offline)");
      assert.equal(await pending.isVisible(), true);
      // A note written offline waits too, and says so.
      const mine = page.locator('.single .recipe[data-id="3"] details.mine');
      await mine.locator("summary").click();
      await mine.locator("textarea").fill("use fresh mint");
      await mine.locator(".save-note").click();
      await until(() => mine.locator(".note-status").textContent(), "Waiting to be sent (kept on this device).");
      await until(() => pending.textContent(), "2 changes waiting to be sent (offline)");
      const kept = JSON.parse(await page.evaluate(() => localStorage.getItem("libations-pending")));
      assert.deepEqual(kept.map((c) => [c.method, c.path]), [["PUT", "/api/me/favourites/3"], ["PUT", "/api/me/notes/3"]], "kept on the device");
      assert.deepEqual((await me(server)).favourites, [], "not yet on the server");
      assert.deepEqual(await axe(page), [], "offline, two changes waiting");
      // The first /api/me after the connection returns fails (as it often does): the page
      // asks again, and only then sends what waits.
      armed = true;
      await context.setOffline(false);
      await until(async () => (await me(server)).favourites, [3], "sent when back online");
      assert.equal(failedOnce, true, "the first /api/me after coming back failed");
      await until(async () => (await me(server)).notes, { 3: "use fresh mint" }, "the note too");
      await until(() => mine.locator(".note-status").textContent(), "Saved.");
      await pending.waitFor({ state: "hidden" });
      assert.equal(await page.evaluate(() => localStorage.getItem("libations-pending")), "[]");
      assert.equal(await star.getAttribute("aria-pressed"), "true");
      assert.deepEqual(await watcher.problems([/Failed to load resource: net::ERR_INTERNET_DISCONNECTED/, /Service Worker registration blocked by Playwright/]), [], "only the failure made above");
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test(`${screen.name}: offline, a reload shows the person's own from the service worker's copy, with what waits on top`, async () => {
    const server = await as("alice@example.com", stateDir());
    const context = await screen.context(browser);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      await openRecipe(page, server, 4);
      await workerInControl(page);
      let recipe = await openRecipe(page, server, 4);
      await recipe.locator(".star").click();
      await until(async () => (await me(server)).favourites, [4]);
      recipe = await openRecipe(page, server, 4); // /api/me asked again, through the worker
      assert.equal(await recipe.locator(".star").getAttribute("aria-pressed"), "true");

      await context.setOffline(true);
      await recipe.locator(".star").click(); // unstarred offline: waits
      await until(() => page.locator("#pending").textContent(), "1 change waiting to be sent (offline)");
      recipe = await openRecipe(page, server, 4);
      assert.equal(await recipe.locator(".star").getAttribute("aria-pressed"), "false", "the saved answer with the waiting change on top");
      assert.equal(await recipe.locator("details.mine").isVisible(), true, "still known offline");
      assert.equal(await page.locator("#pending").textContent(), "1 change waiting to be sent (offline)");
      assert.deepEqual((await me(server)).favourites, [4], "not sent yet");

      await context.setOffline(false);
      await until(async () => (await me(server)).favourites, [], "sent when back");
      await page.locator("#pending").waitFor({ state: "hidden" });
      assert.deepEqual(await watcher.problems([/net::ERR_INTERNET_DISCONNECTED/, /Failed to load resource/]), []);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test(`${screen.name}: on a shared device, one person's waiting change is never sent as another's`, async () => {
    const dir = stateDir();
    let server = await as("alice@example.com", dir);
    const addr = server.base.replace("http://", "");
    const context = await screen.context(browser);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      const star = (await openRecipe(page, server, 6)).locator(".star");
      await context.setOffline(true);
      await star.click();
      await until(() => page.locator("#pending").textContent(), "1 change waiting to be sent (offline)");
      // Meanwhile the device is Bob's (the same address, the same household).
      await server.stop();
      server = await startServer(["--local-identity", "bob@example.com", "--state-dir", dir], { addr });
      await context.setOffline(false);
      await page.reload();
      await page.locator(".single .star:not([hidden])").waitFor();
      await page.waitForTimeout(1000);
      assert.deepEqual((await me(server)).favourites, [], "Alice's star is not Bob's");
      assert.equal(await page.locator(".single .star").getAttribute("aria-pressed"), "false", "Bob sees his own");
      assert.equal(await page.locator("#pending").textContent(), "1 change waiting to be sent", "Alice's waits for her");
      // Alice again: hers is sent.
      await server.stop();
      server = await startServer(["--local-identity", "alice@example.com", "--state-dir", dir], { addr });
      await page.reload();
      await until(async () => (await me(server)).favourites, [6], "sent as Alice's");
      await page.locator("#pending").waitFor({ state: "hidden" });
      assert.deepEqual(await watcher.problems([/net::ERR_INTERNET_DISCONNECTED/, /Failed to load resource/]), []);
    } finally {
      await context.close();
      await server?.stop();
    }
  });

  test(`${screen.name}: a change the server cannot take now (503) is kept and tried again`, async () => {
    const server = await as("alice@example.com", stateDir());
    // No service worker, so that the test's route sees the page's requests.
    const own = await screen.context(browser, { serviceWorkers: "block" });
    const watcher = await watch(own);
    try {
      let refused = 0;
      await own.route("**/api/me/favourites/8", (route) => {
        if (route.request().method() === "PUT" && refused === 0) {
          refused++;
          return route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: "busy" }) });
        }
        return route.continue();
      });
      const page = await own.newPage();
      const star = (await openRecipe(page, server, 8)).locator(".star");
      await star.click();
      await until(() => page.locator("#pending").textContent(), "1 change waiting to be sent", "kept, online");
      assert.equal(await star.getAttribute("aria-pressed"), "true");
      assert.equal(refused, 1);
      // Tried again on its own a few seconds later.
      await until(async () => (await me(server)).favourites, [8], "sent on the retry");
      await page.locator("#pending").waitFor({ state: "hidden" });
      assert.deepEqual(await watcher.problems([/status of 503/, /Service Worker registration blocked by Playwright/]), []);
    } finally {
      await own.close();
      await server.stop();
    }
  });

  test(`${screen.name}: a change the server refuses is dropped and its error shown, never silently`, async () => {
    const server = await as("alice@example.com", stateDir());
    const context = await screen.context(browser);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      await openRecipe(page, server, 1);
      // As a page would send it, through the module the page loaded.
      const answer = await page.evaluate(async () => {
        const dir = document.querySelector("script[type=module]").src.replace(/app\.js$/, "");
        const pending = await import(dir + "pending.js");
        return pending.queue({ key: "rating:1", method: "PUT", path: "/api/me/ratings/1", body: { stars: 9, at: Date.now() } });
      });
      assert.equal(answer.field, "stars", JSON.stringify(answer));
      const status = page.locator("#pending");
      await status.waitFor();
      assert.match(await status.textContent(), /^Not saved: .+ \(stars\)$/);
      assert.equal(await page.evaluate(() => localStorage.getItem("libations-pending")), "[]", "dropped");
      assert.deepEqual((await me(server)).ratings, {});
      assert.deepEqual(await axe(page), [], "the refusal shown");
      // The next change clears it.
      await page.locator(".single .star").click();
      await status.waitFor({ state: "hidden" });
      // Chromium logs every 4xx answer; that one was expected.
      assert.deepEqual(await watcher.problems([/status of 422 .*\/recipes\/1\]$/]), []);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test(`${screen.name}: a device's own favourites and ticked bottles move in, once`, async () => {
    const server = await as("alice@example.com", stateDir(), ["--local-edit"]);
    const context = await screen.context(browser);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      // Alice has a star of her own already; the device kept two and ticked two bottles.
      await (await openRecipe(page, server, 5)).locator(".star").click();
      await until(async () => (await me(server)).favourites, [5]);
      // The household's shelf has sweet vermouth (from another device).
      const put = await fetch(server.url("/api/bar/shelf"), {
        method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ have: ["sweet vermouth"], out: [] }),
      });
      assert.equal(put.status, 200);
      const device = { version: 1, units: "oz", shelf: ["campari", "gin"], favourites: [2, 5, 7] };
      await page.evaluate((d) => localStorage.setItem("libations", JSON.stringify(d)), device);
      await page.goto(server.url("/"));
      await until(async () => (await me(server)).favourites, [2, 5, 7], "the union");
      const offer = page.locator(".move-in");
      await offer.waitFor();
      assert.match(await offer.textContent(), /2 bottles ticked that the household's shelf does not: campari, gin\./);
      assert.deepEqual(await axe(page), [], "the offer");
      if (process.env.LIBATIONS_SHOTS) await page.screenshot({ path: `${process.env.LIBATIONS_SHOTS}/move-in-${screen.name}.png`, scale: "css" });
      assert.deepEqual((await (await fetch(server.url("/api/bar"))).json()).shelf, ["sweet vermouth"], "not before Add");
      await offer.getByRole("button", { name: "Add" }).click();
      await until(async () => (await (await fetch(server.url("/api/bar"))).json()).shelf, ["campari", "gin", "sweet vermouth"], "on the household's shelf");
      assert.equal(await offer.count(), 0, "the offer is gone");
      // The list marks the person's favourites; the device keeps its own, untouched.
      await until(() => page.evaluate(() => Array.from(document.querySelectorAll("#recipes > li.fav"), (li) => Number(li.dataset.id)).sort((a, b) => a - b)), [2, 5, 7]);
      assert.deepEqual(JSON.parse(await page.evaluate(() => localStorage.getItem("libations"))), device);
      // Can make and missing one answer from the household's shelf (campari, gin and sweet
      // vermouth make a Negroni), as the server does, not from the device's two bottles.
      const bar = await (await fetch(server.url("/api/bar"))).json();
      assert.ok(bar.can_make.includes(1), "the server: a Negroni");
      assert.deepEqual(await search(page, server, "can:make"), bar.can_make.slice().sort((a, b) => a - b));
      assert.deepEqual(await search(page, server, "missing:one"), bar.missing_one.map((m) => m.id).sort((a, b) => a - b));
      assert.equal(await page.locator('#recipes > li[data-id="1"]').getAttribute("data-have"), "all");
      // Once: not offered again, and a star taken away stays away.
      await (await openRecipe(page, server, 7)).locator(".star").click();
      await until(async () => (await me(server)).favourites, [2, 5]);
      // And gin runs out: the device still has it ticked, but the offer was answered.
      await fetch(server.url("/api/bar/shelf"), {
        method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ have: [], out: ["gin"] }),
      });
      await page.goto(server.url("/"));
      // Once the list marks Alice's favourites the page knows her (and would have asked).
      await until(() => page.evaluate(() => Array.from(document.querySelectorAll("#recipes > li.fav"), (li) => Number(li.dataset.id)).sort((a, b) => a - b)), [2, 5]);
      assert.equal(await page.locator(".move-in").count(), 0, "asked once");
      assert.deepEqual((await me(server)).favourites, [2, 5], "not moved in twice");
      assert.deepEqual(await watcher.problems(), []);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test(`${screen.name}: an unknown visitor keeps the device's star and reads why`, async () => {
    const server = await startServer(); // --local without --state-dir: no household
    const context = await screen.context(browser);
    const watcher = await watch(context);
    try {
      const page = await context.newPage();
      const recipe = await openRecipe(page, server, 1);
      const why = page.locator("#why");
      await why.waitFor();
      assert.match(await why.textContent(), /keeps no household.*your choices stay on this device/);
      assert.equal(await recipe.locator("details.mine").isHidden(), true, "no rating, note or made one");
      await recipe.locator(".star").click();
      await until(async () => JSON.parse(await page.evaluate(() => localStorage.getItem("libations")))?.favourites, [1], "kept on the device");
      assert.equal(await page.evaluate(() => localStorage.getItem("libations-pending")), null, "nothing to send");
      assert.deepEqual(await axe(page), [], "an unknown visitor's recipe");
      assert.deepEqual(await watcher.problems(), []);
    } finally {
      await context.close();
      await server.stop();
    }
  });
}
