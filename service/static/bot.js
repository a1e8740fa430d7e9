// A bot's public record: overall figures, its latest tournaments (linking to their pages) and its
// latest games (linking to the viewer). Reads GET /api/v1/bots/<id>/record once.
"use strict";

const botId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const api = `/api/v1/bots/${encodeURIComponent(botId)}/record`;

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function link(row, href, text, testid) {
  const td = cell(row, "");
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  a.dataset.testid = testid;
  td.appendChild(a);
  return td;
}

function figure(x) { return x === null || x === undefined ? "–" : String(x); }

function calls(row, r) {
  for (const key of ["calls", "ok", "timeout", "error"]) cell(row, figure(r[key]), `num ${key}`);
  cell(row, figure(r.latency_ms.p50), "num p50");
  cell(row, figure(r.latency_ms.p95), "num p95");
}

function draw(record) {
  const bot = record.bot;
  document.title = `${bot.name} · hourglass bot`;
  document.getElementById("title").textContent = bot.name;
  document.getElementById("meta").textContent = `${bot.kind === "http" ? "push" : "pull"} bot · registered ${bot.created}`;
  const o = record.overall;
  document.getElementById("overall").textContent =
    `${o.tournaments} tournaments · ${o.games} games · ${o.points} points · ${o.wins} wins · ${o.forfeits} forfeits · ` +
    `${o.calls} calls: ${o.ok} ok, ${o.timeout} timeouts, ${o.error} errors · latency p50 ${figure(o.latency_ms.p50)} ms, ` +
    `p95 ${figure(o.latency_ms.p95)} ms`;
  const tbody = document.querySelector("#tournaments tbody");
  tbody.replaceChildren();
  for (const t of record.tournaments) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "tournament";
    link(tr, t.page, t.name || t.tournament, "tournament-link");
    cell(tr, `${t.game} ${t.edition || ""}`);
    cell(tr, t.status, "status");
    cell(tr, `${t.place} / ${t.of}`, "num");
    cell(tr, t.games, "num");
    cell(tr, t.points, "num");
    calls(tr, t);
    cell(tr, t.withdrawn === "absent" ? "absent (forfeited)" : t.absent ? "absent (never moved)"
      : t.withdrawn ? "withdrawn by its owner" : "", "note");
    tbody.appendChild(tr);
  }
  const gbody = document.querySelector("#games tbody");
  gbody.replaceChildren();
  for (const g of record.games) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "game";
    link(tr, g.viewer, g.game_id, "viewer-link");
    link(tr, `/tournaments/${encodeURIComponent(g.tournament)}`, g.tournament, "game-tournament");
    cell(tr, g.seat, "num");
    cell(tr, `${g.rank} / ${g.of}`, "num rank");
    cell(tr, g.points, "num");
    cell(tr, figure(g.moves), "num");
    calls(tr, g);
    cell(tr, g.forfeited ? "forfeited" : "");
    gbody.appendChild(tr);
  }
  document.body.dataset.ready = "true";
}

async function load() {
  try {
    const response = await fetch(api, { headers: { Accept: "application/json" } });
    if (!response.ok) {
      const problem = await response.json().catch(() => ({}));
      document.getElementById("title").textContent = problem.detail || `HTTP ${response.status}`;
      document.body.dataset.ready = "true";
      return;
    }
    draw(await response.json());
  } catch (err) {
    document.getElementById("title").textContent = `cannot reach the server (${err})`;
    document.body.dataset.ready = "true";
  }
}

load();
