// A starter bot for ANY hourglass game (Orléans, Artificium, The Cathedral of Orléans), the
// TypeScript twin of examples/any_game_bot.py with the same options. It knows no rules: it reads the
// legal-move list the service sends, avoids moves that give up the turn or undo progress when it has
// anything else, and picks among the rest with a generator seeded by the game and version (so a
// replay of your bot decides the same). Copy this file and make `choose` smarter: `turn.view` is
// everything your seat may see.
//
//     node build/starter.js --game cathedral                  # pull: register, play one game vs built-ins
//     node build/starter.js --server http://host:8000 --games 3 --players 2 --opponent random
//     node build/starter.js --game-id ID --token TOKEN        # play one seat you hold, by its token
//     node build/starter.js --mode push --port 9000           # push: the service calls you (allow-list it:
//                                                             #   HOURGLASS_BOT_HOSTS=127.0.0.1:9000 make run)
//
// A bot belongs to an account: with HOURGLASS_KEY (or --key; an account key, hga_…) the bot is
// registered to that account; without one the starter signs up a fresh account and prints its key.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { playPull, playSeat, type Turn } from "./bot.js";
import { ApiError, connect, ok, type Api, type Move, type Schemas } from "./client.js";
import { servePush } from "./push.js";
import { ndjsonValues } from "./stream.js";
import { Random } from "./random.js";

const RELUCTANT = ["Pass", "GiveUp", "Recall", "Decline", "TakeCardBack", "Finish"]; // words in move types

/** The decision: change this. */
export function choose(turn: Turn): Move {
  const eager = turn.moves.filter((m) => !RELUCTANT.some((word) => m.type.includes(word)));
  const pool = eager.length > 0 ? eager : turn.moves;
  return new Random(`${turn.game}:${turn.version}`).choice(pool);
}

const EDITIONS: Record<string, string> = { orleans: "classic", artificium: "standard", cathedral: "standard" };
const GAMES = Object.keys(EDITIONS);

interface Args {
  server: string;
  mode: string;
  game: string;
  edition: string | undefined;
  players: number;
  opponent: string;
  games: number;
  name: string | undefined;
  deadline: number;
  key: string | undefined;
  gameId: string | undefined;
  token: string | undefined;
  host: string;
  port: number;
}

const USAGE = `usage: node build/starter.js [--server URL] [--game ${GAMES.join("|")}] [--edition E] [--players N]
       [--opponent random|greedy|…] [--games N] [--name NAME] [--deadline SECONDS] [--key hga_…]
       node build/starter.js --mode push [--host 127.0.0.1] [--port 9000] [the options above]
       node build/starter.js --game-id ID --token TOKEN [--server URL]`;

function options(argv: string[]): Args {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: "string", default: process.env["HOURGLASS_URL"] ?? "http://127.0.0.1:8000" },
      mode: { type: "string", default: "pull" },
      game: { type: "string", default: "orleans" },
      edition: { type: "string" },
      players: { type: "string", default: "3" },
      opponent: { type: "string", default: "greedy" },
      games: { type: "string", default: "1" },
      name: { type: "string" },
      deadline: { type: "string", default: "30" },
      key: { type: "string" },
      "game-id": { type: "string" },
      token: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "9000" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, text: string, min: number): number => {
    const n = Number(text);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}, not ${text}\n${USAGE}`);
    return n;
  };
  if (values.mode !== "pull" && values.mode !== "push") throw new Error(`--mode is pull or push, not ${values.mode}\n${USAGE}`);
  if (!GAMES.includes(values.game)) throw new Error(`--game is one of ${GAMES.join(", ")}, not ${values.game}`);
  if ((values["game-id"] === undefined) !== (values.token === undefined)) {
    throw new Error(`--game-id and --token go together\n${USAGE}`);
  }
  return {
    server: values.server, mode: values.mode, game: values.game, edition: values.edition,
    players: Math.trunc(number("players", values.players, 1)), opponent: values.opponent,
    games: Math.trunc(number("games", values.games, 1)), name: values.name,
    deadline: number("deadline", values.deadline, 0.1), key: values.key ?? process.env["HOURGLASS_KEY"],
    gameId: values["game-id"], token: values.token, host: values.host,
    port: Math.trunc(number("port", values.port, 0)),
  };
}

async function accountKey(args: Args): Promise<string> {
  if (args.key) return args.key;
  const account = ok(await connect(args.server).POST("/api/v1/accounts", {
    body: { name: `starter-${randomBytes(4).toString("hex")}` },
  }));
  console.log(`signed up account ${account.name}; keep its key (export HOURGLASS_KEY=...): ${account.key}`);
  return account.key;
}

async function report(api: Api, base: string, game: string, seat: number): Promise<void> {
  const summary = ok(await api.GET("/api/v1/games/{game_id}", { params: { path: { game_id: game } } }));
  const result = summary.result as { ranking: { seat: number; rank: number; score?: unknown }[]; outcome?: string } | null;
  const mine = result?.ranking.find((r) => r.seat === seat);
  const shared = result?.outcome !== undefined ? ` (a cooperative game: everyone ${result.outcome} together)` : "";
  console.log(`game ${game} finished: rank ${mine?.rank ?? "?"} of ${summary.seats.length}, score ` +
              `${JSON.stringify(mine?.score ?? null)}${shared} — watch it at ${base}/games/${game}`);
}

function createBody(args: Args, botId: string): Schemas["CreateGame"] {
  const others: Schemas["SeatSpec"][] = Array.from({ length: args.players - 1 }, (_, i) => (
    { name: `${args.opponent}-${i + 1}`, kind: "bot", bot: args.opponent }));
  return {
    game: args.game, edition: args.edition ?? EDITIONS[args.game],
    seats: [{ bot_id: botId, deadline_s: args.deadline }, ...others],
  } as Schemas["CreateGame"]; // game and edition were checked against the list above; the server checks again
}

async function playOneSeat(args: Args, gameId: string, token: string): Promise<number> {
  const api = connect(args.server, { token });
  const made = await playSeat(api, gameId, choose);
  const state = ok(await api.GET("/api/v1/games/{game_id}/state", { params: { path: { game_id: gameId } } }));
  console.log(`played ${made.length} moves in game ${gameId} as seat ${state.seat}`);
  if (state.seat !== null && state.seat !== undefined) await report(api, args.server, gameId, state.seat);
  return 0;
}

async function playPullBot(args: Args): Promise<number> {
  const key = await accountKey(args);
  const api = connect(args.server, { token: key });
  const name = args.name ?? `starter-${args.game}-${randomBytes(3).toString("hex")}`;
  const bot = ok(await api.POST("/api/v1/bots", { body: { name, kind: "pull" } }));
  console.log(`registered pull bot ${name} (${bot.id}); keep its token: ${bot.token}`);
  const me = connect(args.server, { token: bot.token });
  let ended = 0;
  const playing = playPull(me, args.server, bot.id, bot.token, choose, {
    games: args.games,
    onGameEnd: async (data) => {
      ended++;
      await report(api, args.server, String(data["game"]), Number(data["seat"]));
    },
  });
  for (let i = 0; i < args.games; i++) {
    const created = ok(await api.POST("/api/v1/games", { body: createBody(args, bot.id) }));
    console.log(`created game ${created.id} (${args.game}, ${args.players} seats)`);
  }
  await playing;
  return ended === args.games ? 0 : 1;
}

/** Read the game's NDJSON stream until its `end` line: the game is over. */
async function waitForEnd(api: Api, game: string): Promise<void> {
  const { response } = await api.GET("/api/v1/games/{game_id}/events/stream", {
    params: { path: { game_id: game } }, headers: { Accept: "application/x-ndjson" }, parseAs: "stream",
  });
  if (!response.ok || response.body === null) {
    throw new ApiError(response.status, await response.json().catch(() => ({})) as Record<string, unknown>, null);
  }
  for await (const line of ndjsonValues<Schemas["StreamLine"]>(response.body)) {
    if (line.kind === "end") return;
  }
}

async function playPushBot(args: Args): Promise<number> {
  const key = await accountKey(args);
  const api = connect(args.server, { token: key });
  const secret = randomBytes(32).toString("hex"); // the service signs every call with it; it never travels back
  const push = await servePush(choose, secret, { host: args.host, port: args.port });
  try {
    const name = args.name ?? `starter-${args.game}-${randomBytes(3).toString("hex")}`;
    const bot = ok(await api.POST("/api/v1/bots", { body: { name, kind: "http", url: push.url, secret } }));
    console.log(`registered push bot ${name} (${bot.id}) at ${push.url}`);
    let ended = 0;
    for (let i = 0; i < args.games; i++) {
      const created = ok(await api.POST("/api/v1/games", { body: createBody(args, bot.id) }));
      console.log(`created game ${created.id}; the service calls ${push.url} for every move`);
      await waitForEnd(api, created.id);
      await report(api, args.server, created.id, 0);
      ended++;
    }
    console.log(`${push.calls} calls answered, ${push.refused} refused (bad signature)`);
    return ended === args.games ? 0 : 1;
  } finally {
    await push.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const args = options(argv);
  if (args.gameId !== undefined && args.token !== undefined) return playOneSeat(args, args.gameId, args.token);
  return args.mode === "push" ? playPushBot(args) : playPullBot(args);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  });
}
