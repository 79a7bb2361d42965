// The shopping list on My bar: bottles to buy, kept on this device only (localStorage),
// never sent to the server: it is what one person takes to the shop, not the household's.
// Items come from the best next bottles or are typed; ticked off once bought; removed;
// shared (the system's share sheet, where there is one) or copied as plain text.
import { fold } from "./model.js";
import { el } from "./markup.js";

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

export const onList = (items, name) => items.some((i) => fold(i.name) === fold(name));

function load() {
  try { return readList(JSON.parse(localStorage.getItem(STORE) || "null")); } catch (error) { return []; }
}
function save(items) {
  try { localStorage.setItem(STORE, JSON.stringify({ version: 1, items })); return true; } catch (error) { return false; }
}

const REFUSED = "This browser would not store the list (storage is full or turned off): it will be lost when the page closes.";
const listeners = [];
let items = [];

// Runs `f(items)` whenever the list changes (here or in another tab).
export const onShopping = (f) => { listeners.push(f); };
export const shoppingItems = () => items;

// Changes the list on top of what is stored now (another tab may have changed it); what
// to tell, or null.
function change(f) {
  items = load();
  const result = f(items);
  items = result.items;
  const stored = save(items);
  for (const g of listeners) g(items);
  return stored ? result.say ?? null : REFUSED;
}

// Adds `name` (a next bottle, or what was typed); what to tell.
export function addToShopping(name) {
  return change((list) => {
    const r = addItem(list, name);
    const say = r.added ? "Added " + r.items[r.items.length - 1].name + " to the shopping list."
      : r.why === "there" ? name + " is on the list already."
        : r.why === "full" ? "The list holds " + MAX_ITEMS + " items: remove some first." : null;
    return { items: r.items, say };
  });
}

export function startShopping() {
  const list = document.getElementById("shop-list");
  if (!list) return;
  const status = document.getElementById("shop-status");
  const say = (text) => { if (text) status.textContent = text; };
  const form = document.getElementById("shop-add");
  const input = document.getElementById("shop-item");
  const share = document.getElementById("shop-share");
  const copy = document.getElementById("shop-copy");
  const clear = document.getElementById("shop-clear");
  for (const control of form.querySelectorAll("[disabled]")) control.disabled = false;
  share.hidden = typeof navigator.share !== "function";

  function show() {
    list.replaceChildren(...items.map((item, i) => el("li", { class: item.got ? "got" : null },
      el("label", null,
        el("input", { type: "checkbox", "data-i": String(i), checked: item.got ? true : null }),
        " ", el("span", { class: "name" }, item.name)),
      el("button", { type: "button", class: "button remove", "data-i": String(i) },
        "Remove", el("span", { class: "visually-hidden" }, " " + item.name)))));
    const left = items.filter((i) => !i.got).length;
    copy.disabled = share.disabled = left === 0;
    clear.disabled = left === items.length;
    if (items.length === 0) list.append(el("li", { class: "empty" }, "Nothing on the list yet."));
  }
  onShopping(show);
  items = load();
  show();
  addEventListener("storage", (event) => {
    if (event.key === STORE || event.key === null) { items = load(); show(); }
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value.trim() === "") return;
    say(addToShopping(input.value));
    input.value = "";
    input.focus();
  });
  list.addEventListener("change", (event) => {
    const i = Number(event.target.dataset.i);
    const name = items[i]?.name;
    say(change((l) => ({ items: l.map((item) => (item.name === name ? { ...item, got: event.target.checked } : item)) })));
  });
  list.addEventListener("click", (event) => {
    const button = event.target.closest("button.remove");
    if (!button) return;
    const name = items[Number(button.dataset.i)]?.name;
    if (name === undefined) return;
    say(change((l) => ({ items: l.filter((item) => item.name !== name), say: "Removed " + name + "." })));
    (list.querySelector("button.remove") || input).focus();
  });
  clear.addEventListener("click", () => {
    const n = items.filter((i) => i.got).length;
    say(change((l) => ({ items: l.filter((item) => !item.got), say: "Removed " + n + (n === 1 ? " ticked item." : " ticked items.") })));
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
