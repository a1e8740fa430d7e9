// The Orléans renderer (contract in renderers.js): the map, the hour-glass and development
// tracks, the beneficial deeds, the supply and one board per seat, from GET /states/{version}
// (domain/orleans/game.py view()). Keys that a newer rules version drops are drawn as "–".

import { el, listing, plural, title, words } from "./dom.js";
import { drawDevelopment, drawHourglass, drawMap, goodShape, merchantShape, stationShape } from "./orleans-board.js";
import { CHARACTERS, CHAR_LETTER, GOODS, character, eventName, phaseName, place, town } from "./orleans-words.js";
import { legendEntry } from "./panels.js";

export { describe } from "./orleans-words.js";
export const name = "Orléans";
export const stylesheet = "orleans.css";
const TRACKS = ["farmer", "boatman", "craftsman", "trader", "knight", "scholar"];
const letter = (char) => CHAR_LETTER[character(char)] || "·";

export function headline(view) {
  return [["round", `${view.round} / ${view.rounds}`, "round"], ["phase", phaseName(view.phase), "phase"],
    ["event", eventName(view.event), "event"]];
}

export function draw(root, view, ctx) {
  root.replaceChildren(el("div", { class: "orleans" },
    el("div", { class: "o-shared" },
      drawMap(view, ctx),
      el("h3", { text: "Hour glass" }), drawHourglass(view, ctx),
      el("h3", { text: "Development track" }), drawDevelopment(view, ctx),
      el("h3", { text: "Beneficial deeds" }), deeds(view, ctx),
      supply(view, ctx)),
    el("div", { class: "o-players" }, ...view.seats.map((p) => player(p, view, ctx)))));
}

// ---- deeds and supply -----------------------------------------------------------------------

function deeds(view, ctx) {
  return el("div", { id: "deeds" }, ...(view.board.deeds || []).map((d) => el("div", { class: "deed", "data-deed": d.id },
    el("h4", { text: `${d.name} · ${plural(d.coins, "coin")}` }),
    ...d.spaces.map((space) => {
      const taken = space.seat !== null && space.seat !== undefined;
      return el("span", { class: taken ? `space filled seat-${space.seat}` : "space",
        title: taken ? `${space.needs}: ${ctx.name(space.seat)}` : `needs a ${space.needs}`,
        "data-testid": taken ? "deed-filled" : "deed-space", "data-seat": taken ? space.seat : null, text: letter(space.needs) });
    }))));
}

function supply(view, ctx) {
  const b = view.board;
  const tiles = (stack) => (b.place_tiles?.[stack] || []).map((id) => place(ctx, id)).join(", ") || "none";
  const goods = GOODS.map((g) => el("span", { class: "chip-good", "data-good": g, title: g },
    el("svg:svg", { viewBox: "-9 -9 18 18", width: 16, height: 16, "aria-hidden": "true" }, goodShape(g)), ` ${b.goods_market?.[g] ?? "–"}`));
  const chars = CHARACTERS.map((c) => `${title(c)} ${b.supply?.[c] ?? "–"}`).join(", ");
  return el("div", { id: "supply", "data-testid": "supply" },
    el("p", {}, el("b", { text: "Goods market " }), ...goods),
    el("p", {}, el("b", { text: "Characters " }), chars),
    el("p", {}, el("b", { text: "Place tiles I " }), tiles("I"), el("b", { text: " · II " }), tiles("II")),
    el("p", { text: `technology tiles ${b.technology_tiles} · coins ${b.coin_supply ?? "unlimited"} · ` +
      `hour glass tiles left ${view.hourglass_remaining}` }));
}

// ---- one seat's board -------------------------------------------------------------------------

function badges(p, view, ctx) {
  const dues = (view.dues || []).filter((d) => d.seat === p.seat).map((d) => `owes ${d.amount} (${words(d.kind)})`);
  const choice = view.choice && view.choice.seat === p.seat ? `choosing: ${words(view.choice.kind)}` : "";
  // each flag only in the phase it belongs to: "passed" stays set in the view until the next actions phase
  return [view.start_player === p.seat ? "start player" : "", ctx.toAct.has(p.seat) ? "to act" : "",
    p.passed && view.phase === "actions" ? "passed" : "", p.planning_done && view.phase === "planning" ? "planning done" : "",
    choice, ...dues,
    p.score ? `score ${p.score.total}` : ""].filter(Boolean);
}

function tracks(p, ctx) {
  return el("div", { class: "tracks" }, ...TRACKS.filter((t) => t in (p.tracks || {})).map((t) => {
    const cells = [];
    for (let i = 1; i <= (ctx.reference.tracks?.[t] || 5); i++) cells.push(el("i", { class: i <= p.tracks[t] ? "on" : null }));
    return el("span", { class: "track", "data-track": t, title: `${t}s track: ${p.tracks[t]}` },
      el("b", { text: CHAR_LETTER[t] }), ...cells);
  }));
}

function placeBox(placeView) {
  return el("div", { class: placeView.stack ? "place tile" : "place", "data-place": placeView.id,
    "data-testid": placeView.stack ? "place-tile" : "place" },
  el("b", { text: `${placeView.name} ` }),
  ...placeView.spaces.map((space) => {
    const holds = space.holds;
    return el("span", {
      class: holds === "tech" ? "space tech" : holds ? "space filled" : "space",
      title: holds ? `${holds === "tech" ? "technology tile" : words(holds)} (space for ${space.needs})` : `space for ${space.needs}`,
      "data-testid": holds === "tech" ? "tech-tile" : holds ? "placed" : null,
      text: holds === "tech" ? "⚙" : letter(holds || space.needs),
    });
  }));
}

function tilesLine(label, tiles, testid) {
  return [el("b", { text: `${label} ` }), el("span", { "data-testid": testid, text: tiles.map(character).join(", ") || "–" })];
}

function player(p, view, ctx) {
  const marks = badges(p, view, ctx);
  const acting = ctx.toAct.has(p.seat);
  const goods = GOODS.filter((g) => g in (p.goods || {})).map((g) => el("span", { class: "chip-good", "data-good": g, title: g },
    el("svg:svg", { viewBox: "-9 -9 18 18", width: 14, height: 14, "aria-hidden": "true" }, goodShape(g)), ` ${p.goods[g]}`));
  const secret = p.bag ? [el("div", { class: "secret" }, ...tilesLine("bag", p.bag, "bag-tiles"), " ",
    ...tilesLine("planned", (p.planned || []).map((x) => x.tile), "planned"))] : [];
  return el("div", { class: `player seat-${p.seat}${acting ? " to-act" : ""}`, "data-testid": "player", "data-seat": p.seat,
    "data-to-act": acting ? "true" : "false" },
  el("h3", {}, el("span", { class: `seat-dot seat-${p.seat}` }), ` ${ctx.name(p.seat)}${p.seat === ctx.you ? " (you)" : ""}`,
    marks.length ? el("span", { class: "badges", text: ` — ${marks.join(", ")}` }) : null),
  el("div", { class: "stats" },
    el("span", {}, "coins ", el("b", { "data-testid": "coins", text: p.coins })),
    el("span", {}, "development ", el("b", { "data-testid": "development", text: `${p.development_position} (status ${p.development_status})` })),
    el("span", {}, "citizens ", el("b", { "data-testid": "citizens", text: p.citizens })),
    el("span", {}, "stations ", el("b", { text: `${p.trading_stations_built} built, ${p.trading_stations_left} left` })),
    el("span", {}, "technology ", el("b", { text: p.technology_tiles })),
    el("span", {}, "bag ", el("b", { "data-testid": "bag", text: p.bag_count })),
    el("span", {}, "merchant in ", el("b", { text: town(p.merchant) }))),
  el("div", { class: "goods" }, ...goods, tracks(p, ctx)),
  el("div", { class: "tiles" }, ...tilesLine("market", p.market || [], "market"), " · ", ...tilesLine("tower", p.tower || [], "tower")),
  ...secret,
  el("div", { class: "places" }, ...(p.places || []).map(placeBox)));
}

// ---- legend and result ------------------------------------------------------------------------

export function legend() {
  const chars = CHARACTERS.map((c) => `${CHAR_LETTER[c]} ${c}`).join(", ");
  return [
    legendEntry(stationShape({ class: "seat-0" }), "trading station (house, in its owner's colour)", "station"),
    legendEntry(merchantShape({ class: "seat-0" }), "merchant (pawn, in its owner's colour)", "merchant"),
    ...GOODS.map((g) => legendEntry(goodShape(g), `good: ${g}`, `good-${g}`)),
    legendEntry(el("svg:line", { x1: -10, y1: 0, x2: 10, y2: 0, class: "road" }), "road", "road"),
    legendEntry(el("svg:line", { x1: -10, y1: 0, x2: 10, y2: 0, class: "waterway" }), "waterway", "waterway"),
    legendEntry(el("svg:circle", { r: 5, class: "dev-marker seat-0" }), "development marker", "dev-marker"),
    legendEntry(el("svg:circle", { r: 5, class: "citizen free" }), "citizen still on a track or deed", "citizen"),
    legendEntry(el("svg:rect", { x: -8, y: -8, width: 16, height: 16, rx: 2, class: "tile face-down" }),
      "hour-glass tile still face down (its stack A/B/C in the 2023 edition)", "hourglass"),
    el("span", { class: "legend-entry", "data-legend": "characters" }, `Characters: ${chars}; ⚙ technology tile`),
  ];
}

export function resultDetails(result, ctx) {
  const notes = ["Equal scores are ranked by the development track: the farther ahead places higher; " +
    "still equal players share the place."];
  const bySeat = Object.fromEntries(result.ranking.map((r) => [r.seat, r]));
  const groups = {};
  for (const r of result.ranking) (groups[r.score] = groups[r.score] || []).push(r.seat);
  for (const [score, seats] of Object.entries(groups)) {
    if (seats.length < 2) continue;
    const split = new Set(seats.map((s) => bySeat[s].development_position)).size > 1;
    notes.push(`${listing(seats.map(ctx.name))} scored ${score} each: ${split
      ? "the development track decided their order" : "the development track could not separate them"}.`);
  }
  if (result.most_stations_citizen !== null && result.most_stations_citizen !== undefined) {
    notes.push(`${ctx.name(result.most_stations_citizen)} took the citizen for the most trading stations.`);
  }
  return {
    parts: [["coins", "Coins"], ["goods", "Goods"], ["stations_and_citizens", "Stations", "(trading stations + citizens) × status"]],
    tieBreak: { label: "Dev.", title: "tie-break: position on the development track", value: (entry) => entry.development_position },
    notes,
  };
}
