// The list of recipes: search as you type (the same rules as the server, model.js), the
// personal terms from who is asking: a person's favourites, ratings and "made one" log and
// the household's shelf (household.js), or for an unknown visitor what this device keeps
// (can make, missing one, favourites; it keeps no ratings or "made one" log, so a rating
// matches nothing and made:never everything), recipes opened in their row on a
// phone or in the pane beside the list on a wide screen (pane.js), and the keyboard.
// Without this the rows are links to recipe pages and the search is a form.
import { doc, fold, needs, parse, personalPasses, personalTerm, rank, refusal, shelfRows } from "./model.js";
import { vocabulary } from "./vocabulary.js";
import { guesses, misread } from "./guess.js";
import { bar, onChange } from "./storage.js";
import { household, onHousehold, firstAnswer } from "./household.js";
import { el } from "./markup.js";
import { Showing } from "./showing.js";
import { Pane } from "./pane.js";
import { showOffline } from "./page.js";
import { addressWithSearch, recipePanel } from "./recipe.js";
import { addEditControls } from "./actions.js";
import { addPhotos } from "./photos.js";
import { startCovers } from "./covers.js";
import { shareRow } from "./view.js";
import { toDOM } from "./markup.js";
import { releaseWithin, wakeToggle } from "./wake.js";

let input, list, single, pane;
// { recipes, byId, rows, docs, needed, vocabulary, ids, miss, how }: filled once the data has arrived.
let state = null;
let showing = null; // the rows on show (showing.js), once the data has arrived
const indexOf = new Map(); // row → its place in name order
let openRow = null;
let urlTimer = 0;

const finish = () => showing?.finish();
const plainClick = (event) => event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;

export function startList() {
  input = document.getElementById("q");
  list = document.getElementById("recipes");
  if (!input || !list) return;
  single = document.querySelector(".single");
  pane = new Pane(list, input, single);
  // Offline, a search address is answered with the cached list: filter it here.
  const asked = new URLSearchParams(location.search).get("q");
  if (asked !== null && input.value === "") input.value = asked;
  startRows();
  startKeys();
  startPane();
  startSearch();
  // A recipe's own page on a phone shows only the recipe: the list is not needed there.
  if (!single || pane.wide()) load().catch(() => {
    // Search stays with the server (the form), rows stay links.
    state = null;
  });
}

async function load() {
  const words = vocabulary();
  const response = await fetch("/api/recipes", { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error("recipes: HTTP " + response.status);
  if (response.headers.get("X-Libations-Offline")) showOffline(true);
  const recipes = await response.json();
  // The server answered can:make and is:fav from the household's shelf and marks; before
  // this page knows them too, its own answer would flash the device's (often "none").
  await firstAnswer;
  if ("filtered" in list.dataset) {
    // The server sent only the matches; fetch the whole list once to filter locally.
    const page = await fetch("/");
    const html = new DOMParser().parseFromString(await page.text(), "text/html");
    const full = html.getElementById("recipes");
    if (!full) throw new Error("the full list is missing");
    list.replaceChildren(...Array.from(full.children));
    delete list.dataset.filtered;
  }
  const byDom = new Map();
  for (const li of list.children) {
    byDom.set(li.dataset.id, li);
    li.firstElementChild.setAttribute("aria-expanded", "false");
  }
  const byId = new Map();
  const rows = recipes.map((r) => { byId.set(String(r.id), r); return byDom.get(String(r.id)) || null; });
  rows.forEach((li, i) => { if (li) indexOf.set(li, i); });
  state = {
    recipes, rows, byId,
    docs: recipes.map(doc),
    needed: recipes.map((r) => [r.id, needs(r)]),
    vocabulary: await words,
    ids: recipes.map((r) => Number(r.id)),
    miss: [],
    how: [],
  };
  if (!state.vocabulary) throw new Error("the vocabulary could not be had");
  showing = new Showing(list, rows, indexOf, () => openRow);
  decorate();
  onChange(() => { decorate(); apply(); });
  onHousehold(() => { decorate(); apply(); });
  apply();
  startCovers(list);
  const path = /^\/recipes\/(\d+)$/.exec(location.pathname);
  if (single && pane.id) {
    pane.markCurrent(pane.id);
    pane.currentRow?.scrollIntoView({ block: "center" });
  } else if (path && byDom.has(path[1])) {
    if (pane.wide()) showInPane(byDom.get(path[1]), { push: false }); else open(byDom.get(path[1]), { push: false });
  }
}

// The closest guesses when nothing matches (templates/list_body.html, `guesses`).
function showGuesses(guessed) {
  const box = document.getElementById("guesses");
  if (!box) return;
  box.hidden = guessed.length === 0;
  const links = guessed.flatMap((i, n) => {
    const r = state.recipes[i], a = document.createElement("a");
    a.href = "/recipes/" + r.id;
    a.textContent = r.name;
    return n ? [", ", a] : [a];
  });
  document.getElementById("guess-list").replaceChildren(...links);
}

// ---- Searching --------------------------------------------------------------------------

// Who is asking (model.js, `personalPasses`): a person's own and the household's shelf,
// or what this device keeps (its shelf is always a shelf, empty or not).
function mine() {
  if (!household.known) return { favourites: bar.favourites, ratings: new Map(), lastMade: new Map(), now: Date.now(), shelf: bar.shelf };
  const lastMade = new Map();
  for (const m of household.made) if (!lastMade.has(m.id) || lastMade.get(m.id) < m.at) lastMade.set(m.id, m.at);
  return { favourites: household.favourites, ratings: household.ratings, lastMade, now: Date.now(), shelf: shelfNow() };
}
// The shelf the marks and can:make answer from: the household's once known.
const shelfNow = () => (household.known && household.shelf ? household.shelf : bar.shelf);

function startSearch() {
  const filters = document.querySelector(".filters");
  filters?.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-term]");
    if (!link || !state || !plainClick(event)) return;
    event.preventDefault();
    const term = link.dataset.term;
    const words = input.value.split(/\s+/).filter(Boolean);
    const isIt = (w) => spelt(w) === term;
    input.value = (words.some(isIt) ? words.filter((w) => !isIt(w)) : [...words, term]).join(" ");
    apply();
  });
  input.addEventListener("input", apply);
  input.form.addEventListener("submit", (event) => {
    if (!state) return; // not ready: let the server answer
    event.preventDefault();
    apply();
    finish();
    input.blur();
  });
  // Moving into a trimmed list, scrolling or a taller window: the whole answer, now. (Not on
  // "scroll": the browser scrolls by itself as the list changes length.)
  list.addEventListener("focusin", finish);
  addEventListener("wheel", finish, { passive: true });
  addEventListener("touchmove", finish, { passive: true });
  addEventListener("resize", finish);
  document.addEventListener("keydown", (event) => {
    if (["PageDown", "End", "ArrowDown", " "].includes(event.key) && !event.target.closest("input, textarea, select")) finish();
  });
}

// A word as a quick filter names it (data-term): a personal term's canonical spelling,
// `abv:<=10`, `sort:abv`; else the word folded.
function spelt(word) {
  const folded = fold(word);
  const personal = personalTerm(folded);
  if (personal !== null) return personal;
  const t = parse(folded)[0];
  if (t && t.figure) return t.figure + ":" + t.cmp + t.value;
  if (t && t.sort) return "sort:" + t.sort;
  return folded;
}

// The matches of what is typed (their place and how many terms match the name), or null
// for everything; the personal terms found.
function matches(terms, refused) {
  const personal = terms.filter((t) => t.personal).map((t) => t.personal);
  const passes = (i) => personal.every((p) => personalPasses(p, me, state.ids[i], state.miss[i].length));
  const me = personal.length ? mine() : null;
  let hits = refused ? [] : terms.length > personal.length ? rank(state.docs, terms, state.vocabulary)
    : personal.length ? state.rows.map((_, i) => [i, 0]) : null;
  if (personal.length) hits = hits.filter(([i]) => passes(i));
  // Nothing found: what the words may have meant, as the server's page lists them.
  const guessed = hits && hits.length === 0 && !refused ? guesses(state.docs, terms, state.vocabulary).filter(passes) : [];
  return { hits, personal, guessed };
}

function apply() {
  if (!state) return;
  const { rows } = state;
  const q = input.value;
  const terms = parse(q);
  const refused = refusal(terms);
  const { hits, personal, guessed } = matches(terms, refused);
  const on = new Set(q.split(/\s+/).filter(Boolean).map(spelt));
  for (const link of document.querySelectorAll(".filters a[data-term]")) {
    if (on.has(link.dataset.term)) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
  const hinted = personalHint(personal);
  const want = new Uint8Array(rows.length);
  const promoted = [];
  if (hits) {
    for (const [i, inName] of hits) {
      if (!rows[i]) continue;
      want[i] = 1;
      if (inName > 0) promoted.push(i);
    }
  } else want.fill(1);
  if (openRow && !want[indexOf.get(openRow)]) close(openRow);
  const n = want.reduce((a, b) => a + b, 0);
  showing.show(want, promoted, n);
  const total = Number(list.dataset.total) || 0;
  document.getElementById("count").textContent = refused || (hits ? n + " of " + total : total + " recipes");
  // An empty shelf (or no favourites) is said once, by the hint: not also "No recipe matches".
  document.getElementById("empty").hidden = n !== 0 || hinted;
  document.getElementById("empty-q").textContent = q;
  const why = n === 0 ? misread(terms) : null;
  document.getElementById("empty-why").textContent = why ?? "";
  document.getElementById("empty-why").hidden = why === null;
  document.getElementById("empty-try").hidden = why !== null;
  showGuesses(hinted ? [] : guessed);
  // Browsers limit how often the address may change: update it once typing pauses.
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const id = pane.id ?? openRow?.dataset.id;
    const address = id ? addressWithSearch(id, q) : "/" + (q.trim() === "" ? "" : "?q=" + encodeURIComponent(q));
    if (location.pathname + location.search !== address) history.replaceState(null, "", address);
  }, 400);
}

// Marks rows as favourites, makeable now (and how, where a stand-in or a prep does it), or
// missing one bottle (named), read through the vocabulary as the server reads them.
function decorate() {
  const { rows, ids } = state;
  const shelf = shelfNow();
  const favourites = household.known ? household.favourites : bar.favourites;
  const stocked = shelf.size > 0;
  const read = shelfRows(state.needed, shelf, state.vocabulary, household.known ? household.rules : []);
  state.miss = read.map((r) => r.missing.map(([, name]) => name));
  state.how = read.map((r) => r.how);
  rows.forEach((li, i) => {
    if (!li) return;
    li.classList.toggle("fav", favourites.has(ids[i]));
    const gap = state.miss[i];
    const have = !stocked ? null : gap.length === 0 ? "all" : gap.length === 1 ? "one" : null;
    const row = li.firstElementChild;
    let note = row.querySelector(".have");
    if (!have) {
      delete li.dataset.have;
      if (note) note.remove();
      return;
    }
    li.dataset.have = have;
    if (!note) { note = el("span", { class: "have" }); row.append(note); }
    // How, when a stand-in or a prep makes it: "can make now: Cointreau for Triple sec".
    const how = state.how[i].length ? ": " + state.how[i].join("; ") : "";
    note.textContent = have === "all" ? "can make now" + how : "missing " + gap[0];
    note.classList.toggle("missing", have === "one");
  });
}

// A line under the count when a personal term cannot find anything yet (the element is
// the one the server's page has for the same terms: "device-note"); whether it is shown.
function personalHint(personal) {
  let hint = document.getElementById("device-note");
  let text = null;
  if ((personal.includes("can:make") || personal.includes("missing:one")) && shelfNow().size === 0) {
    text = "Your shelf is empty: tick what you have in ";
  } else if (personal.includes("is:fav") && (household.known ? household.favourites : bar.favourites).size === 0) {
    text = "No favourites yet: open a recipe and tap Favourite. Or import them in ";
  }
  if (text === null) { if (hint) hint.hidden = true; return false; }
  if (!hint) {
    hint = el("p", { class: "device-note", id: "device-note" });
    list.before(hint);
  }
  hint.replaceChildren(text, el("a", { href: "/shelf" }, "My bar"), ".");
  hint.hidden = false;
  return true;
}

// ---- Opening recipes --------------------------------------------------------------------

function startRows() {
  list.addEventListener("click", (event) => {
    const link = event.target.closest("a.row");
    if (!link || !state || !plainClick(event)) return;
    event.preventDefault();
    const li = link.parentElement;
    // Enter on a row (a click without a pointer) takes the focus to the recipe beside it.
    if (pane.wide()) { if (li.dataset.id !== pane.id || event.detail === 0) showInPane(li, { focus: event.detail === 0 }); return; }
    if (li === openRow) { close(li); history.pushState(null, "", listAddress()); } else open(li);
  });
}

function keepInView(li) {
  const topBar = document.querySelector(".bar");
  const top = topBar ? topBar.getBoundingClientRect().bottom : 0;
  const box = li.getBoundingClientRect();
  if (box.top < top || box.bottom > innerHeight) {
    scrollBy({ top: box.top - top, behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "instant" : "smooth" });
  }
}

// The list's address, with what is typed in the search box.
const listAddress = () => "/" + (input.value.trim() ? "?q=" + encodeURIComponent(input.value) : "");

// Opens a recipe in its row (a phone), with its Share, Print, and for an editor Edit and
// Delete; its address is pushed (`push`), so that Back closes it and reload shows it.
function open(li, { push = true } = {}) {
  finish(); // the whole list, so that the row keeps its place
  if (openRow) close(openRow);
  const recipe = state.byId.get(li.dataset.id);
  if (!recipe) return;
  const panel = recipePanel(recipe);
  // Share and Print beside Favourite and Keep screen on: the recipe keeps to one screen.
  const acts = panel.querySelector(".seg.acts") ?? panel;
  acts.append(...toDOM(shareRow()).childNodes);
  addEditControls(panel, li.dataset.id, recipe.name);
  li.append(panel);
  addPhotos(li, panel, li.dataset.id, recipe.name);
  li.classList.add("open");
  li.firstElementChild.setAttribute("aria-expanded", "true");
  li.firstElementChild.setAttribute("aria-controls", panel.id);
  wakeToggle(panel);
  openRow = li;
  keepInView(li);
  if (push) history.pushState(null, "", addressWithSearch(li.dataset.id, input.value));
}

function close(li) {
  releaseWithin(li);
  const panel = li.querySelector(".recipe");
  if (panel) panel.remove();
  // The photo spot (photos.js) goes with the recipe: left in the closed row it would make
  // the row a line taller, and the list move under the next one opened.
  li.querySelector(":scope > .photo-spot")?.remove();
  li.classList.remove("open");
  li.firstElementChild.setAttribute("aria-expanded", "false");
  li.firstElementChild.removeAttribute("aria-controls");
  if (openRow === li) openRow = null;
}

// Opens a recipe in the pane beside the list (a wide screen).
function showInPane(li, options) {
  const recipe = state.byId.get(li.dataset.id);
  if (!recipe) return;
  if (openRow) close(openRow);
  pane.show(li, recipe, options);
}

function startPane() {
  addEventListener("popstate", () => {
    if (!state) return;
    const path = /^\/recipes\/(\d+)$/.exec(location.pathname);
    const li = path && list.querySelector(':scope > li[data-id="' + path[1] + '"]');
    // Back and Forward: the recipe of the address open (beside the list, or in its row),
    // or none.
    if (li && pane.wide()) showInPane(li, { push: false });
    else if (li) { if (li !== openRow) open(li, { push: false }); }
    else {
      if (pane.id) pane.close({ push: false });
      if (openRow) close(openRow);
    }
  });
  // A recipe opened in its row moves to the pane when the window becomes wide.
  pane.wideScreen.addEventListener("change", () => {
    if (pane.wide() && openRow && state) {
      const li = openRow;
      close(li);
      showInPane(li, { push: false });
      history.replaceState(null, "", addressWithSearch(pane.id, input.value));
    }
  });
}

// ---- Keyboard ---------------------------------------------------------------------------

// The next (`step`: "nextElementSibling") or previous row shown.
const shownRow = (li, step) => {
  for (let at = li && li[step]; at; at = at[step]) if (!at.hidden) return at;
  return null;
};

// Esc closes the recipe; ↓ from the search box to the first result, ↓ ↑ from row to row,
// ↑ from the first back.
function startKeys() {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.target === input) return;
    if (openRow) {
      const link = openRow.firstElementChild;
      close(openRow);
      history.pushState(null, "", listAddress());
      link.focus();
    } else if (pane.id && pane.wide()) {
      event.preventDefault();
      const row = pane.close();
      (row ? row.firstElementChild : input).focus();
    }
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" && state) {
      finish();
      const first = list.firstElementChild && (list.firstElementChild.hidden ? shownRow(list.firstElementChild, "nextElementSibling") : list.firstElementChild);
      if (first) { event.preventDefault(); first.firstElementChild.focus(); }
    } else if (event.key === "Escape") {
      if (input.value !== "") { event.preventDefault(); input.value = ""; apply(); }
      else if (pane.id && pane.wide()) { event.preventDefault(); pane.close(); }
    }
  });
  list.addEventListener("keydown", (event) => {
    const link = event.target.closest && event.target.closest("a.row");
    if (!link || (event.key !== "ArrowDown" && event.key !== "ArrowUp") || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    finish();
    const next = shownRow(link.parentElement, event.key === "ArrowDown" ? "nextElementSibling" : "previousElementSibling");
    if (next) next.firstElementChild.focus();
    else if (event.key === "ArrowUp") input.focus();
  });
}
