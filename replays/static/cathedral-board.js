// The Cathedral of Orléans' shared board as SVG: the map (places, land routes and rivers, the
// goods and the Glass rosette lying on them, the Workshops, the Master Builders) and the Cathedral
// with its 8 sections. The map itself (places, routes, spots) comes from the view's `board`
// (a reconstruction: docs/cathedral-data.md C§4); only positions and colours are drawing.
//
// Pieces are told apart by shape before colour: a good is a square with its letter, a rosette a
// flower, a follower a rounded tile with its letter, a Master Builder a pawn in its seat's colour.

import { el, svgTitled } from "./dom.js";
import { FOLLOWER_LETTER, ITEM_LETTER, item, orderText, place } from "./cathedral-words.js";

// Schematic positions after the real towns' longitude and latitude, nudged apart.
const PLACE_XY = { orleans: [410, 175], chartres: [300, 48], montargis: [640, 140], sancerre: [680, 320],
  bourges: [545, 405], vierzon: [440, 345], blois: [240, 255], tours: [90, 318] };
// Routes bent so that two never run on top of each other (the Tours–Bourges road passes south of Vierzon).
const BEND = { "tours-bourges": [300, 470], "orleans-sancerre": [590, 220], "tours-vierzon": [260, 350] };
// Where each Workshop tile lies, next to its place.
const WORKSHOP_XY = { chartres: [96, 12], tours: [6, 196], sancerre: [624, 370] };
const WORKSHOP_SCALE = 1.3;
const WIDTH = 790;
const HEIGHT = 470;

// ---- the pieces (also drawn in the legend) ----------------------------------------------------

const ROSETTE_PATH = "M0-7A3 3 0 0 1 4 -3.6A3 3 0 0 1 6.5 2A3 3 0 0 1 2 6.4A3 3 0 0 1 -3.8 5.8A3 3 0 0 1 -6.8 0.2A3 3 0 0 1 -3 -6Z";

export function itemShape(id, attrs = {}) {
  const body = id === "rosette"
    ? [el("svg:path", { d: ROSETTE_PATH, class: "item i-rosette" }), el("svg:circle", { r: 2.2, class: "rosette-heart" })]
    : [el("svg:rect", { x: -6.5, y: -6.5, width: 13, height: 13, rx: id === "bread" ? 5 : id === "stone" ? 1 : 2.5, class: `item i-${id}` }),
      el("svg:text", { class: "item-letter", y: 3, text: ITEM_LETTER[id] || "?" })];
  return el("svg:g", attrs, ...body);
}

export function followerTile(id, attrs = {}) {
  return el("svg:g", attrs, el("svg:rect", { x: -8, y: -8, width: 16, height: 16, rx: 4, class: `follower f-${id}` }),
    el("svg:text", { class: "follower-letter", y: 3.5, text: FOLLOWER_LETTER[id] || "?" }));
}

export const builderShape = (attrs = {}) => el("svg:path", { d: "M-6 8L-2.5 0A4.5 4.5 0 1 1 2.5 0L6 8Z", class: "builder", ...attrs });

export function rewardIcon(id, attrs = {}) {
  if (id === "rosette") return itemShape("rosette", attrs);
  if (id === "monk") return followerTile("monk", attrs);
  if (id === "section") {
    return el("svg:g", attrs, el("svg:path", { d: "M-6 7V-2L0-8L6-2V7H2V2A2 2 0 0 0-2 2V7Z", class: "reward-section" }));
  }
  return el("svg:g", attrs, el("svg:rect", { x: -7, y: -6, width: 14, height: 12, rx: 1, class: "reward-blueprint" }),
    el("svg:path", { d: "M-4-2H4M-4 1H4M-4 4H1", class: "blueprint-lines" }));
}

// A face-down tile of a hidden stack: its back and how many lie there, never what they are.
export function faceDown(count, attrs = {}) {
  return el("svg:g", attrs, el("svg:rect", { x: -9, y: -9, width: 18, height: 18, rx: 3, class: "face-down" }),
    el("svg:text", { class: "face-down-count", y: 4, text: count }));
}

// ---- the map --------------------------------------------------------------------------------

function curve(route) {
  const [a, b] = [PLACE_XY[route.a] || [20, 20], PLACE_XY[route.b] || [40, 40]];
  const c = BEND[route.route] || [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  const at = (t) => [0, 1].map((k) => (1 - t) ** 2 * a[k] + 2 * (1 - t) * t * c[k] + t ** 2 * b[k]);
  return { d: `M${a[0]} ${a[1]}Q${c[0]} ${c[1]} ${b[0]} ${b[1]}`, at };
}

function routeLine(route, view, ctx, svg) {
  const { d, at } = curve(route);
  svg.append(svgTitled("path", { d, class: `route ${route.kind}`, "data-testid": "route", "data-route": route.route,
    "data-kind": route.kind }, `${route.kind === "river" ? "River" : "Land route"} ${place(route.a)} – ${place(route.b)}`));
  route.spots.forEach((spot, k) => {
    const [x, y] = at((k + 1) / (route.spots.length + 1));
    const lying = view.spots[spot];
    svg.append(lying ? svgTitled("g", { transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(1.45)`, "data-testid": "spot-item",
      "data-spot": spot, "data-item": lying }, `${item(lying)} on the way ${place(route.a)} – ${place(route.b)}`, itemShape(lying))
      : svgTitled("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 5, class: "spot empty", "data-testid": "spot-empty", "data-spot": spot },
        `the empty ${spot === ctx.reference.rosette_spot ? "Glass rosette" : "Goods"} space`));
  });
}

function workshop(w, svg) {
  const [x, y] = WORKSHOP_XY[w.place] || [10, 10];
  const left = [...w.delivered];
  const needs = w.needs.map((need) => {
    const i = left.indexOf(need);
    if (i >= 0) left.splice(i, 1);
    return { need, done: i >= 0 };
  });
  const width = Math.max(124, 30 + 17 * (needs.length + w.rewards.length));  // the title fits
  const g = svgTitled("g", { transform: `translate(${x} ${y}) scale(${WORKSHOP_SCALE})`, class: `workshop${w.done ? " done" : ""}`, "data-testid": "workshop",
    "data-place": w.place, "data-tile": w.tile, "data-done": w.done ? "true" : "false", "data-delivered": w.delivered.length },
  `Workshop in ${place(w.place)}: ${orderText(w)}${w.done ? " (fulfilled, turned over)" : ` (${w.delivered.length} of ${w.needs.length} delivered)`}`,
  el("svg:rect", { width, height: 40, rx: 5, class: "workshop-tile" }),
  el("svg:text", { x: 6, y: 12, class: "workshop-title", text: `Workshop ${place(w.place)}${w.done ? " ✓" : ""}` }));
  needs.forEach(({ need, done }, i) => g.append(itemShape(need, { transform: `translate(${13 + 17 * i} 27)`,
    class: done ? "need delivered" : "need open", "data-testid": "need", "data-item": need, "data-delivered": done ? "true" : "false" })));
  g.append(el("svg:text", { x: 13 + 17 * needs.length - 3, y: 31, class: "arrow", text: "→" }));
  w.rewards.forEach((r, i) => g.append(rewardIcon(r, { transform: `translate(${26 + 17 * (needs.length + i)} 27)`, "data-reward": r })));
  svg.append(g);
}

function builders(view, ctx, svg) {
  const at = {};
  for (const p of view.seats) (at[p.builder] = at[p.builder] || []).push(p.seat);
  for (const [where, seats] of Object.entries(at)) {
    const [x, y] = PLACE_XY[where] || [20, 20];
    seats.forEach((seat, k) => {
      const dx = (k - (seats.length - 1) / 2) * 15;
      svg.append(svgTitled("g", { transform: `translate(${x + dx} ${y + 26}) scale(1.5)`, class: `builder-piece seat-${seat}`,
        "data-testid": "builder", "data-seat": seat, "data-place": where }, `${ctx.name(seat)}'s Master Builder in ${place(where)}`,
      builderShape()));
    });
  }
}

export function drawMap(view, ctx) {
  const svg = el("svg:svg", { id: "cathedral-map", "data-testid": "map", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": "map of the Loire valley around Orléans" });
  view.board.routes.forEach((route) => routeLine(route, view, ctx, svg));
  for (const id of view.board.places) {
    const [x, y] = PLACE_XY[id] || [20, 20];
    const workshopHere = (view.board.workshop_places || []).includes(id);
    svg.append(el("svg:g", { class: `place ${id}${id === view.board.start ? " start" : ""}`, "data-testid": "place", "data-place": id },
      el("svg:circle", { cx: x, cy: y, r: id === view.board.start ? 16 : 11 }),
      workshopHere ? el("svg:text", { x, y: y + 4, class: "workshop-mark", text: "⚒" }) : null,
      el("svg:text", { x, y: y - 17, class: "place-name", text: place(id) })));
  }
  (view.workshops || []).forEach((w) => workshop(w, svg));
  builders(view, ctx, svg);
  return svg;
}

// ---- the Cathedral: sections 1-4 the base, 5-7 above, 8 the roof -----------------------------

const SECTION_BOXES = [[0, 60], [30, 60], [60, 60], [90, 60], [15, 30], [45, 30], [75, 30]];

export function drawCathedral(view, ctx) {
  const built = view.sections.built;
  const needed = view.sections.needed || ctx.reference.sections || 8;
  const svg = el("svg:svg", { class: "cathedral", "data-testid": "cathedral", viewBox: "-4 -4 128 96", role: "img",
    "aria-label": `the Cathedral: ${built} of ${needed} sections built` });
  for (let n = 1; n <= needed; n++) {
    const done = n <= built;
    const attrs = { class: `section${done ? " built" : ""}`, "data-testid": "section", "data-section": n, "data-built": done ? "true" : "false" };
    const [x, y] = SECTION_BOXES[n - 1] || [0, 0];
    const shape = n === needed ? el("svg:path", { d: "M15 30L60 0L105 30Z" }) : el("svg:rect", { x, y, width: 28, height: 28, rx: 2 });
    const [tx, ty] = n === needed ? [60, 24] : [x + 14, y + 19];
    svg.append(svgTitled("g", attrs, `section ${n}${n === needed ? " (the roof)" : ""}: ${done ? "built" : "not built yet"}`,
      shape, el("svg:text", { x: tx, y: ty, text: n })));
  }
  return svg;
}
