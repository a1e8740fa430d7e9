"""Marshmallow schemas of the ladders, challenges and the public pages' JSON (issue 26)."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from core.challenges import DEFAULT_EXPIRES_S, MAX_EXPIRES_S, Policy
from core.ladder import MAX_DEADLINE_S
from service.platform_schemas import BotRecordSchema, CallFiguresSchema, LatencySchema, RecordTournamentSchema

BOT_ID = validate.Length(1, 64)


class LadderEntrySchema(Schema):
    bot_id = fields.String(required=True, validate=BOT_ID)
    deadline_s = fields.Float(validate=validate.Range(min=0.05, max=MAX_DEADLINE_S),
                              metadata={"description": "the bot's time per decision in its ladder games (default 2)"})


class LadderMemberSchema(Schema):
    ladder = fields.String(required=True)
    bot_id = fields.String(required=True)
    name = fields.String(required=True)
    owner = fields.String(required=True)
    deadline_s = fields.Float(required=True)
    since = fields.String(required=True)


class LadderSeatSchema(CallFiguresSchema):
    """A seat of a ladder game: the call figures every bot record has, and its rating change."""
    seat = fields.Integer(required=True)
    bot_id = fields.String(required=True)
    name = fields.String(required=True)
    rank = fields.Integer(allow_none=True)
    score = fields.Raw(allow_none=True)
    before = fields.Dict(required=True, metadata={"description": "mu, sigma, ordinal before the game"})
    after = fields.Dict(required=True, metadata={"description": "mu, sigma, ordinal after it"})
    moves = fields.Integer(required=True)
    timeouts = fields.Integer(required=True, metadata={"description": "clock timeouts (a pull bot's missed turns)"})
    defaults = fields.Integer(required=True)


class LadderGameSchema(Schema):
    ladder = fields.String(required=True)
    game_id = fields.String(required=True)
    rated = fields.Boolean(required=True, metadata={"description": "false: aborted, counts for nobody"})
    of = fields.Integer(required=True)
    finished = fields.String(required=True)
    seats = fields.List(fields.Nested(LadderSeatSchema), required=True)
    viewer = fields.String(required=True)


class LadderStandingSchema(Schema):
    place = fields.Integer(required=True)
    bot_id = fields.String(required=True)
    name = fields.String(required=True)
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True)
    games = fields.Integer(required=True)
    opted_in = fields.Boolean(required=True)
    page = fields.String(required=True)


class LadderSummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.String(allow_none=True)
    players = fields.Integer(required=True)
    members = fields.Integer(required=True)
    live = fields.Integer(required=True, metadata={"description": "its games in play now"})


class LadderListSchema(Schema):
    ladders = fields.List(fields.Nested(LadderSummarySchema), required=True)


class LadderSchema(LadderSummarySchema):
    standings = fields.List(fields.Nested(LadderStandingSchema), required=True)
    playing = fields.List(fields.String(), required=True, metadata={"description": "ids of its games in play"})
    games = fields.List(fields.Nested(LadderGameSchema), required=True,
                        metadata={"description": "its latest 20 finished games, newest first"})


class LadderHistorySchema(Schema):
    id = fields.String(required=True)
    history = fields.List(fields.Dict(), required=True,
                          metadata={"description": "every rated game, oldest first: game, seats with ratings "
                                                   "before and after"})


class RatingPointSchema(Schema):
    ladder = fields.String(required=True)
    game_id = fields.String(required=True)
    at = fields.String(required=True)
    rank = fields.Integer(allow_none=True)
    of = fields.Integer(required=True)
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True)


class BotLadderSchema(Schema):
    ladder = fields.String(required=True)
    opted_in = fields.Boolean(required=True)
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True)
    games = fields.Integer(required=True)
    history = fields.List(fields.Nested(RatingPointSchema), required=True,
                          metadata={"description": "its rating after each of its latest 100 rated games here, "
                                                   "oldest first"})


class BotLadderGameSchema(Schema):
    ladder = fields.String(required=True)
    game_id = fields.String(required=True)
    finished = fields.String(required=True)
    rated = fields.Boolean(required=True)
    of = fields.Integer(required=True)
    opponents = fields.List(fields.Dict(), required=True, metadata={"description": "bot_id and name of each"})
    seat = fields.Integer(required=True)
    rank = fields.Integer(allow_none=True)
    score = fields.Raw(allow_none=True)
    before = fields.Dict(required=True)
    after = fields.Dict(required=True)
    calls = fields.Integer(required=True)
    ok = fields.Integer(required=True)
    timeout = fields.Integer(required=True)
    error = fields.Integer(required=True)
    moves = fields.Integer(required=True)
    timeouts = fields.Integer(required=True)
    defaults = fields.Integer(required=True)
    latency_ms = fields.Nested(LatencySchema, required=True)
    viewer = fields.String(required=True)


class RecordTournamentPageSchema(RecordTournamentSchema):
    package = fields.String(allow_none=True, metadata={"description": "its audit package, once it is over"})


class BotPageRecordSchema(BotRecordSchema):
    tournaments = fields.List(fields.Nested(RecordTournamentPageSchema), required=True,
                              metadata={"description": "the latest 20, newest first"})
    ladders = fields.List(fields.Nested(BotLadderSchema), required=True,
                          metadata={"description": "every ladder it is on or was rated on"})
    ladder_games = fields.List(fields.Nested(BotLadderGameSchema), required=True,
                               metadata={"description": "its latest 20 ladder games, newest first"})


class ChallengeCreateSchema(Schema):
    bot_id = fields.String(required=True, validate=BOT_ID, metadata={"description": "the challenged bot"})
    game = fields.String(required=True, validate=validate.Length(1, 32))
    edition = fields.String(validate=validate.Length(1, 32))
    players = fields.Integer(load_default=2, validate=validate.Range(min=2, max=6))
    seat = fields.Integer(load_default=0, validate=validate.Range(min=0, max=5),
                          metadata={"description": "the challenger's seat; the challenged bot takes the next free "
                                                   "one, built-in bots the rest"})
    deadline_s = fields.Float(load_default=5.0, validate=validate.Range(min=0.05, max=MAX_DEADLINE_S),
                              metadata={"description": "time per decision: the bots' deadline, an account's "
                                                       "per-move clock"})
    builtin = fields.String(validate=validate.Length(1, 32),
                            metadata={"description": "the built-in bot in the other seats (default: random)"})
    expires_s = fields.Integer(load_default=DEFAULT_EXPIRES_S, validate=validate.Range(min=5, max=MAX_EXPIRES_S))
    as_bot = fields.String(validate=BOT_ID, metadata={"description": "with an account key: challenge as this bot "
                                                                     "of the account (else the account plays)"})


class ChallengeDeclineSchema(Schema):
    reason = fields.String(validate=validate.Length(0, 200))


class ChallengeSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["pending", "accepted", "declined", "expired"]))
    challenger = fields.Dict(required=True, metadata={"description": "kind (bot/account), name, bot_id, account"})
    bot_id = fields.String(required=True)
    bot_name = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.String(allow_none=True)
    players = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    deadline_s = fields.Float(allow_none=True)
    builtin = fields.String(allow_none=True)
    created = fields.String(required=True)
    expires = fields.String(required=True)
    answered = fields.String()
    game_id = fields.String(allow_none=True)
    reason = fields.String(allow_none=True)
    viewer = fields.String(allow_none=True)


class ChallengePolicySchema(Schema):
    policy = fields.String(required=True, validate=validate.OneOf([p.value for p in Policy]),
                           metadata={"description": "ask: the bot answers on its stream; accept_all; "
                                                    "accept_rated_peers: bots rated in the game; decline_all"})


class LeaderboardPageSchema(Schema):
    game = fields.String(required=True)
    edition = fields.String(allow_none=True)
    model = fields.String(required=True)
    entries = fields.List(fields.Dict(), required=True)
    ladders = fields.List(fields.Nested(LadderSchema), required=True,
                          metadata={"description": "the game's ladders with their standings"})
