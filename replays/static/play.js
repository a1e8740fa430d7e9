// Playing in the browser: the move panel of a seat (a seat token given to the viewer, api.js).
//
// The viewer core (viewer.js) stays a viewer; it tells this module what happens through three
// document events and offers one way back:
//   hourglass:viewer   {you}               whose eyes changed (a token typed, "Spectate")
//   hourglass:timeline {latest, status}    the timeline was (re)loaded: a move, a system step, the end
//   hourglass:drawn    {view, version, toAct, ctx}  the board was drawn at `version`
//   hub.refresh()                          fetch the timeline now (after our own move); false when
//                                          the core does not follow the game (it is over)
//
// What a seat may do comes from GET .../moves at the game's latest version; a chosen move goes
// back with POST .../moves, `If-Match` the version it was listed at and a fresh `Idempotency-Key`
// (a network failure retries once with the same key, so the move is never made twice). A refusal
// (problem+json) is shown in words and the moves are listed again. The board stays the
// renderer's: this module only marks the elements a move names (play-words.js) as buttons.

import { el, listing } from "./dom.js";
import { moveLabel, moveTarget, simultaneous } from "./play-words.js";

const VIEW_WAIT_MS = 1500;  // how long to wait for the viewer's own draw of a version before asking
const SYNC_FALLBACK_MS = 3000;  // after a move: list the moves even if the timeline reload failed

export function startPlay(hub) {
  const ui = bindPanel();
  const state = {
    you: null, status: "", latest: null, moves: null, view: null, toAct: [], drawn: null,
    syncing: null, again: false, sending: false, filter: null, waiters: [], refocus: false, left: false,
  };

  const ctxFor = (version) => ({ ...hub.context(version, state.toAct), you: state.you });

  // ---- listening to the viewer ---------------------------------------------------------------

  document.addEventListener("hourglass:viewer", (e) => {
    state.you = e.detail.you;
    state.moves = null;
    state.filter = null;
    showRefusal(null);
    document.body.classList.toggle("playing", state.you !== null && state.you !== undefined);
    ui.panel.hidden = state.you === null || state.you === undefined;
    if (ui.panel.hidden) delete document.body.dataset.play;
    else sync();
  });

  document.addEventListener("hourglass:timeline", (e) => {
    state.latest = e.detail.latest;
    state.status = e.detail.status;
    if (state.you !== null && (!state.moves || state.moves.version !== state.latest)) sync();
    else render();
  });

  document.addEventListener("hourglass:drawn", (e) => {
    state.drawn = e.detail;
    state.waiters = state.waiters.filter((w) => !w(e.detail));
    if (state.moves && e.detail.version === state.moves.version) {
      state.view = e.detail.view;
      state.toAct = [...e.detail.toAct];
    }
    render();
  });

  // ---- the seat's moves at the latest version --------------------------------------------------

  // One sync at a time; a request for another while one runs makes it run once more at its end.
  function sync() {
    if (state.syncing) {
      state.again = true;
      return state.syncing;
    }
    state.syncing = (async () => {
      do {
        state.again = false;
        try {
          const moves = await hub.api.get("/moves");
          const data = await viewAt(moves.version);
          state.moves = moves;
          state.view = data.view;
          state.toAct = data.to_act || data.view?.to_act || [];
          if (data.status) state.status = data.status;
          if (moves.version !== state.latest && state.latest !== null && moves.version > state.latest) hub.refresh();
        } catch (error) {
          showRefusal(error.message || String(error));
        }
      } while (state.again);
      state.syncing = null;
      render();
    })();
    return state.syncing;
  }

  // The seat's view at `version`: the viewer's own draw of it when it comes soon (it usually
  // does: it follows the game), else one request of our own.
  function viewAt(version) {
    const drawn = state.drawn;
    if (drawn && drawn.version === version) return Promise.resolve({ view: drawn.view, to_act: [...drawn.toAct] });
    return new Promise((resolve) => {
      let done = false;
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        resolve(hub.api.get(`/states/${version}`));
      }, VIEW_WAIT_MS);
      state.waiters.push((detail) => {
        if (done || detail.version !== version) return false;
        done = true;
        clearTimeout(timer);
        resolve({ view: detail.view, to_act: [...detail.toAct] });
        return true;
      });
    });
  }

  // ---- posting a move ------------------------------------------------------------------------------

  async function post(index) {
    const moves = state.moves;
    const move = moves?.moves[index];
    if (!move || state.sending) return;
    state.sending = true;
    // a keyboard player keeps the focus in the panel: the buttons are about to be replaced
    state.refocus = ui.panel.contains(document.activeElement) || hub.board.contains(document.activeElement);
    showRefusal(null);
    render();
    const key = idempotencyKey();
    try {
      const response = await send(moves.version, move, key);
      if (!response.ok) {
        const problem = await response.json().catch(() => ({}));
        showRefusal(refusal(response, problem));
      }
    } catch {
      showRefusal("The server could not be reached; your move may not have arrived. The moves are listed again.");
    } finally {
      state.sending = false;
      state.filter = null;
      state.moves = null;  // never offer the same list twice: it belongs to a version that is gone
      render();
      // the viewer's reload of the timeline asks for the moves again; should it fail, ask anyway
      if (!hub.refresh()) sync();
      else setTimeout(() => { if (!state.moves && !state.syncing) sync(); }, SYNC_FALLBACK_MS);
    }
  }

  // A network failure is retried once with the same key: the server answers the first result
  // again if the first attempt did arrive.
  async function send(version, move, key) {
    const request = () => fetch(`${hub.api.base}/moves`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", "If-Match": `"${version}"`,
        "Idempotency-Key": key, Authorization: `Bearer ${hub.api.token}` },
      body: JSON.stringify(move),
    });
    try {
      return await request();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return request();
    }
  }

  async function resign() {
    const response = await fetch(`${hub.api.base}/resign`, {
      method: "POST", headers: { Accept: "application/json", "Idempotency-Key": idempotencyKey(),
        Authorization: `Bearer ${hub.api.token}` } }).catch(() => null);
    if (!response) showRefusal("The server could not be reached; you have not resigned.");
    else if (!response.ok) showRefusal(refusal(response, await response.json().catch(() => ({}))));
    else state.left = true;  // with three or more seats the game goes on without this one
    if (!hub.refresh()) sync();
  }

  // ---- drawing the panel -----------------------------------------------------------------------

  function render() {
    if (ui.panel.hidden) return;
    const moves = state.moves;
    const ctx = ctxFor(moves ? moves.version : state.latest);
    const over = ["finished", "aborted"].includes(state.status);
    const list = moves && !over ? moves.moves : [];
    const yours = list.length > 0;
    const seats = state.toAct.filter((a) => typeof a === "number");
    const together = seats.length > 1;
    const mine = (ctx.seats || [])[state.you];
    const gone = state.left || ["resigned", "abandoned", "forfeited"].includes(mine && mine.status);
    let mode;
    let text;
    if (over) [mode, text] = ["over", state.status === "aborted" ? "The game was called off." : "The game is over."];
    else if (gone) [mode, text] = ["left", "You have left this game; it goes on without you."];
    else if (state.sending) [mode, text] = ["sending", "Sending your move…"];
    else if (!moves) [mode, text] = ["loading", "Loading your moves…"];
    else if (state.status === "waiting") [mode, text] = ["waiting", "Waiting for players to join."];
    else if (yours) [mode, text] = ["your-turn", together ? "Your move (everyone plays at once)." : "Your move."];
    else {
      const others = seats.filter((s) => s !== state.you).map(ctx.name);
      mode = "waiting";
      text = others.length ? `Waiting for ${listing(others)}.` : "Waiting for the service.";
    }
    ui.panel.dataset.mode = mode;
    ui.panel.dataset.version = moves ? String(moves.version) : "";
    document.body.dataset.play = mode;
    ui.status.textContent = text;
    drawSimultaneous(ctx, over);
    drawMoves(list, ctx, mode === "your-turn");
    ui.resign.hidden = over || gone || !moves;
    decorateBoard(list, ctx, mode === "your-turn");
    if (state.refocus && ["your-turn", "waiting", "over"].includes(mode)) {
      state.refocus = false;
      (ui.moves.querySelector("button:not([disabled])") || ui.status).focus();
    }
  }

  function drawSimultaneous(ctx, over) {
    const parts = over || !state.view ? null : simultaneous(hub.game, state.view, ctx);
    ui.together.hidden = !parts;
    if (!parts) return ui.together.replaceChildren();
    const waiting = state.toAct.filter((a) => typeof a === "number" && a !== state.you).map(ctx.name);
    ui.together.replaceChildren(
      el("ul", { class: "done", "data-testid": "play-done" }, ...parts.done.map((t) => el("li", { text: t }))),
      parts.owed.length ? el("p", { class: "owed", "data-testid": "play-owed" }, el("b", { text: "Still to do: " }), parts.owed.join(" "))
        : el("p", { class: "owed", "data-testid": "play-owed", "data-none": "true", text: "Nothing more from you now." }),
      waiting.length ? el("p", { class: "others", text: `Still deciding: ${listing(waiting)}.` }) : null);
  }

  function drawMoves(list, ctx, enabled) {
    const shown = list.map((move, i) => [move, i]).filter(([, i]) => !state.filter || state.filter.includes(i));
    ui.filter.hidden = !state.filter;
    if (state.filter) {
      ui.filter.replaceChildren(`${shown.length} of ${list.length} moves (chosen on the board) `,
        el("button", { type: "button", "data-testid": "play-show-all", text: "show all" }));
      ui.filter.querySelector("button").onclick = () => { state.filter = null; render(); };
    }
    ui.moves.replaceChildren(...shown.map(([move, i]) => el("li", {}, el("button", {
      type: "button", class: "move", "data-testid": "move", "data-index": i, "data-type": move.type,
      disabled: !enabled, text: moveLabel(hub.game, move, ctx, state.view) }))));
  }

  // The board elements a move names become buttons (delegated clicks below): one move posts at
  // once, several narrow the panel to them. Only when the board shows the moves' version.
  function decorateBoard(list, ctx, enabled) {
    for (const old of hub.board.querySelectorAll("[data-play-moves]")) {
      old.classList.remove("playable");
      for (const a of ["data-play-moves", "tabindex", "role", "aria-label"]) old.removeAttribute(a);
    }
    if (!enabled || !state.drawn || state.drawn.version !== state.moves?.version) return;
    const found = new Map();
    list.forEach((move, i) => {
      const selector = moveTarget(hub.game, move, ctx);
      if (!selector) return;
      for (const node of hub.board.querySelectorAll(selector)) {
        if (!found.has(node)) found.set(node, []);
        found.get(node).push(i);
      }
    });
    for (const [node, indices] of found) {
      const label = indices.length === 1 ? moveLabel(hub.game, list[indices[0]], ctx, state.view)
        : `${indices.length} moves here: ${indices.map((i) => moveLabel(hub.game, list[i], ctx, state.view)).join("; ")}`;
      node.classList.add("playable");
      node.setAttribute("data-play-moves", indices.join(","));
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
      node.setAttribute("aria-label", label);
    }
  }

  function chooseOnBoard(node) {
    const indices = node.getAttribute("data-play-moves").split(",").map(Number);
    if (indices.length === 1) return post(indices[0]);
    state.filter = indices;
    render();
    ui.moves.querySelector("button")?.focus();
  }

  function showRefusal(text) {
    ui.refusal.hidden = !text;
    ui.refusal.textContent = text || "";
  }

  // ---- wiring ------------------------------------------------------------------------------------

  ui.moves.addEventListener("click", (e) => {
    const button = e.target.closest("button.move");
    if (button && !button.disabled) post(Number(button.dataset.index));
  });
  hub.board.addEventListener("click", (e) => {
    const node = e.target.closest?.("[data-play-moves]");
    if (node) chooseOnBoard(node);
  });
  hub.board.addEventListener("keydown", (e) => {
    const node = e.target.closest?.("[data-play-moves]");
    if (node && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      chooseOnBoard(node);
    }
  });
  ui.resign.onclick = () => { ui.confirm.hidden = false; ui.confirm.querySelector("[data-answer=no]").focus(); };
  ui.confirm.onclick = (e) => {
    const answer = e.target.closest("button")?.dataset.answer;
    if (!answer) return;
    ui.confirm.hidden = true;
    if (answer === "yes") resign();
  };
  // "m" (outside text boxes) jumps to the first move: the panel is one key away from anywhere.
  document.addEventListener("keydown", (e) => {
    if (e.key !== "m" || e.ctrlKey || e.metaKey || e.altKey || ["INPUT", "TEXTAREA"].includes(e.target.tagName)) return;
    const first = ui.moves.querySelector("button:not([disabled])") || ui.status;
    if (!ui.panel.hidden) first.focus();
  });
}

function bindPanel() {
  const panel = document.getElementById("play");
  return {
    panel,
    status: panel.querySelector("#play-status"),
    together: panel.querySelector("#play-together"),
    refusal: panel.querySelector("#play-refusal"),
    filter: panel.querySelector("#play-filter"),
    moves: panel.querySelector("#play-moves"),
    resign: panel.querySelector("#play-resign"),
    confirm: panel.querySelector("#play-confirm"),
  };
}

// 32 hex digits from the browser's CSPRNG (crypto.randomUUID needs a secure context; this does not).
function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `play-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

// A refusal in words: the server's own `detail` (problem+json), with what it means for the player.
function refusal(response, problem) {
  const detail = problem.detail ? ` (${problem.detail})` : "";
  switch (response.status) {
    case 412: return `The game moved on before your move arrived${detail}. Here are your moves now.`;
    case 409: return `That move was already sent with another request${detail}.`;
    case 401: return `Your seat token is not accepted any more${detail}.`;
    case 429: return `Too many requests: wait ${response.headers.get("Retry-After") || "a few"} seconds${detail}.`;
    case 422: return `The move was refused${detail}.`;
    default: return `The server refused the move: HTTP ${response.status}${detail}.`;
  }
}
