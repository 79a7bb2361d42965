// Who is asking, and what is theirs: GET /api/me (docs/HOUSEHOLD.md) when the page starts
// and when the connection returns, with the changes still waiting on this device
// (pending.js) applied on top, so that a star tapped offline shows at once and stays.
// A person's changes go through pending.queue; an unknown visitor (login null) keeps
// today's per-device choices (storage.js), and `why` says why nothing follows them.
//
// `household`: { known, login, name, why, mayShelf, favourites: Set(id), ratings: Map(id →
// stars), notes: Map(id → text), conflicts: Map(id → [text…]), made: [{id, at}…] newest
// first, shelf: Set(key) | null (the household's, from GET /api/bar; null until known),
// rules: [{ have, wanted }] (the household's own rules, from GET /api/bar) }.
// `ready` is false until /api/me has answered once (or could not be asked); `firstAnswer`
// resolves then, so the list keeps the server's answer until it can answer as well.
import { ingredientKey } from "./model.js";
import { onPending, pendingChanges, queue as send, setWho, unqueue } from "./pending.js";

export const household = {
  ready: false, known: false, login: null, name: null, why: null, mayShelf: false,
  favourites: new Set(), ratings: new Map(), notes: new Map(), conflicts: new Map(), made: [],
  shelf: null, rules: [],
};
// What the server said last (the answers to sent changes folded in); `household` is this
// with the waiting changes on top.
let base = empty();
let markAnswered;
export const firstAnswer = new Promise((resolve) => { markAnswered = resolve; });
let bar = null; // the last GET /api/bar answer (or PUT /api/bar/shelf's)
const listeners = [];

function empty() {
  return {
    known: false, login: null, name: null, why: null, mayShelf: false,
    favourites: new Set(), ratings: new Map(), notes: new Map(), conflicts: new Map(), made: [],
    shelf: null, rules: [],
  };
}

// Runs `f(household)` whenever what is the person's changes (an answer, a change made
// here or in another tab, /api/me read again).
export const onHousehold = (f) => { listeners.push(f); };
// The last answer of GET /api/bar (can_make, missing_one, next_bottles…), or null.
export const barAnswer = () => bar;

// Reads `/api/me` (and the shelf) from its JSON.
export function fromMe(me) {
  const out = empty();
  if (!me || typeof me !== "object") return out;
  out.known = typeof me.login === "string";
  out.login = me.login ?? null;
  out.name = me.name ?? null;
  out.why = me.why ?? null;
  out.mayShelf = me.may_shelf === true;
  out.favourites = new Set((me.favourites || []).map(Number));
  out.ratings = new Map(Object.entries(me.ratings || {}).map(([id, n]) => [Number(id), n]));
  out.notes = new Map(Object.entries(me.notes || {}).map(([id, t]) => [Number(id), t]));
  out.conflicts = new Map(Object.entries(me.note_conflicts || {})
    .filter(([, list]) => Array.isArray(list) && list.length > 0)
    .map(([id, list]) => [Number(id), list]));
  out.made = (me.made || []).map((m) => ({ id: Number(m.id), at: Number(m.at) }));
  return out;
}

const copy = (s) => ({
  ...s, favourites: new Set(s.favourites), ratings: new Map(s.ratings), notes: new Map(s.notes),
  conflicts: new Map(s.conflicts), made: s.made.slice(), shelf: s.shelf && new Set(s.shelf), rules: s.rules.slice(),
});
const byNewest = (a, b) => b.at - a.at;
const idOf = (path) => Number(/\/(\d+)(?:\?|$)/.exec(path)?.[1]);

// `state` with one change (pending.js's { method, path, body }) made, as the server will
// make it; pure, for the waiting changes and the answers alike.
export function applyChange(state, change) {
  const { method, path, body } = change;
  const id = idOf(path);
  if (path.startsWith("/api/me/favourites/")) {
    if (method === "PUT") state.favourites.add(id); else state.favourites.delete(id);
  } else if (path.startsWith("/api/me/ratings/")) {
    if (method === "PUT") state.ratings.set(id, body.stars); else state.ratings.delete(id);
  } else if (path.startsWith("/api/me/notes/")) {
    const text = method === "PUT" ? body.text : null;
    if (text === null || text === "") state.notes.delete(id); else state.notes.set(id, text);
    // Settling keeps what the person chose; the server answers with what is left.
    if (body && Array.isArray(body.settles)) {
      const left = (state.conflicts.get(id) || []).filter((t) => !body.settles.includes(t));
      if (left.length) state.conflicts.set(id, left); else state.conflicts.delete(id);
    }
  } else if (path.startsWith("/api/me/made/")) {
    if (method === "POST") {
      const at = body && body.at;
      if (!state.made.some((m) => m.id === id && m.at === at)) state.made = [{ id, at }, ...state.made].sort(byNewest);
    } else {
      const at = Number(new URL(path, "http://x").searchParams.get("at"));
      state.made = state.made.filter((m) => !(m.id === id && m.at === at));
    }
  } else if (path === "/api/bar/shelf" && state.shelf) {
    for (const name of body.have || []) state.shelf.add(ingredientKey(name));
    for (const name of body.out || []) state.shelf.delete(ingredientKey(name));
  } else if (path === "/api/bar/rules") {
    const same = (r) => ingredientKey(r.have) === ingredientKey(body.have) && ingredientKey(r.wanted) === ingredientKey(body.wanted);
    state.rules = state.rules.filter((r) => !same(r));
    if (body.on !== false) state.rules.push({ have: body.have, wanted: body.wanted });
  }
  return state;
}

// What the server answered to `change`, folded into `state` (the answer says what is
// stored, which may be another device's newer change).
export function applyAnswer(state, change, answer) {
  if (!answer || typeof answer !== "object" || answer.error !== undefined) return state;
  const id = Number(answer.id);
  if (change.path.startsWith("/api/me/favourites/")) {
    if (answer.favourite) state.favourites.add(id); else state.favourites.delete(id);
  } else if (change.path.startsWith("/api/me/ratings/")) {
    if (answer.stars === null || answer.stars === undefined) state.ratings.delete(id); else state.ratings.set(id, answer.stars);
  } else if (change.path.startsWith("/api/me/notes/")) {
    if (answer.text === null || answer.text === undefined) state.notes.delete(id); else state.notes.set(id, answer.text);
    if (Array.isArray(answer.conflicts) && answer.conflicts.length) state.conflicts.set(id, answer.conflicts);
    else state.conflicts.delete(id);
  } else if (change.path.startsWith("/api/me/made/")) {
    // The entry is stored at the server's `at` (one from a clock ahead counts as now).
    applyChange(state, change.method === "POST" ? { ...change, body: { at: Number(answer.at) } } : change);
  } else if (change.path === "/api/bar/shelf" && Array.isArray(answer.shelf)) {
    state.shelf = new Set(answer.shelf.map(ingredientKey));
  } else if (change.path === "/api/bar/rules" && Array.isArray(answer.rules)) {
    state.rules = answer.rules;
  }
  return state;
}

// `household` again: the server's state with the waiting changes on top.
function recompute() {
  const state = copy(base);
  for (const change of pendingChanges()) {
    // Another person's, waiting on a shared device, is not this person's.
    if (change.login !== undefined && change.login !== base.login) continue;
    try { applyChange(state, change); } catch (error) { /* a malformed stored change: the server will say */ }
  }
  Object.assign(household, state, { ready: household.ready });
  showWhy();
  for (const f of listeners) f(household);
}

// For an unknown visitor, one quiet line (in the footer) saying why nothing follows them.
// My bar says it under its title (#bar-who, shelf.js), so the footer does not say it twice.
function showWhy() {
  const line = document.getElementById("why");
  if (!line) return;
  const said = document.getElementById("bar-who") !== null;
  const text = household.ready && !household.known && household.why && !said ? household.why : "";
  if (line.textContent !== text) line.textContent = text;
  line.hidden = text === "";
}

// Reads /api/me and /api/bar again, then sends the person's waiting changes (their
// answers fold in as they come).
let lastRefresh = 0;
// Answers heard while /api/me was being read (each refresh's own list): the answer read
// may be from before them, so they are folded in again.
const hearing = new Set();
export async function refresh() {
  lastRefresh = Date.now();
  const heard = [];
  hearing.add(heard);
  let me = null;
  try {
    const response = await fetch("/api/me", { headers: { Accept: "application/json" } });
    if (response.ok) me = await response.json();
  } catch (error) { /* offline without a cached answer: unknown for now */ }
  hearing.delete(heard);
  if (me) {
    const { shelf, rules } = base;
    base = fromMe(me);
    Object.assign(base, { shelf, rules });
    for (const [change, answer] of heard) if (!change.path.startsWith("/api/bar/")) applyAnswer(base, change, answer);
    if (base.known) {
      try {
        const response = await fetch("/api/bar", { headers: { Accept: "application/json" } });
        if (response.ok) {
          bar = await response.json();
          base.shelf = new Set((bar.shelf || []).map(ingredientKey));
          base.rules = Array.isArray(bar.rules) ? bar.rules : [];
        }
      } catch (error) { /* the shelf stays as it was */ }
    }
  }
  household.ready = true;
  recompute();
  markAnswered();
  if (me) { askAgain = 0; setWho(base.login); } else if (navigator.onLine) askLater();
}

// /api/me did not answer though the browser says it is online (the first request after
// the connection returns often fails): ask again soon, then less often. Until it answers,
// a person's waiting changes are not sent (pending.js waits to hear whose page it is).
let askAgain = 0;
let askTimer = 0;
function askLater() {
  askAgain = Math.min(60_000, askAgain ? askAgain * 2 : 1_000);
  clearTimeout(askTimer);
  askTimer = setTimeout(refresh, askAgain);
}

export function startHousehold() {
  let later = 0;
  onPending(({ change, answer, elsewhere }) => {
    // Another tab sent changes and heard the answers: ask what is stored now.
    if (elsewhere) { clearTimeout(later); later = setTimeout(refresh, 300); }
    if (change && answer) {
      applyAnswer(base, change, answer);
      for (const heard of hearing) heard.push([change, answer]);
      if ((change.path === "/api/bar/shelf" || change.path === "/api/bar/rules") && answer.error === undefined) bar = answer;
    }
    recompute();
  });
  addEventListener("online", () => { refresh(); });
  addEventListener("pageshow", (event) => { if (event.persisted) refresh(); });
  // Back to a page left open: what other devices changed meanwhile.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && Date.now() - lastRefresh > 30_000) refresh();
  });
  return refresh();
}

// ---- A person's changes ------------------------------------------------------------------

const json = (at, more) => ({ ...more, at });
// Every change of a person's own is marked as theirs (pending.js sends it only for them).
const queue = (change) => send({ ...change, login: household.login ?? undefined });

// Stars or unstars recipe `id`.
export function setFavourite(id, on) {
  return queue({ key: "fav:" + id, method: on ? "PUT" : "DELETE", path: "/api/me/favourites/" + id, body: json(Date.now()) });
}

// Rates recipe `id` 1 to 5 stars, or (null) takes the rating away.
export function setRating(id, stars) {
  const path = "/api/me/ratings/" + id;
  return queue(stars === null
    ? { key: "rating:" + id, method: "DELETE", path, body: json(Date.now()) }
    : { key: "rating:" + id, method: "PUT", path, body: json(Date.now(), { stars }) });
}

// The person's note on recipe `id` becomes `text` ("" or null: no note), written over the
// text shown now (`was`); `settles`: the conflicting texts the person saw and chose among.
export function setNote(id, text, settles) {
  const was = household.notes.has(id) ? household.notes.get(id) : null;
  const path = "/api/me/notes/" + id;
  const more = settles && settles.length ? { was, settles } : { was };
  return queue(text === null || text === ""
    ? { key: "note:" + id, method: "DELETE", path, body: json(Date.now(), more) }
    : { key: "note:" + id, method: "PUT", path, body: json(Date.now(), { text, ...more }) });
}

// "Made one" of recipe `id`, now (or at `at`, ms).
export function madeOne(id, at = Date.now()) {
  return queue({ key: "made:" + id + ":" + at, method: "POST", path: "/api/me/made/" + id, body: { at } });
}

// Takes back the "made one" entry of recipe `id` made at `at`.
export function unmake(id, at) {
  // Not sent yet: then it is simply not sent.
  if (unqueue("made:" + id + ":" + at)) return Promise.resolve(null);
  return queue({ key: "made:" + id + ":" + at, method: "DELETE", path: "/api/me/made/" + id + "?at=" + at, body: undefined });
}

// Adds (`have`) or takes away (`out`) ingredients on the household's shelf.
export function changeShelf(have, out) {
  const key = "shelf:" + [...have, ...out].map(ingredientKey).sort().join("|");
  return queue({ key, method: "PUT", path: "/api/bar/shelf", body: json(Date.now(), { have, out }) });
}

// Adds (`on`) or takes back one of the household's rules: `have` may stand in for `wanted`.
export function changeRule(have, wanted, on) {
  const key = "rule:" + ingredientKey(have) + "|" + ingredientKey(wanted);
  return queue({ key, method: "PUT", path: "/api/bar/rules", body: json(Date.now(), { have, wanted, on }) });
}

// The person's last "made one" of recipe `id` (ms), or undefined; how many times.
export const lastMade = (id) => household.made.find((m) => m.id === id)?.at;
export const timesMade = (id) => household.made.reduce((n, m) => n + (m.id === id), 0);
