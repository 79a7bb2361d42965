// A first visit's line saying what this is (templates/list.html): shown on the list until
// "Got it", then never again on this device. Without JavaScript the page shows it always
// (its <noscript> copy), one short paragraph.
export const STORE = "libations-intro"; // the localStorage key: "seen" once dismissed

export function startIntro() {
  const intro = document.getElementById("intro");
  if (!intro || seen()) return;
  intro.hidden = false;
  document.getElementById("intro-done").addEventListener("click", () => {
    try { localStorage.setItem(STORE, "seen"); } catch (error) { /* shown again next visit */ }
    intro.hidden = true;
  });
}

function seen() {
  try { return localStorage.getItem(STORE) === "seen"; } catch (error) { return false; }
}
