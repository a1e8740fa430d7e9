// Orléans' shared boards as SVG: the map (roads, waterways, goods, trading stations, merchants),
// the hour-glass track (the round's event tiles) and the development track.
//
// Pieces are told apart by shape before colour: a trading station is a house, a merchant is a
// pawn, a good is a diamond with its letter; the seat's colour says whose a station or merchant is.

import { el, svgTitled } from "./dom.js";
import { EVENT_SHORT, GOOD_LETTER, eventName, town } from "./orleans-words.js";

// Schematic positions (longitude/latitude of the real towns, scaled into the 1060x660 box).
const TOWN_XY = {
  orleans: [600, 215], chartres: [470, 50], etampes: [678, 56], le_mans: [70, 185],
  chateaudun: [420, 164], vendome: [340, 248], blois: [420, 308], montargis: [854, 185],
  briare: [857, 293], tours: [222, 368], chinon: [82, 434], montrichard: [374, 383],
  vierzon: [650, 419], loches: [318, 446], bourges: [752, 461], sancerre: [888, 386],
  chatellerault: [178, 539], le_blanc: [337, 596], chateauroux: [532, 542], nevers: [988, 488],
  argenton_sur_creuse: [479, 608], la_chatre: [625, 611], saint_amand_montrond: [783, 569],
};

const PIECE = 1.5;  // the map is drawn at about half size on a laptop: pieces need to stay legible

// ---- the pieces (also drawn in the legend) ----------------------------------------------------

export const stationShape = (attrs = {}) => el("svg:path", { d: "M-7 6V-2L0-8L7-2V6Z", ...attrs });
export const merchantShape = (attrs = {}) => el("svg:path", { d: "M-6 8L-2.5 0A4.5 4.5 0 1 1 2.5 0L6 8Z", ...attrs });
export function goodShape(good, attrs = {}) {
  return el("svg:g", attrs, el("svg:path", { d: "M0-8L8 0L0 8L-8 0Z", class: `good g-${good}` }),
    el("svg:text", { class: "good-letter", y: 3, text: GOOD_LETTER[good] || "?" }));
}

// ---- the map --------------------------------------------------------------------------------

function connection(c, svg) {
  const [a, b] = [TOWN_XY[c.a], TOWN_XY[c.b]];
  if (!a || !b) return;
  svg.append(svgTitled("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: c.route, "data-connection": c.id },
    `${c.route === "road" ? "Road" : "Waterway"} ${town(c.a)} – ${town(c.b)}`));
  const [mx, my] = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  c.goods.forEach((good, k) => {
    const x = mx - 13 * (c.goods.length - 1) + 26 * k;
    svg.append(svgTitled("g", { transform: `translate(${x} ${my}) scale(${PIECE})`, "data-testid": "road-good", "data-shape": "diamond",
      "data-connection": c.id, "data-good": good }, `${good} on the way ${town(c.a)} – ${town(c.b)}`, goodShape(good)));
  });
}

function stations(board, ctx, svg) {
  const perTown = {};
  for (const { town: where, seat } of board.stations || []) {
    const k = (perTown[where] = (perTown[where] || 0) + 1) - 1;
    const [x, y] = TOWN_XY[where] || [20, 20];
    svg.append(svgTitled("g", { transform: `translate(${x - 22 + 22 * (k % 3)} ${y + 26 + 22 * Math.floor(k / 3)}) scale(${PIECE})`,
      class: `station seat-${seat}`, "data-testid": "station", "data-shape": "house", "data-town": where, "data-seat": seat },
    `${ctx.name(seat)}'s trading station in ${town(where)}`, stationShape()));
  }
}

function merchants(view, ctx, svg) {
  view.seats.forEach((p) => {
    const xy = TOWN_XY[p.merchant];
    if (!xy) return;
    const angle = (2 * Math.PI * p.seat) / view.seats.length - Math.PI / 2;
    const [x, y] = [xy[0] + 30 * Math.cos(angle), xy[1] + 26 * Math.sin(angle) - 4];
    svg.append(svgTitled("g", { transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${PIECE})`, class: `merchant seat-${p.seat}`,
      "data-testid": "merchant", "data-shape": "pawn", "data-town": p.merchant, "data-seat": p.seat },
    `${ctx.name(p.seat)}'s merchant in ${town(p.merchant)}`, merchantShape()));
  });
}

export function drawMap(view, ctx) {
  const svg = el("svg:svg", { id: "map", viewBox: "0 0 1060 660", role: "img", "aria-label": "map of the Orléans region" });
  (view.board.connections || []).forEach((c) => connection(c, svg));
  for (const id of view.board.towns || Object.keys(TOWN_XY)) {
    const [x, y] = TOWN_XY[id] || [20, 20];
    svg.append(el("svg:g", { class: `town ${id}`, "data-town": id },
      el("svg:circle", { cx: x, cy: y, r: id === "orleans" ? 15 : 10 }),
      el("svg:text", { x, y: y - 16, text: town(id) })));
  }
  stations(view.board, ctx, svg);
  merchants(view, ctx, svg);
  return svg;
}

// ---- the hour-glass track: one tile per round, face down until its round comes ---------------

function revealed(ctx) {
  const tiles = {};
  for (const e of ctx.history) if (e.type === "HourglassRevealed") tiles[e.data.round] = e.data.tile;
  return tiles;
}

export function drawHourglass(view, ctx) {
  const rounds = view.rounds || ctx.reference.rounds || 18;
  const stacks = ctx.reference.hourglass?.[view.edition] || [];
  const tiles = revealed(ctx);
  if (view.event && view.round) tiles[view.round] = view.event;
  const w = 36;
  const svg = el("svg:svg", { class: "hourglass-track", "data-testid": "hourglass-track", viewBox: `0 0 ${rounds * w} 44`,
    role: "img", "aria-label": "hour-glass track" });
  for (let r = 1; r <= rounds; r++) {
    const tile = r <= view.round ? tiles[r] : null;
    const state = r === view.round ? "current" : r < view.round ? "past" : "future";
    const label = tile ? `Round ${r}: ${eventName(tile)}` : `Round ${r}: face down${stacks[r - 1] ? ` (stack ${stacks[r - 1]})` : ""}`;
    svg.append(svgTitled("g", { transform: `translate(${(r - 1) * w} 0)`, class: `round ${state}`, "data-round": r,
      "data-testid": "round-tile", "data-event": tile ? tile.event : null }, label,
    el("svg:rect", { x: 1, y: 12, width: w - 2, height: 30, rx: 3, class: tile ? `tile ev-${tile.event}` : "tile face-down" }),
    el("svg:text", { x: w / 2, y: 9, class: "round-no", text: r }),
    tile ? el("svg:text", { x: w / 2, y: 27, class: "ev", text: EVENT_SHORT[tile.event] || tile.event.slice(0, 3) })
      : el("svg:path", { d: `M${w / 2 - 4} 17h8l-8 10h8z`, class: "glass" }),
    el("svg:text", { x: w / 2, y: 38, class: "lvl", text: tile ? tile.level : stacks[r - 1] || "" })));
  }
  return svg;
}

// ---- the development track: status rows, coin and citizen spaces, one marker per seat -------

function statusAt(dev, pos) {
  return (dev.status || []).filter((row) => pos >= row.from).pop()?.status ?? "";
}

export function drawDevelopment(view, ctx) {
  const dev = ctx.reference.development || { length: 30, status: [], coins: {}, citizens: [] };
  const citizens = Object.fromEntries((view.board.citizens?.development || []).map((c) => [c.position, c.seat]));
  const w = 22;
  const svg = el("svg:svg", { class: "development-track", "data-testid": "development-track",
    viewBox: `0 0 ${(dev.length + 1) * w} 74`, role: "img", "aria-label": "development track" });
  for (let pos = 0; pos <= dev.length; pos++) svg.append(devSpace(dev, pos, citizens, w));
  const stack = {};
  for (const p of view.seats) {  // up to 2 columns x 3 rows of markers above a space
    const pos = Math.min(p.development_position, dev.length);
    const k = (stack[pos] = (stack[pos] || 0) + 1) - 1;
    svg.append(svgTitled("circle", { cx: pos * w + w / 2 + (k % 2 ? 4.5 : -4.5), cy: 26 - 8 * Math.floor(k / 2), r: 4,
      class: `dev-marker seat-${p.seat}`, "data-testid": "dev-marker", "data-seat": p.seat, "data-position": p.development_position },
    `${ctx.name(p.seat)}: development ${p.development_position} (status ${p.development_status})`));
  }
  return svg;
}

function devSpace(dev, pos, citizens, w) {
  const status = statusAt(dev, pos);
  const coins = dev.coins?.[pos];
  const citizen = dev.citizens?.includes(pos);
  const starts = (dev.status || []).some((row) => row.from === pos);
  const taken = citizens[pos] !== undefined && citizens[pos] !== null;
  const notes = [`space ${pos}, status ${status}`, coins ? `${coins} coins` : "",
    citizen ? `a citizen${taken ? " (taken)" : ""}` : ""].filter(Boolean);
  return svgTitled("g", { transform: `translate(${pos * w} 0)`, class: `dev-space status-${status}`, "data-position": pos },
    notes.join(", "),
    el("svg:rect", { x: 0.5, y: 32, width: w - 1, height: 22, class: "cell" }),
    el("svg:text", { x: w / 2, y: 47, class: "pos", text: pos }),
    starts ? el("svg:text", { x: w / 2, y: 68, class: "status-mark", text: `S${status}` }) : null,
    coins ? el("svg:text", { x: w / 2, y: 68, class: "coins", text: `${coins}¢` }) : null,
    citizen ? el("svg:circle", { cx: w / 2, cy: 64, r: 5, class: taken ? `citizen seat-${citizens[pos]}` : "citizen free",
      "data-testid": "dev-citizen", "data-seat": taken ? citizens[pos] : null }) : null);
}
