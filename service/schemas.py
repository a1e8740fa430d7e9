"""Marshmallow schemas: the only place the HTTP edge describes its JSON.

Game-specific payloads (a seat's view, a move, an event's data) are open JSON objects whose
shape belongs to the game; everything around them is typed here. Request schemas reject
unknown fields (marshmallow's default RAISE) except the move body, whose fields the game parses.
"""
from __future__ import annotations

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate, validates_schema

MAX_SEATS = 8


class SeatSpecSchema(Schema):
    name = fields.String(validate=validate.Length(1, 64), metadata={"description": "required unless bot_id is given"})
    kind = fields.String(load_default=None, validate=validate.OneOf(["human", "bot", "http", "pull"]),
                         metadata={"description": "human (default), bot, http; a bot_id seat takes its bot's kind"})
    bot = fields.String(validate=validate.Length(1, 64))
    url = fields.Url(require_tld=False, schemes={"http", "https"})
    clock = fields.Dict(keys=fields.String(),
                        metadata={"description": "optional {initial_s, increment_s} or a per-move {move_s}"})
    bot_id = fields.String(validate=validate.Length(1, 64), metadata={"description": "a registered bot (POST /api/v1/bots)"})
    deadline_s = fields.Float(validate=validate.Range(min=0.05, max=600),
                              metadata={"description": "bot_id seats: seconds per move (push: answer budget; pull: clock)"})

    @validates_schema
    def _named(self, data: dict[str, object], **_: object) -> None:
        if not data.get("bot_id") and not data.get("name"):
            raise ValidationError("a seat needs a name (or a bot_id)", field_name="name")


class CreateGameSchema(Schema):
    game = fields.String(load_default="orleans", validate=validate.Length(1, 32))
    edition = fields.String(load_default=None, validate=validate.Length(1, 32),
                            metadata={"description": "the game's edition; left out: the game's default"})
    seats = fields.List(fields.Nested(SeatSpecSchema), required=True, validate=validate.Length(1, MAX_SEATS))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = fields.String(allow_none=True, load_default=None, validate=validate.Length(1, 256))


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True)
    bot = fields.String()
    url = fields.String()
    clock = fields.Dict()
    bot_id = fields.String(metadata={"description": "the registered bot holding the seat"})
    deadline_s = fields.Float()


class CreatedSeatSchema(SeatSchema):
    token = fields.String(metadata={"description": "bearer token of a human seat; shown only once"})
    secret = fields.String(metadata={"description": "HMAC key of an http bot seat; shown only once"})


class CreatedSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.String(required=True)
    version = fields.Integer(required=True)
    seed_commitment = fields.String(required=True, metadata={"description": "hex sha256 of the seed"})
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True)


class SummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.String()
    config = fields.Dict()
    status = fields.String(required=True, metadata={"description": "active or finished"})
    version = fields.Integer(required=True)
    phase = fields.Raw(allow_none=True)
    round = fields.Raw(allow_none=True)
    summary = fields.Dict(metadata={"description": "the game's own summary (phase, round, event…)"})
    to_act = fields.List(fields.Raw(), required=True, metadata={"description": "seat numbers and/or 'system'"})
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    result = fields.Dict(allow_none=True)
    seed_commitment = fields.String(required=True)
    seed = fields.String(allow_none=True, metadata={"description": "hex seed, revealed when the game ends"})
    created = fields.String()


class StateSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(allow_none=True, metadata={"description": "the caller's seat; null for spectators"})
    status = fields.String(required=True)
    to_act = fields.List(fields.Raw(), required=True)
    view = fields.Dict(required=True, metadata={"description": "the game's view for this seat"})
    full = fields.Dict(metadata={"description": "time travel after the game ended: the full state, hidden parts included"})


class MovesSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(allow_none=True)
    moves = fields.List(fields.Dict(), required=True,
                        metadata={"description": "ready-to-post move objects for this seat"})


class MoveSchema(Schema):
    """A move as listed by GET .../moves; the game validates the remaining fields."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, validate=validate.Length(1, 64))


class EventSchema(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    actor = fields.Raw(required=True, metadata={"description": "a seat number or 'system'"})
    time = fields.String(required=True)
    data = fields.Dict(required=True, metadata={"description": "the event as this viewer may see it"})


class MoveResultSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class EventsSchema(MoveResultSchema):
    pass


MAX_SEQ = 10**12  # the same bound as service.web.MAX_SEQ: inside Redis' stream-id range


class EventsQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_SEQ))


class StreamQuerySchema(Schema):
    after = fields.Integer(validate=validate.Range(min=0, max=MAX_SEQ),
                           metadata={"description": "resume after this seq (Last-Event-ID wins)"})


class ProblemSchema(Schema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    kind = fields.String(required=True)
    errors = fields.Raw()
    current_version = fields.Integer()
