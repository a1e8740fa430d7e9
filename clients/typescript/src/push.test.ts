// The push server: it signs as the service does, answers a signed decision with the bot's move, and
// refuses a forged, oversized or malformed request before `choose` sees it.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Turn } from "./bot.js";
import type { Move } from "./client.js";
import { decisionOf, servePush, sign, verifySignature } from "./push.js";

const SECRET = "s3cret-of-at-least-32-characters-long";

test("the signature is the service's (workers/httpbot.py sign, same secret and body)", () => {
  // computed with the service's own function: sign(SECRET, b'{"game":"g1"}')
  const body = '{"game":"g1"}';
  assert.equal(sign(SECRET, body), "sha256=01d97974a0b5746802281727fd2a55604cc494199ccfc798df4755a0931940ee");
  assert.ok(verifySignature(SECRET, Buffer.from(body), sign(SECRET, body)));
  assert.ok(!verifySignature(SECRET, body + " ", sign(SECRET, body)));
  assert.ok(!verifySignature("another secret of thirty-two chars!", body, sign(SECRET, body)));
  for (const bad of [undefined, null, "", "sha256=", sign(SECRET, body).slice(0, -1)]) {
    assert.ok(!verifySignature(SECRET, body, bad), String(bad));
  }
});

test("a decision request is read, and what is not one is null", () => {
  const turn = decisionOf(JSON.stringify({ game: "g", seat: 1, version: 7, view: {}, moves: [{ type: "Pass" }],
                                           deadline_ms: 900 }));
  assert.deepEqual(turn, { game: "g", seat: 1, version: 7, view: {}, moves: [{ type: "Pass" }], deadlineMs: 900 });
  for (const bad of ["", "[]", "null", "{", '{"game":"g"}', '{"game":"g","seat":"1","version":1,"view":{},"moves":[]}']) {
    assert.equal(decisionOf(bad), null, bad);
  }
});

test("the server answers a signed request with the move and refuses the rest", async () => {
  const seen: Turn[] = [];
  const push = await servePush((turn) => { seen.push(turn); return turn.moves[1] as Move; }, SECRET);
  try {
    const body = JSON.stringify({ game: "g", seat: 0, version: 3, view: { game: "cathedral" },
                                  moves: [{ type: "A" }, { type: "B" }] });
    const post = (data: string, signature: string | null) => fetch(push.url, {
      method: "POST", body: data,
      headers: { "Content-Type": "application/json", ...(signature ? { "X-Hourglass-Signature": signature } : {}) },
    });
    const answered = await post(body, sign(SECRET, body));
    assert.equal(answered.status, 200);
    assert.deepEqual(await answered.json(), { move: { type: "B" } });

    const forged = await post(body, sign("not the bot's secret, though long enough", body));
    assert.equal(forged.status, 401);
    assert.equal((await post(body, null)).status, 401);
    assert.equal((await post("not json", sign(SECRET, "not json"))).status, 400);
    const huge = "x".repeat(4 * 1024 * 1024 + 1);
    assert.equal((await post(huge, sign(SECRET, huge))).status, 413);
    assert.equal((await fetch(push.url)).status, 200); // a liveness probe

    assert.equal(seen.length, 1, "only the signed, well-formed request reached choose");
    assert.equal(push.calls, 1);
    assert.equal(push.refused, 2);
  } finally {
    await push.close();
  }
});
