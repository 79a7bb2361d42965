// Shared by the browser tests: start the real binary, open a phone-sized chromium page,
// and collect everything a page should never print (console errors, CSP violations).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { recordSkip } from "../../skip-log.mjs";
import { ROOT } from "./server.mjs";

export { ROOT, binary, startServer, tempDir } from "./server.mjs";
// For tests outside tests/browser/ (tests/browser-tailnet/), which cannot resolve the
// packages installed here by name.
export { chromium };
// Debian's chromium-headless-shell: the same Blink and V8 as its chromium, without the
// desktop browser around them, and about 40 % less CPU for the same file (fit.test.mjs:
// 115 s against 65, the whole machine's CPU; docs/PERFORMANCE.md). Its own binary, not /usr/bin's wrapper script,
// which would outlive a SIGTERM meant for chromium (lighthouse.test.mjs stops it so).
export const CHROMIUM = process.env.CHROME_PATH || "/usr/lib/chromium/chromium-headless-shell";
// The whole browser, for what only it has (pwa.test.mjs): an installer, to judge whether
// the app can be installed, and a screen wake lock; in the headless shell the first
// question is never answered and a wake lock is never granted.
export const FULL_CHROMIUM = process.env.FULL_CHROME_PATH || "/usr/bin/chromium";
// Without the background-networking flags chromium tries to reach Google's services.
export const LAUNCH_ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

/** iPhone 14/15-sized: 390×844 CSS px at 3× with touch. */
export const PHONE = {
  viewport: { width: 390, height: 844 },
  screen: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  userAgent:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
};

/** A tablet held upright, a laptop, a desktop monitor. */
export const SIZES = [
  { name: "tablet", width: 820, height: 1180, touch: true },
  { name: "laptop", width: 1280, height: 800, touch: false },
  { name: "desktop", width: 1920, height: 1080, touch: false },
];

/** A context of `size` (one of SIZES); `options` as for browser.newContext. */
export async function wideContext(browser, size, options = {}) {
  return browser.newContext({
    viewport: { width: size.width, height: size.height },
    deviceScaleFactor: 1, hasTouch: size.touch, isMobile: false, ...options,
  });
}

/**
 * `../shared/data/<name>` beside the repository, or null after printing why the test is
 * skipped. LIBATIONS_REQUIRE_SHARED_DATA=1 (as CI sets it) turns the skip into a failure.
 */
export function sharedData(name, t) {
  const path = fileURLToPath(new URL(`../shared/data/${name}`, new URL(ROOT, "file://")));
  if (existsSync(path)) return path;
  if (process.env.LIBATIONS_REQUIRE_SHARED_DATA === "1") {
    throw new Error(`LIBATIONS_REQUIRE_SHARED_DATA=1 but ${path} is missing`);
  }
  const message = `SKIPPED: ${path} not found (the shared test data lives beside this clone, in ../shared/data)`;
  console.log(message);
  recordSkip(t, message);
  t?.skip(message);
  return null;
}

export async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
}

/** The whole chromium (FULL_CHROMIUM), for what the headless shell lacks. */
export async function launchFull() {
  return chromium.launch({ executablePath: FULL_CHROMIUM, args: LAUNCH_ARGS });
}

/** A phone context; `colorScheme` is "light" or "dark". */
export async function phone(browser, { colorScheme = "light", ...options } = {}) {
  return browser.newContext({ ...PHONE, colorScheme, ...options });
}

// Recorded in the page itself: CSP violations are events, not always console messages.
const WATCH_SCRIPT = () => {
  window.__violations = [];
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
  });
};

/**
 * Collects console errors and warnings, uncaught exceptions and CSP violations for every
 * page of `context`. `problems()` lists them; `allow` filters expected messages.
 */
export async function watch(context) {
  const seen = [];
  await context.addInitScript(WATCH_SCRIPT);
  const attach = (page) => {
    page.on("console", (msg) => {
      if (msg.type() === "error" || msg.type() === "warning") seen.push(`console.${msg.type()}: ${msg.text()} [${page.url()}]`);
    });
    page.on("pageerror", (err) => seen.push(`uncaught: ${err.message} [${page.url()}]`));
  };
  context.pages().forEach(attach);
  context.on("page", attach);
  return {
    async problems(allow = []) {
      for (const page of context.pages()) {
        const v = await page.evaluate(() => window.__violations || []).catch(() => []);
        for (const line of v) if (!seen.includes(`csp: ${line}`)) seen.push(`csp: ${line}`);
      }
      return seen.filter((line) => !allow.some((re) => re.test(line)));
    },
  };
}

/** Waits until the page has stopped scrolling (smooth scrolling takes a few frames). */
export async function settle(page) {
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        let last = -1, same = 0;
        const tick = () => {
          const y = window.scrollY;
          same = y === last ? same + 1 : 0;
          last = y;
          if (same >= 3) resolve();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
}
