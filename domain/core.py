"""The contract every game implements, and the types shared by all games."""
from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any, Final, Generic, Protocol, TypeVar

from domain import codec

SYSTEM: Final = "system"
Seat = int
Actor = int | str  # a seat number, or SYSTEM


class RejectKind(str, Enum):
    """Why a command was refused: a closed set shared by every game."""

    MALFORMED = "MALFORMED"
    UNKNOWN_MOVE = "UNKNOWN_MOVE"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    WRONG_PHASE = "WRONG_PHASE"
    ILLEGAL_MOVE = "ILLEGAL_MOVE"
    GAME_OVER = "GAME_OVER"
    INVALID_CONFIG = "INVALID_CONFIG"


class Rejected(Exception):
    """A command or config the rules refuse; carries a kind and a precise message."""

    def __init__(self, kind: RejectKind, message: str) -> None:
        super().__init__(f"{kind.value}: {message}")
        self.kind = kind
        self.message = message


def who(actor: Any) -> str:
    """An actor as a message names it: "seat 2", or "the system"."""
    return "the system" if actor == SYSTEM else f"seat {actor}"


def who_list(actors: Iterable[Any]) -> str:
    """Actors as a message lists them, seats in order, "nobody" for none."""
    return ", ".join(who(a) for a in sorted(actors, key=str)) or "nobody"


def refuse_unless_allowed(command: Any, allowed: Iterable[type]) -> None:
    """WRONG_PHASE, naming what is allowed now, when ``command``'s type is not among ``allowed``."""
    if type(command) not in allowed:
        names = ", ".join(t.__name__ for t in allowed)
        raise Rejected(RejectKind.WRONG_PHASE, f"{type(command).__name__} is not allowed now; allowed: {names}")


class GameRules(Protocol):
    """What a game package exposes (see design.md, "domain/: the decider").

    States, events and commands are frozen dataclasses; the JSON helpers below are the only
    way they cross the domain boundary. Optional, read through ``domain.games``: ``step``,
    ``for_engine`` and ``provisional`` (the names of the commands that do not end a seat's
    decision while it stays to act, e.g. a planning placement; empty when absent).
    """

    name: str
    engine_version: str

    def config_from_json(self, data: dict[str, Any]) -> Any: ...
    def config_to_json(self, config: Any) -> dict[str, Any]: ...
    def setup(self, config: Any, rng: Any) -> list[Any]: ...
    def decide(self, state: Any, command: Any, rng: Any) -> list[Any]: ...
    def evolve(self, state: Any, event: Any) -> Any: ...
    def legal_moves(self, state: Any, actor: Actor) -> list[Any]: ...
    def to_act(self, state: Any) -> frozenset[Actor]: ...
    def view(self, state: Any, seat: Seat | None) -> dict[str, Any]: ...
    def result(self, state: Any) -> dict[str, Any] | None: ...
    def summary(self, state: Any) -> dict[str, Any]: ...
    def draw_counter(self, state: Any) -> int: ...
    def default_move(self, state: Any, actor: Actor) -> Any: ...
    def command_from_json(self, data: dict[str, Any], seat: Actor | None = None) -> Any: ...
    def command_to_json(self, command: Any) -> dict[str, Any]: ...
    def move_to_json(self, command: Any) -> dict[str, Any]: ...
    def event_to_json(self, event: Any) -> dict[str, Any]: ...
    def event_from_json(self, data: dict[str, Any]) -> Any: ...
    def event_view(self, event: Any, seat: Seat | None) -> dict[str, Any]: ...
    def state_to_json(self, state: Any) -> dict[str, Any]: ...


C = TypeVar("C")
E = TypeVar("E")


class JsonEdges(Generic[C, E]):
    """A game's JSON edges: the moves clients post, the commands and events the log stores.

    ``command_from_json`` with ``seat`` is what a seat posts: the seat comes from its token,
    never from the body, and a system step is refused with NOT_YOUR_TURN.
    """

    def __init__(self, commands: Iterable[type[C]], events: Iterable[type[E]], system_commands: Iterable[type[C]]) -> None:
        self.commands: codec.TypeRegistry[Any] = codec.TypeRegistry(commands)
        self.events: codec.TypeRegistry[Any] = codec.TypeRegistry(events)
        self.system_names = frozenset(c.__name__ for c in system_commands)

    def command_from_json(self, data: Any, seat: Actor | None = None) -> C:
        if not isinstance(data, dict):
            raise Rejected(RejectKind.MALFORMED, "a move is a JSON object with a 'type'")
        extra: dict[str, Any] | None = None
        if seat is not None:
            if "seat" in data:
                raise Rejected(RejectKind.MALFORMED, "do not send 'seat': your token decides it")
            if data.get("type") in self.system_names and seat != SYSTEM:
                raise Rejected(RejectKind.NOT_YOUR_TURN, f"{data['type']} is a system step, taken by the service")
            extra = {"seat": seat}
        try:
            command: C = self.commands.decode(data, extra)
        except KeyError:
            known = ", ".join(sorted(self.commands.by_name))
            raise Rejected(RejectKind.UNKNOWN_MOVE, f"unknown move type {data.get('type')!r}; known: {known}") from None
        except codec.DecodeError as exc:
            raise Rejected(RejectKind.MALFORMED, str(exc)) from None
        return command

    def command_to_json(self, command: C) -> dict[str, Any]:
        return self.commands.encode(command)

    def move_to_json(self, command: C) -> dict[str, Any]:
        """A legal move as a seat posts it: the command without its seat."""
        out = self.commands.encode(command)
        out.pop("seat", None)
        return out

    def event_to_json(self, event: E) -> dict[str, Any]:
        return self.events.encode(event)

    def event_from_json(self, data: dict[str, Any]) -> E:
        event: E = self.events.decode(data)
        return event
