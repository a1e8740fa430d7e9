"""Each seat's decisions in one game, derived from the game's replay bundle alone.

What a tournament records per game in ``GameFinished`` (``workers.tournaments``) and what the
package verifier re-derives from the same bundle (``replays.tournament``), so the figures on
standings and on a bot's public record are as verifiable as the moves. Per seat
(``core.callstats`` for the counts and percentiles):

- a **push** seat (``kind`` ``http``): every call the worker made is in the meta of the batch it
  caused, ``{"http": {"outcome", "rtt_ms"}}``; a call is ``ok``, ``timeout`` or ``error`` (every
  other failure code), and its latency is ``rtt_ms``. ``no_moves`` (nothing was sent) is no call.
- a **pull** seat: every turn is a call. It ends ``ok`` when the seat moves (latency: from the
  batch after which it was to act, or after its own previous move while it stays to act, to its
  move, by the batches' times in ms) or ``timeout`` when SYSTEM's ``ApplyTimeout`` names it.
  Who is to act after each batch comes from folding the bundle's events with the game's rules
  (only for games with a pull seat).
- every seat: ``moves``, its own batches that were not a default move played for it (meta
  ``default``) and not a table command (a resignation is no move).

Only what the bundle holds is used: it is public, and nothing here can reveal more than it.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from core import callstats, table
from core.seats import Player, policy_of
from domain.core import GameRules
from domain.games import for_engine, get_game

NOT_A_CALL = frozenset({"no_moves"})  # the seat had no choice: nothing was sent


_STAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z")  # core.game.iso_time's shape


def _ms(stamp: str) -> int:
    found = _STAMP.fullmatch(stamp)  # strptime costs ~50 us; this shape is every stamp the service writes
    if found is not None:
        year, month, day, hour, minute, second, milli = map(int, found.groups())
        moment = datetime(year, month, day, hour, minute, second, milli * 1000, tzinfo=UTC)
    else:
        moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


class _Seat:
    def __init__(self) -> None:
        self.counts = dict.fromkeys(callstats.COUNTS, 0)
        self.latencies: list[float] = []
        self.moves = 0

    def call(self, outcome: str, latency: float | None) -> None:
        self.counts["calls"] += 1
        self.counts[outcome if outcome in ("ok", "timeout") else "error"] += 1
        if latency is not None:
            self.latencies.append(latency)

    def record(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, **self.counts, "moves": self.moves,
                "latency_ms": callstats.percentiles(self.latencies), "hist": callstats.histogram(self.latencies)}


def seat_stats(bundle: str | bytes, rules_for: Callable[[str], GameRules] = get_game) -> list[dict[str, Any]]:
    """One record per seat (in seat order) of a bundle the replay verifier accepts."""
    text = bundle.decode("utf-8") if isinstance(bundle, bytes) else bundle
    lines = [json.loads(line) for line in text.split("\n") if line]
    header, batches = lines[0], [line for line in lines[1:] if line.get("kind") == "batch"]
    policies = [policy_of(seat.get("kind")) for seat in header.get("seats") or []]
    played_by = [policy.played_by if policy is not None else None for policy in policies]
    seats = [_Seat() for _ in played_by]
    pull = {i for i, who in enumerate(played_by) if who is Player.PULL}
    turns = _Turns(for_engine(rules_for(str(header["game"])), str(header["engine_version"])), pull) if pull else None
    for batch in batches:
        actor, command = batch["actor"], batch.get("command") or {}
        first = batch["entries"][0]
        meta = first.get("meta") or {}
        at = _ms(first["time"])
        target = command.get("target") if command.get("type") == "ApplyTimeout" else None
        if isinstance(target, int) and target in pull:
            seats[target].call("timeout", None)
        own = isinstance(actor, int) and 0 <= actor < len(seats) and command.get("type") not in table.COMMAND_TYPES
        if own:
            if not meta.get("default"):
                seats[actor].moves += 1
            http = meta.get("http") or {}
            outcome = http.get("outcome")
            if played_by[actor] is Player.HTTP_CALL and outcome is not None and outcome not in NOT_A_CALL:
                rtt = http.get("rtt_ms")
                seats[actor].call(str(outcome), float(rtt) if isinstance(rtt, (int, float)) else None)
            elif actor in pull and turns is not None and not meta.get("default"):
                seats[actor].call("ok", turns.waited(actor, at))
        if turns is not None:
            turns.after(batch, actor if own else target, at)
    return [seat.record(i) for i, seat in enumerate(seats)]


class _Turns:
    """When each pull seat's current turn began (ms), from who is to act after every batch."""

    def __init__(self, rules: GameRules, seats: set[int]) -> None:
        self.rules, self.seats = rules, seats
        self.state: Any = None
        self.table = table.EMPTY
        self.since: dict[int, int | None] = dict.fromkeys(seats)

    def waited(self, seat: int, at: int) -> float | None:
        began = self.since.get(seat)
        return float(at - began) if began is not None else None

    def after(self, batch: dict[str, Any], decided: int | None, at: int) -> None:
        """Fold the batch; a seat to act now whose turn is new (it was not to act before, or it
        just moved or timed out and is still to act) starts a turn at the batch's time."""
        events: Sequence[dict[str, Any]] = [e["data"] for e in batch["entries"]]
        self.state, self.table = table.fold(self.rules, events, self.state, self.table)
        over = table.status(self.rules, self.state, self.table) in ("finished", "aborted")
        to_act = frozenset() if over else table.to_act(self.rules, self.state, self.table)
        for seat in self.seats:
            if seat not in to_act:
                self.since[seat] = None
            elif self.since[seat] is None or seat == decided:
                self.since[seat] = at
