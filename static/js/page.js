// What every page has: the offline hint and the service worker (static/sw.js), who you
// are on the tailnet (in the footer), and the keyboard help.

// Shows or hides "Offline: showing the recipes saved on this phone".
export function showOffline(on) {
  const hint = document.getElementById("offline");
  if (hint) hint.hidden = !on;
}

export function startPage() {
  document.documentElement.classList.add("js");
  startOffline();
  showWho();
  startKeys();
}

// Offline: the service worker keeps the list, the recipes and the assets.
function startOffline() {
  if (!navigator.onLine) showOffline(true);
  addEventListener("offline", () => showOffline(true));
  addEventListener("online", () => showOffline(false));
  if ("serviceWorker" in navigator && !(navigator.serviceWorker.controller && !navigator.onLine)) {
    addEventListener("load", () => {
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => showOffline(!navigator.onLine));
    });
  }
}

// Who you are on the tailnet, quietly in the footer ("Alice · iphone"). Pages are shared
// and cached, so the name comes from /api/whoami, which is per person and never cached.
function showWho() {
  const who = document.getElementById("who");
  if (!who || !navigator.onLine) return;
  fetch("/api/whoami", { headers: { Accept: "application/json" }, cache: "no-store" })
    .then((r) => (r.ok ? r.json() : null))
    .then((me) => {
      if (!me || !me.known || !me.label) return;
      who.textContent = me.label;
      who.title = me.login || (me.tags || []).join(", ");
      who.hidden = false;
      if (me.can_edit) showEditLinks(who);
    })
    .catch(() => {});
}

// For someone who may edit: where to add a recipe and see what changed. Shared pages
// cannot carry these (they are the same for everyone), so they come with whoami's answer.
function showEditLinks(after) {
  const links = [["/recipes/new", "New recipe"], ["/recipes/import", "Add from a link"], ["/changes", "Recent changes"]];
  for (const [href, text] of links.reverse()) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    a.className = "edit-link";
    after.after(" · ", a);
  }
}

// Keys: `/` searches, `?` shows or hides the list of keys (templates/keys.html).
function startKeys() {
  const input = document.getElementById("q");
  const keysToggle = document.getElementById("keys-toggle");
  const keysBox = document.getElementById("keys");
  const showKeys = (on) => {
    if (!keysBox) return;
    keysBox.hidden = !on;
    keysToggle?.setAttribute("aria-expanded", String(on));
  };
  keysToggle?.addEventListener("click", () => showKeys(keysBox.hidden));
  const typing = (target) => target instanceof Element && target.closest("input, textarea, select, [contenteditable]") !== null;
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "?") { event.preventDefault(); showKeys(keysBox?.hidden); }
    else if (event.key === "/" && input) { event.preventDefault(); input.focus(); input.select(); }
    else if (event.key === "Escape" && keysBox && !keysBox.hidden) { event.preventDefault(); showKeys(false); }
  });
}
