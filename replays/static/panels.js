// The panels every game shares: the status line, who is to act, the result and the legend frame.

import { el, listing } from "./dom.js";

// items: [[label, value, testid], ...] from the renderer's headline().
export function drawHeadline(container, items) {
  container.replaceChildren(...items.flatMap(([label, value, testid], i) => [
    i ? " · " : "", `${label} `, el("b", { "data-testid": testid, text: value }),
  ]));
}

// Who may act at the shown version: several seats in simultaneous phases, the service for its
// own steps (round start, events, the end), nobody once the game is over.
export function drawToAct(container, toAct, ctx, finished) {
  const seats = [...toAct].filter((a) => typeof a === "number").sort((a, b) => a - b);
  let text;
  if (seats.length > 1) text = `${listing(seats.map(ctx.name))} (at the same time)`;
  else if (seats.length === 1) text = ctx.name(seats[0]);
  else if (toAct.has("system")) text = "the service (a system step)";
  else text = finished ? "nobody: the game is over" : "–";
  container.replaceChildren("To act: ", ...seats.flatMap((seat, i) => [
    i ? " " : "", el("span", { class: `seat-dot seat-${seat}`, "aria-hidden": "true" }),
  ]), " ", el("b", { "data-testid": "to-act", "data-seats": seats.join(","), text }));
}

// The final result: ranking with every score part, the tie-break and the renderer's notes.
export function drawResult(container, result, details, ctx) {
  if (!result) {
    container.hidden = true;
    container.replaceChildren();
    return;
  }
  const parts = details.parts;
  const tie = details.tieBreak;
  const head = el("tr", {}, el("th", { text: "#" }), el("th", { text: "Player" }), el("th", { text: "Score" }),
    ...parts.map(([, label, full]) => el("th", { text: label, title: full || label })),
    tie ? el("th", { text: tie.label, title: tie.title || tie.label }) : null);
  const rows = result.ranking.map((entry) => {
    const part = (result.parts || [])[entry.seat] || {};
    const winner = (result.winners || []).includes(entry.seat);
    return el("tr", { "data-testid": "rank", "data-seat": entry.seat, "data-rank": entry.rank, class: winner ? "winner" : null },
      el("td", { text: entry.rank }),
      el("td", { class: "player", title: ctx.name(entry.seat) }, el("span", { class: `seat-dot seat-${entry.seat}` }),
        ` ${ctx.name(entry.seat)}${winner ? " ★" : ""}`),
      el("td", { class: "num", "data-testid": "score", text: entry.score }),
      ...parts.map(([key]) => el("td", { class: "num", "data-part": key, text: part[key] ?? "–" })),
      tie ? el("td", { class: "num", "data-testid": "tie-break", text: tie.value(entry, result) ?? "–" }) : null);
  });
  container.hidden = false;
  container.replaceChildren(
    el("h2", { text: "Result" }),
    el("p", { class: "winners", "data-testid": "winners", text: details.headline || winnersLine(result, ctx) }),
    el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)),
    details.notes.length ? el("ul", { class: "notes" }, ...details.notes.map((note) => el("li", { text: note }))) : null);
}

function winnersLine(result, ctx) {
  const winners = result.winners || [];
  const best = Math.max(...result.ranking.map((entry) => entry.score));
  if (winners.length === 1) return `${ctx.name(winners[0])} wins with ${best} points.`;
  return `${listing(winners.map(ctx.name))} share the win with ${best} points.`;
}

// The legend: the seats' colours first (every game uses them), then the renderer's entries.
export function drawLegend(container, entries, ctx) {
  const seats = ctx.seats.map((s) => el("li", {}, el("span", { class: `seat-dot seat-${s.seat}` }),
    ` ${s.name}${s.kind === "bot" ? " (bot)" : ""}`));
  container.replaceChildren(
    el("h2", { text: "Legend" }),
    el("ul", { class: "legend-seats", "data-testid": "legend-seats" }, ...seats),
    el("ul", { class: "legend-items", "data-testid": "legend-items" }, ...entries.map((entry) => el("li", {}, entry))));
}

// A legend entry: a small drawing (an SVG of one piece, as the board draws it) and its meaning.
export function legendEntry(drawing, text, key) {
  return el("span", { class: "legend-entry", "data-legend": key },
    el("svg:svg", { class: "legend-icon", viewBox: "-12 -12 24 24", width: 24, height: 24, "aria-hidden": "true" }, drawing),
    ` ${text}`);
}
