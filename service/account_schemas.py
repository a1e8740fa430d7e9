"""Marshmallow schemas of accounts, their keys and their games (issue 22)."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from core.accounts import GRANTS, SCOPES

SCOPE_LIST = fields.List(fields.String(validate=validate.OneOf(SCOPES)), validate=validate.Length(1, len(SCOPES)),
                         metadata={"description": "play, bots, tournaments (admin only from an admin key)"})


class SignupSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(2, 32),
                         metadata={"description": "unique (case-insensitive); letters, digits, '_', '.', '-'"})
    invite = fields.String(validate=validate.Length(1, 64),
                           metadata={"description": "an invite code, where the server's sign-up needs one"})


class AccountSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["active", "disabled"]))


class KeySchema(Schema):
    id = fields.String(required=True, metadata={"description": "the key's public id (its secret is never shown again)"})
    scopes = fields.List(fields.String(), required=True)
    created = fields.String(required=True)
    label = fields.String(required=True)


class IssuedKeySchema(Schema):
    key = fields.String(required=True, metadata={"description": "the API key (hga_…): shown only in this answer"})
    key_id = fields.String(required=True)
    scopes = fields.List(fields.String(), required=True)


class SignedUpSchema(AccountSchema, IssuedKeySchema):
    pass


class NewKeySchema(Schema):
    scopes = SCOPE_LIST
    label = fields.String(load_default="", validate=validate.Length(0, 64))


class KeyListSchema(Schema):
    keys = fields.List(fields.Nested(KeySchema), required=True)


class BudgetFiguresSchema(Schema):
    limit = fields.Float(required=True)
    used = fields.Float(required=True)
    period_s = fields.Float(required=True)


class AccountViewSchema(AccountSchema):
    scopes = fields.List(fields.String(), required=True, metadata={"description": "the calling key's scopes"})
    key_id = fields.String(required=True)
    budgets = fields.Dict(required=True, metadata={
        "description": "requests (per window), work (units per period, left now) and live_games (now / cap)"})


class AccountGameSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    edition = fields.Raw(required=True)
    seat = fields.Integer(required=True)
    status = fields.String(required=True)
    to_act = fields.Boolean(required=True, metadata={"description": "this seat may act now"})
    version = fields.Integer(allow_none=True, required=True,
                             metadata={"description": "the game's version (open and active games; null once over)"})
    created = fields.String(required=True)


class AccountGamesSchema(Schema):
    games = fields.List(fields.Nested(AccountGameSchema), required=True)
    next = fields.String(allow_none=True, required=True, metadata={"description": "the next page's cursor"})


class AccountGamesQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(["open", "active", "finished", "aborted", "expired"]))
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))
    cursor = fields.String(validate=validate.Regexp(r"^[0-9]{1,20}$"))


class GrantSchema(Schema):
    requests = fields.Integer(validate=validate.Range(0, 10**7), metadata={"description": "requests per window"})
    work = fields.Integer(validate=validate.Range(0, 10**8), metadata={"description": "work units per period"})
    live_games = fields.Integer(validate=validate.Range(0, 10**6), metadata={"description": "live games at once"})


class AccountListSchema(Schema):
    accounts = fields.List(fields.Nested(AccountSchema), required=True)


class InviteSchema(Schema):
    invite = fields.String(required=True, metadata={"description": "a single-use invite code; shown only here"})


GRANT_NAMES = GRANTS
