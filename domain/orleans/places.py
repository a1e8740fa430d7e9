"""What each activated place does (F§5 player-board places, F§6 place tiles): recruit, build a
trading station, development points, goods, coins, the Town Hall, the Laboratory, the Pharmacy and
the Bathhouse with its drawn characters. Ship and Wagon are in ``travel``, the Village in ``tracks``."""
from __future__ import annotations

from collections.abc import Callable, Iterator

from domain.orleans import data as D
from domain.orleans.common import Tx, Why, advance_development, close_choice, draw_from_bag, gain_coins, use_place
from domain.orleans.data import Effect
from domain.orleans.model import (
    ActionTaken,
    BathhouseDrawn,
    Choice,
    ChoiceKind,
    ChoiceOffered,
    CoinsChanged,
    DrawnPlaced,
    GoodTaken,
    PlaceDrawn,
    State,
    StationBuilt,
    TechnologyGained,
    TilesReturned,
    UsePharmacy,
)
from domain.orleans.queries import (
    action_spaces,
    activated_places,
    activated_why,
    built_stations,
    open_choice,
    placement_why,
    status,
    town_hall_tiles,
)
from domain.orleans.tracks import RECRUITS, recruit


def effect_recruit(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    recruit(tx, seat, RECRUITS[place.effect])


def effect_guildhall(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    tx.emit(StationBuilt(seat, tx.state.players[seat].merchant))


def effect_development(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    advance_development(tx, seat, place.development)


def effect_town_hall(tx: Tx, seat: int, place: D.Place) -> None:
    tiles = town_hall_tiles(tx.state.players[seat])
    tx.emit(ActionTaken(seat, place.id, ()))
    tx.emit(ChoiceOffered(Choice(seat, ChoiceKind.DEEDS, place.id, tiles=tiles)))


def effect_good(tx: Tx, seat: int, place: D.Place) -> None:
    assert place.good is not None  # every goods place names its good (F§6)
    use_place(tx, seat, place.id)
    tx.emit(GoodTaken(seat, place.good, ""))


def effect_coins(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    gain_coins(tx, seat, place.coins, place.id)


def effect_windmill(tx: Tx, seat: int, place: D.Place) -> None:
    effect_coins(tx, seat, place)
    advance_development(tx, seat, place.development)


def effect_hospital(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    gain_coins(tx, seat, status(tx.state.players[seat]), place.id)


def effect_office(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    gain_coins(tx, seat, built_stations(tx.state, seat), place.id)


def effect_laboratory(tx: Tx, seat: int, place: D.Place) -> None:
    use_place(tx, seat, place.id)
    tx.emit(TechnologyGained(seat))


def effect_bathhouse(tx: Tx, seat: int, place: D.Place) -> None:
    draw, keep = D.BATHHOUSE_DRAW[tx.state.config.edition]
    bag = tx.state.players[seat].bag
    tiles = draw_from_bag(tx, bag, min(draw, len(bag)))
    tx.emit(BathhouseDrawn(seat, tiles, tx.rng.counter))
    use_place(tx, seat, place.id)  # the Bathhouse follower goes back after the draw
    tx.emit(ChoiceOffered(Choice(seat, ChoiceKind.BATHHOUSE, place.id, tiles=tiles, remaining=keep)))
    if not bathhouse_can_place(tx.state):
        finish_bathhouse(tx)


PLACE_EFFECTS: dict[Effect, Callable[[Tx, int, D.Place], None]] = {
    Effect.FARM_HOUSE: effect_recruit, Effect.UNIVERSITY: effect_recruit, Effect.CASTLE: effect_recruit,
    Effect.MONASTERY: effect_recruit, Effect.GUILDHALL: effect_guildhall, Effect.DEVELOPMENT: effect_development,
    Effect.TOWN_HALL: effect_town_hall, Effect.GOOD: effect_good, Effect.COINS: effect_coins, Effect.WINDMILL: effect_windmill,
    Effect.HOSPITAL: effect_hospital, Effect.OFFICE: effect_office, Effect.LABORATORY: effect_laboratory,
    Effect.BATHHOUSE: effect_bathhouse,
}


def validate_pharmacy(state: State, c: UsePharmacy) -> Why:
    p = state.players[c.seat]
    why = activated_why(p, "pharmacy")
    if why:
        return why
    room = D.DEVELOPMENT_MAX - p.development  # one space per coin; the track ends at 30 (F§3)
    if room <= 0:
        return "your development marker is at the end of the track"
    top = min(D.PHARMACY_MAX_COINS, p.coins, room)
    return None if 1 <= c.coins <= top else f"pay 1 to {top} coins at the Pharmacy"


def apply_pharmacy(tx: Tx, c: UsePharmacy) -> None:
    use_place(tx, c.seat, "pharmacy")
    tx.emit(CoinsChanged(c.seat, -c.coins, "pharmacy"))
    advance_development(tx, c.seat, c.coins)


def bathhouse_can_place(state: State) -> bool:
    """Does a drawn character still fit a free action space? Then it must be placed: the choice
    closes by itself only when none fits or enough are placed (R14/R23 Bathhouse, F§6)."""
    c = open_choice(state)
    if c.remaining <= 0:
        return False
    p = state.players[c.seat]
    return any(
        placement_why(p, t, s.place, i) is None
        for t in set(c.tiles) for s in p.places if s.place != "bathhouse" for i in range(len(s.slots))
    )


def finish_bathhouse(tx: Tx) -> None:
    choice = open_choice(tx.state)
    if choice.tiles:
        tx.emit(TilesReturned(choice.seat, choice.tiles, "drawn"))
    close_choice(tx)


def validate_place_drawn(state: State, c: PlaceDrawn) -> Why:
    if c.tile not in open_choice(state).tiles:
        return f"no drawn {c.tile.value}"
    if c.place == "bathhouse":
        return "drawn characters may not go on the Bathhouse"
    return placement_why(state.players[c.seat], c.tile, c.place, c.space)


def apply_place_drawn(tx: Tx, c: PlaceDrawn) -> None:
    tx.emit(DrawnPlaced(c.seat, c.tile, c.place, c.space))
    if not bathhouse_can_place(tx.state):
        finish_bathhouse(tx)


def candidates_place_drawn(state: State, seat: int) -> Iterator[PlaceDrawn]:
    p = state.players[seat]
    for tile in dict.fromkeys(open_choice(state).tiles):
        for place, i in action_spaces(p, "bathhouse"):
            yield PlaceDrawn(seat, tile, place, i)


def candidates_pharmacy(state: State, seat: int) -> Iterator[UsePharmacy]:
    if "pharmacy" in activated_places(state.players[seat]):
        yield from (UsePharmacy(seat, n) for n in range(1, D.PHARMACY_MAX_COINS + 1))


