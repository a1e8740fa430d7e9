"""Seats that wait for a player: open seats, invite tokens, joining, and rematches.

A seat created as ``{"kind": "open"}`` waits for a player; the game starts (its first step is
taken) only when every open seat is taken, see ``core.table``. Every open seat has an invite
token, returned once to the creator: with ``"private": true`` only its holder may take the seat,
otherwise anyone may (and the game is listed in the lobby as having an open seat). Joining
returns a fresh bearer token to the joiner only.

A rematch of a game that is over is a new game with the same game, edition and options and the
seats rotated by one (seat i plays seat i + 1). Its id is derived from the old game's, so two
seats asking at once get the same game. Each human seat's new token is derived from its old one
(HMAC-SHA256 keyed with the old token over the new id): the seat that asks first gets its own at
once, and every other human seat is reserved for the holder of its old token, who claims it by
asking for the rematch too, as often as it likes (the answer is always the same token).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from core import table
from core.seats import Credential, Player, SeatKind, SeatSpec, seat_entry
from core.store import StaleVersion, meta_key
from domain.canonical import canonical_json
from domain.core import Rejected, RejectKind
from domain.games import get_game

if TYPE_CHECKING:
    from core.games import Applied, Game, GameService

MAX_JOIN_ATTEMPTS = 8


class SeatNotFound(LookupError):
    """A seat number the game does not have."""


class SeatTaken(Exception):
    """The seat is not open (any more)."""


class InviteRejected(PermissionError):
    """A private or reserved seat, and the caller holds no valid invite for it."""


class NotOver(Exception):
    """A rematch of a game that is still being played."""


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def without_invitee(seat: Mapping[str, Any], reserved: bool) -> Mapping[str, Any]:
    """A seat spec without its ``invite_account`` (kept apart, by the caller); a seat reserved for
    an account is private: it is not listed in the lobby."""
    if "invite_account" not in seat:
        return seat
    return {**{k: v for k, v in seat.items() if k != "invite_account"}, **({"private": True} if reserved else {})}


def seat_spec(index: int, seat: Mapping[str, Any]) -> SeatSpec:
    """A seat of a new game: an open seat here, every other kind by ``core.seats.seat_entry``."""
    if seat.get("kind") != SeatKind.OPEN:
        return seat_entry(index, {k: v for k, v in seat.items() if k != "private"})
    if seat.get("bot") or seat.get("url"):
        raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}] is open: a player takes it, not a bot")
    private = seat.get("private", False)
    if not isinstance(private, bool):
        raise Rejected(RejectKind.INVALID_CONFIG, f"seats[{index}].private must be true or false")
    human = seat_entry(index, {**{k: v for k, v in seat.items() if k != "private"}, "kind": SeatKind.HUMAN})
    return replace(human, kind=SeatKind.OPEN, name=seat.get("name") or f"Open seat {index}", private=private)


@dataclass(frozen=True)
class Plan:
    """The credentials of a new game's seats; only their sha256 is stored."""

    tokens: dict[int, str] = field(default_factory=dict)  # human seat -> bearer token
    secrets: dict[int, str] = field(default_factory=dict)  # http seat -> HMAC secret
    invites: dict[int, str] = field(default_factory=dict)  # open seat -> invite token
    reserved: dict[int, str] = field(default_factory=dict)  # open seat -> sha256 of the old token that claims it
    accounts: dict[int, str] = field(default_factory=dict)  # seat -> the account it is bound to
    reserved_accounts: dict[int, str] = field(default_factory=dict)  # open seat -> the account it is kept for

    def meta_fields(self) -> dict[str, str]:
        return {**{f"token:{token_digest(t)}": str(seat) for seat, t in self.tokens.items()},
                **{f"secret:{seat}": secret for seat, secret in self.secrets.items()},
                **{f"invite:{seat}": token_digest(t) for seat, t in self.invites.items()},
                **{f"reserved:{seat}": digest for seat, digest in self.reserved.items()},
                **{f"account:{seat}": account for seat, account in self.accounts.items()},
                **{f"reserved_account:{seat}": account for seat, account in self.reserved_accounts.items()}}

    def shown(self, seat: SeatSpec) -> dict[str, Any]:
        """A seat as the creator sees it, with the credentials that are shown only once."""
        n = seat.seat
        out = seat.to_json()  # ``private`` only on an open seat: no other kind carries it
        for name, values in (("token", self.tokens), ("secret", self.secrets), ("invite", self.invites)):
            if n in values:
                out[name] = values[n]
        if n in self.reserved:
            out["reserved"] = True
        return out


# --- joining -------------------------------------------------------------------------------


def join(svc: GameService, game_id: str, seat: int, name: str, invite: str | None,
         account: str | None = None) -> dict[str, Any]:
    """Take open seat ``seat`` as ``name`` (bound to ``account`` when given); returns
    ``{id, seat, token, version, status}``.

    A private seat needs its invite token; a seat reserved for an account (``invite_account`` at
    creation) is taken by that account's key, or with the invite token.
    """
    def allowed(game: Game) -> None:
        meta = _meta(svc, game_id)
        if f"reserved:{seat}" in meta:
            raise InviteRejected(f"seat {seat} is reserved for a player of the previous game: they claim it by "
                                 "asking for the rematch with their old token")
        kept_for = meta.get(f"reserved_account:{seat}")
        if kept_for and account == kept_for:
            return
        expected = meta.get(f"invite:{seat}") or ""
        private = bool(game.info.seats[seat].private)
        if invite is None and not private:
            return
        if invite is None or not hmac.compare_digest(expected, token_digest(invite)):
            raise InviteRejected(f"seat {seat} is kept for another account (or the holder of its invite token)"
                                 if kept_for else f"seat {seat} is taken with its invite token only" if private
                                 else f"the invite token is not seat {seat}'s")

    return _take(svc, game_id, seat, name, secrets.token_urlsafe(24), allowed, account)


def _meta(svc: GameService, game_id: str) -> dict[str, str]:
    return svc.store.meta(game_id) or {}


def _take(svc: GameService, game_id: str, seat: int, name: str | None, token: str,
          allowed: Any, account: str | None = None) -> dict[str, Any]:
    """Append ``JoinSeat`` for ``seat`` with ``token`` as its bearer token, once the check passes.

    The open seat's spec is kept (``open_seat:<n>``) so that :func:`vacate` can give it back."""
    for _ in range(MAX_JOIN_ATTEMPTS):
        game = svc.load(game_id)
        if not 0 <= seat < len(game.info.seats):
            raise SeatNotFound(f"game {game_id} has no seat {seat} (seats 0..{len(game.info.seats) - 1})")
        if seat not in game.table.open:
            raise SeatTaken(f"seat {seat} is not open")
        allowed(game)
        seats = list(game.info.seats)
        opened = seats[seat]
        seats[seat] = replace(opened, name=(name or opened.name).strip(), kind=SeatKind.HUMAN, private=None)
        fields = {"seats": canonical_json([s.to_json() for s in seats]), f"token:{token_digest(token)}": str(seat),
                  f"open_seat:{seat}": canonical_json(opened.to_json()), f"account:{seat}": account or ""}
        command = table.JoinSeat(seat, seats[seat].name)
        try:
            applied = svc.apply(game_id, seat, command, expected_version=game.version, meta_fields=fields)
        except StaleVersion:
            continue  # another seat joined (or a move landed) meanwhile: check again
        return {"id": game_id, "seat": seat, "token": token, "version": applied.version,
                "status": applied.game.status()}
    raise SeatTaken(f"seat {seat} of {game_id} could not be taken: the game kept changing; try again")


def vacate(svc: GameService, game: Game, seat: int, idempotency_key: str | None = None) -> Applied:
    """Give a joined seat back: it is open again as it was before the join, the joiner's token and
    account binding are withdrawn (``SeatVacated``). The caller checks that no seat has moved yet."""
    meta = _meta(svc, game.game_id)
    seats = list(game.info.seats)
    opened = meta.get(f"open_seat:{seat}")
    seats[seat] = (SeatSpec.from_json(json.loads(opened)) if opened
                   else SeatSpec(SeatKind.OPEN, f"Open seat {seat}", private=False))
    fields = {"seats": canonical_json([s.to_json() for s in seats]), f"account:{seat}": "",
              **{k: "" for k, v in meta.items() if k.startswith("token:") and v == str(seat)}}
    return svc.apply(game.game_id, seat, table.VacateSeat(seat), expected_version=game.version,
                     idempotency_key=idempotency_key, meta_fields=fields)


# --- rematch -------------------------------------------------------------------------------


def rematch_id(game_id: str) -> str:
    return hashlib.sha256(f"rematch:{game_id}".encode()).hexdigest()[:16]


def derived_token(old_token: str, new_id: str) -> str:
    mac = hmac.new(old_token.encode("utf-8"), f"rematch:{new_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


def rotated(seat: int, seats: int) -> int:
    return (seat + 1) % seats


def rematch(svc: GameService, game_id: str, seat: int, token: str) -> dict[str, Any]:
    """The rematch of ``game_id`` for the caller (``seat``, holding ``token``): created on the
    first request, claimed on the others. Returns ``{id, seat, token, version, status, created}``."""
    old = svc.load(game_id)
    if not old.finished:
        raise NotOver(f"game {game_id} is {old.status()}: a rematch follows a game that is over")
    new_id = rematch_id(game_id)
    mine = derived_token(token, new_id)
    new_seat = rotated(seat, len(old.info.seats))
    account = old.info.accounts.get(seat)  # a seat bound to an account stays bound in the rematch
    created = None if svc.store.exists(new_id) else _create_rematch(svc, old, new_id, seat, mine, account)
    if created is not None:
        svc.store.conn.hset(meta_key(game_id), "rematch", new_id)
        return {"id": new_id, "seat": new_seat, "token": mine, "version": created["version"],
                "status": created["status"], "created": True}
    if svc.seat_for_token(new_id, mine) == new_seat:
        game = svc.load(new_id)
        return {"id": new_id, "seat": new_seat, "token": mine, "version": game.version,
                "status": game.status(), "created": False}

    def reserved(game: Game) -> None:
        expected = svc.store.meta_field(new_id, f"reserved:{new_seat}") or ""
        if not hmac.compare_digest(expected, token_digest(token)):
            raise InviteRejected(f"seat {new_seat} of the rematch is not reserved for this token")

    claimed = _take(svc, new_id, new_seat, None, mine, reserved, account)
    return {**claimed, "created": False}


def _create_rematch(svc: GameService, old: Game, new_id: str, seat: int, mine: str,
                    account: str | None) -> dict[str, Any] | None:
    n = len(old.info.seats)
    old_meta = _meta(svc, old.game_id)
    digests = {int(v): k.split(":", 1)[1] for k, v in old_meta.items() if k.startswith("token:") and v}
    seats: list[SeatSpec] = list(old.info.seats)
    plan = Plan(tokens={rotated(seat, n): mine}, accounts={rotated(seat, n): account} if account else {})
    for i, before in enumerate(old.info.seats):
        j = rotated(i, n)
        entry = replace(before, seat=j, private=None)
        if entry.policy.credential is Credential.HMAC_SECRET:
            plan.secrets[j] = old_meta.get(f"secret:{i}", "")
        elif entry.policy.played_by is Player.PERSON and i != seat:
            entry = replace(entry, kind=SeatKind.OPEN, private=True)
            if i in digests:
                plan.reserved[j] = digests[i]
            else:  # a seat nobody took in the old game: open again, with a new invite for the caller
                entry = replace(entry, private=False)
                plan.invites[j] = secrets.token_urlsafe(18)
        seats[j] = entry
    return svc.create_planned(new_id, get_game(old.info.game), seats, dict(old.info.config),
                              secrets.token_bytes(32), plan, creator=old.info.creator)
