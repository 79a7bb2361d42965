// Libations: search as you type, open recipes in place, keep the screen on, work offline.
// The page works without this file (rows are links to recipe pages, search is a form). The search rules are the
// same as src/search.rs (tests/search-cases.json is run against both).
"use strict";
(function () {
  // ---- Matching: keep in step with src/search.rs -------------------------------------
  const MARKS = /\p{M}/gu;
  const SPACES = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g;
  const SINGLE_QUOTES = /[\u2018\u2019\u201a\u201b\u2032`\u00b4]/g;
  const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033]/g;
  const DASHES = /[\u2010-\u2015\u2212]/g;
  const WORD_CHAR = /[\p{Alphabetic}\p{N}]/u;
  const FIELDS = ["name", "base", "glass", "method", "ice", "ingredient", "garnish", "notes"];
  const PREFIXES = {
    name: 0, base: 1, glass: 2, method: 3, ice: 4,
    ingredient: 5, ingredients: 5, garnish: 6, note: 7, notes: 7,
  };

  function fold(text) {
    return String(text)
      .normalize("NFKD").toLowerCase().normalize("NFKD")
      .replace(MARKS, "")
      .replace(SPACES, " ").trim()
      .replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, "\"").replace(DASHES, "-");
  }

  function parse(input) {
    const chars = Array.from(fold(input));
    const terms = [];
    let i = 0;
    while (i < chars.length) {
      if (chars[i] === " ") { i++; continue; }
      const start = i;
      while (i < chars.length && chars[i] !== " " && chars[i] !== "\"") i++;
      const word = chars.slice(start, i).join("");
      let field = null;
      let rest = word;
      const colon = word.indexOf(":");
      if (colon !== -1 && Object.hasOwn(PREFIXES, word.slice(0, colon))) {
        field = PREFIXES[word.slice(0, colon)];
        rest = word.slice(colon + 1);
      }
      let text = rest;
      if (i < chars.length && chars[i] === "\"" && rest === "") {
        const open = ++i;
        while (i < chars.length && chars[i] !== "\"") i++;
        text = chars.slice(open, i).join("").trim();
        i++;
      }
      if (text !== "") terms.push({ field, text });
    }
    return terms;
  }

  function startsAWord(hay, needle) {
    let at = hay.indexOf(needle);
    while (at !== -1) {
      if (at === 0) return true;
      const c = hay.charCodeAt(at - 1);
      const word = c < 128
        ? (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90)
        : WORD_CHAR.test(c >= 0xdc00 && c <= 0xdfff && at >= 2 ? hay.slice(at - 2, at) : hay[at - 1]);
      if (!word) return true;
      at = hay.indexOf(needle, at + 1);
    }
    return false;
  }

  // A recipe as the eight folded fields the rules look at.
  function doc(recipe) {
    const join = (values) => (values || []).map(fold).join("\n");
    return [
      fold(recipe.name), join(recipe.base), join(recipe.glass), join(recipe.method),
      join(recipe.ice), join((recipe.ingredients || []).map((i) => i.name)),
      join(recipe.garnish), fold(recipe.notes || ""),
    ];
  }

  // [position in `docs`, terms matching the name] of every match: more terms matching the
  // name first, then in the given order.
  function rank(docs, terms) {
    const hits = [];
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i];
      let all = true;
      for (const t of terms) {
        if (t.field === null ? !d.some((f) => startsAWord(f, t.text)) : !startsAWord(d[t.field], t.text)) {
          all = false;
          break;
        }
      }
      if (!all) continue;
      let inName = 0;
      for (const t of terms) if ((t.field === null || t.field === 0) && startsAWord(d[0], t.text)) inName++;
      hits.push([i, inName]);
    }
    hits.sort((a, b) => b[1] - a[1]);
    return hits;
  }

  // Positions in `docs` of the matches, best first.
  function search(docs, terms) {
    return rank(docs, terms).map((h) => h[0]);
  }

  globalThis.LibationsSearch = { fold, parse, search, rank, doc, startsAWord, FIELDS };
  if (typeof document === "undefined") return;


  // ---- The page -------------------------------------------------------------------------
  document.documentElement.classList.add("js");

  // Offline: the service worker keeps the list, the recipes and the assets (static/sw.js).
  const offlineHint = document.getElementById("offline");
  const showOffline = (on) => { if (offlineHint) offlineHint.hidden = !on; };
  if (!navigator.onLine) showOffline(true);
  addEventListener("offline", () => showOffline(true));
  addEventListener("online", () => showOffline(false));
  if ("serviceWorker" in navigator && !(navigator.serviceWorker.controller && !navigator.onLine)) {
    addEventListener("load", () => {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => showOffline(!navigator.onLine));
    });
  }

  // Keep screen on: a Screen Wake Lock while a recipe is open and the page is visible.
  const wake = { button: null, sentinel: null };
  const canWake = window.isSecureContext && "wakeLock" in navigator;

  async function acquire() {
    const button = wake.button;
    if (!button || wake.sentinel || document.visibilityState !== "visible") return;
    try {
      const sentinel = await navigator.wakeLock.request("screen");
      if (wake.button !== button || wake.sentinel) { sentinel.release(); return; }
      wake.sentinel = sentinel;
      sentinel.addEventListener("release", () => { if (wake.sentinel === sentinel) wake.sentinel = null; });
    } catch (error) {
      // Refused (battery saver, no permission): show the toggle as off.
      if (wake.button === button) release();
    }
  }

  function release() {
    if (wake.sentinel) wake.sentinel.release();
    wake.sentinel = null;
    if (wake.button) wake.button.setAttribute("aria-pressed", "false");
    wake.button = null;
  }

  function wakeToggle(root) {
    const button = root.querySelector(".wake");
    if (!button) return;
    button.hidden = !canWake;
    if (!canWake) return;
    button.addEventListener("click", () => {
      if (wake.button === button) { release(); return; }
      release();
      wake.button = button;
      button.setAttribute("aria-pressed", "true");
      acquire();
    });
  }

  // The system drops the lock when the page is hidden; take it again when it is back.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") acquire();
    else if (wake.sentinel) { wake.sentinel.release(); wake.sentinel = null; }
  });
  addEventListener("pagehide", release);

  const single = document.querySelector(".single");
  if (single) wakeToggle(single);

  const input = document.getElementById("q");
  const list = document.getElementById("recipes");
  if (!input || !list) return;
  const count = document.getElementById("count");
  const empty = document.getElementById("empty");
  const emptyQuery = document.getElementById("empty-q");
  const bar = document.querySelector(".bar");
  const total = Number(list.dataset.total) || 0;
  // Offline, a search address is answered with the cached list: filter it here.
  const asked = new URLSearchParams(location.search).get("q");
  if (asked !== null && input.value === "") input.value = asked;
  // { recipes, docs, rows, byId, shown, displaced }: filled once the data has arrived.
  let state = null;
  const indexOf = new Map(); // row → its place in name order
  let openRow = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) if (c !== null) node.append(c);
    return node;
  }

  // The same markup as templates/recipe_body.html.
  function body(r) {
    const parts = [];
    const ingredients = r.ingredients || [];
    if (ingredients.length) {
      const rows = ingredients.map((i) => {
        const measure = i.measure || "", unit = i.unit || "";
        const amount = measure + (measure && unit ? " " : "") + unit;
        return el("tr", null, el("td", { class: "amount" }, amount), el("th", { scope: "row" }, i.name));
      });
      parts.push(el("table", { class: "ingredients" },
        el("caption", { class: "visually-hidden" }, "Ingredients"), el("tbody", null, ...rows)));
    }
    const facts = [["Method", r.method], ["Glass", r.glass], ["Ice", r.ice], ["Garnish", r.garnish]]
      .filter(([, v]) => v && v.length)
      .map(([k, v]) => el("div", null, el("dt", null, k), el("dd", null, v.join(", "))));
    parts.push(el("dl", { class: "facts" }, ...facts));
    if (r.notes) parts.push(el("p", { class: "notes" }, r.notes));
    parts.push(el("p", { class: "tools" },
      el("button", { type: "button", class: "wake", "aria-pressed": "false" }, "Keep screen on")));
    return el("div", { class: "recipe", id: "recipe-" + r.id }, ...parts);
  }

  function keepInView(li) {
    const top = bar ? bar.getBoundingClientRect().bottom : 0;
    const box = li.getBoundingClientRect();
    if (box.top < top || box.bottom > innerHeight) {
      scrollBy({ top: box.top - top, behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "instant" : "smooth" });
    }
  }

  function open(li) {
    if (openRow) close(openRow);
    const recipe = state.byId.get(li.dataset.id);
    if (!recipe) return;
    const panel = body(recipe);
    li.append(panel);
    li.classList.add("open");
    li.firstElementChild.setAttribute("aria-expanded", "true");
    li.firstElementChild.setAttribute("aria-controls", panel.id);
    wakeToggle(panel);
    openRow = li;
    keepInView(li);
  }

  function close(li) {
    if (wake.button && li.contains(wake.button)) release();
    const panel = li.querySelector(".recipe");
    if (panel) panel.remove();
    li.classList.remove("open");
    li.firstElementChild.setAttribute("aria-expanded", "false");
    li.firstElementChild.removeAttribute("aria-controls");
    if (openRow === li) openRow = null;
  }

  list.addEventListener("click", (event) => {
    const link = event.target.closest("a.row");
    if (!link || !state || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    const li = link.parentElement;
    if (li === openRow) close(li); else open(li);
  });

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !openRow || event.target === input) return;
    const link = openRow.firstElementChild;
    close(openRow);
    link.focus();
  });

  async function load() {
    const response = await fetch("/api/recipes", { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error("recipes: HTTP " + response.status);
    if (response.headers.get("X-Libations-Offline")) showOffline(true);
    const recipes = await response.json();
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
      shown: new Uint8Array(recipes.length).fill(1),
      displaced: new Uint8Array(recipes.length),
    };
    apply();
    const path = /^\/recipes\/(\d+)$/.exec(location.pathname);
    if (path && byDom.has(path[1])) open(byDom.get(path[1]));
  }

  // Shows the matches in order with as few DOM changes as possible, the top of the list
  // first: rows keep their place (name order) except those whose name matches, which move
  // to the top. With thousands of rows the changes further down are made in small batches
  // after the next frame (the list is aria-busy meanwhile), so typing never waits for them.
  const FIRST = 40, BATCH = 60; // changes before the next frame; then per task
  let job = null;
  let urlTimer = 0;

  function* changes(want, promoted) {
    const { rows, shown, displaced } = state;
    const show = (i, on) => {
      if (shown[i] !== on) { rows[i].hidden = !on; shown[i] = on; return true; }
      return false;
    };
    const inTop = new Uint8Array(rows.length);
    for (const i of promoted) inTop[i] = 1;
    // Rows moved up last time: hide those no longer wanted; put back in place (from the
    // end, so each one's successor already is) those still shown but no longer on top.
    const back = [];
    for (let i = 0; i < rows.length; i++) {
      if (!displaced[i] || inTop[i]) continue;
      if (want[i]) back.push(i); else if (show(i, 0)) yield;
    }
    for (let k = back.length - 1; k >= 0; k--) {
      const i = back[k];
      let next = null;
      for (let j = i + 1; j < rows.length && !next; j++) if (rows[j] && !displaced[j]) next = rows[j];
      list.insertBefore(rows[i], next);
      displaced[i] = 0;
      show(i, 1);
      yield;
    }
    // This time's top rows, in rank order, before everything else.
    let cursor = list.firstElementChild;
    for (const i of promoted) {
      while (cursor && cursor.hidden && displaced[indexOf.get(cursor)] && !inTop[indexOf.get(cursor)]) cursor = cursor.nextElementSibling;
      displaced[i] = 1; // before any yield: a newer search may take over at each one
      if (cursor === rows[i]) cursor = cursor.nextElementSibling;
      else { list.insertBefore(rows[i], cursor); yield; }
      if (show(i, 1)) yield;
    }
    // Everything else, top to bottom.
    for (let i = 0; i < rows.length; i++) {
      if (rows[i] && !displaced[i] && show(i, want[i])) yield;
    }
  }

  function run(work, budget) {
    for (let n = 0; n < budget; n++) {
      if (work.next().done) return true;
    }
    return false;
  }

  function step() {
    if (!job) return;
    if (run(job, BATCH)) { job = null; list.removeAttribute("aria-busy"); return; }
    // Let the frame paint and input arrive before the next batch.
    setTimeout(step, 0);
  }

  function apply() {
    if (!state) return;
    const { rows } = state;
    const q = input.value;
    const terms = parse(q);
    const hits = terms.length ? rank(state.docs, terms) : null;
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
    job = changes(want, promoted);
    if (run(job, FIRST)) { job = null; list.removeAttribute("aria-busy"); }
    else { list.setAttribute("aria-busy", "true"); requestAnimationFrame(() => setTimeout(step, 0)); }
    const n = want.reduce((a, b) => a + b, 0);
    count.textContent = hits ? n + " of " + total : total + " recipes";
    empty.hidden = n !== 0;
    emptyQuery.textContent = q;
    // Browsers limit how often the address may change: update it once typing pauses.
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => {
      const search = q.trim() === "" ? "" : "?q=" + encodeURIComponent(q);
      if (location.search !== search) history.replaceState(null, "", "/" + search);
    }, 400);
  }

  input.addEventListener("input", apply);
  input.form.addEventListener("submit", (event) => {
    if (!state) return; // not ready: let the server answer
    event.preventDefault();
    apply();
    input.blur();
  });
  load().catch(() => {
    // Search stays with the server (the form), rows stay links.
    state = null;
  });
})();
