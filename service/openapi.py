"""The OpenAPI document, made truthful enough for generated clients.

flask-smorest documents each route's success response from its marshmallow schema. This module
adds what a client generator needs beyond that:

- typed game payloads: per registered game, one schema per move (from the command dataclasses'
  type hints), a ``<Game>Move`` union with a ``discriminator`` on ``type``, the config and the
  create request's options (from the config dataclass), the view and the result (from the game's
  ``schema.py``); and the unions across games (``Move``, ``GameView``, ``CreateGame``...);
- every error an operation really answers, as ``application/problem+json`` with the ``Problem``
  schema, and the headers that come with it (``Retry-After`` on 429 and 503,
  ``WWW-Authenticate`` on 401, ``ETag`` on 412), plus the ``RateLimit-*`` headers on every
  response; no catch-all default error response;
- each operation's security: a seat token required, optional (spectators), or none.

The tables below are keyed by operation id; ``SpecPlugin`` (an apispec plugin) applies them as
each path is registered, and :func:`tidy` drops components nothing refers to any more.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from http import HTTPStatus
from typing import Any

from apispec import APISpec, BasePlugin
from marshmallow import fields

from domain import apischema as S
from domain.games import game_names, get_game

PROBLEM_JSON = "application/problem+json"
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"
HTML = "text/html"
REF = "#/components/schemas/"

# operation id -> statuses it may answer with a problem (429 and 503 are added to every one)
PROBLEMS: dict[str, tuple[int, ...]] = {
    "createGame": (400, 401, 403, 413, 422),
    "listGames": (400,),
    "getGame": (401, 404),
    "getState": (401, 404),
    "getStateAt": (401, 404),
    "listMoves": (401, 404),
    "postMove": (400, 401, 404, 409, 412, 413, 422),
    "listEvents": (400, 401, 404),
    "streamEvents": (400, 401, 404, 406),
    "joinSeat": (400, 401, 403, 404, 409, 413, 422),
    "rematch": (401, 403, 404, 409),
    "resign": (400, 401, 404, 409, 413, 422),
    "abort": (400, 401, 404, 409, 413, 422),
    "leave": (400, 401, 404, 409, 413, 422),
    "claim": (400, 401, 404, 409, 413, 422),
    "getReplay": (404, 409),
    "verifyReplay": (400, 408, 413),
    "getTimeline": (404,),
    "getSigningKeys": (),
    "contributeEntropy": (400, 401, 404, 409, 413),
    "getSeeding": (404,),
    "getReference": (404,),
    "viewerPage": (404,),  # its 404 is also a page for people (text/html), declared with the route
    "lobbyPage": (),  # a static page (text/html)
    "createTournament": (400, 401, 403, 413, 422),
    "listTournaments": (400,),
    "getTournament": (404,),
    "listTournamentEvents": (400, 404),
    "getTournamentPackage": (404, 409),
    "cancelTournament": (400, 401, 403, 404, 409, 413),
    "withdrawEntrant": (401, 403, 404, 409),
    "getBotRecord": (404,),
    "getLeaderboard": (400, 404),
    "registerBot": (400, 401, 403, 409, 413, 422),
    "listBots": (400,),
    "getBot": (401, 404),
    "updateBot": (400, 401, 403, 404, 413),
    "deleteBot": (401, 403, 404, 409),
    "rotateBotToken": (401, 403, 404),
    "rotateBotSecret": (400, 401, 403, 404, 413, 422),
    "listBotEvents": (400, 401, 403, 404),
    "streamBotEvents": (400, 401, 403, 404, 406),
    "signUp": (400, 403, 409, 413, 422),
    "getAccount": (401,),
    "listKeys": (401,),
    "createKey": (400, 401, 403, 413, 422),
    "revokeKey": (401, 404),
    "rotateKey": (401, 404),
    "listAccountGames": (400, 401, 403),
    "listAccountEvents": (400, 401, 403),
    "streamAccountEvents": (400, 401, 403, 406),
    "listAccounts": (401, 403),
    "disableAccount": (401, 403, 404),
    "enableAccount": (401, 403, 404),
    "grantAccount": (400, 401, 403, 404, 413, 422),
    "createInvite": (401, 403),
    "listLadders": (),
    "getLadder": (404,),
    "getLadderHistory": (404,),
    "enterLadder": (400, 401, 403, 404, 409, 413, 422),
    "leaveLadder": (401, 403, 404),
    "createChallenge": (400, 401, 403, 404, 413, 422),
    "getChallenge": (404,),
    "acceptChallenge": (401, 403, 404, 409, 422),
    "declineChallenge": (400, 401, 403, 404, 409, 413),
    "setChallengePolicy": (400, 401, 403, 404, 413),
    "getChallengePolicy": (404,),
}
EVERYWHERE = (429, 503)
# operation id -> status -> the problem kinds that answer names beyond the usual one, each with what
# it means: the description lists them and the problem+json content has one example of each
PROBLEM_KINDS: dict[str, dict[int, tuple[tuple[str, str], ...]]] = {
    "getReplay": {503: (
        ("UNAVAILABLE", "the game store cannot be reached right now"),
        ("ARCHIVE_BUSY", "this server reads as many archived bundles as it may at once"),
        ("ARCHIVE_UNAVAILABLE", "archived bundles cannot be read just now (the archive failed)"),
    )},
}
# operation id -> its security requirements: a seat token (bearerAuth: a seat's token, or a pull
# bot's own), an account key (accountKey), either optional (none: a spectator or an anonymous
# player); absent: no token is read
SEAT: dict[str, list[str]] = {"bearerAuth": []}
ACCOUNT: dict[str, list[str]] = {"accountKey": []}
NOBODY: dict[str, list[str]] = {}
AUTH: dict[str, list[dict[str, list[str]]]] = {
    **{op: [SEAT, NOBODY] for op in ("getGame", "getState", "getStateAt", "listMoves", "listEvents", "streamEvents")},
    **{op: [SEAT] for op in ("postMove", "rematch", "resign", "abort", "leave", "claim", "listBotEvents",
                             "streamBotEvents")},
    **{op: [ACCOUNT, NOBODY] for op in ("createGame", "joinSeat", "getBot")},
    **{op: [SEAT, ACCOUNT] for op in ("createChallenge", "acceptChallenge", "declineChallenge")},  # a bot's token
    **{op: [ACCOUNT] for op in (
        "registerBot", "updateBot", "deleteBot", "rotateBotToken", "rotateBotSecret", "createTournament",
        "cancelTournament", "withdrawEntrant", "enterLadder", "leaveLadder", "setChallengePolicy",
        "getAccount", "listKeys", "createKey", "revokeKey", "rotateKey", "listAccountGames", "listAccountEvents",
        "streamAccountEvents", "listAccounts", "disableAccount", "enableAccount", "grantAccount", "createInvite")},
}
# operation id -> the component its JSON request body really is (the parsing schema is looser)
REQUEST_BODIES = {"createGame": "CreateGame", "postMove": "Move"}
# operation id -> its success content, for the routes that answer without a response schema
BINARY = {"type": "string", "format": "binary"}
REQUEST_CONTENT = {  # operation id -> a non-JSON request body
    # the server also takes the multipart field "bundle" (curl -F); one media type is declared
    # because openapi-python-client 0.29 generates a broken function for two binary ones
    "verifyReplay": {NDJSON: {"schema": {**BINARY, "minLength": 1}}},
}
SUCCESS_CONTENT = {
    "getReplay": {NDJSON: {"schema": {**BINARY, "description": "hourglass-replay/4: JSON Lines, signed; see "
                                                                "docs/replay-format.md"}}},
    "getSigningKeys": {"application/json": {"schema": {"$ref": REF + "SigningKeys"}}},
    "verifyReplay": {"application/json": {"schema": {"$ref": REF + "VerifyReport"}}},
    "getTimeline": {"application/json": {"schema": {"$ref": REF + "Timeline"}}},
    "viewerPage": {"text/html": {"schema": {"type": "string"}}},
    "lobbyPage": {"text/html": {"schema": {"type": "string"}}},
    "getTournamentPackage": {"application/zip": {"schema": {**BINARY, "description": "the audit package: see "
                                                                                   "docs/tournaments.md"}}},
    "streamBotEvents": {SSE: {"schema": {"type": "string", "description": "id = stream id; event = game_started, "
                                                                          "your_turn, call, game_finished, challenge, "
                                                                          "challenge_accepted, challenge_declined, "
                                                                          "challenge_expired or resync"}},
                        NDJSON: {"schema": {"type": "string", "description": "one {id, event, data} per line"}}},
    "streamAccountEvents": {SSE: {"schema": {"type": "string", "description": "id = stream id; event = game_started, "
                                                                              "your_turn, invite_received, "
                                                                              "game_finished, challenge_accepted, "
                                                                              "challenge_declined, challenge_expired "
                                                                              "or resync"}},
                            NDJSON: {"schema": {"type": "string", "description": "one {id, event, data} per line"}}},
}
VERIFY_REPORT: S.Schema = S.obj({
    "ok": S.BOOL, "game": S.nullable(S.STR), "game_id": S.nullable(S.STR), "lines": S.INT, "batches": S.INT,
    "entries": S.INT, "final_hash": S.nullable(S.STR),
    "result": {"description": "the recomputed result (null for an aborted game or a failed check)"},
    "divergence": S.nullable(S.obj({"line": S.INT, "what": S.STR, "expected": S.STR, "found": S.STR})),
    "warnings": S.array(S.STR),
    "signed_by": {**S.nullable(S.STR), "description": "the id of this service's key that signed the bundle "
                                                      "(checked); null for a bundle without a signature"},
})
SIGNING_KEYS: S.Schema = S.obj({
    "format": {"const": "hourglass-keys/1"},
    "keys": S.array(S.obj({
        "key_id": S.STR, "alg": {"const": "Ed25519"},
        "public_key": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "the raw 32-byte key, hex"},
        "not_before": {**S.nullable(S.STR), "description": "ISO-8601 UTC; null: from the beginning"},
        "not_after": {**S.nullable(S.STR), "description": "ISO-8601 UTC, exclusive; null: until further notice"},
    })),
})
TIMELINE: S.Schema = S.obj({
    "id": S.STR, "status": S.enum(["open", "active", "finished", "aborted", "expired"]), "version": S.INT,
    "steps": S.array(S.obj({"version": S.INT, "actor": S.ACTOR, "command": {"type": "object"}},
                           required=("version", "actor"))),
})

PROBLEM_SCHEMA: S.Schema = S.obj({
    "type": {**S.STR, "description": "urn:hourglass:problem:<kind>"},
    "title": S.STR, "status": S.INT, "detail": S.STR,
    "kind": {**S.STR, "description": "why: MALFORMED, UNAUTHORIZED, NOT_FOUND, STALE_VERSION, NOT_YOUR_TURN, ..."},
    "errors": {"description": "field-level messages of a request that does not match its schema"},
    "current_version": {**S.INT, "description": "412: the game's version now"},
}, required=("type", "title", "status", "detail", "kind"), extra=True)

HEADERS = {
    "RateLimit-Limit": ("requests allowed in the current window", False),
    "RateLimit-Remaining": ("requests left in the current window", False),
    "RateLimit-Reset": ("seconds until the window resets", False),
}
PROBLEM_HEADERS = {
    401: {"WWW-Authenticate": "the bearer challenge"},
    412: {"ETag": "the game's current version"},
    429: {"Retry-After": "seconds to wait before trying again"},
    503: {"Retry-After": "seconds to wait before trying again"},
}


CLOCK_FIGURES: S.Schema = S.mapping(S.obj({"remaining_ms": S.INT, "running": S.BOOL, "deadline_ms": S.nullable(S.INT)}))
_TABLE = {"version": S.INT, "status": S.STR, "seat": S.nullable(S.INT), "to_act": S.array(S.ACTOR),
          "view": {"$ref": REF + "GameView"}, "clocks": S.nullable(CLOCK_FIGURES),
          "view_head": {**S.nullable(S.STR), "description": "the caller seat's view-chain head at this version "
                        "(docs/replay-format.md, View chains); null for a spectator"},
          "moves": {**S.array({"$ref": REF + "Move"}), "description": "the caller's legal moves (none for a "
                    "spectator or a seat not to act): what GET .../moves lists at this version"}}
# One named component per line of a game's stream (generators name their models after them: one
# inline union made openapi-python-client drop the lines as duplicate models), and their union.
STREAM_LINES: dict[str, S.Schema] = {
    "StreamEventLine": {**S.obj({"kind": S.enum(["event"]), "seq": S.INT, "type": S.STR, "actor": S.ACTOR,
                                 "time": S.STR, "data": {"type": "object"}}),
                        "description": "one event of the log as the caller may see it (SSE: an unnamed message, id = seq)"},
    "StreamClocksLine": {**S.obj({"kind": S.enum(["clocks"]), "version": S.INT, "clocks": S.nullable(CLOCK_FIGURES)}),
                         "description": "a clocked game's clocks after a batch"},
    "StreamMovesLine": {**S.obj({"kind": S.enum(["moves"]), "version": S.INT, "moves": S.array({"$ref": REF + "Move"})}),
                        "description": "a seat's stream only, after a batch that leaves the seat to act: its legal "
                                       "moves at that version (post one with If-Match: the version)"},
    "StreamHeadLine": {**S.obj({"kind": S.enum(["head"]), "version": S.INT, "view_head": S.STR}),
                       "description": "a seat's stream only, after each batch: the seat's view-chain head at that "
                                      "version (record it to check the replay bundle: docs/replay-format.md)"},
    "StreamEndLine": {**S.obj({"kind": S.enum(["end"]), "version": S.INT, "status": S.enum(["finished", "aborted"])}),
                      "description": "the last line: the game is over"},
    "StreamSnapshotLine": {**S.obj({"kind": S.enum(["snapshot"]), **_TABLE}),
                           "description": "the first line of a fresh stream (no Last-Event-ID, no after): the table "
                                          "as the caller sees it, what GET .../state and GET .../moves say at its "
                                          "version; the events after that version follow (SSE: id = version)"},
    "StreamResyncLine": {**S.obj({"kind": S.enum(["resync"]), "reason": S.enum(["behind"]), **_TABLE}),
                         "description": "instead of the events of a client that fell behind by more than the lag "
                                        "bound: the latest table, as in a snapshot; go on (or resume) after its version"},
}
SSE_MESSAGE: S.Schema = {
    "type": "object", "description": "one Server-Sent Event of a game's stream: its data is the JSON text of a "
    "StreamLine without kind (the event name is the kind: absent or 'message' for an event, id = seq; 'snapshot' "
    "and 'resync' carry id = version)",
    "properties": {"event": S.enum(["message", "snapshot", "clocks", "moves", "head", "end", "resync"]),
                   "data": {"type": "string", "contentMediaType": "application/json"},
                   "id": {"type": "string"}, "retry": {"type": "integer"}}}
STREAM_LINE: S.Schema = {
    "description": "one line of a game's NDJSON stream (the data of one SSE message, without kind: the SSE "
                   "event name is the kind, 'message' for an event)",
    "oneOf": [{"$ref": REF + name} for name in STREAM_LINES],
    "discriminator": {"propertyName": "kind", "mapping": {
        name[len("Stream"):-len("Line")].lower(): REF + name for name in STREAM_LINES}},
}


def component_prefix(game: str) -> str:
    """``orleans`` -> ``Orleans``: the prefix of a game's components."""
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", game) if part)


class Typed(fields.Raw):
    """A field whose value is described by a component of this module (``GameView``...)."""

    def __init__(self, component: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.component = component


def typed2properties(self: Any, field: fields.Field, **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a :class:`Typed` field is a ``$ref`` (or it and null)."""
    if not isinstance(field, Typed):
        return {}
    ref = {"$ref": REF + field.component}
    return {"anyOf": [ref, dict(S.NULL)]} if field.allow_none else ref


# --- the games' components -----------------------------------------------------------------------


def game_components(names: Iterable[str] | None = None) -> dict[str, S.Schema]:
    """Every game's typed schemas and the unions across games, by component name."""
    out: dict[str, S.Schema] = {}
    games = list(names if names is not None else game_names())
    for name in games:
        out.update(_one_game(name))
    prefixes = {name: component_prefix(name) for name in games}
    out["Move"] = {"description": "a move of any game: post one of those GET .../moves lists",
                   "anyOf": [{"$ref": REF + f"{p}Move"} for p in prefixes.values()]}
    out["GameView"] = {"oneOf": [{"$ref": REF + f"{p}View"} for p in prefixes.values()],
                       "discriminator": {"propertyName": "game",
                                         "mapping": {n: REF + f"{p}View" for n, p in prefixes.items()}}}
    out["CreateGame"] = {"oneOf": [{"$ref": REF + f"Create{p}Game"} for p in prefixes.values()],
                         "discriminator": {"propertyName": "game",
                                           "mapping": {n: REF + f"Create{p}Game" for n, p in prefixes.items()}}}
    out["GameConfig"] = {"anyOf": [{"$ref": REF + f"{p}Config"} for p in prefixes.values()]}
    out["GameResult"] = {"anyOf": [{"$ref": REF + "DecidedResult"}]
                         + [{"$ref": REF + f"{p}Result"} for p in prefixes.values()]}
    out["DecidedResult"] = DECIDED_RESULT
    return out


DEPARTED: S.Schema = S.array(S.obj({"seat": S.INT, "reason": S.enum(["resigned", "abandoned", "forfeited"])}))
UNPLAYED: S.Schema = {**S.array(S.INT), "description": "seats whose every decision failed (timeouts, failed bot "
                                                       "calls): they rank below every seat that made a real move "
                                                       "and win nothing (core.table, table rules 2)"}
DECIDED_RESULT: S.Schema = S.obj({
    "reason": {**S.enum(["resignation", "abandonment", "forfeit"]), "description": "the game ended because seats left"},
    "winners": S.array(S.INT),
    "ranking": S.array(S.obj({"seat": S.INT, "rank": S.INT})),
    "departed": DEPARTED,
    "unplayed": UNPLAYED,
}, required=("reason", "winners", "ranking", "departed"))


def _one_game(name: str) -> dict[str, S.Schema]:
    rules = get_game(name)
    prefix = component_prefix(name)
    schema = S.find(name, rules)
    if schema is None:  # a game without schema.py: untyped, and tests/service/test_openapi_views.py fails
        return _untyped(name, prefix)
    moves = {f"{prefix}{cls.__name__}": S.move_schema(cls) for cls in schema.moves}
    editions = S.edition_values(schema.config)
    return {
        **moves,
        f"{prefix}Move": {"oneOf": [{"$ref": REF + m} for m in moves],
                          "discriminator": {"propertyName": "type",
                                            "mapping": {cls.__name__: REF + f"{prefix}{cls.__name__}"
                                                        for cls in schema.moves}}},
        f"{prefix}Config": S.dataclass_schema(schema.config),
        f"{prefix}Options": {"description": f"{name}'s options (the config without edition and players)",
                             **S.options_schema(schema.config)},
        f"Create{prefix}Game": _create(name, editions, f"{prefix}Options"),
        f"{prefix}View": {"description": f"a seat's (or a spectator's) view of a {name} game", **schema.view},
        f"{prefix}Result": _with_departures(schema.result),
    }


def _with_departures(result: Mapping[str, Any]) -> S.Schema:
    """A game's result as ``core.table.result`` may extend it: the seats that left, and (for a
    game whose result has none) the ranking that puts them last."""
    extra = {"departed": {**DEPARTED, "description": "seats that left the game; they rank below the others"},
             "unplayed": UNPLAYED}
    if "ranking" not in result["properties"]:
        extra["ranking"] = S.array(S.obj({"seat": S.INT, "rank": S.INT, "score": S.INT}))
    return {**result, "properties": {**result["properties"], **extra}}


def _create(name: str, editions: list[Any], options: str) -> S.Schema:
    return S.obj({
        "game": S.enum([name]),
        "edition": {**(S.enum(editions) if editions else {**S.STR, "minLength": 1, "maxLength": 32}),
                    "description": "the game's edition; left out: the game's default (the first listed)"},
        "seats": {**S.array({"$ref": REF + "SeatSpec"}), "minItems": 1, "maxItems": 8},
        "options": {"$ref": REF + options},
        "seed": {**S.nullable({**S.STR, "minLength": 1, "maxLength": 256}),
                 "description": "a seed of your own; only for games without a human seat"},
        "entropy": {**S.nullable(S.obj({"window_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 600}})),
                    "description": "wait up to window_s seconds for the seats' entropy before the set-up "
                                   "(POST /api/v1/games/{id}/entropy; docs/fairness.md); no open seats"},
    }, required=("game", "seats"))


def _untyped(name: str, prefix: str) -> dict[str, S.Schema]:
    anything = {"type": "object", "additionalProperties": True}
    return {
        f"{prefix}Move": {**anything, "properties": {"type": {**S.STR, "minLength": 1, "maxLength": 64}},
                          "required": ["type"]},
        f"{prefix}Config": anything, f"{prefix}Options": anything,
        f"Create{prefix}Game": _create(name, [], f"{prefix}Options"),
        f"{prefix}View": {**anything, "properties": {"game": S.enum([name])}, "required": ["game"]},
        f"{prefix}Result": anything,
    }


# --- operations ------------------------------------------------------------------------------------


def problem_response(status: int) -> dict[str, Any]:
    headers = {name: {"description": text, "required": True, "schema": _header_schema(name)}
               for name, text in PROBLEM_HEADERS.get(status, {}).items()}
    return {"description": HTTPStatus(status).phrase,
            "headers": {**headers, **rate_headers()},
            "content": {PROBLEM_JSON: {"schema": {"$ref": REF + "Problem"}}}}


def with_kinds(response: dict[str, Any], status: int, kinds: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """``response`` naming the problem ``kinds`` of its ``status``: in its description and as one
    example body of each (what ``service.problems`` sends)."""
    described = "; ".join(f"{kind}: {meaning}" for kind, meaning in kinds)
    examples = {kind: {"summary": meaning, "value": {
        "type": f"urn:hourglass:problem:{kind.lower().replace('_', '-')}", "title": HTTPStatus(status).phrase.capitalize(),
        "status": status, "detail": meaning, "kind": kind}} for kind, meaning in kinds}
    problem = {**response["content"][PROBLEM_JSON], "examples": examples}
    return {**response, "description": f"{response['description']} ({described})",
            "content": {**response["content"], PROBLEM_JSON: problem}}


def _header_schema(name: str) -> dict[str, Any]:
    return {"type": "string"} if name in ("WWW-Authenticate", "ETag") else {"type": "integer", "minimum": 0}


def rate_headers() -> dict[str, Any]:
    """The IETF draft rate-limit headers: present whenever a limit applied to the request."""
    return {name: {"$ref": f"#/components/headers/{name}"} for name in HEADERS}


class SpecPlugin(BasePlugin):
    """Applies the tables above to every operation as flask-smorest registers it."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for operation in (operations or {}).values():
            if isinstance(operation, dict) and "operationId" in operation:
                finish_operation(operation)


def finish_operation(operation: dict[str, Any]) -> None:
    op_id = operation["operationId"]
    responses = operation.setdefault("responses", {})
    responses.pop("default", None)
    for status, response in list(responses.items()):
        page = isinstance(response, dict) and HTML in response.get("content", {})
        if int(status) >= 400 and not page:
            del responses[status]  # flask-smorest's own error entries: replaced below (pages keep their HTML)
    for status in (*PROBLEMS.get(op_id, ()), *EVERYWHERE):
        page = responses.get(str(status))
        responses[str(status)] = problem_response(status)
        if isinstance(page, dict) and HTML in page.get("content", {}):  # negotiated: the page or the problem
            responses[str(status)]["content"][HTML] = page["content"][HTML]
            responses[str(status)]["description"] = page.get("description", responses[str(status)]["description"])
        kinds = PROBLEM_KINDS.get(op_id, {}).get(status)
        if kinds:
            responses[str(status)] = with_kinds(responses[str(status)], status, kinds)
    content = SUCCESS_CONTENT.get(op_id)
    if content is not None:
        responses.setdefault("200", {"description": "OK"})["content"] = content
    for response in responses.values():
        if isinstance(response, dict):
            response.setdefault("headers", {}).update(
                {k: v for k, v in rate_headers().items() if k not in response["headers"]})
    operation["security"] = AUTH.get(op_id, [])
    if op_id in REQUEST_CONTENT:
        operation["requestBody"] = {"required": True, "content": REQUEST_CONTENT[op_id]}
    body = REQUEST_BODIES.get(op_id)
    if body is not None:
        operation["requestBody"] = {"required": True,
                                    "content": {"application/json": {"schema": {"$ref": REF + body}}}}


def register(spec: APISpec) -> None:
    """The games' components, the Problem schema and the bearer scheme."""
    spec.components.schema("Problem", component=PROBLEM_SCHEMA)
    spec.components.schema("VerifyReport", component=VERIFY_REPORT)
    spec.components.schema("Timeline", component=TIMELINE)
    spec.components.schema("SigningKeys", component=SIGNING_KEYS)
    for name, line in STREAM_LINES.items():
        spec.components.schema(name, component=line)
    spec.components.schema("StreamLine", component=STREAM_LINE)
    spec.components.schema("StreamMessage", component=SSE_MESSAGE)
    for name, (text, required) in HEADERS.items():
        spec.components.header(name, {"description": text, "required": required,
                                      "schema": {"type": "integer", "minimum": 0}})
    for name, component in game_components().items():
        spec.components.schema(name, component=component)
    spec.components.security_scheme("bearerAuth", {
        "type": "http", "scheme": "bearer",
        "description": "A seat's token (from creating the game, joining a seat or a rematch), or a pull "
                       "bot's own token (hgb_…, from registering it); without one you are a spectator where "
                       "the operation allows it."})
    spec.components.security_scheme("accountKey", {
        "type": "http", "scheme": "bearer",
        "description": "An account's API key (hga_…, from POST /api/v1/accounts or POST /api/v1/account/keys), "
                       "with scopes play, bots, tournaments (and admin for the operator). Anonymous play "
                       "needs none."})


def tidy(document: dict[str, Any]) -> dict[str, Any]:
    """Drop the components nothing refers to (the looser parsing schemas, unused defaults)."""
    components = document.get("components", {})
    while True:
        text = repr(document)
        unused = [(kind, n) for kind in ("schemas", "responses", "headers", "parameters")
                  for n in components.get(kind, {})
                  if f"'#/components/{kind}/{n}'" not in text]
        if not unused:
            return request_defaults(document)
        for kind, n in unused:
            del components[kind][n]


def request_defaults(document: dict[str, Any]) -> dict[str, Any]:
    """Say the server's defaults of request-only schemas in words, not as ``default``.

    openapi-typescript (``defaultNonNullable``, on by default) types a property with a default as
    always present, which is true of a response and false of a request: a client writing
    ``{"name": "Ann"}`` as a SeatSpec would be told ``kind`` is missing. A schema that only
    requests reach keeps the default in its description, and the server still applies it."""
    schemas = document.get("components", {}).get("schemas", {})
    asked = _reached([op.get("requestBody", {}) for op in _operations(document)], schemas)
    answered = _reached([op.get("responses", {}) for op in _operations(document)], schemas)
    for name in sorted(asked - answered):
        for prop in schemas[name].get("properties", {}).values():
            if isinstance(prop, dict) and "default" in prop:
                default = prop.pop("default")
                if default is not None:
                    said = f"default: {json.dumps(default)}"
                    prop["description"] = f"{prop['description']} ({said})" if prop.get("description") else said
    return document


def _operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for item in document.get("paths", {}).values() for op in item.values() if isinstance(op, dict)]


def _reached(roots: list[Any], schemas: dict[str, Any]) -> set[str]:
    """The component schemas ``roots`` refer to, directly or through other components."""
    found: set[str] = set()
    todo = list(roots)
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(REF) and ref[len(REF):] not in found:
                found.add(ref[len(REF):])
                todo.append(schemas.get(ref[len(REF):]))
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return found
