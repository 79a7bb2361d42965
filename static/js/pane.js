// Wide screens: the opened recipe in the pane beside the list. The address follows it
// (/recipes/{id}), so back, forward and reload show the same.
import { el } from "./markup.js";
import { addressWithSearch, recipeArticle } from "./recipe.js";
import { addEditControls } from "./actions.js";
import { addPhotos } from "./photos.js";
import { releaseWithin, wakeToggle } from "./wake.js";

const titleFor = (name) => (name ? name + " · " : "") + "Libations";

export class Pane {
  // `single`: the recipe page's <article class="single">, if this is one.
  constructor(list, input, single) {
    Object.assign(this, { list, input });
    this.pane = document.getElementById("pane");
    this.panes = this.pane && this.pane.parentElement;
    this.wideScreen = matchMedia("(min-width: 48em)");
    this.hint = this.pane && (this.pane.querySelector(".pane-hint") ||
      el("div", { class: "pane-hint" }, el("p", null, "Choose a recipe from the list: it opens here, and the list stays beside it.")));
    // The id of the recipe in the pane, or null.
    this.id = single ? single.querySelector(".recipe")?.dataset.id ?? null : null;
    this.currentRow = null;
  }

  wide() {
    return this.pane !== null && this.wideScreen.matches;
  }

  // Marks the row of recipe `id` (null: none) as the one in the pane.
  markCurrent(id) {
    const { currentRow } = this;
    if (currentRow) { currentRow.classList.remove("current"); currentRow.firstElementChild.removeAttribute("aria-current"); }
    this.currentRow = id === null ? null : this.list.querySelector(':scope > li[data-id="' + CSS.escape(id) + '"]');
    if (this.currentRow) { this.currentRow.classList.add("current"); this.currentRow.firstElementChild.setAttribute("aria-current", "page"); }
  }

  // Shows `recipe`, whose row is `li`, in the pane.
  show(li, recipe, { push = true, focus = false } = {}) {
    releaseWithin(this.pane);
    const article = recipeArticle(recipe, li.querySelector("svg.glass").cloneNode(true));
    this.pane.replaceChildren(article);
    this.panes.classList.add("has-recipe");
    wakeToggle(article.querySelector(".recipe"));
    addEditControls(article, li.dataset.id, recipe.name);
    addPhotos(article.querySelector("h1"), article, li.dataset.id, recipe.name);
    this.id = li.dataset.id;
    this.markCurrent(this.id);
    this.pane.scrollTop = 0;
    document.title = titleFor(recipe.name);
    if (push) history.pushState(null, "", addressWithSearch(this.id, this.input.value));
    if (focus) article.querySelector("h1").focus();
    li.scrollIntoView({ block: "nearest" });
  }

  // Closes the pane; returns the row that was open.
  close({ push = true } = {}) {
    const row = this.currentRow;
    const { input } = this;
    releaseWithin(this.pane);
    this.pane.replaceChildren(this.hint);
    this.panes.classList.remove("has-recipe");
    this.id = null;
    this.markCurrent(null);
    document.title = titleFor(input.value.trim());
    if (push) history.pushState(null, "", "/" + (input.value.trim() ? "?q=" + encodeURIComponent(input.value) : ""));
    return row;
  }
}
