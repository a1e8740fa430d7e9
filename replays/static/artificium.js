// The Artificium renderer (contract in renderers.js), from GET /states/{version}
// (domain/artificium/game.py view()): the turn track and current step, the score board with its
// bonus spaces, the market, the bank and piles, and each seat's resource board, hand and cards.
//
// Hands: a view carries `hand` only for the seat whose token asked (never for a spectator); every
// other hand is drawn as that many card backs. A sealed card is a back until the reveal.

import { el, listing, svgTitled } from "./dom.js";
import { RESOURCE_SHORT, card, effectText, phaseName, turnName } from "./artificium-words.js";
import { legendEntry } from "./panels.js";

export { describe } from "./artificium-words.js";
export const name = "Artificium";
export const stylesheet = "artificium.css";

export function headline(view, ctx) {
  const step = ["commit", "resolve"].includes(view.phase) && view.step ? ` · step ${view.step}` : "";
  return [["turn", `${turnName(ctx, view.turn || 1)} of ${turnName(ctx, view.turns)}`, "turn"],
    ["phase", `${phaseName(view.phase)}${step}`, "phase"],
    ["first player", ctx.name(view.first_player), "first-player"]];
}

export function draw(root, view, ctx) {
  root.replaceChildren(el("div", { class: "artificium" },
    el("div", { class: "a-shared" },
      scoreBoard(view, ctx),
      el("h3", { text: "Market" }), market(view, ctx),
      piles(view, ctx),
      el("h3", { text: (view.reconstructed || []).includes("prices") ? "Bank prices (reconstructed)" : "Bank prices" }),
      prices(view, ctx)),
    el("div", { class: "a-seats" }, ...view.seats.map((p) => seat(p, view, ctx)))));
}

// ---- cards and resources --------------------------------------------------------------------

const resourceChip = (r, text = RESOURCE_SHORT[r] || r) => el("span", { class: `res r-${r}`, title: r, "data-resource": r, text });

export function cardFace(id, ctx, extra = {}) {
  const spec = ctx.reference.cards?.[id] || {};
  const cost = [...(spec.takes || []).map((r) => resourceChip(r)), spec.coins ? el("span", { class: "coin", text: `${spec.coins}¢` }) : null];
  return el("div", { class: `card kind-${spec.kind || "unknown"}`, "data-card": id, title: card(ctx, id), ...extra },
    spec.vp ? el("span", { class: "vp", text: `${spec.vp} VP` }) : null,  // floats right: a long name wraps below it
    el("div", { class: "card-name", text: card(ctx, id) }),
    el("div", { class: "effect" }, ...cost, cost.some(Boolean) ? " → " : "", ...(spec.gives || []).map((r) => resourceChip(r)),
      spec.effect && spec.effect !== "produce" ? el("span", { class: "special", text: effectText(ctx, spec.effect) }) : ""));
}

const cardBack = (extra = {}) => el("div", { class: "card back", "aria-label": "a hidden card", ...extra }, el("span", { text: "✦" }));

function market(view, ctx) {
  const cards = view.market || [];
  return el("div", { class: "cards market", "data-testid": "market" },
    ...(cards.length ? cards.map((id) => cardFace(id, ctx, { "data-testid": "market-card" }))
      : [el("span", { class: "empty", text: "empty (the market is dealt at the start of each turn)" })]));
}

function piles(view, ctx) {
  const top = (view.discard || []).length ? ` (last: ${card(ctx, view.discard[view.discard.length - 1])})` : "";
  return el("p", { class: "piles", "data-testid": "piles" },
    el("span", {}, "draw pile ", el("b", { "data-testid": "deck-count", text: view.deck_count })),
    " · ", el("span", {}, "discard pile ", el("b", { "data-testid": "discard-count", text: (view.discard || []).length }), top),
    " · ", el("span", { title: view.bank_limit ? `tokens left in the bank (the box holds ${view.bank_limit})` : "tokens left in the bank; below zero, stand-in tokens are in use" }, "bank ",
      el("b", { "data-testid": "bank", text: view.bank })),
    view.resolving?.length ? ` · resolving next: ${listing(view.resolving.map(ctx.name))}` : "");
}

function prices(view) {
  const rows = Object.entries(view.prices || {}).sort(([, a], [, b]) => a.level - b.level);
  return el("table", { class: "prices", "data-testid": "prices" },
    el("tr", {}, el("th", { text: "" }), ...rows.map(([r]) => el("th", {}, resourceChip(r)))),
    el("tr", {}, el("th", { text: "level" }), ...rows.map(([, p]) => el("td", { text: "I II III IV".split(" ")[p.level - 1] || p.level }))),
    el("tr", {}, el("th", { text: "buy" }), ...rows.map(([, p]) => el("td", { class: "buy", text: p.buy }))),
    el("tr", {}, el("th", { text: "sell" }), ...rows.map(([, p]) => el("td", { class: "sell", text: p.sell }))));
}

// ---- the score board: a ring of spaces, bonus spaces in their resource's colour ------------

function ringPosition(i, width, height) {
  if (i < width) return [i, 0];
  if (i < width + height - 1) return [width - 1, i - width + 1];
  if (i < 2 * width + height - 2) return [width - 1 - (i - (width + height - 2)), height - 1];
  return [0, height - 1 - (i - (2 * width + height - 3))];
}

function scoreBoard(view, ctx) {
  const length = view.score_board?.length || 100;
  const bonus = view.score_board?.bonus_spaces || {};
  const width = Math.round(length * 0.3) + 1;
  const height = Math.ceil(length / 2) - width + 2;
  const s = 20;
  const svg = el("svg:svg", { class: "score-board", "data-testid": "score-board", viewBox: `0 0 ${width * s} ${height * s}`,
    role: "img", "aria-label": "score board" });
  const centre = {};
  for (let i = 0; i < length; i++) {
    const [x, y] = ringPosition(i, width, height).map((v) => v * s);
    centre[i] = [x + s / 2, y + s / 2];
    const r = bonus[String(i)];
    svg.append(svgTitled("g", { transform: `translate(${x} ${y})`, class: r ? `space bonus r-${r}` : "space",
      "data-testid": "score-space", "data-space": i, "data-bonus": r || null }, r ? `space ${i}: bonus ${r}` : `space ${i}`,
    el("svg:rect", { width: s - 1, height: s - 1, rx: 2 }),
    el("svg:text", { x: s / 2, y: s / 2 + 3, text: r ? RESOURCE_SHORT[r] || r : i % 5 === 0 ? i : "" })));
  }
  svg.append(turnTrack(view, ctx, width * s / 2, height * s / 2));
  const stacked = {};
  for (const p of view.seats) {
    const k = (stacked[p.space] = (stacked[p.space] || 0) + 1) - 1;
    const [cx, cy] = centre[p.space] || [0, 0];
    svg.append(svgTitled("circle", { cx: cx + (k % 3 - 1) * 5, cy: cy + (Math.floor(k / 3) ? 5 : -4), r: 4.5,
      class: `score-marker seat-${p.seat}`, "data-testid": "score-marker", "data-seat": p.seat, "data-space": p.space },
    `${ctx.name(p.seat)}: ${p.vp} VP`));
  }
  return svg;
}

function turnTrack(view, ctx, cx, cy) {
  const spaces = ctx.reference.turn_spaces || ["I", "II", "III", "IV"];
  const g = el("svg:g", { class: "turn-track", "data-testid": "turn-track" },
    el("svg:text", { x: cx, y: cy - 36, class: "board-title", text: "Artificium" }));
  spaces.forEach((label, i) => {
    const current = view.turn === i + 1;
    g.append(svgTitled("g", { transform: `translate(${cx - spaces.length * 22 + i * 44} ${cy - 18})`,
      class: current ? "turn current" : "turn", "data-turn": i + 1 }, `turn ${label}${current ? " (now)" : ""}`,
    el("svg:rect", { width: 40, height: 28, rx: 4 }), el("svg:text", { x: 20, y: 19, text: label })));
  });
  g.append(el("svg:text", { x: cx, y: cy + 30, class: "step-line", "data-testid": "current-step",
    text: `${phaseName(view.phase)}${view.step && ["commit", "resolve"].includes(view.phase) ? ` · step ${view.step}` : ""}` }));
  return g;
}

// ---- one seat ---------------------------------------------------------------------------------

function resourceBoard(p, view) {
  const levels = {};
  for (const [r, price] of Object.entries(view.prices || {})) (levels[price.level] = levels[price.level] || []).push(r);
  return el("div", { class: "resources", "data-testid": "resources" }, ...Object.keys(levels).sort().map((level) =>
    el("span", { class: "tier" }, el("i", { text: "I II III IV".split(" ")[level - 1] || level }),
      ...levels[level].map((r) => el("span", { class: `stock${p.resources[r] ? "" : " none"}`, "data-testid": "stock", "data-resource": r },
        resourceChip(r), el("b", { "data-testid": "resource-count", text: p.resources[r] ?? 0 }))))));
}

function hand(p, ctx) {
  if (Array.isArray(p.hand)) {
    return el("div", { class: "cards hand", "data-testid": "hand", "data-visible": "true" },
      ...p.hand.map((id) => cardFace(id, ctx, { "data-testid": "hand-card" })), p.hand.length ? null : "no cards");
  }
  const backs = [];
  for (let i = 0; i < p.hand_count; i++) backs.push(cardBack({ "data-testid": "hand-back" }));
  return el("div", { class: "cards hand", "data-testid": "hand", "data-visible": "false" }, ...backs,
    p.hand_count ? null : "no cards");
}

function table(p, ctx) {
  const sealed = p.committed ? (p.committed_card ? cardFace(p.committed_card, ctx, { "data-testid": "committed-card", class: "card sealed" })
    : cardBack({ "data-testid": "committed-back" })) : null;
  return el("div", { class: "cards played", "data-testid": "played" },
    sealed ? el("span", { class: "label", text: "face down:" }) : null, sealed,
    p.revealed ? el("span", { class: "label", text: "revealed:" }) : null,
    p.revealed ? cardFace(p.revealed, ctx, { "data-testid": "revealed-card" }) : null,
    (p.played || []).length ? el("span", { class: "label", text: "played this turn:" }) : null,
    ...(p.played || []).map((id) => cardFace(id, ctx, { "data-testid": "played-card" })));
}

function seat(p, view, ctx) {
  const acting = ctx.toAct.has(p.seat);
  const marks = [view.first_player === p.seat ? "first player" : "", acting ? "to act" : "", p.passed ? "passed" : "",
    p.market_passed && view.phase === "market" ? "done at the market" : "", p.finished ? "turn ended" : ""].filter(Boolean);
  return el("div", { class: `a-seat seat-${p.seat}${acting ? " to-act" : ""}`, "data-testid": "seat", "data-seat": p.seat,
    "data-to-act": acting ? "true" : "false" },
  el("h3", {}, el("span", { class: `seat-dot seat-${p.seat}` }), ` ${ctx.name(p.seat)}${p.seat === ctx.you ? " (you)" : ""}`,
    marks.length ? el("span", { class: "badges", text: ` — ${marks.join(", ")}` }) : null),
  el("div", { class: "stats" },
    el("span", {}, "VP ", el("b", { "data-testid": "vp", text: p.vp })),
    el("span", {}, "coins ", el("b", { "data-testid": "coins", text: p.coins })),
    el("span", { title: "VP plus 1 per 4 coins after selling everything" }, "if it ended now ",
      el("b", { "data-testid": "projected", text: p.projected_score })),
    el("span", {}, "cards ", el("b", { "data-testid": "hand-count", text: p.hand_count })),
    el("span", {}, "knights ", el("b", { text: p.knights })),
    el("span", {}, "wizards ", el("b", { text: p.wizards }))),
  resourceBoard(p, view),
  hand(p, ctx),
  table(p, ctx));
}

// ---- legend and result ------------------------------------------------------------------------

export function legend(ctx) {
  const resources = (ctx.reference.resources || []).map((r) => el("span", { class: "legend-entry", "data-legend": `resource-${r.id}` },
    resourceChip(r.id), ` ${r.id} (level ${r.level})`));
  return [
    el("span", { class: "legend-entry", "data-legend": "building" }, el("span", { class: "card mini kind-building" }), " Building card (VP when played)"),
    el("span", { class: "legend-entry", "data-legend": "action" }, el("span", { class: "card mini kind-action" }), " Action card (no VP)"),
    el("span", { class: "legend-entry", "data-legend": "hidden" }, el("span", { class: "card mini back" }), " a card you may not see"),
    legendEntry(el("svg:circle", { r: 6, class: "score-marker seat-0" }), "score marker", "score-marker"),
    legendEntry(el("svg:rect", { x: -9, y: -9, width: 18, height: 18, rx: 2, class: "bonus-icon" }),
      "bonus space: reaching or passing it pays that resource", "bonus"),
    ...resources,
    ...((ctx.reference.reconstructed || []).length ? [el("span", { class: "legend-entry note", "data-legend": "reconstruction" },
      "Prices, levels, bonus spaces and the bank's limit are the project's reconstruction (docs/artificium-data.md).")] : []),
  ];
}

export function resultDetails(result, ctx) {
  const notes = [`Final score: VP plus 1 VP for every ${ctx.reference.coins_per_vp || 4} coins, after every resource is sold to the bank.`,
    "There is no tie-break: tied players share the place."];
  if ((result.winners || []).length > 1) notes.push(`${listing(result.winners.map(ctx.name))} share the win.`);
  return {
    parts: [["vp", "VP"], ["coins", "Coins", "coins after selling everything"],
      ["coin_points", "Coin VP", `1 VP per ${ctx.reference.coins_per_vp || 4} coins`]],
    tieBreak: null,
    notes,
  };
}
