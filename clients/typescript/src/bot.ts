// Playing turns: a bot is one function, choose(turn) → one of turn.moves, verbatim. Two ways to be
// told it is your turn:
//
// - playPull: a registered pull bot follows its one event stream (/api/v1/bots/{id}/events/stream)
//   for all its games; `your_turn` (game, seat, version, deadline_ms) starts a decision.
// - playSeat: one seat of one game, by its seat token, from the game's NDJSON stream: the first
//   `snapshot` line and every `moves` line that leaves the seat to act.
//
// Either way a turn reads the seat's legal moves and view, asks choose, and posts the move with
// If-Match (the version it was chosen at) and an Idempotency-Key (so a retried POST is applied once).
// A 412, or a 422 saying the game moved on, means another event came first: read again.
import { randomUUID } from "node:crypto";
import { ApiError, follow, ok, type Api, type Move, type Schemas } from "./client.js";
import { ndjsonValues } from "./stream.js";

export interface Turn {
  game: string;
  seat: number;
  version: number;
  view: Schemas["State"]["view"];
  moves: Move[];
  deadlineMs: number | null;
}

export type Choose = (turn: Turn) => Move | Promise<Move>;

const MOVED_ON = new Set(["NOT_YOUR_TURN", "WRONG_PHASE", "ILLEGAL_MOVE", "GAME_OVER", "VERSION_MISMATCH"]);
const MAX_REREADS = 50; // a game that moves on under one turn this often has other seats in a hurry, not a stuck bot

/** Play this seat's turn in ``game`` if it still owes one; the version its move made, or null. */
export async function takeTurn(api: Api, game: string, seat: number, choose: Choose, deadlineMs: number | null = null):
    Promise<number | null> {
  for (let read = 0; read < MAX_REREADS; read++) {
    const listed = ok(await api.GET("/api/v1/games/{game_id}/moves", { params: { path: { game_id: game } } }));
    if (listed.moves.length === 0) return null; // not our turn any more (the clock played, or the game ended)
    const state = ok(await api.GET("/api/v1/games/{game_id}/state", { params: { path: { game_id: game } } }));
    const move = await choose({ game, seat, version: listed.version, view: state.view, moves: listed.moves, deadlineMs });
    const answer = await api.POST("/api/v1/games/{game_id}/moves", {
      params: {
        path: { game_id: game },
        header: { "If-Match": `"${listed.version}"`, "Idempotency-Key": `ts-${game}-${listed.version}-${randomUUID()}` },
      },
      body: move,
    });
    if (answer.response.status === 412) continue;
    try {
      return ok(answer).version;
    } catch (error) {
      if (error instanceof ApiError && error.status === 422 && MOVED_ON.has(error.kind)) continue;
      throw error;
    }
  }
  console.warn(`game ${game}: still to act after ${MAX_REREADS} reads that the game moved on; giving up this turn`);
  return null;
}

export interface PullOptions {
  games?: number; // return after this many games ended (default: follow for ever)
  signal?: AbortSignal;
  onGameEnd?: (data: Record<string, unknown>) => void | Promise<void>;
  format?: "sse" | "ndjson";
}

/** Follow a pull bot's stream and play every turn it is told of; the number of games that ended. */
export async function playPull(api: Api, base: string, botId: string, botToken: string, choose: Choose,
                               options: PullOptions = {}): Promise<number> {
  let finished = 0;
  const posted = new Map<string, number>(); // game → the version our last move made
  const path = `/api/v1/bots/${encodeURIComponent(botId)}/events/stream`;
  const stream = follow(base, path, botToken, {
    ...(options.signal ? { signal: options.signal } : {}), format: options.format ?? "sse" });
  for await (const { event, data } of stream) {
    if (event === "your_turn") {
      const game = String(data["game"]);
      if (Number(data["version"]) < (posted.get(game) ?? -1)) continue; // a turn already answered (a resync)
      const deadline = typeof data["deadline_ms"] === "number" ? data["deadline_ms"] : null;
      const made = await takeTurn(api, game, Number(data["seat"]), choose, deadline);
      if (made !== null) posted.set(game, made);
    } else if (event === "game_finished") {
      finished++;
      posted.delete(String(data["game"]));
      await options.onGameEnd?.(data);
      if (options.games !== undefined && finished >= options.games) break;
    }
  }
  return finished;
}

type Line = Schemas["StreamLine"];

/** Play one seat (``api`` holds its seat token) from the game's NDJSON stream to the game's end;
 * the versions of the moves it made. */
export async function playSeat(api: Api, game: string, choose: Choose, signal?: AbortSignal): Promise<number[]> {
  const { response } = await api.GET("/api/v1/games/{game_id}/events/stream", {
    params: { path: { game_id: game } },
    headers: { Accept: "application/x-ndjson" },
    parseAs: "stream",
    ...(signal ? { signal } : {}),
  });
  if (!response.ok || response.body === null) {
    throw new ApiError(response.status, await response.json().catch(() => ({})) as Record<string, unknown>, null);
  }
  const made: number[] = [];
  let seat: number | null = null;
  for await (const line of ndjsonValues<Line>(response.body)) {
    if (line.kind === "snapshot") seat = line.seat ?? null;
    if ((line.kind === "snapshot" || line.kind === "moves") && line.moves.length > 0 && seat !== null) {
      const version = await takeTurn(api, game, seat, choose);
      if (version !== null) made.push(version);
    } else if (line.kind === "end") {
      break;
    }
  }
  return made;
}
