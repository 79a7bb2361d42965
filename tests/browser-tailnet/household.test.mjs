// The household in a real browser over the real tailnet (issue 26): headless Chromium
// opens https://libations.<tailnet>/ AS a phone (tailnet.mjs says how), with JavaScript,
// against the real binary joined to the harness's tailnet. Two people: the phone's user
// (two browsers of theirs: A1 and A2, each its own Chromium and profile) and phone2's
// user (browser B). Proven here, where only the tailnet says who is asking:
//   (a) the certificate is Pebble's and valid (a browser without Pebble's root refuses
//       it), and the footer names each phone's person;
//   (b) a star on A1 shows on A2 (same person) and not on B (another person);
//   (c) a shelf tick by a person the policy grants the shelf changes "Can make" for the
//       other person;
//   (d) a star made offline waits on the device, shown as pending, and is sent when the
//       browser is back online.
// What the server stored is read back over the tailnet too (the harness's /fetch as each
// phone), so every check sees the app's answer, not only the page's.
//
// Not under tests/browser/, so `node --test tests/browser/` does not run it a second time;
// it uses tests/browser/lib and tests/browser/node_modules (`npm ci` there first).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recordSkip } from "../skip-log.mjs";
import { watch } from "../browser/lib/browser.mjs";
import { shelfBox, until } from "../browser/lib/checks.mjs";
import { missingTools, openBrowser, startApp, startHarness, trustingHome } from "./tailnet.mjs";

const CAPABILITY = "libations.app/cap/libations";
// recipes/sample.json (the embedded sample): with gin, lime juice and sugar syrup on the
// shelf, Gimlet (10) is the one recipe that can be made; with an empty shelf, none.
const GIMLET = 10;

const missing = missingTools();
if (missing.length > 0) {
  test("a real browser over the real tailnet", (t) => {
    const message = `SKIPPED: a real browser over the real tailnet needs ${missing.join(", ")}`;
    console.log(message);
    recordSkip(t, message);
    t.skip(message);
  });
} else {
  const dir = mkdtempSync(join(tmpdir(), "libations-browser-tailnet-"));
  let h, app, home;
  const browsers = {};
  const watchers = {};
  const page = (name) => browsers[name].pages()[0];

  // A person's own as the app stores them, asked over the tailnet from that phone.
  const me = async (from) => JSON.parse((await h.fetch(app.url("/api/me"), from)).body);
  const whoami = async (from) => JSON.parse((await h.fetch(app.url("/api/whoami"), from)).body);

  // A recipe's own page, once the page knows who is asking (the star shows then).
  async function openRecipe(name, id) {
    const p = page(name);
    await p.goto(app.url(`/recipes/${id}`));
    const recipe = p.locator(`.single .recipe[data-id="${id}"]`);
    await recipe.locator(".star:not([hidden])").waitFor({ timeout: 15_000 });
    return recipe.locator(".star");
  }

  before(async () => {
    h = await startHarness(dir, ["-distinct-users", "-second-peer", "phone2"]);
    app = await startApp(h, join(dir, "state"));
    home = trustingHome(dir, h.fields.pebble_root);
    const [a1, a2, b] = await Promise.all([
      openBrowser(dir, "a1", { proxy: h.fields.proxy, home }),
      openBrowser(dir, "a2", { proxy: h.fields.proxy, home }),
      openBrowser(dir, "b", { proxy: h.fields.proxy2, home }),
    ]);
    Object.assign(browsers, { a1, a2, b });
    for (const [name, context] of Object.entries(browsers)) {
      watchers[name] = await watch(context);
      if (context.pages().length === 0) await context.newPage();
    }
  }, { timeout: 240_000 });

  after(async () => {
    await Promise.all(Object.values(browsers).map((b) => b.close().catch(() => {})));
    await app?.stop();
    await h?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("(a) Pebble's certificate is valid to Chromium, and the footer names each phone's person", async () => {
    const host = new URL(app.base).hostname;
    assert.equal(host, `libations.${h.fields.domain}`);
    const cases = [["a1", "phone", h.fields.peer_login], ["b", "phone2", h.fields.peer2_login]];
    for (const [name, node, login] of cases) {
      const p = page(name);
      const response = await p.goto(app.url("/"));
      assert.equal(response.status(), 200, name);
      const tls = await response.securityDetails();
      assert.equal(tls.subjectName, host, `${name}: the app's own name`);
      assert.match(tls.issuer, /^Pebble Intermediate CA /, `${name}: issued by the test CA`);
      assert.equal(tls.protocol, "TLS 1.3");
      const who = p.locator("#who");
      await who.waitFor({ state: "visible", timeout: 15_000 });
      assert.match(await who.textContent(), new RegExp(`^User \\d+ \u00b7 ${node}$`), `${name}: the footer`);
      assert.equal(await who.getAttribute("title"), login, `${name}: the person's login`);
      assert.equal((await whoami(node)).login, login);
    }
    assert.notEqual(h.fields.peer_login, h.fields.peer2_login, "two people");

    // The same browser without Pebble's root in its trust store refuses the certificate: the
    // pages above loaded because the chain is valid, not because checks were skipped.
    const empty = join(dir, "home-empty");
    mkdirSync(empty);
    const untrusting = await openBrowser(dir, "untrusting", { proxy: h.fields.proxy, home: empty });
    try {
      const p = untrusting.pages()[0] ?? (await untrusting.newPage());
      await assert.rejects(p.goto(app.url("/")), /ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await untrusting.close();
    }
  });

  test("(b) a star on one of a person's browsers shows on their other one, not on another person's", async () => {
    const star = await openRecipe("a1", 1);
    assert.equal(await star.getAttribute("aria-pressed"), "false");
    await star.click();
    await until(() => star.getAttribute("aria-pressed"), "true", "A1 shows it starred");
    await until(async () => (await me("phone")).favourites, [1], "the app stores the star as the phone's person's");

    const other = await openRecipe("a2", 1);
    await until(() => other.getAttribute("aria-pressed"), "true", "the same person's other browser shows the star");

    const theirs = await openRecipe("b", 1);
    // Give the page's /api/me time to land before saying it is not starred.
    await page("b").waitForLoadState("networkidle");
    assert.equal(await theirs.getAttribute("aria-pressed"), "false", "another person's browser does not");
    assert.deepEqual((await me("phone2")).favourites, [], "nor does the app hold it as theirs");
  });

  test("(c) a shelf tick by a person the policy grants the shelf changes Can make for the other person", async () => {
    // "Can make" as the other person's list shows it: the recipes left for can:make.
    const canMake = async () => {
      const p = page("b");
      await p.goto(app.url("/?q=can:make"));
      await p.waitForFunction(() => document.documentElement.classList.contains("js") && !document.getElementById("recipes").hasAttribute("aria-busy"));
      await p.waitForLoadState("networkidle");
      return p.evaluate(() => Array.from(document.querySelectorAll("#recipes > li:not([hidden])"), (li) => Number(li.dataset.id)));
    };
    assert.deepEqual(await canMake(), [], "an empty shelf makes nothing");

    // Without a grant the shelf is read-only to the phone's person.
    const a = page("a1");
    await a.goto(app.url("/shelf"));
    await a.locator("#bar-who").waitFor({ state: "visible", timeout: 15_000 });
    assert.equal(await a.isVisible("#shelf-rights"), true, "the read-only line shows");
    assert.equal(await a.isDisabled('#shelf input[value="gin"]'), true, "no ticking without the grant");

    // The policy grants the shelf; it reaches the app with the next map response.
    await h.grant({ [CAPABILITY]: [{ shelf: true }] });
    await until(async () => (await whoami("phone")).capabilities.shelf, true, "the grant reached the app", 60_000);
    await a.goto(app.url("/shelf"));
    await a.locator("#bar-who").waitFor({ state: "visible", timeout: 15_000 });
    await until(() => a.isDisabled('#shelf input[value="gin"]'), false, "the granted person may tick");
    const puts = [];
    a.on("response", (r) => { if (r.url().endsWith("/api/bar/shelf")) puts.push(r.status()); });
    for (const key of ["gin", "lime juice", "simple syrup"]) await (await shelfBox(a, key)).check();
    await until(() => puts, [200, 200, 200], "three ticks sent and answered");
    const bar = JSON.parse((await h.fetch(app.url("/api/bar"), "phone2")).body);
    assert.deepEqual(bar.can_make, [GIMLET], "the app answers the other person with the household's shelf");

    assert.deepEqual(await canMake(), [GIMLET], "the other person's Can make follows the tick");
    const b = page("b");
    await b.goto(app.url("/shelf"));
    await b.locator("#bar-who").waitFor({ state: "visible", timeout: 15_000 });
    await until(() => b.locator("#can-make-n").textContent(), "1", "their My bar counts it");
    await until(() => b.locator("#shelf input:checked").evaluateAll((l) => l.map((x) => x.value).sort()),
      ["gin", "lime juice", "simple syrup"], "and shows the household's ticks");
  });

  test("(d) a star made offline is shown as pending and sent when the browser is back online", async () => {
    const earlier = (await me("phone")).favourites;
    assert.equal(earlier.includes(3), false);
    const star = await openRecipe("a1", 3);
    const pending = page("a1").locator("#pending");
    assert.equal(await star.getAttribute("aria-pressed"), "false");
    assert.equal(await pending.isHidden(), true, "nothing waits");
    await browsers.a1.setOffline(true);
    await star.click();
    await until(() => star.getAttribute("aria-pressed"), "true", "shown starred at once");
    await pending.waitFor({ state: "visible" });
    assert.match(await pending.textContent(), /^1 change waiting to be sent/);
    assert.deepEqual((await me("phone")).favourites, earlier, "not on the app yet");

    await browsers.a1.setOffline(false);
    await until(async () => (await me("phone")).favourites, [...earlier, 3].sort((x, y) => x - y), "sent when back online");
    await pending.waitFor({ state: "hidden" });
    assert.equal(await star.getAttribute("aria-pressed"), "true");
    const other = await openRecipe("a2", 3);
    await until(() => other.getAttribute("aria-pressed"), "true", "and the person's other browser shows it");
  });

  test("no console errors, CSP violations or uncaught exceptions in any browser", async () => {
    for (const [name, watcher] of Object.entries(watchers)) assert.deepEqual(await watcher.problems(), [], name);
  });
}
