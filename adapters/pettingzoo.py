"""PettingZoo AEC environments for the hourglass games (docs/research.md, "PettingZoo").

    from adapters.pettingzoo import env
    e = env("artificium", players=4, seed=7)
    e.reset()
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(observation["action_mask"])
        e.step(action)

Agents are ``player_0`` .. ``player_{n-1}``, one per seat. The encodings:

- **Observation**: a dict with ``observation``, the seat's view (the rules' ``view``, hidden
  information already redacted) hashed into a float32 vector (``adapters.encoding``), and
  ``action_mask``, an int8 vector with a 1 at every legal action.
- **Action**: ``Discrete(max_actions)``; action ``i`` is the seat's ``i``-th legal move in the
  rules' canonical order. ``env.unwrapped.move(agent, i)`` gives that move as the JSON a seat
  posts, ``legal_moves_json(agent)`` all of them.
- **Reward**: zero on every step but the last; at the end, ``Match.returns`` (zero-sum by
  rank for Orléans and Artificium, 1 for every seat after a cooperative win in the Cathedral).
- **Simultaneous steps** (sealed plays and placements) are taken one seat at a time, lowest seat
  first; a seat's observation never shows another seat's sealed choice, only that it was made.
- The system's steps happen inside the environment and are never an agent's turn.

``reset(seed=s)`` sets the game's seed to ``s`` (the same seed deals the same game); a later
``reset()`` without a seed plays the next game of the same series, and an environment built
without a seed draws its series from the operating system. ``options`` at ``reset`` are
ignored: the game's options (``edition`` ...) are given to ``env``.
"""
from __future__ import annotations

import copy
import secrets
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv

from adapters._game import Match, canonical_json, spec
from adapters.encoding import encode

ObsDict = dict[str, npt.NDArray[Any]]


def env(game: str, players: int, seed: int | None = None, render_mode: str | None = None,
        **options: Any) -> HourglassEnv:
    """An AEC environment for ``game`` with ``players`` seats; ``options`` go to the game's config
    (e.g. ``edition="2023"`` for Orléans)."""
    return HourglassEnv(game, players, seed=seed, render_mode=render_mode, **options)


class HourglassEnv(AECEnv):  # type: ignore[misc]
    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, game: str, players: int, seed: int | None = None, render_mode: str | None = None,
                 **options: Any) -> None:
        super().__init__()
        self.spec_ = spec(game)
        if players not in self.spec_.players:
            raise ValueError(f"{game} seats {self.spec_.players.start}-{self.spec_.players.stop - 1} players, not {players}")
        self.game, self.players, self.options = game, players, options
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"hourglass_{game}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        n, size = self.spec_.max_actions, self.spec_.observation_size
        self._action_space = gymnasium.spaces.Discrete(n)
        self._observation_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (n,), np.int8),
        })
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self._series = seed if seed is not None else secrets.randbits(63)
        self._episode = 0
        Match.start(game, players, b"check", options)  # refuse a bad config now, not at the first reset
        self.match: Match | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- the game ----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._series, self._episode = seed, 0
        game_seed = f"{self._series}:{self._episode}".encode()
        self._episode += 1
        self.match = Match.start(self.game, self.players, game_seed, self.options, game_id=f"pettingzoo-{self.game}")
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for a finished agent")
        match = self._match()
        seat = self._seat[agent]
        if not 0 <= int(action) < len(match.moves(seat)):
            raise ValueError(f"action {action} is masked out for {agent}: it has {len(match.moves(seat))} legal moves")
        self._cumulative_rewards[agent] = 0.0
        self.match = match = match.play(seat, int(action))
        if match.finished:
            payoff = match.returns()
            self.rewards = {a: payoff[self._seat[a]] for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> ObsDict:
        match, seat = self._match(), self._seat[agent]
        mask = np.zeros(self.spec_.max_actions, dtype=np.int8)
        mask[:len(match.moves(seat))] = 1
        return {"observation": encode(match.view(seat), self.spec_.observation_size), "action_mask": mask}

    # --- helpers for people reading the actions --------------------------------------------------------

    def move(self, agent: str, action: int) -> dict[str, Any]:
        """Action ``action`` of ``agent`` now, as the move JSON a seat posts to the service."""
        return self._match().move_json(self._seat[agent], action)

    def legal_moves_json(self, agent: str) -> list[dict[str, Any]]:
        seat = self._seat[agent]
        return [self._match().move_json(seat, i) for i in range(len(self._match().moves(seat)))]

    def view(self, agent: str) -> dict[str, Any]:
        """The seat's view as the service sends it (the JSON the observation vector hashes); a copy."""
        return copy.deepcopy(self._match().view(self._seat[agent]))

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: build the env with render_mode='ansi' or 'human'")
            return None
        text = canonical_json(self._match().summary())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.match = None

    def _match(self) -> Match:
        if self.match is None:
            raise RuntimeError("call reset() first")
        return self.match

    def _select(self) -> None:
        seat = self._match().current()
        self.agent_selection = self.possible_agents[0 if seat is None else seat]
