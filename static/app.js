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

  // Terms only this phone can answer (its shelf and favourites): the server ignores them.
  const DEVICE = {
    "can:make": "can:make", "missing:one": "missing:one", "missing:1": "missing:one",
    "is:fav": "is:fav", "is:favourite": "is:fav", "is:favorite": "is:fav", "is:starred": "is:fav",
  };

  // Trimming as Rust's str::trim does (the Unicode White_Space set): JavaScript's own trim
  // also removes U+FEFF and keeps U+0085, and the two sides must agree.
  const trimWS = (t) => t.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
  const trimEndWS = (t) => t.replace(/\p{White_Space}+$/u, "");
  const trimStartWS = (t) => t.replace(/^\p{White_Space}+/u, "");

  function fold(text) {
    return String(text)
      .normalize("NFKD").toLowerCase().normalize("NFKD")
      .replace(MARKS, "")
      .replace(SPACES, " ").replace(/^ | $/g, "")
      .replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, "\"").replace(DASHES, "-");
  }

  function parse(input) {
    const chars = Array.from(fold(input));
    const terms = [];
    const seen = new Set();
    let i = 0;
    while (i < chars.length) {
      if (chars[i] === " ") { i++; continue; }
      const start = i;
      while (i < chars.length && chars[i] !== " " && chars[i] !== "\"") i++;
      const word = chars.slice(start, i).join("");
      if (Object.hasOwn(DEVICE, word)) {
        if (!terms.some((t) => t.device === DEVICE[word])) terms.push({ device: DEVICE[word] });
        continue;
      }
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
        text = trimWS(chars.slice(open, i).join(""));
        i++;
      }
      // The same term twice asks nothing more: it counts once.
      const key = field + ":" + text;
      if (text !== "" && !seen.has(key)) {
        seen.add(key);
        terms.push({ field, text });
      }
    }
    return terms;
  }

  // Keep in step with src/search.rs (MAX_TERMS, MAX_TERM_CHARS; tests/search-cases.json).
  const MAX_TERMS = 16;
  const MAX_TERM_CHARS = 100;

  // Why parsed terms are too many or too long to run, word for word as the server says it;
  // null when they are fine.
  function refusal(terms) {
    const words = terms.filter((t) => !t.device);
    if (words.length > MAX_TERMS) {
      return "A search can have at most " + MAX_TERMS + " different words; this one has " + words.length + ".";
    }
    const longest = Math.max(0, ...words.map((t) => Array.from(t.text).length));
    if (longest > MAX_TERM_CHARS) {
      return "A search word can be at most " + MAX_TERM_CHARS + " characters long; one has " + longest + ".";
    }
    return null;
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
  function rank(docs, all) {
    const terms = all.filter((t) => !t.device);
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

  // ---- Amounts: keep in step with src/units.rs (tests/units-cases.json) ------------------
  // 30 ml = 1 oz; oz to the nearest ¼ (⅛ below), ml to 5 above 20 ml (2.5, then 0.5 below),
  // cl to 0.5 (0.1 below); never rounded to nothing; text and ×1 in its own unit as written.
  const ML = { ml: 1, cl: 10, oz: 30 };
  const VOLUME = {};
  for (const n of ["ml", "mls", "millilitre", "millilitres", "milliliter", "milliliters"]) VOLUME[n] = "ml";
  for (const n of ["cl", "cls", "centilitre", "centilitres", "centiliter", "centiliters"]) VOLUME[n] = "cl";
  for (const n of ["oz", "ozs", "fl oz", "fl. oz", "fl.oz", "ounce", "ounces", "fluid ounce", "fluid ounces"]) VOLUME[n] = "oz";
  const GLYPHS = { "¼": 0.25, "½": 0.5, "¾": 0.75, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875, "⅕": 0.2, "⅙": 1 / 6 };
  const EIGHTHS = ["", "⅛", "¼", "⅜", "½", "⅝", "¾", "⅞"];
  const MAX_AMOUNT = 1e6; // anything larger is not an amount: shown as written

  function stepFor(unit, v) {
    if (unit === "ml") return v > 20 ? 5 : v >= 2.5 ? 2.5 : 0.5;
    if (unit === "cl") return v >= 0.5 ? 0.5 : 0.1;
    return v >= 0.25 ? 0.25 : 0.125;
  }
  function roundIn(unit, v) {
    const s = stepFor(unit, v);
    const r = Math.floor(v / s + 0.5 + 1e-9) * s;
    return r === 0 && v > 0 ? s : r;
  }
  function fraction(v) {
    const e = v * 8;
    if (Math.abs(e - Math.round(e)) > 1e-9 || e < 0) return null;
    const n = Math.round(e), whole = Math.floor(n / 8), part = n % 8;
    if (whole === 0) return part === 0 ? "0" : EIGHTHS[part];
    return whole + EIGHTHS[part];
  }
  function decimal(v, places) {
    let t = v.toFixed(places);
    if (t.includes(".")) t = t.replace(/0+$/, "").replace(/\.$/, "");
    return t;
  }
  const formatIn = (unit, v) => (unit === "oz" ? fraction(v) ?? decimal(v, 2) : decimal(v, 1));
  const exact = (v) => fraction(v) ?? decimal(v, 2);
  const isWhole = (t) => /^[0-9]+$/.test(t);
  function simpleFraction(t) {
    const slash = t.indexOf("/");
    if (slash === -1) return null;
    const top = trimWS(t.slice(0, slash)), bottom = trimWS(t.slice(slash + 1));
    if (!isWhole(top) || !isWhole(bottom) || Number(bottom) === 0) return null;
    return Number(top) / Number(bottom);
  }
  function parseNumber(text) {
    const t = trimWS(text);
    if (t === "") return null;
    const v = readNumber(t);
    return v !== null && Number.isFinite(v) && v <= MAX_AMOUNT ? v : null;
  }
  function readNumber(t) {
    const last = Array.from(t).pop();
    if (Object.hasOwn(GLYPHS, last)) {
      const whole = trimWS(t.slice(0, t.length - last.length));
      if (whole === "") return GLYPHS[last];
      return isWhole(whole) ? Number(whole) + GLYPHS[last] : null;
    }
    const space = t.indexOf(" ");
    if (space !== -1) {
      const whole = t.slice(0, space), part = simpleFraction(trimWS(t.slice(space + 1)));
      return isWhole(whole) && part !== null ? Number(whole) + part : null;
    }
    if (t.includes("/")) return simpleFraction(t);
    const d = t.replace(",", ".");
    return /^[0-9]*\.?[0-9]*$/.test(d) && /[0-9]/.test(d) ? Number(d) : null;
  }
  // [low, high] (equal for one number), or null.
  function parseQuantity(text) {
    const one = parseNumber(text);
    if (one !== null) return [one, one, false];
    let at = text.indexOf(" to "), len = 4;
    if (at === -1) { at = text.search(/[-–—]/); len = 1; }
    if (at === -1) return null;
    const a = parseNumber(text.slice(0, at)), b = parseNumber(text.slice(at + len));
    return a !== null && b !== null && a <= b ? [a, b, true] : null;
  }
  function asWritten(measure, unit) {
    const m = trimWS(String(measure || "")), u = trimWS(String(unit || ""));
    return m && u ? m + " " + u : m || u;
  }
  // "measure unit" of one ingredient shown in `display.unit` (null: the file's) for
  // `display.servings`.
  function amount(measure, unit, display) {
    let m = trimWS(String(measure || "")), u = trimWS(String(unit || ""));
    if (u === "") {
      const at = m.search(/\p{Alphabetic}/u);
      if (at > 0) { u = trimWS(m.slice(at)); m = trimEndWS(m.slice(0, at)); }
    }
    const q = parseQuantity(m);
    if (!q) return asWritten(measure, unit);
    const to = display.unit || null, raw = display.servings, servings = Math.max(1, raw);
    const named = trimWS(u).replace(/\.+$/, "").toLowerCase();
    const from = Object.hasOwn(VOLUME, named) ? VOLUME[named] : null;
    const show = (f, fmt) => {
      const a = fmt(f(q[0])), b = fmt(f(q[1]));
      return q[2] && a !== b ? a + "–" + b : a;
    };
    if (from && to && !(from === to && raw === 1)) {
      return show((v) => roundIn(to, v * ML[from] / ML[to] * servings), (v) => formatIn(to, v)) + " " + to;
    }
    if (raw === 1) return asWritten(measure, unit);
    if (from) return show((v) => roundIn(from, v * servings), (v) => formatIn(from, v)) + " " + u;
    return asWritten(show((v) => v * servings, exact), u);
  }

  // ---- Shelf: keep in step with src/ingredients.rs (tests/ingredient-cases.json) ---------
  const COLOURS = ["white", "dark", "brown", "green", "red", "gold", "blanc", "clear", "black"];
  const STAPLES = new Set([
    "water", "plain water", "still water", "tap water", "cold water", "chilled water", "warm water",
    "hot water", "boiling water", "soda", "soda water", "club soda", "sparkling water",
    "carbonated water", "mineral water", "sparkling mineral water", "seltzer", "seltzer water",
    "ice", "crushed ice", "cracked ice", "ice cubes",
  ]);
  const FRESH = ["freshly squeezed ", "fresh squeezed ", "freshly ", "fresh "];

  function ingredientKey(name) {
    let rest = fold(name), kept = "";
    for (let open = rest.indexOf("("); open !== -1; open = rest.indexOf("(")) {
      kept += rest.slice(0, open);
      const after = rest.slice(open + 1), close = after.indexOf(")");
      const inner = trimWS(close === -1 ? after : after.slice(0, close));
      if (COLOURS.includes(inner)) kept += " (" + inner + ")";
      kept += " ";
      rest = close === -1 ? "" : after.slice(close + 1);
    }
    let key = (kept + rest).split(" ").filter(Boolean).join(" ");
    // Until nothing changes, so that a key is its own key ("fresh fresh mint" → "mint").
    for (let last = null; last !== key;) {
      last = key;
      key = trimWS(key.replace(/[,.;:\p{White_Space}]+$/u, ""));
      const fresh = FRESH.find((p) => key.startsWith(p) && key.length > p.length);
      if (fresh) key = key.slice(fresh.length);
    }
    return key;
  }
  function isOptional(name) {
    const f = fold(name);
    for (let at = f.indexOf("("); at !== -1; at = f.indexOf("(", at + 1)) {
      if (trimStartWS(f.slice(at + 1)).startsWith("optional")) return true;
    }
    return false;
  }
  const isStaple = (key) => STAPLES.has(key);
  // What a recipe needs from a shelf: [key, name as written], each key once.
  function needs(recipe) {
    const out = new Map();
    for (const i of recipe.ingredients || []) {
      const key = ingredientKey(i.name);
      if (key && !isStaple(key) && !isOptional(i.name) && !out.has(key)) out.set(key, i.name);
    }
    return Array.from(out);
  }
  // Names of the needs not on the shelf (a Set of keys).
  const missing = (need, shelf) => need.filter(([key]) => !shelf.has(key)).map(([, name]) => name);

  // ---- Links in notes: keep in step with src/web/links.rs --------------------------------
  // [text, isLink] pieces of `notes`, in order: http:// and https:// addresses that start a
  // word, without a closing full stop, comma or bracket. Nothing else becomes a link.
  const ADDRESS = /https?:\/\//giu;
  const TRAILING = /[.,;:!?)\]'"]+$/u;
  function noteParts(notes) {
    const text = String(notes), parts = [];
    let last = 0;
    ADDRESS.lastIndex = 0;
    for (let m = ADDRESS.exec(text); m !== null; m = ADDRESS.exec(text)) {
      const at = m.index, prev = Array.from(text.slice(Math.max(0, at - 2), at)).pop();
      if (prev !== undefined && WORD_CHAR.test(prev)) continue;
      const space = text.slice(at).search(/\p{White_Space}/u);
      const end = space === -1 ? text.length : at + space;
      const address = text.slice(at, end).replace(TRAILING, "");
      if (address.length <= m[0].length) { ADDRESS.lastIndex = end; continue; }
      if (at > last) parts.push([text.slice(last, at), false]);
      parts.push([address, true]);
      last = at + address.length;
      ADDRESS.lastIndex = last;
    }
    if (last < text.length) parts.push([text.slice(last), false]);
    return parts;
  }

  const api = {
    fold, parse, refusal, search, rank, doc, startsAWord, FIELDS, MAX_TERMS, MAX_TERM_CHARS,
    amount, asWritten, ingredientKey, isOptional, isStaple, needs, missing, noteParts,
  };
  globalThis.Libations = api;
  globalThis.LibationsSearch = api;
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

  // Who you are on the tailnet, quietly in the footer ("Alice · iphone"). Pages are shared
  // and cached, so the name comes from /api/whoami, which is per person and never cached.
  const who = document.getElementById("who");
  if (who && navigator.onLine) {
    fetch("/api/whoami", { headers: { Accept: "application/json" }, cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((me) => {
        if (!me || !me.known || !me.label) return;
        who.textContent = me.label;
        who.title = me.login || (me.tags || []).join(", ");
        who.hidden = false;
      })
      .catch(() => {});
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

  // ---- This phone's choices: units, shelf, favourites (never sent anywhere) ---------------
  const STORE = "libations";
  const UNITS = ["ml", "oz", "cl"];
  const bar = { units: null, shelf: new Set(), favourites: new Set() };

  // Checks an export (or what is stored) and returns it as `bar` holds it; throws a message
  // naming the field at fault.
  function readBar(data) {
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      throw new Error("expected an object with version, units, shelf and favourites");
    }
    if (data.version !== 1) throw new Error("\"version\" must be 1, not " + JSON.stringify(data.version));
    const units = data.units ?? null;
    if (units !== null && !UNITS.includes(units)) {
      throw new Error("\"units\" must be \"ml\", \"oz\", \"cl\" or null, not " + JSON.stringify(units));
    }
    const list = (field) => {
      const value = data[field] ?? [];
      if (!Array.isArray(value)) throw new Error("\"" + field + "\" must be a list");
      return value;
    };
    const shelf = list("shelf").map((v, i) => {
      if (typeof v !== "string" || ingredientKey(v) === "") throw new Error("\"shelf\"[" + i + "] is not an ingredient name: " + JSON.stringify(v));
      return ingredientKey(v);
    });
    const favourites = list("favourites").map((v, i) => {
      if (!Number.isSafeInteger(v) || v < 0) throw new Error("\"favourites\"[" + i + "] is not a recipe id: " + JSON.stringify(v));
      return v;
    });
    return { units, shelf: new Set(shelf), favourites: new Set(favourites) };
  }
  const barJSON = () => ({
    version: 1, units: bar.units,
    shelf: Array.from(bar.shelf).sort(), favourites: Array.from(bar.favourites).sort((a, b) => a - b),
  });
  const nothing = () => ({ units: null, shelf: new Set(), favourites: new Set() });
  const onBarChange = [];
  const barChanged = () => { for (const f of onBarChange) f(); };

  // Reads the stored choices (another tab or the installed app may have changed them).
  function loadBar() {
    let stored = null;
    try { stored = localStorage.getItem(STORE); } catch (error) { return; } // storage disabled
    if (stored === null) { Object.assign(bar, nothing()); return; }
    try {
      Object.assign(bar, readBar(JSON.parse(stored)));
    } catch (error) {
      // A damaged entry is set aside, never overwritten, and this phone starts afresh.
      try {
        if (localStorage.getItem(STORE + "-unreadable") === null) localStorage.setItem(STORE + "-unreadable", stored);
        localStorage.removeItem(STORE);
      } catch (ignored) { /* storage disabled */ }
      Object.assign(bar, nothing());
      console.warn("libations: stored choices could not be read (kept as " + STORE + "-unreadable): " + error.message);
    }
  }
  // Changes the choices on top of what is stored now; false when the browser refused to
  // store them (full, or disabled), so that the page can say so.
  function changeBar(change) {
    loadBar();
    change(bar);
    let stored = true;
    try { localStorage.setItem(STORE, JSON.stringify(barJSON())); } catch (error) { stored = false; }
    barChanged();
    return stored;
  }
  loadBar();
  addEventListener("storage", (event) => {
    if (event.key === STORE || event.key === null) { loadBar(); barChanged(); }
  });
  addEventListener("pageshow", (event) => {
    if (event.persisted) { loadBar(); barChanged(); }
  });

  // Servings last while the page does; `?units=&serves=` of a shared link win for its page.
  const here = new URLSearchParams(location.search);
  let servings = Math.min(100, Math.max(1, parseInt(here.get("serves"), 10) || 1));
  let pageUnits = UNITS.includes(here.get("units")) ? here.get("units") : undefined;
  const unitsNow = () => (pageUnits !== undefined ? pageUnits : bar.units);

  function recipeHref(id, units, n) {
    const q = [];
    if (units) q.push("units=" + units);
    if (n !== 1) q.push("serves=" + n);
    return "/recipes/" + id + (q.length ? "?" + q.join("&") : "");
  }

  // Shows a recipe's amounts and tools as the current choices say.
  function paint(root) {
    const units = unitsNow(), id = root.dataset.id;
    for (const td of root.querySelectorAll("td.amount[data-measure]")) {
      td.textContent = amount(td.dataset.measure, td.dataset.unit, { unit: units, servings });
    }
    for (const a of root.querySelectorAll("[data-units]")) {
      const current = a.dataset.units === units;
      if (current) a.setAttribute("aria-current", "true"); else a.removeAttribute("aria-current");
      a.href = recipeHref(id, current ? null : a.dataset.units, servings);
    }
    for (const a of root.querySelectorAll("[data-serves]")) {
      const n = Number(a.dataset.serves);
      if (n === servings) a.setAttribute("aria-current", "true"); else a.removeAttribute("aria-current");
      a.href = recipeHref(id, units, n);
    }
    const caption = root.querySelector(".ingredients caption");
    if (caption) caption.textContent = "Ingredients" + (servings === 1 ? "" : ", for " + servings);
    const field = root.querySelector("input.servings");
    if (field && parseInt(field.value, 10) !== servings) field.value = String(servings);
    const hidden = root.querySelector("input[name=units]");
    if (hidden) hidden.value = units || "";
    const star = root.querySelector(".star");
    if (star) {
      star.hidden = false;
      star.setAttribute("aria-pressed", String(bar.favourites.has(Number(id))));
    }
  }
  const paintAll = () => document.querySelectorAll(".recipe[data-id]").forEach(paint);
  onBarChange.push(paintAll);

  document.addEventListener("click", (event) => {
    const target = event.target.closest(".recipe [data-units], .recipe [data-serves], .recipe .star");
    if (!target || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (target.dataset.units) {
      const chosen = target.dataset.units === unitsNow() ? null : target.dataset.units;
      pageUnits = undefined;
      changeBar((b) => { b.units = chosen; });
    } else if (target.dataset.serves) {
      servings = Number(target.dataset.serves);
      paintAll();
    } else {
      const id = Number(target.closest(".recipe").dataset.id);
      changeBar((b) => { if (b.favourites.has(id)) b.favourites.delete(id); else b.favourites.add(id); });
    }
    keepAddress();
  });
  // A recipe's own page keeps its address in step, so that a reload shows the same.
  function keepAddress() {
    const recipe = document.querySelector(".single .recipe[data-id]");
    if (recipe) history.replaceState(null, "", recipeHref(recipe.dataset.id, unitsNow(), servings));
  }
  document.addEventListener("input", (event) => {
    if (!event.target.matches(".recipe input.servings")) return;
    const n = Number(event.target.value);
    if (Number.isInteger(n) && n >= 1 && n <= 100) { servings = n; paintAll(); keepAddress(); }
  });
  document.addEventListener("submit", (event) => {
    if (!event.target.matches(".recipe form.serves")) return;
    event.preventDefault();
    event.target.querySelector("input.servings")?.blur();
    paintAll();
  });

  const single = document.querySelector(".single");
  if (single) {
    wakeToggle(single);
    const recipe = single.querySelector(".recipe");
    if (recipe) paint(recipe);
  }
  shelfPage();

  const input = document.getElementById("q");
  const list = document.getElementById("recipes");

  // Keys: `/` searches, `?` shows or hides the list of keys (templates/keys.html).
  const keysToggle = document.getElementById("keys-toggle");
  const keysBox = document.getElementById("keys");
  const showKeys = (on) => {
    if (!keysBox) return;
    keysBox.hidden = !on;
    keysToggle?.setAttribute("aria-expanded", String(on));
  };
  keysToggle?.addEventListener("click", () => showKeys(keysBox.hidden));
  const typing = (target) => target instanceof Element && target.closest("input, textarea, select, [contenteditable]") !== null;
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "?") { event.preventDefault(); showKeys(keysBox?.hidden); }
    else if (event.key === "/" && input) { event.preventDefault(); input.focus(); input.select(); }
    else if (event.key === "Escape" && keysBox && !keysBox.hidden) { event.preventDefault(); showKeys(false); }
  });
  if (!input || !list) return;
  const count = document.getElementById("count");
  const empty = document.getElementById("empty");
  const emptyQuery = document.getElementById("empty-q");
  const topBar = document.querySelector(".bar");
  const total = Number(list.dataset.total) || 0;
  // Offline, a search address is answered with the cached list: filter it here.
  const asked = new URLSearchParams(location.search).get("q");
  if (asked !== null && input.value === "") input.value = asked;
  // { recipes, docs, rows, byId, shown, displaced, want, promoted, n, head }: filled once
  // the data has arrived.
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
      const rows = ingredients.map((i) => el("tr", null,
        el("td", { class: "amount", "data-measure": i.measure || "", "data-unit": i.unit || "" }, asWritten(i.measure, i.unit)),
        el("th", { scope: "row" }, i.name)));
      parts.push(el("table", { class: "ingredients" },
        el("caption", { class: "visually-hidden" }, "Ingredients"), el("tbody", null, ...rows)));
    }
    const facts = [["Method", r.method], ["Glass", r.glass], ["Ice", r.ice], ["Garnish", r.garnish]]
      .filter(([, v]) => v && v.length)
      .map(([k, v]) => el("div", null, el("dt", null, k), el("dd", null, v.join(", "))));
    parts.push(el("dl", { class: "facts" }, ...facts));
    if (r.notes) {
      parts.push(el("p", { class: "notes" }, ...noteParts(r.notes).map(([text, link]) =>
        link ? el("a", { href: text, rel: "noopener noreferrer" }, text) : text)));
    }
    const tools = [];
    if (ingredients.length) {
      const chip = (attrs, text) => el("a", { class: "chip", href: "/recipes/" + r.id, ...attrs }, text);
      tools.push(el("div", { class: "seg units", role: "group", "aria-label": "Units" },
        ...UNITS.map((u) => chip({ "data-units": u }, u))));
      tools.push(el("form", { class: "seg serves", method: "get", action: "/recipes/" + r.id, "aria-label": "Servings" },
        ...[1, 2, 4, 8].map((n) => chip({ "data-serves": String(n) }, "×" + n)),
        el("input", { type: "hidden", name: "units", value: "" }),
        el("input", { class: "servings", name: "serves", type: "number", min: "1", max: "100", step: "1", inputmode: "numeric", value: "1", "aria-label": "Servings" }),
        el("button", { class: "go", type: "submit" }, "Go")));
    }
    tools.push(el("div", { class: "seg acts" },
      el("button", { type: "button", class: "star", "aria-pressed": "false" }, "Favourite"),
      el("button", { type: "button", class: "wake", "aria-pressed": "false" }, "Keep screen on")));
    parts.push(el("div", { class: "tools" }, ...tools));
    const panel = el("div", { class: "recipe", id: "recipe-" + r.id, "data-id": String(r.id) }, ...parts);
    paint(panel);
    return panel;
  }

  function keepInView(li) {
    const top = topBar ? topBar.getBoundingClientRect().bottom : 0;
    const box = li.getBoundingClientRect();
    if (box.top < top || box.bottom > innerHeight) {
      scrollBy({ top: box.top - top, behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "instant" : "smooth" });
    }
  }

  function open(li) {
    finish(); // the whole list, so that the row keeps its place
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
    // Enter on a row (a click without a pointer) takes the focus to the recipe beside it.
    if (wide()) { if (li.dataset.id !== paneId || event.detail === 0) showInPane(li, { focus: event.detail === 0 }); return; }
    if (li === openRow) close(li); else open(li);
  });

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.target === input) return;
    if (openRow) {
      const link = openRow.firstElementChild;
      close(openRow);
      link.focus();
    } else if (paneId && wide()) {
      event.preventDefault();
      const row = closePane();
      (row ? row.firstElementChild : input).focus();
    }
  });

  // ↓ from the search box to the first result, ↓ ↑ from row to row, ↑ from the first back.
  const shownRow = (li, step) => {
    for (let at = li && li[step]; at; at = at[step]) if (!at.hidden) return at;
    return null;
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" && state) {
      finish();
      const first = list.firstElementChild && (list.firstElementChild.hidden ? shownRow(list.firstElementChild, "nextElementSibling") : list.firstElementChild);
      if (first) { event.preventDefault(); first.firstElementChild.focus(); }
    } else if (event.key === "Escape") {
      if (input.value !== "") { event.preventDefault(); input.value = ""; apply(); }
      else if (paneId && wide()) { event.preventDefault(); closePane(); }
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

  // ---- Wide screens: the opened recipe in the pane beside the list ----------------------
  // The address follows it (/recipes/{id}), so back, forward and reload show the same.
  const pane = document.getElementById("pane");
  const panes = pane && pane.parentElement;
  const wideScreen = matchMedia("(min-width: 48em)");
  const wide = () => pane !== null && wideScreen.matches;
  const hint = pane && (pane.querySelector(".pane-hint") ||
    el("div", { class: "pane-hint" }, el("p", null, "Choose a recipe from the list: it opens here, and the list stays beside it.")));
  let paneId = single ? single.querySelector(".recipe")?.dataset.id ?? null : null;
  let currentRow = null;
  const titleFor = (name) => (name ? name + " · " : "") + "Libations";

  function markCurrent(id) {
    if (currentRow) { currentRow.classList.remove("current"); currentRow.firstElementChild.removeAttribute("aria-current"); }
    currentRow = id === null ? null : list.querySelector(':scope > li[data-id="' + CSS.escape(id) + '"]');
    if (currentRow) { currentRow.classList.add("current"); currentRow.firstElementChild.setAttribute("aria-current", "page"); }
  }

  function showInPane(li, { push = true, focus = false } = {}) {
    const recipe = state.byId.get(li.dataset.id);
    if (!recipe) return;
    if (openRow) close(openRow);
    if (wake.button && pane.contains(wake.button)) release();
    const heading = el("h1", { tabindex: "-1" }, li.querySelector("svg.glass").cloneNode(true), el("span", { class: "name" }, recipe.name));
    const base = recipe.base && recipe.base.length ? el("p", { class: "base" }, recipe.base.join(", ")) : null;
    const panel = body(recipe);
    pane.replaceChildren(el("article", { class: "single" }, heading, base, panel));
    panes.classList.add("has-recipe");
    wakeToggle(panel);
    paneId = li.dataset.id;
    markCurrent(paneId);
    pane.scrollTop = 0;
    document.title = titleFor(recipe.name);
    if (push) history.pushState(null, "", recipeHref(paneId, pageUnits ?? null, servings));
    if (focus) heading.focus();
    li.scrollIntoView({ block: "nearest" });
  }

  // Closes the pane; returns the row that was open.
  function closePane({ push = true } = {}) {
    const row = currentRow;
    if (wake.button && pane.contains(wake.button)) release();
    pane.replaceChildren(hint);
    panes.classList.remove("has-recipe");
    paneId = null;
    markCurrent(null);
    document.title = titleFor(input.value.trim());
    if (push) history.pushState(null, "", "/" + (input.value.trim() ? "?q=" + encodeURIComponent(input.value) : ""));
    return row;
  }

  addEventListener("popstate", () => {
    if (!state || !pane) return;
    const path = /^\/recipes\/(\d+)$/.exec(location.pathname);
    const li = path && list.querySelector(':scope > li[data-id="' + path[1] + '"]');
    if (li) showInPane(li, { push: false });
    else if (paneId) closePane({ push: false });
  });
  // A recipe opened in its row moves to the pane when the window becomes wide.
  wideScreen.addEventListener("change", () => {
    if (wide() && openRow && state) {
      const li = openRow;
      close(li);
      showInPane(li, { push: false });
      history.replaceState(null, "", recipeHref(paneId, pageUnits ?? null, servings));
    }
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
      needs: recipes.map(needs),
      ids: recipes.map((r) => Number(r.id)),
      miss: [],
      shown: new Uint8Array(recipes.length).fill(1),
      displaced: new Uint8Array(recipes.length),
      // The answer on show (or being put on show): every row, none moved up.
      want: new Uint8Array(recipes.length).fill(1),
      promoted: [],
      n: recipes.length,
      head: [], // rows rendered while the list is trimmed
    };
    decorate();
    onBarChange.push(() => { decorate(); apply(); });
    apply();
    const path = /^\/recipes\/(\d+)$/.exec(location.pathname);
    if (single && paneId) {
      markCurrent(paneId);
      currentRow?.scrollIntoView({ block: "center" });
    } else if (path && byDom.has(path[1])) {
      if (wide()) showInPane(byDom.get(path[1]), { push: false }); else open(byDom.get(path[1]));
    }
  }

  // Shows the matches in order with as few DOM changes as possible: rows keep their place
  // (name order) except those whose name matches, which move to the top.
  //
  // With thousands of rows rendered, every frame after any change to the list is slow (each
  // rendered row is laid out, painted and watched for scrolling into view), however few rows
  // change. So with a long list the search "trims" it: only the first screenful of the answer
  // (class "head") is rendered, and just those rows are put right before the next frame. The
  // rest of the changes wait until the query has stayed the same for a moment; they are then
  // made in batches, none of them rendered, and the whole list comes back in one frame.
  // Scrolling, the focus moving into the list, opening a row, Enter or a resize bring it back
  // at once. The list is aria-busy while trimmed.
  const SMALL = 200; // rows rendered before and after: change them all at once, no trimming
  const PAUSE = 500; // ms the query stays the same before the whole list is rendered again
  const BATCH = 250; // changes per task then (none of them rendered)
  let job = null;
  let trimmed = false;
  let untrimAt = 0;
  let ticking = false;
  let urlTimer = 0;

  // Rows enough to fill the screen (they are at least 3rem high), and a few more.
  const headSize = () => Math.ceil(innerHeight / 44) + 4;

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
      if (!displaced[i]) continue; // already put back with the head
      putBack(i);
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

  // Moves a row that was on top back to its place in name order: rows moved up are always
  // the first ones in the list, so that is before the next row (in name order) not moved up.
  function putBack(i) {
    const { rows, displaced } = state;
    let next = null;
    for (let j = i + 1; j < rows.length && !next; j++) if (rows[j] && !displaced[j]) next = rows[j];
    list.insertBefore(rows[i], next);
    displaced[i] = 0;
  }

  // The first rows of the answer (`head`, in order; the first `top` of them are on top),
  // shown, in place and marked: while the list is trimmed they are the only rows rendered.
  function showHead(head, top) {
    const { rows, shown, displaced } = state;
    const inHead = new Uint8Array(rows.length);
    for (const i of head) inHead[i] = 1;
    for (const i of state.head) if (!inHead[i]) rows[i].classList.remove("head");
    let prev = null;
    for (let k = 0; k < top; k++) {
      const li = rows[head[k]];
      const at = prev ? prev.nextElementSibling : list.firstElementChild;
      if (li !== at) list.insertBefore(li, at);
      displaced[head[k]] = 1;
      prev = li;
    }
    for (let k = top; k < head.length; k++) if (displaced[head[k]]) putBack(head[k]);
    for (const i of head) {
      if (!shown[i]) { rows[i].hidden = false; shown[i] = 1; }
      rows[i].classList.add("head");
    }
    state.head = head;
  }

  function trim(on) {
    if (trimmed === on) return;
    trimmed = on;
    list.classList.toggle("trim", on);
    if (on) list.setAttribute("aria-busy", "true"); else list.removeAttribute("aria-busy");
  }

  // Waits for the query to stay the same, makes the remaining changes a batch per task,
  // then renders the whole list.
  function tick() {
    ticking = false;
    if (!trimmed) return;
    const wait = untrimAt - performance.now();
    if (wait > 0) { ticking = true; setTimeout(tick, wait); return; }
    if (job && run(job, BATCH)) job = null;
    if (job) { ticking = true; setTimeout(tick, 0); return; }
    trim(false);
  }

  // The whole answer, now.
  function finish() {
    if (!trimmed) return;
    if (job) { run(job, Infinity); job = null; }
    trim(false);
  }

  function run(work, budget) {
    for (let n = 0; n < budget; n++) {
      if (work.next().done) return true;
    }
    return false;
  }

  // Shows `want` (a flag per row, `n` of them set) with `promoted` (rows, best first) on top.
  function showAnswer(want, promoted, n) {
    const { rows } = state;
    if (promoted.length === state.promoted.length && promoted.every((i, k) => state.promoted[k] === i) &&
        want.every((w, i) => w === state.want[i])) return; // the answer on show (or on its way)
    const before = state.n;
    Object.assign(state, { want, promoted, n });
    job = changes(want, promoted);
    if (!trimmed && before <= SMALL && n <= SMALL) {
      run(job, Infinity);
      job = null;
      return;
    }
    const size = headSize();
    const head = promoted.slice(0, size);
    const inTop = new Uint8Array(rows.length);
    for (const i of promoted) inTop[i] = 1;
    for (let i = 0; i < rows.length && head.length < size; i++) {
      if (rows[i] && want[i] && !inTop[i]) head.push(i);
    }
    trim(true);
    showHead(head, Math.min(size, promoted.length));
    // An opened recipe stays rendered (it may hold the focus), wherever it is.
    if (openRow && !openRow.classList.contains("head")) {
      openRow.classList.add("head");
      state.head.push(indexOf.get(openRow));
    }
    untrimAt = performance.now() + PAUSE;
    if (!ticking) { ticking = true; setTimeout(tick, PAUSE); }
  }

  // Marks rows as favourites, makeable now, or missing one ingredient (named).
  function decorate() {
    const { rows, ids } = state;
    const stocked = bar.shelf.size > 0;
    state.miss = state.needs.map((need) => missing(need, bar.shelf));
    rows.forEach((li, i) => {
      if (!li) return;
      li.classList.toggle("fav", bar.favourites.has(ids[i]));
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
      note.textContent = have === "all" ? "can make now" : "missing " + gap[0];
      note.classList.toggle("missing", have === "one");
    });
  }

  const passes = {
    "can:make": (i) => state.miss[i].length === 0,
    "missing:one": (i) => state.miss[i].length === 1,
    "is:fav": (i) => bar.favourites.has(state.ids[i]),
  };

  // A line under the count when a phone-only filter cannot find anything yet.
  function deviceHint(device) {
    let hint = document.getElementById("device-note");
    let text = null;
    if ((device.includes("can:make") || device.includes("missing:one")) && bar.shelf.size === 0) {
      text = "Your shelf is empty: tick what you have in ";
    } else if (device.includes("is:fav") && bar.favourites.size === 0) {
      text = "No favourites yet: open a recipe and tap Favourite. Or import them in ";
    }
    if (text === null) { if (hint) hint.hidden = true; return; }
    if (!hint) {
      hint = el("p", { class: "device-note", id: "device-note" });
      list.before(hint);
    }
    hint.replaceChildren(text, el("a", { href: "/shelf" }, "My bar"), ".");
    hint.hidden = false;
  }

  const filters = document.querySelector(".filters");
  filters?.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-term]");
    if (!link || !state || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    const term = link.dataset.term;
    const words = input.value.split(/\s+/).filter(Boolean);
    const isIt = (w) => DEVICE[fold(w)] === term;
    input.value = (words.some(isIt) ? words.filter((w) => !isIt(w)) : [...words, term]).join(" ");
    apply();
  });

  function apply() {
    if (!state) return;
    const { rows } = state;
    const q = input.value;
    const terms = parse(q);
    const refused = refusal(terms);
    const device = terms.filter((t) => t.device).map((t) => t.device);
    let hits = refused ? [] : terms.length > device.length ? rank(state.docs, terms)
      : device.length ? rows.map((_, i) => [i, 0]) : null;
    if (device.length) hits = hits.filter(([i]) => device.every((d) => passes[d](i)));
    for (const link of filters ? filters.querySelectorAll("a[data-term]") : []) {
      if (device.includes(link.dataset.term)) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    }
    deviceHint(device);
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
    showAnswer(want, promoted, n);
    count.textContent = refused || (hits ? n + " of " + total : total + " recipes");
    empty.hidden = n !== 0;
    emptyQuery.textContent = q;
    // Browsers limit how often the address may change: update it once typing pauses.
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => {
      const search = q.trim() === "" ? "" : "?q=" + encodeURIComponent(q);
      if (location.search !== search) history.replaceState(null, "", (paneId ? location.pathname : "/") + search);
    }, 400);
  }

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
  // A recipe's own page on a phone shows only the recipe: the list is not needed there.
  if (!single || wide()) load().catch(() => {
    // Search stays with the server (the form), rows stay links.
    state = null;
  });
  // ---- /shelf: units, the ingredients on hand, moving to another phone -----------------
  function shelfPage() {
    const root = document.getElementById("bar");
    if (!root) return;
    for (const control of root.querySelectorAll("[disabled]")) control.disabled = false;
    const status = document.getElementById("bar-status");
    const shown = document.getElementById("shelf-count");
    const find = document.getElementById("shelf-q");
    const boxes = Array.from(root.querySelectorAll("#shelf input[type=checkbox]"));
    const listed = new Set(boxes.map((b) => b.value));
    const plural = (n, one, many) => n + " " + (n === 1 ? one : many);
    const summary = () => (bar.units ? "amounts in " + bar.units : "amounts as written") + ", " +
      plural(bar.shelf.size, "ingredient", "ingredients") + " on the shelf, " +
      plural(bar.favourites.size, "favourite", "favourites");

    function show() {
      for (const radio of root.querySelectorAll("input[name=units]")) radio.checked = radio.value === (bar.units || "");
      let ticked = 0;
      for (const box of boxes) { box.checked = bar.shelf.has(box.value); ticked += box.checked; }
      const elsewhere = Array.from(bar.shelf).filter((k) => !listed.has(k)).length;
      shown.textContent = ticked + " of " + boxes.length + " ticked" +
        (elsewhere ? ", and " + elsewhere + " from another collection (kept)" : "");
    }
    onBarChange.push(show);
    show();

    const refused = "This browser would not store the change (storage is full or turned off): it will be lost when the page closes.";
    root.addEventListener("change", (event) => {
      const t = event.target;
      let stored = true;
      if (t.name === "units") {
        stored = changeBar((b) => { b.units = t.value || null; });
      } else if (t.type === "checkbox" && listed.has(t.value)) {
        stored = changeBar((b) => { if (t.checked) b.shelf.add(t.value); else b.shelf.delete(t.value); });
      }
      if (!stored) status.textContent = refused;
    });
    find.addEventListener("input", () => {
      const terms = parse(find.value).filter((t) => !t.device).map((t) => t.text);
      for (const box of boxes) {
        const name = fold(box.parentElement.querySelector(".name").textContent);
        box.closest("li").hidden = !terms.every((t) => startsAWord(name, t));
      }
    });

    document.getElementById("export").addEventListener("click", () => {
      const file = new Blob([JSON.stringify(barJSON(), null, 1) + "\n"], { type: "application/json" });
      const url = URL.createObjectURL(file);
      const link = el("a", { href: url, download: "libations-bar.json", hidden: "" });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      status.textContent = "Exported libations-bar.json: " + summary() + ".";
    });
    const picker = document.getElementById("import");
    picker.addEventListener("change", async () => {
      const file = picker.files && picker.files[0];
      if (!file) return;
      try {
        let data;
        try { data = JSON.parse(await file.text()); } catch (error) { throw new Error("not JSON (" + error.message + ")"); }
        const incoming = readBar(data);
        loadBar();
        const anything = bar.units !== null || bar.shelf.size > 0 || bar.favourites.size > 0;
        if (anything && !confirm("Replace the units, shelf and favourites on this phone with those in " + file.name + "?")) {
          status.textContent = "Import cancelled: nothing was changed.";
          return;
        }
        const stored = changeBar((b) => Object.assign(b, incoming));
        status.textContent = stored ? "Imported " + file.name + ": " + summary() + "." : refused;
      } catch (error) {
        status.textContent = file.name + ": " + error.message + ". Nothing was changed.";
      } finally {
        picker.value = "";
      }
    });
    document.getElementById("forget").addEventListener("click", () => {
      if (!confirm("Clear the units, shelf and favourites kept on this phone?")) return;
      changeBar((b) => Object.assign(b, nothing()));
      try { localStorage.removeItem(STORE); } catch (error) { /* disabled */ }
      status.textContent = "Cleared. Import an exported file to get them back.";
    });
  }
})();
