// The recipe form, made better with JavaScript: ingredient rows added, removed and moved
// in place, list fields (glass, method...) one input per entry with "Add another" and
// their "Used here" values as buttons that fill them, problems shown next to their fields
// without a reload, a draft kept on the phone (so that a lost connection or a closed tab
// never loses typing), and a conflict shown as both versions to choose from. Without
// JavaScript the same form posts and the server renders all of this itself.

const DRAFTS = "libations:draft:";
const LISTS = ["base", "glass", "method", "ice", "garnish"];

/** A list field's box (`glass`), holding an input per entry. */
const listBox = (form, list) => form.querySelector(`.list-field[data-list="${list}"]`);
const listInputs = (form, list) => [...(listBox(form, list)?.querySelectorAll(".values input") ?? [])];

/** The recipe the form holds, in the API's shape. */
export function readForm(form) {
  const entries = (list) =>
    listInputs(form, list).flatMap((input) => input.value.split("\n")).map((s) => s.trim()).filter(Boolean);
  const recipe = { name: form.elements.name.value.trim() };
  for (const list of LISTS) recipe[list] = entries(list);
  recipe.ingredients = [...form.querySelectorAll(".ing-row")]
    .map((row) => ({
      name: row.querySelector("[name=ing-name]").value.trim(),
      measure: row.querySelector("[name=ing-measure]").value.trim(),
      unit: row.querySelector("[name=ing-unit]").value.trim(),
    }))
    .filter((i) => i.name || i.measure || i.unit);
  recipe.notes = form.elements.notes.value.trim();
  return recipe;
}

/** Another input for list `list` after its last, named `list-more`; null at the cap. */
function addInput(form, list, value) {
  const box = listBox(form, list);
  const inputs = listInputs(form, list);
  if (inputs.length >= Number(box.dataset.max || 12)) return null;
  const input = inputs[0].cloneNode(false);
  for (const attr of ["id", "aria-invalid", "aria-describedby"]) input.removeAttribute(attr);
  input.name = `${list}-more`;
  input.value = value;
  input.setAttribute("aria-label", `${box.querySelector("label").textContent.trim()} ${inputs.length + 1}`);
  box.querySelector(".values").append(input);
  showAdd(form, list);
  return input;
}

/** "Add another glass" shows while the last input is filled and the recipe may hold more. */
function showAdd(form, list) {
  const inputs = listInputs(form, list);
  const button = listBox(form, list).querySelector(".add-value");
  button.hidden = inputs.length >= Number(listBox(form, list).dataset.max || 12) || !inputs.at(-1).value.trim();
}

/** Exactly `values` in list `list`'s inputs (one blank input when there are none). */
function setList(form, list, values) {
  const [first, ...rest] = listInputs(form, list);
  for (const input of rest) input.remove();
  first.value = values[0] ?? "";
  for (const value of values.slice(1)) addInput(form, list, value);
  showAdd(form, list);
}

/** A tapped "Used here" value: into the first blank input; else a single choice (glass)
 * is replaced, a list (garnish) gets another input. */
function pick(form, list, value) {
  const inputs = listInputs(form, list);
  if (inputs.some((input) => input.value.trim() === value)) return;
  const one = listBox(form, list).dataset.one;
  const target = inputs.find((input) => !input.value.trim())
    ?? (one ? inputs.at(-1) : addInput(form, list, "")) ?? inputs.at(-1);
  target.value = value;
  showAdd(form, list);
  keepDraft(form);
}

/** With JavaScript: no blank inputs waiting (the button adds one), and the "Used here"
 * values become buttons that fill the field. Without it, the blank input and the
 * datalist do the same. */
function enhanceLists(form) {
  for (const list of LISTS) {
    const box = listBox(form, list);
    if (!box) continue;
    for (const input of listInputs(form, list).slice(1)) if (!input.value.trim()) input.remove();
    const add = box.querySelector(".add-value");
    add.addEventListener("click", () => addInput(form, list, "")?.focus());
    box.addEventListener("input", () => showAdd(form, list));
    showAdd(form, list);
    const hint = box.querySelector(".used-here");
    if (!hint) continue;
    for (const node of [...hint.childNodes]) if (node.nodeType === Node.TEXT_NODE && node.textContent.trim() === ",") node.remove();
    for (const span of hint.querySelectorAll("span.used")) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "used";
      button.textContent = span.textContent;
      button.addEventListener("click", () => pick(form, list, span.textContent));
      span.replaceWith(button);
    }
  }
}

/** Puts a recipe (API shape) into the form. */
export function fillForm(form, recipe) {
  form.elements.name.value = recipe.name ?? "";
  for (const list of LISTS) setList(form, list, recipe[list] ?? []);
  form.elements.notes.value = recipe.notes ?? "";
  const rows = form.querySelector(".ing-rows");
  const template = rows.querySelector(".ing-row");
  const wanted = [...(recipe.ingredients ?? []), { name: "", measure: "", unit: "" }];
  rows.replaceChildren(
    ...wanted.map((i) => {
      const row = template.cloneNode(true);
      row.querySelector("[name=ing-name]").value = i.name ?? "";
      row.querySelector("[name=ing-measure]").value = i.measure ?? "";
      row.querySelector("[name=ing-unit]").value = i.unit ?? "";
      return row;
    }),
  );
  renumber(form);
}

/** Row buttons carry their row's index (`up:2`) for the server, rows their id (`ing-3`,
 * where the page comes back to without JavaScript); keep them true. */
function renumber(form) {
  form.querySelectorAll(".ing-row").forEach((row, i) => {
    row.id = `ing-${i + 1}`;
    for (const button of row.querySelectorAll("button[name=op]")) {
      button.value = button.value.replace(/:\d+$/, `:${i}`);
    }
    const label = row.querySelector(".row-n");
    if (label) label.textContent = String(i + 1);
  });
}

/** Add, remove, up, down: done in place instead of a round trip. */
function rowOp(form, op) {
  const rows = form.querySelector(".ing-rows");
  const all = [...rows.querySelectorAll(".ing-row")];
  const [verb, n] = op.split(":");
  const row = all[Number(n)];
  if (verb === "add") {
    const fresh = all[0].cloneNode(true);
    for (const input of fresh.querySelectorAll("input")) input.value = "";
    rows.append(fresh);
    renumber(form);
    fresh.querySelector("input").focus();
    return true;
  }
  if (!row) return false;
  if (verb === "remove") {
    if (all.length > 1) row.remove();
    else for (const input of row.querySelectorAll("input")) input.value = "";
  } else if (verb === "up" && row.previousElementSibling) {
    row.previousElementSibling.before(row);
  } else if (verb === "down" && row.nextElementSibling) {
    row.nextElementSibling.after(row);
  }
  renumber(form);
  return true;
}

function clearProblems(form) {
  for (const p of form.querySelectorAll(".field-error[data-js]")) p.remove();
  for (const el of form.querySelectorAll("[aria-invalid]")) {
    el.removeAttribute("aria-invalid");
    el.removeAttribute("aria-describedby");
  }
  const summary = form.querySelector(".problems");
  summary.hidden = true;
  summary.replaceChildren();
}

/** The input a field path (`name`, `garnish[1]`, `ingredients[2].unit`) is about. */
function fieldInput(form, field) {
  const ing = /^ingredients\[(\d+)\]\.(\w+)$/.exec(field);
  if (ing) {
    // The server numbers the rows it was sent, and readForm leaves blank rows out.
    const filled = [...form.querySelectorAll(".ing-row")].filter((row) =>
      [...row.querySelectorAll("input")].some((input) => input.value.trim()));
    const row = filled[Number(ing[1])];
    return row?.querySelector(`[name=ing-${ing[2]}]`) ?? null;
  }
  const entry = /^(\w+)\[(\d+)\]$/.exec(field);
  if (entry && LISTS.includes(entry[1])) {
    const inputs = listInputs(form, entry[1]);
    return inputs[Number(entry[2])] ?? inputs[0] ?? null;
  }
  const base = field.replace(/\[\d+\]$/, "");
  return form.elements[base] instanceof Element ? form.elements[base] : form.querySelector(".ing-rows");
}

function showProblems(form, problems) {
  clearProblems(form);
  const summary = form.querySelector(".problems");
  const heading = document.createElement("p");
  heading.textContent = problems.length === 1 ? "One thing to fix:" : `${problems.length} things to fix:`;
  const list = document.createElement("ul");
  problems.forEach((problem, i) => {
    const item = document.createElement("li");
    item.textContent = problem.field ? `${problem.field}: ${problem.message}` : problem.message;
    list.append(item);
    const input = fieldInput(form, problem.field);
    if (!input) return;
    const note = document.createElement("p");
    note.className = "field-error";
    note.dataset.js = "";
    note.id = `js-error-${i}`;
    note.textContent = problem.message;
    input.after(note);
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", note.id);
  });
  summary.append(heading, list);
  summary.hidden = false;
  (form.querySelector("[aria-invalid]") ?? summary).focus?.();
}

function say(form, text) {
  const status = form.querySelector(".form-status");
  status.textContent = text;
  status.hidden = !text;
}

/** The form's recipe, and `duplicate: true` once the editor ticked "save this one too". */
function asked(form) {
  const recipe = readForm(form);
  if (form.elements.duplicate?.checked) recipe.duplicate = true;
  return recipe;
}

/** Another recipe has this name: a link to it, and the box to tick to save a second. */
function showAlready(form, duplicate) {
  const box = form.querySelector(".already");
  const p = document.createElement("p");
  const link = document.createElement("a");
  link.href = `/recipes/${duplicate.existing_id}`;
  link.textContent = "open it";
  p.append(`A recipe called \u201c${duplicate.name}\u201d is already here: `, link, ". Nothing was saved.");
  const label = document.createElement("label");
  const tick = document.createElement("input");
  tick.type = "checkbox";
  tick.name = "duplicate";
  tick.value = "1";
  label.append(tick, ` Save this one too, as a second \u201c${duplicate.name}\u201d`);
  box.replaceChildren(p, label);
  box.hidden = false;
  box.focus();
}

/** The other version, side by side with the form, and the two ways out. */
function showConflict(form, conflict) {
  const box = form.querySelector(".conflict-js");
  const theirs = conflict.current;
  box.replaceChildren();
  const h = document.createElement("h2");
  h.textContent = theirs ? "Someone changed this recipe while you were editing" : "This recipe was deleted while you were editing";
  box.append(h);
  if (theirs) {
    const dl = document.createElement("dl");
    const add = (term, value) => {
      if (!value) return;
      const dt = document.createElement("dt");
      dt.textContent = term;
      const dd = document.createElement("dd");
      dd.textContent = value;
      dl.append(dt, dd);
    };
    add("Name", theirs.name);
    for (const list of LISTS) add(list[0].toUpperCase() + list.slice(1), theirs[list].join(", "));
    add("Ingredients", theirs.ingredients.map((i) => `${i.measure} ${i.unit} ${i.name}`.trim()).join("; "));
    add("Notes", theirs.notes);
    box.append(dl);
    const mine = document.createElement("button");
    mine.type = "button";
    mine.textContent = "Save mine over theirs";
    mine.addEventListener("click", () => {
      form.dataset.version = conflict.current_version;
      box.hidden = true;
      form.requestSubmit(form.querySelector("button[value=save]"));
    });
    const take = document.createElement("button");
    take.type = "button";
    take.textContent = "Use theirs";
    take.addEventListener("click", () => {
      form.dataset.version = conflict.current_version;
      fillForm(form, theirs);
      box.hidden = true;
      keepDraft(form);
    });
    box.append(mine, take);
  } else {
    const p = document.createElement("p");
    p.textContent = "Yours is still in the form.";
    const asNew = document.createElement("button");
    asNew.type = "button";
    asNew.textContent = "Save mine as a new recipe";
    asNew.addEventListener("click", () => {
      localStorage.removeItem(draftKey(form));
      form.dataset.id = "";
      form.dataset.version = "";
      box.hidden = true;
      form.requestSubmit(form.querySelector("button[value=save]"));
    });
    box.append(p, asNew);
  }
  box.hidden = false;
  h.tabIndex = -1;
  h.focus();
}

function draftKey(form) {
  return DRAFTS + (form.dataset.id || "new");
}

function keepDraft(form) {
  try {
    localStorage.setItem(draftKey(form), JSON.stringify({ recipe: readForm(form), version: form.dataset.version }));
  } catch {
    // Storage full or off: the form still works, only the draft is not kept.
  }
}

function restoreDraft(form) {
  let saved = null;
  try {
    saved = JSON.parse(localStorage.getItem(draftKey(form)) ?? "null");
  } catch {
    return;
  }
  if (!saved?.recipe || JSON.stringify(saved.recipe) === JSON.stringify(readForm(form))) return;
  fillForm(form, saved.recipe);
  // The draft was made from the version it was begun on: saving it over a newer one
  // must be a conflict that shows both, never a silent overwrite.
  if (saved.version !== undefined) form.dataset.version = saved.version;
  say(form, "Your unsaved draft from this phone is back in the form.");
  const discard = form.querySelector(".discard-draft");
  discard.hidden = false;
  discard.addEventListener("click", () => {
    localStorage.removeItem(draftKey(form));
    location.reload();
  });
}

async function save(form) {
  clearProblems(form);
  keepDraft(form);
  if (!navigator.onLine) {
    say(form, "You are offline: saving needs a connection. Your draft is kept on this phone.");
    return;
  }
  const id = form.dataset.id;
  const headers = { "content-type": "application/json", accept: "application/json" };
  if (id) headers["if-match"] = `"${form.dataset.version}"`;
  say(form, "Saving…");
  let response;
  try {
    response = await fetch(id ? `/api/recipes/${id}` : "/api/recipes", {
      method: id ? "PUT" : "POST",
      headers,
      body: JSON.stringify(asked(form)),
      credentials: "same-origin",
    });
  } catch {
    say(form, "No connection: nothing was saved. Your draft is kept on this phone.");
    return;
  }
  const answer = await response.json().catch(() => ({}));
  if (response.ok) {
    localStorage.removeItem(draftKey(form));
    say(form, "Saved.");
    location.assign(`/recipes/${answer.recipe.id}?saved=${answer.change?.n ?? ""}`);
  } else if (response.status === 422) {
    say(form, "");
    showProblems(form, answer.problems ?? [{ field: "", message: answer.error }]);
  } else if (response.status === 409 && answer.duplicates?.length) {
    say(form, "");
    showAlready(form, answer.duplicates[0]);
  } else if (response.status === 409) {
    say(form, "");
    showConflict(form, answer.conflict);
  } else {
    say(form, `Not saved: ${answer.error ?? response.statusText}. Your draft is kept on this phone.`);
  }
}

export function enhance(form) {
  if (!form) return;
  enhanceLists(form);
  // A form an import filled is what was just read: an older draft must not cover it.
  if (!form.dataset.imported) restoreDraft(form);
  form.addEventListener("input", () => keepDraft(form));
  form.addEventListener("submit", (event) => {
    const op = event.submitter?.value ?? "save";
    event.preventDefault();
    if (op === "save") {
      save(form);
    } else if (rowOp(form, op)) {
      keepDraft(form);
    }
  });
}

/** Enhances the recipe form, on the pages that have one. */
export function startEditing() {
  enhance(document.querySelector("form.edit"));
}
