"""The Flask app factory: flask-smorest Api, one blueprint per resource, one error handler.

``create_app(config)`` reads, besides Flask's own settings:

- ``REDIS``: a ``redis.Redis`` to use (default: ``core.connection.get_redis()``);
- ``ADVANCE``: ``"rq"`` (enqueue ``workers.jobs.advance`` after changes that leave SYSTEM or a
  bot to act), ``"off"``, or a callable ``(game_id, version)``; env ``HOURGLASS_ADVANCE``;
- the budgets of ``service.limits`` (one per requester: an account or an address):
  ``RATE_LIMIT`` requests per ``RATE_LIMIT_WINDOW`` seconds per account and per address's seat
  holders (0 disables every limit), ``ANON_RATE_LIMIT`` tokenless requests per address,
  ``AUTH_FAIL_LIMIT`` 401 answers per address, ``WORK_BUDGET`` and ``ACCOUNT_WORK_BUDGET`` units
  of work per ``WORK_PERIOD_S``, ``SIGNUPS_PER_ADDRESS``; ``TRUSTED_PROXIES`` reverse proxies in
  front (for the client address); env ``HOURGLASS_<NAME>`` for each;
- ``SIGNUP``: who may create an account: ``open`` (default), ``invite`` or ``closed``
  (``core.accounts``); env ``HOURGLASS_SIGNUP``;
- ``SSE_HEARTBEAT`` seconds between heartbeats on an idle stream (15);
- ``STREAM_LAG_S``: the live streams' lag bound in seconds (1): a subscriber whose waiting
  batches are older than this gets one resync line with the latest state instead
  (``service.streamlag``); env ``HOURGLASS_STREAM_LAG_S``;
- ``STREAM_DIRECT``: under gunicorn, the game's feed writes live batches straight onto each
  stream's socket (``service.streams.Sink``; on by default), and so do the shared readers of the
  account and bot event streams (``service.feedreaders``); ``0`` serves every batch and event
  through the response iterator instead; env ``HOURGLASS_STREAM_DIRECT``;
- ``STREAM_HUB``: the Unix socket of the stream process (``service.streamhub``) that live
  streams are handed over to, so no fan-out runs in a web worker; empty: each worker serves its
  own; env ``HOURGLASS_STREAM_HUB`` (``hourglass serve`` sets it);
- ``ABORT_MOVES``: a game may be aborted while its seats have made fewer moves than this (4);
  ``INACTIVITY_S``: how long a game must wait on an unclocked human seat before another seat may
  claim victory or a default move against it (86400); env ``HOURGLASS_<NAME>`` for each;
- ``SSE_PER_ADDRESS`` and ``SSE_PER_TOKEN``: open event streams per client address (16) and
  per token (4); ``MAX_LIVE_GAMES_PER_ADDRESS`` (20), ``MAX_LIVE_GAMES_PER_ACCOUNT`` (50) and
  ``MAX_LIVE_GAMES`` (10,000) live games by creating requester and overall (``service.limits``,
  ``core.retention``); 0 lifts one, and ``RATE_LIMIT=0`` lifts them all;
- ``MAX_CONTENT_LENGTH`` bytes of request body (64 KiB);
- ``VERIFY_MAX_BYTES`` (4 MiB), ``VERIFY_CPU_S`` (2), ``VERIFY_DEADLINE_S`` (30),
  ``VERIFY_PER_ADDRESS`` (1) and ``VERIFY_PER_PROCESS`` (2): the bounds of one upload to
  ``POST /api/v1/replays/verify`` (``service.verify_bounds``); env ``HOURGLASS_<NAME>`` for each;
- ``CORS_ORIGINS``: origins allowed to call ``/api/*`` from a browser, comma-separated, or
  ``*`` (the default: the API authenticates with bearer tokens, never cookies); env
  ``HOURGLASS_CORS_ORIGINS``;
- ``CLIENT_SEEDS``: ``"bots-only"`` (a client-given ``seed`` only for games without a human
  seat) or ``"any"`` (test and demo servers); env ``HOURGLASS_CLIENT_SEEDS``;
- ``METRICS_TOKEN``: the bearer token of ``GET /metrics`` (``service.metrics``; empty: no
  metrics endpoint); env ``HOURGLASS_METRICS_TOKEN``.
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Response, current_app, request
from flask.json.provider import DefaultJSONProvider
from flask_cors import CORS
from flask_cors.core import ACL_ORIGIN
from flask_cors.core import ACL_REQUEST_HEADER_PRIVATE_NETWORK as PRIVATE_NETWORK
from flask_smorest import Api
from flask_smorest.spec import openapi_cli
from flask_swagger_ui import get_swaggerui_blueprint

from core import metrics
from core.accounts import SIGNUP_POLICIES, Accounts
from core.connection import plain_redis
from core.games import GameService
from service import apidocs, limits, openapi, streamlag
from service import metrics as metrics_route
from service.problems import ApiProblem, register_error_handlers
from service.verify_bounds import close_unread


class _Api(Api):
    """flask-smorest Api whose errors are problem+json (see service.problems), whose OpenAPI
    document carries only the components something refers to (service.openapi), and whose
    document is built when it is first read, not when the app is made.

    flask-smorest builds the document as each blueprint is registered: the schemas of every route
    and, through ``service.openapi.register``, of every game, which imports every game's rules. A
    web worker that serves moves never reads it, so its routes are registered with Flask at once and
    their documentation waits in ``_undocumented`` until something reads ``spec`` (the
    /openapi.json route, the docs pages, a test); then the document is built in the same order as
    before, and its JSON text is kept for every later request of the route.
    """

    def __init__(self, app: Flask, *, spec_kwargs: dict[str, Any], prepare: Callable[[Any, Any], None]) -> None:
        self._built: Any = None
        self._document: bytes | None = None
        self._undocumented: list[tuple[Any, str, Any]] = []
        self._prepare = prepare  # (api, spec): what the document needs before the first path
        self._building = threading.RLock()
        super().__init__(app, spec_kwargs=spec_kwargs)

    @property  # flask-smorest's attribute, built on first use
    def spec(self) -> Any:
        if self._built is None:
            self._build()
        return self._built

    @spec.setter
    def spec(self, value: Any) -> None:
        self._built = value

    def _init_spec(self, **kwargs: Any) -> None:
        self._spec_args = kwargs  # Api.init_app's call: the document is made by _build
        self._app.cli.add_command(openapi_cli)  # `flask openapi print` builds it when it reads it

    def _build(self) -> None:
        with self._building:
            if self._built is not None:
                return
            super()._init_spec(**self._spec_args)  # sets self.spec
            try:
                self._prepare(self, self._built)
                for blp, name, parameters in self._undocumented:
                    self._document_blueprint(blp, name, parameters)
            except BaseException:
                self._built = None  # no half-made document: the next read tries again (and fails alike)
                raise
            self._undocumented.clear()

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        with self._building:
            if self._built is None:
                self._undocumented.append((blp, name, parameters))
                return
        self._document_blueprint(blp, name, parameters)

    def _document_blueprint(self, blp: Any, name: str, parameters: Any) -> None:
        """What flask-smorest's register_blueprint does for the document."""
        blp.register_views_in_doc(self, self._app, self._built, name=name, parameters=parameters)
        self._built.tag({"name": name, "description": blp.description})

    def _register_error_handlers(self) -> None:
        register_error_handlers(self._app)

    def _openapi_json(self) -> Response:
        if self._document is None:
            self._document = json.dumps(openapi.tidy(self.spec.to_dict()), indent=2).encode("utf-8")
        return current_app.response_class(self._document, mimetype="application/json")


class _JSONProvider(DefaultJSONProvider):
    """Flask's JSON provider, without the new encoder ``json.dumps`` builds on every call.

    ``json.dumps`` with any option but the defaults makes a ``JSONEncoder`` and then a C encoder
    each time, about as costly as encoding a move's answer. The answers of this app (``response``
    and ``jsonify``: sorted keys, ASCII, compact) are encoded by a C encoder made here with the
    very arguments ``json.dumps`` would give it, a fresh circular-reference marker dict included,
    so the text is the same; other options (indent, a ``cls``...) go to ``json.dumps`` as before.
    """

    _ANSWER_OPTIONS: dict[str, Any] = {"separators": (",", ":")}
    _C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # None without the C accelerator

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs != self._ANSWER_OPTIONS or self._C_ENCODER is None or isinstance(obj, str) \
                or not (self.sort_keys and self.ensure_ascii):
            return super().dumps(obj, **kwargs)
        encode = self._C_ENCODER({}, self.default, json.encoder.encode_basestring_ascii, None, ":", ",",
                                 True, False, True)  # sort_keys, skipkeys, allow_nan: json.dumps's
        return "".join(encode(obj, 0))


class _Flask(Flask):
    """Flask, with whether a hook or view is a coroutine function worked out once per function.

    Flask asks ``ensure_sync`` about every hook and the view on each request (eight times for a
    POST move, ``inspect.iscoroutinefunction`` each time). The answer for a function never
    changes, so the first ``SYNC_KNOWN`` functions asked about (the registered hooks and views;
    a request's ``after_this_request`` closures come later and are asked afresh) keep theirs.
    """

    SYNC_KNOWN = 1024
    json_provider_class = _JSONProvider

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        known = self._sync.get(func)
        if known is None:
            known = super().ensure_sync(func)
            if len(self._sync) < self.SYNC_KNOWN:
                self._sync[func] = known
        return known


MAX_JSON_DEPTH = 32


def _refuse_deep_json() -> None:
    """A JSON body nested thousands deep would exhaust the parser's recursion (a 500): refuse
    anything deeper than ``MAX_JSON_DEPTH`` before any parser sees it. A string with a lone
    surrogate escape (``"\\ud800"``) parses, but no UTF-8 store can keep it (a 500 where it reaches
    Redis): refuse it here too."""
    asked = request._get_current_object()  # type: ignore[attr-defined]  # one context lookup, not two
    if asked.is_json:
        raw = asked.get_data(cache=True)
        _check_depth(raw)
        if b"\\u" in raw.lower() and _lone_surrogate(raw):
            raise ApiProblem(400, "MALFORMED", "a JSON string holds a lone surrogate (\\ud800-\\udfff without its pair): "
                             "not valid Unicode", title="Malformed request")


def _lone_surrogate(raw: bytes) -> bool:
    """Whether the JSON text ``raw`` decodes to a string no UTF-8 encoder accepts (an invalid body
    is the schema's to refuse)."""
    try:
        json.dumps(json.loads(raw), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except ValueError:
        return False
    return False


def _check_depth(raw: bytes) -> None:
    if raw.count(b"[") + raw.count(b"{") <= MAX_JSON_DEPTH:  # cannot be too deep: the usual case
        return
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            escaped, in_string = (False, True) if escaped else (byte == 0x5C, byte != 0x22)
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise ApiProblem(400, "MALFORMED", f"the JSON body is nested deeper than {MAX_JSON_DEPTH} levels",
                                 title="Malformed request")
        elif byte in (0x5D, 0x7D):
            depth -= 1


DEFAULTS: dict[str, Any] = {
    "API_TITLE": "hourglass",
    "API_VERSION": "v1",
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    "MAX_CONTENT_LENGTH": 64 * 1024,
    **limits.DEFAULTS,
    "SIGNUP": "open",
    "SSE_HEARTBEAT": 15.0,
    "STREAM_LAG_S": 1.0,
    "STREAM_DIRECT": True,
    "STREAM_HUB": "",
    "ADVANCE": "rq",
    "CLIENT_SEEDS": "bots-only",
    "CORS_ORIGINS": "*",
    "METRICS_TOKEN": "",
    "ABORT_MOVES": 4,
    "INACTIVITY_S": 86_400.0,
    "VERIFY_MAX_BYTES": 4 * 1024 * 1024,
    "VERIFY_CPU_S": 2.0,
    "VERIFY_DEADLINE_S": 30.0,
    "VERIFY_PER_ADDRESS": 1,
    "VERIFY_PER_PROCESS": 2,
    "JSON_SORT_KEYS": True,
}
API_DESCRIPTION = ("Play board games over REST and audit their replays. Start with docs/api.md in the "
                   "repository: auth, versions and ETags, idempotency, errors, streams, the lobby and the "
                   "game-level actions. Swagger UI is at /docs, ReDoc at /redoc.")

def _switch(raw: str) -> bool:
    return raw.strip().lower() not in ("0", "false", "off", "no")


_ENV: dict[str, tuple[str, Callable[[str], Any]]] = {
        "HOURGLASS_RATE_LIMIT": ("RATE_LIMIT", int), "HOURGLASS_RATE_LIMIT_WINDOW": ("RATE_LIMIT_WINDOW", float),
        "HOURGLASS_ADVANCE": ("ADVANCE", str), "HOURGLASS_CLIENT_SEEDS": ("CLIENT_SEEDS", str),
        "HOURGLASS_CORS_ORIGINS": ("CORS_ORIGINS", str),
        "HOURGLASS_SSE_HEARTBEAT": ("SSE_HEARTBEAT", float), "HOURGLASS_STREAM_LAG_S": ("STREAM_LAG_S", float),
        "HOURGLASS_STREAM_DIRECT": ("STREAM_DIRECT", _switch),
        "HOURGLASS_STREAM_HUB": ("STREAM_HUB", str), "HOURGLASS_METRICS_TOKEN": ("METRICS_TOKEN", str),
        "HOURGLASS_ABORT_MOVES": ("ABORT_MOVES", int), "HOURGLASS_INACTIVITY_S": ("INACTIVITY_S", float),
        "HOURGLASS_SIGNUP": ("SIGNUP", str), "HOURGLASS_WORK_PERIOD_S": ("WORK_PERIOD_S", float),
        "HOURGLASS_VERIFY_CPU_S": ("VERIFY_CPU_S", float), "HOURGLASS_VERIFY_DEADLINE_S": ("VERIFY_DEADLINE_S", float),
        **{f"HOURGLASS_{name}": (name, int)
           for name in ("ANON_RATE_LIMIT", "AUTH_FAIL_LIMIT", "WORK_BUDGET", "ACCOUNT_WORK_BUDGET",
                        "SIGNUPS_PER_ADDRESS", "MAX_BOTS_PER_ACCOUNT", "TRUSTED_PROXIES", "SSE_PER_ADDRESS", "SSE_PER_TOKEN",
                        "MAX_LIVE_GAMES_PER_ADDRESS", "MAX_LIVE_GAMES_PER_ACCOUNT", "MAX_LIVE_GAMES", "VERIFY_MAX_BYTES",
                        "VERIFY_PER_ADDRESS", "VERIFY_PER_PROCESS")}}


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = _Flask(__name__)
    app.config.update(DEFAULTS)
    for env, (name, cast) in _ENV.items():
        if os.environ.get(env):
            app.config[name] = cast(os.environ[env])
    app.config.update(config or {})

    app.json.sort_keys = True  # type: ignore[attr-defined]  # DefaultJSONProvider's settings
    app.json.compact = True  # type: ignore[attr-defined]
    app.before_request(_refuse_deep_json)

    conn = app.config.get("REDIS")
    if conn is None:
        from core.connection import get_redis

        conn = get_redis()
    metrics.use(conn)  # core.metrics: this process's figures go to this server's queue Redis
    streamlag.STATS.listen(on_lag=metrics.stream_lag, on_drop=metrics.stream_drop)  # the fan-out's lag, summed
    app.extensions["hourglass"] = GameService(conn, advance=_advance(app.config["ADVANCE"], conn),
                                                 client_seeds=app.config["CLIENT_SEEDS"],
                                                 abort_moves=int(app.config["ABORT_MOVES"]),
                                                 inactivity_s=float(app.config["INACTIVITY_S"]),
                                                 live_caps=limits.live_caps(app.config),
                                                 on_finished=_tournament_hooks(app, app.config["ADVANCE"], conn))

    # accounts keep global indexes changed in one MULTI: beside a cluster, on the plain server
    app.extensions["hourglass.accounts"] = Accounts(plain_redis(conn))
    if app.config["SIGNUP"] not in SIGNUP_POLICIES:
        raise ValueError(f"SIGNUP must be one of {', '.join(SIGNUP_POLICIES)}, not {app.config['SIGNUP']!r}")

    _allow_cross_origin(app)
    limits.install(app)
    # a body the answer left unread (a 413, a limit that answered first, a refused verification):
    # the connection is shut after the answer instead of the worker draining the rest of the body
    app.after_request(close_unread)

    api = _Api(app, spec_kwargs={"info": {"description": API_DESCRIPTION},
                                 "security": [{"bearerAuth": []}, {}],  # a seat token, or none (spectator)
                                 "extra_plugins": [openapi.SpecPlugin()]},
               prepare=_prepare_document)
    app.register_blueprint(get_swaggerui_blueprint("/docs", "/openapi.json", config={
        "app_name": "hourglass API", "persistAuthorization": True}))
    app.register_blueprint(apidocs.blp)
    app.register_blueprint(metrics_route.blp)  # operators' Prometheus endpoint, outside the API and its document
    from service import pages, replay_api, viewer_api
    from service.routes import (
        accounts,
        actions,
        bots,
        challenges,
        entropy,
        events,
        games,
        ladders,
        lobby,
        moves,
        seats,
        state,
        tournaments,
    )

    for module in (games, lobby, state, moves, actions, seats, events, replay_api, viewer_api, bots, tournaments,
                   accounts, ladders, challenges, entropy):
        api.register_blueprint(module.blp)
    app.register_blueprint(tournaments.pages)
    app.register_blueprint(pages.pages)
    return app


def _prepare_document(api: Any, spec: Any) -> None:
    """Before the first path is documented: typed game payloads, and every game's components."""
    api.ma_plugin.converter.add_attribute_function(openapi.typed2properties)
    openapi.register(spec)


EXPOSED_HEADERS = ["ETag", "Idempotent-Replayed", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining",
                   "RateLimit-Reset", "WWW-Authenticate"]
REQUEST_HEADERS = ["Authorization", "Content-Type", "If-Match", "Idempotency-Key", "Last-Event-ID"]


def _allow_cross_origin(app: Flask) -> None:
    """CORS for the API (flask-cors): a browser client on another origin may play.

    Bearer tokens, not cookies, so no credentials mode; the headers a client must read (ETag,
    rate limits, replay marker) are exposed, and preflights are cached for ten minutes.
    """
    origins = str(app.config["CORS_ORIGINS"]).strip()
    allowed: str | list[str] = "*" if origins == "*" else [o.strip() for o in origins.split(",") if o.strip()]
    CORS(app, resources={r"/api/*": {"origins": allowed}}, allow_headers=REQUEST_HEADERS,
         expose_headers=EXPOSED_HEADERS, max_age=600, supports_credentials=False, send_wildcard=allowed == "*")
    hooks: list[Any] = app.after_request_funcs[None]
    hooks[-1] = _remembered_cors(hooks[-1])  # the hook CORS() just registered, in its place


CORS_REMEMBERED = 64  # distinct Origin headers whose CORS answer a process keeps


def _remembered_cors(cors_after_request: Callable[[Response], Response]) -> Callable[[Response], Response]:
    """flask-cors's after-request hook, with the headers it adds to an API request's answer kept
    per Origin header: on every request it matches the path against its resources, works out the
    origins and formats its debug lines, yet for any request but a preflight (OPTIONS, or one that
    asks about the private network) under ``/api/`` what it adds depends on the Origin header alone.
    So the first answer for an Origin is flask-cors's own, and later ones get the very headers it
    added then, in the same order and place. Anything else (preflights, other paths, an answer
    that already has CORS headers, an Origin past the first ``CORS_REMEMBERED``) is flask-cors's."""
    remembered: dict[str | None, list[tuple[str, str]]] = {}

    def hook(response: Response) -> Response:
        asked = request._get_current_object()  # type: ignore[attr-defined]  # one context lookup, not four
        if (asked.method == "OPTIONS" or not asked.path.startswith("/api/")
                or PRIVATE_NETWORK in asked.headers or response.headers.get(ACL_ORIGIN)):
            return cors_after_request(response)
        origin = asked.headers.get("Origin")
        added = remembered.get(origin)
        if added is None:
            before = len(response.headers)
            response = cors_after_request(response)
            if len(remembered) < CORS_REMEMBERED:
                remembered[origin] = list(response.headers.items())[before:]
            return response
        for name, value in added:
            response.headers.add(name, value)
        return response

    return hook


def _tournament_hooks(app: Flask, setting: Any, conn: Any) -> Callable[[Any], None] | None:
    """With RQ workers: wake a tournament's runner when it is created, read while idle, or one of its
    games ends (``workers.tournaments``); the routes find the first two in ``app.extensions``."""
    if setting != "rq":
        return None

    def tick(tid: str) -> None:  # workers.tournaments (and its tournament code) is imported when first used
        from workers.tournaments import enqueue_tick

        enqueue_tick(conn, tid)

    def wake_idle(tid: str) -> None:
        from workers.tournaments import wake_if_idle

        wake_if_idle(conn, tid)

    app.extensions["hourglass.tournament_wake"] = (tick, wake_idle)

    def wake(game: Any) -> None:
        tick(game.info.tournament)

    return wake


def _advance(setting: Any, conn: Any) -> Callable[[str, int], None] | None:
    if callable(setting):
        return setting
    if setting == "off":
        return None
    from workers.enqueue import enqueue_advance

    return lambda game_id, version: enqueue_advance(conn, game_id, version)
