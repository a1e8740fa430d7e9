"""Marshmallow schemas of the competition platform: bots, tournaments, the leaderboard."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from core.seats import REGISTRABLE_KINDS
from core.tournaments import FORMATS, MAX_ENTRANTS, MAX_NOTE, ONE_LINE, one_line

NO_CONTROLS = "one line, no control characters"


def _one_line(text: str) -> None:
    """:data:`ONE_LINE` (the documented pattern), and no lone surrogate (a JSON escape with no UTF-8 form)."""
    if not one_line(text):
        raise ValidationError(NO_CONTROLS + " (and valid Unicode)")


def _public_text(low: int, high: int) -> list[Any]:
    return [validate.Length(low, high), validate.Regexp(ONE_LINE, error=NO_CONTROLS), _one_line]


class BotRegisterSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(1, 40),
                         metadata={"description": "unique; letters, digits, '_', '.', '-'"})
    kind = fields.String(required=True, validate=validate.OneOf([k.value for k in REGISTRABLE_KINDS]),
                         metadata={"description": "http: the worker POSTs each decision to url; "
                                                  "pull: the bot follows its event stream and posts moves"})
    url = fields.String(validate=validate.Length(1, 2048), metadata={"description": "http bots: on the allow-list"})
    secret = fields.String(validate=validate.Length(1, 256),
                           metadata={"description": "http bots: the HMAC key (32+ characters); left out: generated"})
    open = fields.Boolean(load_default=False,
                          metadata={"description": "anyone may enter the bot into games and tournaments"})


class BotPatchSchema(Schema):
    open = fields.Boolean(metadata={"description": "anyone may enter the bot (true), or only its owner (false)"})


class BotSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True)
    created = fields.String(required=True)
    owner = fields.String(allow_none=True, metadata={"description": "the owning account's id (null: registered "
                                                                    "before accounts existed)"})
    open = fields.Boolean(metadata={"description": "anyone may enter it; otherwise only its owner"})
    url = fields.String(metadata={"description": "shown to its owner (and the bot's own token) only"})


class BotCreatedSchema(BotSchema):
    token = fields.String(required=True, metadata={"description": "the bot's bearer token; shown only once"})
    secret = fields.String(metadata={"description": "the generated HMAC secret of an http bot; shown only once"})


class BotListSchema(Schema):
    bots = fields.List(fields.Nested(BotSchema), required=True)


class TokenRotatedSchema(Schema):
    id = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "the new bearer token; the old one is void"})


class SecretRotateSchema(Schema):
    secret = fields.String(validate=validate.Length(1, 256), metadata={"description": "left out: generated"})


class SecretRotatedSchema(Schema):
    id = fields.String(required=True)
    secret = fields.String(metadata={"description": "the generated secret (absent when you chose it)"})
    rotated = fields.Boolean(required=True)


class BotEventSchema(Schema):
    id = fields.String(required=True, metadata={"description": "stream id; resume after it"})
    event = fields.String(required=True)
    data = fields.Dict(required=True)


class BotEventsSchema(Schema):
    events = fields.List(fields.Nested(BotEventSchema), required=True)
    last_id = fields.String(required=True)


class BotEventsQuerySchema(Schema):
    after = fields.String(load_default="0", validate=validate.Regexp(r"^\d{1,20}(-\d{1,20})?$"),
                          metadata={"description": "a stream id from an earlier page or SSE frame; 0: the oldest kept"})


class BotStreamQuerySchema(Schema):
    after = fields.String(validate=validate.Regexp(r"^\d{1,20}(-\d{1,20})?$"),
                          metadata={"description": "resume after this stream id (Last-Event-ID wins)"})


class EntrantSpecSchema(Schema):
    """A registered bot ``{bot_id}`` or a built-in bot ``{builtin, name?}``; anything else is a 422."""

    bot_id = fields.String(validate=_public_text(1, 64))
    builtin = fields.String(validate=validate.Length(1, 32), metadata={"description": "a built-in bot: random, greedy…"})
    name = fields.String(validate=_public_text(1, 40),
                         metadata={"description": "built-in entrants: a display name"})


class CreateTournamentSchema(Schema):
    name = fields.String(load_default=None, validate=_public_text(1, 80))
    game = fields.String(required=True, validate=validate.Length(1, 32))
    edition = fields.String(load_default=None, validate=validate.Length(1, 32))
    players_per_game = fields.Integer(required=True, validate=validate.Range(2, 8))
    entrants = fields.List(fields.Nested(EntrantSpecSchema), required=True, validate=validate.Length(2, MAX_ENTRANTS))
    format = fields.String(load_default="round_robin", validate=validate.OneOf(FORMATS))
    rounds = fields.Integer(load_default=None, validate=validate.Range(1, 64),
                            metadata={"description": "swiss: the number of rounds"})
    games_per_pairing = fields.Integer(load_default=1, validate=validate.Range(1, 16))
    deadline_s = fields.Float(load_default=5.0, validate=validate.Range(0.1, 600),
                              metadata={"description": "per move: a push bot's answer budget, a pull bot's clock"})
    parallel = fields.Integer(load_default=4, validate=validate.Range(1, 64),
                              metadata={"description": "games played at the same time"})
    points = fields.List(fields.Float(), load_default=None,
                         metadata={"description": "points per finishing place; default n-1 … 0"})


class CancelTournamentSchema(Schema):
    reason = fields.String(load_default=None,
                           validate=_public_text(1, MAX_NOTE),
                           metadata={"description": "one line without control characters; shown in the stream and "
                                                    "on the page: public"})


class TournamentSchema(Schema):
    class Meta:
        ordered = True

    id = fields.String(required=True)
    name = fields.String(allow_none=True)
    status = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.String(allow_none=True)
    players_per_game = fields.Integer(required=True)
    format = fields.String(required=True)
    rounds = fields.Integer(required=True)
    games_per_pairing = fields.Integer(required=True)
    deadline_s = fields.Float(required=True)
    parallel = fields.Integer(required=True)
    points = fields.List(fields.Float(), required=True)
    seed_commitment = fields.String(required=True)
    seed = fields.String(allow_none=True, metadata={"description": "revealed when the tournament ends"})
    merkle_root = fields.String(allow_none=True)
    version = fields.Integer(required=True)
    entrants = fields.List(fields.Dict(), required=True)
    games = fields.List(fields.Dict(), required=True)
    standings = fields.List(fields.Dict(), required=True)
    created = fields.String()
    organiser = fields.String(allow_none=True, metadata={"description": "the organiser's account id"})
    rules = fields.Integer(metadata={"description": "tournament rules: 2 records every seat's calls, ranks seats "
                                                    "without a move of their own last and withdraws absent "
                                                    "entrants; 3 also scores a cooperative game by its team's "
                                                    "outcome (standings rows with ranked_by: team) and pairs Swiss "
                                                    "rounds without rematches (docs/tournaments.md)"})
    cancelled = fields.Dict(allow_none=True, metadata={"description": "{by, reason} once the organiser cancelled it"})
    ranked_by = fields.String(required=True, validate=validate.OneOf(["place", "team"]), metadata={
        "description": "how the standings rank: place (each game's places) or team (rules 3, a cooperative game: "
                       "every seat of a table shares its outcome; won games first, then sections built)"})


class TournamentListSchema(Schema):
    tournaments = fields.List(fields.Dict(), required=True)


class TournamentEventsSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    events = fields.List(fields.Dict(), required=True)


class TournamentEventsQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=10**9))


class LeaderboardQuerySchema(Schema):
    game = fields.String(required=True, validate=validate.Length(1, 32))
    edition = fields.String(load_default=None, validate=validate.Length(1, 32))


class LeaderboardSchema(Schema):
    game = fields.String(required=True)
    edition = fields.String(allow_none=True)
    model = fields.String(required=True)
    entries = fields.List(fields.Dict(), required=True)


class LatencySchema(Schema):
    p50 = fields.Float(allow_none=True)
    p95 = fields.Float(allow_none=True)


class CallFiguresSchema(Schema):
    calls = fields.Integer(required=True, metadata={"description": "push: HTTP calls; pull: turns"})
    ok = fields.Integer(required=True)
    timeout = fields.Integer(required=True)
    error = fields.Integer(required=True, metadata={"description": "every other failed call (docs/bots.md)"})
    latency_ms = fields.Nested(LatencySchema, required=True)


class RecordOverallSchema(CallFiguresSchema):
    tournaments = fields.Integer(required=True)
    games = fields.Integer(required=True)
    points = fields.Float(required=True)
    wins = fields.Integer(required=True)
    byes = fields.Integer(required=True)
    forfeits = fields.Integer(required=True)


class RecordTournamentSchema(RecordOverallSchema):
    tournament = fields.String(required=True)
    name = fields.String(allow_none=True)
    game = fields.String(required=True)
    edition = fields.String(allow_none=True)
    status = fields.String(required=True)
    entrant = fields.Integer(required=True)
    place = fields.Integer(required=True, metadata={"description": "in the standings as of the last update"})
    of = fields.Integer(required=True)
    withdrawn = fields.String(allow_none=True, metadata={"description": "owner or absent"})
    absent = fields.Boolean(required=True, metadata={"description": "withdrawn for a forfeit, or never moved in any "
                                                                    "game although asked: ranked below all who played"})
    page = fields.String(required=True)


class RecordGameSchema(CallFiguresSchema):
    game_id = fields.String(required=True)
    tournament = fields.String(required=True)
    index = fields.Integer(required=True)
    round = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    rank = fields.Integer(required=True, metadata={"description": "as the tournament counts it"})
    of = fields.Integer(required=True)
    points = fields.Float(required=True)
    forfeited = fields.Boolean(required=True)
    moves = fields.Integer(allow_none=True, metadata={"description": "moves of its own (not defaults)"})
    finished = fields.String(required=True)
    viewer = fields.String(required=True)


class BotRecordSchema(Schema):
    class Meta:
        ordered = True

    bot = fields.Nested(BotSchema, required=True)
    overall = fields.Nested(RecordOverallSchema, required=True)
    tournaments = fields.List(fields.Nested(RecordTournamentSchema), required=True,
                              metadata={"description": "the latest 20, newest first"})
    games = fields.List(fields.Nested(RecordGameSchema), required=True,
                        metadata={"description": "the latest 20 finished tournament games, newest first"})
