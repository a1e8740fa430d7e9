// The Cathedral of Orléans renderer (contract in renderers.js), from GET /states/{version}
// (domain/cathedral/game.py view()): the map with its goods, rosette, Workshops and Master
// Builders; the Cathedral's 8 sections; the Hour Glass tile, the active order and the Event and
// Blueprint stacks; the town's red and blue action areas and the Bell Tower with the tiles placed;
// the bags and the supply; and each seat's knapsack of 5 slots.
//
// Hidden piles (the three bags, the face-down Events, Hour Glass and Blueprint tiles) are drawn as
// backs with a count: a view carries nothing else about them, and neither does this page.

import { el } from "./dom.js";
import { builderShape, drawCathedral, drawMap, faceDown, followerTile, itemShape, rewardIcon } from "./cathedral-board.js";
import { ACTION_TEXT, FOLLOWERS, ITEMS, REWARDS, action, conditionText, eventText, follower, item, place, reward,
  stageName } from "./cathedral-words.js";
import { legendEntry } from "./panels.js";

export { describe } from "./cathedral-words.js";
export const name = "The Cathedral of Orléans";
export const stylesheet = "cathedral.css";

export function headline(view, ctx) {
  const over = view.stage === "finished";
  return [["round", view.round ? `${view.round} / ${view.rounds}` : "set-up", "round"],
    ["turn", over ? "–" : ctx.name(view.active), "turn"], ["step", stageName(view.stage), "stage"],
    ["Cathedral", `${view.sections.built} / ${view.sections.needed} sections`, "sections"]];
}

export function draw(root, view, ctx) {
  root.replaceChildren(el("div", { class: "cathedral-game" },
    el("div", { class: "c-shared" },
      drawMap(view, ctx),
      el("div", { class: "c-orders" },
        el("div", { class: "c-building" }, el("h3", { text: "The Cathedral" }), drawCathedral(view, ctx)),
        hourGlass(view), events(view), blueprints(view))),
    el("div", { class: "c-side" },
      town(view, ctx),
      bags(view),
      el("div", { class: "c-seats" }, ...view.seats.map((p) => seat(p, view, ctx))))));
}

// ---- small drawings in the page's text ---------------------------------------------------------

const icon = (drawing, size = 18) => el("svg:svg", { class: "icon", viewBox: "-10 -10 20 20", width: size, height: size,
  "aria-hidden": "true" }, drawing);

function orderIcons(spec, delivered = null) {
  const left = [...(delivered || [])];
  const needs = spec.needs.map((need) => {
    const i = left.indexOf(need);
    if (i >= 0) left.splice(i, 1);
    const state = delivered === null ? "" : i >= 0 ? " delivered" : " open";
    return el("span", { class: `need${state}`, "data-testid": "need", "data-item": need, title: item(need),
      "data-delivered": delivered === null ? null : i >= 0 ? "true" : "false" }, icon(itemShape(need)));
  });
  return el("span", { class: "order" }, ...needs, el("span", { class: "arrow", text: "→" }),
    ...spec.rewards.map((r) => el("span", { class: "reward", "data-reward": r, title: reward(r) }, icon(rewardIcon(r)))));
}

// ---- Hour Glass, Events, Blueprints -----------------------------------------------------------

function hourGlass(view) {
  const g = view.hour_glass;
  const tile = g ? el("div", { class: "tile hour-glass", "data-testid": "hour-glass", "data-tile": g.tile,
    title: `this round's Hour Glass order: ${g.delivered.length} of ${g.needs.length} delivered` }, orderIcons(g, g.delivered))
    : el("p", { class: "none", "data-testid": "hour-glass-none", text: "no Hour Glass order face up" });
  return el("div", { class: "c-panel" }, el("h3", { text: "Hour Glass" }), tile,
    el("p", { class: "stack" }, el("span", { class: "back", title: "face-down Hour Glass tiles still to come" },
      icon(faceDown(view.hour_glass_stack, { "data-testid": "hour-glass-stack" }), 22)), " still to come: ",
    el("b", { "data-testid": "hour-glass-stack-count", text: view.hour_glass_stack })));
}

function eventCard(spec, testid) {
  return el("div", { class: `tile event${spec.condition ? " order-event" : ""}`, "data-testid": testid, "data-tile": spec.tile,
    title: eventText(spec) }, spec.condition
    ? [el("span", { text: conditionText(spec) }), " → ", el("span", { class: "reward", title: reward("blueprint") }, icon(rewardIcon("blueprint")))]
    : [icon(rewardIcon(spec.reward)), ` ${reward(spec.reward)}`]);
}

function events(view) {
  const e = view.events;
  return el("div", { class: "c-panel" }, el("h3", { text: "Events" }),
    el("p", { class: "stack" }, icon(faceDown(e.stack, { "data-testid": "event-stack" }), 22), " face down: ",
      el("b", { "data-testid": "event-stack-count", text: e.stack })),
    el("div", { class: "label", text: "Active order" }),
    e.order ? eventCard(e.order, "active-order") : el("p", { class: "none", "data-testid": "no-order", text: "none" }),
    e.discard.length ? el("div", { class: "label", text: "Discard pile" }) : null,
    el("div", { class: "discard", "data-testid": "event-discard" }, ...e.discard.map((spec) => eventCard(spec, "discarded-event"))));
}

function blueprints(view) {
  const b = view.blueprints;
  return el("div", { class: "c-panel" }, el("h3", { text: "Blueprints" }),
    el("p", { class: "stack" }, icon(faceDown(b.face_down, { "data-testid": "blueprint-stack" }), 22), " face down: ",
      el("b", { "data-testid": "blueprint-stack-count", text: b.face_down })),
    b.turned.length ? el("p", { class: "turned", "data-testid": "blueprints-turned" }, "turned: ",
      ...b.turned.map((r) => el("span", { class: "reward", "data-reward": r, title: reward(r) }, icon(rewardIcon(r))))) : null);
}

// ---- the town: red and blue action areas and the Bell Tower ----------------------------------

function space(spec, placed, view) {
  const busy = view.pending?.space === spec.space && view.stage !== "finished";
  const accepts = spec.monk_only ? "Monk only" : spec.shows.length ? spec.shows.map(follower).join(" or ") : "any follower";
  return el("div", { class: `space${placed ? " taken" : ""}${busy ? " busy" : ""}`, "data-testid": "action-space",
    "data-space": spec.space, "data-action": spec.action, "data-follower": placed || "",
    title: `${action(spec.action)} (${spec.space}): ${accepts}. ${ACTION_TEXT[spec.action] || ""}` },
  el("span", { class: "space-name", text: action(spec.action) }),
  el("span", { class: "accepts" }, ...(spec.shows.length ? spec.shows : ["any"]).map((f) => (f === "any"
    ? el("span", { class: "any", text: "any" }) : icon(followerTile(f), 13)))),
  el("span", { class: "slot" }, placed ? icon(followerTile(placed, { "data-testid": "placed", "data-follower": placed }), 22) : null));
}

function town(view) {
  const specs = view.board.spaces;
  const area = (which, label) => el("div", { class: `area area-${which}`, "data-testid": "area", "data-area": which },
    el("h4", { text: label }), ...specs.filter((s) => s.area === which).map((s) => space(s, view.spaces[s.space], view)));
  return el("div", { class: "c-town", "data-testid": "town" }, el("h3", { text: "The town" }),
    el("div", { class: "areas" }, area("red", "Red area"), area("blue", "Blue area"), area("shared", "")),
    view.removed.length ? el("p", { class: "removed", "data-testid": "removed" }, "out of the game: ",
      ...view.removed.map((f) => icon(followerTile(f, { "data-follower": f }), 16))) : null);
}

// ---- bags and supply: counts only --------------------------------------------------------------

function bags(view) {
  const bag = (which, label) => el("span", { class: `bag bag-${which}`, "data-testid": "bag", "data-bag": which,
    title: `${label}: ${view.bags[which]} tiles (nobody may look inside)` },
  el("span", { class: "bag-shape" }), ` ${label} `, el("b", { "data-testid": "bag-count", text: view.bags[which] }));
  return el("div", { class: "c-bags", "data-testid": "bags" },
    bag("red", "red bag"), bag("blue", "blue bag"), bag("black", "black bag (goods)"),
    el("span", { class: "supply", "data-testid": "supply" }, "supply: ", icon(followerTile("monk"), 14), " ",
      el("b", { "data-testid": "supply-monks", text: view.supply.monks }), " ", icon(itemShape("rosette"), 14), " ",
      el("b", { "data-testid": "supply-rosettes", text: view.supply.rosettes })));
}

// ---- one seat: Master Builder, knapsack, and the turn in progress -----------------------------

function knapsack(p, ctx) {
  const slots = [];
  for (let i = 0; i < (ctx.reference.knapsack_slots || 5); i++) {
    const held = p.knapsack[i];
    slots.push(el("span", { class: held ? "slot full" : "slot", "data-testid": "knapsack-slot" },
      held ? icon(itemShape(held, { "data-testid": "knapsack-item", "data-item": held }), 20) : null));
  }
  return el("span", { class: "knapsack", "data-testid": "knapsack", title: `knapsack: ${p.knapsack.length} of ${slots.length}` }, ...slots);
}

function turnInProgress(view, ctx) {
  const bits = [];
  if (view.drawn) bits.push(el("span", { "data-testid": "drawn" }, "drew ", icon(followerTile(view.drawn), 16), ` ${follower(view.drawn)}`));
  const p = view.pending;
  if (p) {
    const route = p.route ? `, travelled ${p.route.split("-").map(place).join(" – ")}` : "";
    const market = p.action === "market" ? `, ${p.delivered} of ${ctx.reference.deliveries_per_market || 2} delivered` : "";
    bits.push(el("span", { "data-testid": "pending", "data-action": p.action, text: `carrying out ${action(p.action)} (${p.space})${route}${market}` }));
  }
  if (view.rewards.length) {
    bits.push(el("span", { "data-testid": "rewards-owed" }, "rewards to take: ",
      ...view.rewards.map((r) => el("span", { class: "reward", "data-reward": r, title: reward(r) }, icon(rewardIcon(r), 16)))));
  }
  return bits.length ? el("div", { class: "turn-now" }, ...bits.flatMap((b, i) => (i ? [" · ", b] : [b]))) : null;
}

function seat(p, view, ctx) {
  const acting = ctx.toAct.has(p.seat);
  const turn = view.active === p.seat && view.stage !== "finished";
  const marks = [turn ? "their turn" : "", acting ? "to act" : ""].filter(Boolean);
  return el("div", { class: `c-seat seat-${p.seat}${acting ? " to-act" : ""}`, "data-testid": "seat", "data-seat": p.seat,
    "data-to-act": acting ? "true" : "false" },
  el("h3", {}, el("span", { class: `seat-dot seat-${p.seat}` }), ` ${ctx.name(p.seat)}${p.seat === ctx.you ? " (you)" : ""}`,
    marks.length ? el("span", { class: "badges", text: ` — ${marks.join(", ")}` }) : null),
  el("div", { class: "seat-line" },
    el("span", { class: "where" }, icon(builderShape({ class: `builder seat-${p.seat}` }), 16), " in ",
      el("b", { "data-testid": "builder-place", text: place(p.builder) })),
    knapsack(p, ctx)),
  turn ? turnInProgress(view, ctx) : null);
}

// ---- legend and result ------------------------------------------------------------------------

export function legend(ctx) {
  const reconstructed = (ctx.reference.reconstructed || []).length
    ? [el("span", { class: "legend-entry note", "data-legend": "reconstruction" },
      "The map, action spaces and tiles are the project's reconstruction (docs/cathedral-data.md).")] : [];
  return [
    ...FOLLOWERS.map((f) => legendEntry(followerTile(f), `${follower(f)}${f === "monk" ? " (wild: fits any space)" : ""}`, `follower-${f}`)),
    ...ITEMS.map((i) => legendEntry(itemShape(i), item(i), `item-${i}`)),
    legendEntry(builderShape({ class: "builder seat-0" }), "Master Builder (pawn, in its player's colour)", "builder"),
    legendEntry(el("svg:line", { x1: -10, y1: 0, x2: 10, y2: 0, class: "route land" }), "land route (Cart)", "land"),
    legendEntry(el("svg:line", { x1: -10, y1: 0, x2: 10, y2: 0, class: "route river" }), "river (Boat)", "river"),
    legendEntry(el("svg:circle", { r: 5, class: "spot empty" }), "empty Goods or rosette space", "spot"),
    ...REWARDS.map((r) => legendEntry(rewardIcon(r), `reward: ${reward(r)}`, `reward-${r}`)),
    legendEntry(faceDown(""), "face-down pile: only its count is known", "face-down"),
    legendEntry(el("svg:rect", { x: -9, y: -9, width: 18, height: 18, rx: 2, class: "section built" }), "Cathedral section built", "section"),
    el("span", { class: "legend-entry", "data-legend": "workshop" }, "⚒ a Workshop: deliver there with your Master Builder on it"),
    ...reconstructed,
  ];
}

export function resultDetails(result, ctx) {
  const needed = result.sections_needed || ctx.reference.sections || 8;
  const won = result.outcome === "won";
  return {
    headline: won
      ? `Everyone wins together: the roof is on, all ${needed} sections built in round ${result.rounds_played}.`
      : `Everyone loses together: ${result.sections_built} of ${needed} sections were built when round ${result.rounds_played} ended.`,
    parts: [],
    tieBreak: null,
    notes: ["A cooperative game: every player's score is the number of sections built, and everyone shares the outcome."],
  };
}
