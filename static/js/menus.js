// /menus: composing the guests' menus (docs/MENU.md) over /api/menus…. The server's page
// lists the menus and switches one on or off with plain forms; this module redraws the
// list from GET /api/menus with an Edit button each, and runs the editor: the title, the
// two switches, the drinks in order (up, down, remove, a one-line description each), a
// search as you type over the collection (collection.js, the list's own JSON) to add
// drinks, save, and delete after a confirm.
import { el } from "./markup.js";
import { collection } from "./collection.js";
import { fold } from "./model.js";

const FOUND = 8; // matches shown while typing

let menus = [];
let names = new Map(); // recipe id → name
let editing = null; // { id (null for a new menu), drinks: [{ id, description }] }
let ui = null;

const nameOf = (id) => names.get(Number(id)) ?? `Recipe ${id}`;

function button(label, action, attrs = {}) {
  const b = el("button", { type: "button", ...attrs }, label);
  b.addEventListener("click", action);
  return b;
}

// A JSON write (or read); the answer, or an Error saying what the server refused.
async function send(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let answer = null;
  try { answer = await response.json(); } catch { /* not JSON: said below */ }
  if (!response.ok) {
    const said = answer && answer.error ? answer.error : `The server answered ${response.status}.`;
    throw new Error(answer && answer.field ? `${answer.field}: ${said}` : said);
  }
  return answer;
}

function facts(m) {
  const n = m.recipes.length;
  const parts = [`${n} drink${n === 1 ? "" : "s"}`];
  if (m.can_make_now) parts.push("and everything the shelf can make now");
  if (!m.show_ingredients) parts.push("ingredients hidden");
  if (m.show_photos) parts.push("with photos");
  return parts.join(" · ");
}

function drawList() {
  const { list, none, mayChange } = ui;
  list.replaceChildren(...menus.map((m) => el("li", { class: "menu-item", "data-id": String(m.id) },
    el("h2", { id: `menu-${m.id}-h` }, m.title, m.on ? " " : null, m.on ? el("span", { class: "on-badge" }, "On") : null),
    el("p", { class: "menu-facts" }, facts(m)),
    m.recipes.length ? el("ol", { class: "menu-names" }, ...m.recipes.map((r) => el("li", null, nameOf(r.id)))) : null,
    el("div", { class: "acts menu-acts" },
      mayChange ? button(m.on ? "Switch off" : "Switch on", () => switchMenu(m), { class: "button", "aria-describedby": `menu-${m.id}-h` }) : null,
      mayChange ? button("Edit", () => openEditor(m), { class: "button", "aria-describedby": `menu-${m.id}-h` }) : null,
      el("a", { class: "button", href: `/menu/print?menu=${m.id}`, "aria-describedby": `menu-${m.id}-h` }, "Print")))));
  if (none) none.hidden = menus.length > 0;
}

async function reload() {
  const answer = await send("GET", "/api/menus");
  menus = Array.isArray(answer.menus) ? answer.menus : [];
  drawList();
}

function say(text) { ui.status.textContent = text; }

async function act(work, done) {
  try {
    await work();
    await reload();
    say(done);
    return true;
  } catch (error) {
    say(error.message);
    return false;
  }
}

function switchMenu(m) {
  act(() => send("POST", m.on ? "/api/menus/off" : `/api/menus/${m.id}/on`),
    m.on ? `“${m.title}” is off: guests see no menu.` : `“${m.title}” is on: guests see it now.`);
}

function openEditor(menu) {
  const f = ui.form;
  editing = {
    id: menu ? menu.id : null,
    drinks: (menu ? menu.recipes : []).map((r) => ({ id: Number(r.id), description: r.description ?? "" })),
  };
  f.querySelector("#editor-h").textContent = menu ? `Edit “${menu.title}”` : "New menu";
  f.elements.title.value = menu ? menu.title : "";
  f.elements.can_make_now.checked = menu ? menu.can_make_now : false;
  f.elements.show_ingredients.checked = menu ? menu.show_ingredients : true;
  f.elements.show_photos.checked = menu ? menu.show_photos : false;
  ui.remove.hidden = !menu;
  ui.find.value = "";
  ui.found.replaceChildren();
  drawDrinks();
  f.hidden = false;
  ui.newButton.hidden = true;
  f.elements.title.focus();
}

function closeEditor() {
  editing = null;
  ui.form.hidden = true;
  ui.newButton.hidden = false;
  ui.newButton.focus();
}

// The drinks being edited; `focus` puts the focus back on a row's button after a move.
function drawDrinks(focus) {
  const last = editing.drinks.length - 1;
  ui.drinks.replaceChildren(...editing.drinks.map((d, i) => {
    const name = nameOf(d.id);
    const description = el("input", {
      type: "text", maxlength: "200", value: d.description, autocomplete: "off",
      "aria-label": `Description of ${name}`, placeholder: "A line for guests (optional)",
    });
    description.addEventListener("input", () => { d.description = description.value; });
    const up = button("Up", () => move(i, -1), { "data-act": "up", "aria-label": `Move ${name} up` });
    const down = button("Down", () => move(i, 1), { "data-act": "down", "aria-label": `Move ${name} down` });
    up.disabled = i === 0;
    down.disabled = i === last;
    const remove = button("Remove", () => removeAt(i), { "data-act": "remove", "aria-label": `Remove ${name}` });
    return el("li", { class: "drink-edit" }, el("span", { class: "drink-name" }, name), description,
      el("span", { class: "seg" }, up, down, remove));
  }));
  if (focus) {
    const row = ui.drinks.children[focus.index];
    const wanted = row && row.querySelector(`[data-act="${focus.act}"]`);
    const target = wanted && !wanted.disabled ? wanted : row && row.querySelector("button:not([disabled])");
    (target || ui.find).focus();
  }
}

function move(i, by) {
  const j = i + by;
  if (j < 0 || j >= editing.drinks.length) return;
  const d = editing.drinks;
  [d[i], d[j]] = [d[j], d[i]];
  drawDrinks({ index: j, act: by < 0 ? "up" : "down" });
  say(`${nameOf(d[j].id)} is number ${j + 1} of ${d.length}.`);
}

function removeAt(i) {
  const [gone] = editing.drinks.splice(i, 1);
  drawDrinks({ index: Math.min(i, editing.drinks.length - 1), act: "remove" });
  say(`${nameOf(gone.id)} is off this menu (until you save, nothing changes for guests).`);
}

function add(id) {
  editing.drinks.push({ id, description: "" });
  drawDrinks();
  ui.find.value = "";
  ui.found.replaceChildren();
  ui.find.focus();
  say(`${nameOf(id)} added, number ${editing.drinks.length}.`);
}

// The collection's drinks whose names match what is typed, those starting with it first.
function matches(typed) {
  const q = fold(typed.trim());
  if (!q) return [];
  const taken = new Set(editing.drinks.map((d) => d.id));
  const starts = [], within = [];
  for (const [id, name] of names) {
    if (taken.has(id)) continue;
    const folded = fold(name);
    if (folded.startsWith(q)) starts.push([id, name]);
    else if (folded.includes(q)) within.push([id, name]);
  }
  const byName = (a, b) => a[1].localeCompare(b[1]);
  return [...starts.sort(byName), ...within.sort(byName)].slice(0, FOUND);
}

function showFound() {
  const hits = matches(ui.find.value);
  if (!ui.find.value.trim()) { ui.found.replaceChildren(); return hits; }
  ui.found.replaceChildren(...(hits.length
    ? hits.map(([id, name]) => el("li", null, button(`Add ${name}`, () => add(id), { class: "button" })))
    : [el("li", { class: "help" }, names.size ? "No drink by that name that is not on the menu already." : "The collection could not be read: try again when online.")]));
  return hits;
}

async function save(event) {
  event.preventDefault();
  const f = ui.form.elements;
  const body = {
    title: f.title.value,
    recipes: editing.drinks.map((d) => ({ id: d.id, description: d.description.trim() || null })),
    can_make_now: f.can_make_now.checked,
    show_ingredients: f.show_ingredients.checked,
    show_photos: f.show_photos.checked,
  };
  const id = editing.id;
  const saved = await act(() => (id === null ? send("POST", "/api/menus", body) : send("PUT", `/api/menus/${id}`, body)),
    `“${body.title.trim()}” is saved.`);
  if (saved) closeEditor();
}

async function removeMenu() {
  const menu = menus.find((m) => m.id === editing.id);
  if (!menu) return;
  if (!confirm(`Delete the menu “${menu.title}”?${menu.on ? " It is on: guests will see no menu." : ""} This cannot be undone.`)) return;
  if (await act(() => send("DELETE", `/api/menus/${menu.id}`), `“${menu.title}” is deleted.`)) closeEditor();
}

export async function startMenus() {
  const root = document.getElementById("menus");
  if (!root) return;
  const form = document.getElementById("menu-editor");
  ui = {
    root, form,
    mayChange: root.dataset.mayChange === "true",
    list: document.getElementById("menu-list"),
    none: document.getElementById("menus-none"),
    status: document.getElementById("menus-status"),
    newButton: document.getElementById("menu-new"),
    drinks: document.getElementById("menu-drinks-edit"),
    find: document.getElementById("menu-find"),
    found: document.getElementById("menu-found"),
    remove: document.getElementById("menu-delete"),
  };
  const known = await collection();
  if (known) names = known.names;
  try {
    await reload();
  } catch (error) {
    say(error.message);
    return;
  }
  if (!ui.mayChange || !form) return;
  ui.newButton.addEventListener("click", () => openEditor(null));
  form.addEventListener("submit", save);
  document.getElementById("menu-cancel").addEventListener("click", closeEditor);
  ui.remove.addEventListener("click", removeMenu);
  ui.find.addEventListener("input", showFound);
  ui.find.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault(); // Enter adds the first match, it does not save the menu
    const [first] = showFound();
    if (first) add(first[0]);
  });
  form.addEventListener("keydown", (event) => { if (event.key === "Escape") closeEditor(); });
}
