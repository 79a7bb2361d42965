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

// One list's matches on show. `rows` are its <li> in name order (null for a recipe without
// one), `indexOf` the place of each, `pinned()` the row that must stay rendered (an opened
// recipe).
export class Showing {
  constructor(list, rows, indexOf, pinned) {
    Object.assign(this, { list, rows, indexOf, pinned });
    this.shown = new Uint8Array(rows.length).fill(1);
    this.displaced = new Uint8Array(rows.length);
    // The answer on show (or being put on show): every row, none moved up.
    this.want = new Uint8Array(rows.length).fill(1);
    this.promoted = [];
    this.n = rows.length;
    this.head = []; // rows rendered while the list is trimmed
    this.job = null; // the changes still to make
    this.trimmed = false;
    this.untrimAt = 0;
    this.ticking = false;
  }

  // Shows `want` (a flag per row, `n` of them set) with `promoted` (rows, best first) on top.
  show(want, promoted, n) {
    const { rows } = this;
    if (promoted.length === this.promoted.length && promoted.every((i, k) => this.promoted[k] === i) &&
        want.every((w, i) => w === this.want[i])) return; // the answer on show (or on its way)
    const before = this.n;
    Object.assign(this, { want, promoted, n });
    this.job = this.changes(want, promoted);
    if (!this.trimmed && before <= SMALL && n <= SMALL) {
      run(this.job, Infinity);
      this.job = null;
      return;
    }
    const size = headSize();
    const head = promoted.slice(0, size);
    const inTop = new Uint8Array(rows.length);
    for (const i of promoted) inTop[i] = 1;
    for (let i = 0; i < rows.length && head.length < size; i++) {
      if (rows[i] && want[i] && !inTop[i]) head.push(i);
    }
    this.trim(true);
    this.showHead(head, Math.min(size, promoted.length));
    // An opened recipe stays rendered (it may hold the focus), wherever it is.
    const open = this.pinned();
    if (open && !open.classList.contains("head")) {
      open.classList.add("head");
      this.head.push(this.indexOf.get(open));
    }
    this.untrimAt = performance.now() + PAUSE;
    if (!this.ticking) { this.ticking = true; setTimeout(() => this.tick(), PAUSE); }
  }

  // The whole answer, now.
  finish() {
    if (!this.trimmed) return;
    if (this.job) { run(this.job, Infinity); this.job = null; }
    this.trim(false);
  }

  *changes(want, promoted) {
    const { rows, shown, displaced, list, indexOf } = this;
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
      this.putBack(i);
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
  putBack(i) {
    const { rows, displaced } = this;
    let next = null;
    for (let j = i + 1; j < rows.length && !next; j++) if (rows[j] && !displaced[j]) next = rows[j];
    this.list.insertBefore(rows[i], next);
    displaced[i] = 0;
  }

  // The first rows of the answer (`head`, in order; the first `top` of them are on top),
  // shown, in place and marked: while the list is trimmed they are the only rows rendered.
  showHead(head, top) {
    const { rows, shown, displaced, list } = this;
    const inHead = new Uint8Array(rows.length);
    for (const i of head) inHead[i] = 1;
    for (const i of this.head) if (!inHead[i]) rows[i].classList.remove("head");
    let prev = null;
    for (let k = 0; k < top; k++) {
      const li = rows[head[k]];
      const at = prev ? prev.nextElementSibling : list.firstElementChild;
      if (li !== at) list.insertBefore(li, at);
      displaced[head[k]] = 1;
      prev = li;
    }
    for (let k = top; k < head.length; k++) if (displaced[head[k]]) this.putBack(head[k]);
    for (const i of head) {
      if (!shown[i]) { rows[i].hidden = false; shown[i] = 1; }
      rows[i].classList.add("head");
    }
    this.head = head;
  }

  trim(on) {
    if (this.trimmed === on) return;
    this.trimmed = on;
    this.list.classList.toggle("trim", on);
    if (on) this.list.setAttribute("aria-busy", "true"); else this.list.removeAttribute("aria-busy");
  }

  // Waits for the query to stay the same, makes the remaining changes a batch per task,
  // then renders the whole list.
  tick() {
    this.ticking = false;
    if (!this.trimmed) return;
    const wait = this.untrimAt - performance.now();
    if (wait > 0) { this.ticking = true; setTimeout(() => this.tick(), wait); return; }
    if (this.job && run(this.job, BATCH)) this.job = null;
    if (this.job) { this.ticking = true; setTimeout(() => this.tick(), 0); return; }
    this.trim(false);
  }
}

// Rows enough to fill the screen (they are at least 3rem high), and a few more.
const headSize = () => Math.ceil(innerHeight / 44) + 4;

// Makes up to `budget` of the changes `work` yields; true when there are no more.
function run(work, budget) {
  for (let n = 0; n < budget; n++) {
    if (work.next().done) return true;
  }
  return false;
}
