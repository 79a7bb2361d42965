// Checks the browser tests share, once: polling until the page agrees, axe-core on a page,
// the list having its data, and the page not scrolling sideways. (The browser tests over
// the tailnet use them too.) Needs axe-core from tests/browser's packages.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";

/**
 * Polls `read` until what it returns deep-equals `want` (the page updates on its own
 * time), then asserts it: after `timeout` ms the assertion fails, showing what was read.
 * 15 s by default: grants and pages over the test tailnet take their time.
 */
export async function until(read, want, message, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  let got;
  for (;;) {
    got = await read();
    if (isDeepStrictEqual(got, want) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(got, want, message);
}

let axeSource = null;

/**
 * axe-core's violations on `page` now, one line each (rule, help, first elements). Evaluated
 * through the DevTools protocol, so the page's CSP (rightly) does not apply.
 */
export async function axe(page) {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")})`);
}

/** Resolves once the list has its data (app.js marks the rows it has taken over). */
export const loaded = (page, options = {}) =>
  page.waitForSelector("#recipes a.row[aria-expanded]", { state: "attached", ...options });

/** Resolves once the service worker has installed and controls `page`. */
export const workerInControl = (page) =>
  page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
    }
  });

/** Whether nothing on the page is wider than the screen (no sideways scrolling). */
export const fitsWidth = (page) => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);

// My bar's box for the shelf value `key`, its kind's group opened first (the picker shows
// bottles grouped by kind, each group closed until it is opened or a search finds in it).
export async function shelfBox(page, key) {
  const inside = `input[type=checkbox][value="${key}"]`;
  const box = page.locator(`#shelf ${inside}`);
  const group = page.locator("#shelf details.kind", { has: page.locator(inside) });
  if (!(await group.evaluate((d) => d.open))) await group.locator("summary").click();
  return box;
}
