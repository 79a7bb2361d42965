// A recipe's "Print" (the browser's print, of that recipe alone) and "Share": the phone's share sheet where there is one (Web Share API), else the
// card copied to the clipboard. The card is short: the name, the ingredients as shown
// (in the units and servings chosen), and the link.

/** The card for the recipe in `article` (<article class="single">), at `url`. */
export function shareCard(article, url) {
  const name = article.querySelector(".name")?.textContent.trim() ?? "";
  const rows = [...article.querySelectorAll(".ingredients tr")].map((tr) => {
    const amount = tr.querySelector(".amount")?.textContent.trim() ?? "";
    const what = tr.querySelector("th")?.textContent.trim() ?? "";
    return `• ${[amount, what].filter(Boolean).join(" ")}`;
  });
  return { title: name, text: [name, ...rows].join("\n"), url };
}

export function startShare() {
  // Print, wherever a recipe is opened: the stylesheet prints only that recipe.
  document.documentElement.dataset.print = "";
  document.addEventListener("click", (event) => {
    if (event.target.closest("button.print")) print();
  });
  const canShare = typeof navigator.share === "function";
  const canCopy = typeof navigator.clipboard?.writeText === "function";
  if (!canShare && !canCopy) return;
  // Every recipe's button, also those view.js writes later (the pane): shown by the
  // stylesheet once this is set.
  document.documentElement.dataset.share = canShare ? "sheet" : "copy";
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button.share");
    if (!button) return;
    // Its own page or the pane (<article class="single">), or its row on a phone.
    const article = button.closest(".single, .recipes > li");
    if (!article) return;
    const status = button.parentElement.querySelector(".share-status");
    const id = article.querySelector(".recipe")?.dataset.id;
    const url = location.origin + (id ? `/recipes/${id}` : location.pathname);
    const card = shareCard(article, url);
    try {
      if (canShare) {
        await navigator.share(card);
      } else {
        await navigator.clipboard.writeText(`${card.text}\n${card.url}`);
        if (status) status.textContent = "Copied.";
      }
    } catch (e) {
      // Closing the share sheet is not a failure worth a word.
      if (e?.name !== "AbortError" && status) status.textContent = "Could not share it from here.";
    }
  });
}
