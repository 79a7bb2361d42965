// Renders static/icon.svg into the PNG icons the manifest and iOS need, with Debian's
// chromium. Run it after changing icon.svg: `node tests/browser/icons.mjs`; commit the PNGs.
import { readFileSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM, LAUNCH_ARGS } from "./lib/browser.mjs";

const root = new URL("../../", import.meta.url);
const svg = readFileSync(new URL("static/icon.svg", root), "utf8");
// The drawing without the rounded square, for full-bleed variants.
const drawing = svg.replace(/^<svg[^>]*>/, "").replace(/<\/svg>\s*$/, "").replace(/<rect[^>]*\/>/, "");
const background = /<rect[^>]*fill="([^"]+)"/.exec(svg)[1];

// Maskable and Apple icons are cropped by the system: fill the square and keep the drawing
// inside the central safe zone (a circle of 80% of the size).
function fullBleed(scale) {
  const offset = (64 - 64 * scale) / 2;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="${background}"/>` +
    `<g transform="translate(${offset} ${offset}) scale(${scale})">${drawing}</g></svg>`;
}

const outputs = [
  ["icon-192.png", 192, svg],
  ["icon-512.png", 512, svg],
  ["icon-maskable-512.png", 512, fullBleed(0.62)],
  ["apple-touch-icon.png", 180, fullBleed(0.8)],
];

const browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
try {
  for (const [name, size, source] of outputs) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const sized = source.replace("<svg ", `<svg width="${size}" height="${size}" `);
    await page.setContent(`<!doctype html><body style="margin:0;background:transparent">${sized}</body>`);
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    writeFileSync(new URL(`static/${name}`, root), png);
    await page.close();
    console.log(`static/${name}: ${size}×${size}, ${png.length} bytes`);
  }
} finally {
  await browser.close();
}
