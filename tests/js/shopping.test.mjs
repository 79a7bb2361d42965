// The shopping list's rules (static/js/shopping.js), without a page: adding folds names as
// the search does, the shared text leaves out what is ticked off, a stored list is read
// back whatever state it is in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_CHARS, MAX_ITEMS, addItem, asText, onList, readList } from "../../static/js/shopping.js";

test("adding: trimmed, one item per name as the search folds it, never past the cap", () => {
  let r = addItem([], "  White   Rum ");
  assert.deepEqual(r, { items: [{ name: "White Rum", got: false }], added: true, why: null });
  const one = r.items;
  assert.deepEqual(addItem(one, "white rum"), { items: one, added: false, why: "there" });
  assert.deepEqual(addItem(one, "Crème de cassis").items.map((i) => i.name), ["White Rum", "Crème de cassis"]);
  assert.equal(onList(addItem(one, "Crème de cassis").items, "creme de CASSIS"), true, "accents and case folded");
  assert.deepEqual(addItem(one, "   "), { items: one, added: false, why: "empty" });
  assert.equal(addItem([], "x".repeat(MAX_CHARS + 50)).items[0].name.length, MAX_CHARS);
  const full = Array.from({ length: MAX_ITEMS }, (_, i) => ({ name: "item " + i, got: false }));
  assert.deepEqual(addItem(full, "one more"), { items: full, added: false, why: "full" });
});

test("the text to share or copy: what is still to buy, one a line", () => {
  const items = [{ name: "White Rum", got: false }, { name: "Limes", got: true }, { name: "Campari", got: false }];
  assert.equal(asText(items), "Shopping list\n- White Rum\n- Campari\n");
  assert.equal(asText([{ name: "Limes", got: true }]), "");
  assert.equal(asText([]), "");
});

test("a stored list is read back; anything malformed is left out, not thrown", () => {
  assert.deepEqual(readList({ version: 1, items: [{ name: "Gin", got: true }, { name: "" }, null, { name: 3 }, { name: " Lime ", got: "yes" }] }),
    [{ name: "Gin", got: true }, { name: "Lime", got: false }]);
  assert.deepEqual(readList(null), []);
  assert.deepEqual(readList({ items: "gin" }), []);
  assert.deepEqual(readList([]), []);
});

test("a waiting change is shown as the server will make it: add, bought, unget, remove", async () => {
  const { applyShopping } = await import("../../static/js/shopping.js");
  let list = applyShopping([], { add: ["  Campari ", "campari", "Limes"] });
  assert.deepEqual(list, [{ name: "Campari", got: false }, { name: "Limes", got: false }]);
  list = applyShopping(list, { bought: ["LIMES"] });
  assert.deepEqual(list.map((i) => i.got), [false, true]);
  list = applyShopping(list, { unget: ["limes"], remove: ["Campari"] });
  assert.deepEqual(list, [{ name: "Limes", got: false }]);
});
