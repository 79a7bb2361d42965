// What a recipe says of a person's own and the household's ratings (static/js/mine.js),
// and what moves in from a device (static/js/movein.js), without a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { madeLine, ratingsLine } from "../../static/js/mine.js";
import { whatMoves } from "../../static/js/movein.js";

test("the household's ratings: average to one decimal, how many, who", () => {
  assert.equal(ratingsLine(null), null);
  assert.equal(ratingsLine({ average: 0, count: 0, by: [] }), null);
  assert.equal(ratingsLine({ average: 4.5, count: 2, by: [{ name: "Alice", stars: 5 }, { name: "Bob", stars: 4 }] }),
    "4.5 ★ · 2 ratings: Alice 5, Bob 4");
  assert.equal(ratingsLine({ average: 4, count: 1, by: [{ name: "Alice", stars: 4 }] }), "4 ★ · 1 rating: Alice 4");
  assert.equal(ratingsLine({ average: 11 / 3, count: 3, by: [] }), "3.7 ★ · 3 ratings");
});

test("made one: never, once, n times, with the last day", () => {
  assert.equal(madeLine(0), "never made");
  const at = new Date(new Date().getFullYear(), 11, 2, 20, 0).getTime();
  assert.equal(madeLine(1, at), "made once, last 2 Dec");
  assert.equal(madeLine(3, at), "made 3 times, last 2 Dec");
  // Another year says which.
  assert.equal(madeLine(2, new Date(2020, 0, 5).getTime()), "made 2 times, last 5 Jan 2020");
});

test("moving in: only what the person lacks; no shelf known, no shelf offered", () => {
  const device = { favourites: new Set([7, 2, 5]), shelf: new Set(["gin", "campari"]) };
  assert.deepEqual(whatMoves(device, { favourites: new Set([5]), shelf: new Set(["gin"]) }), { favourites: [2, 7], shelf: ["campari"] });
  assert.deepEqual(whatMoves(device, { favourites: new Set([2, 5, 7]), shelf: null }), { favourites: [], shelf: [] });
});
