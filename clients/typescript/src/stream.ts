// Reading hourglass's live streams with fetch and a ReadableStream (no EventSource: it cannot send
// an Authorization header). Two framings, both fed with whatever chunks the network hands over —
// a chunk may end in the middle of a line, of a multi-byte character, or of an event:
//
// - NDJSON (Accept: application/x-ndjson): one JSON value per line; an empty line is a keep-alive.
//   A game's stream sends {kind, ...} lines (snapshot, event, moves, clocks, end, resync); a bot's or
//   an account's sends {id, event, data}.
// - Server-Sent Events (text/event-stream, the WHATWG framing): "field: value" lines, a blank line
//   ends an event, ":" starts a comment (the server's heartbeats), several data lines join with "\n",
//   the id is remembered for Last-Event-ID, and CRLF, LF or CR all end a line.

/** One Server-Sent Event, its data still text. */
export interface SseMessage {
  id: string | null; // the last id seen on this stream (what to send as Last-Event-ID)
  event: string; // "message" when the event named none
  data: string;
  retry: number | null;
}

/** Splits text into lines on CRLF, LF or CR, keeping an unfinished last line for the next chunk. */
class Lines {
  private rest = "";
  private pendingCr = false; // the last chunk ended in CR: a following LF belongs to it

  push(text: string): string[] {
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.pendingCr = false;
    const all = this.rest + text;
    const out: string[] = [];
    let start = 0;
    for (let i = 0; i < all.length; i++) {
      const c = all[i];
      if (c !== "\n" && c !== "\r") continue;
      out.push(all.slice(start, i));
      if (c === "\r") {
        if (i + 1 === all.length) this.pendingCr = true;
        else if (all[i + 1] === "\n") i++;
      }
      start = i + 1;
    }
    this.rest = all.slice(start);
    return out;
  }

  /** What is left when the stream ends (a last line without its line end). */
  flush(): string {
    const rest = this.rest;
    this.rest = "";
    return rest;
  }
}

export class NdjsonParser<T = unknown> {
  private lines = new Lines();

  /** The values completed by this chunk. */
  push(text: string): T[] {
    return this.parse(this.lines.push(text));
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): T[] {
    return this.parse([this.lines.flush()]);
  }

  private parse(lines: string[]): T[] {
    const out: T[] = [];
    for (const line of lines) {
      if (line.trim() === "") continue; // keep-alive
      out.push(JSON.parse(line) as T);
    }
    return out;
  }
}

export class SseParser {
  private lines = new Lines();
  private data: string[] = [];
  private event = "";
  private lastId: string | null = null;
  private retry: number | null = null;
  private first = true;

  constructor(lastEventId: string | null = null) {
    this.lastId = lastEventId;
  }

  get lastEventId(): string | null {
    return this.lastId;
  }

  push(text: string): SseMessage[] {
    if (this.first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a leading byte-order mark
      this.first = false;
    }
    const out: SseMessage[] = [];
    for (const line of this.lines.push(text)) {
      const message = this.line(line);
      if (message !== null) out.push(message);
    }
    return out;
  }

  /** The stream ended: an event not closed by a blank line is dropped, as the standard says. */
  end(): SseMessage[] {
    this.lines.flush();
    this.data = [];
    this.event = "";
    return [];
  }

  private line(line: string): SseMessage | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null; // a comment: the heartbeat
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
    return null;
  }

  private dispatch(): SseMessage | null {
    const event = this.event || "message";
    this.event = "";
    if (this.data.length === 0) return null;
    const data = this.data.join("\n");
    this.data = [];
    return { id: this.lastId, event, data, retry: this.retry };
  }
}

/** The text of a response body, chunk by chunk, decoded as UTF-8 across chunk boundaries. */
export async function* texts(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text !== "") yield text;
    }
    const tail = decoder.decode();
    if (tail !== "") yield tail;
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

export async function* ndjsonValues<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const parser = new NdjsonParser<T>();
  for await (const text of texts(body)) yield* parser.push(text);
  yield* parser.end();
}

export async function* sseMessages(body: ReadableStream<Uint8Array>, lastEventId: string | null = null):
    AsyncGenerator<SseMessage> {
  const parser = new SseParser(lastEventId);
  for await (const text of texts(body)) yield* parser.push(text);
  yield* parser.end();
}
