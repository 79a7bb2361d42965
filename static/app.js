// Libations: search as you type, and keep an opened recipe in view.
// The page works without this file; it only makes search instant. The search rules are the
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
      const before = Array.from(hay.slice(Math.max(0, at - 2), at)).pop();
      if (!WORD_CHAR.test(before)) return true;
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

  // Positions in `docs` of the matches: more terms matching the name first, then as given.
  function search(docs, terms) {
    const hits = [];
    docs.forEach((d, i) => {
      const all = terms.every((t) =>
        t.field === null ? d.some((f) => startsAWord(f, t.text)) : startsAWord(d[t.field], t.text));
      if (!all) return;
      const inName = terms.filter((t) => (t.field === null || t.field === 0) && startsAWord(d[0], t.text)).length;
      hits.push([i, inName]);
    });
    hits.sort((a, b) => b[1] - a[1]);
    return hits.map((h) => h[0]);
  }

  globalThis.LibationsSearch = { fold, parse, search, doc, startsAWord, FIELDS };
  if (typeof document === "undefined") return;

  // ---- The page -------------------------------------------------------------------------
  document.documentElement.classList.add("js");

  function keepInView(details) {
    if (!details.open) return;
    const box = details.getBoundingClientRect();
    const bar = document.querySelector(".bar");
    const top = bar ? bar.getBoundingClientRect().bottom : 0;
    if (box.top < top || box.bottom > window.innerHeight) {
      details.scrollIntoView({ block: "start" });
    }
  }

  document.addEventListener("toggle", (event) => {
    if (event.target instanceof HTMLDetailsElement) keepInView(event.target);
  }, true);

  const input = document.getElementById("q");
  const list = document.getElementById("recipes");
  if (!input || !list) return;
  const count = document.getElementById("count");
  const empty = document.getElementById("empty");
  const emptyQuery = document.getElementById("empty-q");
  const total = Number(list.dataset.total) || 0;
  let state = null; // { docs, rows }: filled once the data has arrived

  async function load() {
    const response = await fetch("/api/recipes", { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error("recipes: HTTP " + response.status);
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
    const rows = new Map();
    for (const li of list.children) rows.set(li.dataset.id, li);
    state = { recipes, docs: recipes.map(doc), rows };
    apply();
  }

  function apply() {
    if (!state) return;
    const q = input.value;
    const terms = parse(q);
    const order = search(state.docs, terms);
    const shown = new Set();
    const fragment = document.createDocumentFragment();
    for (const i of order) {
      const li = state.rows.get(String(state.recipes[i].id));
      if (!li) continue;
      li.hidden = false;
      shown.add(li);
      fragment.appendChild(li);
    }
    for (const li of state.rows.values()) {
      if (!shown.has(li)) { li.hidden = true; fragment.appendChild(li); }
    }
    list.appendChild(fragment);
    const n = shown.size;
    count.textContent = terms.length === 0 ? total + " recipes" : n + " of " + total;
    empty.hidden = n !== 0;
    emptyQuery.textContent = q;
    const url = q.trim() === "" ? location.pathname : "?q=" + encodeURIComponent(q);
    history.replaceState(null, "", url);
  }

  input.addEventListener("input", apply);
  input.form.addEventListener("submit", (event) => {
    if (!state) return; // not ready: let the server answer
    event.preventDefault();
    apply();
    input.blur();
  });
  load().catch((error) => console.warn("libations: search stays server-side:", error));
})();
