// The tournament page: standings, ratings and every game with a link to its viewer (/games/<id>).
// Reads GET /api/v1/tournaments/<id>; polls every 2 s while the tournament runs.
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

function drawStandings(t) {
  const body = document.querySelector("#standings tbody");
  body.replaceChildren();
  for (const s of t.standings) {
    const tr = document.createElement("tr");
    tr.dataset.testid = "standing";
    tr.dataset.entrant = s.entrant;
    cell(tr, s.place, "num");
    cell(tr, s.name, "name");
    cell(tr, s.kind);
    cell(tr, s.games, "num");
    cell(tr, fixed(s.points, 1), "num points");
    cell(tr, fixed(s.score, 0), "num");
    cell(tr, s.wins, "num");
    cell(tr, fixed(s.ordinal, 2), "num ordinal");
    cell(tr, fixed(s.mu, 2), "num");
    cell(tr, fixed(s.sigma, 2), "num");
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
  document.getElementById("progress").textContent = `${done} / ${t.games.length}`;
  document.getElementById("commitment").textContent = t.seed_commitment;
  if (t.seed) document.getElementById("seed").textContent = t.seed;
  if (t.merkle_root) document.getElementById("merkle").textContent = t.merkle_root;
  const pkg = document.getElementById("package");
  if (t.status === "finished") { pkg.href = `${api}/package`; pkg.hidden = false; }
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
    if (t.status !== "finished") setTimeout(refresh, 2000);
  } catch (err) {
    document.getElementById("status").textContent = `cannot reach the server (${err}); retrying`;
    setTimeout(refresh, 4000);
  }
}

refresh();
