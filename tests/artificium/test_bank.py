"""Rules 2: the bank is the 100 tokens of the box (A-rules l.22-28, l.153-154) and pays only what it
holds (A§5.1). Scenarios for each way tokens leave the bank, and playouts of every player count
with greedy, search and random seats in which the bank never shows a negative count.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from domain.artificium import LEGACY_RULES, RULES
from domain.artificium import data as D
from domain.artificium.data import Card, Resource
from domain.artificium.model import (
    BonusCollected,
    BuyResource,
    CoinsTaken,
    Produced,
    ResolveCard,
    SellResource,
)
from domain.bots import bot_rng, get_bot
from domain.bots.search import Budget, choose_with
from domain.bots.search_artificium import GAME
from domain.core import SYSTEM
from domain.games import fold
from domain.rng import Rng
from domain.selfplay import play as self_play
from tests.artificium.helpers import fresh, have, of_type, play, rejected, resolving, resources, under_rules
from tests.artificium.invariants import check

R = Resource


def test_the_box_holds_one_hundred_tokens_and_the_rest_is_the_bank() -> None:
    """A-rules l.22 (100 tokens), l.152-154 (5 coins each, the unused tokens form the bank)."""
    assert D.TOKEN_POOL == 100 and D.TABLES[D.RULES_VERSION].bank_is_limited
    assert fresh(6).bank == 100 - 6 * 5 == 70 and fresh(6).config.rules_version == D.RULES_VERSION


def test_a_dry_bank_pays_what_it_holds_for_a_production() -> None:
    """A§5.1: a Sawmill (A-rules l.66-69) with one token left in the bank gives one Wood, not two;
    the VP are scored in full (the flag, A-rules l.217-218), and a bonus space reached with the bank
    empty pays nothing (A-rules l.219-221: "take one token from the supply")."""
    space = min(D.BONUS_SPACES)
    state = replace(resolving(3, 0, Card.SAWMILL, vp=space - 1, farthest=space - 1), bank=1)
    state, events = play(state, ResolveCard(0))
    assert of_type(events, Produced)[0].made == (R.WOOD,) and not of_type(events, BonusCollected)
    assert have(state, 0, R.WOOD) == 1 and state.bank == 0 and state.players[0].vp == space


def test_a_bonus_space_pays_while_one_token_is_left() -> None:
    """A-rules l.219-221: the bonus is one token from the supply, paid while the supply has one."""
    space = min(D.BONUS_SPACES)
    state = replace(resolving(3, 0, Card.SAWMILL, vp=space - 1, farthest=space - 1), bank=3)
    state, events = play(state, ResolveCard(0))
    assert of_type(events, BonusCollected) == [BonusCollected(0, space, D.BONUS_SPACES[space])]
    assert state.bank == 0


def test_a_converter_needs_nothing_from_the_bank() -> None:
    """A-rules l.76-80: a converter trades one token for another, so an empty bank still serves it."""
    state = replace(resolving(3, 0, Card.CHARCOAL_BURNERS_HOUSE, resources=resources(wood=1)), bank=0)
    state, events = play(state, ResolveCard(0))
    assert of_type(events, Produced)[0].made == (R.COAL,) and have(state, 0, R.COAL) == 1 and state.bank == 0


def test_a_fair_pays_what_the_bank_holds() -> None:
    """A-rules l.56-59 pays 2 coins per card played (here 3 cards: 6); a bank of 4 pays 4 (A§5.1)."""
    state = replace(resolving(3, 0, Card.FAIR, played=(Card.SAWMILL, Card.FARM, Card.FAIR), plays=3), bank=4)
    state, events = play(state, ResolveCard(0))
    assert of_type(events, CoinsTaken) == [CoinsTaken(0, 4)] and state.bank == 0


def test_selling_needs_the_change_in_the_bank_and_buying_never_does() -> None:
    """A-rules l.211-214 (trade only with the bank): a sale takes its price out of the bank less the
    token sold, so an empty bank refuses it; a purchase pays tokens in, so it works from an empty bank."""
    empty = replace(resolving(3, 0, Card.MILL_BAKERY, resources=resources(sword=1)), bank=0)
    why = rejected(empty, SellResource(0, R.SWORD))
    assert "bank" in str(why)
    enough = replace(empty, bank=D.SELL_PRICES[R.SWORD] - 1)
    sold, _ = play(enough, SellResource(0, R.SWORD))
    assert sold.bank == 0 and sold.players[0].coins == 5 + D.SELL_PRICES[R.SWORD]
    bought, _ = play(empty, BuyResource(0, R.WHEAT))
    assert bought.bank == D.BUY_PRICES[R.WHEAT] - 1 and have(bought, 0, R.WHEAT) == 1


def test_a_rules_one_game_keeps_its_unlimited_bank() -> None:
    """A game recorded under rules 1 plays by rules 1's tables: the bank may go below zero."""
    state = under_rules(replace(resolving(3, 0, Card.SAWMILL), bank=1), 1)
    state, events = play(state, ResolveCard(0))
    assert of_type(events, Produced)[0].made == (R.WOOD, R.WOOD) and state.bank == -1
    assert LEGACY_RULES.config_from_json({"players": 3}).rules_version == 1
    assert RULES.for_engine is not None and RULES.for_engine("artificium-1") is LEGACY_RULES


def test_no_playout_of_two_to_six_seats_shows_a_negative_bank() -> None:
    """The invariant of A§5.1 after every event of greedy, search and random games of every size;
    the six-player games are the ones that run the bank low (A§5.4)."""
    lowest = {}
    for players in D.PLAYERS:
        config = RULES.config_from_json({"players": players})
        for bots in (["greedy"], ["random"]) + ((["greedy", "random"],) if players == 6 else ()):
            game = self_play(RULES, config, f"bank-{players}".encode(), f"bank-{players}-{bots}", bots)
            state = None
            for _, events in game.batches:
                for event in events:
                    state = RULES.evolve(state, event)
                    check(state)
                    lowest[players] = min(lowest.get(players, D.TOKEN_POOL), state.bank)
    assert min(lowest.values()) >= 0
    assert lowest[6] < lowest[2], "more seats take more tokens out of the box"


def test_a_search_seat_keeps_the_bank_above_zero() -> None:
    """The search bot plays by the same rules: a six-player game with a search seat (a tiny
    budget, as tests/domain/test_search_bot_artificium.py uses) beside greedy and random seats."""
    search = choose_with(GAME, Budget(iterations=3))
    greedy, rand = get_bot("greedy", "artificium"), get_bot("random", "artificium")
    policies = [search, greedy, rand, greedy, rand, greedy]
    rng = Rng(b"bank-search", "bank-search-6", 0)
    state = fold(RULES, RULES.setup(RULES.config_from_json({"players": 6}), rng))
    while not RULES.is_finished(state):
        actor = sorted(RULES.to_act(state), key=str)[0]
        moves = RULES.legal_moves(state, actor)
        move = moves[0] if actor == SYSTEM else policies[actor](RULES, state, actor, moves,
                                                               bot_rng(b"bank-search", "g", actor, state.draws))
        events, state = RULES.step(state, move, Rng(b"bank-search", "bank-search-6", state.draws))
        check(state)
    assert state.bank >= 0


def test_the_tables_of_each_version_are_frozen_data() -> None:
    assert isinstance(D.TABLES, MappingProxyType) and set(D.TABLES) == {1, 2}
    assert not D.TABLES[1].bank_is_limited and D.TABLES[1].final_sale_moves_tokens
