// The guests' menu (/menu) follows the host: every few seconds it asks /menu/feed whether
// what it shows is still the menu (If-None-Match: its version; a 304 says yes) and, when
// not, fetches /menu again and puts its <main> in place of its own, without a reload.
// "Keep screen on" holds a Screen Wake Lock, where the browser has one (./wake.js).
// This module touches nothing of the rest of the app: the Funnel serves it to guests.
import { startWake, wakeToggle } from "./wake.js";

const FEED = "/menu/feed";
const EVERY_MS = 4000;
// Refused for asking too often (429, a rate per address: guests behind one router share
// it), or no answer: ask less often, up to once a minute, until an answer comes.
const SLOWEST_MS = 60000;

const main = document.getElementById("main");
let shown = main ? main.dataset.version : "";
let busy = false;
let every = EVERY_MS;
let timer = 0;

function later() {
  clearTimeout(timer);
  timer = setTimeout(check, every);
}

async function check() {
  if (busy || !main || document.visibilityState !== "visible") return;
  busy = true;
  try {
    const feed = await fetch(FEED, { cache: "no-store", headers: { "If-None-Match": `"${shown}"` } });
    if (feed.status === 429 || feed.status >= 500) {
      const wait = Number(feed.headers.get("Retry-After")) * 1000;
      every = Math.min(SLOWEST_MS, Math.max(every * 2, wait || 0));
      return;
    }
    every = EVERY_MS;
    if (feed.status !== 200) return;
    const { version } = await feed.json();
    if (version === shown) return;
    const page = await fetch(location.pathname, { cache: "no-store" });
    if (!page.ok) return;
    const fresh = new DOMParser().parseFromString(await page.text(), "text/html");
    const next = fresh.getElementById("main");
    if (!next) return;
    main.replaceChildren(...Array.from(next.childNodes, (node) => document.importNode(node, true)));
    main.dataset.version = next.dataset.version || version;
    shown = main.dataset.version;
    document.title = fresh.title;
  } catch {
    // Offline or the server restarting: ask again, less often.
    every = Math.min(SLOWEST_MS, every * 2);
  } finally {
    busy = false;
    later();
  }
}

later();
document.addEventListener("visibilitychange", check);
addEventListener("online", () => { every = EVERY_MS; check(); });
wakeToggle(document);
startWake();
