// Retries that do what the server asks. A 429 (a rate limit: its Retry-After is the time left in its
// window, up to a minute) or a 502/503/504 (the store or a proxy away) is sent again after the wait
// Retry-After names (delta-seconds or an HTTP date, RFC 9110) or, without one, a capped exponential
// backoff; so is a request that failed to connect. Waiting is bounded: no single wait longer than
// maxWaitMs and no more than budgetMs of waiting per call. When the server asks for more, the answer
// is handed back as it is (the caller sees the 429 and its Retry-After) instead of sleeping for it.
//
// A request is sent again only when it is safe to: GET/HEAD/OPTIONS/DELETE/PUT, or a POST/PATCH that
// carries an Idempotency-Key (the server answers a repeated key with the first result).

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export interface RetryPolicy {
  retries: number; // attempts after the first
  maxWaitMs: number; // the longest single wait we accept
  budgetMs: number; // the most waiting per call
  firstDelayMs: number; // the backoff without a Retry-After: doubles each time…
  maxDelayMs: number; // …up to this
  sleep: (ms: number) => Promise<void>;
  now: () => number; // ms since the epoch, for HTTP-date Retry-After values
}

export const defaultPolicy: RetryPolicy = {
  retries: 5,
  maxWaitMs: 120_000,
  budgetMs: 300_000,
  firstDelayMs: 250,
  maxDelayMs: 8_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
};

/** The wait a Retry-After header asks for, in ms; null when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now: number = Date.now()): number | null {
  const raw = (header ?? "").trim();
  if (raw === "") return null;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000);
  if (!/^[A-Za-z]{3},? /.test(raw)) return null; // "-5", "1e3", "5s": neither delta-seconds nor an HTTP date
  const when = Date.parse(raw);
  if (Number.isNaN(when)) return null;
  return Math.max(0, when - now);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE", "PUT"]);

export function retryable(request: Request): boolean {
  return SAFE_METHODS.has(request.method.toUpperCase()) || request.headers.has("Idempotency-Key");
}

type Fetch = (request: Request) => Promise<Response>;

/** A fetch (the shape openapi-fetch takes) that retries as the policy says. */
export function retryingFetch(policy: Partial<RetryPolicy> = {}, inner: Fetch = (r) => fetch(r)): Fetch {
  const p: RetryPolicy = { ...defaultPolicy, ...policy };
  return async (request: Request): Promise<Response> => {
    const again = retryable(request);
    let delay = p.firstDelayMs;
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const last = !again || attempt >= p.retries;
      let response: Response;
      try {
        response = await inner(last ? request : request.clone());
      } catch (error) {
        if (last || waited + delay > p.budgetMs) throw error;
        await p.sleep(delay);
        waited += delay;
        delay = Math.min(delay * 2, p.maxDelayMs);
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      const asked = retryAfterMs(response.headers.get("Retry-After"), p.now());
      const wait = asked ?? delay;
      if (wait > p.maxWaitMs || waited + wait > p.budgetMs) return response;
      await response.body?.cancel();
      await p.sleep(wait);
      waited += wait;
      delay = Math.min(delay * 2, p.maxDelayMs);
    }
  };
}
