// The stream framings, fed as the network may cut them: every split of the same bytes gives the
// same messages.
import assert from "node:assert/strict";
import { test } from "node:test";
import { NdjsonParser, SseParser, ndjsonValues, sseMessages, type SseMessage } from "./stream.js";

function sse(chunks: string[], lastEventId: string | null = null): SseMessage[] {
  const parser = new SseParser(lastEventId);
  return [...chunks.flatMap((c) => parser.push(c)), ...parser.end()];
}

function everySplit(text: string): string[][] {
  const out: string[][] = [[text]];
  for (let i = 1; i < text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  out.push([...text]); // one character at a time
  return out;
}

function body(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === "string" ? encoder.encode(c) : c);
      controller.close();
    },
  });
}

const FEED = 'id: 1-0\nevent: your_turn\ndata: {"game":"g1","version":4}\n\n' +
  ": heartbeat\n\n" +
  'id: 1-1\nevent: game_finished\ndata: {"game":"g1",\ndata: "rank":1}\n\n';

test("SSE: ids, names, comments and multi-line data, however the chunks fall", () => {
  const expected: SseMessage[] = [
    { id: "1-0", event: "your_turn", data: '{"game":"g1","version":4}', retry: null },
    { id: "1-1", event: "game_finished", data: '{"game":"g1",\n"rank":1}', retry: null },
  ];
  for (const chunks of everySplit(FEED)) assert.deepEqual(sse(chunks), expected, JSON.stringify(chunks));
});

test("SSE: CRLF and lone CR end lines too, even when a CRLF is cut in two", () => {
  const crlf = FEED.replaceAll("\n", "\r\n");
  const cr = FEED.replaceAll("\n", "\r");
  const plain = sse([FEED]);
  for (const text of [crlf, cr]) {
    for (const chunks of everySplit(text)) assert.deepEqual(sse(chunks), plain, JSON.stringify(chunks));
  }
});

test("SSE: no data, no event; an unnamed event is a message; the id carries over; retry is read", () => {
  const got = sse(["event: nothing\n\n", "retry: 1500\ndata: x\n\n", "id: 7\nevent: a\ndata:y\n\n", "data: z\n\n"]);
  assert.deepEqual(got, [
    { id: null, event: "message", data: "x", retry: 1500 },
    { id: "7", event: "a", data: "y", retry: 1500 },
    { id: "7", event: "message", data: "z", retry: 1500 },
  ]);
});

test("SSE: a resumed stream starts from the Last-Event-ID it was given; an unfinished event is dropped", () => {
  assert.deepEqual(sse(["data: a\n\n", "data: cut off"], "3-0"), [{ id: "3-0", event: "message", data: "a", retry: null }]);
});

test("SSE: a field without a colon, an unknown field and a byte-order mark are handled as the standard says", () => {
  assert.deepEqual(sse(["\ufeffdata\nfoo: bar\n\n"]), [{ id: null, event: "message", data: "", retry: null }]);
});

const LINES = '{"kind":"snapshot","version":3,"moves":[{"type":"Pass"}]}\n\n' +
  '{"kind":"event","seq":4}\n{"kind":"end","version":4}\n';

test("NDJSON: one value a line, keep-alive blank lines skipped, however the chunks fall", () => {
  const expected = [{ kind: "snapshot", version: 3, moves: [{ type: "Pass" }] }, { kind: "event", seq: 4 },
                    { kind: "end", version: 4 }];
  for (const chunks of everySplit(LINES)) {
    const parser = new NdjsonParser();
    assert.deepEqual([...chunks.flatMap((c) => parser.push(c)), ...parser.end()], expected, JSON.stringify(chunks));
  }
});

test("NDJSON: a last line without its newline still counts; a broken line is an error, not skipped", () => {
  const parser = new NdjsonParser();
  assert.deepEqual(parser.push('{"a":1}\n{"b"'), [{ a: 1 }]);
  assert.deepEqual(parser.push(":2}"), []);
  assert.deepEqual(parser.end(), [{ b: 2 }]);
  assert.throws(() => new NdjsonParser().push("{nope}\n"), SyntaxError);
});

test("readers: a multi-byte character cut between two chunks arrives whole", async () => {
  const bytes = new TextEncoder().encode('{"name":"Orléans ✓"}\n');
  const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of "é"
  const values: unknown[] = [];
  for await (const v of ndjsonValues(body([bytes.slice(0, cut), bytes.slice(cut, cut + 13), bytes.slice(cut + 13)]))) {
    values.push(v);
  }
  assert.deepEqual(values, [{ name: "Orléans ✓" }]);
  const messages: SseMessage[] = [];
  const sseBytes = new TextEncoder().encode("id: 1\ndata: Cathédrale\n\n");
  for await (const m of sseMessages(body([sseBytes.slice(0, 17), sseBytes.slice(17)]))) messages.push(m);
  assert.deepEqual(messages, [{ id: "1", event: "message", data: "Cathédrale", retry: null }]);
});
