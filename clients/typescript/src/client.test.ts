// follow() against a small local server: a dropped connection is resumed with Last-Event-ID (no
// event lost or repeated), a full stream budget (429) is waited out as Retry-After says, the token
// goes in the Authorization header, and breaking out of the loop closes the connection.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { ApiError, follow, type FeedEvent } from "./client.js";

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

async function serve(handler: Handler): Promise<{ base: string; seen: IncomingMessage["headers"][]; close: () => Promise<void> }> {
  const seen: IncomingMessage["headers"][] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    handler(req, res, seen.length);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const frame = (id: string, event: string, data: object) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

test("SSE: a dropped connection resumes after the last id; a 429 waits its Retry-After", async () => {
  const live = await serve((req, res, n) => {
    if (n === 1) {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(": hello\n\n" + frame("5-0", "your_turn", { game: "g", version: 1 }) + frame("5-1", "call", { ok: true }));
      res.write("id: 5-2\nevent: your_tu"); // cut mid-event: this one must come again, whole
      setTimeout(() => res.destroy(), 20);
    } else if (n === 2) {
      res.writeHead(429, { "Content-Type": "application/problem+json", "Retry-After": "3" });
      res.end(JSON.stringify({ kind: "TOO_MANY_STREAMS", status: 429 }));
    } else {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(frame("5-2", "your_turn", { game: "g", version: 3 }) + frame("5-3", "game_finished", { game: "g" }));
    }
  });
  const slept: number[] = [];
  const got: FeedEvent[] = [];
  try {
    for await (const event of follow(live.base, "/api/v1/bots/b1/events/stream", "hgb_secret", {
      sleep: async (ms) => { slept.push(ms); } })) {
      got.push(event);
      if (event.event === "game_finished") break;
    }
  } finally {
    await live.close();
  }
  assert.deepEqual(got.map((e) => e.id), ["5-0", "5-1", "5-2", "5-3"]);
  assert.deepEqual(got[2], { id: "5-2", event: "your_turn", data: { game: "g", version: 3 } });
  assert.equal(live.seen.length, 3);
  assert.equal(live.seen[0]?.["last-event-id"], undefined);
  assert.equal(live.seen[1]?.["last-event-id"], "5-1");
  assert.equal(live.seen[2]?.["last-event-id"], "5-1");
  assert.ok(live.seen.every((h) => h.authorization === "Bearer hgb_secret" && h.accept === "text/event-stream"));
  assert.ok(slept.includes(3000), `waited ${JSON.stringify(slept)}`);
});

test("NDJSON: {id, event, data} lines, resumed from a given id; keep-alive lines skipped", async () => {
  const live = await serve((req, res) => {
    res.writeHead(200, { "Content-Type": "application/x-ndjson" });
    res.write('{"id":"9-0","event":"game_started","data":{"game":"g"}}\n\n{"id":"9-1","eve');
    setTimeout(() => res.end('nt":"your_turn","data":{"game":"g","version":2}}\n'), 20);
  });
  const got: FeedEvent[] = [];
  try {
    for await (const event of follow(live.base, "/s", "t", { format: "ndjson", after: "8-9" })) {
      got.push(event);
      if (got.length === 2) break;
    }
  } finally {
    await live.close();
  }
  assert.deepEqual(got.map((e) => [e.id, e.event]), [["9-0", "game_started"], ["9-1", "your_turn"]]);
  assert.equal(live.seen[0]?.["last-event-id"], "8-9");
  assert.equal(live.seen[0]?.accept, "application/x-ndjson");
});

test("a refusal that is not a wait is an ApiError with the problem's kind", async () => {
  const live = await serve((req, res) => {
    res.writeHead(401, { "Content-Type": "application/problem+json" });
    res.end(JSON.stringify({ kind: "UNAUTHORIZED", status: 401, detail: "no such token" }));
  });
  try {
    await assert.rejects(async () => {
      for await (const _ of follow(live.base, "/s", "made-up")) assert.fail("no event for a stranger");
    }, (error: unknown) => error instanceof ApiError && error.status === 401 && error.kind === "UNAUTHORIZED");
  } finally {
    await live.close();
  }
});

test("breaking out of the loop closes the connection", async () => {
  let closed = false;
  const live = await serve((req, res) => {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write(frame("1-0", "resync", {}));
    res.on("close", () => { closed = true; });
  });
  try {
    for await (const _ of follow(live.base, "/s", "t")) break;
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(closed, "the server still holds the connection");
  } finally {
    await live.close();
  }
});
