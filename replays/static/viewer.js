// hourglass replay viewer: plain JS + SVG, no build step.
// Data: GET /api/v1/games/{id} (seat names), /timeline (versions after each batch),
// /states/{version} (the spectator view), and the SSE stream for live games.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
// Schematic positions (longitude/latitude of the real towns, scaled into the 1060x660 box).
const TOWN_XY = {
  orleans: [600, 215], chartres: [470, 50], etampes: [678, 56], le_mans: [70, 185],
  chateaudun: [420, 164], vendome: [340, 248], blois: [420, 308], montargis: [854, 185],
  briare: [857, 293], tours: [222, 368], chinon: [82, 434], montrichard: [374, 383],
  vierzon: [650, 419], loches: [318, 446], bourges: [752, 461], sancerre: [888, 386],
  chatellerault: [178, 539], le_blanc: [337, 596], chateauroux: [532, 542], nevers: [988, 488],
  argenton_sur_creuse: [479, 608], la_chatre: [625, 611], saint_amand_montrond: [783, 569],
};
const TOWN_LABEL = {
  orleans: "Orléans", chartres: "Chartres", etampes: "Étampes", le_mans: "Le Mans",
  chateaudun: "Châteaudun", vendome: "Vendôme", blois: "Blois", montargis: "Montargis",
  briare: "Briare", tours: "Tours", chinon: "Chinon", montrichard: "Montrichard",
  vierzon: "Vierzon", loches: "Loches", bourges: "Bourges", sancerre: "Sancerre",
  chatellerault: "Châtellerault", le_blanc: "Le Blanc", chateauroux: "Châteauroux",
  nevers: "Nevers", argenton_sur_creuse: "Argenton-sur-Creuse", la_chatre: "La Châtre",
  saint_amand_montrond: "Saint-Amand-Montrond",
};
const GOOD_ORDER = ["grain", "cheese", "wine", "wool", "brocade"];
const TRACK_ORDER = ["farmer", "boatman", "craftsman", "trader", "knight", "scholar"];
const TRACK_LENGTH = { farmer: 8, boatman: 5, craftsman: 5, trader: 5, knight: 5, scholar: 5 };
const CHAR_LETTER = { farmer: "F", boatman: "B", craftsman: "C", trader: "T", knight: "K", scholar: "S", monk: "M", any: "*" };

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const api = `/api/v1/games/${encodeURIComponent(gameId)}`;
const ui = {};
const model = { seats: [], steps: [], index: 0, status: "", view: null, shownVersion: null, loading: 0 };

function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.detail || `${url}: HTTP ${response.status}`);
  return body;
}

function showError(error) {
  ui.error.hidden = !error;
  ui.error.textContent = error ? String(error.message || error) : "";
}

// ---- reading the view (GET /states/{version} -> {view}; see domain/orleans/game.py view()) --------

const seatName = (seat) => (model.seats[seat] || {}).name || `Seat ${seat}`;
const eventText = (event) => (event ? [event.event.replace("_", " "), event.level].filter(Boolean).join(" ") : "–");
const letter = (char) => CHAR_LETTER[String(char || "").replace("start_", "")] || "·";

// ---- map -----------------------------------------------------------------------------------------

function drawConnection(svg, c) {
  const [a, b] = [TOWN_XY[c.a], TOWN_XY[c.b]];
  if (!a || !b) return;
  svg.append(el("svg:line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: c.route, "data-connection": c.id },
    el("svg:title", { text: `${c.id}: ${c.route} ${TOWN_LABEL[c.a]} – ${TOWN_LABEL[c.b]}` })));
  const [mx, my] = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  c.goods.forEach((good, k) => {
    svg.append(el("svg:rect", { x: mx - 7 * c.goods.length + 14 * k, y: my - 6, width: 12, height: 12, rx: 2,
      class: `good g-${good}`, "data-testid": "road-good", "data-connection": c.id, "data-good": good },
      el("svg:title", { text: `${good} on ${c.id}` })));
  });
}

function drawMap(view) {
  const svg = ui.map;
  const board = view.board;
  svg.replaceChildren();
  board.connections.forEach((c) => drawConnection(svg, c));
  for (const town of board.towns) {
    const [x, y] = TOWN_XY[town] || [20, 20];
    svg.append(el("svg:g", { class: `town ${town}`, "data-town": town },
      el("svg:circle", { cx: x, cy: y, r: town === "orleans" ? 15 : 10 }),
      el("svg:text", { x, y: y - 16, text: TOWN_LABEL[town] || town })));
  }
  const perTown = {};
  for (const { town, seat } of board.stations) {
    const k = (perTown[town] = (perTown[town] || 0) + 1) - 1;
    const [x, y] = TOWN_XY[town];
    svg.append(el("svg:rect", { x: x - 16 + 11 * k, y: y + 8, width: 10, height: 10, class: `station seat-${seat}`,
      "data-testid": "station", "data-town": town, "data-seat": seat },
      el("svg:title", { text: `${seatName(seat)}: trading station in ${TOWN_LABEL[town]}` })));
  }
  view.seats.forEach((p) => {
    const xy = TOWN_XY[p.merchant];
    if (!xy) return;
    const angle = (2 * Math.PI * p.seat) / view.seats.length - Math.PI / 2;
    svg.append(el("svg:circle", { cx: xy[0] + 15 * Math.cos(angle), cy: xy[1] + 15 * Math.sin(angle), r: 6,
      class: `merchant seat-${p.seat}`, "data-testid": "merchant", "data-town": p.merchant, "data-seat": p.seat },
      el("svg:title", { text: `${seatName(p.seat)}'s merchant in ${TOWN_LABEL[p.merchant]}` })));
  });
}

// ---- deeds and player boards -----------------------------------------------------------------

function drawDeeds(view) {
  ui.deeds.replaceChildren(...view.board.deeds.map((deed) =>
    el("div", { class: "deed", "data-deed": deed.id },
      el("h3", { text: `${deed.name} (${deed.coins} coin${deed.coins === 1 ? "" : "s"})` }),
      ...deed.spaces.map((space) => {
        const taken = space.seat !== null && space.seat !== undefined;
        return el("span", { class: taken ? `space filled seat-${space.seat}` : "space",
          title: taken ? `${space.needs}: ${seatName(space.seat)}` : space.needs,
          "data-testid": taken ? "deed-filled" : "deed-space", "data-seat": taken ? space.seat : null,
          text: letter(space.needs) });
      }))));
}

function trackRow(name, position, length) {
  const cells = [];
  for (let i = 1; i <= length; i++) cells.push(el("i", { class: i <= position ? "on" : "" }));
  return [el("span", { text: `${name} ${position}` }), el("span", { class: "track", "data-track": name }, ...cells)];
}

function placeBox(place) {
  return el("div", { class: place.stack ? "place tile" : "place", "data-place": place.id,
    "data-testid": place.stack ? "place-tile" : "place" },
    el("b", { text: place.name + " " }),
    ...place.spaces.map((space) => {
      const holds = space.holds;
      return el("span", {
        class: holds === "tech" ? "space tech" : holds ? "space filled" : "space",
        title: holds ? `${holds} (needs ${space.needs})` : `needs ${space.needs}`,
        "data-testid": holds === "tech" ? "tech-tile" : holds ? "placed" : null,
        text: holds === "tech" ? "⚙" : letter(holds || space.needs),
      });
    }));
}

function drawPlayer(p, view) {
  const goods = GOOD_ORDER.filter((g) => g in p.goods).map((good) => el("span", { class: `chip g-${good}`,
    "data-good": good, text: `${good} ${p.goods[good]}` }));
  const tracks = TRACK_ORDER.filter((t) => t in p.tracks).flatMap((t) => trackRow(t, p.tracks[t], TRACK_LENGTH[t]));
  const flags = [view.start_player === p.seat ? "start player" : "", view.turn === p.seat ? "to act" : "",
    p.passed ? "passed" : "", p.score ? `score ${p.score.total}` : ""].filter(Boolean).join(", ");
  return el("div", { class: `player seat-${p.seat}`, "data-testid": "player", "data-seat": p.seat },
    el("h3", { text: `${seatName(p.seat)}${flags ? " — " + flags : ""}` }),
    el("div", { class: "stats" },
      el("span", {}, "coins ", el("b", { "data-testid": "coins", text: p.coins })),
      el("span", {}, "development ", el("b", { "data-testid": "development", text: `${p.development_position} (status ${p.development_status})` })),
      el("span", {}, "citizens ", el("b", { "data-testid": "citizens", text: p.citizens })),
      el("span", {}, "stations ", el("b", { text: `${p.trading_stations_built} built, ${p.trading_stations_left} left` })),
      el("span", {}, "technology ", el("b", { text: p.technology_tiles })),
      el("span", {}, "bag ", el("b", { "data-testid": "bag", text: p.bag_count }))),
    el("div", { class: "goods" }, ...goods),
    el("div", { class: "tracks" }, ...tracks),
    el("div", { class: "tiles" }, "market: ", el("span", { "data-testid": "market", text: p.market.join(", ") || "–" }),
      " · tower: ", el("span", { text: p.tower.join(", ") || "–" })),
    el("div", { class: "places" }, ...p.places.map(placeBox)));
}

function drawSupply(view) {
  const b = view.board;
  const market = GOOD_ORDER.map((g) => `${g} ${b.goods_market[g]}`).join(", ");
  const tiles = (stack) => b.place_tiles[stack].join(", ") || "none";
  ui.supply.textContent = `goods market: ${market} · place tiles I: ${tiles("I")} · II: ${tiles("II")} · ` +
    `technology tiles ${b.technology_tiles} · coins ${b.coin_supply ?? "unlimited"} · hour glass tiles left ${view.hourglass_remaining}`;
}

function drawPlayers(view) {
  ui.players.replaceChildren(...view.seats.map((p) => drawPlayer(p, view)));
}

function drawHeader(view, version) {
  ui.round.textContent = `${view.round} / ${view.rounds}`;
  ui.phase.textContent = view.phase ?? "–";
  ui.event.textContent = eventText(view.event);
  ui.version.textContent = `${version} / ${model.steps.length ? model.steps[model.steps.length - 1].version : 0}`;
  ui.status.textContent = model.status;
}

function describe(step) {
  const who = step.actor === "system" ? "system" : seatName(step.actor);
  if (!step.command) return `v${step.version} ${who}`;
  const args = Object.entries(step.command).filter(([k]) => !["type", "seat", "config"].includes(k))
    .map(([k, v]) => ` ${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join("");
  return `v${step.version} ${who}: ${step.command.type}${args}`;
}

function drawLog() {
  ui.log.replaceChildren(...model.steps.map((step, i) => el("li", { "data-index": i, "data-version": step.version,
    class: i === model.index ? "current" : "", text: describe(step) })));
  const current = ui.log.querySelector("li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

// ---- navigation ------------------------------------------------------------------------------

async function show(index) {
  if (!model.steps.length) return;
  model.index = Math.max(0, Math.min(index, model.steps.length - 1));
  const version = model.steps[model.index].version;
  ui.scrubber.value = model.index;
  const ticket = ++model.loading;
  document.body.dataset.loading = "true";
  try {
    const data = await getJSON(`${api}/states/${version}`);
    if (ticket !== model.loading) return;
    model.view = data.view || data;
    model.shownVersion = version;
    drawHeader(model.view, version);
    drawMap(model.view);
    drawDeeds(model.view);
    drawSupply(model.view);
    drawPlayers(model.view);
    drawLog();
    showError(null);
  } catch (error) {
    showError(error);
  } finally {
    if (ticket === model.loading) {
      document.body.dataset.loading = "false";
      document.body.dataset.version = String(model.shownVersion);
    }
  }
}

async function loadTimeline() {
  const timeline = await getJSON(`${api}/timeline`);
  model.steps = timeline.steps;
  model.status = timeline.status;
  ui.scrubber.max = Math.max(0, model.steps.length - 1);
  ui.followLabel.hidden = timeline.status === "finished";
  ui.download.hidden = timeline.status !== "finished";
  return timeline;
}

function follow() {
  if (!window.EventSource) return;
  const source = new EventSource(`${api}/events/stream`);
  let pending = null;
  const refresh = () => {
    pending = pending || setTimeout(async () => {
      pending = null;
      const atEnd = model.index >= model.steps.length - 1;
      try {
        const timeline = await loadTimeline();
        if (ui.follow.checked || atEnd) await show(model.steps.length - 1); else drawLog();
        if (timeline.status === "finished") source.close();
      } catch (error) { showError(error); }
    }, 250);
  };
  source.onmessage = refresh;
  source.addEventListener("event", refresh);
  source.addEventListener("end", () => { source.close(); refresh(); });
}

function bind() {
  for (const id of ["map", "deeds", "players", "log", "round", "phase", "event", "version", "status", "error",
    "scrubber", "first", "prev", "next", "last", "follow", "download", "supply"]) ui[id] = document.getElementById(id);
  ui.followLabel = document.getElementById("follow-label");
  ui.first.onclick = () => show(0);
  ui.prev.onclick = () => show(model.index - 1);
  ui.next.onclick = () => show(model.index + 1);
  ui.last.onclick = () => show(model.steps.length - 1);
  ui.scrubber.oninput = () => show(Number(ui.scrubber.value));
  ui.log.onclick = (e) => { const li = e.target.closest("li"); if (li) show(Number(li.dataset.index)); };
  ui.follow.onchange = () => { if (ui.follow.checked) show(model.steps.length - 1); };
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" && e.target.type !== "checkbox") return;
    if (e.key === "ArrowLeft") show(model.index - 1);
    if (e.key === "ArrowRight") show(model.index + 1);
    if (e.key === "Home") show(0);
    if (e.key === "End") show(model.steps.length - 1);
  });
  ui.download.href = `${api}/replay`;
}

async function start() {
  bind();
  document.getElementById("game-title").textContent = gameId;
  try {
    model.seats = (await getJSON(api)).seats;
    await loadTimeline();
    await show(model.status === "finished" ? 0 : model.steps.length - 1);
    if (model.status !== "finished") follow();
    document.body.dataset.ready = "true";
  } catch (error) {
    showError(error);
  }
}

document.addEventListener("DOMContentLoaded", start);
