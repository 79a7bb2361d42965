// Edit and Delete under a recipe opened from the list (in its row on a phone, in the pane
// on a wide screen), for an editor. A recipe's own page has them from the server
// (templates/recipe.html); the list page is the same for everyone (prebuilt), so here they
// come once /api/whoami says this visitor may edit. Delete asks first, then deletes the
// version the server has now (DELETE /api/recipes/{id} with its ETag); Recent changes
// can undo it, and the page goes there, as the recipe page's own Delete does.
import { el } from "./markup.js";
import { whoami } from "./page.js";

// Adds Edit and Delete to `container` (the opened recipe), if this visitor may edit.
export async function addEditControls(container, id, name) {
  const me = await whoami;
  if (!me || me.can_edit !== true || !container.isConnected || container.querySelector(".edit-controls")) return;
  const status = el("span", { class: "delete-status", role: "status" });
  const remove = el("button", { type: "button", class: "chip danger" }, "Delete");
  remove.addEventListener("click", () => { deleteRecipe(id, name, status); });
  container.append(el("div", { class: "edit-controls" },
    el("a", { class: "chip", href: "/recipes/" + id + "/edit" }, "Edit"), remove, status));
}

async function deleteRecipe(id, name, status) {
  if (!confirm("Delete " + name + "? Recent changes can undo it.")) return;
  const path = "/api/recipes/" + id;
  try {
    const now = await fetch(path, { headers: { Accept: "application/json" }, cache: "no-store" });
    const version = now.headers.get("ETag");
    if (!now.ok || !version) { status.textContent = "Could not delete " + name + ": it could not be read (HTTP " + now.status + ")."; return; }
    const answer = await fetch(path, { method: "DELETE", headers: { Accept: "application/json", "If-Match": version } });
    const body = await answer.json().catch(() => null);
    if (!answer.ok) { status.textContent = "Not deleted: " + (body?.error ?? "HTTP " + answer.status); return; }
    const n = body?.change?.n;
    location.assign("/changes" + (n ? "?done=" + n : ""));
  } catch (error) {
    status.textContent = "Not deleted: the server could not be reached.";
  }
}
