"""Marshmallow schemas: the only place the HTTP edge describes its JSON.

Game-specific payloads (a seat's view, a move, a config, a result) are :class:`Typed` fields
whose OpenAPI schemas ``service.openapi`` builds per game; everything around them is typed here.
Request schemas reject unknown fields (marshmallow's default RAISE) except the move body, whose
fields the game parses (its documented schema is the typed ``Move`` union).
"""
from __future__ import annotations

from marshmallow import INCLUDE, Schema, fields, validate

from core.lobby import STATUSES
from core.seats import SeatKind
from service.openapi import Typed

MAX_SEATS = 8
ACTOR_DOC = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "enum": ["system"]}],
             "description": "a seat number, or 'system' for the service's own steps"}


def actors() -> fields.List:
    return fields.List(fields.Raw(metadata=ACTOR_DOC), required=True,
                       metadata={"description": "who may act now: seat numbers, then 'system'"})
STATUS_TEXT = ("seeding (waiting for the seats' entropy), open (waiting for players), active, finished, aborted, or "
               "expired (abandoned: no move for too long)")
URL_PATTERN = r"^https?://[^\s/?#@]+([/?#]\S*)?$"  # the rest is core.seats.check_bot_url's (a 422)


class ClockSchema(Schema):
    """Seconds as JSON numbers: ``{initial_s, increment_s?}`` or ``{move_s}`` (checked by
    ``core.clocks.TimeControl``, which keeps ints as ints; another mix is a 422)."""

    initial_s = fields.Raw(metadata={"type": "number", "exclusiveMinimum": 0, "maximum": 2_592_000,
                                     "description": "a chess clock: the time for the whole game"})
    increment_s = fields.Raw(metadata={"type": "number", "minimum": 0, "maximum": 2_592_000})
    move_s = fields.Raw(metadata={"type": "number", "exclusiveMinimum": 0, "maximum": 86_400,
                                  "description": "a per-move clock: every move gets exactly this (alone)"})


class SeatSpecSchema(Schema):
    name = fields.String(validate=validate.Length(1, 64),
                         metadata={"description": "a human seat's name; bots, open seats and bot_id seats are "
                                                  "named for you when it is left out"})
    kind = fields.String(load_default=SeatKind.HUMAN.value, validate=validate.OneOf([k.value for k in SeatKind]),
                         metadata={"description": "human (default), bot, http, or open: a seat any player (or, if "
                                                  "private, the invite's holder) takes with POST .../seats/{n}/join; "
                                                  "a bot_id seat takes its registered bot's kind"})
    bot = fields.String(validate=validate.Length(1, 64))
    url = fields.String(validate=[validate.Length(1, 2048), validate.Regexp(URL_PATTERN)],
                        metadata={"format": "uri", "description": "http seats: where the bot answers (the host "
                                                                  "must be on the server's allow-list)"})
    clock = fields.Nested(ClockSchema, metadata={"description": "a chess clock for this seat, or a per-move clock"})
    private = fields.Boolean(metadata={"description": "open seats: only the invite token's holder may take it"})
    invite_account = fields.String(validate=validate.Length(2, 32), metadata={
        "description": "open seats: keep it for this account (its name or id), which hears of the invitation on its "
                       "event stream and takes the seat with its own key (or anyone with the invite token)"})
    bot_id = fields.String(validate=validate.Length(1, 64), metadata={"description": "a registered bot (POST /api/v1/bots)"})
    deadline_s = fields.Float(validate=validate.Range(min=0.05, max=600),
                              metadata={"description": "bot_id seats: seconds per move (push: answer budget; pull: clock)"})


class CreateGameBodySchema(Schema):
    game = fields.String(required=True, validate=validate.Length(1, 32))
    edition = fields.String(load_default=None, validate=validate.Length(1, 32),
                            metadata={"description": "the game's edition; left out: the game's default"})
    seats = fields.List(fields.Nested(SeatSpecSchema), required=True, validate=validate.Length(1, MAX_SEATS))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = fields.String(allow_none=True, load_default=None, validate=validate.Length(1, 256))
    entropy = fields.Nested(lambda: EntropyWindowSchema(), load_default=None, metadata={
        "description": "wait up to window_s seconds for the seats' entropy before the set-up "
                       "(POST /api/v1/games/{id}/entropy; docs/fairness.md)"})


class EntropyWindowSchema(Schema):
    window_s = fields.Float(required=True, validate=validate.Range(min=0, max=600, min_inclusive=False),
                            metadata={"description": "seconds the seats may contribute; then the game starts "
                                                     "without the seats that did not"})


class ContributionSchema(Schema):
    entropy = fields.String(required=True, validate=[validate.Length(2, 128), validate.Regexp(r"^(?:[0-9a-f]{2})+$")],
                            metadata={"description": "1 to 64 bytes, lower-case hex"})


class ContributedSchema(Schema):
    id = fields.String(required=True)
    seat = fields.Integer(required=True)
    sha256 = fields.String(required=True, metadata={"description": "sha256 of the bytes received: keep it"})
    status = fields.String(required=True, validate=validate.OneOf(["seeding", "started"]))


class SeedingSeatSchema(Schema):
    seat = fields.Integer(required=True)
    contributes = fields.Boolean(required=True, metadata={"description": "false: the service contributed for it"})
    contributed = fields.Boolean(required=True)


class SeedingSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["seeding", "started"]))
    deadline_s = fields.Float(metadata={"description": "seconds until the window closes"})
    seed_commitment = fields.String()
    seats = fields.List(fields.Nested(SeedingSeatSchema))


class EntropyCreatedSchema(Schema):
    window_s = fields.Float(required=True)
    contributors = fields.List(fields.Integer(), required=True,
                               metadata={"description": "the seats that contribute through the API"})


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf([k.value for k in SeatKind]))
    bot = fields.String()
    clock = fields.Nested(ClockSchema)
    status = fields.String(validate=validate.OneOf(["open", "playing", "resigned", "abandoned", "forfeited"]),
                           metadata={"description": "the seat at the table: waiting for a player, playing, or left"})
    bot_id = fields.String(metadata={"description": "the registered bot holding the seat"})
    deadline_s = fields.Float()


class CreatedSeatSchema(SeatSchema):
    url = fields.String()
    private = fields.Boolean()
    token = fields.String(metadata={"description": "bearer token of a human seat; shown only once"})
    secret = fields.String(metadata={"description": "HMAC key of an http bot seat; shown only once"})
    invite = fields.String(metadata={"description": "an open seat's invite token (POST .../seats/{n}/join with "
                                                    "it); shown only once"})
    reserved = fields.Boolean(metadata={"description": "a rematch seat kept for its previous player"})


class CreatedSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.Raw(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"description": STATUS_TEXT})
    seed_commitment = fields.String(required=True, metadata={"description": "hex sha256 of the seed"})
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True)
    entropy = fields.Nested(EntropyCreatedSchema, metadata={"description": "a game waiting for its seats' entropy"})


class ClockFiguresSchema(Schema):
    remaining_ms = fields.Integer(required=True)
    running = fields.Boolean(required=True)
    deadline_ms = fields.Integer(allow_none=True, required=True,
                                 metadata={"description": "when the running clock runs out (ms since the epoch)"})


CLOCKS = fields.Dict(keys=fields.String(), values=fields.Nested(ClockFiguresSchema), allow_none=True,
                     metadata={"description": "remaining time per clocked seat (keyed by seat number); "
                                              "null when no seat has a clock"})


class ClaimOpensSchema(Schema):
    absent = fields.Integer(required=True, metadata={"description": "the seat the game is waiting on"})
    opens_ms = fields.Integer(required=True, metadata={
        "description": "from when (ms since the epoch) another seat may claim against it, if nothing is "
                       "appended before: the last append's time plus the server's inactivity limit"})


class SummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.Raw(required=True)
    config = Typed("GameConfig", required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={"description": STATUS_TEXT})
    stuck = fields.Dict(allow_none=True, metadata={
        "description": "set when workers gave up on the game: {version, reason, tries}; an operator's matter"})
    version = fields.Integer(required=True)
    phase = fields.Raw(allow_none=True, required=True)
    round = fields.Raw(allow_none=True, required=True)
    summary = fields.Dict(required=True, metadata={"description": "the game's own summary (phase, round, event…)"})
    to_act = actors()
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    result = Typed("GameResult", allow_none=True, required=True)
    clocks = CLOCKS
    claims = fields.List(fields.Nested(ClaimOpensSchema), required=True, metadata={
        "description": "when a claim (POST .../claim) against each seat the game waits on becomes possible: "
                       "unclocked human seats to act; empty when there is none (clocked seats need no claim)"})
    seed_commitment = fields.String(required=True)
    seed = fields.String(allow_none=True, required=True, metadata={"description": "hex seed, revealed when the game ends"})
    created = fields.String(required=True)
    rematch = fields.String(allow_none=True, metadata={"description": "the id of this game's rematch, once asked for"})


VIEW_HEAD = fields.String(allow_none=True, metadata={
    "description": "the caller seat's view-chain head at this version (sha256 hex; docs/replay-format.md, "
                   "View chains): record it to check the replay bundle later; null for a spectator. Other "
                   "seats' heads are never sent during play"})


class StateSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(allow_none=True, required=True, metadata={"description": "the caller's seat; null for spectators"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    to_act = actors()
    view = Typed("GameView", required=True, metadata={"description": "the game's view for this seat"})
    view_head = VIEW_HEAD
    clocks = CLOCKS
    full = fields.Dict(metadata={"description": "time travel after the game ended: the full state, hidden parts included"})


class MovesSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(allow_none=True, required=True)
    moves = fields.List(Typed("Move"), required=True, metadata={"description": "ready-to-post moves for this seat"})


class MoveBodySchema(Schema):
    """A move as listed by GET .../moves; the game validates the remaining fields."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, validate=validate.Length(1, 64))


class EventSchema(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    actor = fields.Raw(required=True, metadata=ACTOR_DOC)
    time = fields.String(required=True)
    data = fields.Dict(required=True, metadata={"description": "the event as this viewer may see it"})


class BatchEventsSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class MoveResultSchema(BatchEventsSchema):
    view_head = VIEW_HEAD


class EventsSchema(BatchEventsSchema):
    next = fields.Integer(allow_none=True, required=True,
                          metadata={"description": "more events follow: ask again with after=next; null at the end"})


MAX_SEQ = 10**12  # the same bound as service.web.MAX_SEQ: inside Redis' stream-id range
MAX_PAGE = 1000


class EventsQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ))
    limit = fields.Integer(load_default=MAX_PAGE, validate=validate.Range(min=1, max=MAX_PAGE))


class StreamQuerySchema(Schema):
    after = fields.Integer(validate=validate.Range(min=0, max=MAX_SEQ),
                           metadata={"description": "resume after this seq (Last-Event-ID wins)"})


class ListQuerySchema(Schema):
    game = fields.String(validate=validate.Length(1, 32))
    edition = fields.String(validate=validate.Length(1, 32))
    status = fields.String(validate=validate.OneOf(STATUSES))
    open = fields.Boolean(metadata={"description": "true: only games with a public open seat; false: none"})
    player = fields.String(validate=validate.Length(1, 64), metadata={"description": "a human seat's name"})
    bot = fields.String(validate=validate.Length(1, 64), metadata={"description": "a bot seat's bot name"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=validate.Length(1, 200), metadata={"description": "the previous page's next"})


class ListedGameSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.Raw(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    created = fields.String(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    open_seats = fields.List(fields.Integer(), required=True, metadata={"description": "public seats to join"})


class GameListSchema(Schema):
    games = fields.List(fields.Nested(ListedGameSchema), required=True)
    next = fields.String(allow_none=True, required=True, metadata={"description": "cursor of the next page; null at the end"})


class JoinSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(1, 64))
    invite = fields.String(validate=validate.Length(1, 128), metadata={"description": "the seat's invite token"})


class SeatTokenSchema(Schema):
    id = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "your bearer token for this seat; keep it"})
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))


class RematchSchema(SeatTokenSchema):
    created = fields.Boolean(required=True, metadata={"description": "true for the seat that created the rematch"})


class ClaimSchema(Schema):
    absent = fields.Integer(required=True, validate=validate.Range(min=0, max=MAX_SEATS - 1))
    remedy = fields.String(required=True, validate=validate.OneOf(["victory", "default_move"]))
