// One renderer module per game, chosen by the summary's "game" field.
//
// The contract (every function is pure drawing: it reads the API's JSON, never fetches):
//
//   export const stylesheet = "orleans.css";           // optional, loaded once next to viewer.css
//   export function headline(view, ctx) -> [[label, value, testid], ...]
//                                                      // round/turn, phase, … for the status line
//   export function draw(root, view, ctx)               // replace root's children with the board
//   export function legend(ctx) -> [Node, ...]          // the legend's entries
//   export function describe(event, ctx) -> null | {seat, text}
//        // one event of GET /events in game terms. With a seat, `text` is what that seat does
//        // ("takes a wine"); the log puts the name first and joins a step's phrases of one seat
//        // ("Ann uses the Wagon, travels to Blois and takes a wine."). Without a seat, `text` is
//        // a sentence. null: nothing worth a line (bookkeeping events).
//   export function resultDetails(result, ctx) -> {parts: [[key, label, longer label?], ...],
//                                                  tieBreak: null | {label, title?, value(entry, result)},
//                                                  notes: [text, ...],
//                                                  headline?: text}   // replaces "Ann wins with 83
//                                                                     // points." (a shared win or loss)
//
// `ctx` (built by viewer.js for the shown version):
//   seats      the summary's seats ({seat, name, kind, ...}); name(seat) -> display name
//   summary    GET /api/v1/games/{id}; reference: GET /api/v1/reference/{game} ({} if none)
//   version    the shown version; history: the caller's events up to it (seq ascending)
//   toAct      Set of the seats to act at that version ("system" when the service is)
//   you        the seat whose view this is (a token was given), or null for a spectator
//
// A new game plugs in by adding its module here, exporting the functions above; the core needs
// no other change.

import { el, words } from "./dom.js";
import { plainEvent } from "./log.js";

const MODULES = {
  orleans: () => import("./orleans.js"),
  artificium: () => import("./artificium.js"),
  cathedral: () => import("./cathedral.js"),
};

export async function rendererFor(game) {
  const load = MODULES[game];
  return load ? await load() : generic(game);
}

// A game without a renderer yet: the core still steps, follows, logs and shows the result;
// the board area says plainly that it cannot draw this game.
function generic(game) {
  return {
    headline: (view) => [["phase", words(view.phase ?? "–"), "phase"]],
    draw(root) {
      root.replaceChildren(el("p", { class: "no-renderer", text: `This viewer cannot draw ${game} boards yet.` }));
    },
    legend: () => [],
    describe: plainEvent,
    resultDetails: () => ({ parts: [], tieBreak: null, notes: [] }),
  };
}
