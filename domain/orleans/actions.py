"""Phase 5, actions (R14 "Phase 5"): in turn order each seat takes one activated action or
passes; the Gunpowder Tower sends its characters to deeds; after passing, technology tiles are
placed (F§2.3). What each place does is in ``places``; the Village in ``tracks``; moving the
merchant in ``travel``."""
from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from domain.orleans import data as D
from domain.orleans.common import Tx, Why, close_choice
from domain.orleans.data import Effect
from domain.orleans.evolve import GOOD_INDEX
from domain.orleans.model import (
    PASSED,
    PHASE_BEGAN,
    TURN_MOVED,
    Choice,
    ChoiceKind,
    ChoiceOffered,
    KeepTechnology,
    Pass,
    Phase,
    PlaceTechnology,
    State,
    TakeAction,
    TechnologyPlaced,
)
from domain.orleans.places import PLACE_EFFECTS
from domain.orleans.queries import (
    action_spaces,
    activated_places,
    activated_why,
    can_build,
    can_recruit,
    has_tech_spot,
    owns,
    sendable,
    tech_spot,
    town_hall_tiles,
    uses_farmer_tech,
)
from domain.orleans.tracks import RECRUITS

# the places taken with TakeAction (the Village, Ship, Wagons and Pharmacy have commands of their own)
SIMPLE_EFFECTS = {
    Effect.FARM_HOUSE, Effect.UNIVERSITY, Effect.CASTLE, Effect.MONASTERY, Effect.GUILDHALL,
    Effect.DEVELOPMENT, Effect.TOWN_HALL, Effect.GOOD, Effect.COINS, Effect.WINDMILL, Effect.HOSPITAL,
    Effect.OFFICE, Effect.LABORATORY, Effect.BATHHOUSE,
}


def validate_take_action(state: State, c: TakeAction) -> Why:
    p = state.players[c.seat]
    if c.place == D.GUNPOWDER_TOWER and owns(p, c.place):
        return None if sendable(state, p.tower) else "no character on the Gunpowder Tower fits a free deed space"
    why = activated_why(p, c.place)
    if why:
        return why
    effect = D.PLACES[c.place].effect
    if effect not in SIMPLE_EFFECTS:
        return f"{c.place} is not used with TakeAction"
    return effect_why(state, c.seat, c.place, effect)


def effect_why(state: State, seat: int, place: str, effect: Effect) -> Why:
    p = state.players[seat]
    if effect in RECRUITS:
        char = RECRUITS[effect]
        return None if can_recruit(state, seat, char) else f"no {char.value} can be recruited now"
    if effect is Effect.GUILDHALL:
        return None if can_build(state, seat) else f"you cannot build a trading station in {p.merchant}"
    if effect is Effect.TOWN_HALL:
        return None if sendable(state, town_hall_tiles(p)) else "no Town Hall character fits a free deed space"
    if effect is Effect.GOOD:
        good = D.PLACES[place].good
        assert good is not None  # every goods place names its good (F§6)
        return None if state.goods_market[GOOD_INDEX[good]] > 0 else f"no {good.value} left in the Goods Market"
    if effect is Effect.LABORATORY:
        return None if state.tech_supply > 0 else "no technology tiles left"
    if effect is Effect.BATHHOUSE:
        return None if p.bag else "your bag is empty"
    return None


def apply_take_action(tx: Tx, c: TakeAction) -> None:
    if c.place == D.GUNPOWDER_TOWER:
        tiles = tx.state.players[c.seat].tower
        tx.emit(ChoiceOffered(Choice(c.seat, ChoiceKind.DEEDS, c.place, tiles=tiles)))
        return
    place = D.PLACES[c.place]
    PLACE_EFFECTS[place.effect](tx, c.seat, place)


def candidates_take_action(state: State, seat: int) -> Iterator[TakeAction]:
    p = state.players[seat]
    ready = activated_places(p)
    if not ready and not owns(p, D.GUNPOWDER_TOWER):
        return  # most turns of a game: nothing to walk
    for s in p.places:
        if s.place == D.GUNPOWDER_TOWER or (s.place in ready and D.PLACES[s.place].effect in SIMPLE_EFFECTS):
            yield TakeAction(seat, s.place)


def apply_pass(tx: Tx, c: Pass) -> None:
    tx.emit(PASSED(c.seat))
    if has_tech_spot(tx.state, c.seat):
        tx.emit(ChoiceOffered(Choice(c.seat, ChoiceKind.TECHNOLOGY, "pass")))


def end_turn(tx: Tx) -> None:
    """Pass the turn clockwise to the next seat that has not passed; end the phase when none."""
    state = tx.state
    if state.choice is not None:
        return
    n, turn = state.config.players, state.turn
    assert turn is not None  # phase 5 always has a seat to act
    for step in range(1, n + 1):
        seat = (turn + step) % n
        if not state.players[seat].passed:
            if seat != turn:
                tx.emit(TURN_MOVED(seat))
            return
    tx.emit(PHASE_BEGAN(Phase.EVENT))


def validate_place_technology(state: State, c: PlaceTechnology) -> Why:
    p = state.players[c.seat]
    if p.techs <= 0:
        return "you have no technology tile to place"
    return tech_spot(state, p, c.place, c.space)


def apply_place_technology(tx: Tx, c: PlaceTechnology) -> None:
    p = tx.state.players[c.seat]
    tx.emit(TechnologyPlaced(c.seat, c.place, c.space, uses_farmer_tech(p, c.place, c.space)))
    if not has_tech_spot(tx.state, c.seat):
        close_choice(tx)


def apply_keep_technology(tx: Tx, c: KeepTechnology) -> None:
    close_choice(tx)


def candidates_pass(state: State, seat: int) -> tuple[Pass]:
    return _pass(seat)


@cache
def _pass(seat: int) -> tuple[Pass]:
    return (Pass(seat),)  # built once: commands are immutable values


def candidates_place_technology(state: State, seat: int) -> Iterator[PlaceTechnology]:
    return (PlaceTechnology(seat, place, i) for place, i in action_spaces(state.players[seat]))


def candidates_keep_technology(state: State, seat: int) -> Iterator[KeepTechnology]:
    return iter((KeepTechnology(seat),))


