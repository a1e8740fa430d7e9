"""The table around every game: seats that wait for a player, seats that leave, games called off.

These game-level actions are the same for every game, so they live here and not in any game's
rules. They are recorded as *table events* in the game's own stream, next to the game's events,
so they are hashed, exported in the replay bundle and re-derived by the verifier like any move.
A table event never changes the game's state: the fold keeps a small :class:`Table` beside it.
The domain contract gains no hook for this; the table only uses ``to_act``, ``default_move``,
``result`` and the JSON edges every game already has.

Table commands (JSON ``{"type": ..., ...}`` like any command) and the events they cause:

- ``OpenSeats(seats)``, SYSTEM, right after the set-up batch: ``SeatsOpened``. While a seat is
  open nobody acts, SYSTEM included: the game starts when the last open seat is taken.
- ``JoinSeat(seat, name)``, by the joiner: ``SeatJoined``.
- ``VacateSeat(seat)``, by a seat that joined: ``SeatVacated``. The seat is open again (the game
  waits for a player, as before the join) and its token is withdrawn. The service allows it only
  before the game's first move by a seat (a joiner who leaves or aborts that early just gives
  the seat back, so nobody can empty the lobby by joining and leaving).
- ``Resign(seat)``: ``SeatResigned(reason="resigned")``. The game goes on and the worker plays
  the seat's default moves, unless at most one seat is left that has not left: then
  ``GameDecided`` ends it and the remaining seat wins (every two-player game ends this way).
- ``ClaimVictory(seat, absent)``: ``absent`` is deemed to have left (``reason="abandoned"``),
  with the same consequence as a resignation.
- ``ForceMove(seat, absent)``: ``MoveForced`` then the events of ``absent``'s default move.
- ``Abort(seat)``: ``GameAborted``; the game ends with no result.

When and by whom these may be used beyond what the log shows (how many moves an abort may
follow, how long a seat must have been idle before a claim) is the service's policy, checked by
``core.games.GameService`` before it appends; ``step`` checks everything the log itself decides.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from domain import codec
from domain.core import Actor, GameRules, Rejected, RejectKind
from domain.games import step as game_step

MAX_NAME = 64
Reason = Literal["resigned", "abandoned"]
Decision = Literal["resignation", "abandonment"]
DECIDED_BY: dict[str, Decision] = {"resigned": "resignation", "abandoned": "abandonment"}


# --- commands ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenSeats:
    seats: tuple[int, ...]


@dataclass(frozen=True)
class JoinSeat:
    seat: int
    name: str


@dataclass(frozen=True)
class VacateSeat:
    seat: int


@dataclass(frozen=True)
class Resign:
    seat: int


@dataclass(frozen=True)
class Abort:
    seat: int


@dataclass(frozen=True)
class ClaimVictory:
    seat: int
    absent: int


@dataclass(frozen=True)
class ForceMove:
    seat: int
    absent: int


# --- events --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatsOpened:
    seats: tuple[int, ...]


@dataclass(frozen=True)
class SeatJoined:
    seat: int
    name: str


@dataclass(frozen=True)
class SeatVacated:
    seat: int


@dataclass(frozen=True)
class SeatResigned:
    seat: int
    reason: Reason


@dataclass(frozen=True)
class GameAborted:
    seat: int


@dataclass(frozen=True)
class MoveForced:
    seat: int
    absent: int
    move: str  # the type of the default move played for ``absent``; its events follow


@dataclass(frozen=True)
class GameDecided:
    winners: tuple[int, ...]
    reason: Decision


TABLE_COMMANDS = (OpenSeats, JoinSeat, VacateSeat, Resign, Abort, ClaimVictory, ForceMove)
TABLE_EVENTS = (SeatsOpened, SeatJoined, SeatVacated, SeatResigned, GameAborted, MoveForced, GameDecided)
_COMMANDS: codec.TypeRegistry[TableCommand] = codec.TypeRegistry(TABLE_COMMANDS)
_EVENTS = codec.TypeRegistry(TABLE_EVENTS)
COMMAND_TYPES = frozenset(_COMMANDS.by_name)
EVENT_TYPES = frozenset(_EVENTS.by_name)
TableCommand = OpenSeats | JoinSeat | VacateSeat | Resign | Abort | ClaimVictory | ForceMove


# --- the table's state -----------------------------------------------------------------------


@dataclass(frozen=True)
class Departure:
    seat: int
    reason: Reason


@dataclass(frozen=True)
class Table:
    open: tuple[int, ...] = ()
    joined: tuple[int, ...] = ()  # open seats that a player took (not the creator's own)
    departed: tuple[Departure, ...] = ()  # in the order the seats left
    aborted_by: int | None = None
    winners: tuple[int, ...] | None = None  # set when departures decided the game
    decided_by: str | None = None

    @property
    def aborted(self) -> bool:
        return self.aborted_by is not None

    @property
    def left(self) -> frozenset[int]:
        return frozenset(d.seat for d in self.departed)

    def departure(self, seat: int) -> Reason | None:
        return next((d.reason for d in self.departed if d.seat == seat), None)


EMPTY = Table()


def is_table_event(data: dict[str, Any]) -> bool:
    return data.get("type") in EVENT_TYPES


def evolve(table: Table, data: dict[str, Any]) -> Table:
    event = _EVENTS.decode(data)
    if isinstance(event, SeatsOpened):
        return replace(table, open=tuple(sorted(set(table.open) | set(event.seats))))
    if isinstance(event, SeatJoined):
        return replace(table, open=tuple(s for s in table.open if s != event.seat),
                       joined=tuple(sorted({*table.joined, event.seat})))
    if isinstance(event, SeatVacated):
        return replace(table, open=tuple(sorted({*table.open, event.seat})),
                       joined=tuple(s for s in table.joined if s != event.seat))
    if isinstance(event, SeatResigned):
        return replace(table, departed=table.departed + (Departure(event.seat, event.reason),))
    if isinstance(event, GameAborted):
        return replace(table, aborted_by=event.seat)
    if isinstance(event, GameDecided):
        return replace(table, winners=event.winners, decided_by=event.reason)
    return table  # MoveForced: the default move's own events follow it


def fold(rules: GameRules, events: Iterable[dict[str, Any]], state: Any, table: Table) -> tuple[Any, Table]:
    """Fold stored event JSON: table events into the table, the others into the game's state."""
    for data in events:
        if data.get("type") in EVENT_TYPES:
            table = evolve(table, data)
        else:
            state = rules.evolve(state, rules.event_from_json(data))
    return state, table


# --- reading -----------------------------------------------------------------------------------


def status(rules: GameRules, state: Any, table: Table) -> str:
    """``open`` (waiting for players), ``active``, ``finished`` or ``aborted``."""
    if table.aborted:
        return "aborted"
    if table.winners is not None or rules.result(state) is not None:
        return "finished"
    return "open" if table.open else "active"


def to_act(rules: GameRules, state: Any, table: Table) -> frozenset[Actor]:
    """The game's ``to_act`` while it is active; nobody while seats are open or once it is over."""
    if status(rules, state, table) != "active":
        return frozenset()
    return rules.to_act(state)


def result(rules: GameRules, state: Any, table: Table) -> dict[str, Any] | None:
    """The game's result, with departed seats ranked below every seat that stayed.

    Exactly the game's own result when nobody left; None for an aborted or unfinished game.
    """
    if table.aborted:
        return None
    if table.winners is not None:
        return _decided(table)
    own = rules.result(state)
    if own is None or not table.departed:
        return own
    return _demoted(own, table)


def _decided(table: Table) -> dict[str, Any]:
    """Departures ended the game: the last seats standing first, then the latest to leave."""
    winners = list(table.winners or ())
    gone = [d.seat for d in reversed(table.departed)]
    ranking = [{"seat": s, "rank": 1} for s in winners] + [
        {"seat": s, "rank": len(winners) + 1 + i} for i, s in enumerate(gone)]
    return {"reason": table.decided_by, "winners": winners, "ranking": ranking,
            "departed": [{"seat": d.seat, "reason": d.reason} for d in table.departed]}


def _demoted(own: dict[str, Any], table: Table) -> dict[str, Any]:
    """The game's ranking with every departed seat moved below the others (ties kept)."""
    left = table.left
    ranking = own.get("ranking") or _ranking_from_scores(own)
    if ranking is None:
        return {**own, "departed": [{"seat": d.seat, "reason": d.reason} for d in table.departed]}
    stayed = [r for r in ranking if r["seat"] not in left]
    gone = [r for r in ranking if r["seat"] in left]

    def reranked(group: list[dict[str, Any]], offset: int) -> list[dict[str, Any]]:
        return [{**r, "rank": offset + 1 + sum(o["rank"] < r["rank"] for o in group)} for r in group]

    new = reranked(stayed, 0) + reranked(gone, len(stayed))
    # a game nobody won (a cooperative game's shared loss) stays won by nobody
    winners = [r["seat"] for r in new if r["rank"] == 1] if own.get("winners") else []
    return {**own, "ranking": new, "winners": winners,
            "departed": [{"seat": d.seat, "reason": d.reason} for d in table.departed]}


def _ranking_from_scores(own: dict[str, Any]) -> list[dict[str, Any]] | None:
    scores = own.get("scores")
    if not isinstance(scores, list) or not all(isinstance(s, int) for s in scores):
        return None
    return [{"seat": s, "rank": 1 + sum(v > scores[s] for v in scores), "score": scores[s]}
            for s in sorted(range(len(scores)), key=lambda s: (-scores[s], s))]


# --- deciding ------------------------------------------------------------------------------------


def command_from_json(data: dict[str, Any]) -> TableCommand | None:
    """The table command in ``data`` (as stored in the log), or None when it is a game's command."""
    if data.get("type") not in COMMAND_TYPES:
        return None
    try:
        command: TableCommand = _COMMANDS.decode(data)
    except codec.DecodeError as exc:
        raise Rejected(RejectKind.MALFORMED, str(exc)) from None
    return command


def command_to_json(command: TableCommand) -> dict[str, Any]:
    return _COMMANDS.encode(command)


def event_to_json(event: Any) -> dict[str, Any]:
    return _EVENTS.encode(event)


def step(rules: GameRules, state: Any, table: Table, command: Any, rng: Any, seats: int,
         ) -> tuple[list[dict[str, Any]], Any, Table]:
    """Decide ``command`` (a table command or the game's own) and fold what it causes.

    Returns the events as stored JSON and the state and table after them.
    """
    if isinstance(command, TABLE_COMMANDS):
        events = _decide(rules, state, table, command, rng, seats)
        state, table = fold(rules, events, state, table)
        return events, state, table
    _guard_game_command(rules, state, table)
    decided, state = game_step(rules, state, command, rng)
    return [rules.event_to_json(e) for e in decided], state, table


def _guard_game_command(rules: GameRules, state: Any, table: Table) -> None:
    current = status(rules, state, table)
    if current == "open":
        seats = ", ".join(str(s) for s in table.open)
        raise Rejected(RejectKind.WRONG_PHASE, f"the game starts when every seat is taken; open: {seats}")
    if current != "active":
        raise Rejected(RejectKind.GAME_OVER, f"the game is {current}; no more moves")


def _decide(rules: GameRules, state: Any, table: Table, command: TableCommand, rng: Any,
            seats: int) -> list[dict[str, Any]]:
    current = status(rules, state, table)
    if isinstance(command, OpenSeats):
        return _open(table, command, seats)
    if current in ("finished", "aborted"):
        raise Rejected(RejectKind.GAME_OVER, f"the game is {current}")
    if isinstance(command, JoinSeat):
        return _join(table, command)
    _check_seat(command.seat, seats, table, "you")
    if isinstance(command, VacateSeat):
        if command.seat not in table.joined:
            raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.seat} was not joined: only a joined seat is given back")
        return [event_to_json(SeatVacated(command.seat))]
    if isinstance(command, Abort):
        return [event_to_json(GameAborted(command.seat))]
    if current == "open":
        raise Rejected(RejectKind.WRONG_PHASE, "the game has not started (seats are open): abort it instead")
    if isinstance(command, Resign):
        return _depart(table, command.seat, "resigned", seats)
    _check_absent(rules, state, table, command, seats)
    if isinstance(command, ClaimVictory):
        return _depart(table, command.absent, "abandoned", seats)
    move = rules.default_move(state, command.absent)
    own, _ = game_step(rules, state, move, rng)
    forced = MoveForced(command.seat, command.absent, type(move).__name__)
    return [event_to_json(forced)] + [rules.event_to_json(e) for e in own]


def _open(table: Table, command: OpenSeats, seats: int) -> list[dict[str, Any]]:
    wanted = command.seats
    if table.open or table.departed or not wanted or list(wanted) != sorted(set(wanted)):
        raise Rejected(RejectKind.ILLEGAL_MOVE, "seats are opened once, in ascending order, before the game starts")
    if any(not 0 <= s < seats for s in wanted):
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seats are numbered 0..{seats - 1}")
    return [event_to_json(SeatsOpened(wanted))]


def _join(table: Table, command: JoinSeat) -> list[dict[str, Any]]:
    if command.seat not in table.open:
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.seat} is not open")
    name = command.name.strip()
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise Rejected(RejectKind.MALFORMED, f"a name is 1..{MAX_NAME} printable characters")
    return [event_to_json(SeatJoined(command.seat, name))]


def _check_seat(seat: int, seats: int, table: Table, who: str) -> None:
    if not 0 <= seat < seats:
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seats are numbered 0..{seats - 1}")
    if seat in table.left:
        raise Rejected(RejectKind.NOT_YOUR_TURN, f"{who} left this game ({table.departure(seat)})")


def _check_absent(rules: GameRules, state: Any, table: Table, command: ClaimVictory | ForceMove, seats: int) -> None:
    _check_seat(command.absent, seats, table, f"seat {command.absent}")
    if command.absent == command.seat:
        raise Rejected(RejectKind.ILLEGAL_MOVE, "a seat cannot claim against itself")
    if command.absent not in rules.to_act(state):
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.absent} is not to act: nobody is waiting for it")


def _depart(table: Table, seat: int, reason: Reason, seats: int) -> list[dict[str, Any]]:
    events = [event_to_json(SeatResigned(seat, reason))]
    staying = [s for s in range(seats) if s not in table.left and s != seat]
    if len(staying) <= 1:
        events.append(event_to_json(GameDecided(tuple(staying), DECIDED_BY[reason])))
    return events


def seat_views(seats: Sequence[dict[str, Any]], table: Table) -> list[dict[str, Any]]:
    """Every seat as clients see it: number, name, kind, and ``status`` at the table
    (``open``, ``playing``, ``resigned`` or ``abandoned``)."""
    out = []
    for i, seat in enumerate(seats):
        shown = {"seat": i, **{k: v for k, v in seat.items() if k not in ("url", "private")}}
        shown["status"] = "open" if i in table.open else (table.departure(i) or "playing")
        out.append(shown)
    return out
