// Small DOM and wording helpers shared by the viewer core and the game renderers.

const SVG_NS = "http://www.w3.org/2000/svg";

// el("div", {class: "x", text: "hi"}, child...) and el("svg:rect", {...}) for SVG.
// Attributes that are undefined, null or false are left out; "text" sets textContent.
export function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

// A titled SVG element: the title is the tooltip a mouse user sees and what a screen reader reads.
export function svgTitled(tag, attrs, title, ...children) {
  return el(`svg:${tag}`, attrs, el("svg:title", { text: title }), ...children);
}

// "trading_day" -> "trading day"; "start_farmer" -> "start farmer".
export const words = (id) => String(id ?? "").replace(/_/g, " ");
export const capital = (text) => (text ? text[0].toUpperCase() + text.slice(1) : text);
export const title = (id) => words(id).replace(/\b\w/g, (c) => c.toUpperCase());

// "boatman" -> "boatmen", "card" -> "cards" (the nouns the games count).
export const manyOf = (noun) => (/man$/.test(noun) ? noun.replace(/man$/, "men") : `${noun}s`);

export function plural(n, one, many = manyOf(one)) {
  return `${n} ${n === 1 ? one : many}`;
}

// ["a"] -> "a"; ["a", "b"] -> "a and b"; ["a", "b", "c"] -> "a, b and c".
export function listing(items) {
  const parts = items.filter(Boolean);
  if (parts.length < 2) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

// "a wine", "an ..." for the few nouns the games use.
export const article = (noun) => (/^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`);

// Counts of equal items: ["knight", "knight", "monk"] -> "2 knights and a monk".
export function counted(items, label = (x) => x) {
  const counts = new Map();
  for (const item of items) counts.set(item, (counts.get(item) || 0) + 1);
  return listing([...counts].map(([item, n]) => (n === 1 ? article(label(item)) : `${n} ${manyOf(label(item))}`)));
}
