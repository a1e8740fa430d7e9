"""The search bot (issue 12, "A stronger built-in bot"): legal, deterministic, never peeking, and
stronger than greedy in a small seeded match. The big win-rate figure is bench/search.py's."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from domain.bots import bot_rng, get_bot, greedy, random_bot
from domain.bots.search import Budget, Search, choose_with
from domain.bots.search_orleans import GAME, candidates, canonical, sample
from domain.core import SYSTEM
from domain.games import fold, step
from domain.orleans import RULES
from domain.orleans.model import FinishPlanning, Phase, PlaceFollower, State
from domain.rng import Rng

SEED = b"search-test"
SMALL = Budget(iterations=6)


def start(players: int = 4, edition: str = "classic", seed: bytes = SEED) -> State:
    config = RULES.config_from_json({"edition": edition, "players": players})
    state: State = fold(RULES, RULES.setup(config, Rng(seed, "g", 0)))
    return state


def play_until(state: State, done: Callable[[State], bool], policy: Any = greedy.choose,
               seats: frozenset[int] | None = None) -> State:
    """Greedy (or ``policy``) moves for every seat, or only ``seats``, until ``done``.

    Bots draw by decision number, as self-play does by event count: planning moves draw nothing,
    so a counter of rng draws would hand a random bot the same choice again and again (place,
    take back, place...)."""
    decisions = 0
    while not done(state):
        acting = RULES.to_act(state)
        if SYSTEM in acting:
            move = RULES.legal_moves(state, SYSTEM)[0]
        else:
            seat = min(a for a in acting if seats is None or a in seats)
            moves = RULES.legal_moves(state, seat)
            move = policy(RULES, state, seat, moves, bot_rng(SEED, "g", seat, decisions))
        state = step(RULES, state, move, Rng(SEED, "g", state.draws))[1]
        decisions += 1
    return state


def in_round(n: int, phase: Phase) -> Callable[[State], bool]:
    return lambda s: s.round == n and s.phase is phase and s.choice is None and not s.dues


def decide(state: State, seat: int, budget: Budget = SMALL, counter: int = 7) -> Any:
    moves = RULES.legal_moves(state, seat)
    return choose_with(GAME, budget)(RULES, state, seat, moves, bot_rng(SEED, "g", seat, counter))


# --- never peeking ----------------------------------------------------------------------------------


def planned_by_others(policy: Any) -> State:
    """Round 4, planning: seats 1-3 have sealed their plans (with ``policy``); seat 0 still plans."""
    state = play_until(start(), in_round(4, Phase.PLANNING))
    others = frozenset({1, 2, 3})
    return play_until(state, lambda s: all(s.players[i].planned for i in others), policy, seats=others)


def test_other_seats_sealed_plans_do_not_change_the_decision():
    """Facts D10: the seat sees that others planned, not where. Two positions whose other seats
    sealed different plans look the same to seat 0 and get the same move."""
    a, b = planned_by_others(greedy.choose), planned_by_others(random_bot.choose)
    assert a.players[1:] != b.players[1:]  # the sealed plans differ
    assert RULES.view(a, 0) == RULES.view(b, 0)  # ... where seat 0 cannot see them
    assert canonical(a, 0) == canonical(b, 0)
    assert decide(a, 0) == decide(b, 0)


def test_hourglass_order_and_draw_counter_do_not_change_the_decision():
    state = play_until(start(), in_round(6, Phase.ACTIONS))
    seat = state.turn
    assert seat is not None
    other = replace(state, hourglass=tuple(reversed(state.hourglass)), draws=state.draws + 1000)
    assert other.hourglass != state.hourglass
    assert RULES.view(other, seat) == RULES.view(state, seat)
    assert canonical(other, seat) == canonical(state, seat)
    assert decide(other, seat) == decide(state, seat)


def test_a_visible_difference_is_not_erased():
    """The canonical form keeps what the seat sees: it is not a constant."""
    state = play_until(start(), in_round(6, Phase.ACTIONS))
    players = state.players
    richer = replace(state, players=(players[0], replace(players[1], coins=players[1].coins + 5), *players[2:]))
    assert canonical(richer, 0) != canonical(state, 0)


def test_2023_tiles_stay_in_their_stacks():
    """Facts D7: the 2023 deck is stack A over B over C; only the order inside a stack is hidden."""
    state = play_until(start(5, "2023"), in_round(4, Phase.PLANNING))
    known = canonical(state, 0)
    for counter in range(5):
        drawn = sample(known, 0, Rng(SEED, "det", counter)).hourglass
        assert [t.level for t in drawn] == [t.level for t in state.hourglass]
        assert sorted(map(repr, drawn)) == sorted(map(repr, state.hourglass))


# --- determinism and legality -----------------------------------------------------------------------


def test_same_position_and_rng_give_the_same_move():
    state = play_until(start(), in_round(3, Phase.PLANNING))
    assert decide(state, 0) == decide(state, 0)
    assert decide(state, 0, counter=11) in RULES.legal_moves(state, 0)


def test_planning_candidates_finish_a_started_place_first():
    state = play_until(start(), in_round(2, Phase.PLANNING))
    moves = RULES.legal_moves(state, 0)
    options = candidates(RULES, state, 0, moves)
    assert options and all(m in moves for m in options)
    assert any(isinstance(m, FinishPlanning) for m in options)
    first = next(m for m in options if isinstance(m, PlaceFollower))
    placed = step(RULES, state, first, Rng(SEED, "g", state.draws))[1]
    follow = candidates(RULES, placed, 0, RULES.legal_moves(placed, 0))
    place = placed.players[0].pending[0].place
    unfinished = any(m.place == place for m in RULES.legal_moves(placed, 0) if isinstance(m, PlaceFollower))
    if unfinished:
        assert [m.place for m in follow] == [place]


def test_node_budget_caps_the_tree():
    state = play_until(start(), in_round(3, Phase.PLANNING))
    moves = RULES.legal_moves(state, 0)
    search = Search(RULES, GAME, 0, Budget(iterations=12, max_nodes=4), bot_rng(SEED, "g", 0, 1))
    assert search.run(state, moves) in moves
    assert search.nodes <= max(4, 1 + len(search.root.children))


def test_registered_for_orleans():
    assert get_bot("search", "orleans") is get_bot("search")


# --- a small seeded match ------------------------------------------------------------------------------


def play_match(seed: bytes, policies: list[Any]) -> dict[str, Any]:
    """One whole game; every bot move must be one of the legal moves."""
    state, decisions = start(len(policies), seed=seed), 0
    while RULES.result(state) is None:
        acting = RULES.to_act(state)
        if SYSTEM in acting:
            move = RULES.legal_moves(state, SYSTEM)[0]
        else:
            seat = min(acting)
            moves = RULES.legal_moves(state, seat)
            move = policies[seat](RULES, state, seat, moves, bot_rng(seed, "match", seat, decisions))
            assert move in moves
        state = step(RULES, state, move, Rng(seed, "match", state.draws))[1]
        decisions += 1
    result = RULES.result(state)
    assert result is not None
    return result


def test_search_beats_greedy_in_a_seeded_two_player_match():
    """Three seeded 2-player games, the search bot (8 iterations a decision) in seats 0, 1, 0."""
    wins, lead = 0, 0
    for game, seat in enumerate((0, 1, 0)):
        policies: list[Any] = [greedy.choose, greedy.choose]
        policies[seat] = choose_with(GAME, Budget(iterations=8))
        result = play_match(b"match-%d" % game, policies)
        wins += seat in result["winners"]
        lead += result["scores"][seat] - result["scores"][1 - seat]
    assert wins >= 2 and lead > 0, (wins, lead)
