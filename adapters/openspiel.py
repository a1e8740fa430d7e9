"""OpenSpiel games for the hourglass games (docs/research.md, "OpenSpiel").

    from adapters.openspiel import register
    register()
    game = pyspiel.load_game("python_hourglass_orleans(players=4,seed=7)")

``register()`` adds ``python_hourglass_orleans``, ``python_hourglass_artificium`` and
``python_hourglass_cathedral``, each with the parameters ``players``, ``seed`` (an integer:
the game's seed is its decimal digits, so the same parameters play the same game) and ``edition`` (empty: the game's
default edition). OpenSpiel's game strings read ``edition=2023`` as a number, which the string
parameter refuses, so an edition named by digits is written with an ``e`` before them:
``python_hourglass_orleans(players=5,edition=e2023)``; a game's string always uses that form,
so serialized games load back.

How the games are modelled:

- **Sequential, imperfect information.** One seat acts at a time; where the rules let several
  seats act at once (sealed plays, planning placements) the lowest seat goes first, and the others
  see only that it has chosen. Action ``i`` is the seat's ``i``-th legal move in the rules'
  canonical order; ``num_distinct_actions`` is the game's bound on legal moves.
- **Chance is deterministic from the seed.** The rules draw every random outcome (shuffles,
  bag draws, tiles) from an HMAC stream keyed by the game's seed inside their own ``decide``;
  they do not expose a draw's outcomes and probabilities, so there are no explicit chance nodes.
  The seed is a game parameter that no observation or information state contains: to a seat,
  the draws are as unknown as chance. The system's steps are taken inside ``apply_action``.
- **Observations** are the seat's view (the rules' ``view``, as canonical JSON; the tensor is
  the same view hashed by ``adapters.encoding``). The **information state** adds a digest of
  the event log as the seat sees it (the rules' ``event_view``), so two histories the seat can
  tell apart get different strings (perfect recall) without keeping the log.
- **Returns**: zero-sum by rank for Orléans and Artificium (+1 per seat ranked below, -1 per
  seat above, divided by players - 1); the Cathedral is identical-payoff: 1 for every seat after
  a win, 0 after a loss.

Search bots see the state they are given: OpenSpiel's MCTS clones the true state, so it plays
with the hidden cards and future draws known (a clairvoyant search, see docs/research.md).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from adapters._game import SPECS, Match, Spec, canonical_json
from adapters.encoding import encode

_DEFAULTS: dict[str, Any] = {"players": 2, "seed": 0, "edition": ""}


def edition_parameter(edition: str) -> str:
    """An edition as OpenSpiel's parameter holds it: digits get an ``e`` before them."""
    return f"e{edition}" if edition.isdigit() else edition


def edition_name(parameter: str) -> str:
    """The edition the rules know (``e2023`` -> ``2023``)."""
    return parameter[1:] if parameter[:1] == "e" and parameter[1:].isdigit() else parameter


def short_name(game: str) -> str:
    return f"python_hourglass_{game}"


def _game_type(spec: Spec) -> Any:
    return pyspiel.GameType(
        short_name=short_name(spec.name),
        long_name=f"Python hourglass {spec.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.IDENTICAL if spec.cooperative else pyspiel.GameType.Utility.ZERO_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.players.stop - 1,
        min_num_players=spec.players.start,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULTS,
    )


def _game_info(spec: Spec, players: int) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=spec.max_actions,
        max_chance_outcomes=0,
        num_players=players,
        min_utility=0.0 if spec.cooperative else -1.0,
        max_utility=1.0,
        utility_sum=None if spec.cooperative else 0.0,
        max_game_length=spec.max_decisions,
    )


class HourglassGame(pyspiel.Game):  # type: ignore[misc]
    """One hourglass game with fixed parameters; subclassed once per game by ``register``."""

    spec: Spec

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        self.players = int(params["players"])
        if self.players not in self.spec.players:
            raise ValueError(f"{self.spec.name} seats {self.spec.players.start}-{self.spec.players.stop - 1}"
                             f" players, not {self.players}")
        params["edition"] = edition_parameter(str(params["edition"]))
        options = {"edition": edition_name(params["edition"])} if params["edition"] else {}
        super().__init__(_game_type(self.spec), _game_info(self.spec, self.players), params)
        self._initial = Match.start(self.spec.name, self.players, str(int(params["seed"])).encode(), options,
                                    game_id=f"openspiel-{self.spec.name}")

    def new_initial_state(self) -> HourglassState:
        return HourglassState(self, self._initial)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return Observer(self.spec.observation_size, perfect_recall)


class HourglassState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: HourglassGame, match: Match) -> None:
        super().__init__(game)
        self.match = match

    def current_player(self) -> int:
        seat = self.match.current()
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.match.current():
            return []
        return list(range(len(self.match.moves(player))))

    def _apply_action(self, action: int) -> None:
        seat = self.match.current()
        assert seat is not None, "no action after the end"
        self.match = self.match.play(seat, int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == self.match.current() and 0 <= action < len(self.match.moves(player)):
            return canonical_json(self.match.move_json(player, action))
        return f"seat {player}: legal move #{action}"  # an action of an earlier state: only its index is known here

    def is_terminal(self) -> bool:
        return self.match.finished

    def returns(self) -> list[float]:
        return self.match.returns()

    def __str__(self) -> str:
        return canonical_json({"decisions": self.match.decisions, **self.match.summary()})


class Observer:
    """OpenSpiel's PyObserver: the seat's view as a string and as a hashed vector; with perfect
    recall, the string also carries the digest of the event log as the seat saw it."""

    def __init__(self, size: int, perfect_recall: bool) -> None:
        self.size = size
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state: HourglassState, player: int) -> None:
        self.tensor[:] = encode(state.match.view(player), self.size)

    def string_from(self, state: HourglassState, player: int) -> str:
        view = canonical_json(state.match.view(player))
        return f"{view}\nlog:{state.match.seen(player)}" if self.perfect_recall else view


def register() -> None:
    """Register the three games with pyspiel (once; calling again does nothing)."""
    known = set(pyspiel.registered_names())
    for spec in SPECS.values():
        if short_name(spec.name) in known:
            continue
        game_class = type(f"Hourglass{spec.name.title()}Game", (HourglassGame,), {"spec": spec})
        pyspiel.register_game(_game_type(spec), game_class)
