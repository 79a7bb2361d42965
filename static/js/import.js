// Adding recipes from a file (/recipes/import): the file is read by the server (POST
// /api/import, nothing saved) into a list to choose from, the same list the server renders
// for a page of several recipes; "Add N" posts the choice to /recipes/import/save, which
// saves it as one change and shows Recent changes with its Undo. Without JavaScript the
// link form still works, and `libations import` reads files on the server.

const TYPES = { zip: "application/zip", html: "text/html", htm: "text/html", md: "text/markdown" };

/** The content type a file is sent with: by its name, JSON unless zip, HTML or Markdown. */
export function typeOf(name) {
  const ext = (name.split(".").pop() ?? "").toLowerCase();
  return TYPES[ext] ?? "application/json";
}

/** "50 ml Gin, 20 ml Lime" for a recipe's ingredients. */
export function summary(recipe) {
  return (recipe.ingredients ?? [])
    .map((i) => [i.measure, i.unit, i.name].filter(Boolean).join(" "))
    .join(", ");
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== undefined) node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

/**
 * What was guessed of each recipe (`problems` of /api/import), split: `shared` holds each
 * note said of two or more recipes once, with how many (`[{text, n}]`); `each` maps a
 * recipe's index to its notes said of it alone. Sixteen rows of "base guessed from the
 * ingredients" read as one line.
 */
export function splitNotes(problems) {
  const each = new Map();
  for (const p of problems ?? []) {
    const text = p.field && !p.message.startsWith(p.field) ? `${p.field}: ${p.message}` : p.message;
    each.set(p.recipe, [...(each.get(p.recipe) ?? []), text]);
  }
  const count = new Map();
  for (const list of each.values()) for (const t of new Set(list)) count.set(t, (count.get(t) ?? 0) + 1);
  const shared = [...count].filter(([, n]) => n > 1).map(([text, n]) => ({ text, n }));
  const lifted = new Set(shared.map((s) => s.text));
  for (const [i, list] of each) each.set(i, list.filter((t) => !lifted.has(t)));
  return { each, shared };
}

/** The notes said of several recipes, once, above the list; null when there are none. */
function sharedList(shared, total) {
  if (shared.length === 0) return null;
  const line = ({ text, n }) => el("li", {}, `${text} (${n === total ? "every recipe" : `${n} of ${total} recipes`})`);
  return el("ul", { class: "guess shared" }, ...shared.map(line));
}

/**
 * A button that ticks every box of `list` or none: "Select none" while all are ticked,
 * "Select all" otherwise. Keeping 3 of 16 is then four taps, not thirteen.
 */
export function selectToggle(list) {
  const boxes = () => Array.from(list.querySelectorAll("input[name=pick]"));
  const all = () => boxes().every((b) => b.checked);
  const button = el("button", { type: "button", class: "select-all" });
  const label = () => { button.textContent = all() ? "Select none" : "Select all"; };
  button.addEventListener("click", () => {
    const on = !all();
    for (const b of boxes()) b.checked = on;
    list.dispatchEvent(new Event("change", { bubbles: true }));
  });
  list.addEventListener("change", label);
  label();
  return button;
}

/** The list to choose from, as templates/import.html renders it. */
export function choicesList(answer) {
  const dupes = new Map((answer.duplicates ?? []).map((d) => [d.recipe, d.existing_id]));
  const notes = splitNotes(answer.problems).each;
  const items = answer.recipes.map((r, i) => {
    const li = el("li", {},
      el("label", {}, el("input", { type: "checkbox", name: "pick", value: String(i), checked: !dupes.has(i) }), " ",
        el("strong", {}, r.name ?? "(no name)")));
    const line = summary(r);
    if (line) li.append(el("p", { class: "hint" }, line));
    if (dupes.has(i)) {
      li.append(el("p", { class: "duplicate" }, "Already here: ", el("a", { href: `/recipes/${dupes.get(i)}` }, "the recipe of that name")));
    }
    if (notes.get(i)?.length) li.append(el("ul", { class: "guess" }, ...notes.get(i).map((n) => el("li", {}, n))));
    return li;
  });
  return el("ul", { class: "choices" }, ...items);
}

export function startImport() {
  const chosen = document.querySelector("form.import-choose ul.choices");
  if (chosen) chosen.before(el("p", { class: "select" }, selectToggle(chosen)));
  const form = document.querySelector("form.import-file");
  if (!form) return;
  const input = form.querySelector("#import-file");
  const status = form.querySelector(".form-status");
  const box = form.querySelector(".import-choices");
  input.disabled = false;
  form.querySelector(".no-js")?.remove();
  const say = (text) => {
    status.textContent = text;
    status.hidden = !text;
  };
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    box.replaceChildren();
    if (!file) return;
    say(`Reading ${file.name}…`);
    let answer;
    try {
      const r = await fetch("/api/import", {
        method: "POST",
        headers: { "content-type": typeOf(file.name), accept: "application/json" },
        body: file,
      });
      answer = await r.json();
      if (!r.ok) {
        const why = (answer.problems ?? []).map((p) => p.message).join("; ") || answer.error || r.statusText;
        say(`${file.name} could not be read: ${why}`);
        return;
      }
    } catch {
      say(`${file.name} could not be sent: is the connection down?`);
      return;
    }
    const list = choicesList(answer);
    const button = el("button", { type: "submit", class: "save" });
    const count = () => {
      const n = list.querySelectorAll("input[name=pick]:checked").length;
      button.textContent = `Add ${n}`;
      button.disabled = n === 0;
    };
    list.addEventListener("change", count);
    box.replaceChildren(
      el("input", { type: "hidden", name: "recipes", value: JSON.stringify(answer.recipes) }),
      el("p", {}, `${answer.recipes.length} ${answer.recipes.length === 1 ? "recipe" : "recipes"} in ${file.name}. Choose the ones to add:`),
      ...[sharedList(splitNotes(answer.problems).shared, answer.recipes.length)].filter(Boolean),
      el("p", { class: "select" }, selectToggle(list)),
      list,
      el("p", { class: "actions" }, button),
    );
    count();
    say("");
  });
}
