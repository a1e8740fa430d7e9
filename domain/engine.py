"""What every game's decider is built from: the transaction a decision emits its events into, and
the table entry that checks, applies and lists one kind of seat command.

A game's ``dispatch`` maps each seat command type to a ``CommandRule`` (``COMMAND_RULES``) and
runs a decision as a ``Transaction`` of its own (``Tx``, naming its fold); its ``evolve`` folds
``(state, event)`` through a ``FoldRules`` table, rules taking ``(state, event)`` in every game.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_type_hints

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


class FoldRules(dict[type, Callable[[Any, Any], S]]):
    """A game's fold: event class -> ``rule(state, event) -> state``, the same signature in every
    game. Register a rule with ``@FOLD.rule`` (the event class is read from the annotation of its
    second parameter) or pass a table; ``FOLD.fold(state, event)`` is the game's ``evolve``."""

    def __init__(self, game: str, table: Mapping[type, Callable[[Any, Any], S]] | None = None) -> None:
        super().__init__(table or {})
        self.game = game

    def rule(self, rule: Callable[[Any, Any], S]) -> Callable[[Any, Any], S]:
        event = list(rule.__annotations__)[1]
        self[get_type_hints(rule)[event]] = rule
        return rule

    def fold(self, state: Any, event: Any) -> S:
        rule = self.get(type(event))
        if rule is None:
            raise TypeError(f"not {self.game} event: {event!r}")
        return rule(state, event)
