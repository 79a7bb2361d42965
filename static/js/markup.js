// Markup as plain data: `h("p", { class: "notes" }, "text", h("a", …))` describes an
// element without a DOM. The page turns it into elements (`toDOM`); the Node tests turn
// it into HTML (`toHTML`) to compare with what the server's templates write, so the two
// cannot drift apart (tests/js/markup.test.mjs).

class Tag {
  constructor(tag, attrs, children) {
    this.tag = tag;
    this.attrs = attrs;
    this.children = children;
  }
}

// An element; `attrs` values are strings, `true` (an attribute without a value, as
// `hidden`) or null (left out). Children are strings, elements, or DOM nodes (kept as
// they are by `toDOM`); null children are left out.
export function h(tag, attrs, ...children) {
  return new Tag(tag, attrs || {}, children.filter((c) => c !== null && c !== undefined));
}

// The DOM elements `node` describes. DOM nodes among the children are moved in as they are.
export function toDOM(node) {
  if (typeof node === "string") return document.createTextNode(node);
  if (!(node instanceof Tag)) return node;
  const element = document.createElement(node.tag);
  for (const [name, value] of Object.entries(node.attrs)) {
    if (value === true) element.setAttribute(name, "");
    else if (value !== null && value !== undefined) element.setAttribute(name, value);
  }
  for (const child of node.children) element.append(toDOM(child));
  return element;
}

// Shorthand for `toDOM(h(…))`.
export const el = (tag, attrs, ...children) => toDOM(h(tag, attrs, ...children));

// What the server's templates escape, written the way they write it (askama: numeric
// entities for & < > " and ').
const ESCAPES = { "&": "&#38;", "<": "&#60;", ">": "&#62;", "\"": "&#34;", "'": "&#39;" };
const escape = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
const VOID = new Set(["input", "br", "img", "meta", "link"]);

// The HTML of `node`. A child `{ html }` is written as it is (markup taken from the
// server's page, such as a glass icon).
export function toHTML(node) {
  if (typeof node === "string") return escape(node);
  if (!(node instanceof Tag)) return node.html;
  let out = "<" + node.tag;
  for (const [name, value] of Object.entries(node.attrs)) {
    if (value === true) out += " " + name;
    else if (value !== null && value !== undefined) out += " " + name + "=\"" + escape(value) + "\"";
  }
  out += ">";
  if (VOID.has(node.tag)) return out;
  return out + node.children.map(toHTML).join("") + "</" + node.tag + ">";
}
