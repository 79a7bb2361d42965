// The bar's words in the browser: data/vocabulary.json (served beside the modules as
// vocabulary.json, so it is one file with them and kept offline with them) read exactly as
// crates/model/src/vocabulary reads it, so that "can make" on a phone answers by bottle as
// the server does. tests/js/vocabulary.test.mjs runs tests/vocabulary-cases.json against
// this module, as the Rust tests do against the Rust.
//
// A reading is what a row's name names: { entry: at } (one bottle or kind), { either: [at…] }
// ("Bourbon or Rye Whiskey"), or { unknown: folded } (a name the vocabulary does not know).
// How a shelf meets a row: { staple: at }, { has: at }, { have, wanted } (a stand-in),
// { prep, from: [how…] } (a house-made prep from its parts), { own: folded }, { rule: have,
// wanted } (the household's rule) or { substitute: how, row: name } (a row's own substitute).
// A shelf carries the household's rules ([{ have, wanted }] by name) read to entries.
import { ingredientKey, singular, wholeWord } from "./model.js";

const EITHER = [" or ", " / "];

export class Vocabulary {
  // `file`: the parsed JSON of data/vocabulary.json (the Rust checks it: ids unique,
  // every kind and part known, no circles, no spelling given twice).
  constructor(file) {
    const byId = new Map(file.entries.map((e, at) => [e.id, at]));
    this.byId = byId;
    this.entries = file.entries.map((e) => ({
      id: e.id,
      name: e.name,
      parent: e.is === undefined ? null : byId.get(e.is),
      parts: e.made_of ? e.made_of.parts.map((p) => byId.get(p)) : null,
      how: e.made_of ? e.made_of.how : "",
      keeps: e.made_of ? e.made_of.keeps : "",
      staple: e.staple === true,
    }));
    this.bySpelling = new Map();
    file.entries.forEach((e, at) => {
      for (const s of [e.name, ...(e.also || [])]) this.bySpelling.set(ingredientKey(s), at);
    });
    this.readings = new Map(); // key → reading, read once per key
  }

  // A row's name read (crates/model/src/vocabulary/read.rs `read_folded`), from its key.
  readKey(folded) {
    let reading = this.readings.get(folded);
    if (reading === undefined) {
      reading = this.readFolded(folded);
      this.readings.set(folded, reading);
    }
    return reading;
  }

  readFolded(folded) {
    const at = this.bySpelling.get(folded);
    if (at !== undefined) return { entry: at };
    for (const separator of EITHER) {
      if (!folded.includes(separator)) continue;
      const parts = folded.split(separator).map((p) => this.bySpelling.get(p.trim()));
      if (parts.every((p) => p !== undefined)) return { either: parts };
    }
    return { unknown: folded };
  }

  read(name) { return this.readKey(ingredientKey(name)); }

  // The entry a folded search term names, itself or by its singular (model.js `singular`;
  // crates/model/src/search/bottles.rs `named`), or undefined.
  named(text) {
    const at = this.bySpelling.get(ingredientKey(text));
    if (at !== undefined) return at;
    const one = singular(text);
    return one === null ? undefined : this.bySpelling.get(ingredientKey(one));
  }

  // Every spelling of `at` and of anything more specific, without those another finds as
  // whole words: shortest first, then in code-unit order (the Rust's byte order for ASCII).
  spellings(at) {
    this.spelt ??= new Map();
    if (!this.spelt.has(at)) {
      const all = [...this.bySpelling].filter(([, of]) => this.isA(of, at)).map(([s]) => s);
      const bytes = (t) => new TextEncoder().encode(t).length;
      all.sort((a, b) => bytes(a) - bytes(b) || (a < b ? -1 : a > b ? 1 : 0));
      const kept = [];
      for (const s of all) if (!kept.some((k) => wholeWord(s, k))) kept.push(s);
      this.spelt.set(at, kept);
    }
    return this.spelt.get(at);
  }

  // has:<entry>: whether a shelf of that bottle alone meets a reading and an empty one does
  // not (crates/model/src/search/bottles.rs `Has`).
  hasTest(at) {
    const shelf = this.shelf([this.entries[at].name]), none = this.shelf([]);
    return (reading) => this.meets(shelf, reading) !== null && this.meets(none, reading) === null;
  }

  isA(at, kind) {
    for (let k = at; k !== null && k !== undefined; k = this.entries[k].parent) if (k === kind) return true;
    return false;
  }

  // What a household holds (names as ticked, or keys as stored), and its rules ({ have,
  // wanted } by name, both names the vocabulary knows): { entries: [at…], names: Set,
  // rules: [[have, wanted]…] }.
  shelf(names, rules = []) {
    const shelf = { entries: [], names: new Set(), rules: [] };
    const add = (at) => { if (!shelf.entries.includes(at)) shelf.entries.push(at); };
    for (const name of names) {
      const r = this.read(name);
      if ("entry" in r) add(r.entry);
      else if ("either" in r) r.either.forEach(add);
      else shelf.names.add(r.unknown);
    }
    for (const rule of rules) {
      const have = this.read(rule.have), wanted = this.read(rule.wanted);
      if (!("entry" in have) || !("entry" in wanted)) continue;
      if (!shelf.rules.some(([h, w]) => h === have.entry && w === wanted.entry)) shelf.rules.push([have.entry, wanted.entry]);
    }
    return shelf;
  }

  // The bottles My bar's picker shows ticked for a shelf's names, by entry id: an older
  // tick of a spelling ("Bourbon Whiskey") ticks its bottle, "Bourbon or Rye" both.
  ticked(names) {
    const ids = new Set();
    for (const at of this.shelf(names).entries) ids.add(this.entries[at].id);
    return ids;
  }

  // What unticking the bottle `id` sends ({ have, out }): every name on the shelf read as
  // it goes out, and the other bottles of an "X or Y" that goes out stay, ticked as
  // themselves, so that unticking Bourbon never takes Rye away with it.
  untick(names, id) {
    const at = this.byId.get(id);
    const out = [], kept = new Set();
    for (const name of names) {
      const r = this.read(name);
      const ats = "entry" in r ? [r.entry] : "either" in r ? r.either : [];
      if (!ats.includes(at)) { ats.forEach((a) => kept.add(a)); continue; }
      out.push(name);
    }
    const have = [];
    for (const name of out) {
      const r = this.read(name);
      for (const other of r.either || []) {
        const key = ingredientKey(this.entries[other].name);
        if (other !== at && !kept.has(other) && !have.includes(key)) have.push(key);
      }
    }
    return { have, out };
  }

  // Steps 1–4 and then the household's rules (meets.rs `meets_entry`).
  meetsEntry(shelf, wanted) { return this.meetsBottle(shelf, wanted) ?? this.meetsByRule(shelf, wanted); }

  meetsBottle(shelf, wanted) {
    const entry = this.entries[wanted];
    if (entry.staple) return { staple: wanted };
    if (shelf.entries.includes(wanted)) return { has: wanted };
    // The first in the vocabulary's order, as the Rust picks.
    const more = shelf.entries.filter((have) => this.isA(have, wanted));
    if (more.length) return { have: Math.min(...more), wanted };
    if (!entry.parts) return null;
    const from = [];
    for (const part of entry.parts) {
      const how = this.meetsEntry(shelf, part);
      if (!how) return null;
      from.push(how);
    }
    return { prep: wanted, from };
  }

  // A household rule for `wanted` whose bottle the shelf meets (never through another rule).
  meetsByRule(shelf, wanted) {
    const haves = (shelf.rules || []).filter(([have, w]) => w === wanted && this.meetsBottle(shelf, have) !== null).map(([have]) => have);
    return haves.length ? { rule: Math.min(...haves), wanted } : null;
  }

  // How `shelf` meets a row read as `reading`, or null.
  meets(shelf, reading) {
    if ("entry" in reading) return this.meetsEntry(shelf, reading.entry);
    if ("either" in reading) return either(reading.either.map((at) => this.meetsEntry(shelf, at)));
    return shelf.names.has(reading.unknown) ? { own: reading.unknown } : null;
  }

  // A whole row ({ reading, exact, substitutes: [reading…] }): exact or not, then its
  // substitutes (meets.rs `meets_row`). `meets` answers a reading (a table's lookup).
  meetsRow(shelf, row, meets = (r) => this.meets(shelf, r)) {
    const itself = row.exact ? this.meetsExact(shelf, row.reading) : meets(row.reading);
    if (itself) return itself;
    for (const sub of row.substitutes || []) {
      const used = meets(sub);
      if (used) return { substitute: used, row: this.readingName(row.reading) };
    }
    return null;
  }

  meetsExact(shelf, reading) {
    const itself = (at) => (this.entries[at].staple ? { staple: at } : shelf.entries.includes(at) ? { has: at } : null);
    if ("entry" in reading) return itself(reading.entry);
    if ("either" in reading) return reading.either.map(itself).find(Boolean) || null;
    return this.meets(shelf, reading);
  }

  readingName(reading) {
    if ("entry" in reading) return this.entries[reading.entry].name;
    if ("either" in reading) return this.entries[reading.either[0]].name;
    return reading.unknown;
  }

  // A row as written: its name, exact or not, and its substitutes' names.
  row(name, exact = false, substitutes = []) {
    return { reading: this.read(name), exact, substitutes: substitutes.map((s) => this.read(s)) };
  }

  meetsName(shelf, name) { return this.meets(shelf, this.read(name)); }

  // The words a person sees ("Cointreau for Triple sec"), null when the bottle is there.
  explain(how) {
    if (how.rule !== undefined) return this.entries[how.rule].name + " for " + this.entries[how.wanted].name + " (the household's rule)";
    if (how.substitute !== undefined) return this.sourceName(how.substitute) + " for " + how.row + " (the recipe's substitute)";
    if (how.have !== undefined) return this.entries[how.have].name + " for " + this.entries[how.wanted].name;
    if (how.prep === undefined) return null;
    const parts = how.from.map((h) => this.sourceName(h)).join(" and ");
    const prep = this.entries[how.prep];
    return parts + " for " + prep.name + " (" + prep.how + "; keeps " + prep.keeps + ")";
  }

  sourceName(how) {
    if (how.own !== undefined) return how.own;
    if (how.substitute !== undefined) return this.sourceName(how.substitute);
    const at = how.rule ?? how.have ?? how.prep ?? how.has ?? how.staple;
    return this.entries[at].name;
  }

  // The bottle a need is (crates/model/src/makes.rs `bottle`): [key, name]. `key`: the
  // need's own key, which is the written name's.
  bottle(reading, key, written) {
    const at = "entry" in reading ? reading.entry : "either" in reading ? reading.either[0] : null;
    if (at === null) return [key, written];
    const entry = this.entries[at];
    entry.bottle ??= [ingredientKey(entry.name), entry.name];
    return entry.bottle;
  }
}

// "X or Y": the first alternative met without a household rule, else the first a rule meets.
export function either(hows) {
  return hows.find((h) => h && h.rule === undefined) ?? hows.find(Boolean) ?? null;
}

let loading = null;

// The vocabulary served beside this module, once; null when it cannot be had.
export function vocabulary() {
  if (!loading) {
    loading = fetch(new URL("./vocabulary.json", import.meta.url))
      .then((r) => (r.ok ? r.json() : null))
      .then((file) => (file ? new Vocabulary(file) : null))
      .catch(() => null);
  }
  return loading;
}
