// The list's photos (issue #44): with "Show each recipe's photo in the list" ticked on My
// bar (a choice of this device's, storage.js `bar.photos`; off by default, so the list
// stays compact), each row of a recipe that has a cover shows its thumbnail where the
// glass is. Every cover comes in one request (GET /api/photos/covers), once per page, and
// only when the choice is on; rows without a cover keep their glass.
import { el } from "./markup.js";
import { bar, onChange } from "./storage.js";

let covers = null; // recipe id → thumbnail address, once asked

async function read() {
  try {
    const answer = await fetch("/api/photos/covers", { headers: { Accept: "application/json" } });
    return answer.ok ? await answer.json() : {};
  } catch (error) {
    return {}; // offline: the rows keep their glasses
  }
}

// Puts the covers into the rows of `list` (or takes them out), as the choice is now.
async function paint(list) {
  if (bar.photos && covers === null) covers = await read();
  for (const li of list.children) {
    const row = li.querySelector(":scope > a.row");
    if (!row) continue;
    const src = bar.photos ? covers?.[li.dataset.id] : undefined;
    const img = row.querySelector(":scope > img.row-photo");
    if (!src) { img?.remove(); continue; }
    if (img) { if (img.getAttribute("src") !== src) img.src = src; continue; }
    row.prepend(el("img", { class: "row-photo", src, alt: "", width: "44", height: "44", loading: "lazy", decoding: "async" }));
  }
}

// Shows the covers in `list`'s rows now and whenever the choice changes.
export function startCovers(list) {
  paint(list);
  onChange(() => paint(list));
}
