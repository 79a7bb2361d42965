// Keep screen on: a Screen Wake Lock while a recipe is open and the page is visible.
// One lock for the page, held for the recipe whose button was pressed last.
const wake = { button: null, sentinel: null };
const canWake = () => window.isSecureContext && "wakeLock" in navigator;

async function acquire() {
  const button = wake.button;
  if (!button || wake.sentinel || document.visibilityState !== "visible") return;
  try {
    const sentinel = await navigator.wakeLock.request("screen");
    if (wake.button !== button || wake.sentinel) { sentinel.release(); return; }
    wake.sentinel = sentinel;
    sentinel.addEventListener("release", () => { if (wake.sentinel === sentinel) wake.sentinel = null; });
  } catch (error) {
    // Refused (battery saver, no permission): show the toggle as off.
    if (wake.button === button) release();
  }
}

// Lets the screen sleep again and shows the toggle as off.
export function release() {
  if (wake.sentinel) wake.sentinel.release();
  wake.sentinel = null;
  if (wake.button) wake.button.setAttribute("aria-pressed", "false");
  wake.button = null;
}

// Releases the lock if the recipe holding it is inside `root` (about to go away).
export function releaseWithin(root) {
  if (wake.button && root.contains(wake.button)) release();
}

// Shows and wires the "Keep screen on" button of the recipe in `root`.
export function wakeToggle(root) {
  const button = root.querySelector(".wake");
  if (!button) return;
  button.hidden = !canWake();
  if (button.hidden) return;
  button.addEventListener("click", () => {
    if (wake.button === button) { release(); return; }
    release();
    wake.button = button;
    button.setAttribute("aria-pressed", "true");
    acquire();
  });
}

export function startWake() {
  // The system drops the lock when the page is hidden; take it again when it is back.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") acquire();
    else if (wake.sentinel) { wake.sentinel.release(); wake.sentinel = null; }
  });
  addEventListener("pagehide", release);
}
