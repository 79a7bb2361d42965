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

/** The list to choose from, as templates/import.html renders it. */
export function choicesList(answer) {
  const dupes = new Map((answer.duplicates ?? []).map((d) => [d.recipe, d.existing_id]));
  const notes = new Map();
  for (const p of answer.problems ?? []) {
    notes.set(p.recipe, [...(notes.get(p.recipe) ?? []), p.field ? `${p.field}: ${p.message}` : p.message]);
  }
  const items = answer.recipes.map((r, i) => {
    const li = el("li", {},
      el("label", {}, el("input", { type: "checkbox", name: "pick", value: String(i), checked: !dupes.has(i) }), " ",
        el("strong", {}, r.name ?? "(no name)")));
    const line = summary(r);
    if (line) li.append(el("p", { class: "hint" }, line));
    if (dupes.has(i)) {
      li.append(el("p", { class: "duplicate" }, "Already here: ", el("a", { href: `/recipes/${dupes.get(i)}` }, "the recipe of that name")));
    }
    if (notes.has(i)) li.append(el("ul", { class: "guess" }, ...notes.get(i).map((n) => el("li", {}, n))));
    return li;
  });
  return el("ul", { class: "choices" }, ...items);
}

export function startImport() {
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
      list,
      el("p", { class: "actions" }, button),
    );
    count();
    say("");
  });
}
