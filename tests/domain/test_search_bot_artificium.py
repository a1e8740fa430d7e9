"""The search bot on Artificium: the engine is generic, only the hidden-card dealing is the game's.

It never peeks: other hands, other seats' sealed cards and the deck order are re-dealt from the
cards the seat has not seen, so positions that differ only there get the same move."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from domain.artificium import RULES
from domain.artificium.model import Phase, State
from domain.bots import artificium_greedy, bot_rng, get_bot
from domain.bots.search import Budget, choose_with
from domain.bots.search_artificium import GAME, canonical, sample
from domain.core import SYSTEM
from domain.games import step
from domain.rng import Rng
from tests.artificium.helpers import fresh
from tests.artificium.test_hidden import disguise

SEED = b"search-artificium"
TINY = Budget(iterations=3)


def play_until(done: Callable[[State], bool]) -> State:
    state = fresh(4)
    while not done(state):
        acting = RULES.to_act(state)
        if SYSTEM in acting:
            move = RULES.legal_moves(state, SYSTEM)[0]
        else:
            seat = min(acting)
            moves = RULES.legal_moves(state, seat)
            move = artificium_greedy.choose(RULES, state, seat, moves, bot_rng(SEED, "g", seat, state.draws))
        state = step(RULES, state, move, Rng(SEED, "g", state.draws))[1]
    return state


def seat_to_act(phase: Phase) -> Callable[[State], bool]:
    return lambda s: s.turn == 2 and s.phase is phase and any(isinstance(a, int) for a in RULES.to_act(s))


def decide(state: State, seat: int) -> Any:
    return choose_with(GAME, TINY)(RULES, state, seat, RULES.legal_moves(state, seat), bot_rng(SEED, "g", seat, 3))


def test_hidden_cards_do_not_change_the_decision():
    for phase in (Phase.MARKET, Phase.COMMIT):
        state = play_until(seat_to_act(phase))
        seat = min(a for a in RULES.to_act(state) if isinstance(a, int))
        other = disguise(state, seat)
        assert other != state and RULES.view(other, seat) == RULES.view(state, seat)
        assert canonical(other, seat) == canonical(state, seat)
        assert decide(other, seat) == decide(state, seat)


def test_a_sample_deals_every_unseen_card_once():
    state = play_until(seat_to_act(Phase.COMMIT))
    seat = min(a for a in RULES.to_act(state) if isinstance(a, int))
    dealt = sample(canonical(state, seat), seat, Rng(SEED, "det", 0))
    assert [len(p.hand) for p in dealt.players] == [len(p.hand) for p in state.players]
    assert dealt.players[seat] == state.players[seat]

    def cards(s: State) -> Counter[Any]:
        held = Counter(s.deck) + Counter(s.discard) + Counter(s.market)
        for p in s.players:
            held += Counter(p.hand) + Counter(p.played) + Counter(c for c in (p.committed, p.revealed) if c)
        return held

    assert cards(dealt) == cards(state)


def test_registered_for_artificium_and_plays_legal_moves():
    state = play_until(seat_to_act(Phase.MARKET))
    seat = min(a for a in RULES.to_act(state) if isinstance(a, int))
    assert get_bot("search", "artificium") is not get_bot("search", "orleans")
    assert decide(state, seat) in RULES.legal_moves(state, seat)


def test_only_greedy_favourites_are_searched_and_its_choice_is_among_them():
    """The root options: at most TOP moves by greedy's estimate, all legal, greedy's own choice
    first (it is tried first and wins ties)."""
    from domain.bots.search import Search
    from domain.bots.search_artificium import TOP, candidates

    state = play_until(seat_to_act(Phase.MARKET))
    seat = min(a for a in RULES.to_act(state) if isinstance(a, int))
    moves = RULES.legal_moves(state, seat)
    assert len(moves) > TOP  # a market step offers many exchanges
    known = canonical(state, seat)
    picked = candidates(RULES, known, seat, moves)
    assert len(picked) == TOP and set(picked) <= set(moves)
    search = Search(RULES, GAME, seat, TINY, bot_rng(SEED, "g", seat, 3))
    options = search.options(known, moves)
    greedy_choice = artificium_greedy.choose(RULES, known, seat, moves, search.stream("prior"))
    assert options[0] == greedy_choice and set(options[1:]) <= set(picked)


def test_the_registered_budget_is_deterministic_and_legal():
    from domain.bots.search_artificium import ITERATIONS

    state = play_until(seat_to_act(Phase.COMMIT))
    seat = min(a for a in RULES.to_act(state) if isinstance(a, int))
    moves = RULES.legal_moves(state, seat)
    bot = get_bot("search", "artificium")
    first = bot(RULES, state, seat, moves, bot_rng(SEED, "g", seat, 7))
    assert first in moves
    assert bot(RULES, state, seat, moves, bot_rng(SEED, "g", seat, 7)) == first
    assert choose_with(GAME, Budget(iterations=ITERATIONS))(RULES, state, seat, moves, bot_rng(SEED, "g", seat, 7)) == first


def test_greedy_applies_moves_as_the_rules_do():
    """The greedy bot's lookahead skips ``decide``'s guards for listed moves: the position it
    reaches is the one the rules reach, for every legal move of several steps."""
    for phase in (Phase.MARKET, Phase.COMMIT, Phase.RESOLVE, Phase.TURN_END):
        state = play_until(seat_to_act(phase))
        seat = min(a for a in RULES.to_act(state) if isinstance(a, int))
        for move in RULES.legal_moves(state, seat):
            expected = step(RULES, state, move, Rng(SEED, "look", 5))[1]
            assert artificium_greedy.simulate(RULES, state, move, Rng(SEED, "look", 5)) == expected


def test_greedy_is_its_belief_then_its_choice_on_it():
    """``choose`` is ``choose_on`` the belief: the search's model is greedy minus the re-deal."""
    state = play_until(seat_to_act(Phase.MARKET))
    seat = min(a for a in RULES.to_act(state) if isinstance(a, int))
    moves = RULES.legal_moves(state, seat)
    belief = artificium_greedy.believe(state, seat, bot_rng(SEED, "g", seat, 11))  # a tie-break moves the rng
    assert artificium_greedy.choose(RULES, state, seat, moves, bot_rng(SEED, "g", seat, 11)) == \
        artificium_greedy.choose_on(RULES, belief, seat, moves, bot_rng(SEED, "g", seat, 11))
