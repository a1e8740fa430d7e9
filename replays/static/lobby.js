// The lobby: games with a public open seat (GET /api/v1/games?open=true), and a button per open
// seat that takes it (POST .../seats/{seat}/join) and opens the viewer with the seat's token. The
// token goes where the viewer keeps it (api.js: this tab's sessionStorage), never into an address.

import { Api } from "./api.js";
import { el } from "./dom.js";

const GAME_NAME = { orleans: "Orléans", artificium: "Artificium", cathedral: "The Cathedral of Orléans" };
const NAME_KEY = "hourglass.player-name";
const ui = {};
let cursor = null;

function showError(text) {
  ui.error.hidden = !text;
  ui.error.textContent = text || "";
}

async function getJson(url, options = {}) {
  const response = await fetch(url, { ...options, headers: { Accept: "application/json", ...(options.headers || {}) } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const wait = response.status === 429 ? ` Wait ${response.headers.get("Retry-After") || "a few"} seconds.` : "";
    throw new Error(`${String(body.detail || `HTTP ${response.status}`).replace(/\.$/, "")}.${wait}`);
  }
  return body;
}

async function load({ more = false } = {}) {
  const query = new URLSearchParams({ open: "true", limit: "20" });
  if (ui.game.value) query.set("game", ui.game.value);
  if (more && cursor) query.set("cursor", cursor);
  try {
    const page = await getJson(`/api/v1/games?${query}`);
    cursor = page.next;
    const rows = page.games.filter((g) => g.open_seats.length).map(row);
    if (more) ui.games.append(...rows); else ui.games.replaceChildren(...rows);
    ui.empty.hidden = ui.games.children.length > 0;
    ui.more.hidden = !cursor;
    showError(null);
  } catch (error) {
    showError(`The list of games could not be loaded: ${error.message}`);
  }
  document.body.dataset.ready = "true";
}

function row(game) {
  const open = new Set(game.open_seats);
  const seats = game.seats.map((s) => el("li", { class: open.has(s.seat) ? "open" : null },
    open.has(s.seat) ? `seat ${s.seat + 1}: open` : `seat ${s.seat + 1}: ${s.name}${s.kind === "bot" ? " (bot)" : ""}`));
  const buttons = game.open_seats.map((seat) => el("button", { type: "button", "data-testid": "join", "data-game": game.id,
    "data-seat": seat, text: `Join as seat ${seat + 1}` }));
  for (const button of buttons) button.onclick = () => join(game.id, Number(button.dataset.seat), button);
  return el("tr", { "data-testid": "open-game", "data-game": game.id },
    el("td", {}, el("b", { text: GAME_NAME[game.game] || game.game }), ` (${game.edition})`, el("br"),
      el("a", { href: `/games/${encodeURIComponent(game.id)}`, text: "watch" })),
    el("td", { class: "seats" }, el("ul", {}, ...seats)),
    el("td", { text: new Date(game.created).toLocaleString() }),
    el("td", {}, el("div", { class: "join" }, ...buttons)));
}

async function join(gameId, seat, button) {
  const name = ui.name.value.trim();
  if (!name) {
    showError("Type your name first: the other players see it.");
    ui.name.focus();
    return;
  }
  sessionStorage.setItem(NAME_KEY, name);
  button.disabled = true;
  try {
    const taken = await getJson(`/api/v1/games/${encodeURIComponent(gameId)}/seats/${seat}/join`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }) });
    new Api(gameId).token = taken.token;  // the viewer reads it from this tab's sessionStorage
    location.assign(`/games/${encodeURIComponent(gameId)}`);
  } catch (error) {
    button.disabled = false;
    await load();  // the seat may be gone: list what is open now, then say why
    showError(`You could not join: ${error.message}`);
  }
}

function start() {
  for (const [key, id] of Object.entries({ name: "player-name", game: "game-filter", reload: "reload", error: "lobby-error",
    games: "games", empty: "lobby-empty", more: "more", form: "lobby-form" })) ui[key] = document.getElementById(id);
  ui.name.value = sessionStorage.getItem(NAME_KEY) || "";
  ui.form.onsubmit = (e) => e.preventDefault();
  ui.name.oninput = () => showError(null);
  ui.game.onchange = () => load();
  ui.reload.onclick = () => load();
  ui.more.onclick = () => load({ more: true });
  load();
}

document.addEventListener("DOMContentLoaded", start);
