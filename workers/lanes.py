"""Lanes: which queue a game's next step waits in, so cheap work never waits behind slow work.

A game is advanced in *slices*: a job takes the game's lease, does a bounded piece of work and
puts the game back at the end of a queue, so the games waiting in one queue take turns. Which
queue depends on who is to act next:

- ``now`` (queue ``<base>-now``): a game that just had news from outside (it was created, a
  human or pull bot moved, a tournament started it). Its first slice is played before any
  continuation: someone is waiting for it. Then the game goes on in the lanes below. A tournament
  tick woken by a game's end waits here too: it plays nothing, and games wait for it to start.
- ``fast`` (queue ``<base>``): SYSTEM steps, a departed seat's default move, and built-in bots
  whose decisions are cheap. A job plays such steps until it has used ``SLICE_S`` of its CPU, or
  ``SLICE_WALL_FACTOR`` times that has passed on the clock (at least one step). CPU, because on a
  loaded machine a wall-clock slice holds a fraction of the work and the game pays a queue hop's
  bookkeeping for every fraction; the wall-clock cap keeps a slice bounded all the same. The steps
  of a slice are decided on the game in memory and stored in one append (``workers.jobs``).
  While no game's news and no slow-lane work waits, the job plays the game's next slice itself:
  for as long as no other fast-lane game waits, else up to ``TURN_SLICES`` slices in a row (a
  queue hop costs RQ's bookkeeping and, on the other worker, a fold of what this one appended).
- ``slow`` (queue ``<base>-slow``): built-in bots whose single decision can take longer than a
  slice. A job makes one such decision, then hands the game to the lane of whoever acts next.
- ``call``: a push (HTTP) seat. The decision is an HTTP call that mostly waits; it is handed to
  the caller process (``workers.caller``), which holds many calls open at once, so no worker is
  ever held by it. Without a live caller (``hourglass worker`` alone, or a test) the call is made
  inline by a job on the slow lane.

``<base>`` is ``HOURGLASS_QUEUE`` (default ``hourglass``). A worker takes from its queues in
order; ``hourglass serve`` runs one worker on ``now`` then ``fast``, and one on ``slow``, ``now``
then ``fast``, so a fresh game's first step waits neither for a search decision nor behind the
slices of games already under way.

The built-in bots are classed by measurement (``bench/botcost.py``, one decision timed, the bot
in seat 0 against random bots, 2 games each, on the 2-core development machine):

| game | bot | p50 ms | p99 ms | max ms | lane |
|---|---|---|---|---|---|
| any | random | 0.01 | 0.01 | 0.23 | fast |
| orleans | greedy | 0.20 | 1.09 | 3.21 | fast |
| artificium | greedy | 1.07 | 6.10 | 6.84 | fast |
| cathedral | greedy | 4.34 | 148.89 | 148.89 | slow |
| orleans | search | 13.65 | 276.45 | 384.27 | slow |
| artificium | search | 392.68 | 2,204.89 | 2,285.21 | slow |

A bot is slow when its p99 decision is longer than the 50 ms slice. A bot not in the table (a
new one) is slow until it is measured: a wrong guess that way costs it a queue hop, the other
way every game behind it.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

from core.seats import Player, SeatSpec
from domain.core import SYSTEM, Actor

Lane = Literal["now", "fast", "slow", "call"]
NOW: Lane = "now"
FAST: Lane = "fast"
SLOW: Lane = "slow"
CALL: Lane = "call"
QUEUE_LANES: tuple[Lane, ...] = (NOW, FAST, SLOW)  # the lanes that are RQ queues, in the order a worker takes them
SLICE_ENV = "HOURGLASS_SLICE_MS"
DEFAULT_SLICE_MS = 50
SLICE_S = DEFAULT_SLICE_MS / 1000
SLICE_WALL_FACTOR = 4  # a slice is SLICE_S of the worker's CPU, and never more than this many SLICE_S of wall time
TURN_SLICES = 2  # a fast-lane game's turn while no news waits: this many slices in one job (workers.jobs)

CHEAP_BOTS: frozenset[tuple[str, str]] = frozenset({
    ("orleans", "random"), ("artificium", "random"), ("cathedral", "random"),
    ("orleans", "greedy"), ("artificium", "greedy"),
})


def slice_s() -> float:
    """The fast lane's time slice in seconds of a worker's CPU (``HOURGLASS_SLICE_MS``, default 50)."""
    raw = os.environ.get(SLICE_ENV)
    return max(1, int(raw)) / 1000 if raw else SLICE_S


def bot_lane(game: str, bot: str) -> Lane:
    """The lane of a built-in bot's decisions in ``game``."""
    return FAST if (game, bot) in CHEAP_BOTS or bot == "random" else SLOW


def actor_lane(game: str, actor: Actor, seats: Sequence[SeatSpec], left: frozenset[int]) -> Lane:
    """The lane of ``actor``'s next decision (``workers.policy.next_actor`` chose it)."""
    if actor == SYSTEM or not isinstance(actor, int) or actor in left:
        return FAST  # a SYSTEM step, or a departed seat's default move: no thinking at all
    seat = seats[actor]
    if seat.policy.played_by is Player.HTTP_CALL:
        return CALL
    if seat.policy.acts_from_outside:
        raise ValueError(f"seat {actor} is a {seat.kind} seat: it acts from outside")
    return bot_lane(game, str(seat.bot))


def queue_suffix(lane: Lane) -> str:
    """What the lane's queue name adds to the base name."""
    return "" if lane == FAST else f"-{lane}"


def lane_of_queue(name: str) -> Lane:
    """The lane a queue name belongs to (a name without a lane suffix is the fast lane)."""
    return next((lane for lane in (NOW, SLOW) if name.endswith(queue_suffix(lane))), FAST)


def base_of_queue(name: str) -> str:
    """The base name of a lane's queue."""
    suffix = queue_suffix(lane_of_queue(name))
    return name[: -len(suffix)] if suffix else name
