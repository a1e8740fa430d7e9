// Artificium in words: card and resource names (from GET /api/v1/reference/artificium) and the
// log's phrase for each event of domain/artificium (describe). Hidden events arrive redacted
// for the viewers who may not see them ({hidden: true}); their phrases say only what is public.

import { article, capital, listing, plural, words } from "./dom.js";
import { describer } from "./log.js";

export const ROMAN = ["", "I", "II", "III", "IV", "V", "VI"];
export const RESOURCE_SHORT = { wheat: "Wh", wood: "Wo", coal: "Co", food: "Fo", beer: "Be", metal: "Me",
  crystal: "Cr", sword: "Sw", potion: "Po" };

export const card = (ctx, id) => ctx.reference.cards?.[id]?.name || capital(words(id));
export const cards = (ctx, ids) => listing(ids.map((id) => card(ctx, id)));
export const resources = (ids) => listing(ids.map((r) => article(r)));
export const turnName = (ctx, turn) => ctx.reference.turn_spaces?.[turn - 1] || ROMAN[turn] || String(turn);
export const phaseName = (phase) => ({ start: "turn start", market: "card market", commit: "playing cards: choosing",
  resolve: "playing cards: resolving", turn_end: "turn end", finished: "finished" }[phase] || words(phase));

// What a special card does, in a few words (the numbers from the reference data).
export function effectText(ctx, effect) {
  const n = ctx.reference.effects || {};
  const theft = Object.entries(n.theft_cost_by_level || {}).map(([level, cost]) => `${ROMAN[level]} for ${cost}¢`).join(", ");
  return {
    knight: `push a marker back ${n.castle_pushback ?? "some"} spaces`,
    wizard: `draw ${n.wizard_draw ?? "some"}, discard ${n.wizard_discard ?? "some"}`,
    exploration: "take a random card from a player's hand",
    reconstruction: "take a card played this turn back",
    fair: `${n.fair_coins_per_card ?? "some"}¢ per card played this turn`,
    theft: `take a resource from a player (level ${theft || "I or II"})`,
  }[effect] || words(effect);
}

// Produced: resources (and coins) paid, resources made; Castle and Wizard's Tower make nothing.
function produced(d) {
  const paid = listing([...d.spent.map(article), d.coins ? plural(d.coins, "coin") : ""]);
  const made = resources(d.made);
  if (!paid) return `produces ${made || "nothing"}`;
  return made ? `turns ${paid} into ${made}` : `spends ${paid}`;
}

function sold(d, ctx) {
  const names = (ctx.reference.resources || []).map((r) => r.id);
  const items = (d.resources || []).flatMap((n, i) => (n ? [n === 1 ? article(names[i] || "resource") : `${n} ${names[i] || "resource"}`] : []));
  return `sells everything left (${listing(items) || "nothing"}) for ${plural(d.coins, "coin")}`;
}

const PHRASES = {
  GameStarted: (d) => `The game is set up for ${d.config.players} players: a deck of ${d.deck} cards is shuffled.`,
  TurnStarted: (d, ctx) => `Turn ${turnName(ctx, d.turn)} begins; ${ctx.name(d.first_player)} is first player.`,
  PhaseBegan: (d) => (d.phase === "market" ? "The card market opens." : d.phase === "turn_end" ? "Turn end: last sales." : null),
  DeckReshuffled: (d) => `The discard pile is shuffled into a new draw pile of ${plural(d.deck, "card")}.`,
  CardsDrawn: (d, ctx) => [d.seat, d.hidden ? `draws ${plural(d.count, "card")}` : `draws ${cards(ctx, d.cards)}`],
  MarketDealt: (d, ctx) => `The market shows ${cards(ctx, d.cards)}.`,
  MarketTurnMoved: () => null,
  CardExchanged: (d, ctx) => [d.seat, `swaps ${card(ctx, d.given)} for ${card(ctx, d.taken)} from the market`],
  HandDiscarded: (d, ctx) => [d.seat, d.redraw ? `discards the hand (${cards(ctx, d.cards)}) to draw a new one`
    : `discards the hand (${cards(ctx, d.cards)})`],
  MarketPassed: (d) => [d.seat, "is done at the market"],
  MarketClosed: (d) => (d.discarded.length ? `The market closes; ${plural(d.discarded.length, "card")} go to the discard pile.`
    : "The market closes."),
  PlayPassed: (d) => [d.seat, "passes for the rest of the turn"],
  StepBegan: (d) => `Step ${d.step}: everyone still playing chooses a card.`,
  CardCommitted: (d, ctx) => [d.seat, d.hidden ? "puts a card face down" : `puts ${card(ctx, d.card)} face down`],
  CardsRevealed: (d, ctx) => `Cards revealed: ${listing(d.order.map((seat, i) => `${ctx.name(seat)} ${card(ctx, d.cards[i])}`))}.`,
  CoinsPaid: (d) => [d.seat, `pays ${plural(d.coins, "coin")}`],
  CoinsTaken: (d) => [d.seat, `takes ${plural(d.coins, "coin")} from the bank`],
  ResourceBought: (d) => [d.seat, `buys ${article(d.resource)} for ${plural(d.price, "coin")}`],
  ResourceSold: (d) => [d.seat, `sells ${article(d.resource)} for ${plural(d.price, "coin")}`],
  CardResolved: (d, ctx) => [d.seat, `plays ${card(ctx, d.card)}`],
  Produced: (d) => [d.seat, produced(d)],
  VictoryPointsScored: (d) => [d.seat, `scores ${d.points} VP`],
  BonusCollected: (d) => [d.seat, `collects ${article(d.resource)} on bonus space ${d.space}`],
  MarkerPushedBack: (d, ctx) => [d.by, `pushes ${ctx.name(d.seat)} back ${plural(d.spaces, "space")}`],
  DiscardsOwed: (d) => [d.seat, `must discard ${plural(d.count, "card")}`],
  CardDiscarded: (d, ctx) => [d.seat, `discards ${card(ctx, d.card)}`],
  CardExplored: (d, ctx) => [d.seat, d.hidden ? `takes a card from ${ctx.name(d.target)}'s hand`
    : `takes ${card(ctx, d.card)} from ${ctx.name(d.target)}'s hand`],
  CardReturned: (d, ctx) => [d.seat, `takes ${card(ctx, d.card)} back into the hand`],
  ResourceStolen: (d, ctx) => [d.seat, `steals ${article(d.resource)} from ${ctx.name(d.target)} for ${plural(d.coins, "coin")}`],
  CardDeclined: (d, ctx) => [d.seat, `does not play ${card(ctx, d.card)} and discards it`],
  CardTakenBack: (d, ctx) => [d.seat, `takes ${card(ctx, d.card)} back and passes`],
  ResolutionEnded: () => null,
  PlayedCardsDiscarded: (d) => `The ${plural(d.cards.length, "played card")} go to the discard pile.`,
  TurnFinished: (d) => [d.seat, "ends the turn"],
  EverythingSold: (d, ctx) => [d.seat, sold(d, ctx)],
  TimeoutApplied: (d) => [d.target, `runs out of time; the service plays ${words(d.move).toLowerCase()} for them`],
  GameEnded: (d, ctx) => `The game ends: ${listing(d.winners.map(ctx.name))} ${d.winners.length > 1 ? "share the win" : "wins"}.`,
};

// A future event type (the rules are growing) still gets a plain line (log.js), never a data dump.
export const describe = describer(PHRASES);
