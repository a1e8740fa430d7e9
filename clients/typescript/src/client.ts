// The typed client: openapi-fetch over the types openapi-typescript wrote from the service's
// /openapi.json (src/api.d.ts; `npm run generate -- http://HOST/openapi.json` refreshes them), with
// the retrying fetch of retry.ts, and a follower for the resumable event streams (a bot's, an
// account's) that reconnects with Last-Event-ID so no event is lost or repeated.
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";
import { retryAfterMs, retryingFetch, type RetryPolicy } from "./retry.js";
import { ndjsonValues, sseMessages } from "./stream.js";

export type Schemas = components["schemas"];
export type Move = Schemas["Move"];
export type Api = ReturnType<typeof createClient<paths>>;

export interface Options {
  token?: string; // an account key (hga_…), a pull bot's token (hgb_…) or a seat token
  retry?: Partial<RetryPolicy>;
}

/** A client for the service at ``base`` (e.g. http://127.0.0.1:8000), acting as ``token``. */
export function connect(base: string, options: Options = {}): Api {
  const headers: Record<string, string> = options.token ? { Authorization: `Bearer ${options.token}` } : {};
  return createClient<paths>({ baseUrl: base.replace(/\/+$/, ""), headers, fetch: retryingFetch(options.retry) });
}

/** An answer that is not a success, with its problem+json (status, kind, detail). */
export class ApiError extends Error {
  readonly kind: string;
  constructor(readonly status: number, readonly problem: Record<string, unknown>, readonly retryAfterMs: number | null) {
    const kind = typeof problem["kind"] === "string" ? problem["kind"] : "UNKNOWN";
    super(`HTTP ${status} ${kind}: ${String(problem["detail"] ?? "")}`);
    this.kind = kind;
  }
}

/** The data of an openapi-fetch answer, or an ApiError. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.response.ok && answer.data !== undefined) return answer.data;
  const problem = answer.error !== null && typeof answer.error === "object" ? answer.error as Record<string, unknown>
    : { detail: String(answer.error ?? "") };
  throw new ApiError(answer.response.status, problem,
                     retryAfterMs(answer.response.headers.get("Retry-After")));
}

/** One event of a bot's or an account's stream. */
export interface FeedEvent {
  id: string | null;
  event: string;
  data: Record<string, unknown>;
}

export interface FollowOptions {
  after?: string | null; // resume after this stream id
  format?: "sse" | "ndjson";
  signal?: AbortSignal;
  maxWaitMs?: number; // a 429/503's Retry-After longer than this is an error
  sleep?: (ms: number) => Promise<void>;
}

/** A bot's or an account's stream for ever (until the caller stops iterating or aborts), in either
 * framing, reconnecting after a dropped connection with Last-Event-ID: the last id seen. */
export async function* follow(base: string, path: string, token: string, options: FollowOptions = {}):
    AsyncGenerator<FeedEvent> {
  const format = options.format ?? "sse";
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxWait = options.maxWaitMs ?? 120_000;
  let last = options.after ?? null;
  let reconnects = 0;
  for (;;) {
    if (options.signal?.aborted) return;
    const controller = new AbortController();
    const stop = () => controller.abort();
    options.signal?.addEventListener("abort", stop, { once: true });
    const headers: Record<string, string> = {
      Authorization: `Bearer ${token}`,
      Accept: format === "sse" ? "text/event-stream" : "application/x-ndjson",
    };
    if (last !== null) headers["Last-Event-ID"] = last;
    try {
      let response: Response;
      try {
        response = await fetch(`${base.replace(/\/+$/, "")}${path}`, { headers, signal: controller.signal });
      } catch (error) {
        if (options.signal?.aborted) return;
        reconnects++;
        await sleep(Math.min(200 * reconnects, 5_000)); // the server away: try again, gently
        continue;
      }
      if (!response.ok || response.body === null) {
        const asked = retryAfterMs(response.headers.get("Retry-After"));
        const problem = await response.json().catch(() => ({})) as Record<string, unknown>;
        if ((response.status === 429 || response.status === 503) && asked !== null && asked <= maxWait) {
          await sleep(asked); // a stream budget full, or the store away: as the server says
          continue;
        }
        throw new ApiError(response.status, problem, asked);
      }
      try {
        if (format === "sse") {
          for await (const message of sseMessages(response.body, last)) {
            const event = { id: message.id, event: message.event, data: JSON.parse(message.data) as Record<string, unknown> };
            if (event.id !== null) last = event.id;
            reconnects = 0; // the connection worked: the next drop starts the backoff afresh
            yield event;
          }
        } else {
          for await (const line of ndjsonValues<FeedEvent>(response.body)) {
            if (line.id !== null && line.id !== undefined) last = line.id;
            reconnects = 0;
            yield { id: line.id ?? null, event: line.event, data: line.data };
          }
        }
      } catch (error) {
        if (options.signal?.aborted) return;
        if (error instanceof SyntaxError) throw error; // not a dropped connection: a broken frame
      }
      reconnects++;
      await sleep(Math.min(200 * reconnects, 5_000));
    } finally {
      options.signal?.removeEventListener("abort", stop);
      controller.abort(); // the caller stopped iterating, or the stream ended: close the connection
    }
  }
}
