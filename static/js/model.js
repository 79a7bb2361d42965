// The rules the phone and the server share, with no DOM: search matching (personal terms
// too), amounts in other units and servings, what a recipe needs from a shelf and what a
// shelf makes of the recipes, links in notes. Each part names the Rust module it keeps in
// step with and the table in tests/ that both sides are run against (tests/js/ imports
// this module directly).

// ---- Matching: keep in step with crates/model/src/search.rs -------------------------------------
const MARKS = /\p{M}/gu;
const SPACES = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201a\u201b\u2032`\u00b4]/g;
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033]/g;
const DASHES = /[\u2010-\u2015\u2212]/g;
const WORD_CHAR = /[\p{Alphabetic}\p{N}]/u;
// Field prefixes → the place of the field in a `doc`.
const PREFIXES = {
  name: 0, base: 1, glass: 2, method: 3, ice: 4,
  ingredient: 5, ingredients: 5, garnish: 6, note: 7, notes: 7,
};

// Personal terms: answered from who is asking (favourites, ratings, "made one" log, the
// shelf), never from a recipe's text, and never counted as words (crates/model/src/search.rs,
// `Personal`). Spelt one way, as typed (folded) → the canonical spelling; `rating:` below.
const PERSONAL = {
  "can:make": "can:make", "missing:one": "missing:one", "missing:1": "missing:one",
  "is:fav": "is:fav", "is:favourite": "is:fav", "is:favorite": "is:fav", "is:starred": "is:fav",
  "made:never": "made:never", "made:recent": "made:recent",
};
// rating:N, rating:>=N, rating:>N, rating:<=N, rating:<N, N from 1 to 5: the folded word
// is its own canonical spelling. Anything else after "rating:" is a plain term.
const RATING = /^rating:(>=|<=|>|<|)([1-5])$/;
const COMPARE = {
  "": (s, n) => s === n, ">=": (s, n) => s >= n, ">": (s, n) => s > n,
  "<=": (s, n) => s <= n, "<": (s, n) => s < n,
};
// How long ago a "made one" entry may be for made:recent: 30 days, the bound included.
export const RECENT_MS = 30 * 24 * 60 * 60 * 1000;

// The canonical spelling of the personal term a folded word is, or null: a plain term.
export function personalTerm(word) {
  if (Object.hasOwn(PERSONAL, word)) return PERSONAL[word];
  return RATING.test(word) ? word : null;
}

// Whether recipe `id` passes the personal term `term` (a canonical spelling, from `parse`)
// for `mine`: {favourites: Set(id), ratings: Map(id → stars), lastMade: Map(id → ms since
// the epoch), now (ms), shelf: Set(key) | null}. `gaps`: how many of the recipe's needs
// are not on mine.shelf. Without a shelf, can:make and missing:one pass (they are left
// out, as the server leaves them); an unrated recipe never passes a rating.
export function personalPasses(term, mine, id, gaps) {
  switch (term) {
    case "is:fav": return mine.favourites.has(id);
    case "can:make": return mine.shelf === null || gaps === 0;
    case "missing:one": return mine.shelf === null || gaps === 1;
    case "made:never": return !mine.lastMade.has(id);
    // An entry after `now` (another device's clock) was made now.
    case "made:recent": return mine.lastMade.has(id) && mine.now - mine.lastMade.get(id) <= RECENT_MS;
  }
  const rating = RATING.exec(term);
  const stars = mine.ratings.get(id);
  return rating !== null && stars !== undefined && COMPARE[rating[1]](stars, Number(rating[2]));
}

// abv:<10, abv:>=25%, abv:18, drinks:<=1 (crates/model/src/search.rs, `Figure`): a recipe's strength
// (its list JSON's `strength`) compared with a number; without a comparison, the figure as
// shown (ABV to the whole per cent, drinks to one decimal). Anything else after "abv:" or
// "drinks:" is a plain term. A recipe with no figures never passes.
const FIGURE = /^(abv|drinks):(>=|<=|>|<|)(\d{1,6}(?:\.\d{1,6})?)(%?)$/;

// The figure term a folded word is ({ figure: "abv" | "drinks", cmp, value }), or null.
export function figureTerm(word) {
  const m = FIGURE.exec(word);
  if (m === null || (m[4] === "%" && m[1] !== "abv")) return null;
  return { figure: m[1], cmp: m[2], value: Number(m[3]) };
}

// Whether a recipe's `strength` ({abv, standard_drinks, …} or null) passes a figure term.
export function figurePasses(term, strength) {
  if (!strength || strength.abv === null || strength.abv === undefined) return false;
  const got = term.figure === "abv" ? strength.abv : strength.standard_drinks;
  if (term.cmp !== "") return COMPARE[term.cmp](got, term.value);
  const shown = term.figure === "abv" ? Math.round(got) : Math.round(got * 10) / 10;
  return Math.abs(shown - term.value) < 1e-9;
}

// Trimming as Rust's str::trim does (the Unicode White_Space set): JavaScript's own trim
// also removes U+FEFF and keeps U+0085, and the two sides must agree.
const trimWS = (t) => t.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
const trimEndWS = (t) => t.replace(/\p{White_Space}+$/u, "");
const trimStartWS = (t) => t.replace(/^\p{White_Space}+/u, "");

export function fold(text) {
  return String(text)
    .normalize("NFKD").toLowerCase().normalize("NFKD")
    .replace(MARKS, "")
    .replace(SPACES, " ").replace(/^ | $/g, "")
    .replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, "\"").replace(DASHES, "-");
}

export function parse(input) {
  const chars = Array.from(fold(input));
  const terms = [];
  const seen = new Set();
  let i = 0;
  while (i < chars.length) {
    if (chars[i] === " ") { i++; continue; }
    const start = i;
    while (i < chars.length && chars[i] !== " " && chars[i] !== "\"") i++;
    const word = chars.slice(start, i).join("");
    if (word === "sort:abv" || word === "sort:-abv") {
      const at = terms.findIndex((t) => t.sort);
      if (at !== -1) terms.splice(at, 1);
      terms.push({ sort: word.slice(5) });
      continue;
    }
    const figure = figureTerm(word);
    if (figure !== null) {
      if (!terms.some((t) => t.figure === figure.figure && t.cmp === figure.cmp && t.value === figure.value)) terms.push(figure);
      continue;
    }
    if (word.startsWith("has:") && word.length > 4) {
      const has = word.slice(4);
      if (!terms.some((t) => t.has === has)) terms.push({ has });
      continue;
    }
    const personal = personalTerm(word);
    if (personal !== null) {
      if (!terms.some((t) => t.personal === personal)) terms.push({ personal });
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

// Keep in step with crates/model/src/search.rs (MAX_TERMS, MAX_TERM_CHARS; tests/search-cases.json).
export const MAX_TERMS = 16;
export const MAX_TERM_CHARS = 100;

// Why parsed terms are too many or too long to run, word for word as the server says it;
// null when they are fine.
export function refusal(terms) {
  const words = terms.filter((t) => t.text !== undefined || t.has !== undefined);
  if (words.length > MAX_TERMS) {
    return "A search can have at most " + MAX_TERMS + " different words; this one has " + words.length + ".";
  }
  const longest = Math.max(0, ...words.map((t) => Array.from(t.text ?? t.has).length));
  if (longest > MAX_TERM_CHARS) {
    return "A search word can be at most " + MAX_TERM_CHARS + " characters long; one has " + longest + ".";
  }
  return null;
}

export function startsAWord(hay, needle) {
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

// A recipe as the eight folded fields the rules look at: name, base, glass, method, ice,
// ingredient, garnish, notes (crates/model/src/search.rs, `Field`); its `strength` rides along for the
// figure terms.
export function doc(recipe) {
  const join = (values) => (values || []).map(fold).join("\n");
  const d = [
    fold(recipe.name), join(recipe.base), join(recipe.glass), join(recipe.method),
    join(recipe.ice), join((recipe.ingredients || []).map((i) => i.name)),
    join(recipe.garnish), fold(recipe.notes || ""),
  ];
  d.strength = recipe.strength || null;
  return d;
}

// The singular of a folded word (its last word, for a phrase), by one rule
// (crates/model/src/search/bottles.rs `singular`): "cherries" → "cherry", "peaches" → "peach",
// "limes" → "lime"; not "glass", not a word of three letters or fewer. null: no plural.
export function singular(text) {
  const last = text.slice(text.lastIndexOf(" ") + 1);
  if (Array.from(last).length < 4 || !last.endsWith("s") || last.endsWith("ss")) return null;
  const stem = text.slice(0, -1);
  if (stem.endsWith("ie")) return stem.slice(0, -2) + "y";
  if (stem.endsWith("e") && ["ch", "sh", "s", "x", "z"].some((end) => stem.slice(0, -1).endsWith(end))) return stem.slice(0, -1);
  return stem;
}

// Whether `spelling` is in `hay` as whole words: where a word starts, and ending where a
// word ends or with a plural "s" or "es" then ("lime" in "2 limes").
export function wholeWord(hay, spelling) {
  const ends = (at) => at >= hay.length || !WORD_CHAR.test(String.fromCodePoint(hay.codePointAt(at)));
  for (let at = hay.indexOf(spelling); at !== -1; at = hay.indexOf(spelling, at + 1)) {
    const before = at === 0 ? "" : Array.from(hay.slice(Math.max(0, at - 2), at)).pop();
    if (before !== "" && WORD_CHAR.test(before)) continue;
    const end = at + spelling.length;
    if (ends(end) || (hay[end] === "s" && ends(end + 1)) || (hay.startsWith("es", end) && ends(end + 2))) return true;
  }
  return false;
}

// A term as the scan meets it: its field and the needles that may stand for it, each
// [test(hay), distance] (a guess has several); `guessable`: the word as typed, when a guess
// may replace it (crates/model/src/search/index.rs, `Slot`). A term the vocabulary knows is a
// bottle: any spelling of it or of anything more specific, as whole words.
export function slot(field, text, vocabulary) {
  const bottle = vocabulary ? vocabulary.named(text) : undefined;
  const guessable = bottle === undefined && !text.includes(" ") && (field === null || field === 0 || field === 5);
  return { field, needles: [[needle(text, vocabulary), 0]], guessable: guessable ? text : null };
}
export function needle(text, vocabulary) {
  const bottle = vocabulary ? vocabulary.named(text) : undefined;
  if (bottle !== undefined) {
    const spellings = vocabulary.spellings(bottle);
    return (hay) => spellings.some((s) => wholeWord(hay, s));
  }
  const one = singular(text);
  return (hay) => startsAWord(hay, text) || (one !== null && startsAWord(hay, one));
}
// The distance of the closest needle of `s` found in doc `d`, or -1.
export function closest(s, d) {
  let best = -1;
  for (const [test, distance] of s.needles) {
    if ((best === -1 || distance < best) && (s.field === null ? d.some(test) : test(d[s.field]))) best = distance;
  }
  return best;
}

// The terms made ready: slots (a has: word the vocabulary does not know is ingredient:word)
// and, for each has: bottle, the test of a need's reading (vocabulary.js `hasTest`).
export function prepare(all, vocabulary) {
  const slots = all.filter((t) => t.text !== undefined).map((t) => slot(t.field, t.text, vocabulary));
  const has = [];
  for (const t of all.filter((x) => x.has !== undefined)) {
    const bottle = vocabulary ? vocabulary.named(t.has) : undefined;
    if (bottle === undefined) slots.push(slot(5, t.has, vocabulary));
    else has.push(vocabulary.hasTest(bottle));
  }
  return { slots, has, figures: all.filter((t) => t.figure), vocabulary };
}

// [position, distance, terms matching the name] of every doc passing `prepared`, in order.
export function scan(docs, prepared) {
  const { slots, has, figures, vocabulary } = prepared;
  const hits = [];
  next: for (let i = 0; i < docs.length; i++) {
    const d = docs[i];
    if (!figures.every((f) => figurePasses(f, d.strength))) continue;
    if (has.length) {
      d.needs ??= needs({ ingredients: d[5].split("\n").filter(Boolean).map((name) => ({ name })) });
      const readings = d.needs.map(([key]) => vocabulary.readKey(key));
      if (!has.every((test) => readings.some(test))) continue;
    }
    let distance = 0;
    for (const s of slots) {
      const got = closest(s, d);
      if (got === -1) continue next;
      distance += got;
    }
    let inName = 0;
    for (const s of slots) if ((s.field === null || s.field === 0) && s.needles.some(([test]) => test(d[0]))) inName++;
    hits.push([i, distance, inName]);
  }
  return hits;
}

// [position in `docs`, terms matching the name] of every match: more terms matching the
// name first, then in the given order. `vocabulary` (vocabulary.js) reads bottles and
// has:; without it every term is a word.
export function rank(docs, all, vocabulary = null) {
  const sort = all.find((t) => t.sort);
  const hits = scan(docs, prepare(all, vocabulary)).map(([i, , inName]) => [i, inName]);
  if (sort) {
    // sort:abv lightest first, sort:-abv strongest first; no figures last; ties in order.
    const abv = (i) => (docs[i].strength && docs[i].strength.abv !== null ? docs[i].strength.abv : null);
    const sign = sort.sort === "abv" ? 1 : -1;
    hits.sort((a, b) => {
      const x = abv(a[0]), y = abv(b[0]);
      if (x === null || y === null) return (x === null) - (y === null);
      return sign * (x - y);
    });
    return hits.map(([i]) => [i, 1]); // every hit in this order, on top
  }
  hits.sort((a, b) => b[1] - a[1]);
  return hits;
}

// Positions in `docs` of the matches, best first.
export function search(docs, terms, vocabulary = null) {
  return rank(docs, terms, vocabulary).map((h) => h[0]);
}

// ---- Amounts: keep in step with crates/model/src/units.rs (tests/units-cases.json) ------------------
// 30 ml = 1 oz; oz to the nearest ¼ (⅛ below), ml to 5 above 20 ml (2.5, then 0.5 below),
// cl to 0.5 (0.1 below); never rounded to nothing; text and ×1 in its own unit as written.
const ML = { ml: 1, cl: 10, oz: 30 };
// The units a reader can choose, in the order the server offers them (crates/model/src/units.rs).
export const UNITS = ["ml", "oz", "cl"];
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
export function amount(measure, unit, display) {
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

// ---- Shelf: keep in step with crates/model/src/ingredients.rs (tests/ingredient-cases.json) ---------
const COLOURS = ["white", "dark", "brown", "green", "red", "gold", "blanc", "clear", "black"];
const STAPLES = new Set([
  "water", "plain water", "still water", "tap water", "cold water", "chilled water", "warm water",
  "hot water", "boiling water", "soda", "soda water", "club soda", "sparkling water",
  "carbonated water", "mineral water", "sparkling mineral water", "seltzer", "seltzer water",
  "ice", "crushed ice", "cracked ice", "ice cubes",
]);
const FRESH = ["freshly squeezed ", "fresh squeezed ", "freshly ", "fresh "];

export function ingredientKey(name) {
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
export function isOptional(name) {
  const f = fold(name);
  for (let at = f.indexOf("("); at !== -1; at = f.indexOf("(", at + 1)) {
    if (trimStartWS(f.slice(at + 1)).startsWith("optional")) return true;
  }
  return false;
}
export const isStaple = (key) => STAPLES.has(key);
// What a recipe needs from a shelf: [key, name as written], each key once; and, for a row
// that is `exact` or lists `substitutes`, a third item { exact, substitutes }.
export function needs(recipe) {
  const out = new Map();
  for (const i of recipe.ingredients || []) {
    const key = ingredientKey(i.name);
    if (key && !isStaple(key) && !isOptional(i.name) && !out.has(key)) out.set(key, i);
  }
  return Array.from(out, ([key, i]) => {
    const substitutes = Array.isArray(i.substitutes) ? i.substitutes : [];
    return i.exact === true || substitutes.length ? [key, i.name, { exact: i.exact === true, substitutes }] : [key, i.name];
  });
}
// A need's place in a table (makes.rs `need_key`): its key, and what else its row says.
const needId = (key, extra) => (extra ? key + "\u0001" + extra.exact + "\u0001" + extra.substitutes.map(ingredientKey).join("\u0001") : key);
// Names of the needs not on the shelf (a Set of keys), by spelling alone: shelfRows reads
// them through the vocabulary.
export const missing = (need, shelf) => need.filter(([key]) => !shelf.has(key)).map(([, name]) => name);

// What a shelf (a Set of names or keys) makes of `recipes` (in the collection's order), read
// through `vocabulary` (vocabulary.js): crates/model/src/makes.rs `analyse`, in the shape
// GET /api/bar answers, so that the page shows either the same way (offline, or for a
// visitor the server does not know). how: the recipes made with a stand-in or a prep, and
// the words for it. missing_one and next_bottles name bottles (the vocabulary's name, the
// first of "X or Y"), most recipes first, ties by key (tests/shelf-cases.json, `analysis`).
export const analyse = (recipes, shelf, vocabulary, rules = []) =>
  analyseNeeds(recipes.map((r) => [r.id, needs(r)]), shelf, vocabulary, rules);

// How `shelf` stands against each distinct need of `needed` (each recipe's [id, needs]):
// key → { have, how (words or null), bottle: [key, name], same (the reading, as a string) }.
// Each key is read once. `rules`: the household's ([{ have, wanted }], GET /api/bar).
export function stocked(needed, shelf, vocabulary, rules = []) {
  const held = vocabulary.shelf(shelf, rules);
  const byEntry = new Map(); // entry → how it is met (the Rust's `Met` table), filled as asked
  const entryHow = (at) => {
    if (!byEntry.has(at)) byEntry.set(at, vocabulary.meetsEntry(held, at));
    return byEntry.get(at);
  };
  const meets = (r) => ("entry" in r ? entryHow(r.entry)
    : "either" in r ? either(r.either.map(entryHow)) : vocabulary.meets(held, r));
  const out = new Map();
  for (const [, need] of needed) {
    for (const [key, name, extra] of need) {
      const id = needId(key, extra);
      if (out.has(id)) continue;
      const reading = vocabulary.readKey(key);
      const row = extra && { reading, exact: extra.exact, substitutes: extra.substitutes.map((s) => vocabulary.read(s)) };
      const how = row ? vocabulary.meetsRow(held, row, meets) : meets(reading);
      const same = JSON.stringify(row || reading); // one need, however it is spelt
      out.set(id, { have: how !== null, how: how && vocabulary.explain(how), bottle: vocabulary.bottle(reading, key, name), same });
    }
  }
  return out;
}

// "X or Y": the first met without a household rule, else by one (meets.rs `either`).
const either = (hows) => hows.find((h) => h && h.rule === undefined) ?? hows.find(Boolean) ?? null;

const NONE = Object.freeze([]);

// For each recipe of `needed` ([id, needs]…), in order: { missing: the bottles the shelf
// lacks (named as next_bottles names them, [key, name]), how: the words for the needs it
// meets with a stand-in or a prep, each once }. can:make is missing.length === 0. Each
// reading counts once ("Bourbon" and "Bourbon Whiskey" are one need). At 5,000 recipes
// this runs at every tick: arrays are made only when there is something to put in them.
export function shelfRows(needed, shelf, vocabulary, rules = []) {
  const table = stocked(needed, shelf, vocabulary, rules);
  return needed.map(([, need]) => {
    let missing = NONE, how = NONE, seen = NONE;
    for (const [key, , extra] of need) {
      const n = table.get(needId(key, extra));
      if (need.length > 1) {
        if (seen.includes(n.same)) continue;
        if (seen === NONE) seen = [];
        seen.push(n.same);
      }
      if (!n.have) {
        if (missing === NONE) missing = [];
        missing.push(n.bottle);
      } else if (n.how && !how.includes(n.how)) {
        if (how === NONE) how = [];
        how.push(n.how);
      }
    }
    return { missing, how };
  });
}

// `analyse` over each recipe's [id, needs(recipe)], worked out once: folding every
// ingredient name is most of the cost (at 5,000 recipes a tick on My bar would take a
// phone a second), and a page that reads a shelf again and again need not repeat it.
export function analyseNeeds(needed, shelf, vocabulary, rules = []) {
  const out = { can_make: [], how: [], missing_one: [], next_bottles: [] };
  const unlocks = new Map(); // bottle key → [name, ids of the recipes missing only it]
  shelfRows(needed, shelf, vocabulary, rules).forEach(({ missing, how }, i) => {
    const id = needed[i][0];
    if (missing.length === 0) {
      out.can_make.push(id);
      if (how.length) out.how.push({ id, how });
    }
    if (missing.length !== 1) return;
    const [key, name] = missing[0];
    out.missing_one.push({ id, missing: name });
    if (!unlocks.has(key)) unlocks.set(key, [name, []]);
    unlocks.get(key)[1].push(id);
  });
  for (const [key, [name, ids]] of unlocks) out.next_bottles.push({ key, name, unlocks: ids });
  out.next_bottles.sort((a, b) => b.unlocks.length - a.unlocks.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out;
}

// ---- Links in notes: keep in step with crates/web/src/view/links.rs ---------------------------
// [text, isLink] pieces of `notes`, in order: http:// and https:// addresses that start a
// word, without a closing full stop, comma or bracket. Nothing else becomes a link.
const ADDRESS = /https?:\/\//giu;
const TRAILING = /[.,;:!?)\]'"]+$/u;
export function noteParts(notes) {
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
