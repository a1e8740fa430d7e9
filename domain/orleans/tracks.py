"""The character tracks (F§2): recruiting a character moves its marker and pays the space's
reward (goods, coins, technology, a place tile, more draws, development points, citizens); the
Village recruits a Boatman, Craftsman or Trader; a Trader picks a place tile from the stacks."""
from __future__ import annotations

from collections.abc import Iterator

from domain.orleans import data as D
from domain.orleans.common import Tx, Why, advance_development, close_choice, gain_coins, use_place
from domain.orleans.data import Char, Effect
from domain.orleans.evolve import TRACK_INDEX
from domain.orleans.model import (
    CharacterRecruited,
    Choice,
    ChoiceKind,
    ChoiceOffered,
    ChoosePlaceTile,
    CitizenTaken,
    GoodTaken,
    PlaceTileTaken,
    State,
    TechnologyGained,
    UseVillage,
)
from domain.orleans.queries import activated_places, activated_why, can_recruit, open_choice

RECRUITS = {Effect.FARM_HOUSE: Char.FARMER, Effect.UNIVERSITY: Char.SCHOLAR, Effect.CASTLE: Char.KNIGHT,
            Effect.MONASTERY: Char.MONK}


def recruit(tx: Tx, seat: int, char: Char) -> None:
    tx.emit(CharacterRecruited(seat, char))
    if char is Char.MONK:
        return
    pos = tx.state.players[seat].tracks[TRACK_INDEX[char]]
    REWARDS[char](tx, seat, pos)


def _farmer_reward(tx: Tx, seat: int, pos: int) -> None:
    tx.emit(GoodTaken(seat, D.FARMER_TRACK_GOODS[pos - 1], ""))


def _boatman_reward(tx: Tx, seat: int, pos: int) -> None:
    if pos == D.BOATMEN_CITIZEN_SPACE and tx.state.boatmen_citizen is None:
        tx.emit(CitizenTaken(seat, "boatmen"))
    else:
        gain_coins(tx, seat, D.BOATMEN_TRACK_COINS[pos - 1], "boatmen")


def _craftsman_reward(tx: Tx, seat: int, pos: int) -> None:
    first = pos == 1 and D.FARMER_TECH[tx.state.config.edition] is D.FarmerTech.FIRST_CRAFTSMAN
    tx.emit(TechnologyGained(seat, farmer_only=first))


def _trader_reward(tx: Tx, seat: int, pos: int) -> None:
    tx.emit(ChoiceOffered(Choice(seat, ChoiceKind.PLACE_TILE, "village", stacks=D.TRADERS_TRACK_STACKS[pos - 1])))


def _knight_reward(tx: Tx, seat: int, pos: int) -> None:
    if pos == D.KNIGHTS_CITIZEN_SPACE and tx.state.knights_citizen is None:
        tx.emit(CitizenTaken(seat, "knights"))


def _scholar_reward(tx: Tx, seat: int, pos: int) -> None:
    advance_development(tx, seat, D.SCHOLARS_TRACK_POINTS[pos - 1])


REWARDS = {Char.FARMER: _farmer_reward, Char.BOATMAN: _boatman_reward, Char.CRAFTSMAN: _craftsman_reward,
           Char.TRADER: _trader_reward, Char.KNIGHT: _knight_reward, Char.SCHOLAR: _scholar_reward}


def validate_village(state: State, c: UseVillage) -> Why:
    why = activated_why(state.players[c.seat], "village")
    if why:
        return why
    if c.recruit not in (Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER):
        return "the Village recruits a boatman, a craftsman or a trader"
    return None if can_recruit(state, c.seat, c.recruit) else f"no {c.recruit.value} can be recruited now"


def apply_village(tx: Tx, c: UseVillage) -> None:
    use_place(tx, c.seat, "village")
    recruit(tx, c.seat, c.recruit)


def validate_choose_place_tile(state: State, c: ChoosePlaceTile) -> Why:
    if c.tile not in state.place_tiles:
        return f"place tile {c.tile!r} is not available"
    if D.PLACES[c.tile].stack not in open_choice(state).stacks:
        return f"{c.tile} is in stack {D.PLACES[c.tile].stack}; you may choose from stack(s) {open_choice(state).stacks}"
    return None


def apply_choose_place_tile(tx: Tx, c: ChoosePlaceTile) -> None:
    tx.emit(PlaceTileTaken(c.seat, c.tile))
    close_choice(tx)


def candidates_village(state: State, seat: int) -> Iterator[UseVillage]:
    if "village" in activated_places(state.players[seat]):
        yield from (UseVillage(seat, c) for c in (Char.BOATMAN, Char.CRAFTSMAN, Char.TRADER))


def candidates_choose_place_tile(state: State, seat: int) -> Iterator[ChoosePlaceTile]:
    return (ChoosePlaceTile(seat, t) for t in state.place_tiles)


