// hourglass viewer: the core every game shares (ES modules, no build step).
// Data: GET /api/v1/games/{id} (seats, result), /timeline (the version after each step),
// /states/{version} (the caller's view then), /events (the caller's log), /api/v1/reference/{game}
// (printed names and tracks), and the SSE stream to follow a live game. The board itself is
// drawn by the game's renderer (renderers.js describes the contract).

import { Api } from "./api.js";
import { ClockPanel } from "./clocks.js";
import { el } from "./dom.js";
import { drawLog, logLines, markCurrent } from "./log.js";
import { drawHeadline, drawLegend, drawResult, drawToAct } from "./panels.js";
import { rendererFor } from "./renderers.js";
import { startPlay } from "./play.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const api = new Api(gameId);
const ui = {};
const model = {
  summary: null, seats: [], renderer: null, reference: {},
  steps: [], events: [], lines: [], index: 0, status: "", you: null,
  shownVersion: null, pending: false, loop: null, stream: null, clocks: null,
};

const name = (seat) => (seat === "system" ? "The service" : (model.seats[seat] || {}).name || `Seat ${seat}`);
const lastIndex = () => model.steps.length - 1;
const finished = () => model.status === "finished";

function context(version, toAct) {
  return {
    seats: model.seats, name, summary: model.summary, reference: model.reference, you: model.you,
    version, toAct: new Set(toAct), history: model.events.filter((e) => e.seq <= version),
  };
}

function showError(error) {
  ui.error.hidden = !error;
  ui.error.textContent = error ? String(error.message || error) : "";
}

// ---- drawing one version -------------------------------------------------------------------------

function drawVersion(data, version) {
  const view = data.view;
  const toAct = data.to_act || view.to_act || [];
  const ctx = context(version, toAct);
  drawHeadline(ui.headline, model.renderer.headline(view, ctx));
  drawToAct(ui.toAct, ctx.toAct, ctx, view.phase === "finished" || (view.result !== undefined && view.result !== null));
  ui.version.textContent = `${version} / ${model.steps.length ? model.steps[lastIndex()].version : 0}`;
  ui.status.textContent = model.status;
  model.renderer.draw(ui.board, view, ctx);
  const atEnd = model.steps.length && version === model.steps[lastIndex()].version;  // no spoiler mid-game
  const result = finished() && atEnd ? model.summary.result : null;
  drawResult(ui.result, result, result ? model.renderer.resultDetails(result, ctx) : null, ctx);
  markCurrent(ui.log, model.index);
  announce("drawn", { view, version, toAct: ctx.toAct, ctx });
}

// Playing (play.js) listens to the core through document events: "hourglass:<what>".
const announce = (what, detail) => document.dispatchEvent(new CustomEvent(`hourglass:${what}`, { detail }));

// Show step `index`. While a state is on its way, further calls only move the target: the loop
// fetches the latest target next, so holding an arrow key costs a few requests, not one per key
// (anonymous callers share a per-address rate limit). Views of a version never change, so they
// are kept per viewer.
function show(index) {
  if (!model.steps.length) return Promise.resolve();
  model.index = Math.max(0, Math.min(index, lastIndex()));
  ui.scrubber.value = model.index;
  model.pending = true;
  if (!model.loop) model.loop = drawLoop().finally(() => { model.loop = null; });
  return model.loop;
}

async function drawLoop() {
  document.body.dataset.loading = "true";
  try {
    while (model.pending) {
      model.pending = false;
      const version = model.steps[model.index].version;
      const data = await stateAt(version);
      drawVersion(data, version);
      model.shownVersion = version;
      showError(null);
    }
  } catch (error) {
    model.pending = false;
    showError(error);
  } finally {
    document.body.dataset.loading = "false";
    document.body.dataset.version = String(model.shownVersion);
  }
}

const views = new Map();
const VIEWS_KEPT = 400;

async function stateAt(version) {
  const key = `${model.you}:${version}`;
  if (!views.has(key)) {
    views.set(key, await api.stateAt(version));
    if (views.size > VIEWS_KEPT) views.delete(views.keys().next().value);
  }
  return views.get(key);
}

// ---- data: timeline and log --------------------------------------------------------------------

async function loadTimeline() {
  const timeline = await api.timeline();
  model.steps = timeline.steps;
  model.status = timeline.status;
  ui.scrubber.max = Math.max(0, lastIndex());
  ui.followLabel.hidden = finished();
  ui.download.hidden = !finished();
  announce("timeline", { latest: model.steps.length ? model.steps[lastIndex()].version : 0, status: model.status });
}

async function loadEvents({ fresh = false } = {}) {
  if (fresh) model.events = [];
  const after = model.events.length ? model.events[model.events.length - 1].seq : 0;
  model.events.push(...await api.eventsAfter(after));
  const ctx = context(Infinity, []);
  model.lines = logLines(model.steps, model.events, model.renderer.describe, ctx);
  drawLog(ui.log, model.steps, model.lines, model.index);
}

// ---- following a live game --------------------------------------------------------------------

function follow() {
  let pending = null;
  const refresh = () => {
    pending = pending || setTimeout(async () => {
      pending = null;
      const atEnd = model.index >= lastIndex();
      try {
        await loadTimeline();
        if (finished() || model.clocks.wantsSummary) {  // the stream carries the clocks, not the claims
          model.summary = await api.summary();
          model.clocks.fromSummary(model.summary);
        }
        if (finished()) model.stream?.close();
        await loadEvents();
        if (ui.follow.checked || atEnd || finished()) await show(lastIndex());
      } catch (error) { showError(error); }
    }, 250);
  };
  const after = model.steps.length ? model.steps[lastIndex()].version : 0;
  model.refresh = refresh;  // play.js: after a move of ours, without waiting for the stream
  model.stream = api.stream(after, refresh, refresh);
  model.clocks.listen(model.stream);
}

// ---- whose eyes: spectator or a seat (token typed into the page, kept in sessionStorage) -------

async function useToken(token) {
  api.token = token;
  try {
    model.you = token ? (await api.state()).seat : null;
  } catch (error) {
    api.token = null;
    model.you = null;
    throw error.status === 401 ? new Error("That token is not a seat token of this game; showing the spectator's view.") : error;
  } finally {
    drawSeatForm();
  }
}

function drawSeatForm() {
  const seat = model.you;
  ui.viewer.textContent = seat === null ? "Spectator's view" : `${name(seat)}'s view`;
  ui.viewer.dataset.seat = seat === null ? "" : String(seat);
  ui.spectate.hidden = seat === null;
  announce("viewer", { you: seat });
}

async function switchViewer(token) {
  delete document.body.dataset.viewer;
  let refused = null;
  try {
    await useToken(token);
  } catch (error) {
    refused = error;
  }
  await loadEvents({ fresh: true });
  await show(model.index);
  showError(refused);  // after show(), which clears the errors of earlier loads
  document.body.dataset.viewer = model.you === null ? "spectator" : String(model.you);
}

// ---- wiring -----------------------------------------------------------------------------------

function bind() {
  for (const id of ["board", "log", "headline", "version", "status", "error", "scrubber", "first", "prev", "next",
    "last", "follow", "download", "result", "legend", "viewer", "spectate", "seat-form", "token", "game-title"]) {
    ui[id.replace(/-(\w)/g, (_, c) => c.toUpperCase())] = document.getElementById(id);
  }
  ui.toAct = document.getElementById("to-act-line");
  ui.followLabel = document.getElementById("follow-label");
  ui.first.onclick = () => show(0);
  ui.prev.onclick = () => show(model.index - 1);
  ui.next.onclick = () => show(model.index + 1);
  ui.last.onclick = () => show(lastIndex());
  ui.scrubber.oninput = () => show(Number(ui.scrubber.value));
  ui.log.onclick = (e) => { const li = e.target.closest("li"); if (li) show(Number(li.dataset.index)); };
  ui.follow.onchange = () => { if (ui.follow.checked) show(lastIndex()); };
  ui.seatForm.onsubmit = (e) => {
    e.preventDefault();
    const token = ui.token.value.trim();
    ui.token.value = "";
    if (token) switchViewer(token);
  };
  ui.spectate.onclick = () => switchViewer(null);
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" && e.target.type !== "checkbox") return;
    const moves = { ArrowLeft: model.index - 1, ArrowRight: model.index + 1, Home: 0, End: lastIndex() };
    if (e.key in moves) show(moves[e.key]);
  });
  ui.download.href = `${api.base}/replay`;
}

function loadStylesheet(file) {
  if (file) document.head.append(el("link", { rel: "stylesheet", href: `/replays/static/${file}` }));
}

async function start() {
  bind();
  api.adoptTokenFromFragment();
  let refused = null;
  try {
    if (api.token) await useToken(api.token).catch((error) => { refused = error; });
    model.summary = await api.summary();
    model.seats = model.summary.seats;
    drawSeatForm();
    model.clocks = new ClockPanel(document.getElementById("clocks"), name);
    model.clocks.fromSummary(model.summary);
    model.renderer = await rendererFor(model.summary.game);
    loadStylesheet(model.renderer.stylesheet);
    const label = model.renderer.name || model.summary.game;
    ui.gameTitle.textContent = `${label}${model.summary.edition ? ` (${model.summary.edition})` : ""} · ${gameId}`;
    document.title = `${label} ${gameId} · hourglass viewer`;
    model.reference = await api.reference(model.summary.game);
    startPlay({ api, board: ui.board, game: model.summary.game, context,
      refresh: () => (model.refresh ? (model.refresh(), true) : false) });
    drawSeatForm();
    drawLegend(ui.legend, model.renderer.legend(context(0, [])), context(0, []));
    await loadTimeline();
    model.index = lastIndex();  // a finished game opens at its result, a live one at its latest move
    await loadEvents();
    await show(lastIndex());
    showError(refused);
    if (!finished()) follow();
    document.body.dataset.viewer = model.you === null ? "spectator" : String(model.you);
    document.body.dataset.ready = "true";
  } catch (error) {
    showError(error);
  }
}

document.addEventListener("DOMContentLoaded", start);
