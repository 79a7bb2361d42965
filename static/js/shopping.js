// The shopping list on My bar: bottles to buy. For a person the household knows, it is the
// household's (GET /api/bar/shopping; changes are PUT /api/bar/shopping through pending.js,
// so one made offline is kept and sent later): everyone sees it, the people who keep the
// shelf change it, and "bought" puts the bottle on the shelf. A list this device kept
// before (localStorage "libations-shopping") is moved up once, and cleared here only when
// the server has taken it. For a visitor the household does not know, the list stays on
// this device, as before. Items come from the best next bottles or are typed; ticked once
// bought; removed; shared (the system's share sheet, where there is one) or copied as text.
// Without JavaScript, /shopping shows the household's list with plain forms.
import { fold } from "./model.js";
import { el } from "./markup.js";
import { household, onHousehold, refresh } from "./household.js";
import { onPending, pendingChanges, queue } from "./pending.js";

export const STORE = "libations-shopping"; // the localStorage key
export const MAX_ITEMS = 200;
export const MAX_CHARS = 200;

// Reads what is stored: { version: 1, items: [{ name, got }] }; anything else is no list.
export function readList(data) {
  if (!data || typeof data !== "object" || !Array.isArray(data.items)) return [];
  return data.items
    .filter((i) => i && typeof i.name === "string" && i.name.trim() !== "")
    .map((i) => ({ name: i.name.trim().slice(0, MAX_CHARS), got: i.got === true }))
    .slice(0, MAX_ITEMS);
}

// `items` with `name` added at the end, or the same list when it is there already
// (compared as the search folds names: "Campari" and "campari " are one item).
export function addItem(items, name) {
  const clean = String(name).trim().replace(/\s+/g, " ").slice(0, MAX_CHARS);
  if (clean === "") return { items, added: false, why: "empty" };
  if (items.some((i) => fold(i.name) === fold(clean))) return { items, added: false, why: "there" };
  if (items.length >= MAX_ITEMS) return { items, added: false, why: "full" };
  return { items: [...items, { name: clean, got: false }], added: true, why: null };
}

// The list as plain text to share: what is still to buy, one a line.
export function asText(items) {
  const left = items.filter((i) => !i.got);
  return left.length === 0 ? "" : "Shopping list\n" + left.map((i) => "- " + i.name).join("\n") + "\n";
}

// `items` with one change to the household's list made, as the server makes it (add, then
// bought/got/unget, then remove; names folded). Pure: for the changes still waiting.
export function applyShopping(items, body) {
  let out = items.map((i) => ({ ...i }));
  const find = (name) => out.find((i) => fold(i.name) === fold(name));
  for (const name of body.add || []) {
    const clean = String(name).trim().replace(/\s+/g, " ");
    if (clean !== "" && !find(clean)) out.push({ name: clean, got: false });
  }
  for (const name of [...(body.bought || []), ...(body.got || [])]) { const i = find(name); if (i) i.got = true; }
  for (const name of body.unget || []) { const i = find(name); if (i) i.got = false; }
  const gone = new Set((body.remove || []).map(fold));
  out = out.filter((i) => !gone.has(fold(i.name)));
  return out;
}

export const onList = (items, name) => items.some((i) => fold(i.name) === fold(name));

function readStored() {
  try { return JSON.parse(localStorage.getItem(STORE) || "null"); } catch (error) { return null; }
}
const load = () => readList(readStored());
function save(items, moving) {
  try {
    if (items.length === 0) localStorage.removeItem(STORE);
    else localStorage.setItem(STORE, JSON.stringify({ version: 1, items, ...(moving ? { moving } : {}) }));
    return true;
  } catch (error) { return false; }
}

const REFUSED = "This browser would not store the list (storage is full or turned off): it will be lost when the page closes.";
const PATH = "/api/bar/shopping";
const listeners = [];
let items = [];
let base = null; // the household's list as the server last said it (null: not read yet)

// Whether the list shown is the household's (a person the household knows) or this
// device's own.
const shared = () => household.ready && household.known;
const mayChange = () => !shared() || household.mayShelf;

// Runs `f(items)` whenever the list changes (here, in another tab, or from the server).
export const onShopping = (f) => { listeners.push(f); };
export const shoppingItems = () => items;

// The list shown again: the household's with this device's waiting changes on top, or this
// device's own.
function recompute() {
  if (shared()) {
    let list = base ?? [];
    for (const change of pendingChanges()) {
      if (change.path !== PATH || (change.login !== undefined && change.login !== household.login)) continue;
      try { list = applyShopping(list, change.body || {}); } catch (error) { /* the server will say */ }
    }
    items = list;
  } else {
    items = load();
  }
  for (const g of listeners) g(items);
}

async function fetchList() {
  try {
    const response = await fetch(PATH, { headers: { Accept: "application/json" }, cache: "no-store" });
    if (response.ok) takeAnswer(await response.json());
  } catch (error) { /* offline: the list stays as it was */ }
}
function takeAnswer(answer) {
  if (!answer || !Array.isArray(answer.items)) return;
  base = answer.items.map((i) => ({ name: String(i.name), got: i.got === true, by: i.added_by }));
  recompute();
}

// One change to the household's list, kept on this device until the server has it.
function send(body, key) {
  const change = { key: key ?? "shop:" + Date.now() + ":" + Math.random().toString(36).slice(2, 8),
    method: "PUT", path: PATH, body: { ...body, at: body.at ?? Date.now() }, login: household.login ?? undefined };
  const answered = queue(change);
  recompute();
  return answered;
}

// A list this device kept before, moved up to the household's once: sent with the `at`
// of the first try (so that a retry cannot bring back what someone removed since), and
// cleared here only once the server answered that it took it.
async function moveUp() {
  const stored = readStored();
  const local = readList(stored);
  if (!shared() || !household.mayShelf || local.length === 0) return;
  const at = Number.isFinite(stored.moving) ? stored.moving : Date.now();
  save(local, at);
  const answer = await send({ add: local.map((i) => i.name), got: local.filter((i) => i.got).map((i) => i.name), at }, "shop:move");
  if (answer && answer.error === undefined && Array.isArray(answer.items)) {
    save([]);
    setSaid("Moved this device's shopping list to the household's.");
  }
}
let setSaid = () => {};

function change(f) {
  if (shared()) {
    if (!household.mayShelf) return household.why || "Only the people who keep the bar's shelf can change the shopping list.";
    const { body, say } = f(items);
    if (body) send(body);
    return say ?? null;
  }
  const { body, say } = f(load());
  items = applyShopping(load(), body || {}).slice(0, MAX_ITEMS);
  const stored = save(items);
  for (const g of listeners) g(items);
  return stored ? say ?? null : REFUSED;
}

// Adds `name` (a next bottle, or what was typed); what to tell.
export function addToShopping(name) {
  const r = addItem(items, name);
  const say = r.added ? "Added " + r.items[r.items.length - 1].name + " to the shopping list."
    : r.why === "there" ? name + " is on the list already."
      : r.why === "full" ? "The list holds " + MAX_ITEMS + " items: remove some first." : null;
  if (!r.added) return say;
  return change(() => ({ body: { add: [r.items[r.items.length - 1].name] }, say }));
}

export function startShopping() {
  const list = document.getElementById("shop-list");
  if (!list) return;
  const status = document.getElementById("shop-status");
  const say = (text) => { if (text) status.textContent = text; };
  setSaid = say;
  const help = document.getElementById("shop-help");
  const form = document.getElementById("shop-add");
  const input = document.getElementById("shop-item");
  const share = document.getElementById("shop-share");
  const copy = document.getElementById("shop-copy");
  const clear = document.getElementById("shop-clear");
  share.hidden = typeof navigator.share !== "function";

  function show() {
    const may = mayChange();
    for (const control of form.querySelectorAll("input, button")) control.disabled = !may;
    help.textContent = shared()
      ? (may ? "The household's list: everyone sees it, and marking an item bought puts the bottle on the shelf."
        : "The household's list. " + "Only the people who keep the bar's shelf can change it.")
      : "Kept on this device only: the household does not see it. Share or copy it to take it along.";
    list.replaceChildren(...items.map((item, i) => el("li", { class: item.got ? "got" : null },
      el("label", null,
        el("input", { type: "checkbox", "data-i": String(i), checked: item.got ? true : null, disabled: may ? null : true }),
        " ", el("span", { class: "name" }, item.name),
        item.by ? el("span", { class: "uses" }, " added by " + item.by) : null),
      may ? el("button", { type: "button", class: "button remove", "data-i": String(i) },
        "Remove", el("span", { class: "visually-hidden" }, " " + item.name)) : null)));
    const left = items.filter((i) => !i.got).length;
    copy.disabled = share.disabled = left === 0;
    clear.disabled = !may || left === items.length;
    if (items.length === 0) list.append(el("li", { class: "empty" }, "Nothing on the list yet."));
  }
  onShopping(show);
  let asked = false;
  onHousehold(() => {
    if (shared() && !asked) { asked = true; fetchList().then(moveUp); }
    recompute();
  });
  onPending(({ change: sent, answer, elsewhere }) => {
    if (elsewhere) { fetchList(); return; }
    if (sent && sent.path === PATH && answer && answer.error === undefined) {
      takeAnswer(answer);
      if ((sent.body?.bought || []).length > 0) refresh();
    }
    recompute();
  });
  addEventListener("online", () => { if (shared()) fetchList(); });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && shared()) fetchList();
  });
  recompute();
  addEventListener("storage", (event) => {
    if (!shared() && (event.key === STORE || event.key === null)) recompute();
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value.trim() === "") return;
    say(addToShopping(input.value));
    input.value = "";
    input.focus();
  });
  list.addEventListener("change", (event) => {
    const name = items[Number(event.target.dataset.i)]?.name;
    if (name === undefined) return;
    const got = event.target.checked;
    say(change(() => ({ body: got ? { bought: [name] } : { unget: [name] },
      say: got && shared() ? "Bought " + name + ": it is on the shelf now." : null })));
  });
  list.addEventListener("click", (event) => {
    const button = event.target.closest("button.remove");
    if (!button) return;
    const name = items[Number(button.dataset.i)]?.name;
    if (name === undefined) return;
    say(change(() => ({ body: { remove: [name] }, say: "Removed " + name + "." })));
    (list.querySelector("button.remove") || input).focus();
  });
  clear.addEventListener("click", () => {
    const got = items.filter((i) => i.got).map((i) => i.name);
    const n = got.length;
    say(change(() => ({ body: { remove: got }, say: "Removed " + n + (n === 1 ? " ticked item." : " ticked items.") })));
  });
  copy.addEventListener("click", async () => {
    const text = asText(items);
    try {
      await navigator.clipboard.writeText(text);
      say("Copied " + count(text) + " to the clipboard (ticked items left out).");
    } catch (error) {
      say("This browser would not copy: select the items above and copy them yourself.");
    }
  });
  share.addEventListener("click", async () => {
    const text = asText(items);
    try {
      await navigator.share({ title: "Shopping list", text });
      say("Shared " + count(text) + ".");
    } catch (error) {
      if (error && error.name === "AbortError") say("Not shared.");
      else say("Could not share (" + (error && error.message ? error.message : "refused") + "): copy it as text instead.");
    }
  });
}

const count = (text) => {
  const n = text.split("\n").filter((l) => l.startsWith("- ")).length;
  return n + (n === 1 ? " item" : " items");
};
