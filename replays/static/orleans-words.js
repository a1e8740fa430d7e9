// Orléans in words: the names of towns, characters, places and events, and the log's phrases
// for each event of domain/orleans (describe). Names of places and deeds come from the
// game's reference data (GET /api/v1/reference/orleans); towns are named with the map's drawing.

import { article, counted, listing, plural, title, words } from "./dom.js";
import { describer } from "./log.js";

export const TOWN_LABEL = {
  orleans: "Orléans", chartres: "Chartres", etampes: "Étampes", le_mans: "Le Mans",
  chateaudun: "Châteaudun", vendome: "Vendôme", blois: "Blois", montargis: "Montargis",
  briare: "Briare", tours: "Tours", chinon: "Chinon", montrichard: "Montrichard",
  vierzon: "Vierzon", loches: "Loches", bourges: "Bourges", sancerre: "Sancerre",
  chatellerault: "Châtellerault", le_blanc: "Le Blanc", chateauroux: "Châteauroux",
  nevers: "Nevers", argenton_sur_creuse: "Argenton-sur-Creuse", la_chatre: "La Châtre",
  saint_amand_montrond: "Saint-Amand-Montrond",
};
export const CHARACTERS = ["farmer", "boatman", "craftsman", "trader", "knight", "scholar", "monk"];
export const CHAR_LETTER = { farmer: "F", boatman: "B", craftsman: "C", trader: "T", knight: "K", scholar: "S", monk: "M", any: "·" };
export const GOODS = ["grain", "cheese", "wine", "wool", "brocade"];
export const GOOD_LETTER = { grain: "G", cheese: "C", wine: "W", wool: "Wo", brocade: "B" };
export const EVENT_SHORT = { pilgrimage: "Pil", income: "Inc", harvest: "Hrv", taxes: "Tax", trading_day: "Trd", plague: "Plg" };

export const town = (id) => TOWN_LABEL[id] || title(id);
export const character = (tile) => String(tile || "").replace("start_", "");
export const place = (ctx, id) => ctx.reference.places?.[id]?.name || title(id);
export const deed = (ctx, id) => ctx.reference.deeds?.[id] || title(id);
export const eventName = (tile) => (tile ? `${title(tile.event)}${tile.level ? ` ${tile.level}` : ""}` : "–");
export const phaseName = (phase) => ({ start_player: "passing the start player", hourglass: "hour glass",
  followers: "drawing followers", actions: "actions", planning: "planning", census: "census",
  event: "event", exclusion: "excluding place tiles", finished: "finished" }[phase] || words(phase));

const followers = (tiles) => counted(tiles.map(character));
const ITEM = { good: "a good", development: "a development step", place_tile: "a place tile",
  technology: "a technology tile", station: "a trading station", follower: "a follower" };

// Where coins came from: an event, a place, a deed or a track (CoinsChanged.reason).
function reason(ctx, why) {
  if (!why) return "";
  if (ctx.reference.places?.[why]) return ` at the ${place(ctx, why)}`;
  if (ctx.reference.deeds?.[why]) return ` for ${deed(ctx, why)}`;
  const tracks = { development: "the development track", boatmen: "the boatmen track" };
  return tracks[why] ? ` from ${tracks[why]}` : ` (${words(why)})`;
}

function citizenSource(ctx, source) {
  if (source.startsWith("development")) return "on the development track";
  const named = { knights: "on the knights track", boatmen: "on the boatmen track",
    most_stations: "for the most trading stations" };
  return named[source] || (ctx.reference.deeds?.[source] ? `for ${deed(ctx, source)}` : `(${words(source)})`);
}

// The phases that no other event announces; the hour glass, event, start player and end have theirs.
const PHASE_LINES = {
  exclusion: () => "Each player takes place tiles out of the game.",
  census: () => "Census.",
  followers: () => "Everyone draws followers from the bag.",
  planning: () => "Planning: everyone places followers, hidden from the others.",
  actions: (d, ctx) => (d.turn === null || d.turn === undefined ? "Actions." : `Actions, starting with ${ctx.name(d.turn)}.`),
};

// Each returns {seat, text} (text: what the seat does) or a sentence {seat: null, text}.
const PHRASES = {
  GameStarted: (d) => `The game is set up for ${d.config.players} players (${d.config.edition} edition).`,
  PhaseBegan: (d, ctx) => PHASE_LINES[d.phase]?.(d, ctx) ?? null,
  PlaceTileExcluded: (d, ctx) => [d.seat, `takes the ${place(ctx, d.tile)} out of the game`],
  HourglassRevealed: (d) => `Round ${d.round} begins; the hour glass shows ${eventName(d.tile)}.`,
  CoinsChanged: (d, ctx) => [d.seat, d.amount >= 0 ? `receives ${plural(d.amount, "coin")}${reason(ctx, d.reason)}`
    : `pays ${plural(-d.amount, "coin")}${reason(ctx, d.reason)}`],
  DueAssigned: (d) => [d.seat, d.kind === "torture" ? `is ${d.amount} short for the ${words(d.reason)} and faces torture`
    : `owes ${d.amount} food for the ${words(d.reason)}`],
  FollowerRecalled: (d, ctx) => [d.seat, `takes ${article(character(d.tile))} back from the ${place(ctx, d.place)}`],
  FollowersDrawn: (d) => [d.seat, d.tiles.length ? `draws ${plural(d.tiles.length, "follower")} (${followers(d.tiles)})`
    : "draws no followers"],
  ExclusionSkipped: (d) => [d.seat, "keeps every place tile in the game"],
  TowerLoadingBegan: (d) => [d.seat, "may load the Gunpowder Tower"],
  TowerUnloaded: (d) => [d.seat, `puts ${article(character(d.tile))} from the Gunpowder Tower back on the market`],
  TowerLoaded: (d) => [d.seat, `puts ${article(character(d.tile))} on the Gunpowder Tower`],
  TowerLoadingEnded: (d) => [d.seat, "is done loading the Gunpowder Tower"],
  // Another seat's placement, take-back or tower move while plans are sealed (D10): all alike.
  SealedPlanning: (d) => [d.seat, "changes their plan (hidden until the plans are revealed)"],
  FollowerPlaced: (d, ctx) => [d.seat, `plans ${article(character(d.tile))}${d.from_tower ? " from the Gunpowder Tower" : ""} on the ${place(ctx, d.place)}`],
  FollowerTakenBack: (d, ctx) => [d.seat,
    `takes ${article(character(d.tile))} back from the plan for the ${place(ctx, d.place)}`],
  MovedToTower: (d) => [d.seat, `moves ${article(character(d.tile))} to the tower`],
  PlanningFinished: (d) => [d.seat, "finishes planning"],
  PlansRevealed: (d) => `The plans are revealed (${plural(d.placements.length, "follower")} placed).`,
  ActionTaken: (d, ctx) => [d.seat, `uses the ${place(ctx, d.place)}`],
  CharacterRecruited: (d) => [d.seat, `recruits ${article(d.char)}`],
  GoodTaken: (d) => [d.seat, d.connection ? `takes ${article(d.good)} from the road` : `takes ${article(d.good)}`],
  DevelopmentMoved: (d) => [d.seat, `moves to space ${d.to} of the development track`],
  CitizenTaken: (d, ctx) => [d.seat, `gains a citizen ${citizenSource(ctx, d.source)}`],
  TechnologyGained: (d) => [d.seat, d.farmer_only ? "gains a technology tile (for a farmer space)" : "gains a technology tile"],
  MerchantMoved: (d) => [d.seat, `travels to ${town(d.to)}`],
  StationBuilt: (d) => [d.seat, `builds a trading station in ${town(d.town)}`],
  PlaceTileTaken: (d, ctx) => [d.seat, `takes the ${place(ctx, d.tile)}`],
  SentToDeed: (d, ctx) => [d.seat, `sends ${article(character(d.tile))} to ${deed(ctx, d.deed)}`],
  BathhouseDrawn: (d) => [d.seat, `draws ${followers(d.tiles) || "nothing"} at the Bathhouse`],
  DrawnPlaced: (d, ctx) => [d.seat, `puts ${article(character(d.tile))} on the ${place(ctx, d.place)}`],
  TilesReturned: (d, ctx) => [d.seat, `returns ${followers(d.tiles)} to the bag${reason(ctx, d.source)}`],
  ChoiceOffered: () => null,
  ChoiceClosed: () => null,
  Passed: (d) => [d.seat, "passes"],
  TechnologyPlaced: (d, ctx) => [d.seat, `puts a technology tile on the ${place(ctx, d.place)}`],
  TurnMoved: () => null,
  EventResolved: (d, ctx) => `Event: ${eventName(d.tile)}${d.exempt.length
    ? ` (${listing(d.exempt.map(ctx.name))} spared by the Sacristy)` : ""}.`,
  PlagueDrawn: (d) => [d.seat, d.lost ? `loses ${article(character(d.tile))} to the plague`
    : `draws ${article(character(d.tile))} and is spared by the plague`],
  FoodPaid: (d) => [d.seat, `gives ${article(d.good)} as food`],
  ItemLost: (d, ctx) => [d.seat, `gives up ${d.tile ? article(character(d.tile)) : ITEM[d.item] || words(d.item)}${
    d.target ? ` (${place(ctx, d.target)})` : ""} under torture`],
  DueForgiven: (d) => [d.seat, `has nothing left to give; ${d.amount} is forgiven`],
  StartPlayerPassed: (d, ctx) => `${ctx.name(d.seat)} becomes start player for round ${d.round}.`,
  TimeoutApplied: (d) => [d.target, `runs out of time; the service plays ${words(d.move).toLowerCase()} for them`],
  GameEnded: (d, ctx) => `The game ends: ${listing(d.winners.map(ctx.name))} ${d.winners.length > 1 ? "win" : "wins"}.`,
};

// A future event type (the rules are growing) still gets a plain line (log.js), never a data dump.
export const describe = describer(PHRASES);
