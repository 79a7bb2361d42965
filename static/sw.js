// Libations service worker: the recipes stay readable when the phone drops off the network.
// Network first, so nothing stale is shown while the server answers; the cache only when it
// does not. Except for files named by their content (the stylesheet, icons, every module):
// one address never holds another text, so they come from the cache when it has them,
// without asking the network (a page load asked for some forty of them each time, most of
// what it cost the phone). The server puts VERSION, PRECACHE and NAMED_BY_CONTENT before
// this text (crates/web/src/site/pwa.rs); new recipes or assets change them, and so install
// a fresh worker.
"use strict";
/* global VERSION, PRECACHE, NAMED_BY_CONTENT */
const CACHE = "libations-" + VERSION;
const LASTING = new Set(NAMED_BY_CONTENT);

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(
        keys.filter((k) => k.startsWith("libations-") && k !== CACHE).map((k) => caches.delete(k)),
      ))
      .then(() => self.clients.claim()),
  );
});

// What is worth keeping: the list, recipe pages, all recipes' JSON, the shelf page and its
// ingredients, assets, and who is asking with what is theirs and the household's shelf
// (/api/me, /api/bar: asked afresh whenever the network answers, the last answer kept
// for offline; changes made offline wait in static/js/pending.js, not here), and the
// guests' menu (/menu and its files: the bar's tablet keeps showing the last one). Not
// searches: offline, the list page filters by itself. Not the menu's change feed: its
// script asks again when the network is back.
function keep(url) {
  const p = url.pathname;
  if (url.search) return false;
  return p === "/" || p === "/api/recipes" || p === "/shelf" || p === "/api/ingredients" ||
    p === "/api/me" || p === "/api/bar" ||
    p === "/manifest.webmanifest" || p === "/menu" || p === "/menu/print" ||
    p.startsWith("/static/") || p.startsWith("/menu/assets/") || /^\/(api\/)?recipes\/\d+$/.test(p);
}

async function fromCache(request, url) {
  const cache = await caches.open(CACHE);
  let hit = await cache.match(request, { ignoreVary: true });
  // A page never kept falls back to the list; the guests' menu never does (not theirs).
  if (!hit && request.mode === "navigate" && !url.pathname.startsWith("/menu")) {
    hit = await cache.match("/", { ignoreVary: true });
  }
  if (!hit) return null;
  // Tells the page that what it shows may be old (static/js/list.js shows the offline hint).
  const headers = new Headers(hit.headers);
  headers.set("X-Libations-Offline", "1");
  return new Response(hit.body, { status: hit.status, statusText: hit.statusText, headers });
}

async function networkFirst(event, request, url) {
  try {
    const response = await fetch(request);
    if (response.ok && keep(url)) {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((c) => c.put(request, copy)).catch(() => {}));
    }
    return response;
  } catch (error) {
    const cached = await fromCache(request, url);
    if (cached) return cached;
    throw error;
  }
}

// A file named by its content: the cached copy, else the network's (kept).
async function cacheFirst(event, request, url) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, { ignoreVary: true });
  return hit ?? networkFirst(event, request, url);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const lasting = !url.search && LASTING.has(url.pathname);
  event.respondWith(lasting ? cacheFirst(event, request, url) : networkFirst(event, request, url));
});
