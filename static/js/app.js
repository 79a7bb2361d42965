// Libations in the browser: search as you type, open recipes in place, keep the screen on,
// work offline. Every page works without this (rows are links to recipe pages, search is
// a form, amounts are links); these modules make it instant. No build step: the browser
// loads them as they are, from one hashed directory (crates/web/src/site/assets.rs).
//
//   model.js    the rules shared with the server (search, amounts, shelf, links in notes)
//   markup.js   markup as data: to DOM here, to HTML in the tests
//   view.js     a recipe's markup, as templates/recipe_body.html writes it
//   storage.js  this phone's units, shelf and favourites
//   pending.js  a person's changes kept on the device until the server has them
//   household.js who is asking and what is theirs (/api/me), the household's shelf
//   movein.js   a device's own favourites and shelf joining a person's, once
//   mine.js     a recipe's rating, note and "made one", and the household's ratings
//   page.js     offline hint, service worker, who you are, keyboard help
//   wake.js     keep the screen on
//   recipe.js   a recipe's units, servings and favourite controls
//   list.js     the list: search, filters, opening recipes, keys
//   showing.js  showing a search's matches with few DOM changes
//   pane.js     the recipe beside the list on a wide screen
//   shelf.js    the /shelf page, My bar: the shelf, the move file
//   picker.js   My bar's bottles to tick, grouped by kind, and finding one
//   collection.js  the recipes' names for My bar (/api/recipes, as the list has it)
//   bottles.js  what the shelf makes, the best next bottles
//   shopping.js the shopping list: the household's, or this device's
//   rules.js    My bar's "Our stand-ins": the household's own rules
//   bar-mine.js a person's favourites, ratings, notes and log, listed on My bar
//   edit.js     the recipe form: rows in place, problems inline, drafts, conflicts
//   import.js   adding recipes from a file: the list to choose from
//   share.js    a recipe's Share (the share sheet, or the clipboard)
//   menus.js    /menus: composing the guests' menus (menu.js is the guests' page's own)
//   times.js    moments shown in the phone's own zone
//   intro.js    a first visit's line saying what this is
//   photos.js   a recipe's photos: the cover beside its name, taking one
//   photo-queue.js photos taken offline, kept on the device until sent
//   covers.js   the list's photos, when this device's choice shows them
import { startPage } from "./page.js";
import { startWake } from "./wake.js";
import { startStorage } from "./storage.js";
import { startPending } from "./pending.js";
import { startHousehold } from "./household.js";
import { startMoveIn } from "./movein.js";
import { startRecipes } from "./recipe.js";
import { startShelf } from "./shelf.js";
import { startList } from "./list.js";
import { startEditing } from "./edit.js";
import { startImport } from "./import.js";
import { startShare } from "./share.js";
import { startMenus } from "./menus.js";
import { startTimes } from "./times.js";
import { startIntro } from "./intro.js";
import { startPhotoQueue } from "./photo-queue.js";

// In this order: the stored choices before anything shows them; recipes painted before
// the list adds its own reactions to a change of choices.
startPage();
startWake();
startStorage();
startHousehold();
startMoveIn();
startPending();
startRecipes();
startShelf();
startList();
startEditing();
startImport();
startShare();
startMenus();
startTimes();
startIntro();
startPhotoQueue();
