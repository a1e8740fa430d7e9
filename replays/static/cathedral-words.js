// The Cathedral of Orléans in words: places, followers, items, actions, orders and rewards, and
// the log's phrase for each event of domain/cathedral (describe). Printed tile contents, route
// kinds and action spaces come from GET /api/v1/reference/cathedral (built from data.py); place
// names with their accents are drawing, kept here like the Orléans module's towns.
//
// Every event is public in this game (domain/cathedral/game.py): each names only what the table
// sees as it happens, so seats and spectators read the same log.

import { article, capital, counted, listing, plural, words } from "./dom.js";
import { describer } from "./log.js";

export const PLACE_LABEL = { orleans: "Orléans", chartres: "Chartres", montargis: "Montargis", sancerre: "Sancerre",
  bourges: "Bourges", vierzon: "Vierzon", blois: "Blois", tours: "Tours" };
export const FOLLOWERS = ["knight", "fisherman", "farmer", "trader", "monk"];
export const FOLLOWER_LETTER = { knight: "K", fisherman: "Fi", farmer: "Fa", trader: "T", monk: "M" };
export const ITEMS = ["wood", "stone", "bread", "rosette"];
export const ITEM_LETTER = { wood: "W", stone: "S", bread: "B", rosette: "R" };
export const REWARDS = ["blueprint", "section", "rosette", "monk"];
export const ACTION_LABEL = { cart: "Cart", boat: "Boat", market: "Market place", glass_foundry: "Glass Foundry",
  glass_painting: "Glass Painting", festival_ground: "Festival Ground", bell_tower: "Bell Tower" };
export const ACTION_TEXT = {
  cart: "move your Master Builder along one land route; take the item on it",
  boat: "move your Master Builder along one river; take the item on it",
  market: "deliver up to 2 items to the Hour Glass, your Workshop or other players",
  glass_foundry: "Monk only: a Glass rosette from the supply",
  glass_painting: "Monk only: give up a Glass rosette for a Blueprint",
  festival_ground: "any follower; reveal the top Event (must be carried out)",
  bell_tower: "any follower; the round ends (must be carried out)",
};

export const place = (id) => PLACE_LABEL[id] || capital(words(id));
export const follower = (id) => capital(words(id));
export const item = (id) => (id === "rosette" ? "Glass rosette" : id);
export const action = (id) => ACTION_LABEL[id] || capital(words(id));
export const areaName = (area) => ({ red: "the red area", blue: "the blue area", shared: "the town" }[area] || words(area));
// Goods are counted like the rulebook counts them ("2 stone"), rosettes by name ("a Glass rosette").
export const one = (id) => (id === "rosette" ? "a Glass rosette" : `1 ${id}`);
export function items(ids) {
  const counts = new Map();
  for (const id of ids) counts.set(id, (counts.get(id) || 0) + 1);
  return listing([...counts].map(([id, n]) => (n === 1 ? one(id) : id === "rosette" ? `${n} Glass rosettes` : `${n} ${id}`))) || "nothing";
}
export const followers = (ids) => counted(ids, follower);

const REWARD_WORDS = { blueprint: "a Blueprint", section: "a Cathedral section", rosette: "a Glass rosette",
  monk: "a Monk for a bag" };
export const reward = (id) => REWARD_WORDS[id] || words(id);
export const rewards = (ids) => listing(ids.map(reward)) || "nothing";

// "2 stone and a bread → a Cathedral section": an order as printed on its tile.
export const orderText = (spec) => (spec ? `${items(spec.needs)} → ${rewards(spec.rewards)}` : "");

// An Event tile in words: what it pays now, or what its order asks.
export function eventText(spec) {
  if (!spec) return "an Event";
  if (spec.reward) return `${reward(spec.reward)} at once`;
  return `order: ${conditionText(spec)}`;
}

export function conditionText(spec) {
  return {
    builder_at: `a Master Builder in ${place(spec.place)}`,
    two_builders: "two Master Builders together at one place",
    rosettes: `one player holds ${spec.count ?? 2} or more Glass rosettes (and keeps them)`,
  }[spec.condition] || words(spec.condition);
}

export const stageName = (stage) => ({ draw: "drawing a tile", place: "placing the tile", action: "carrying out the action",
  reward: "taking rewards", turn_end: "ending the turn (may rest)", finished: "finished" }[stage] || words(stage));

const moveName = (type) => String(type).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
// The tiles of the game's own rules version (the tables were re-tuned in rules 3; a config without
// one is rules 1), from the reference's tiles_by_rules.
const rulesVersion = (ctx) => (ctx.history || []).find((e) => e.type === "GameStarted")?.data?.config?.rules_version || 1;
const tiles = (ctx, kind) => (ctx.reference.tiles_by_rules?.[rulesVersion(ctx)] || ctx.reference.tiles)?.[kind] || {};
const spaceText = (ctx, space) => {
  const spec = ctx.reference.spaces?.[space];
  return spec ? `the ${action(spec.action)} (${space}) in ${areaName(spec.area)}` : `space ${space}`;
};
const seatName = (ctx, seat, you) => (seat === you ? "their own knapsack" : ctx.name(seat));

function travelled(d, ctx) {
  const kind = ctx.reference.routes?.[d.route]?.kind;
  return `${kind === "river" ? "sails by Boat" : kind === "land" ? "drives the Cart" : "travels"} to ${place(d.to)}`;
}

function delivered(d, ctx) {
  const to = { hour_glass: "the Hour Glass tile", workshop: "the Workshop where their Master Builder stands" }[d.to];
  return `delivers ${one(d.item)} to ${to || ctx.name(d.player)}`;
}

function revealed(d, ctx) {
  const spec = tiles(ctx, "events")[d.tile];
  const replaced = d.replaced ? " (the old order goes to the discard pile)" : "";
  return `reveals an Event: ${eventText(spec)}${spec?.condition ? replaced : ""}`;
}

const ended = (d, ctx) => (d.outcome === "won"
  ? "Section 8, the roof, is in place: everyone wins together!"
  : `Round ${ctx.reference.rounds || 3} is over with ${d.sections} of ${ctx.reference.sections || 8} sections built: everyone loses together.`);

// Each returns {seat, text} (text: what the seat does) or a sentence {seat: null, text}.
const PHRASES = {
  GameStarted: (d) => `The game is set up for ${d.config.players} players (${d.config.edition} variant); every Master Builder starts in Orléans.`,
  WorkshopsLaid: (d, ctx) => `Workshops open: ${listing(d.tiles.map((t, i) => `${place((ctx.reference.workshop_places || [])[i])} (${
    orderText(tiles(ctx, "workshops")[t])})`))}.`,
  GoodsLaid: (d) => (d.goods.length ? `Goods from the black bag fill ${plural(d.goods.length, "Goods space")}: ${items(d.goods)}.`
    : "The black bag is empty: the Goods spaces stay empty."),
  RosetteLaid: () => "A Glass rosette is laid on its space between Tours and Bourges.",
  HourGlassRevealed: (d, ctx) => `A new Hour Glass order is revealed: ${orderText(tiles(ctx, "hour_glasses")[d.tile])}.`,
  GoodPacked: (d) => [d.seat, `packs ${one(d.good)} from the black bag`],
  RoundBegan: (d, ctx) => `Round ${d.round} of ${ctx.reference.rounds || 3} begins.`,
  TurnBegan: () => null,
  FollowerDrawn: (d) => [d.seat, `draws ${article(follower(d.follower))} from the ${d.bag} bag`],
  FollowerPlaced: (d, ctx) => [d.seat, `puts it on ${spaceText(ctx, d.space)}`],
  BuilderMoved: (d, ctx) => [d.seat, travelled(d, ctx)],
  ItemTaken: (d) => [d.seat, `picks up ${one(d.item)}`],
  ItemPutBack: (d) => [d.seat, d.item === "rosette" ? "puts a Glass rosette back into the supply"
    : `puts ${one(d.item)} back into the black bag`],
  Delivered: (d, ctx) => [d.seat, delivered(d, ctx)],
  WorkshopCompleted: (d) => [d.seat, `completes the Workshop order in ${place(d.place)}`],
  HourGlassCompleted: (d) => [d.seat, "completes the Hour Glass order"],
  GlassMade: (d) => [d.seat, "makes a Glass rosette at the Glass Foundry"],
  GlassPainted: (d) => [d.seat, "paints glass: a Glass rosette for a Blueprint"],
  EventRevealed: (d, ctx) => [d.seat, revealed(d, ctx)],
  OrderFulfilled: (d, ctx) => `The active order is fulfilled (${conditionText(tiles(ctx, "events")[d.tile] || {})}); ${
    ctx.name(d.seat)} takes the Blueprint.`,
  RewardsEarned: (d) => [d.seat, `earns ${rewards(d.rewards)}`],
  BlueprintTurned: (d) => [d.seat, `turns a Blueprint over: ${reward(d.blueprint)}`],
  SectionBuilt: (d) => [d.seat, d.number === 8 ? "builds section 8, the roof" : `builds section ${d.number} of the Cathedral`],
  RosetteGiven: (d, ctx) => [d.seat, d.to === d.seat ? "puts the Glass rosette into their knapsack"
    : `gives the Glass rosette to ${seatName(ctx, d.to, d.seat)}`],
  MonkAdded: (d) => [d.seat, `puts a Monk from the supply into the ${d.bag} bag`],
  RewardForgone: (d) => [d.seat, `leaves ${reward(d.reward)} (the knapsack is full)`],
  RewardLost: (d) => `None left in the supply: ${reward(d.reward)} is lost.`,
  Rested: (d) => [d.seat, `rests: returns ${items(d.returned)} and gains a Blueprint`],
  ActionFinished: (d) => [d.seat, "ends the action"],
  RoundEnded: (d) => [d.seat, `rings the Bell Tower: round ${d.round} ends`],
  FollowerRemoved: (d) => `The ${follower(d.follower)} on the Bell Tower leaves the game.`,
  FollowersReturned: (d) => `The town empties: ${d.red.length ? `${followers(d.red)} into the red bag` : "nothing into the red bag"}, ${
    d.blue.length ? `${followers(d.blue)} into the blue bag` : "nothing into the blue bag"}.`,
  HourGlassExpired: (d) => `The Hour Glass order was not met and leaves the game${d.returned.length
    ? `; what was delivered (${items(d.returned)}) goes back` : ""}.`,
  TimeoutApplied: (d) => [d.target, `runs out of time; the service plays ${moveName(d.move)} for them`],
  GameEnded: (d, ctx) => ended(d, ctx),
};

// A future event type (the rules are growing) still gets a plain line (log.js), never a data dump.
export const describe = describer(PHRASES);
