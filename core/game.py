"""A game as the core holds it: its immutable info (from the meta hash) and its state folded to a
version, with the table around it. Values only: reading and writing them is ``core.repository``
and ``core.commands``; ``core.games.GameService`` puts the parts together.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from core import table
from core.seats import SeatKind, SeatPolicy, SeatSpec
from core.table import EMPTY as EMPTY_TABLE
from core.table import Table
from domain.core import Actor, GameRules
from domain.rng import derive_seed


class GameNotFound(LookupError):
    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game with id {game_id!r}")
        self.game_id = game_id


class VersionNotFound(LookupError):
    """Time travel to a version the game does not have (or one inside a batch)."""


def iso_time(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds and a Z, e.g. 2025-01-31T12:00:00.123Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def utc_now() -> datetime:
    return datetime.now(UTC)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class GameInfo:
    """The immutable part of a game's meta hash.

    ``seed`` is what the game draws from: the committed seed itself, or, when the seats
    contributed entropy before the set-up (``contributions``, one hex or None per seat), the seed
    derived from both (``domain.rng.derive_seed``). ``committed_seed`` is the one whose sha256
    ``seed_commitment`` is, revealed when the game is over."""

    game_id: str
    game: str
    config: dict[str, Any]
    seats: tuple[SeatSpec, ...]
    seed: bytes
    seed_commitment: str
    created: str
    engine_version: str
    tournament: str | None = None
    tokens: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)  # digest -> seat
    accounts: Mapping[int, str] = field(default_factory=dict, compare=False)  # seat -> the account it is bound to
    creator: str | None = None  # the requester that created it ("acct:<id>" or "addr:<address>")
    committed_seed: bytes = b""  # the seed whose sha256 is seed_commitment (== seed without contributions)
    contributions: tuple[str | None, ...] | None = None  # None: the game took no contributions

    @classmethod
    def from_meta(cls, game_id: str, meta: Mapping[str, str]) -> GameInfo:
        """``tokens``: the seat tokens' sha256 digests as of this read. A token is withdrawn only
        when a joined seat is given back before the game's first move (``core.seating.vacate``;
        its field is then empty); the append script checks the meta itself, so a copy of this
        that is behind can never let a withdrawn token act. One not found here may be newer."""
        committed = bytes.fromhex(meta["seed"])
        contributed = json.loads(meta["contributions"]) if meta.get("contributions") else None
        return cls(
            game_id=game_id,
            game=meta["game"],
            config=json.loads(meta["config"]),
            seats=tuple(SeatSpec.from_json(s) for s in json.loads(meta["seats"])),
            seed=committed if contributed is None else derive_seed(committed, contributed),
            committed_seed=committed,
            contributions=None if contributed is None else tuple(contributed),
            seed_commitment=meta["seed_commitment"],
            created=meta["created"],
            engine_version=meta.get("engine_version", ""),
            tournament=meta.get("tournament") or None,
            tokens={k[6:]: int(v) for k, v in meta.items() if k.startswith("token:") and v},
            accounts={int(k[8:]): v for k, v in meta.items() if k.startswith("account:") and v},
            creator=meta.get("creator") or None,
        )

    def seat_kind(self, seat: int) -> SeatKind:
        return self.seats[seat].kind

    def seat_policy(self, seat: int) -> SeatPolicy:
        """How ``seat``'s kind behaves (``core.seats.SEAT_POLICIES``)."""
        return self.seats[seat].policy


@dataclass(frozen=True)
class Game:
    """A game folded up to ``version``: the game's own state and the table around it."""

    info: GameInfo
    rules: GameRules
    state: Any
    version: int
    last_hash: str
    table: Table = EMPTY_TABLE
    view_heads: tuple[str, ...] = ()  # each seat's view-chain head at ``version`` (core.viewchain); () before any

    def view_head(self, seat: int | None) -> str | None:
        """``seat``'s view-chain head at this version; None for a spectator (or before the set-up)."""
        return self.view_heads[seat] if seat is not None and 0 <= seat < len(self.view_heads) else None

    @property
    def game_id(self) -> str:
        return self.info.game_id

    @property
    def finished(self) -> bool:
        """Over: finished by the rules or by departures, or aborted (the seed is revealed)."""
        return self.status() in ("finished", "aborted")

    @property
    def to_act(self) -> frozenset[Actor]:
        known: frozenset[Actor] | None = self.__dict__.get("_to_act")
        if known is None:  # worked out once per Game (its fields never change), like ``status``
            known = table.to_act(self.rules, self.state, self.table)
            object.__setattr__(self, "_to_act", known)
        return known

    @property
    def result(self) -> dict[str, Any] | None:
        return table.result(self.rules, self.state, self.table)

    def needs_worker(self) -> bool:
        """True when SYSTEM, a seat the worker plays or a seat that left is to act: a worker plays it."""
        return any(isinstance(a, str) or not self.info.seat_policy(a).acts_from_outside  # str: SYSTEM
                   or a in self.table.left for a in self.to_act)

    @property
    def clocked(self) -> bool:
        return any(s.clock for s in self.info.seats)

    def wants_worker(self) -> bool:
        """A worker has something to do: a machine to act, or clocks to run (every move restarts one).
        Worked out once per Game, like ``status``: a POST move asks twice (the append's work-list
        mark, then the advance reaction)."""
        known: bool | None = self.__dict__.get("_wants_worker")
        if known is None:
            known = not self.finished and (self.needs_worker() or self.clocked)
            object.__setattr__(self, "_wants_worker", known)
        return known

    def status(self) -> str:
        """``open``, ``active``, ``finished`` or ``aborted`` (``core.table.status``), worked out once
        per Game: its fields never change, and a POST move asks about ten times."""
        known: str | None = self.__dict__.get("_status")
        if known is None:
            known = table.status(self.rules, self.state, self.table)
            object.__setattr__(self, "_status", known)
        return known

    def seats(self) -> list[dict[str, Any]]:
        """The seats as clients see them (no bot URLs), each with its ``status`` at the table."""
        return table.seat_views(self.info.seats, self.table)
