"""What every game's decider is built from: the transaction a decision emits its events into, and
the table entry that checks, applies and lists one kind of seat command.

A game's ``dispatch`` maps each seat command type to a ``CommandRule`` (``COMMAND_RULES``) and
runs a decision as a ``Transaction`` of its own (``Tx``, naming its fold); ``evolve`` folds
``(state, event)`` in every game.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from domain.rng import Rng

S = TypeVar("S")
E = TypeVar("E")
T = TypeVar("T")
C = TypeVar("C")

Why = str | None  # a validator's answer: None, or why the command is illegal


class Transaction(Generic[S, E]):
    """The events of one decision, folded as they are emitted so later steps see them.

    A game subclasses it once, naming its fold: ``class Tx(Transaction[State, Event]): fold =
    staticmethod(evolve)``.
    """

    __slots__ = ("state", "events", "rng")

    def __init__(self, state: S, rng: Rng) -> None:
        self.state = state
        self.events: list[E] = []
        self.rng = rng

    @staticmethod
    def fold(state: S, event: E) -> S:
        raise NotImplementedError("a game's Tx names its fold")

    def emit(self, event: E) -> None:
        self.events.append(event)
        self.state = self.fold(self.state, event)


@dataclass(frozen=True, slots=True)
class CommandRule(Generic[S, T, C]):
    """How one seat command is checked (on the state), applied (in the transaction ``T``) and
    listed (for a seat); the three agree on its type."""

    validate: Callable[[S, C], Why]
    apply: Callable[[T, C], None]
    candidates: Callable[[S, int], Iterable[C]]
    exact: bool = False  # the candidates are valid by construction: legal_moves skips the validator
