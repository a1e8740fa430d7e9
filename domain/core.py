"""The contract every game implements (``GamePlugin``), and the types shared by all games."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, Generic, Protocol, TypeVar

from domain import codec
from domain.apischema import ApiSchema
from domain.rng import Rng

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


S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")
Cfg = TypeVar("Cfg")

Policy = Callable[[Any, Any, int, Sequence[Any], Rng], Any]
"""A bot: ``choose(rules, state, seat, moves, rng) -> command`` (domain/bots/__init__.py)."""


class Codec(Protocol[C, E]):
    """A game's JSON edges (``JsonEdges`` below, or a game's own)."""

    command_types: tuple[type, ...]  # every command, seats' and the system's
    event_types: tuple[type, ...]

    def command_from_json(self, data: Any, seat: Actor | None = None) -> C: ...
    def command_to_json(self, command: C) -> dict[str, Any]: ...
    def move_to_json(self, command: C) -> dict[str, Any]: ...
    def event_to_json(self, event: E) -> dict[str, Any]: ...
    def event_from_json(self, data: dict[str, Any]) -> E: ...


def _no_bots() -> Mapping[str, Policy]:
    return {}


@dataclass(frozen=True, kw_only=True, eq=False)
class GamePlugin(Generic[S, C, E, Cfg]):
    """Everything the layers above know of one game, declared once in the game's package and
    registered in ``domain/games.py`` (docs/adding-a-game.md).

    ``S``, ``C``, ``E`` and ``Cfg`` are the game's state, command, event and config types. States,
    events and commands are frozen values; ``codec`` and ``state_to_json`` are the only way they
    cross the domain boundary. A contract suite (tests/contract/) runs over every registered plugin.
    """

    # --- what the game is ---------------------------------------------------------------------
    name: str
    title: str  # as a page names it: "The Cathedral of Orléans"
    engine_version: str
    editions: Mapping[str, range]  # edition -> the player counts it plays; the first is the default
    # --- the rules ----------------------------------------------------------------------------
    config_from_json: Callable[[dict[str, Any]], Cfg]
    config_to_json: Callable[[Cfg], dict[str, Any]]
    setup: Callable[[Cfg, Rng], list[E]]
    decide: Callable[[S, C, Rng], list[E]]
    evolve: Callable[[S | None, E], S]
    legal_moves: Callable[[S, Actor], list[C]]
    to_act: Callable[[S], frozenset[Actor]]
    is_finished: Callable[[S], bool]
    result: Callable[[S], dict[str, Any] | None]
    draw_counter: Callable[[S], int]  # the rng draws the game has made (the next decision's counter)
    # --- what a seat may see ------------------------------------------------------------------
    view: Callable[[S, Seat | None], dict[str, Any]]
    event_view: Callable[[E, Seat | None], dict[str, Any]]
    summary: Callable[[S], dict[str, Any]]
    state_type: type[S]  # a snapshot decodes a state to it (core/snapshots.py)
    state_to_json: Callable[[S], dict[str, Any]]
    codec: Codec[C, E]
    api_schema: ApiSchema | None  # None: the API publishes no schema for it (test games outside domain/)
    # --- timeouts -----------------------------------------------------------------------------
    default_move: Callable[[S, Actor], C]  # what a timeout (or a failed HTTP bot) plays for a seat
    provisional: frozenset[str] = frozenset()
    """Command types (by name) after which a seat that stays to act is still in the same decision
    (one clock stint covers them); every other command ends the seat's decision (core/clocks.py)."""
    # --- optional -----------------------------------------------------------------------------
    step: Callable[[S, C, Rng], tuple[list[E], S]] | None = None
    """``decide`` and the state after its events in one go, for a game whose ``decide`` folds as it
    emits; None: ``domain.games.step`` folds the events once more."""
    public_event: Callable[[E], bool] | None = None
    """True for an event every seat and spectator is shown as it is stored (``event_view`` gives
    its ``event_to_json``), so a view chain encodes it once for all seats; None: each seat's view
    of every event goes through ``event_view`` (core/viewchain.py)."""
    for_engine: Callable[[str], GamePlugin[S, C, E, Cfg]] | None = None
    """The plugin that sets up a game recorded by an older engine again; None: one rule set."""
    bots: Callable[[], Mapping[str, Policy]] = _no_bots
    """The game's own bot policies by name, imported on first use (bots import the rules, never
    the other way round). The generic ones (random) play every game and are not listed here."""
    reference: Callable[[], dict[str, Any]] | None = None
    """The printed parts a viewer draws but no view carries (GET /api/v1/reference/{game})."""
    renderer: str | None = None  # the viewer module's key in replays/static/renderers.js
    events_note: str = ""  # docs/events.md: the data page and what other seats see differently
    listed: bool = True
    """False: registered (its contract is tested) but not offered by the service unless a process
    shows it (``domain.games.show``), e.g. the toy game the service tests play."""

    @property
    def players(self) -> range:
        """Every player count some edition plays."""
        counts = [n for r in self.editions.values() for n in r]
        return range(min(counts), max(counts) + 1)

    def command_from_json(self, data: Any, seat: Actor | None = None) -> C:
        return self.codec.command_from_json(data, seat)

    def command_to_json(self, command: C) -> dict[str, Any]:
        return self.codec.command_to_json(command)

    def move_to_json(self, command: C) -> dict[str, Any]:
        return self.codec.move_to_json(command)

    def event_to_json(self, event: E) -> dict[str, Any]:
        return self.codec.event_to_json(event)

    def event_from_json(self, data: dict[str, Any]) -> E:
        return self.codec.event_from_json(data)

    def __repr__(self) -> str:
        return f"<GamePlugin {self.engine_version}>"

    def __reduce__(self) -> tuple[Callable[[str, str], GamePlugin[Any, Any, Any, Any]], tuple[str, str]]:
        """Pickled by reference (its functions are not all importable by name, e.g. memoised
        queries): unpickling finds the registered plugin again (``domain.games.by_reference``)."""
        from domain.games import by_reference  # the registry imports this module

        return by_reference, (self.name, self.engine_version)


GameRules = GamePlugin[Any, Any, Any, Any]
"""A plugin as the layers above hold it, whatever its game's types."""




class JsonEdges(Generic[C, E]):
    """A game's JSON edges: the moves clients post, the commands and events the log stores.

    ``command_from_json`` with ``seat`` is what a seat posts: the seat comes from its token,
    never from the body, and a system step is refused with NOT_YOUR_TURN.
    """

    def __init__(self, commands: Iterable[type[C]], events: Iterable[type[E]], system_commands: Iterable[type[C]]) -> None:
        self.command_types: tuple[type, ...] = tuple(commands)
        self.event_types: tuple[type, ...] = tuple(events)
        self.commands: codec.TypeRegistry[Any] = codec.TypeRegistry(self.command_types)
        self.events: codec.TypeRegistry[Any] = codec.TypeRegistry(self.event_types)
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
        except KeyError:  # a seat is told the moves it may post, not the service's own steps
            names = self.commands.by_name if seat in (None, SYSTEM) else set(self.commands.by_name) - self.system_names
            known = ", ".join(sorted(names))
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
