// Changes a person makes (a star, a rating, a note, "made one", a shelf tick) are kept on
// this device until the server has answered them: made offline, or while the server is
// away, they wait in localStorage and are sent in order when the connection returns (the
// `online` event, the next page load, the next change). Each carries `at`, when it was
// made, so the server orders it among other devices' changes (docs/HOUSEHOLD.md).
//
// A change: { key, method, path, body, login }. `key` names what it changes ("fav:7",
// "note:7", "shelf:gin"): a later change with the same key replaces one not yet sent, so
// ten taps on a star offline send one request. `login`, when given, is whose change it is:
// it is sent only while the page is that person's (`setWho`), so that a shared device
// never files one person's note under another's name; until then it waits. A note keeps the first unsent change's
// `was` (the text it was written over), so that a conflict with another device is still
// found. The answer decides what happens to a change:
//   2xx                         sent: dropped, its answer handed on (`onPending`)
//   4xx but 408 and 429         refused: dropped, and the API's error shown (never silently)
//   network error, 5xx, 408/429 kept, and tried again later
// The merging (`merge`) is pure and tested in tests/js/pending.test.mjs.

export const STORE = "libations-pending"; // the localStorage key

// `list` with `change` added: it replaces an unsent change with the same key (taking its
// place at the end: it was made last); a note's change keeps the replaced one's `was`
// and, unless it says its own, its `settles`. `sending`: the id of a change on its way,
// which must not be replaced (its answer is coming); the new one waits behind it.
export function merge(list, change, sending = null) {
  const earlier = list.find((c) => c.key === change.key && c.login === change.login && c.id !== sending);
  const merged = { ...change, body: change.body === undefined ? undefined : { ...change.body } };
  if (earlier && earlier.body && merged.body) {
    if (Object.hasOwn(earlier.body, "was")) merged.body.was = earlier.body.was;
    if (merged.body.settles === undefined && earlier.body.settles !== undefined) merged.body.settles = earlier.body.settles;
  }
  return [...list.filter((c) => c !== earlier), merged];
}

// What an answer's status means for the change: "sent", "refused" or "kept".
// A DELETE answered 404 took away what the server never had: what the person wanted
// holds (a star added and taken back offline is sent as the DELETE alone).
export function outcome(status, method = "") {
  if (status >= 200 && status < 300) return "sent";
  if (status === 404 && method === "DELETE") return "sent";
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return "refused";
  return "kept";
}

// The words for `n` changes waiting ("" for none).
export const waiting = (n) => (n === 0 ? "" : n + (n === 1 ? " change" : " changes") + " waiting to be sent");

// The text of a refusal: the API's error and the field it names.
export function refusalText(answer, status) {
  const error = answer && typeof answer.error === "string" ? answer.error : "the server refused it (HTTP " + status + ")";
  const field = answer && typeof answer.field === "string" && answer.field ? " (" + answer.field + ")" : "";
  return "Not saved: " + error + field;
}

// ---- On the page ----------------------------------------------------------------------

const listeners = [];
const waiters = new Map(); // change id → resolve, for changes queued on this page
let sendingId = null; // the change on its way
let flushing = null; // the Promise of the flush under way
let retryTimer = 0;
let retryDelay = 0;
let refused = ""; // the last refusal, shown until the next change
let nextId = 0;
let who; // the login the page is for (undefined until known; null: an unknown visitor)

function load() {
  try {
    const list = JSON.parse(localStorage.getItem(STORE) || "[]");
    return Array.isArray(list) ? list.filter((c) => c && typeof c.key === "string" && typeof c.path === "string") : [];
  } catch (error) {
    return [];
  }
}
// False when the browser would not keep the list (full, or storage off): the change then
// lives only as long as the page.
let memory = null;
function save(list) {
  try {
    localStorage.setItem(STORE, JSON.stringify(list));
    memory = null;
    return true;
  } catch (error) {
    memory = list;
    return false;
  }
}
const current = () => memory ?? load();

// Changes waiting to be sent (stored on this device, or on their way).
export const pendingCount = () => current().length;
// The changes waiting, in the order they will be sent (household.js applies them on top
// of what the server said).
export const pendingChanges = () => current();

// Runs `f({ count, change, answer, refused, elsewhere })` whenever the count changes or an
// answer arrives (`answer`: the server's JSON; `refused`: the text shown when it was
// refused; `elsewhere`: another tab changed the list, and has the answers).
export const onPending = (f) => { listeners.push(f); };
function tell(event) {
  const count = pendingCount();
  show(count);
  for (const f of listeners) f({ count, ...event });
}

function show(count) {
  const status = document.getElementById("pending");
  if (!status) return;
  const text = [waiting(count) + (count && !navigator.onLine ? " (offline)" : ""), refused].filter(Boolean).join(". ");
  if (status.textContent !== text) status.textContent = text;
  status.hidden = text === "";
  status.classList.toggle("refused", refused !== "");
}

// Shows `text`, the refusal of a change kept elsewhere (a photo: photo-queue.js), as this
// module's own are shown: until the next change.
export function sayRefused(text) {
  refused = text;
  show(pendingCount());
}

// Keeps `change` on this device and sends it (and whatever waits before it) when it can.
// Resolves with the server's JSON answer (`{error, field}` when refused), or null while it
// stays pending.
export function queue(change) {
  const id = Date.now().toString(36) + "-" + (nextId++).toString(36) + "-" + Math.random().toString(36).slice(2, 8);
  const list = merge(current(), { ...change, id }, sendingId);
  const replaced = current().filter((c) => !list.some((k) => k.id === c.id));
  for (const old of replaced) settle(old.id, null);
  if (!save(list)) refused = "This browser would not keep the change (storage is full or off): it is lost if the page closes before it is sent";
  else refused = "";
  const answered = new Promise((resolve) => waiters.set(id, resolve));
  tell({ change: list[list.length - 1] });
  flush();
  return answered;
}

// Takes back the unsent change with `key` (one on its way cannot be); whether there was one.
export function unqueue(key) {
  const list = current();
  const gone = list.filter((c) => c.key === key && c.id !== sendingId);
  if (gone.length === 0) return false;
  save(list.filter((c) => !gone.includes(c)));
  for (const c of gone) settle(c.id, null);
  tell({});
  return true;
}

function settle(id, answer) {
  const resolve = waiters.get(id);
  if (resolve) { waiters.delete(id); resolve(answer); }
}

// Whose the page is (household.js, from /api/me): their waiting changes may go now.
export function setWho(login) {
  who = login;
  return flush();
}
const mayGo = (c) => c.login === undefined || (who !== undefined && c.login === who);

// A flush asked for while one runs is run again after it: the running one may already have
// passed over changes that may go now (setWho, once /api/me answers after coming online).
let again = false;
// Sends the waiting changes in order, one at a time; one flush at a time on this page, and
// (where the browser can) in all tabs of this device.
export function flush() {
  if (flushing) {
    again = true;
    return flushing.then(() => flushing);
  }
  const run = () => sendAll().finally(() => {
    flushing = null;
    if (again) { again = false; flush(); }
  });
  flushing = navigator.locks ? navigator.locks.request(STORE, run) : run();
  return flushing;
}

async function sendAll() {
  clearTimeout(retryTimer);
  for (;;) {
    const change = current().find(mayGo);
    if (!change) {
      // Nothing more may go now; what is left waits for its person (callers hear "pending").
      retryDelay = 0;
      for (const id of Array.from(waiters.keys())) settle(id, null);
      return;
    }
    if (!navigator.onLine) { stay(); return; }
    sendingId = change.id;
    let status = 0, answer = null;
    try {
      const response = await fetch(change.path, {
        method: change.method,
        headers: { Accept: "application/json", ...(change.body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: change.body === undefined ? undefined : JSON.stringify(change.body),
        credentials: "same-origin",
        cache: "no-store",
      });
      status = response.status;
      answer = await response.json().catch(() => null);
    } catch (error) {
      status = 0; // the network
    }
    sendingId = null;
    const what = outcome(status === 0 ? 503 : status, change.method);
    if (what === "kept") { stay(); return; }
    save(current().filter((c) => c.id !== change.id));
    if (what === "refused") refused = refusalText(answer, status);
    settle(change.id, answer ?? { error: "HTTP " + status });
    tell(what === "sent" ? { change, answer } : { change, answer, refused });
  }
}

// The first change could not be sent: everything waits; the callers hear "still pending",
// and it is tried again when the connection returns, or after a while if it seems up.
function stay() {
  for (const id of Array.from(waiters.keys())) settle(id, null);
  show(pendingCount());
  if (navigator.onLine) {
    retryDelay = Math.min(60_000, retryDelay ? retryDelay * 2 : 5_000);
    retryTimer = setTimeout(flush, retryDelay);
  }
}

// Sends what an earlier visit left, and again whenever the connection returns or another
// tab adds a change.
export function startPending() {
  // Back online, a person's changes wait until /api/me has said again whose the page is
  // (household.js calls setWho): the device may be someone else's by now.
  addEventListener("online", () => { retryDelay = 0; who = undefined; flush(); });
  addEventListener("offline", () => show(pendingCount()));
  addEventListener("storage", (event) => {
    if (event.key === STORE || event.key === null) tell({ elsewhere: true });
  });
  show(pendingCount());
  flush();
}
