// A recipe's photos (issue #44; crates/web/src/handlers/photos.rs): its cover as a small
// picture beside the recipe's name, tapped to see it large; and, for a person the
// household knows, a camera button there when it has none ("Add photo" in the large view
// when it has), which opens the phone's camera or its photos and sends the picture as it
// is: the server turns it upright and strips its location. The picture shows at once, from
// the phone, while it is sent. Pages without JavaScript do not show photos yet.
import { el } from "./markup.js";
import { whoami } from "./page.js";
import { refusalText } from "./pending.js";

// Adds the photo spot to an opened recipe: `head` is where the name is (the pane's or the
// page's <h1>, or the opened row on a phone), `container` the recipe.
export async function addPhotos(head, container, id, name) {
  if (!head || head.querySelector(".photo-spot")) return;
  const spot = el("span", { class: "photo-spot" });
  head.append(spot);
  const [photos, me] = await Promise.all([read(id), whoami]);
  if (photos === null || !spot.isConnected) { spot.remove(); return; }
  const person = Boolean(me && typeof me.login === "string");
  const state = { id, name, person, spot, container, cover: photos[0] ?? null };
  paint(state);
}

async function read(id) {
  try {
    const answer = await fetch("/api/recipes/" + id + "/photos", { headers: { Accept: "application/json" } });
    return answer.ok ? await answer.json() : null;
  } catch (error) {
    return null; // offline, or no household: no photos shown
  }
}

// The spot as `state` has it: the cover's picture, or the camera button, or nothing.
function paint(state) {
  const { spot, cover, person, name } = state;
  if (cover) {
    const picture = el("button", { type: "button", class: "photo-thumb", "aria-label": "See the photo of " + name },
      el("img", { src: cover.thumb_url, alt: "", width: "44", height: "44" }));
    picture.addEventListener("click", () => showLarge(state));
    spot.replaceChildren(picture);
  } else if (person) {
    spot.replaceChildren(cameraButton(state, "Add a photo of " + name, "photo-add"));
  } else {
    spot.replaceChildren();
  }
  spot.append(el("span", { class: "photo-status", role: "status" }));
}

// A button that opens the camera (or the phone's photos) and sends the picture taken.
function cameraButton(state, label, kind) {
  const input = el("input", { type: "file", accept: "image/*", capture: "environment", class: "visually-hidden", tabindex: "-1" });
  const button = el("label", { class: kind, "aria-label": kind === "photo-add" ? label : null },
    input, kind === "photo-add" ? el("span", { "aria-hidden": "true" }, "📷") : label);
  input.addEventListener("change", () => { if (input.files[0]) send(state, input.files[0]); });
  return button;
}

// A small picture of `file`, made on the phone while it is sent (a data: URL: the page's
// CSP takes no blob:), or null if the browser cannot read it.
async function previewOf(file) {
  try {
    const bitmap = await createImageBitmap(file);
    const canvas = el("canvas", { width: "88", height: "88" });
    const side = Math.min(bitmap.width, bitmap.height);
    canvas.getContext("2d").drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, 88, 88);
    bitmap.close();
    return canvas.toDataURL("image/jpeg", 0.8);
  } catch (error) {
    return null;
  }
}

async function send(state, file) {
  const preview = await previewOf(file);
  const before = state.cover;
  if (preview) {
    state.cover = { thumb_url: preview, url: preview, local: true };
    paint(state);
  }
  say(state, "Sending the photo…");
  try {
    const answer = await fetch("/api/recipes/" + state.id + "/photos", {
      method: "POST", headers: { "Content-Type": file.type || "application/octet-stream", Accept: "application/json" }, body: file,
    });
    const body = await answer.json().catch(() => null);
    if (!answer.ok) throw new Error(refusalText(body, answer.status));
    state.cover = before && !before.local ? before : body;
    paint(state);
    say(state, "Photo added.");
  } catch (error) {
    state.cover = before;
    paint(state);
    say(state, error instanceof TypeError ? "Not sent: the server could not be reached." : error.message);
  }
}

function say(state, text) {
  const status = state.spot.querySelector(".photo-status");
  if (!status) return;
  status.textContent = text;
  // A success is said for a moment; a refusal stays until the next try.
  if (text === "Photo added.") setTimeout(() => { if (status.textContent === text) status.textContent = ""; }, 4000);
}

// The cover large, in a dialog: closed by its button, Escape or a tap beside it.
function showLarge(state) {
  const close = el("button", { type: "button", class: "chip" }, "Close");
  const acts = el("p", { class: "photo-acts" }, close);
  if (state.person) acts.prepend(cameraButton(state, "Add photo", "chip"));
  const dialog = el("dialog", { class: "photo-view", "aria-label": "Photo of " + state.name },
    el("img", { src: state.cover.url, alt: "Photo of " + state.name }), acts);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
  dialog.addEventListener("close", () => dialog.remove());
  dialog.querySelector("input")?.addEventListener("change", () => dialog.close());
  document.body.append(dialog);
  dialog.showModal();
}
