// Clocks in the viewer: one per clocked seat, the answer budget of push bot seats, and when a claim
// against a seat the game waits on becomes possible.
//
// The server's figures (GET /api/v1/games/{id} `clocks` and `claims`, and the stream's `clocks`
// lines after every batch) say, per clocked seat, the time left *when the server answered* and
// whether it runs. The page ticks a running clock down locally from the moment the figures
// arrived (the browser's own monotonic clock, so a wrong wall clock on this computer does not
// matter) and takes the server's figures again on every update. A stopped clock does not tick; a
// finished game shows the final times. The clocks always show the game as it is now, whatever
// version the board shows.

import { el } from "./dom.js";

const TICK_MS = 100;
// Low time: under 30 s, or under a quarter of the seat's whole time when that is shorter (a 5 s
// per-move clock is low under 1.25 s, not all the time).
const LOW_MS = 30_000;
const LOW_SHARE = 0.25;

// 3723000 -> "1:02:03"; 65000 -> "1:05"; under 10 s with tenths: 9400 -> "0:09.4".
export function formatMs(ms) {
  const left = Math.max(0, ms);
  const tenths = Math.floor(left / 100) % 10;
  const seconds = Math.floor(left / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  if (h) return `${h}:${String(m).padStart(2, "0")}:${s}`;
  return left < 10_000 ? `${m}:${s}.${tenths}` : `${m}:${s}`;
}

// 90061000 -> "1 d 1 h"; 3720000 -> "1 h 2 min"; 45000 -> "45 s".
export function formatWait(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  if (s >= 86_400) return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${s} s`;
}

// The whole time of a seat's clock spec ({initial_s, increment_s} or {move_s}), in ms.
const fullMs = (clock) => 1000 * (clock.move_s ?? clock.initial_s ?? 0);
const isLow = (ms, clock) => ms <= Math.min(LOW_MS, LOW_SHARE * fullMs(clock));

function clockKind(clock) {
  if (clock.move_s !== undefined) return `${clock.move_s} s a move`;
  const increment = clock.increment_s ? ` + ${clock.increment_s} s a move` : "";
  return `${formatMs(1000 * clock.initial_s)}${increment}`;
}

export class ClockPanel {
  // container: the element the clocks are drawn into; name(seat): the seat's name.
  constructor(container, name, now = () => performance.now(), wallNow = () => Date.now()) {
    Object.assign(this, { container, name, now, wallNow });
    this.seats = [];
    this.figures = {};  // seat -> {remaining_ms, running, deadline_ms, at}
    this.version = -1;
    this.claims = [];
    this.finished = false;
    this.timer = null;
  }

  // Any seat the page might refresh the summary for: a human seat without a clock can be claimed
  // against (the only figures the stream does not carry).
  get wantsSummary() {
    return !this.finished && this.seats.some((s) => s.kind === "human" && !s.clock);
  }

  // The summary: seats (which carry a clock or a bot's deadline), the clocks now, the claims, the status.
  fromSummary(summary) {
    this.seats = summary.seats || [];
    this.finished = summary.status === "finished" || summary.status === "aborted";
    this.claims = summary.claims || [];
    this.version = Math.max(this.version, summary.version);
    this.take(summary.clocks);
  }

  // A stream line {version, clocks}: figures at least as new as those shown replace them.
  fromStream(line) {
    if (line.version < this.version) return;
    this.version = line.version;
    this.take(line.clocks);
  }

  // Follow the stream (an EventSource, or null where the browser has none): its `clocks` lines,
  // and the clocks of a `resync` (or an opening `snapshot`) line, which carry {version, clocks} too.
  listen(source) {
    for (const kind of ["clocks", "resync", "snapshot"]) {
      source?.addEventListener(kind, (event) => {
        try {
          const line = JSON.parse(event.data);
          if (line && "clocks" in line && typeof line.version === "number") this.fromStream(line);
        } catch { /* a malformed line changes nothing: the next update corrects the clocks */ }
      });
    }
  }

  take(figures) {
    const at = this.now();
    this.figures = Object.fromEntries(Object.entries(figures || {}).map(([seat, f]) => [seat, { ...f, at }]));
    if (this.finished) for (const f of Object.values(this.figures)) f.running = false;
    this.draw();
  }

  remaining(seat) {
    const f = this.figures[seat];
    if (!f) return null;
    return f.running ? Math.max(0, f.remaining_ms - (this.now() - f.at)) : Math.max(0, f.remaining_ms);
  }

  draw() {
    const clocked = this.seats.filter((s) => s.clock && this.figures[s.seat]);
    const budgets = this.seats.filter((s) => !s.clock && s.deadline_s && s.kind !== "human");
    const items = [...clocked.map((s) => this.clockItem(s)), ...budgets.map((s) => this.budgetItem(s)),
      ...this.claims.map((c) => this.claimItem(c))];
    this.container.hidden = !items.length;
    this.container.dataset.finished = String(this.finished);
    const label = clocked.length || budgets.length ? el("span", { class: "clocks-label",
      text: this.finished ? "Final times: " : "Clocks now: " }) : null;  // a claim alone says what it is
    this.container.replaceChildren(...(items.length ? [label, ...items].filter(Boolean) : []));
    const ticking = !this.finished && (clocked.some((s) => this.figures[s.seat].running) || this.claims.length);
    if (ticking && !this.timer) this.timer = setInterval(() => this.tick(), TICK_MS);
    if (!ticking) this.stop();
    this.tick();
  }

  clockItem(seat) {
    const f = this.figures[seat.seat];
    const perMove = seat.clock.move_s !== undefined;
    return el("span", {
      class: `clock seat-${seat.seat}${f.running ? " running" : ""}`, "data-testid": "clock", "data-seat": seat.seat,
      "data-running": String(Boolean(f.running)), title: `${this.name(seat.seat)}: ${clockKind(seat.clock)}`,
    },
    el("span", { class: `seat-dot seat-${seat.seat}`, "aria-hidden": "true" }),
    ` ${this.name(seat.seat)}${seat.kind !== "human" && seat.kind !== "open" ? " (bot)" : ""} `,
    el("b", { class: "time", "data-testid": "clock-time" }),
    el("span", { class: "cue", "data-testid": "clock-cue" }),
    el("span", { class: "clock-kind", text: perMove ? ` (${clockKind(seat.clock)})` : "" }));
  }

  budgetItem(seat) {
    return el("span", { class: `clock budget seat-${seat.seat}`, "data-testid": "bot-deadline", "data-seat": seat.seat,
      title: "a bot answering over HTTP: the service plays its default move when no answer comes in time" },
    el("span", { class: `seat-dot seat-${seat.seat}`, "aria-hidden": "true" }),
    ` ${this.name(seat.seat)} (bot) answers within `, el("b", { text: `${seat.deadline_s} s` }), " a move");
  }

  claimItem(claim) {
    return el("span", { class: "claim", "data-testid": "claim", "data-seat": claim.absent, "data-opens-ms": claim.opens_ms },
      `A claim against ${this.name(claim.absent)} `, el("b", { class: "claim-when" }));
  }

  // Redraw the times only (a tick must not rebuild the panel: it would flicker and lose focus).
  tick() {
    for (const node of this.container.querySelectorAll("[data-testid=clock]")) {
      const seat = Number(node.dataset.seat);
      const spec = (this.seats.find((s) => s.seat === seat) || {}).clock || {};
      const left = this.remaining(seat);
      const f = this.figures[seat];
      const low = left !== null && isLow(left, spec) && (f.running || !this.finished);
      const out = left === 0 && f.running;
      node.classList.toggle("low", low);
      node.classList.toggle("out", out);
      node.dataset.low = String(low);
      node.dataset.remainingMs = String(Math.round(left ?? 0));
      node.querySelector(".time").textContent = formatMs(left ?? 0);
      node.querySelector(".cue").textContent = out ? " time is up" : low ? " low time" : "";
    }
    for (const node of this.container.querySelectorAll("[data-testid=claim]")) {
      const wait = Number(node.dataset.opensMs) - this.wallNow();
      const opens = new Date(Number(node.dataset.opensMs));
      node.dataset.open = String(wait <= 0);
      node.querySelector(".claim-when").textContent = wait <= 0
        ? "is possible now (victory or a default move)"
        : `becomes possible at ${opens.toLocaleString()} (in ${formatWait(wait)})`;
    }
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
