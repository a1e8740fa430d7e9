// The tournament page: standings, ratings, each entrant's calls, and every game with a link to its
// viewer (/games/<id>); registered bots link to their record (/bots/<id>).
// Reads GET /api/v1/tournaments/<id>; polls every 2 s until the tournament is over (its seed revealed).
"use strict";

const tid = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const api = `/api/v1/tournaments/${encodeURIComponent(tid)}`;

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function fixed(x, digits) { return Number(x).toFixed(digits); }

function figure(x) { return x === null || x === undefined ? "–" : String(x); }

function note(s) {
  if (s.withdrawn === "absent" || s.absent) return "absent (forfeited or never moved)";
  if (s.withdrawn) return "withdrawn by its owner";
  const notes = [];
  if (s.ranked_by === "team") notes.push(`team ${s.team_won} won, ${s.team_lost} lost`);
  if (s.byes) notes.push(`${s.byes} bye${s.byes > 1 ? "s" : ""}`);
  return notes.join(" · ");
}

// A cooperative game (tournament rules 3): the seats of a table share one outcome, so the table
// ranks entrants by what their teams did, not by places within a game.
function drawRankedBy(t) {
  const label = document.getElementById("ranked-by");
  label.hidden = t.ranked_by !== "team";
  label.textContent = t.ranked_by === "team"
    ? "Ranked by team: every seat of a cooperative game shares its outcome. Won games count first " +
      "(points and wins), then the sections the teams built (score); a round's games are rated together."
    : "";
  document.body.dataset.rankedBy = t.ranked_by;
}

function drawStandings(t) {
  const body = document.querySelector("#standings tbody");
  body.replaceChildren();
  const bots = Object.fromEntries(t.entrants.map(e => [e.entrant, e.bot_id]));
  for (const s of t.standings) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "standing";
    tr.dataset.entrant = s.entrant;
    if (s.withdrawn || s.absent) tr.className = "withdrawn";
    cell(tr, s.place, "num");
    const name = cell(tr, "", "name");
    if (bots[s.entrant]) {
      const a = document.createElement("a");
      a.href = `/bots/${encodeURIComponent(bots[s.entrant])}`;
      a.textContent = s.name;
      a.dataset.testid = "bot-link";
      name.appendChild(a);
    } else {
      name.textContent = s.name;
    }
    cell(tr, s.kind);
    cell(tr, s.games, "num");
    cell(tr, fixed(s.points, 1), "num points");
    cell(tr, fixed(s.score, 0), "num");
    cell(tr, s.wins, "num");
    cell(tr, fixed(s.ordinal, 2), "num ordinal");
    cell(tr, fixed(s.mu, 2), "num");
    cell(tr, fixed(s.sigma, 2), "num");
    const builtin = s.kind === "builtin";  // the service's own bots make no calls
    for (const key of ["calls", "ok", "timeout", "error"]) cell(tr, builtin ? "–" : figure(s[key]), `num ${key}`);
    cell(tr, figure(s.latency_ms && s.latency_ms.p50), "num p50");
    cell(tr, figure(s.latency_ms && s.latency_ms.p95), "num p95");
    cell(tr, note(s), "note");
    body.appendChild(tr);
  }
}

function drawGames(t) {
  const body = document.querySelector("#games tbody");
  body.replaceChildren();
  for (const g of t.games) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "game";
    tr.className = g.status;
    cell(tr, g.index, "num");
    cell(tr, g.round + 1, "num");
    cell(tr, g.names.join(" · "));
    cell(tr, g.status, "status");
    const ranks = g.ranking ? g.ranking.slice().sort((a, b) => a.rank - b.rank)
      .map(r => `${r.rank}. ${g.names[r.seat]} (${r.score})`).join(", ") : "";
    cell(tr, ranks);
    const calls = (g.records || []).filter(r => r.calls > 0)
      .map(r => `${g.names[r.seat]} ${r.ok}/${r.timeout}/${r.error} · ${figure(r.latency_ms.p50)} ms`).join(", ");
    cell(tr, calls, "seat-calls");
    const td = cell(tr, "");
    if (g.viewer) {
      const a = document.createElement("a");
      a.href = g.viewer;
      a.textContent = g.game_id;
      a.dataset.testid = "viewer-link";
      td.appendChild(a);
    }
    body.appendChild(tr);
  }
}

function draw(t) {
  document.title = `${t.name || t.id} · hourglass tournament`;
  document.getElementById("title").textContent = t.name || `Tournament ${t.id}`;
  document.getElementById("meta").textContent =
    `${t.game} ${t.edition || ""} · ${t.format.replace("_", " ")} · ${t.players_per_game} players per game · ` +
    `${t.entrants.length} entrants · ${t.rounds} rounds · deadline ${t.deadline_s} s per move`;
  const status = document.getElementById("status");
  status.textContent = t.status;
  status.className = t.status;
  const done = t.games.filter(g => g.status === "finished").length;
  const cancelled = document.getElementById("cancelled");
  if (t.cancelled) {
    cancelled.textContent = `Cancelled by its organiser${t.cancelled.reason ? `: ${t.cancelled.reason}` : ""}. ` +
      "Games in play were called off; games not started were not played.";
    cancelled.hidden = false;
  }
  document.getElementById("progress").textContent = `${done} / ${t.games.length}`;
  document.getElementById("commitment").textContent = t.seed_commitment;
  if (t.seed) document.getElementById("seed").textContent = t.seed;
  if (t.merkle_root) document.getElementById("merkle").textContent = t.merkle_root;
  const pkg = document.getElementById("package");
  if (t.seed) { pkg.href = `${api}/package`; pkg.hidden = false; }
  drawRankedBy(t);
  drawStandings(t);
  drawGames(t);
  document.body.dataset.status = t.status;
  document.body.dataset.version = t.version;
  document.body.dataset.ready = "true";
}

async function refresh() {
  try {
    const response = await fetch(api, { headers: { Accept: "application/json" } });
    if (!response.ok) {
      const problem = await response.json().catch(() => ({}));
      document.getElementById("status").textContent = problem.detail || `HTTP ${response.status}`;
      document.body.dataset.ready = "true";
      return;
    }
    const t = await response.json();
    draw(t);
    if (!t.seed) setTimeout(refresh, 2000);
  } catch (err) {
    document.getElementById("status").textContent = `cannot reach the server (${err}); retrying`;
    setTimeout(refresh, 4000);
  }
}

refresh();
