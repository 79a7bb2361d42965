// A recipe's photos (issue #44; crates/web/src/handlers/photos.rs): its cover as a small
// picture beside the recipe's name (in the wide pane, larger in its corner), its other
// photos in a strip under the recipe, each tapped to see it large; and, for a person the
// household knows, a camera button there when it has none ("Add photo" in the large view
// when it has, and "Add a photo" after Made one), which opens the phone's camera or its
// photos and sends the picture as it is: the server turns it upright and strips its
// location. The picture shows at once, from the phone, while it is sent; taken offline,
// it waits on the phone (photo-queue.js) and goes when the connection returns. Under the
// photos, "Recently deleted photos (n)": those the person may still restore, each with
// Restore, as the recipe's page lists them without JavaScript.
//
// One markup: the recipe's page comes with the cover, the strip and a plain upload form
// (templates/recipe.html), links to each photo's own page, which work without JavaScript;
// this takes them over (the same elements, a dialog instead of the page) and hides the
// form, whose work the camera button does.
import { el } from "./markup.js";
import { whoami } from "./page.js";
import { refusalText } from "./pending.js";
import { keepPhoto, onPhotoAnswered, waitingFor } from "./photo-queue.js";

const states = new Map(); // recipe id → its photos' state, while its recipe is shown

// Adds the photo spot to an opened recipe: `head` is where the name is (the pane's or the
// page's <h1>, or the opened row on a phone), `container` the recipe.
export async function addPhotos(head, container, id, name) {
  if (!head) return;
  const served = head.querySelector(":scope > .photo-spot");
  if (served?.dataset.taken) return;
  const spot = served ?? el("span", { class: "photo-spot" });
  spot.dataset.taken = "yes";
  if (!served) head.append(spot);
  // The deleted photos are asked for only for a person the household knows: a stranger
  // may restore none (null: what the page came with stays).
  const isPerson = (me) => Boolean(me && typeof me.login === "string");
  const [photos, me, gone] = await Promise.all([read(id), whoami, whoami.then((me) => isPerson(me) ? readGone(id) : null)]);
  if (photos === null || !spot.isConnected) { if (!served) spot.remove(); return; }
  const person = isPerson(me);
  const state = { id: String(id), name, person, login: person ? me.login : null, editor: me?.can_cover === true, spot, container, photos, gone };
  states.set(state.id, state);
  state.photos = [...photos, ...await waiting(state)];
  paint(state);
}

// The photos of `state`'s recipe kept on this device to be sent, as the phone's pictures.
async function waiting(state) {
  if (!state.person) return [];
  const kept = await waitingFor(state.id);
  const previews = await Promise.all(kept.map((w) => previewOf(w.blob)));
  return previews.filter(Boolean).map((p) => ({ thumb_url: p, url: p, local: true }));
}

// A kept photo has been answered: the recipe's photos read again (and what still waits),
// and said.
onPhotoAnswered(async ({ recipe, refused }) => {
  const state = states.get(String(recipe));
  if (!state || !state.spot.isConnected) return;
  const served = await read(state.id);
  state.photos = [...(served ?? state.photos.filter((p) => !p.local)), ...await waiting(state)];
  paint(state);
  say(state, refused ?? "Photo added.");
});

const WAITING = "Waiting to be sent: it goes when the connection returns.";

async function read(id) {
  try {
    const answer = await fetch("/api/recipes/" + id + "/photos", { headers: { Accept: "application/json" } });
    return answer.ok ? await answer.json() : null;
  } catch (error) {
    return null; // offline, or no household: no photos shown (the page's own stay)
  }
}

// The deleted photos of recipe `id` the person may restore (none for a stranger), or null
// if unknown (offline): then what the page came with stays.
async function readGone(id) {
  try {
    const answer = await fetch("/api/recipes/" + id + "/photos/gone", { headers: { Accept: "application/json" } });
    return answer.ok ? await answer.json() : null;
  } catch (error) {
    return null;
  }
}

// The photos and the deleted ones read again, and painted.
async function reread(state) {
  const [photos, gone] = await Promise.all([read(state.id), readGone(state.id)]);
  state.photos = photos ?? state.photos;
  state.gone = gone ?? state.gone;
  paint(state);
}

const pageOf = (state, photo) => "/recipes/" + state.id + "/photos/" + photo.id;
const altOf = (state, photo) => "Photo of " + state.name + (photo.by ? ", taken by " + photo.by : "");

// A photo as a link to its page (the markup templates/recipe.html writes), opened large here.
function photoLink(state, photo, attrs, size) {
  const link = el("a", { ...attrs, href: photo.local ? null : pageOf(state, photo) },
    el("img", { src: photo.thumb_url, alt: altOf(state, photo), width: size, height: size }));
  link.addEventListener("click", (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (!photo.local) showLarge(state, photo);
  });
  return link;
}

// The spot and the strip as `state` has them: the cover's picture, or the camera button,
// or nothing; the other photos under the recipe.
function paint(state) {
  const { spot, person, name, photos } = state;
  const cover = photos[0];
  if (cover) spot.replaceChildren(photoLink(state, cover, { class: "photo-thumb" }, "44"));
  else if (person) spot.replaceChildren(cameraButton(state, "Add a photo of " + name, "photo-add"));
  else spot.replaceChildren();
  spot.append(el("span", { class: "photo-status", role: "status" }));
  paintStrip(state);
  paintGone(state);
}

// What the strip, "Photo deleted." and the deleted photos follow: the recipe (the pane's,
// the page's); in a phone's row, where the container is the recipe itself, its last part
// (its tools), so that they close with it.
const recipeEnd = (container) =>
  container.matches(".recipe") ? container.querySelector(":scope > .tools") : container.querySelector(".recipe");

function paintStrip(state) {
  const { container, photos } = state;
  const recipe = recipeEnd(container);
  let strip = container.querySelector(".photo-strip");
  if (photos.length < 2) { strip?.remove(); return; }
  if (!strip) {
    strip = el("ul", { class: "photo-strip", "aria-label": "More photos of " + state.name });
    recipe?.after(strip);
  }
  strip.replaceChildren(...photos.slice(1).map((p) => el("li", null, photoLink(state, p, {}, "64"))));
}

// "Recently deleted photos (n)" under the recipe's photos, the markup templates/recipe.html
// writes (taken over where the page came with it, kept open if it was), each with a
// Restore button; gone once none is left.
function paintGone(state) {
  const { container, gone, name } = state;
  const served = container.querySelector(".photos-gone");
  if (!gone) return;
  if (!gone.length) { served?.remove(); return; }
  const said = el("p", { role: "status" }, "A deleted photo can be restored for 30 days.");
  const items = gone.map((photo) => {
    const button = el("button", { type: "button", class: "chip" }, "Restore");
    button.addEventListener("click", () => restoreListed(state, photo, said));
    const alt = "Deleted photo of " + name + (photo.by ? ", taken by " + photo.by : "");
    return el("li", null, el("img", { src: photo.thumb_url, alt, width: "64", height: "64", loading: "lazy" }), button);
  });
  const list = el("details", { class: "photos-gone" },
    el("summary", null, "Recently deleted photos (" + gone.length + ")"), said, el("ul", null, ...items));
  list.open = served?.open ?? false;
  if (served) served.replaceWith(list);
  else (container.querySelector(".photo-undo") ?? container.querySelector(".photo-strip") ?? recipeEnd(container))?.after(list);
}

// Restore pressed in the list: the photo back, said; or why not, in the list.
async function restoreListed(state, photo, said) {
  try {
    await restore(state, photo);
    state.container.querySelector(".photos-gone summary")?.focus();
  } catch (error) {
    said.textContent = failed(error);
  }
}

// A deleted photo restored (POST …/restore; Undo and the list's Restore): the photos and
// the deleted ones read again and painted, "Photo restored." said; or throws why not.
async function restore(state, photo) {
  await ask(state, "POST", photo.id + "/restore");
  state.container.querySelector(`.photo-undo[data-photo="${photo.id}"]`)?.remove();
  await reread(state);
  say(state, "Photo restored.");
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
  const before = state.photos;
  if (preview) {
    state.photos = [...before, { thumb_url: preview, url: preview, local: true }];
    paint(state);
  }
  say(state, "Sending the photo…");
  try {
    const answer = await fetch("/api/recipes/" + state.id + "/photos", {
      method: "POST", headers: { "Content-Type": file.type || "application/octet-stream", Accept: "application/json" }, body: file,
    });
    const body = await answer.json().catch(() => null);
    if (!answer.ok) throw new Error(refusalText(body, answer.status));
    state.photos = (await read(state.id)) ?? [...before, body];
    paint(state);
    say(state, "Photo added.");
  } catch (error) {
    // Unreachable: kept on this phone to be sent later (for the person who took it).
    if (error instanceof TypeError && state.login && await keepPhoto(state.id, state.login, file)) {
      say(state, WAITING);
      return;
    }
    state.photos = before;
    paint(state);
    say(state, error instanceof TypeError ? "Not sent: the server could not be reached, and this browser would not keep the photo." : error.message);
  }
}

const FLEETING = ["Photo added.", "Photo restored.", "Cover chosen."];

function say(state, text) {
  const status = state.spot.querySelector(".photo-status");
  if (!status) return;
  status.textContent = text;
  // A success is said for a moment; a refusal stays until the next try.
  if (FLEETING.includes(text)) setTimeout(() => { if (status.textContent === text) status.textContent = ""; }, 4000);
}

// Sends a change to a photo (`method` on `path`), or throws what went wrong.
async function ask(state, method, path) {
  const answer = await fetch("/api/recipes/" + state.id + "/photos/" + path, { method, headers: { Accept: "application/json" } });
  if (!answer.ok) throw new Error(refusalText(await answer.json().catch(() => null), answer.status));
}

const failed = (error) => error instanceof TypeError ? "Not done: the server could not be reached." : error.message;

// A change to a photo (`method` on `path`): the photos read again and painted, said;
// whether it was made.
async function change(state, dialog, method, path, done) {
  try {
    await ask(state, method, path);
    await reread(state);
    dialog.close();
    say(state, done);
    return true;
  } catch (error) {
    dialog.querySelector(".photo-said").textContent = failed(error);
    return false;
  }
}

// A photo deleted: "Photo deleted." under the recipe's photos, with an Undo that restores
// it (POST …/restore; the server keeps it 30 days), until the next photo is deleted.
async function remove(state, dialog, photo) {
  if (!await change(state, dialog, "DELETE", String(photo.id), "")) return;
  const said = el("span", null, "Photo deleted.");
  const undo = el("button", { type: "button", class: "chip" }, "Undo");
  const note = el("p", { class: "photo-undo", role: "status", "data-photo": String(photo.id) }, said, " ", undo);
  undo.addEventListener("click", async () => {
    try {
      await restore(state, photo);
    } catch (error) {
      said.textContent = failed(error);
    }
  });
  state.container.querySelector(".photo-undo")?.remove();
  (state.container.querySelector(".photo-strip") ?? recipeEnd(state.container))?.after(note);
  undo.focus();
}

// The buttons under a large photo: Add photo, Make cover, Delete (each for whoever may), Close.
function actions(state, photo, dialog) {
  const close = el("button", { type: "button", class: "chip" }, "Close");
  close.addEventListener("click", () => dialog.close());
  const acts = el("p", { class: "photo-acts" });
  if (state.person) acts.append(cameraButton(state, "Add photo", "chip"));
  if (state.editor && !photo.cover) {
    const cover = el("button", { type: "button", class: "chip" }, "Make cover");
    cover.addEventListener("click", () => change(state, dialog, "PUT", photo.id + "/cover", "Cover chosen."));
    acts.append(cover);
  }
  if (state.editor || (state.login && photo.by === state.login)) {
    const del = el("button", { type: "button", class: "chip danger" }, "Delete");
    del.addEventListener("click", () => acts.replaceWith(confirming(state, photo, dialog)));
    acts.append(del);
  }
  acts.append(close);
  return acts;
}

// Deleting asks first; a deleted photo can be restored for 30 days.
function confirming(state, photo, dialog) {
  const yes = el("button", { type: "button", class: "chip danger" }, "Delete");
  const no = el("button", { type: "button", class: "chip" }, "Keep it");
  yes.addEventListener("click", () => remove(state, dialog, photo));
  no.addEventListener("click", () => { dialog.querySelector(".photo-ask").replaceWith(actions(state, photo, dialog)); });
  const question = el("div", { class: "photo-ask" },
    el("p", null, "Delete this photo? You can restore it for 30 days."), el("p", { class: "photo-acts" }, yes, no));
  queueMicrotask(() => no.focus());
  return question;
}

// A photo large, in a dialog: closed by its button, Escape or a tap beside it.
function showLarge(state, photo) {
  const dialog = el("dialog", { class: "photo-view", "aria-label": "Photo of " + state.name },
    el("img", { src: photo.url, alt: altOf(state, photo) }),
    el("p", { class: "photo-said", role: "status" }));
  dialog.append(actions(state, photo, dialog));
  dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
  dialog.addEventListener("close", () => dialog.remove());
  dialog.addEventListener("change", (event) => { if (event.target.matches("input[type=file]")) dialog.close(); });
  document.body.append(dialog);
  dialog.showModal();
}

// After Made one, the camera: "Add a photo" of the drink just made.
document.addEventListener("click", (event) => {
  const made = event.target.closest(".recipe .made-one");
  const state = made && states.get(made.closest(".recipe").dataset.id);
  if (!state || !state.person || !state.spot.isConnected) return;
  const row = made.parentElement;
  if (!row.querySelector(".photo-made")) row.append(cameraButton(state, "Add a photo", "chip photo-made"));
});
