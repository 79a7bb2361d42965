// The household's own rules on My bar (issue 42), in a real browser against the real
// binary at a phone's size: a shelf keeper adds "Dry curaçao for Triple sec" with the two
// bottle fields of "Our stand-ins", and the can:make list then shows the Margarita made
// with it, in the household's words (worked out in the page, and the same from the server
// without JavaScript); a name the app does not know is refused naming the field, and
// nothing is sent; Remove takes the rule back; axe finds nothing.
//
// Worked out by hand from recipes/sample.json and data/vocabulary.json: the Margarita (3:
// Blanco Tequila, Triple Sec, Lime Juice, Agave Syrup) on a shelf of Blanco tequila, Limes,
// Agave syrup and Dry curaçao lacks only Triple sec, which no built-in step gives from Dry
// curaçao (a curaçao is not a triple sec); the rule does.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, phone, startServer, watch } from "./lib/browser.mjs";
import { axe, until } from "./lib/checks.mjs";

const SHELF = ["Blanco tequila", "Limes", "Agave syrup", "Dry curaçao"];
const LIMES = "Limes for Lime juice (squeezed from limes: about 25 ml a lime; keeps best the day it is squeezed)";
const RULE = "Dry curaçao for Triple sec (the household's rule)";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const haves = (page) => page.locator("#recipes > li:not([hidden])").evaluateAll((lis) => Object.fromEntries(
  lis.map((li) => [li.querySelector(".name").textContent, li.querySelector(".have")?.textContent ?? null])));

const api = (page) => page.evaluate(async () => (await fetch("/api/bar")).json());

test("phone 390x844: a rule added on My bar makes the Margarita, saying how; removed, it does not", async () => {
  const dir = mkdtempSync(join(tmpdir(), "libations-rules-"));
  const server = await startServer(["--local-identity", "alice@example.com", "--state-dir", dir, "--local-shelf"]);
  const context = await phone(browser);
  const watcher = await watch(context);
  try {
    const page = await context.newPage();
    await page.goto(server.url("/shelf"));
    await page.locator("#bar-who").waitFor({ state: "visible" });
    const bar = await page.evaluate(async (have) => {
      const r = await fetch("/api/bar/shelf", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ have }) });
      return r.json();
    }, SHELF);
    assert.ok(!bar.can_make.includes(3), JSON.stringify(bar));
    await page.reload();
    await page.locator("#bar-who").waitFor({ state: "visible" });

    // A name the app does not know: refused naming the field, nothing sent.
    const have = page.getByLabel("We have"), wanted = page.getByLabel("For", { exact: true });
    await until(() => have.isEnabled(), true, "a shelf keeper may add a rule");
    await have.fill("House hooch");
    await wanted.fill("Triple sec");
    await page.getByRole("button", { name: "Add", exact: true }).last().click();
    await until(() => page.locator("#rule-status").textContent(), "We have: “House hooch” is no bottle or kind the app knows; pick one of the names offered.", "the field is named");
    assert.deepEqual((await api(page)).rules, []);

    await have.fill("Dry Curacao");
    await wanted.fill("triple sec");
    await page.locator("#rule-add button").click();
    await until(() => page.locator("#rules-list li span").allTextContents(), ["Dry curaçao for Triple sec"], "the rule is listed");
    await until(async () => (await api(page)).rules, [{ have: "Dry curaçao", wanted: "Triple sec" }], "the server keeps it");
    assert.deepEqual(await axe(page), []);

    await page.goto(server.url("/?q=can:make"));
    await until(() => haves(page), { Margarita: `can make now: ${RULE}; ${LIMES}` }, "the Margarita, made with the rule");
    assert.deepEqual(await axe(page), []);
    const plain = await phone(browser, { javaScriptEnabled: false });
    const still = await plain.newPage();
    await still.goto(server.url("/?q=can:make"));
    assert.deepEqual(await haves(still), await haves(page), "the server says the same");
    await plain.close();

    await page.goto(server.url("/shelf"));
    await page.getByRole("button", { name: "Remove Dry curaçao for Triple sec" }).click();
    await until(async () => (await api(page)).rules, [], "taken back");
    await page.goto(server.url("/?q=can:make"));
    await until(() => haves(page), {}, "nothing to make without it");
    assert.deepEqual(await watcher.problems(), []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
