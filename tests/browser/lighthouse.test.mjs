// Lighthouse, mobile and desktop (1280×800): Accessibility and Best Practices must be 100;
// Performance is printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { CHROMIUM, LAUNCH_ARGS, startServer } from "./lib/browser.mjs";

/** A headless chromium with a DevTools port for Lighthouse to drive. */
function chromiumWithPort() {
  const profile = mkdtempSync(join(tmpdir(), "libations-lh-"));
  const child = spawn(CHROMIUM, [
    ...LAUNCH_ARGS, "--headless", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
    `--user-data-dir=${profile}`, "about:blank",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("chromium did not start:\n" + err)), 30_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => {
      err += d;
      const m = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({
          port: Number(m[1]),
          stop: async () => {
            const exited = new Promise((r) => child.once("exit", r));
            child.kill("SIGTERM");
            await exited;
            // Its helper processes may still be writing the cache as the main one exits.
            rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
          },
        });
      }
    });
  });
}

// The desktop preset, at a laptop's 1280×800.
const DESKTOP = {
  ...desktopConfig,
  settings: { ...desktopConfig.settings, screenEmulation: { mobile: false, width: 1280, height: 800, deviceScaleFactor: 1, disabled: false } },
};

for (const [form, config] of [["mobile", undefined], ["desktop", DESKTOP]]) {
test(`Lighthouse (${form}): accessibility and best practices 100`, async () => {
  const server = await startServer();
  const chrome = await chromiumWithPort();
  try {
    for (const path of ["/", "/recipes/1"]) {
      const result = await lighthouse(server.url(path), {
        port: chrome.port, output: "json", logLevel: "error",
        onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
      }, config);
      const c = result.lhr.categories;
      const score = (k) => Math.round(c[k].score * 100);
      console.log(`Lighthouse ${form} ${path}: performance ${score("performance")}, accessibility ${score("accessibility")}, ` +
        `best practices ${score("best-practices")}, SEO ${score("seo")}`);
      const failing = (k) => c[k].auditRefs.map((r) => result.lhr.audits[r.id])
        .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "manual" && a.scoreDisplayMode !== "notApplicable")
        .map((a) => a.id);
      assert.equal(score("accessibility"), 100, `${path} accessibility: ${failing("accessibility")}`);
      assert.equal(score("best-practices"), 100, `${path} best practices: ${failing("best-practices")}`);
    }
  } finally {
    // The server is stopped even if chromium's profile could not be removed: a running
    // server would keep this file's process, and so the whole run, waiting.
    try {
      await chrome.stop();
    } finally {
      await server.stop();
    }
  }
});
}
