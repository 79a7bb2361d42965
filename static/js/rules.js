// My bar's "Our stand-ins": the household's own rules ("Dry curaçao for Triple sec"), from
// GET /api/bar (household.js `household.rules`), listed for everyone; a shelf keeper adds
// one with two bottle fields (the vocabulary's names, offered as a list) and takes one
// back with its button. A change goes through pending.js (household.js `changeRule`), so
// one made offline is kept and sent later; "can make" on this page and the list counts
// the rule at once (model.js `analyseNeeds`, vocabulary.js). A name the vocabulary does not
// know is refused here, naming the field, before anything is sent (the server refuses it too).
import { changeRule, household, onHousehold } from "./household.js";
import { el } from "./markup.js";
import { vocabulary } from "./vocabulary.js";

export function startRules() {
  const form = document.getElementById("rule-add");
  if (!form) return;
  const list = document.getElementById("rules-list");
  const status = document.getElementById("rule-status");
  const have = document.getElementById("rule-have"), wanted = document.getElementById("rule-wanted");
  const names = document.getElementById("rule-names");
  let words = null;
  vocabulary().then((v) => {
    words = v;
    if (!v) return;
    names.replaceChildren(...v.entries.map((e) => el("option", { value: e.name })));
  });
  const may = () => household.ready && household.known && household.mayShelf;
  // The vocabulary's name for what a field holds, or why not (naming the field).
  const read = (input, field) => {
    const text = input.value.trim();
    if (!text) return [null, field + ": name a bottle or kind."];
    if (!words) return [text, null];
    const r = words.read(text);
    if (!("entry" in r)) return [null, field + ": “" + text + "” is no bottle or kind the app knows; pick one of the names offered."];
    return [words.entries[r.entry].name, null];
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!may()) return;
    const [a, whyA] = read(have, "We have");
    const [b, whyB] = read(wanted, "For");
    const why = whyA || whyB || (a === b ? "For: a bottle cannot stand in for itself." : null);
    if (why) { status.textContent = why; return; }
    status.textContent = "";
    send(a, b, true, status);
    have.value = wanted.value = "";
  });
  const show = () => {
    for (const control of form.querySelectorAll("input, button")) control.disabled = !may();
    const rules = household.known ? household.rules : [];
    list.replaceChildren(...rules.map((r) => {
      const li = el("li", {}, el("span", {}, r.have + " for " + r.wanted));
      if (may()) {
        const button = el("button", { type: "button", class: "button" }, "Remove");
        button.setAttribute("aria-label", "Remove " + r.have + " for " + r.wanted);
        button.addEventListener("click", () => send(r.have, r.wanted, false, status));
        li.append(" ", button);
      }
      return li;
    }));
    if (!rules.length) list.replaceChildren(el("li", { class: "help" }, "None yet."));
  };
  onHousehold(show);
  show();
}

function send(have, wanted, on, status) {
  changeRule(have, wanted, on).then((answer) => {
    if (answer && answer.error !== undefined) status.textContent = "Not saved: " + answer.error;
    else if (answer) status.textContent = on ? "Added: " + have + " for " + wanted + "." : "Removed: " + have + " for " + wanted + ".";
  });
}
