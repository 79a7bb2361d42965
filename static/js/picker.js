// My bar's picker: the bottles to tick, grouped by kind (crates/web/src/view/picker.rs
// renders them; this makes them work). A box stands for a bottle (its `li` has the
// vocabulary entry's id as data-entry) or for a name the vocabulary does not know. A box is
// ticked when the shelf holds that bottle under any spelling (vocabulary.js `ticked`), so a
// shelf ticked before the picker grouped spellings shows as it should, and unticking takes
// away every spelling of it (vocabulary.js `untick`). The search box shows the bottles
// whose name or spellings match, with the kinds above and the bottles under them.
import { fold, parse, startsAWord } from "./model.js";
import { vocabulary } from "./vocabulary.js";

const plural = (n, one, many) => n + " " + (n === 1 ? one : many);

// `shelfNow()`: the names on the shelf shown (a Set), or null while unread; `count(ticked,
// offered, elsewhere)`: the line above the boxes; `tick(have, out, box)`: sends a change.
// Returns { show }: ticks the boxes for the shelf now.
export function startPicker({ shelfNow, count, tick }) {
  const fieldset = document.getElementById("shelf");
  const boxes = Array.from(fieldset.querySelectorAll("input[type=checkbox]"));
  const entryOf = (box) => box.closest("li").dataset.entry || null;
  const values = new Set(boxes.map((b) => b.value));
  const entries = new Set(boxes.map(entryOf).filter((id) => id !== null));
  let words = null;
  vocabulary().then((v) => { words = v; show(); });

  function show() {
    const shelf = shelfNow();
    // Unread yet: the boxes stay as the page came (a known person's, ticked by the server).
    if (shelf === null) return;
    const held = shelf && words ? words.ticked(shelf) : new Set();
    let ticked = 0;
    for (const box of boxes) {
      const id = entryOf(box);
      box.checked = shelf.has(box.value) || (id !== null && held.has(id));
      ticked += box.checked;
    }
    for (const group of fieldset.querySelectorAll("details.kind")) {
      const n = group.querySelectorAll("input:checked").length;
      group.querySelector(".kind-n").textContent = n ? n + " ticked" : "";
    }
    const elsewhere = Array.from(shelf).filter((name) => !covered(name)).length;
    count(ticked, boxes.length, elsewhere);
  }

  // Whether a name on the shelf shows as some box here.
  function covered(name) {
    if (values.has(name)) return true;
    return words !== null && Array.from(words.ticked([name])).some((id) => entries.has(id));
  }

  fieldset.addEventListener("change", (event) => {
    const box = event.target;
    if (box.type !== "checkbox" || !values.has(box.value)) return;
    const id = entryOf(box);
    const shelf = shelfNow() || new Set();
    if (box.checked) tick([box.value], [], box);
    else if (id !== null && words) tick(...untickOf(words.untick(shelf, id), box.value), box);
    else tick([], [box.value], box);
  });
  startFind(fieldset);
  return { show };
}

const untickOf = ({ have, out }, value) => [have, out.includes(value) ? out : [...out, value]];

// The search box over the bottles: rows whose name or spellings start a word with every
// term, with the kinds above them and the bottles under them; groups open to show them,
// and close again as they were when the box is cleared.
function startFind(fieldset) {
  const find = document.getElementById("shelf-q");
  const found = document.getElementById("shelf-found");
  const groups = Array.from(fieldset.querySelectorAll("details.kind"));
  let before = null; // each group's open state when the search began
  find.addEventListener("input", () => {
    const terms = parse(find.value).filter((t) => t.text !== undefined).map((t) => t.text);
    if (terms.length && before === null) before = groups.map((g) => g.open);
    let shown = 0;
    groups.forEach((group, i) => {
      const n = showRows(Array.from(group.querySelectorAll("li")), terms);
      group.hidden = n === 0 && terms.length > 0;
      group.open = terms.length ? n > 0 : (before ? before[i] : group.open);
      shown += n;
    });
    if (!terms.length) before = null;
    found.hidden = terms.length === 0;
    found.textContent = shown === 0 ? "No bottle or spelling here matches “" + find.value.trim() + "”." :
      plural(shown, "bottle matches", "bottles match") + " “" + find.value.trim() + "”.";
  });
}

// Shows the rows matching `terms` with their kinds and what they hold; returns how many
// tickable rows are shown.
function showRows(rows, terms) {
  const depth = (li) => Number(li.className.replace(/^.*depth-(\d+).*$/, "$1")) || 0;
  // A bottle's name and spellings, not the "X or Y" names it meets ("rye" is no Bourbon).
  const words = (li) => fold(Array.from(li.querySelectorAll(".name, .also:not(.either)"), (n) => n.textContent).join(" "));
  const hit = rows.map((li) => terms.every((t) => startsAWord(words(li), t)));
  const visible = hit.slice();
  const path = []; // the rows above this one, each [index, depth]
  rows.forEach((li, i) => {
    while (path.length && path[path.length - 1][1] >= depth(li)) path.pop();
    if (hit[i]) path.forEach(([above]) => { visible[above] = true; });
    if (path.some(([above]) => hit[above])) visible[i] = true;
    path.push([i, depth(li)]);
  });
  let n = 0;
  rows.forEach((li, i) => {
    li.hidden = !visible[i];
    if (visible[i] && li.querySelector("input")) n++;
  });
  return n;
}
