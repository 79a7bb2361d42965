// Forgiving a typo (crates/model/src/search/guess.rs): when a query finds nothing, each word
// that finds nothing is replaced by the words of the recipes' names and of the vocabulary's
// spellings within a small edit distance, and the recipes found so are the guesses, closest
// first. tests/js/search.test.mjs holds it to the `guesses` cases of tests/search-cases.json.
import { needle, prepare, scan, closest } from "./model.js";

export const MAX_GUESSES = 10;

// How far a word of `n` characters may be from what was meant: none below 3, one below 6,
// two from 6.
export const allowed = (n) => (n < 3 ? 0 : n < 6 ? 1 : 2);

const WORD_SPLIT = /[^\p{Alphabetic}\p{N}]+/u;

// The optimal-string-alignment distance between two arrays of characters, or -1 when it
// is more than `most`.
export function distance(a, b, most) {
  const rows = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  let before = 0;
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    rows.push(row);
    if (best > most && before > most) return -1;
    before = best;
  }
  const d = rows[a.length][b.length];
  return d <= most ? d : -1;
}

// The words a typo is compared with, sorted as the Rust sorts them (code points), each as
// its characters.
const dictionaries = new WeakMap();
function dictionary(docs, vocabulary) {
  if (!dictionaries.has(docs)) {
    const words = new Set();
    const texts = [...docs.map((d) => d[0]), ...vocabulary.bySpelling.keys()];
    for (const t of texts) for (const w of t.split(WORD_SPLIT)) if (Array.from(w).length >= 3) words.add(w);
    const byPoints = (a, b) => { for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i].codePointAt(0) - b[i].codePointAt(0); return a.length - b.length; };
    dictionaries.set(docs, [...words].map((w) => Array.from(w)).sort(byPoints));
  }
  return dictionaries.get(docs);
}

// The words within `allowed` of `typed`, [word, distance], closest first, then in order.
export function near(docs, vocabulary, typed) {
  const chars = Array.from(typed), most = allowed(chars.length);
  if (most === 0) return [];
  const found = [];
  for (const w of dictionary(docs, vocabulary)) {
    if (Math.abs(w.length - chars.length) > most) continue;
    const word = w.join("");
    if (word === typed) continue;
    const d = distance(chars, w, most);
    if (d !== -1) found.push([word, d]);
  }
  return found.sort((a, b) => a[1] - b[1]);
}

// Positions in `docs` of the guesses for `terms` (parsed), best first; [] when the terms
// find something or a word that finds nothing has no near word.
export function guesses(docs, terms, vocabulary) {
  if (!vocabulary) return [];
  const prepared = prepare(terms, vocabulary);
  let guessed = false;
  for (const s of prepared.slots) {
    if (docs.some((d) => closest(s, d) !== -1)) continue;
    if (s.guessable === null) return [];
    const words = near(docs, vocabulary, s.guessable);
    if (!words.length) return [];
    s.needles = words.map(([w, d]) => [needle(w, vocabulary), d]);
    guessed = true;
  }
  if (!guessed) return [];
  const hits = scan(docs, prepared);
  // Of names that match as well, the shorter is the closer ("Margarita" first).
  const short = ([i, , inName]) => (inName ? Array.from(docs[i][0]).length : 0);
  hits.sort((a, b) => a[1] - b[1] || b[2] - a[2] || short(a) - short(b));
  return hits.slice(0, MAX_GUESSES).map(([i]) => i);
}

// What a term that reads as a number's field but holds no number (abv:abc, rating:9)
// needed, in words, for when the query finds nothing (guess.rs's `misread`).
const NEEDS = {
  abv: "a number, as in abv:<=10, abv:>20 or abv:15",
  drinks: "a number, as in drinks:<=1 or drinks:>2",
  rating: "a number from 1 to 5, as in rating:>=4 or rating:5",
};
export function misread(terms) {
  for (const t of terms) {
    if (t.text === undefined || t.field !== null) continue;
    const at = t.text.indexOf(":");
    const field = at === -1 ? null : t.text.slice(0, at);
    if (!Object.hasOwn(NEEDS, field)) continue;
    const rest = t.text.slice(at + 1);
    return field + ": takes " + NEEDS[field] + (rest === "" ? "." : "; “" + rest + "” is not one.");
  }
  return null;
}
