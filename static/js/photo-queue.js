// Photos taken while the server cannot be reached (issue #44): kept on this device and sent
// when the connection returns or the next page starts, like every other change
// (pending.js), but in IndexedDB: a photo is megabytes, far more than localStorage holds.
// A photo is sent only while the page is the person's who took it (a shared device never
// files one person's photo under another's name), oldest first, one at a time. The answer
// decides, as for other changes (pending.js `outcome`): sent, it is forgotten and the page
// told; refused (not an image, too large…), it is forgotten and the reason shown, never
// silently; the network, a 5xx, 408 or 429, it stays and is tried again later.
import { outcome, refusalText, sayRefused } from "./pending.js";
import { firstAnswer, household, onHousehold } from "./household.js";

const DB = "libations-photos";
const STORE = "waiting";
const listeners = [];
let sending = null;
let retryTimer = 0;
// Whether photos may be waiting here (unknown until read): household changes (every star
// tapped) ask for a send only then, not a read of IndexedDB each.
let mayWait = true;

// Runs `f({ recipe, photo, refused })` when a kept photo has been answered: `photo` the
// server's (sent), or `refused` the words for why not.
export const onPhotoAnswered = (f) => { listeners.push(f); };

function request(mode, work) {
  return new Promise((resolve, reject) => {
    const opened = indexedDB.open(DB, 1);
    opened.onupgradeneeded = () => opened.result.createObjectStore(STORE, { keyPath: "id", autoIncrement: true });
    opened.onerror = () => reject(opened.error);
    opened.onsuccess = () => {
      const db = opened.result;
      const tx = db.transaction(STORE, mode);
      const asked = work(tx.objectStore(STORE));
      tx.oncomplete = () => { db.close(); resolve(asked.result); };
      tx.onerror = tx.onabort = () => { db.close(); reject(tx.error); };
    };
  });
}

// Keeps `file`, a photo of recipe `id` taken by `login`, to be sent later; false when the
// browser would not keep it (storage full or off): then it is not kept anywhere.
export async function keepPhoto(id, login, file) {
  mayWait = true;
  try {
    await request("readwrite", (store) => store.add({ recipe: Number(id), login, type: file.type, blob: file, at: Date.now() }));
    return true;
  } catch (error) {
    return false;
  }
}

// The photos of recipe `id` waiting on this device, oldest first: [{ id, blob }].
export async function waitingFor(id) {
  return (await all()).filter((w) => w.recipe === Number(id));
}

async function all() {
  try {
    return await request("readonly", (store) => store.getAll());
  } catch (error) {
    return []; // no IndexedDB here: nothing can have waited
  }
}

// Sends what waits and may go now; one run at a time on this page.
export function sendWaiting() {
  if (!sending) sending = sendAll().finally(() => { sending = null; });
  return sending;
}

async function sendAll() {
  clearTimeout(retryTimer);
  await firstAnswer;
  let others = 0;
  for (const kept of await all()) {
    if (kept.login !== household.login) { others++; continue; }
    let status = 0, answer = null;
    try {
      const response = await fetch("/api/recipes/" + kept.recipe + "/photos", {
        method: "POST", headers: { "Content-Type": kept.type || "application/octet-stream", Accept: "application/json" },
        body: kept.blob, credentials: "same-origin", cache: "no-store",
      });
      status = response.status;
      answer = await response.json().catch(() => null);
    } catch (error) {
      status = 0;
    }
    const what = outcome(status === 0 ? 503 : status, "POST");
    if (what === "kept") { mayWait = true; retryTimer = setTimeout(sendWaiting, 30_000); return; }
    await request("readwrite", (store) => store.delete(kept.id)).catch(() => {});
    const told = what === "sent" ? { photo: answer, refused: null } : { photo: null, refused: refusalText(answer, status) };
    for (const f of listeners) f({ recipe: kept.recipe, ...told });
    // Said where every refused change is too: the recipe may not be open.
    if (told.refused) sayRefused(told.refused);
  }
  mayWait = others > 0;
}

// Sends what an earlier visit left, and again whenever the connection returns (once
// household.js has heard again whose the page is: it tells its listeners then).
export function startPhotoQueue() {
  if (!("indexedDB" in window)) return;
  onHousehold(() => { if (navigator.onLine && mayWait) sendWaiting(); });
  sendWaiting();
}
