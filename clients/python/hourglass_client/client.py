"""Typed calls for the hourglass HTTP API (v1), with retries and Server-Sent Events.

Every method is one endpoint and returns the JSON the server documents at ``/openapi.json``
(typed here as ``TypedDict``s for the parts a bot uses). Errors are :class:`ApiError` carrying the
problem+json body (``status``, ``kind``, ``detail``).

Retries: a request that fails to connect, times out, or gets 429/502/503/504 is sent again, up to
``retries`` times, after the wait the server asks for in ``Retry-After`` (seconds or an HTTP date;
a rate limit's answer is the time left in its window, up to a minute) or, without one, a capped
exponential backoff. Waiting is bounded: no single wait longer than ``max_wait_s`` (120 s) and no
more than ``retry_budget_s`` (300 s) of waiting per call; when the server asks for more, the call
fails at once with an :class:`ApiError` whose ``retry_after`` says how long it asked for. A move POST always
carries an ``Idempotency-Key`` (one per call, the same on every retry), so a retry after a lost
answer is applied once: the server returns the first result and marks it ``Idempotent-Replayed``.
"""
from __future__ import annotations

import json
import secrets
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypedDict

import requests
import sseclient

RETRY_STATUSES = frozenset({429, 502, 503, 504})


class ApiError(Exception):
    """An error answer (problem+json), or a request that kept failing."""

    def __init__(self, status: int, problem: Mapping[str, Any], retry_after: float | None = None) -> None:
        self.status = status
        self.problem = dict(problem)
        self.kind = str(problem.get("kind", "HTTP_ERROR"))
        self.retry_after = retry_after  # seconds the server asked to wait (429/503), when it said
        super().__init__(f"HTTP {status} {self.kind}: {problem.get('detail', '')}")


def retry_after(response: requests.Response, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> float | None:
    """The wait ``Retry-After`` asks for, in seconds: delta-seconds or an HTTP date (RFC 9110); None
    when absent or unreadable."""
    raw = (response.headers.get("Retry-After") or "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - now()).total_seconds()
    return max(0.0, seconds) if seconds == seconds and seconds != float("inf") else None


class Seat(TypedDict, total=False):
    seat: int
    name: str
    kind: str
    bot: str
    bot_id: str
    token: str
    secret: str


class CreatedGame(TypedDict):
    id: str
    game: str
    edition: str
    version: int
    seed_commitment: str
    seats: list[Seat]


class Moves(TypedDict):
    id: str
    version: int
    seat: int | None
    moves: list[dict[str, Any]]


class State(TypedDict, total=False):
    id: str
    version: int
    seat: int | None
    status: str
    to_act: list[Any]
    view: dict[str, Any]
    view_head: str | None


class MoveResult(TypedDict, total=False):
    id: str
    version: int
    events: list[dict[str, Any]]
    view_head: str | None


class RegisteredBot(TypedDict, total=False):
    id: str
    name: str
    kind: str
    created: str
    owner: str | None
    open: bool
    url: str
    token: str
    secret: str


class Account(TypedDict, total=False):
    id: str
    name: str
    created: str
    status: str
    key: str
    key_id: str
    scopes: list[str]


class LadderSummary(TypedDict):
    id: str  # "<game>-<players>", such as "artificium-2"
    game: str
    edition: str | None
    players: int
    members: int
    live: int  # its games in play now


class LadderStanding(TypedDict):
    place: int
    bot_id: str
    name: str
    mu: float
    sigma: float
    ordinal: float  # openskill's mu - 3 sigma, what the standings sort by
    games: int
    opted_in: bool
    page: str


class LadderGame(TypedDict):
    ladder: str
    game_id: str
    rated: bool  # false: aborted, counts for nobody
    of: int
    finished: str
    seats: list[dict[str, Any]]  # seat, bot_id, name, rank, score, before/after ratings, call figures
    viewer: str


class Ladder(LadderSummary):
    standings: list[LadderStanding]
    playing: list[str]  # ids of its games in play
    games: list[LadderGame]  # its latest finished games, newest first


class LadderMember(TypedDict):
    ladder: str
    bot_id: str
    name: str
    owner: str
    deadline_s: float
    since: str


class Challenge(TypedDict, total=False):
    id: str
    status: str  # pending | accepted | declined | expired
    challenger: dict[str, Any]  # kind (bot/account), name, bot_id, account
    bot_id: str
    bot_name: str
    game: str
    edition: str | None
    players: int
    seat: int  # the challenger's; the challenged bot takes the next one
    deadline_s: float | None
    builtin: str | None
    created: str
    expires: str
    answered: str
    game_id: str | None  # once accepted
    reason: str | None  # once declined
    viewer: str | None


CHALLENGE_POLICIES = ("ask", "accept_all", "accept_rated_peers", "decline_all")


@dataclass(frozen=True)
class StreamEvent:
    """One Server-Sent Event: its id (resume after it), its event name and its JSON data."""

    id: str | None
    event: str
    data: dict[str, Any]


class Client:
    """The hourglass API at ``base_url`` (e.g. ``http://127.0.0.1:8000``), optionally as one token:
    an account key (``hga_…``, for bots, tournaments and the account's games), a seat token, or a
    pull bot's token (``hgb_…``). ``with_token`` gives a client for another."""

    def __init__(self, base_url: str, token: str | None = None, *, timeout_s: float = 10.0, retries: int = 5,
                 session: requests.Session | None = None, max_wait_s: float = 120.0, retry_budget_s: float = 300.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.base = base_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s
        self.retries = retries
        self.max_wait_s = max_wait_s
        self.retry_budget_s = retry_budget_s
        self.sleep = sleep
        self.http = session or requests.Session()
        self.contributions: dict[str, str] = {}  # game id -> the entropy this client contributed (hex)
        self.view_heads: dict[str, dict[int, str]] = {}  # game id -> {version: the seat's view-chain head}

    def with_token(self, token: str | None) -> Client:
        return Client(self.base, token, timeout_s=self.timeout_s, retries=self.retries, session=self.http,
                      max_wait_s=self.max_wait_s, retry_budget_s=self.retry_budget_s, sleep=self.sleep)

    # -- plumbing --------------------------------------------------------------------------------

    def _headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        headers.update(extra or {})
        return headers

    def request(self, method: str, path: str, *, json_body: Any = None, params: Mapping[str, Any] | None = None,
                headers: Mapping[str, str] | None = None) -> requests.Response:
        """One call with retries on connection trouble and on 429/502/503/504, waiting as
        ``Retry-After`` says, within ``max_wait_s`` per wait and ``retry_budget_s`` in all."""
        url = f"{self.base}{path}"
        delay, waited = 0.25, 0.0
        for attempt in range(self.retries + 1):
            try:
                response = self.http.request(method, url, json=json_body, params=params, headers=self._headers(headers),
                                             timeout=self.timeout_s)
            except (requests.ConnectionError, requests.Timeout):
                if attempt == self.retries or waited + delay > self.retry_budget_s:
                    raise
                self.sleep(delay)
                waited += delay
                delay = min(delay * 2, 8.0)
                continue
            if response.status_code >= 400:
                asked = retry_after(response)
                wait = asked if asked is not None else delay
                if (response.status_code in RETRY_STATUSES and attempt < self.retries and wait <= self.max_wait_s
                        and waited + wait <= self.retry_budget_s):
                    self.sleep(wait)
                    waited += wait
                    delay = min(delay * 2, 8.0)
                    continue
                raise ApiError(response.status_code, _problem(response), asked)
            return response
        raise AssertionError("unreachable")

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.request(method, path, **kwargs).json()

    # -- games -------------------------------------------------------------------------------------

    def create_game(self, game: str, seats: list[dict[str, Any]], *, edition: str | None = None,
                    options: dict[str, Any] | None = None, seed: str | None = None,
                    entropy_window_s: float | None = None) -> CreatedGame:
        """Create a game; with ``entropy_window_s`` it waits that long for the seats' entropy
        (:meth:`contribute_entropy`) before its set-up."""
        body: dict[str, Any] = {"game": game, "seats": seats}
        entropy = {"window_s": entropy_window_s} if entropy_window_s is not None else None
        for name, value in (("edition", edition), ("options", options), ("seed", seed), ("entropy", entropy)):
            if value is not None:
                body[name] = value
        result: CreatedGame = self._json("POST", "/api/v1/games", json_body=body)
        return result

    def contribute_entropy(self, game_id: str, entropy: bytes | None = None) -> dict[str, Any]:
        """Contribute this seat's entropy to a seeding game: ``entropy`` (1-64 bytes), or 32 fresh
        random bytes. The answer carries ``contribution``, the hex sent: keep it, and check the
        finished game's bundle with ``hourglass replay verify FILE --contribution SEAT:HEX``."""
        data = entropy if entropy is not None else secrets.token_bytes(32)
        result: dict[str, Any] = self._json("POST", f"/api/v1/games/{game_id}/entropy",
                                            json_body={"entropy": data.hex()})
        self.contributions[game_id] = data.hex()
        return {**result, "contribution": data.hex()}

    def seeding(self, game_id: str) -> dict[str, Any]:
        """Who has contributed to a seeding game, or ``{"status": "started"}``."""
        result: dict[str, Any] = self._json("GET", f"/api/v1/games/{game_id}/entropy")
        return result

    def game(self, game_id: str) -> dict[str, Any]:
        """The summary: status, version, phase, round, to_act, seats, result, seed once finished."""
        result: dict[str, Any] = self._json("GET", f"/api/v1/games/{game_id}")
        return result

    def state(self, game_id: str) -> State:
        result: State = self._json("GET", f"/api/v1/games/{game_id}/state")
        self._record_head(game_id, result)
        return result

    def state_at(self, game_id: str, version: int) -> State:
        result: State = self._json("GET", f"/api/v1/games/{game_id}/states/{version}")
        self._record_head(game_id, result)
        return result

    def _record_head(self, game_id: str, answer: Mapping[str, Any]) -> None:
        """Keep the seat's view-chain head an answer carries (a spectator's answers carry none)."""
        head, version = answer.get("view_head"), answer.get("version")
        if isinstance(head, str) and isinstance(version, int):
            self.view_heads.setdefault(game_id, {})[version] = head

    def write_view_heads(self, game_id: str, path: str) -> int:
        """Write the view-chain heads this client received for ``game_id`` as JSON ``{"version":
        head}``: check the finished game's bundle with ``hourglass replay verify FILE --seat N
        --heads PATH``. Returns how many heads were written."""
        heads = self.view_heads.get(game_id, {})
        with open(path, "w", encoding="utf-8") as out:
            json.dump({str(v): h for v, h in sorted(heads.items())}, out, indent=0, sort_keys=False)
        return len(heads)

    def moves(self, game_id: str) -> Moves:
        result: Moves = self._json("GET", f"/api/v1/games/{game_id}/moves")
        return result

    def post_move(self, game_id: str, move: dict[str, Any], *, if_match: int | None = None,
                  idempotency_key: str | None = None) -> MoveResult:
        """Submit one move; retried safely under one Idempotency-Key (generated unless given)."""
        headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        result: MoveResult = self._json("POST", f"/api/v1/games/{game_id}/moves", json_body=move, headers=headers)
        self._record_head(game_id, result)
        return result

    def events(self, game_id: str, after: int = 0) -> dict[str, Any]:
        result: dict[str, Any] = self._json("GET", f"/api/v1/games/{game_id}/events", params={"after": after})
        return result

    def follow_game(self, game_id: str, after: int | None = None) -> Iterator[StreamEvent]:
        """The game's live stream (as this client's seat, or a spectator) to its ``end``: without
        ``after``, a ``snapshot`` event first (view, legal moves, clocks, version), then what
        follows it; with ``after``, every event after that seq. After each batch that leaves this
        seat to act, a ``moves`` event lists its legal moves (post one with If-Match: its version).
        The seat's view-chain heads (``head`` events, and those in ``snapshot`` and ``resync``)
        are recorded in ``view_heads``."""
        for event in self.follow(f"/api/v1/games/{game_id}/events/stream", None if after is None else str(after),
                                 stop_on="end"):
            if event.event in ("head", "snapshot", "resync"):
                self._record_head(game_id, event.data)
            yield event

    def replay(self, game_id: str) -> str:
        return self.request("GET", f"/api/v1/games/{game_id}/replay").text

    def signing_keys(self) -> dict[str, Any]:
        """The service's public key set (``hourglass-keys/1``): save it as a file and pass it to
        ``hourglass replay verify --keys`` to check offline that a bundle is the service's."""
        result: dict[str, Any] = self.request("GET", "/.well-known/hourglass-keys.json").json()
        return result

    def verify_replay(self, bundle: str | bytes) -> dict[str, Any]:
        data = bundle.encode("utf-8") if isinstance(bundle, str) else bundle
        response = self.http.post(f"{self.base}/api/v1/replays/verify", data=data, timeout=self.timeout_s,
                                  headers={"Content-Type": "application/x-ndjson"})
        result: dict[str, Any] = response.json()
        return result

    def join_seat(self, game_id: str, seat: int, name: str, invite: str | None = None) -> dict[str, Any]:
        """Take an open seat (bound to this client's account when it holds an account key); the
        answer's ``token`` plays the seat."""
        body = {"name": name, **({"invite": invite} if invite else {})}
        result: dict[str, Any] = self._json("POST", f"/api/v1/games/{game_id}/seats/{seat}/join", json_body=body)
        return result

    # -- accounts ----------------------------------------------------------------------------------

    def sign_up(self, name: str, invite: str | None = None) -> Account:
        """Create an account; keep the returned ``key`` (shown only now): ``with_token(key)``."""
        body = {"name": name, **({"invite": invite} if invite else {})}
        result: Account = self._json("POST", "/api/v1/accounts", json_body=body)
        return result

    def account(self) -> dict[str, Any]:
        """This client's account: name, the key's scopes and what is left of each budget."""
        result: dict[str, Any] = self._json("GET", "/api/v1/account")
        return result

    def create_key(self, scopes: list[str] | None = None, label: str = "") -> Account:
        body: dict[str, Any] = {"label": label, **({"scopes": scopes} if scopes else {})}
        result: Account = self._json("POST", "/api/v1/account/keys", json_body=body)
        return result

    def revoke_key(self, key_id: str) -> None:
        self.request("DELETE", f"/api/v1/account/keys/{key_id}")

    def account_games(self, status: str | None = None) -> list[dict[str, Any]]:
        """Every seat bound to the account (all pages), newest game first."""
        games: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params = {"limit": 200, **({"status": status} if status else {}), **({"cursor": cursor} if cursor else {})}
            page = self._json("GET", "/api/v1/account/games", params=params)
            games += page["games"]
            cursor = page["next"]
            if cursor is None:
                return games

    def account_events(self, after: str = "0") -> dict[str, Any]:
        result: dict[str, Any] = self._json("GET", "/api/v1/account/events", params={"after": after})
        return result

    def follow_account(self, after: str | None = None) -> Iterator[StreamEvent]:
        """The account's one stream for all its seats (game_started, your_turn, invite_received,
        game_finished); reconnects by itself, resuming after the last id seen."""
        yield from self.follow("/api/v1/account/events/stream", after)

    # -- bots --------------------------------------------------------------------------------------

    def register_bot(self, name: str, kind: str, *, url: str | None = None, secret: str | None = None,
                     open_entry: bool = False) -> RegisteredBot:
        """Register a bot for this client's account (its key needs the ``bots`` scope); keep the
        returned token (and generated secret): they are shown only now. ``open_entry``: anyone may
        enter it into games and tournaments (otherwise only this account)."""
        body: dict[str, Any] = {"name": name, "kind": kind, "open": open_entry}
        if url is not None:
            body["url"] = url
        if secret is not None:
            body["secret"] = secret
        result: RegisteredBot = self._json("POST", "/api/v1/bots", json_body=body)
        return result

    def bot(self, bot_id: str) -> RegisteredBot:
        result: RegisteredBot = self._json("GET", f"/api/v1/bots/{bot_id}")
        return result

    def update_bot(self, bot_id: str, *, open_entry: bool) -> RegisteredBot:
        result: RegisteredBot = self._json("PATCH", f"/api/v1/bots/{bot_id}", json_body={"open": open_entry})
        return result

    def delete_bot(self, bot_id: str) -> None:
        """Delete the bot (its owner's key; refused while it plays a live game or a running tournament)."""
        self.request("DELETE", f"/api/v1/bots/{bot_id}")

    def rotate_token(self, bot_id: str) -> str:
        token: str = self._json("POST", f"/api/v1/bots/{bot_id}/token")["token"]
        return token

    def rotate_secret(self, bot_id: str, secret: str | None = None) -> str | None:
        body = {"secret": secret} if secret is not None else {}
        found: str | None = self._json("POST", f"/api/v1/bots/{bot_id}/secret", json_body=body).get("secret")
        return found

    def bot_events(self, bot_id: str, after: str = "0") -> dict[str, Any]:
        result: dict[str, Any] = self._json("GET", f"/api/v1/bots/{bot_id}/events", params={"after": after})
        return result

    def follow_bot(self, bot_id: str, after: str | None = None) -> Iterator[StreamEvent]:
        """The bot's one stream for all its games; reconnects by itself, resuming after the last id seen."""
        yield from self.follow(f"/api/v1/bots/{bot_id}/events/stream", after)

    # -- tournaments ---------------------------------------------------------------------------------

    def create_tournament(self, **body: Any) -> dict[str, Any]:
        result: dict[str, Any] = self._json("POST", "/api/v1/tournaments", json_body=body)
        return result

    def tournament(self, tournament_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self._json("GET", f"/api/v1/tournaments/{tournament_id}")
        return result

    def tournament_events(self, tournament_id: str, after: int = 0) -> dict[str, Any]:
        result: dict[str, Any] = self._json("GET", f"/api/v1/tournaments/{tournament_id}/events", params={"after": after})
        return result

    def tournament_package(self, tournament_id: str) -> bytes:
        return self.request("GET", f"/api/v1/tournaments/{tournament_id}/package").content

    def cancel_tournament(self, tournament_id: str, reason: str | None = None) -> dict[str, Any]:
        """Cancel a running tournament (its organiser's key): no game starts any more, running ones
        are called off, and it ends with status ``cancelled``."""
        body = {"reason": reason} if reason is not None else {}
        result: dict[str, Any] = self._json("POST", f"/api/v1/tournaments/{tournament_id}/cancel", json_body=body)
        return result

    def withdraw_entrant(self, tournament_id: str, entrant: int) -> dict[str, Any]:
        """Withdraw entrant number ``entrant`` (its owner's key): it is paired no more and its games
        not yet started are skipped."""
        result: dict[str, Any] = self._json("POST", f"/api/v1/tournaments/{tournament_id}/entrants/{entrant}/withdraw")
        return result

    def bot_record(self, bot_id: str) -> dict[str, Any]:
        """A bot's public record: overall and per tournament its games, points and calls (ok,
        timeout, error, latency p50/p95), and its latest games."""
        result: dict[str, Any] = self._json("GET", f"/api/v1/bots/{bot_id}/record")
        return result

    def leaderboard(self, game: str, edition: str | None = None) -> dict[str, Any]:
        params = {"game": game, **({"edition": edition} if edition else {})}
        result: dict[str, Any] = self._json("GET", "/api/v1/leaderboard", params=params)
        return result

    # -- ladders ------------------------------------------------------------------------------------

    def ladders(self) -> list[LadderSummary]:
        """Every ladder that has (or had) bots: game, players, members, games in play."""
        found: list[LadderSummary] = self._json("GET", "/api/v1/ladders")["ladders"]
        return found

    def ladder(self, ladder_id: str) -> Ladder:
        """One ladder (``<game>-<players>``): standings by rating ordinal, its games in play and its
        latest finished games with viewer links."""
        result: Ladder = self._json("GET", f"/api/v1/ladders/{ladder_id}")
        return result

    def ladder_history(self, ladder_id: str) -> list[dict[str, Any]]:
        """Every rated game of the ladder (the latest 1,000), oldest first: ``{game, seats}``, each
        seat with its rating before and after."""
        found: list[dict[str, Any]] = self._json("GET", f"/api/v1/ladders/{ladder_id}/history")["history"]
        return found

    def enter_ladder(self, ladder_id: str, bot_id: str, *, deadline_s: float | None = None) -> LadderMember:
        """Opt a bot of this client's account (key scope ``bots``) into a ladder: the matchmaker
        starts rated games for it, each drawing one unit of the account's work budget. Entering
        again changes its ``deadline_s`` (time per decision, default 2 s)."""
        body: dict[str, Any] = {"bot_id": bot_id, **({"deadline_s": deadline_s} if deadline_s is not None else {})}
        result: LadderMember = self._json("POST", f"/api/v1/ladders/{ladder_id}/entries", json_body=body)
        return result

    def leave_ladder(self, ladder_id: str, bot_id: str) -> None:
        """Opt the bot out: no new game starts for it; a game in play is played out and rated."""
        self.request("DELETE", f"/api/v1/ladders/{ladder_id}/entries/{bot_id}")

    # -- challenges ----------------------------------------------------------------------------------

    def challenge(self, bot_id: str, game: str, *, players: int = 2, seat: int = 0, edition: str | None = None,
                  deadline_s: float | None = None, builtin: str | None = None, expires_s: int | None = None,
                  as_bot: str | None = None) -> Challenge:
        """Challenge a registered bot, as this client's bot (its token), as ``as_bot`` (a bot of this
        client's account) or as the account itself (key scope ``play``). Costs one unit of the
        challenger's work budget. The answer is ``accepted`` (with ``game_id``) or ``declined`` when
        the bot's owner set a policy, else ``pending`` until the bot answers or it expires."""
        body: dict[str, Any] = {"bot_id": bot_id, "game": game, "players": players, "seat": seat}
        for name, value in (("edition", edition), ("deadline_s", deadline_s), ("builtin", builtin),
                            ("expires_s", expires_s), ("as_bot", as_bot)):
            if value is not None:
                body[name] = value
        result: Challenge = self._json("POST", "/api/v1/challenges", json_body=body)
        return result

    def get_challenge(self, challenge_id: str) -> Challenge:
        result: Challenge = self._json("GET", f"/api/v1/challenges/{challenge_id}")
        return result

    def accept_challenge(self, challenge_id: str) -> Challenge:
        """Accept as the challenged bot (its token) or its owner (account key, scope ``bots``): the
        game is created and its id is in the answer's ``game_id``. 409 ``NOT_PENDING`` once answered
        or expired."""
        result: Challenge = self._json("POST", f"/api/v1/challenges/{challenge_id}/accept")
        return result

    def decline_challenge(self, challenge_id: str, reason: str | None = None) -> Challenge:
        body = {"reason": reason} if reason is not None else {}
        result: Challenge = self._json("POST", f"/api/v1/challenges/{challenge_id}/decline", json_body=body)
        return result

    def challenge_policy(self, bot_id: str) -> str:
        """How the bot answers challenges (public): one of :data:`CHALLENGE_POLICIES`."""
        policy: str = self._json("GET", f"/api/v1/bots/{bot_id}/challenge-policy")["policy"]
        return policy

    def set_challenge_policy(self, bot_id: str, policy: str) -> str:
        """The owner (account key, scope ``bots``) sets how the bot answers: ``ask`` (on its stream,
        the default), ``accept_all``, ``accept_rated_peers`` or ``decline_all``."""
        if policy not in CHALLENGE_POLICIES:
            raise ValueError(f"policy must be one of {', '.join(CHALLENGE_POLICIES)}")
        found: str = self._json("PUT", f"/api/v1/bots/{bot_id}/challenge-policy", json_body={"policy": policy})["policy"]
        return found

    # -- Server-Sent Events --------------------------------------------------------------------------

    def follow(self, path: str, after: str | None = None, *, stop_on: str | None = None,
               max_reconnects: int | None = None) -> Iterator[StreamEvent]:
        """Follow an SSE endpoint for ever (or until an event named ``stop_on``), reconnecting with
        ``Last-Event-ID`` after a dropped connection so no event is lost or repeated."""
        last = after
        reconnects = 0
        while max_reconnects is None or reconnects <= max_reconnects:
            headers = self._headers({"Accept": "text/event-stream"})
            if last is not None:
                headers["Last-Event-ID"] = last
            try:
                with self.http.get(f"{self.base}{path}", headers=headers, stream=True,
                                   timeout=(self.timeout_s, max(30.0, self.timeout_s))) as response:
                    if response.status_code >= 400:
                        asked = retry_after(response)
                        if response.status_code in (429, 503) and asked is not None and asked <= self.max_wait_s:
                            self.sleep(asked)  # a stream budget full, or the store away: as the server says
                            reconnects += 1
                            continue
                        raise ApiError(response.status_code, _problem(response), asked)
                    for message in sseclient.SSEClient(iter(response)).events():
                        if not message.data:
                            continue
                        event = StreamEvent(message.id or None, message.event or "message", json.loads(message.data))
                        if event.id is not None:
                            last = event.id
                        yield event
                        if stop_on is not None and event.event == stop_on:
                            return
            except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError):
                pass
            reconnects += 1
            self.sleep(min(0.2 * reconnects, 5.0))


def _problem(response: requests.Response) -> dict[str, Any]:
    try:
        found: dict[str, Any] = response.json()
        return found
    except ValueError:
        return {"detail": response.text[:200]}
