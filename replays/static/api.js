// The viewer's only door to the service: the public JSON API, with the seat token (if any) sent
// as "Authorization: Bearer" so the server answers with that seat's view.
//
// The token never goes into an address the server logs: it is typed into the page (or handed over
// in the address's #fragment, which browsers never send) and kept in sessionStorage for this tab.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

export class Api {
  constructor(gameId) {
    this.gameId = gameId;
    this.base = `/api/v1/games/${encodeURIComponent(gameId)}`;
    this.tokenKey = `hourglass.token.${gameId}`;
  }

  get token() {
    return sessionStorage.getItem(this.tokenKey);
  }

  set token(value) {
    if (value) sessionStorage.setItem(this.tokenKey, value);
    else sessionStorage.removeItem(this.tokenKey);
  }

  // "#token=..." in the address: keep it for this tab, then drop it from the address bar and history.
  adoptTokenFromFragment() {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (!match) return;
    this.token = decodeURIComponent(match[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }

  async get(path, { seat = true } = {}) {
    const headers = { Accept: "application/json" };
    if (seat && this.token) headers.Authorization = `Bearer ${this.token}`;
    const response = await fetch(path.startsWith("/api/") ? path : `${this.base}${path}`, { headers });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new ApiError(body.detail || `${path}: HTTP ${response.status}`, response.status);
    return body;
  }

  summary() { return this.get(""); }
  timeline() { return this.get("/timeline", { seat: false }); }
  stateAt(version) { return this.get(`/states/${version}`); }
  state() { return this.get("/state"); }

  // The game's printed reference data; a game without any simply has none.
  async reference(game) {
    try {
      return await this.get(`/api/v1/reference/${encodeURIComponent(game)}`, { seat: false });
    } catch (error) {
      if (error.status === 404) return {};
      throw error;
    }
  }

  // Every event after seq `after`, as the caller may see them, following the pages if the server
  // pages (a `limit` or a short answer): ask again after the last seq until the game's version.
  async eventsAfter(after) {
    const all = [];
    for (;;) {
      const page = await this.get(`/events?after=${after}`);
      const events = page.events || [];
      all.push(...events);
      if (!events.length) return all;
      after = events[events.length - 1].seq;
      if (after >= page.version) return all;
    }
  }

  // The spectator stream: it carries no secrets, so it only tells the page to fetch what changed
  // (with the token, through fetch, if a seat is watching). EventSource cannot send headers.
  stream(after, onChange, onEnd) {
    if (!window.EventSource) return null;
    const source = new EventSource(`${this.base}/events/stream?after=${after}`);
    source.onmessage = onChange;
    source.addEventListener("end", () => { source.close(); onEnd(); });
    return source;
  }
}
