// Playing in the browser, in words: a label for every move a seat may post (GET .../moves, each a
// JSON object), where on the board it can be clicked, and what a seat has done and still owes in a
// phase everyone plays at once. Names come from the games' own vocabularies (*-words.js) and the
// reference data, so the panel speaks like the log.
//
// Per game: label(move, ctx, view) -> text; target(move, ctx) -> CSS selector of the board element
// that stands for the move (or null); simultaneous(view, ctx) -> null | {done: [text], owed: [text]}.
// `view` is the seat's view at the moves' version (it may be null while it loads).

import { capital, listing, plural, words } from "./dom.js";
import * as A from "./artificium-words.js";
import * as C from "./cathedral-words.js";
import * as O from "./orleans-words.js";

// "TakeBackFollower" -> "take back follower": the fallback for a move type a table below lacks.
const typeWords = (type) => String(type).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();

function plainLabel(move) {
  const rest = Object.entries(move).filter(([k, v]) => k !== "type" && v !== null && v !== undefined)
    .map(([k, v]) => `${words(k)} ${words(String(v))}`);
  return capital(`${typeWords(move.type)}${rest.length ? ` (${rest.join(", ")})` : ""}`);
}

// ---- Orléans -----------------------------------------------------------------------------------

const O_ITEM = { good: "a good", development: "a development step", place_tile: "a place tile",
  technology: "a technology tile", station: "a trading station", follower: "a follower" };
const oChar = (tile) => O.character(tile);
const oSpace = (space) => `space ${Number(space) + 1}`;

const ORLEANS = {
  ExcludePlaceTile: (m, ctx) => `Take the ${O.place(ctx, m.tile)} out of the game`,
  SkipExclusion: () => "Keep every place tile in the game",
  RecallFollower: (m, ctx) => `Take your follower back from the ${O.place(ctx, m.place)} (${oSpace(m.space)})`,
  DrawFollowers: (m) => (m.count ? `Draw ${plural(m.count, "follower")} from the bag` : "Draw no followers"),
  LoadTower: (m) => `Put a ${oChar(m.tile)} on the Gunpowder Tower`,
  UnloadTower: (m) => `Put the ${oChar(m.tile)} from the Gunpowder Tower back on the market`,
  FinishLoading: () => "Finish loading the Gunpowder Tower",
  PlaceFollower: (m, ctx) => `Plan a ${oChar(m.tile)}${m.from_tower ? " from the Gunpowder Tower" : ""} on the ${O.place(ctx, m.place)} (${oSpace(m.space)})`,
  TakeBackFollower: (m, ctx) => `Take back the follower planned on the ${O.place(ctx, m.place)} (${oSpace(m.space)})`,
  MoveToTower: (m) => `Move a ${oChar(m.tile)} to the tower`,
  FinishPlanning: () => "Finish planning",
  TakeAction: (m, ctx) => `Use the ${O.place(ctx, m.place)}`,
  UseVillage: (m) => `Village: recruit a ${words(m.recruit)}`,
  Travel: (m, ctx) => `${O.place(ctx, m.place)}: travel to ${O.town(m.to)}`,
  UsePharmacy: (m) => `Pharmacy: pay ${plural(m.coins, "coin")} for ${plural(m.coins, "development step")}`,
  Pass: () => "Pass (no more actions this round)",
  TakeGood: (m) => (m.good ? `Take a ${m.good}` : "Take no good"),
  ChoosePlaceTile: (m, ctx) => `Take the ${O.place(ctx, m.tile)}`,
  SendToDeed: (m, ctx) => `Send a ${oChar(m.tile)} to ${O.deed(ctx, m.deed)} (${m.reward === "coin" ? "for coins" : "for development"})`,
  FinishSending: () => "Send no more followers",
  PlaceDrawn: (m, ctx) => `Put the ${oChar(m.tile)} on the ${O.place(ctx, m.place)} (${oSpace(m.space)})`,
  PlaceTechnology: (m, ctx) => `Put a technology tile on the ${O.place(ctx, m.place)} (${oSpace(m.space)})`,
  KeepTechnology: () => "Keep the technology tile for later",
  PayFood: (m) => `Give a ${m.good} as food`,
  GiveUp: (m, ctx) => `Give up ${O_ITEM[m.item] || words(m.item)}${m.target ? ` (${ctx.reference.places?.[m.target]
    ? O.place(ctx, m.target) : O.TOWN_LABEL[m.target] || words(m.target)})` : ""} under torture`,
};

const mine = (ctx) => `[data-testid=player][data-seat="${ctx.you}"]`;
const ORLEANS_TARGET = {
  TakeAction: (m, ctx) => `${mine(ctx)} [data-place="${m.place}"]`,
  PlaceFollower: (m, ctx) => `${mine(ctx)} [data-place="${m.place}"]`,
  TakeBackFollower: (m, ctx) => `${mine(ctx)} [data-place="${m.place}"]`,
  RecallFollower: (m, ctx) => `${mine(ctx)} [data-place="${m.place}"]`,
  PlaceDrawn: (m, ctx) => `${mine(ctx)} [data-place="${m.place}"]`,
  PlaceTechnology: (m, ctx) => `${mine(ctx)} [data-place="${m.place}"]`,
  Travel: (m) => `g.town[data-town="${m.to}"]`,
};

function orleansSimultaneous(view, ctx) {
  const me = view.seats?.[ctx.you];
  if (!me) return null;
  if (view.phase === "planning") {
    const planned = (me.planned || []).map((p) => `a ${oChar(p.tile)} on the ${O.place(ctx, p.place)}`);
    const tower = (me.tower_planned || []).map((t) => `a ${oChar(t)} to the tower`);
    const done = planned.length || tower.length ? [`Planned: ${listing([...planned, ...tower])}.`] : ["Nothing planned yet."];
    if (me.planning_done) done.push("You have finished planning.");
    return { done, owed: me.planning_done ? [] : ["Finish planning (the plans are revealed when everyone has)."] };
  }
  if (view.phase === "followers") {
    return { done: me.followers_drawn ? ["You have drawn your followers."] : [],
      owed: me.followers_drawn ? (me.loading_tower ? ["Load the Gunpowder Tower or finish loading."] : [])
        : ["Draw your followers."] };
  }
  return null;
}

// ---- Artificium --------------------------------------------------------------------------------

const ARTIFICIUM = {
  ExchangeCard: (m, ctx) => `Swap ${A.card(ctx, m.give)} for ${A.card(ctx, m.take)} from the market`,
  RedrawHand: () => "Discard your hand and draw a new one",
  PassMarket: () => "Done at the market",
  CommitCard: (m, ctx) => `Play ${A.card(ctx, m.card)} (face down)`,
  BuyResource: (m, ctx, view) => `Buy a ${m.resource}${view?.prices?.[m.resource] ? ` for ${plural(view.prices[m.resource].buy, "coin")}` : ""}`,
  SellResource: (m, ctx, view) => `Sell a ${m.resource}${view?.prices?.[m.resource] ? ` for ${plural(view.prices[m.resource].sell, "coin")}` : ""}`,
  ResolveCard: (m, ctx, view) => {
    const revealed = view?.seats?.[ctx.you]?.revealed;
    const what = revealed ? A.card(ctx, revealed) : "your card";
    const parts = [m.target !== null && m.target !== undefined ? `on ${ctx.name(m.target)}` : "",
      m.resource ? `taking a ${m.resource}` : "", m.card ? `taking back ${A.card(ctx, m.card)}` : ""].filter(Boolean);
    return `Carry out ${what}${parts.length ? ` ${parts.join(", ")}` : ""}`;
  },
  DeclineCard: (m, ctx, view) => {
    const revealed = view?.seats?.[ctx.you]?.revealed;
    return `Discard ${revealed ? A.card(ctx, revealed) : "your card"} unplayed and go on`;
  },
  TakeCardBack: () => "Take your card back and pass for the rest of the turn",
  DiscardFromHand: (m, ctx) => `Discard ${A.card(ctx, m.card)} from your hand`,
  FinishTurn: () => "End your turn",
};

const ARTIFICIUM_TARGET = {
  CommitCard: (m) => `[data-testid=hand-card][data-card="${m.card}"]`,
  DiscardFromHand: (m) => `[data-testid=hand-card][data-card="${m.card}"]`,
};

function artificiumSimultaneous(view, ctx) {
  const me = view.seats?.[ctx.you];
  if (!me) return null;
  if (view.phase === "commit") {
    if (me.committed) {
      return { done: [`You have put ${me.committed_card ? A.card(ctx, me.committed_card) : "a card"} face down.`],
        owed: [] };
    }
    return { done: me.passed ? ["You have passed for this turn."] : [],
      owed: me.passed ? [] : [`Choose a card to play in step ${view.step}, or pass.`] };
  }
  if (view.phase === "market" && me.market_passed) return { done: ["You are done at the market."], owed: [] };
  if (view.phase === "turn_end") {
    return { done: me.finished ? ["You have ended your turn."] : [], owed: me.finished ? [] : ["Buy or sell, then end your turn."] };
  }
  return null;
}

// ---- The Cathedral of Orléans -----------------------------------------------------------------

function spotText(ctx, view, spot) {
  const lying = view?.spots?.[spot];
  return lying ? `the ${C.item(lying)}` : "the item";
}

const putBack = (m) => (m.put_back ? `, putting ${C.one(m.put_back)} back` : "");
const CATHEDRAL = {
  DrawFollower: (m) => `Draw a follower from the ${m.bag} bag`,
  PlaceFollower: (m, ctx, view) => {
    const spec = ctx.reference.spaces?.[m.space];
    const tile = view?.drawn ? `the ${C.follower(view.drawn)}` : "the follower";
    return spec ? `Put ${tile} on the ${C.action(spec.action)} (${m.space}, ${C.areaName(spec.area)})` : `Put ${tile} on space ${m.space}`;
  },
  Travel: (m, ctx) => {
    const route = ctx.reference.routes?.[m.route] || {};
    const [a, b] = route.a ? [route.a, route.b] : String(m.route).split("-");
    return `${route.kind === "river" ? "Sail by Boat" : "Drive the Cart"} along ${C.place(a)} – ${C.place(b)}`;
  },
  TakeItem: (m, ctx, view) => `Pick up ${spotText(ctx, view, m.spot)}${putBack(m)}`,
  Deliver: (m, ctx) => `Deliver ${C.one(m.item)} to ${{ hour_glass: "the Hour Glass", workshop: "the Workshop here" }[m.to]
    || ctx.name(m.player)}`,
  MakeGlass: (m) => `Make a Glass rosette${putBack(m)}`,
  PaintGlass: () => "Paint glass: a Glass rosette for a Blueprint",
  FinishAction: () => "End the action",
  GiveRosette: (m, ctx) => (m.to === ctx.you ? `Keep the Glass rosette${putBack(m)}` : `Give the Glass rosette to ${ctx.name(m.to)}`),
  PutMonk: (m) => `Put a Monk into the ${m.bag} bag`,
  Forgo: () => "Leave the reward (your knapsack is full)",
  Rest: () => "Rest: return everything and take a Blueprint",
  EndTurn: () => "End your turn without resting",
};

const CATHEDRAL_TARGET = {
  DrawFollower: (m) => `[data-testid=bag][data-bag="${m.bag}"]`,
  PlaceFollower: (m) => `[data-testid=action-space][data-space="${m.space}"]`,
  Travel: (m) => `[data-testid=route][data-route="${m.route}"]`,
  TakeItem: (m) => `[data-spot="${m.spot}"]`,
};

// ---- the table ---------------------------------------------------------------------------------

const GAMES = {
  orleans: { labels: ORLEANS, targets: ORLEANS_TARGET, simultaneous: orleansSimultaneous },
  artificium: { labels: ARTIFICIUM, targets: ARTIFICIUM_TARGET, simultaneous: artificiumSimultaneous },
  cathedral: { labels: CATHEDRAL, targets: CATHEDRAL_TARGET, simultaneous: () => null },
};

export function moveLabel(game, move, ctx, view) {
  const say = GAMES[game]?.labels[move.type];
  try {
    return say ? say(move, ctx, view) : plainLabel(move);
  } catch {
    return plainLabel(move);  // a view still loading must never cost the player the button
  }
}

export function moveTarget(game, move, ctx) {
  const where = GAMES[game]?.targets[move.type];
  return where ? where(move, ctx) : null;
}

export function simultaneous(game, view, ctx) {
  const say = GAMES[game]?.simultaneous;
  return say && view ? say(view, ctx) : null;
}

