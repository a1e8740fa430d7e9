"""Phase 4, sealed planning (R14 "Phase 4", R23 l.373-376, D10): place characters from the market
(or the Gunpowder Tower) on action spaces of owned places, take placements back until done (rules
4: at most ``TAKE_BACKS_PER_PLANNING`` times per phase, D13); the plans of every seat are revealed
together once the last seat is done."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache, lru_cache
from itertools import chain

from domain.orleans import data as D
from domain.orleans.common import Tx, Why
from domain.orleans.data import Char, Tile
from domain.orleans.memo import derived
from domain.orleans.model import (
    CHARS,
    PHASE_BEGAN,
    PLACED,
    PLANNING_FINISHED,
    TAKEN_BACK,
    FinishPlanning,
    MovedToTower,
    MoveToTower,
    Phase,
    PlaceFollower,
    PlansRevealed,
    Player,
    State,
    TakeBackFollower,
    place_map,
    rules_at_least,
)
from domain.orleans.queries import SPACES, available_tiles, free_on, owns, placement_why, tile_fits


def validate_place(state: State, c: PlaceFollower) -> Why:
    p = state.players[c.seat]
    if not rules_at_least(state, 5):  # the market's copy first, then the tower's
        if c.from_tower:
            return "from_tower needs rules 5: this game takes the market's copy first, then the Gunpowder Tower's"
        if c.tile not in available_tiles(p):
            return f"no {c.tile.value} on your market"
    elif c.from_tower and c.tile not in p.tower:
        return f"no {c.tile.value} on your Gunpowder Tower"
    elif not c.from_tower and c.tile not in p.market:
        return f"no {c.tile.value} on your market" + (" (the tower's copy: from_tower)" if c.tile in p.tower else "")
    return placement_why(p, c.tile, c.place, c.space)


def apply_place(tx: Tx, c: PlaceFollower) -> None:
    tx.emit(PLACED(c.seat, c.tile, c.place, c.space, c.from_tower))


def candidates_place(state: State, seat: int) -> Sequence[PlaceFollower]:
    """Every tile on every free space it fits: exact (registered so in dispatch.COMMAND_RULES, the
    validator is skipped for what this lists; tests/domain/test_playout.py holds listed <=> accepted)."""
    p = state.players[seat]
    owned = place_map(p)
    herb_garden, school, spaces = D.HERB_GARDEN in owned, D.SCHOOL in owned, free_spaces(p)
    if rules_at_least(state, 5):  # each copy its own move: the market's, then the Gunpowder Tower's
        moves = _placements(seat, _kinds(p.market), herb_garden, school, spaces)
        if p.tower:
            moves += _placements(seat, _kinds(p.tower), herb_garden, school, spaces, True)
    else:
        moves = _placements(seat, _kinds(p.market + p.tower), herb_garden, school, spaces)
    if not p.pending:
        return moves  # the cached tuple itself: the listing copies it
    taken = {(x.place, x.space) for x in p.pending}  # this round's placements, not on the spaces yet
    return [m for m in moves if (m.place, m.space) not in taken]


@lru_cache(maxsize=4096)
def _kinds(tiles: tuple[Tile, ...]) -> tuple[Tile, ...]:
    """Each kind among ``tiles`` once, in their order (a market recurs: one lookup, not a dict)."""
    return tuple(dict.fromkeys(tiles))


SpaceKey = tuple[bool, Char | None]  # (is the Town Hall, the character needed)
SPACE_KEYS: tuple[SpaceKey, ...] = tuple((place == D.TOWN_HALL, D.PLACES[place].spaces[i]) for place, i in SPACES)
@derived(Player, depends_on=("places",))
def free_spaces(p: Player) -> tuple[int, ...]:
    """The numbers (in ``SPACES``) of every empty action space the seat owns, in board order."""
    return tuple(chain.from_iterable([free_on(s.place, s.slots) for s in p.places]))


# (owns the Herb Garden, owns the School) -> space key -> every tile that may stand there
_FITTING: dict[tuple[bool, bool], dict[SpaceKey, frozenset[Tile]]] = {
    (herb_garden, school): {
        (town_hall, need): frozenset(t for t in Tile if tile_fits(t, town_hall, need, herb_garden, school))
        for town_hall, need in ((False, None), *((False, c) for c in CHARS), (True, None))}
    for herb_garden in (False, True) for school in (False, True)}


@lru_cache(maxsize=4096)
def _fit_table(tiles: tuple[Tile, ...], herb_garden: bool, school: bool) -> dict[SpaceKey, tuple[Tile, ...]]:
    """(is Town Hall, needed character) -> the tiles that fit, in the order of ``tiles``."""
    return {key: tuple([t for t in tiles if t in fitting]) for key, fitting in _FITTING[herb_garden, school].items()}


class _PlacementRow(list[tuple[PlaceFollower, ...] | None]):
    """Per space number, the placements of one seat with one set of tiles (built on first use).
    Commands are immutable values, so every state with the same tiles shares them."""

    def __init__(self, seat: int, fit: dict[SpaceKey, tuple[Tile, ...]], from_tower: bool) -> None:
        super().__init__([None] * len(SPACES))
        self.seat, self.fit, self.from_tower = seat, fit, from_tower

    def build(self, space: int) -> tuple[PlaceFollower, ...]:
        moves = self[space] = _space_placements(self.seat, space, self.fit[SPACE_KEYS[space]], self.from_tower)
        return moves


@lru_cache(maxsize=8192)
def _space_placements(seat: int, space: int, tiles: tuple[Tile, ...], from_tower: bool) -> tuple[PlaceFollower, ...]:
    """The placements of these tiles on one space: shared by every row whose tiles that fit the
    space are the same (most rows, a space fitting one or two kinds)."""
    place, i = SPACES[space]
    return tuple(PlaceFollower(seat, tile, place, i, from_tower) for tile in tiles)


@lru_cache(maxsize=4096)
def _placement_row(seat: int, tiles: tuple[Tile, ...], herb_garden: bool, school: bool,
                   from_tower: bool) -> _PlacementRow:
    return _PlacementRow(seat, _fit_table(tiles, herb_garden, school), from_tower)


@lru_cache(maxsize=8192)
def _placements(seat: int, tiles: tuple[Tile, ...], herb_garden: bool, school: bool,
                spaces: tuple[int, ...], from_tower: bool = False) -> tuple[PlaceFollower, ...]:
    """The placements on the numbered ``spaces`` (a seat's free spaces), in their order. A seat's
    free spaces stay the same all planning long while its tiles come and go, so the same lists
    recur, and most free spaces fit none of the tiles: looking the list up beats walking them."""
    row = _placement_row(seat, tiles, herb_garden, school, from_tower)
    moves: list[PlaceFollower] = []
    for space in spaces:
        listed = row[space]
        moves += row.build(space) if listed is None else listed
    return tuple(moves)


def may_take_back(state: State, p: Player) -> bool:
    """Rules 4 (D13): a seat takes back at most ``TAKE_BACKS_PER_PLANNING`` placements per planning
    phase, so a seat without a clock cannot keep a planning phase going by changing its mind."""
    return p.take_backs < D.TAKE_BACKS_PER_PLANNING or not rules_at_least(state, 4)


def validate_take_back(state: State, c: TakeBackFollower) -> Why:
    p = state.players[c.seat]
    if not any(x.place == c.place and x.space == c.space for x in p.pending):
        return f"you placed nothing on space {c.space} of {c.place!r} this round"
    if not may_take_back(state, p):
        return (f"you have taken back {D.TAKE_BACKS_PER_PLANNING} placements in this planning phase, "
                "the most allowed (D13): place, or finish planning")
    return None


def apply_take_back(tx: Tx, c: TakeBackFollower) -> None:
    """Rules 3 (R23 l.375, D10): until done, a seat may change its mind; the tile goes back
    where it came from (the market, or the Gunpowder Tower; rules 5 go by the copy the placement
    named, evolve._taken_back_to_source)."""
    for x in tx.state.players[c.seat].pending:
        if x.space == c.space and x.place == c.place:
            tx.emit(TAKEN_BACK(c.seat, c.place, c.space, x.tile))
            return
    raise AssertionError("validate_take_back checked that the placement exists")


def candidates_take_back(state: State, seat: int) -> list[TakeBackFollower]:
    """Exact: every placement of this round, while the seat may still take back (D13)."""
    p = state.players[seat]
    if not p.pending or not may_take_back(state, p):
        return []
    return [_take_back(seat, x.place, x.space) for x in p.pending]


@lru_cache(maxsize=4096)
def _take_back(seat: int, place: str, space: int) -> TakeBackFollower:
    return TakeBackFollower(seat, place, space)  # built once: commands are immutable values


# Rules 2 loaded the Gunpowder Tower during planning, hidden until the reveal.


def validate_move_to_tower(state: State, c: MoveToTower) -> Why:
    p = state.players[c.seat]
    if not owns(p, D.GUNPOWDER_TOWER):
        return "you do not own the Gunpowder Tower"
    if c.tile not in p.market:
        return f"no {c.tile.value} on your market"
    if len(p.tower) + len(p.tower_pending) >= D.TOWER_SPACES:
        return "the Gunpowder Tower is full"
    return None


def apply_move_to_tower(tx: Tx, c: MoveToTower) -> None:
    tx.emit(MovedToTower(c.seat, c.tile))


def candidates_move_to_tower(state: State, seat: int) -> Iterator[MoveToTower]:
    """Exact: each kind of market tile, while the seat owns a Gunpowder Tower with room."""
    p = state.players[seat]
    if owns(p, D.GUNPOWDER_TOWER) and len(p.tower) + len(p.tower_pending) < D.TOWER_SPACES:
        for t in dict.fromkeys(p.market):
            yield MoveToTower(seat, t)


def apply_finish_planning(tx: Tx, c: FinishPlanning) -> None:
    tx.emit(PLANNING_FINISHED(c.seat))
    state = tx.state
    for p in state.players:  # (a loop, not all(): no generator frame on every seat's last move)
        if not p.planned:
            return
    placements = tuple((i, x) for i, p in enumerate(state.players) for x in p.pending)
    tower = tuple((i, t) for i, p in enumerate(state.players) for t in p.tower_pending)
    tx.emit(PlansRevealed(placements, tower))
    tx.emit(PHASE_BEGAN(Phase.ACTIONS, state.start_player))


def candidates_finish_planning(state: State, seat: int) -> tuple[FinishPlanning]:
    return _finish_planning(seat)


@cache
def _finish_planning(seat: int) -> tuple[FinishPlanning]:
    return (FinishPlanning(seat),)


