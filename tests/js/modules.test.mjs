// The page's JavaScript is ES modules served from one directory named by a hash over all
// of them (crates/web/src/site/assets.rs), so that a page never mixes two builds' modules. Walks the
// imports from the page's <script type="module"> as a browser does, against the real
// binary ($LIBATIONS_BIN, else the newer of target/{release,debug}/libations).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { ROOT, startServer } from "../browser/lib/server.mjs";

let server;
before(async () => { server = await startServer(); });
after(() => server?.stop());

const text = async (path) => (await fetch(server.url(path))).text();

test("every module comes from the page's hashed directory, cached like the other hashed assets", async () => {
  const html = await text("/");
  const entry = /<script type="module" src="([^"]+)"><\/script>/.exec(html)?.[1];
  assert.match(entry ?? html, /^\/static\/js\.[0-9a-f]{16}\/app\.js$/);
  const dir = entry.slice(0, entry.lastIndexOf("/") + 1);
  const css = await fetch(server.url(/href="(\/static\/app\.[0-9a-f]+\.css)"/.exec(html)[1]));
  // The guests' menu has an entry of its own (static/js/menu.js), in the same directory
  // under /menu/assets/, the only files the guests' routes serve.
  const menu = /<script type="module" src="([^"]+)"><\/script>/.exec(await text("/menu"))?.[1];
  assert.equal(menu, "/menu/assets/" + dir.slice("/static/".length) + "menu.js");
  const seen = new Set();
  const queue = ["app.js", "menu.js"];
  while (queue.length > 0) {
    const name = queue.shift();
    if (seen.has(name)) continue;
    seen.add(name);
    const response = await fetch(server.url(dir + name));
    assert.equal(response.status, 200, dir + name);
    assert.match(response.headers.get("content-type"), /javascript/, name);
    assert.equal(response.headers.get("cache-control"), css.headers.get("cache-control"), name);
    const body = await response.text();
    const file = readFileSync(ROOT + "static/js/" + name, "utf8");
    assert.equal(body, file, `${dir}${name} is static/js/${name} (is the binary older than the file?)`);
    for (const [, from] of body.matchAll(/^import\s[^;]*?from\s+"([^"]+)";/gm)) {
      assert.match(from, /^\.\/[a-z-]+\.js$/, `${name} imports ${from} by a relative name, inside the directory`);
      queue.push(from.slice(2));
    }
  }
  const files = readdirSync(ROOT + "static/js").filter((f) => f.endsWith(".js")).sort();
  assert.deepEqual([...seen].sort(), files, "every module in static/js/ is imported, and only those");
});

test("another build's directory is not served, and the service worker keeps every module", async () => {
  const html = await text("/");
  const entry = /<script type="module" src="([^"]+)"><\/script>/.exec(html)[1];
  const dir = entry.slice(0, entry.lastIndexOf("/") + 1);
  const other = dir.replace(/js\.[0-9a-f]+/, "js.0123456789abcdef");
  assert.notEqual(other, dir);
  assert.equal((await fetch(server.url(other + "app.js"))).status, 404, other);
  const worker = await text("/sw.js");
  const precache = JSON.parse(/^const PRECACHE = (.*);$/m.exec(worker)[1]);
  const modules = readdirSync(ROOT + "static/js").filter((f) => f.endsWith(".js"));
  for (const name of modules) assert.ok(precache.includes(dir + name), `the service worker keeps ${dir}${name}`);
});

test("the vocabulary is served beside the modules, as data/vocabulary.json, and kept offline with them", async () => {
  const html = await text("/");
  const entry = /<script type="module" src="([^"]+)"><\/script>/.exec(html)[1];
  const dir = entry.slice(0, entry.lastIndexOf("/") + 1);
  const response = await fetch(server.url(dir + "vocabulary.json"));
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type"), /^application\/json/);
  const app = await fetch(server.url(entry));
  assert.equal(response.headers.get("cache-control"), app.headers.get("cache-control"));
  // One table, not a copy: data/vocabulary.json's entries with the fields the browser reads
  // (the sources and strengths stay on the server).
  const file = JSON.parse(readFileSync(ROOT + "data/vocabulary.json", "utf8"));
  const pick = (o, keys) => Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
  const cut = file.entries.map((e) => {
    const c = pick(e, ["id", "name", "is", "also", "made_of", "staple"]);
    if (c.made_of) c.made_of = pick(c.made_of, ["parts", "how", "keeps"]);
    return c;
  });
  assert.deepEqual(await response.json(), { entries: cut });
  const worker = await text("/sw.js");
  const precache = JSON.parse(/^const PRECACHE = (.*);$/m.exec(worker)[1]);
  assert.ok(precache.includes(dir + "vocabulary.json"), "the service worker keeps it");
});
