"""Who acts next and what a non-human actor plays: the decision shared by RQ jobs and self-play.

Pure apart from the seat description it is given; no Redis, no HTTP (HTTP seats are asked by
``workers.jobs`` and fall back to :func:`default_command`). Bots draw from the game's rng scheme
on their own stream, ``Rng(seed, f"{game_id}:bot:{seat}", version)``, so a bot game replays
exactly from the seed and the log.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.seats import Player, SeatSpec
from domain.bots import bot_rng, get_bot
from domain.core import SYSTEM, Actor, GameRules


@dataclass(frozen=True)
class Decision:
    actor: Actor
    command: Any
    meta: dict[str, Any]


def next_actor(rules: GameRules, state: Any, seats: Sequence[SeatSpec],
               to_act: frozenset[Actor] | None = None, left: frozenset[int] = frozenset()) -> Actor | None:
    """SYSTEM first, then the lowest seat to act that the worker plays (``acts_from_outside`` is
    false: a built-in or push bot), or one that left the game (its default moves are played for
    it); None when only seats that act from outside may act.

    ``to_act`` is who may act at the table (``core.games.Game.to_act``); None: the rules' own.
    """
    if to_act is None:
        if rules.result(state) is not None:
            return None
        to_act = rules.to_act(state)
    if SYSTEM in to_act:
        return SYSTEM
    machine = sorted(a for a in to_act if isinstance(a, int)
                     and (not seats[a].policy.acts_from_outside or a in left))
    return machine[0] if machine else None


def system_command(rules: GameRules, state: Any) -> Decision:
    """SYSTEM's legal list is its one next step."""
    return Decision(SYSTEM, rules.legal_moves(state, SYSTEM)[0], {})


def bot_command(rules: GameRules, state: Any, seat: int, name: str, seed: bytes, game_id: str,
                version: int) -> Decision:
    moves = rules.legal_moves(state, seat)
    command = get_bot(name, rules.name)(rules, state, seat, moves, bot_rng(seed, game_id, seat, version))
    return Decision(seat, command, {"bot": name})


def default_command(rules: GameRules, state: Any, seat: int, why: Mapping[str, Any]) -> Decision:
    return Decision(seat, rules.default_move(state, seat), {**why, "default": True})


def decide_builtin(rules: GameRules, state: Any, actor: Actor, seats: Sequence[SeatSpec],
                   seed: bytes, game_id: str, version: int) -> Decision:
    """The move of SYSTEM or a built-in bot seat (not an HTTP seat)."""
    if not isinstance(actor, int):
        return system_command(rules, state)
    seat = seats[actor]
    if seat.policy.played_by is not Player.BUILTIN or seat.bot is None:
        raise ValueError(f"seat {actor} is a {seat.kind.value!r} seat, not a built-in bot")
    return bot_command(rules, state, actor, seat.bot, seed, game_id, version)
