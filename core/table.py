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
- ``Forfeit(seat, after)``, SYSTEM: ``SeatResigned(reason="forfeited")``, with the same
  consequence as a resignation. Accepted only when the seat's last ``after`` decisions (at least
  one) all failed, as the log shows them (see *Who played* below).

Who played. Beside the events, the table reads the head of every batch, its actor, command and
meta (:func:`note`): a batch by a seat whose meta does not mark a default move is a real move of
that seat; a push seat's default move after a failed call (``meta.http.outcome`` other than
``ok`` or ``no_moves``) and a SYSTEM ``ApplyTimeout`` of the seat are failed decisions, counted
per seat until its next real move. Under table rules 2 (a game whose set-up batch carries meta
``{"table": 2}``: every game created since forfeits exist) a seat whose decisions all failed (at
least one failed, none was a real move) ranks below every seat that made a real move and wins
nothing (:func:`result`); a seat that was never asked anything (its opponent resigned first) is
not one of them. Games created before keep the ranking they were recorded with, so their
bundles verify as they did.

When and by whom these may be used beyond what the log shows (how many moves an abort may
follow, how long a seat must have been idle before a claim) is the service's policy, checked by
``core.games.GameService`` before it appends; ``step`` checks everything the log itself decides.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from domain import codec
from domain.core import Actor, GameRules, Rejected, RejectKind
from domain.games import step as game_step

if TYPE_CHECKING:
    from core.seats import SeatSpec

MAX_NAME = 64
Reason = Literal["resigned", "abandoned", "forfeited"]
Decision = Literal["resignation", "abandonment", "forfeit"]
DECIDED_BY: dict[str, Decision] = {"resigned": "resignation", "abandoned": "abandonment", "forfeited": "forfeit"}
RULES = 2  # the table rules new games are created under (meta ``{"table": RULES}`` on the set-up batch)
UNRANKED_SINCE = 2  # table rules from which a seat without a real move ranks below those with one
CALL_OK = frozenset({"ok", "no_moves"})  # push-call outcomes that are no failure of the bot


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


@dataclass(frozen=True)
class Forfeit:
    seat: int
    after: int  # the failed decisions in a row that the service's policy allows (its N)


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


TABLE_COMMANDS = (OpenSeats, JoinSeat, VacateSeat, Resign, Abort, ClaimVictory, ForceMove, Forfeit)
TABLE_EVENTS = (SeatsOpened, SeatJoined, SeatVacated, SeatResigned, GameAborted, MoveForced, GameDecided)
_COMMANDS: codec.TypeRegistry[TableCommand] = codec.TypeRegistry(TABLE_COMMANDS)
_EVENTS = codec.TypeRegistry(TABLE_EVENTS)
COMMAND_TYPES = frozenset(_COMMANDS.by_name)
EVENT_TYPES = frozenset(_EVENTS.by_name)
TableCommand = OpenSeats | JoinSeat | VacateSeat | Resign | Abort | ClaimVictory | ForceMove | Forfeit


# --- the table's state -----------------------------------------------------------------------


@dataclass(frozen=True)
class Departure:
    seat: int
    reason: Reason


@dataclass(frozen=True)
class Streak:
    seat: int
    failed: int  # failed decisions in a row, since the seat's last real move


@dataclass(frozen=True)
class Table:
    open: tuple[int, ...] = ()
    joined: tuple[int, ...] = ()  # open seats that a player took (not the creator's own)
    departed: tuple[Departure, ...] = ()  # in the order the seats left
    aborted_by: int | None = None
    winners: tuple[int, ...] | None = None  # set when departures decided the game
    decided_by: str | None = None
    rules: int = 1  # the table rules of the game (its set-up batch's meta)
    moved: tuple[int, ...] = ()  # seats that made a real move, ascending
    missed: tuple[int, ...] = ()  # seats that failed a decision at least once, ascending
    streaks: tuple[Streak, ...] = ()  # seats whose last decisions failed, by seat

    @property
    def aborted(self) -> bool:
        return self.aborted_by is not None

    @property
    def left(self) -> frozenset[int]:
        return frozenset(d.seat for d in self.departed)

    def departure(self, seat: int) -> Reason | None:
        return next((d.reason for d in self.departed if d.seat == seat), None)

    def failed_in_a_row(self, seat: int) -> int:
        """The seat's failed decisions since its last real move (timeouts, failed push calls)."""
        return next((s.failed for s in self.streaks if s.seat == seat), 0)

    def unplayed(self, seats: Iterable[int]) -> frozenset[int]:
        """Those of ``seats`` whose decisions all failed, where the table rules rank them last."""
        if self.rules < UNRANKED_SINCE:
            return frozenset()
        return (frozenset(seats) & frozenset(self.missed)) - frozenset(self.moved)


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


def decoded(rules: GameRules, batch: Sequence[dict[str, Any]]) -> list[Any]:
    """The game events of ``batch`` (stored event JSON) decoded, None for each table event: what a
    caller that folds a batch and advances its view chains (``core.viewchain.advance_all``)
    decodes once for both."""
    return [None if data.get("type") in EVENT_TYPES else rules.event_from_json(data) for data in batch]


def fold_decoded(rules: GameRules, batch: Sequence[dict[str, Any]], events: Sequence[Any], state: Any,
                 table: Table) -> tuple[Any, Table]:
    """:func:`fold`, the game events already decoded (:func:`decoded`)."""
    for data, event in zip(batch, events, strict=True):
        if event is None:
            table = evolve(table, data)
        else:
            state = rules.evolve(state, event)
    return state, table


def note(table: Table, actor: Actor, command: dict[str, Any] | None, meta: dict[str, Any] | None) -> Table:
    """Fold the head of one batch (its actor, command and meta): who made a real move, whose
    decisions failed, and (on the set-up batch) the table rules. Events do not say this: a push
    seat's default move after a failed call is the same command a bot could have chosen."""
    command, meta = command or {}, meta or {}
    kind = command.get("type")
    if kind == "CreateGame":
        rules = meta.get("table")
        return replace(table, rules=rules) if isinstance(rules, int) and not isinstance(rules, bool) else table
    if kind == "ApplyTimeout" and not isinstance(actor, int) and isinstance(command.get("target"), int):
        return _streak(table, command["target"], 1)
    if not isinstance(actor, int) or kind in COMMAND_TYPES:
        return table  # SYSTEM's steps, and table commands (a resignation or a claim is no move)
    if not meta.get("default"):
        if actor in table.moved and not table.streaks:  # the common case: nothing to note
            return table
        moved = table.moved if actor in table.moved else tuple(sorted((*table.moved, actor)))
        return replace(_streak(table, actor, 0), moved=moved)
    outcome = (meta.get("http") or {}).get("outcome")
    return _streak(table, actor, 1) if outcome is not None and outcome not in CALL_OK else table


def _streak(table: Table, seat: int, add: int) -> Table:
    """One more failed decision of ``seat`` (``add`` 1), or none since a real move (``add`` 0)."""
    failed = table.failed_in_a_row(seat) + 1 if add else 0
    if failed == 0 and not table.failed_in_a_row(seat):
        return table
    others = tuple(s for s in table.streaks if s.seat != seat)
    kept = (Streak(seat, failed),) if failed else ()
    missed = table.missed if not add or seat in table.missed else tuple(sorted((*table.missed, seat)))
    return replace(table, streaks=tuple(sorted(others + kept, key=lambda s: s.seat)), missed=missed)


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
    """The game's result, with departed seats ranked below every seat that stayed and (table
    rules 2) seats without a real move below every seat that made one.

    Exactly the game's own result when nobody left and everyone played; None for an aborted or
    unfinished game.
    """
    if table.aborted:
        return None
    if table.winners is not None:
        return _decided(table)
    own = rules.result(state)
    if own is None:
        return own
    ranking = own.get("ranking") or _ranking_from_scores(own)
    unplayed = table.unplayed(r["seat"] for r in ranking or ())
    if not table.departed and not unplayed:
        return own
    return _demoted(own, ranking, table, unplayed)


def _departed(table: Table) -> list[dict[str, Any]]:
    return [{"seat": d.seat, "reason": d.reason} for d in table.departed]


def _decided(table: Table) -> dict[str, Any]:
    """Departures ended the game: the last seats standing first, then the latest to leave (table
    rules 2: those that made a real move before those that made none)."""
    winners = list(table.winners or ())
    gone = [d.seat for d in reversed(table.departed)]
    ranking = [{"seat": s, "rank": 1} for s in winners] + [
        {"seat": s, "rank": len(winners) + 1 + i} for i, s in enumerate(gone)]
    out = {"reason": table.decided_by, "winners": winners, "ranking": ranking, "departed": _departed(table)}
    unplayed = table.unplayed(winners + gone)
    if not unplayed:
        return out
    return {**out, "winners": [s for s in winners if s not in unplayed],
            "ranking": _tiered(ranking, lambda seat: seat in unplayed), "unplayed": sorted(unplayed)}


def _demoted(own: dict[str, Any], ranking: list[dict[str, Any]] | None, table: Table,
             unplayed: frozenset[int]) -> dict[str, Any]:
    """The game's ranking with every seat that made no real move (table rules 2) below those that
    did, and within each, every departed seat below the others (ties kept)."""
    extra: dict[str, Any] = {"departed": _departed(table)} if table.departed else {}
    if unplayed:
        extra["unplayed"] = sorted(unplayed)
    if ranking is None:
        return {**own, **extra}
    left = table.left
    new = _tiered(ranking, lambda seat: (seat in unplayed, seat in left))
    # a game nobody won (a cooperative game's shared loss) stays won by nobody, and so does one
    # whose best seat made no move
    winners = [r["seat"] for r in new if r["rank"] == 1 and r["seat"] not in unplayed] if own.get("winners") else []
    return {**own, "ranking": new, "winners": winners, **extra}


def _tiered(ranking: list[dict[str, Any]], tier: Callable[[int], Any]) -> list[dict[str, Any]]:
    """``ranking`` re-ranked tier by tier (the lowest ``tier(seat)`` first), ties kept within a tier."""
    out: list[dict[str, Any]] = []
    for level in sorted({tier(r["seat"]) for r in ranking}):
        group = [r for r in ranking if tier(r["seat"]) == level]
        out += [{**r, "rank": len(out) + 1 + sum(o["rank"] < r["rank"] for o in group)} for r in group]
    return out


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
    events, _, state, table = step_events(rules, state, table, command, rng, seats)
    return events, state, table


def step_events(rules: GameRules, state: Any, table: Table, command: Any, rng: Any, seats: int,
                ) -> tuple[list[dict[str, Any]], list[Any] | None, Any, Table]:
    """:func:`step`, with the game's events as the rules decided them beside their JSON (None for
    a table command's batch): what a caller that shows them to the seats need not decode again."""
    if isinstance(command, TABLE_COMMANDS):
        events = _decide(rules, state, table, command, rng, seats)
        state, table = fold(rules, events, state, table)
        return events, None, state, table
    _guard_game_command(rules, state, table)
    decided, state = game_step(rules, state, command, rng)
    return [rules.event_to_json(e) for e in decided], list(decided), state, table


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
    if isinstance(command, Forfeit):
        return _forfeit(table, command, seats)
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
    if seat in table.left:  # a fact of the table, not a matter of whose turn it is
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"{who} already left this game ({table.departure(seat)})")


def _check_absent(rules: GameRules, state: Any, table: Table, command: ClaimVictory | ForceMove, seats: int) -> None:
    _check_seat(command.absent, seats, table, f"seat {command.absent}")
    if command.absent == command.seat:
        raise Rejected(RejectKind.ILLEGAL_MOVE, "a seat cannot claim against itself")
    if command.absent not in rules.to_act(state):
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.absent} is not to act: nobody is waiting for it")


def _forfeit(table: Table, command: Forfeit, seats: int) -> list[dict[str, Any]]:
    failed = table.failed_in_a_row(command.seat)
    if command.after < 1 or failed < command.after:
        raise Rejected(RejectKind.ILLEGAL_MOVE, f"seat {command.seat} has failed {failed} decisions in a row; "
                       f"a forfeit after {command.after} needs at least {max(1, command.after)}")
    return _depart(table, command.seat, "forfeited", seats)


def _depart(table: Table, seat: int, reason: Reason, seats: int) -> list[dict[str, Any]]:
    events = [event_to_json(SeatResigned(seat, reason))]
    staying = [s for s in range(seats) if s not in table.left and s != seat]
    if len(staying) <= 1:
        events.append(event_to_json(GameDecided(tuple(staying), DECIDED_BY[reason])))
    return events


def seat_views(seats: Sequence[SeatSpec], table: Table) -> list[dict[str, Any]]:
    """Every seat as clients see it: number, name, kind, and ``status`` at the table
    (``open``, ``playing``, ``resigned``, ``abandoned`` or ``forfeited``)."""
    out = []
    for i, seat in enumerate(seats):
        shown = {"seat": i, **{k: v for k, v in seat.to_json().items() if k not in ("url", "private")}}
        shown["status"] = "open" if i in table.open else (table.departure(i) or "playing")
        out.append(shown)
    return out
