// The standing check on tap targets (issue 43): every page at phone size (390×844), as an
// editor who may compose menus and keep the shelf sees it, so that every control is there.
//
// The rule, per page:
// - Every visible control is at least 44×44 CSS px (WCAG 2.5.5, Apple's HIG). Controls are
//   a[href], button, input (not hidden), select, textarea and summary.
// - A checkbox or radio, and any input drawn smaller than 2 px (visually hidden behind a
//   label styled as the control), counts by its label's box: tapping the label is tapping it.
// - Inline links inside running text are exempt (WCAG 2.5.8's inline exception): a link
//   laid out inline inside a p, li, dd or td that also holds words of its own. Links in
//   the header, a nav or the footer are navigation, never running text: they are checked.
// - Nothing is wider than the screen (no sideways scrolling).
// - Printed (print media), the page shows no control at all, except the list's rows,
//   links in running text and a details' summary, which print as plain names and words.
// A failure names the page, the element and its size. A new page is checked by adding it
// to PAGES.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launch, phone, startServer } from "./lib/browser.mjs";
import { fitsWidth, loaded, shelfBox } from "./lib/checks.mjs";
import { drawJpeg, sendPhoto } from "./lib/photos.mjs";

const MIN = 44;
let browser, server, dir;

before(async () => {
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), "libations-targets-"));
  const file = join(dir, "recipes.json");
  copyFileSync(join(ROOT, "recipes/sample.json"), file);
  server = await startServer([
    "--recipes-file", file, "--state-dir", join(dir, "state"),
    "--allow-edits", "--local-edit", "--local-identity", "host@example.com",
  ]);
  // A menu switched on (for /menu), an item on the shopping list, and one change (for /changes).
  const { id } = await api("POST", "/api/menus", { title: "Friday", recipes: [{ id: 1 }, { id: 2 }] });
  await api("POST", `/api/menus/${id}/on`);
  await api("PUT", "/api/bar/shopping", { add: ["Limes", "Campari"], bought: ["Campari"] });
  // A photo of recipe 2, deleted: its page says so with Undo, and lists it to restore.
  const photo = await sendPhoto(server, 2, await drawJpeg(browser));
  assert.equal(photo.id, 1, "the household's first photo");
  const gone = await fetch(server.url("/api/recipes/2/photos/1"), { method: "DELETE", headers: { Origin: server.base } });
  assert.equal(gone.status, 204);
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function api(method, path, body) {
  const response = await fetch(server.url(path), {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Every page, and what to do on it once loaded so that its hidden controls show. */
const PAGES = [
  { path: "/", ready: loaded },
  {
    path: "/?q=gin", label: "/?q=gin, a row opened",
    ready: async (page) => {
      await loaded(page);
      await page.locator("#recipes > li:not([hidden]) > a.row").first().tap();
      await page.waitForSelector("#recipes > li.open .tools");
    },
  },
  { path: "/recipes/1" },
  {
    path: "/recipes/2?photo_deleted=1", label: "/recipes/2 after a photo was deleted, its deleted photos opened",
    ready: async (page) => {
      await page.locator(".photo-undo button", { hasText: "Undo" }).waitFor();
      await page.locator("details.photos-gone summary").tap();
    },
  },
  { path: "/shelf", label: "/shelf, a kind opened", ready: async (page) => { await shelfBox(page, "gin"); } },
  { path: "/menus" },
  { path: "/menu" },
  { path: "/changes" },
  { path: "/recipes/new" },
  { path: "/recipes/3/edit", label: "/recipes/3/edit (two glasses, values to tap)" },
  { path: "/recipes/import" },
  { path: "/shopping" },
  { path: "/no-such-page", label: "the error page" },
];

/**
 * In the page: every visible control's box, as [{what, width, height}] for those under
 * `min` (all of them when `min` is 0). The list's lazily laid out rows are laid out first.
 */
function measure({ min, print }) {
  for (const li of document.querySelectorAll(".recipes > li")) li.style.contentVisibility = "visible";
  const SELECTOR = "a[href], button, input:not([type=hidden]), select, textarea, summary";
  const prose = (el) => {
    if (el.tagName !== "A" || el.closest("header, nav, footer")) return false;
    if (getComputedStyle(el).display !== "inline") return false;
    const block = el.parentElement.closest("p, li, dd, td");
    if (!block) return false;
    const own = Array.from(block.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join("");
    return /\p{L}/u.test(own);
  };
  const target = (el) => {
    if (el.tagName !== "INPUT") return el;
    const box = el.getBoundingClientRect();
    const small = box.width < 2 || box.height < 2;
    if (!["checkbox", "radio"].includes(el.type) && !small) return el;
    return el.closest("label") ?? (el.id && document.querySelector(`label[for="${CSS.escape(el.id)}"]`)) ?? el;
  };
  const describe = (el) => {
    const text = (el.textContent || el.value || el.getAttribute("aria-label") || el.placeholder || "").trim().replace(/\s+/g, " ").slice(0, 40);
    const cls = el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "";
    return `<${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${cls}> "${text}"`;
  };
  const out = [];
  for (const el of document.querySelectorAll(SELECTOR)) {
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
    if (prose(el)) continue;
    if (print && el.matches("#recipes > li > a.row, summary")) continue;
    const t = target(el);
    const box = t.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.width < min || box.height < min || print) {
      out.push({ what: describe(el) + (t === el ? "" : ` (by ${describe(t)})`), width: Math.round(box.width * 10) / 10, height: Math.round(box.height * 10) / 10 });
    }
  }
  return out;
}

for (const { path, label = path, ready } of PAGES) {
  test(`${label} at 390×844: every control ≥ ${MIN}×${MIN} px, nothing sideways, none printed`, async () => {
    const context = await phone(browser, { reducedMotion: "reduce" });
    const page = await context.newPage();
    try {
      await page.goto(server.url(path));
      await ready?.(page);
      const small = await page.evaluate(measure, { min: MIN, print: false });
      assert.deepEqual(small.map((s) => `${label}: ${s.what} is ${s.width}×${s.height}`), [], `${label}: controls under ${MIN}×${MIN}`);
      assert.ok(await fitsWidth(page), `${label}: no horizontal overflow (scrollWidth ${await page.evaluate(() => document.documentElement.scrollWidth)})`);
      await page.emulateMedia({ media: "print" });
      const printed = await page.evaluate(measure, { min: 0, print: true });
      assert.deepEqual(printed.map((s) => `${label} printed: ${s.what}`), [], `${label}: no control printed`);
    } finally {
      await context.close();
    }
  });
}
