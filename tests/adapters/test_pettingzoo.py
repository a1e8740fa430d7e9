"""The PettingZoo adapter, judged by PettingZoo's own api_test and seed_test (docs/research.md)."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")  # a guard only: `make install-test` installs the research extra

from pettingzoo.test import api_test, seed_test  # noqa: E402

from adapters._game import Match  # noqa: E402
from adapters.encoding import encode  # noqa: E402
from adapters.pettingzoo import env  # noqa: E402

# (game, players, options): 2 seats and the most each game seats (Orléans: 4 classic, 5 in 2023).
CASES = [
    ("orleans", 2, {}), ("orleans", 4, {}), ("orleans", 5, {"edition": "2023"}),
    ("artificium", 2, {}), ("artificium", 6, {}),
    ("cathedral", 2, {}), ("cathedral", 4, {}),
]
IDS = [f"{game}-{players}" for game, players, _ in CASES]


@pytest.mark.parametrize(("game", "players", "options"), CASES, ids=IDS)
def test_api_test(game: str, players: int, options: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        # api_test warns that a dict observation "is not a NumPy array": the action-mask dict is
        # the layout PettingZoo's own board games use.
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(game, players, seed=3, **options), num_cycles=1000)


@pytest.mark.parametrize(("game", "players", "options"), CASES, ids=IDS)
def test_seed_test(game: str, players: int, options: dict[str, Any]) -> None:
    seed_test(lambda: env(game, players, **options), num_cycles=500)


def _play_out(e: Any, pick: int = 0) -> dict[str, float]:
    """Play to the end with each agent taking its ``pick``-th legal action (or the last one)."""
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        legal = np.flatnonzero(observation["action_mask"])
        e.step(None if terminated or truncated else int(legal[min(pick, len(legal) - 1)]))
    return total


@pytest.mark.parametrize("game", ["orleans", "artificium"])
def test_competitive_games_pay_zero_sum_by_rank(game: str) -> None:
    e = env(game, 3, seed=11)
    e.reset()
    total = _play_out(e)
    assert sum(total.values()) == pytest.approx(0.0)
    assert max(total.values()) > 0 > min(total.values()) or set(total.values()) == {0.0}
    assert e.agents == []


def test_the_cathedral_pays_every_seat_the_same() -> None:
    e = env("cathedral", 3, seed=5)
    e.reset()
    total = _play_out(e)
    assert len(set(total.values())) == 1 and next(iter(total.values())) in (0.0, 1.0)


def test_action_i_is_the_ith_legal_move_and_a_masked_one_is_refused() -> None:
    e = env("artificium", 2, seed=1)
    e.reset()
    agent = e.agent_selection
    moves = e.unwrapped.legal_moves_json(agent)
    observation = e.observe(agent)
    assert observation["action_mask"].sum() == len(moves) > 1
    assert e.unwrapped.move(agent, len(moves) - 1) == moves[-1]
    with pytest.raises(ValueError, match="masked out"):
        e.step(len(moves))
    seat = e.possible_agents.index(agent)
    expected = Match.start("artificium", 2, b"1:0", game_id="pettingzoo-artificium").play(seat, len(moves) - 1)
    e.step(len(moves) - 1)
    assert e.unwrapped.match.state == expected.state


def test_the_observation_is_the_seats_view_hashed() -> None:
    e = env("artificium", 4, seed=2)
    e.reset()
    for agent in e.possible_agents:
        view = e.unwrapped.view(agent)
        assert "hand" in view["seats"][e.possible_agents.index(agent)]
        assert all("hand" not in s for i, s in enumerate(view["seats"]) if i != e.possible_agents.index(agent))
        assert np.array_equal(e.observe(agent)["observation"], encode(view, e.unwrapped.spec_.observation_size))


def test_reset_with_a_seed_deals_the_same_game_and_the_next_reset_another() -> None:
    e = env("artificium", 3)
    e.reset(seed=9)
    first = e.unwrapped.view("player_0")
    e.reset()
    second = e.unwrapped.view("player_0")
    e.reset(seed=9)
    assert e.unwrapped.view("player_0") == first != second


def test_a_bad_player_count_is_refused() -> None:
    with pytest.raises(ValueError, match="seats 2-4"):
        env("cathedral", 5)
