// Push: the service calls you. A registered `kind: "http"` bot gives the service a URL; for each
// decision a worker POSTs the seat's view and legal moves there and plays the `move` of the answer.
//
//     POST <your url>
//     Content-Type: application/json
//     X-Hourglass-Signature: sha256=<hex HMAC-SHA256 of the raw body, key = the bot's secret>
//     {"game": …, "seat": …, "version": …, "view": {…}, "moves": [{…}, …], "deadline_ms": …}
//
//     200 {"move": <one of moves, verbatim>}
//
// A request whose signature does not verify is answered 401 and never reaches `choose` (the service
// records that call as `bad_signature` on the bot's stream: your secret and the service's differ);
// a body over the limit is answered 413 before it is read whole; anything that is not a decision
// request, 400. The answer must arrive within the decision's deadline (`deadline_ms`), or the
// service plays the seat's default move and records a `timeout`.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Choose, Turn } from "./bot.js";

export const SIGNATURE_HEADER = "x-hourglass-signature";
export const MAX_BODY_BYTES = 4 * 1024 * 1024; // the largest view of any game is far below this

/** The signature header value of `body` under `secret`: `sha256=<hex>`. */
export function sign(secret: string, body: Uint8Array | string): string {
  return "sha256=" + createHmac("sha256", secret).update(body).digest("hex");
}

/** Whether `header` is `body`'s signature under `secret`, compared in constant time. */
export function verifySignature(secret: string, body: Uint8Array | string, header: string | undefined | null): boolean {
  if (typeof header !== "string") return false;
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The decision a request carries, or null when the body is not one. */
export function decisionOf(body: string): Turn | null {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  const d = data as Record<string, unknown>;
  if (typeof d["game"] !== "string" || typeof d["seat"] !== "number" || typeof d["version"] !== "number"
      || typeof d["view"] !== "object" || d["view"] === null || !Array.isArray(d["moves"])) return null;
  return {
    game: d["game"], seat: d["seat"], version: d["version"], view: d["view"] as Turn["view"],
    moves: d["moves"] as Turn["moves"], deadlineMs: typeof d["deadline_ms"] === "number" ? d["deadline_ms"] : null,
  };
}

export interface PushOptions {
  host?: string; // default 127.0.0.1; the service's allow-list (HOURGLASS_BOT_HOSTS) must name host:port
  port?: number; // default 0: any free port (read it from `url`)
  maxBodyBytes?: number;
}

/** A running push server: its `url` to register, counters, and `close()`. */
export interface PushServer {
  url: string;
  calls: number; // decisions answered
  refused: number; // requests refused for their signature
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, obj: unknown): void {
  const data = JSON.stringify(obj);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
  res.end(data);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) return null;
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    const chunk = part as Buffer;
    size += chunk.length;
    if (size > limit) return null; // a body longer than it said it was
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** Serve `choose` to the service: resolves once the server listens. */
export async function servePush(choose: Choose, secret: string, options: PushOptions = {}): Promise<PushServer> {
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const state = { calls: 0, refused: 0 };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(`push bot: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) send(res, 500, { error: "the bot failed to choose" });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === "GET") return send(res, 200, { bot: "hourglass-starter" });
    if (req.method !== "POST") return send(res, 405, { error: "POST a decision request" });
    const body = await readBody(req, limit);
    if (body === null) {
      res.setHeader("Connection", "close"); // do not read the rest of an oversized body
      return send(res, 413, { error: "too large" });
    }
    if (!verifySignature(secret, body, req.headers[SIGNATURE_HEADER] as string | undefined)) {
      state.refused++;
      return send(res, 401, { error: "bad signature" });
    }
    const turn = decisionOf(body.toString("utf8"));
    if (turn === null) return send(res, 400, { error: "not a decision request" });
    const move = await choose(turn);
    state.calls++;
    return send(res, 200, { move });
  }

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/move`,
    get calls() { return state.calls; },
    get refused() { return state.refused; },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
