// My bar's "what the shelf makes": the Can make and Missing one counts (links to those
// searches) and the best next bottles, each with the recipes it would make possible one
// tap away and a button that puts it on the shopping list (shopping.js).
import { el } from "./markup.js";
import { addToShopping, onList, onShopping, shoppingItems } from "./shopping.js";

const SHOWN = 5; // bottles shown before "more bottles"
const LINKS = 8; // recipes named per bottle before "more"

let last = null; // what was shown last: { analysis, names, empty }

// `analysis`: GET /api/bar's shape (or model.js `analyse`), or null when it is not known;
// `names`: Map(id → name), or null; `emptyShelf`: nothing is ticked.
export function showMakes(analysis, names, emptyShelf) {
  last = { analysis, names, emptyShelf };
  const count = (id, n) => { document.getElementById(id).textContent = n === null ? "" : String(n); };
  count("can-make-n", analysis ? analysis.can_make.length : null);
  count("missing-one-n", analysis ? analysis.missing_one.length : null);
  showBottles();
}

export function startBottles(say) {
  const list = document.getElementById("next-bottles");
  if (!list) return;
  list.parentElement.addEventListener("click", (event) => {
    const button = event.target.closest("button.add");
    if (!button) return;
    say(addToShopping(button.dataset.name));
  });
  onShopping(() => showBottles());
}

function showBottles() {
  const list = document.getElementById("next-bottles");
  const help = document.getElementById("next-help");
  if (!list || !last) return;
  const { analysis, names, emptyShelf } = last;
  const more = list.nextElementSibling?.matches("details.more-bottles") ? list.nextElementSibling : null;
  const wasOpen = more?.open ?? false;
  more?.remove();
  if (!analysis) {
    help.textContent = "Worked out from the shelf and the recipes, which could not be read just now (offline?).";
    list.replaceChildren();
    return;
  }
  const bottles = analysis.next_bottles;
  help.textContent = bottles.length === 0
    ? (emptyShelf ? "Tick what is on the shelf: this then says which bottle would make the most more recipes possible."
      : "No single bottle would make another recipe possible: every other recipe needs two or more.")
    : "The bottles missing from the shelf, by how many more recipes each would make possible.";
  list.replaceChildren(...bottles.slice(0, SHOWN).map((b) => bottle(b, names)));
  if (bottles.length > SHOWN) {
    const rest = el("details", { class: "more-bottles", open: wasOpen ? true : null },
      el("summary", null, (bottles.length - SHOWN) + (bottles.length - SHOWN === 1 ? " more bottle" : " more bottles")),
      el("ol", { class: "next-bottles", start: String(SHOWN + 1) }, ...bottles.slice(SHOWN).map((b) => bottle(b, names))));
    list.after(rest);
  }
}

const nameOf = (names, id) => (names && names.get(id)) || "Recipe " + id;
const recipeLink = (names, id) => el("li", null, el("a", { href: "/recipes/" + id }, nameOf(names, id)));

function bottle(b, names) {
  const n = b.unlocks.length;
  const there = onList(shoppingItems(), b.name);
  const links = b.unlocks.slice(0, LINKS).map((id) => recipeLink(names, id));
  const rest = b.unlocks.slice(LINKS);
  return el("li", { class: "bottle", "data-key": b.key },
    el("p", { class: "bottle-head" },
      el("strong", { class: "bottle-name" }, b.name), " ",
      el("span", { class: "unlocks" }, "makes " + n + (n === 1 ? " more recipe" : " more recipes") + " possible")),
    el("ul", { class: "unlocked", "aria-label": "Recipes " + b.name + " makes possible" }, ...links),
    rest.length ? el("details", { class: "more-recipes" },
      el("summary", null, rest.length + " more"),
      el("ul", { class: "unlocked" }, ...rest.map((id) => recipeLink(names, id)))) : null,
    el("button", { type: "button", class: "button add", "data-name": b.name, disabled: there ? true : null },
      there ? "✓ On the shopping list" : "Add to shopping list",
      el("span", { class: "visually-hidden" }, ": " + b.name)));
}
