// The rules of the changes kept on a device (static/js/pending.js) and of how they show
// on top of what the server said (static/js/household.js), without a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { merge, outcome, refusalText, waiting } from "../../static/js/pending.js";
import { applyAnswer, applyChange, fromMe } from "../../static/js/household.js";

const fav = (id, on, at, n) => ({ id: n, key: "fav:" + id, method: on ? "PUT" : "DELETE", path: "/api/me/favourites/" + id, body: { at } });
const note = (id, text, was, at, n, settles) => ({
  id: n, key: "note:" + id, method: "PUT", path: "/api/me/notes/" + id,
  body: settles ? { text, was, settles, at } : { text, was, at },
});

test("a later toggle with the same key replaces the unsent one, and goes last", () => {
  let list = [];
  list = merge(list, fav(7, true, 1, "a"));
  list = merge(list, fav(8, true, 2, "b"));
  list = merge(list, fav(7, false, 3, "c"));
  assert.deepEqual(list.map((c) => [c.key, c.method, c.body.at]), [["fav:8", "PUT", 2], ["fav:7", "DELETE", 3]]);
  list = merge(list, fav(7, true, 4, "d"));
  assert.deepEqual(list.map((c) => c.id), ["b", "d"]);
});

test("one person's change never replaces another's on a shared device", () => {
  let list = merge([], { ...fav(7, true, 1, "a"), login: "alice@example.com" });
  list = merge(list, { ...fav(7, false, 2, "b"), login: "bob@example.com" });
  assert.deepEqual(list.map((c) => [c.login, c.method]), [["alice@example.com", "PUT"], ["bob@example.com", "DELETE"]]);
  list = merge(list, { ...fav(7, false, 3, "c"), login: "alice@example.com" });
  assert.deepEqual(list.map((c) => c.id), ["b", "c"]);
});

test("a change on its way is not replaced: the new one waits behind it", () => {
  let list = [fav(7, true, 1, "a")];
  list = merge(list, fav(7, false, 2, "b"), "a");
  assert.deepEqual(list.map((c) => c.id), ["a", "b"]);
  // A third replaces the second (unsent), never the first.
  list = merge(list, fav(7, true, 3, "c"), "a");
  assert.deepEqual(list.map((c) => c.id), ["a", "c"]);
});

test("a note keeps the first unsent change's `was`, so another device's change is still a conflict", () => {
  let list = merge([], note(7, "less sugar", "old", 1, "a"));
  list = merge(list, note(7, "less sugar, more lime", "less sugar", 2, "b"));
  assert.equal(list.length, 1);
  assert.deepEqual(list[0].body, { text: "less sugar, more lime", was: "old", at: 2 });
  // `was: null` (written over no note) is kept too, not mistaken for absent.
  list = merge([], note(8, "a", null, 1, "c"));
  list = merge(list, note(8, "ab", "a", 2, "d"));
  assert.equal(list[0].body.was, null);
  // A note taken away after an unsent edit: DELETE with the first `was`.
  list = merge(list, { id: "e", key: "note:8", method: "DELETE", path: "/api/me/notes/8", body: { was: "ab", at: 3 } });
  assert.deepEqual([list[0].method, list[0].body], ["DELETE", { was: null, at: 3 }]);
});

test("a settling change's `settles` survives a later edit that says none", () => {
  let list = merge([], note(7, "mine", "x", 1, "a", ["theirs"]));
  list = merge(list, note(7, "mine!", "mine", 2, "b"));
  assert.deepEqual(list[0].body, { text: "mine!", was: "x", settles: ["theirs"], at: 2 });
});

test("merging never changes the list or the change given", () => {
  const list = [note(7, "a", "x", 1, "a")];
  const change = note(7, "b", "a", 2, "b");
  merge(list, change);
  assert.equal(list[0].body.text, "a");
  assert.equal(change.body.was, "a");
});

test("what an answer means: sent, refused (shown), or kept for later", () => {
  for (const s of [200, 201, 204]) assert.equal(outcome(s), "sent", s);
  for (const s of [400, 403, 404, 413, 415, 422]) assert.equal(outcome(s), "refused", s);
  for (const s of [400, 403, 404, 422]) assert.equal(outcome(s, "PUT"), "refused", s);
  // Taking away what the server never had leaves what the person wanted.
  assert.equal(outcome(404, "DELETE"), "sent");
  assert.equal(outcome(403, "DELETE"), "refused");
  for (const s of [408, 429, 500, 502, 503, 0]) assert.equal(outcome(s), "kept", s);
  assert.equal(refusalText({ error: "too long", field: "text" }, 422), "Not saved: too long (text)");
  assert.equal(refusalText(null, 403), "Not saved: the server refused it (HTTP 403)");
  assert.equal(waiting(0), "");
  assert.equal(waiting(1), "1 change waiting to be sent");
  assert.equal(waiting(2), "2 changes waiting to be sent");
});

test("waiting changes show on top of /api/me, and answers fold in what is stored", () => {
  const me = fromMe({
    login: "alice@example.com", name: "Alice", why: null, may_shelf: true,
    favourites: [1], ratings: { 2: 4 }, notes: { 3: "old" }, note_conflicts: { 3: ["theirs"] },
    made: [{ id: 4, at: 100 }],
  });
  assert.equal(me.known, true);
  applyChange(me, fav(5, true, 1, "a"));
  applyChange(me, fav(1, false, 1, "b"));
  applyChange(me, { method: "PUT", path: "/api/me/ratings/2", body: { stars: 5, at: 1 } });
  applyChange(me, note(3, "new", "old", 1, "c", ["theirs"]));
  applyChange(me, { method: "POST", path: "/api/me/made/4", body: { at: 200 } });
  assert.deepEqual([...me.favourites], [5]);
  assert.equal(me.ratings.get(2), 5);
  assert.equal(me.notes.get(3), "new");
  assert.equal(me.conflicts.has(3), false, "settled");
  assert.deepEqual(me.made, [{ id: 4, at: 200 }, { id: 4, at: 100 }]);
  applyChange(me, { method: "DELETE", path: "/api/me/made/4?at=100" });
  assert.deepEqual(me.made, [{ id: 4, at: 200 }]);
  // An older star arriving after a newer unstar elsewhere: the server says what is stored.
  applyAnswer(me, fav(5, true, 1, "a"), { id: 5, favourite: false, at: 9, applied: false });
  assert.equal(me.favourites.has(5), false);
  // A note answered with a conflict keeps both texts.
  applyAnswer(me, note(3, "new", "old", 1, "c"), { id: 3, text: "new", conflicts: ["other"], at: 2 });
  assert.deepEqual(me.conflicts.get(3), ["other"]);
  // A refusal changes nothing.
  applyAnswer(me, fav(9, true, 1, "x"), { error: "no such recipe", field: "id" });
  assert.equal(me.favourites.has(9), false);
  assert.equal(fromMe({ login: null, why: "tagged" }).known, false);
});
