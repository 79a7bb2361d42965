// Photos for the browser tests (issue #44): real JPEGs, drawn by the browser's own canvas,
// and sent through the API as the app's pages send them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./server.mjs";

/** A real JPEG, `width`×`height`, two bands of `top` and `bottom` (CSS colours). */
export async function drawJpeg(browser, { width = 320, height = 240, top = "#b3302a", bottom = "#2f8f57" } = {}) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const data = await page.evaluate(({ width, height, top, bottom }) => {
      const canvas = document.createElement("canvas");
      Object.assign(canvas, { width, height });
      const g = canvas.getContext("2d");
      g.fillStyle = top;
      g.fillRect(0, 0, width, height / 2);
      g.fillStyle = bottom;
      g.fillRect(0, height / 2, width, height / 2);
      return canvas.toDataURL("image/jpeg", 0.85);
    }, { width, height, top, bottom });
    return Buffer.from(data.split(",")[1], "base64");
  } finally {
    await context.close();
  }
}

/** `POST /api/recipes/{id}/photos` with `jpeg`, same-origin as the app's pages send it: the photo. */
export async function sendPhoto(server, id, jpeg) {
  const answer = await fetch(server.url(`/api/recipes/${id}/photos`), {
    method: "POST", headers: { Origin: server.base, "Content-Type": "image/jpeg" }, body: jpeg,
  });
  const body = await answer.json();
  assert.equal(answer.status, 201, JSON.stringify(body));
  return body;
}

/**
 * A photo on every recipe `start(args)` serves: one JPEG sent to each, eight at a time,
 * by as many people as the household's rate (240 writes a minute per person) needs: the
 * server is started again as the next person every 200 photos.
 */
export async function photoOnEveryRecipe(browser, start) {
  // Small, so that 300 of them are made in seconds: its size changes nothing on the page
  // (the cover is shown at 44, 88 or 160 px whatever the photo's).
  const jpeg = await drawJpeg(browser, { width: 96, height: 72 });
  let server = await start(["--local-identity", "photographer0@example.com"]);
  try {
    const recipes = await (await fetch(server.url("/api/recipes"))).json();
    for (let i = 0; i < recipes.length; i += 8) {
      if (i > 0 && i % 200 === 0) {
        await server.stop();
        server = await start(["--local-identity", `photographer${i / 200}@example.com`]);
      }
      await Promise.all(recipes.slice(i, i + 8).map((r) => sendPhoto(server, r.id, jpeg)));
    }
    return recipes.length;
  } finally {
    await server.stop();
  }
}

/**
 * In the page: resolves once the photo spot under `root` (a selector: the opened row, the
 * pane's heading) holds its cover (true; its size is set by the page, not by the picture,
 * so it need not have loaded), or after `ms` (false: the check then names the recipe).
 * Watched, not polled: each recipe is measured the moment photos.js paints it.
 */
export function coverShown(root, ms = 5000) {
  const find = () => document.querySelector(`${root} .photo-spot .photo-thumb img`);
  if (find()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (found) => { watcher.disconnect(); clearTimeout(timer); resolve(found); };
    const watcher = new MutationObserver(() => { if (find()) done(true); });
    const timer = setTimeout(() => done(false), ms);
    watcher.observe(document.body, { childList: true, subtree: true });
  });
}

/**
 * A household for `recipesFile` (a fresh state directory): `start(extra)` serves it,
 * `photograph(browser)` puts a photo on every recipe, `remove()` takes it away.
 */
export function photoHousehold(recipesFile) {
  const dir = mkdtempSync(join(tmpdir(), "libations-photo-fit-"));
  const start = (extra = []) => startServer(["--recipes-file", recipesFile, "--state-dir", join(dir, "state"), ...extra]);
  return {
    start,
    photograph: (browser) => photoOnEveryRecipe(browser, start),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
