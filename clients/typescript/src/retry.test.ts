// The retries: what the server asks for is what we wait, within the bounds; unsafe requests are
// not sent twice; the body of a retried POST arrives every time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { retryAfterMs, retryingFetch, type RetryPolicy } from "./retry.js";

const NOW = Date.parse("2026-11-27T12:00:00Z");

test("Retry-After: delta-seconds, an HTTP date, and what is neither", () => {
  assert.equal(retryAfterMs("7", NOW), 7000);
  assert.equal(retryAfterMs(" 0.5 ", NOW), 500);
  assert.equal(retryAfterMs("Fri, 27 Nov 2026 12:00:42 GMT", NOW), 42_000);
  assert.equal(retryAfterMs("Fri, 27 Nov 2026 11:59:00 GMT", NOW), 0); // a date in the past: now
  for (const bad of [null, undefined, "", "soon", "-5", "1e3", "5s"]) assert.equal(retryAfterMs(bad, NOW), null, String(bad));
});

interface Script {
  fetch: (r: Request) => Promise<Response>;
  seen: { method: string; body: string; key: string | null }[];
}

function server(answers: (Response | Error)[]): Script {
  const seen: Script["seen"] = [];
  return {
    seen,
    fetch: async (r: Request) => {
      seen.push({ method: r.method, body: await r.text(), key: r.headers.get("Idempotency-Key") });
      const next = answers.shift();
      if (next === undefined) throw new Error("no more answers scripted");
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

function policy(slept: number[], extra: Partial<RetryPolicy> = {}): Partial<RetryPolicy> {
  return { sleep: async (ms) => { slept.push(ms); }, now: () => NOW, ...extra };
}

const limited = (after: string | null, status = 429) =>
  new Response(JSON.stringify({ kind: "RATE_LIMITED" }), { status, headers: after === null ? {} : { "Retry-After": after } });

test("a 429 is retried after exactly the Retry-After it carries, then succeeds", async () => {
  const slept: number[] = [];
  const s = server([limited("42"), limited("Fri, 27 Nov 2026 12:00:03 GMT", 503), new Response("{}", { status: 200 })]);
  const response = await retryingFetch(policy(slept), s.fetch)(new Request("http://h/api/v1/games/g/moves"));
  assert.equal(response.status, 200);
  assert.deepEqual(slept, [42_000, 3_000]);
  assert.equal(s.seen.length, 3);
});

test("a wait longer than the longest we accept is handed back at once, with its Retry-After", async () => {
  const slept: number[] = [];
  const s = server([limited("600")]);
  const response = await retryingFetch(policy(slept), s.fetch)(new Request("http://h/x"));
  assert.equal(response.status, 429);
  assert.equal(response.headers.get("Retry-After"), "600");
  assert.deepEqual(slept, []);
});

test("the waiting per call is bounded by the budget", async () => {
  const slept: number[] = [];
  const s = server([limited("60"), limited("60"), limited("60")]);
  const response = await retryingFetch(policy(slept, { budgetMs: 100_000 }), s.fetch)(new Request("http://h/x"));
  assert.equal(response.status, 429);
  assert.deepEqual(slept, [60_000]); // a second minute would pass the budget
});

test("without Retry-After the backoff doubles up to its cap; the last answer is returned after the retries", async () => {
  const slept: number[] = [];
  const s = server([limited(null, 502), limited(null, 504), limited(null, 503), limited(null, 503), limited(null, 503)]);
  const response = await retryingFetch(policy(slept, { retries: 4, firstDelayMs: 100, maxDelayMs: 300 }), s.fetch)(
    new Request("http://h/x"));
  assert.equal(response.status, 503);
  assert.deepEqual(slept, [100, 200, 300, 300]);
  assert.equal(s.seen.length, 5);
});

test("a connection failure is retried; one that lasts is thrown", async () => {
  const slept: number[] = [];
  const s = server([new TypeError("fetch failed"), new Response("ok")]);
  assert.equal(await (await retryingFetch(policy(slept), s.fetch)(new Request("http://h/x"))).text(), "ok");
  const failing = server([new TypeError("a"), new TypeError("b"), new TypeError("c")]);
  await assert.rejects(retryingFetch(policy([], { retries: 2 }), failing.fetch)(new Request("http://h/x")), /c/);
});

test("a POST with an Idempotency-Key is sent again with the same key and the same body", async () => {
  const slept: number[] = [];
  const s = server([limited("1"), new Response("{}", { status: 201 })]);
  const request = new Request("http://h/api/v1/games/g/moves", {
    method: "POST", body: '{"type":"Pass"}', headers: { "Idempotency-Key": "k-1", "Content-Type": "application/json" } });
  assert.equal((await retryingFetch(policy(slept), s.fetch)(request)).status, 201);
  assert.deepEqual(s.seen, [{ method: "POST", body: '{"type":"Pass"}', key: "k-1" },
                            { method: "POST", body: '{"type":"Pass"}', key: "k-1" }]);
});

test("a POST without an Idempotency-Key is never sent twice", async () => {
  const s = server([limited("1")]);
  const request = new Request("http://h/api/v1/games", { method: "POST", body: "{}" });
  assert.equal((await retryingFetch(policy([]), s.fetch)(request)).status, 429);
  assert.equal(s.seen.length, 1);
});

test("other errors are not retried", async () => {
  const s = server([new Response("{}", { status: 422 })]);
  assert.equal((await retryingFetch(policy([]), s.fetch)(new Request("http://h/x"))).status, 422);
  assert.equal(s.seen.length, 1);
});
