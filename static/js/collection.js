// The collection's recipes, for My bar: the names of the recipes a next bottle unlocks and
// of the person's own (favourites, ratings, notes, made), and what the shelf makes worked
// out here (model.js `analyse`, the server's answer field for field), so that a tick made
// offline or by a visitor the server does not know counts at once.
//
// It is GET /api/recipes, the list page's own data: the service worker keeps it from its
// first visit and the browser revalidates it by ETag, so on My bar it is usually a 304 or
// the worker's copy, not a download (at 5,000 recipes a fresh one is about 2.7 MB, a few
// hundred KB compressed; the sample's is 21 KB). Asked for once per page, and each
// recipe's needs (model.js `needs`) worked out once, not at every tick.
import { needs } from "./model.js";
import { vocabulary } from "./vocabulary.js";

let loading = null;

// { needed: [[id, needs]…] for model.js `analyseNeeds`, vocabulary (vocabulary.js) to read
// them with, names: Map(id → name), offline }, or null when either cannot be had.
export function collection() {
  if (loading) return loading;
  const words = vocabulary();
  loading = fetch("/api/recipes", { headers: { Accept: "application/json" } })
    .then(async (response) => {
      if (!response.ok) return null;
      const recipes = await response.json();
      const read = await words;
      if (!Array.isArray(recipes) || !read) return null;
      return {
        needed: recipes.map((r) => [r.id, needs(r)]),
        vocabulary: read,
        names: new Map(recipes.map((r) => [Number(r.id), String(r.name)])),
        offline: response.headers.get("X-Libations-Offline") !== null,
      };
    })
    .catch(() => null);
  return loading;
}
