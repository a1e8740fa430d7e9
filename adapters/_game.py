"""The one place where the research adapters touch the games (docs/research.md).

Everything the PettingZoo and OpenSpiel adapters know about a game goes through ``Match`` and
``SPECS`` here, and this module reads the games only through ``domain.games.get_game``,
``domain.games.fold``, ``domain.rng.Rng`` and the methods of the rules object (``setup``,
``step``/``decide``, ``legal_moves``, ``to_act``, ``view``, ``event_view``, ``result``,
``is_finished``, ``draw_counter``, ``config_from_json``, ``move_to_json``). When the game
contract changes shape, this is the module to adapt.

A ``Match`` is immutable: playing a move returns a new one, so a search can keep any number of
them (an OpenSpiel ``clone`` is a reference copy). The system's steps (reveals, shuffles, end of
round) are taken inside ``Match`` as soon as the system is to act, so a match is always either
finished or waiting for a seat.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.core import SYSTEM
from domain.games import fold, game_names, get_game
from domain.rng import Rng


@dataclass(frozen=True)
class Spec:
    """What the adapters declare about a game up front (spaces must be sized before play).

    ``max_actions`` bounds the number of legal moves a seat has in any state: the action space
    is ``range(max_actions)`` and action ``i`` is the seat's ``i``-th legal move. The largest
    counts seen in play are in the comment on ``SPECS``; a state with more moves than the bound
    raises ``TooManyMoves`` rather than hiding a move.
    ``max_decisions`` bounds a game's length in seat decisions (OpenSpiel's ``max_game_length``).
    """

    name: str
    players: range  # the plugin's own (GamePlugin.players): every edition's counts
    max_actions: int
    max_decisions: int
    observation_size: int
    cooperative: bool = False


SPECS: Mapping[str, Spec] = {
    # Largest legal-move counts and game lengths seen (15 random and 15 greedy games per player
    # count, 2026-11-27): Orléans 74 moves, 1,169 decisions (5 seats, 2023); Artificium 36 and 474
    # (6 seats); Cathedral 17 and 159. Orléans seats 2-5: 5 in the 2023 edition only (its config
    # refuses 5 in the classic one).
    # observation_size: the hashed view's length (adapters/encoding.py); distinct feature names met
    # in 3 random games at the most seats: Orléans 1,491, Artificium 1,166, Cathedral 366; at these
    # sizes they fill 8.8 %, 7.2 % and 3.8 % fewer slots than there are names (lost to collisions;
    # 25-29 % for the first two at 2,048).
    "orleans": Spec("orleans", get_game("orleans").players, max_actions=128, max_decisions=20_000, observation_size=8192),
    "artificium": Spec("artificium", get_game("artificium").players, max_actions=128, max_decisions=5_000, observation_size=8192),
    "cathedral": Spec("cathedral", get_game("cathedral").players, max_actions=64, max_decisions=5_000, observation_size=4096,
                      cooperative=True),
}


class TooManyMoves(RuntimeError):
    """A state offers a seat more legal moves than its game's ``Spec.max_actions``."""


def spec(game: str) -> Spec:
    if game not in SPECS:
        raise ValueError(f"no research adapter for game {game!r}; adapted: {', '.join(sorted(SPECS))}"
                         f" (registered: {', '.join(game_names())})")
    return SPECS[game]


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Match:
    """One game in progress: the rules, its seed and id, the folded state and the event log
    (``Log``, from which each seat's digest of what it has seen is made on demand)."""

    rules: Any
    spec: Spec
    seed: bytes
    game_id: str
    players: int
    state: Any
    log: Log
    decisions: int = 0
    _moves: dict[int, list[Any]] = field(default_factory=dict, compare=False, repr=False)
    _views: dict[int, dict[str, Any]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def start(cls, game: str, players: int, seed: bytes, options: Mapping[str, Any] | None = None,
              game_id: str | None = None) -> Match:
        rules = get_game(game)
        game_spec = spec(game)
        config = rules.config_from_json({**(options or {}), "players": players})
        gid = game_id or f"research-{game}"
        events = rules.setup(config, Rng(seed, gid, 0))
        match = cls(rules, game_spec, seed, gid, players, fold(rules, events), Log(rules, None, tuple(events)))
        return match._systems_done()

    def __deepcopy__(self, memo: dict[int, Any]) -> Match:
        return self  # immutable (its caches hold only what the state determines)

    # --- reading -----------------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        finished: bool = self.rules.is_finished(self.state)
        return finished

    def current(self) -> int | None:
        """The seat to decide now (the lowest one when several act at once), None when finished."""
        if self.finished:
            return None
        seats: list[int] = [a for a in self.rules.to_act(self.state) if a != SYSTEM]
        return min(seats)

    def moves(self, seat: int) -> list[Any]:
        """The seat's legal moves in the rules' canonical order (empty when it is not to act)."""
        if seat not in self._moves:
            found = [] if self.finished else list(self.rules.legal_moves(self.state, seat))
            if len(found) > self.spec.max_actions:
                raise TooManyMoves(f"{self.spec.name}: seat {seat} has {len(found)} legal moves, more than the"
                                   f" action space's {self.spec.max_actions} (adapters/_game.py SPECS)")
            self._moves[seat] = found
        return self._moves[seat]

    def move_json(self, seat: int, index: int) -> dict[str, Any]:
        out: dict[str, Any] = self.rules.move_to_json(self.moves(seat)[index])
        return out

    def view(self, seat: int) -> dict[str, Any]:
        """What the seat may see (the rules' ``view``: hidden information redacted)."""
        if seat not in self._views:
            self._views[seat] = self.rules.view(self.state, seat)
        return self._views[seat]

    def summary(self) -> dict[str, Any]:
        """A short public account of where the game stands (round, phase, who acts)."""
        out: dict[str, Any] = self.rules.summary(self.state)
        return out

    def returns(self) -> list[float]:
        """Each seat's payoff; all zeros until the end.

        Competitive games: a seat scores +1 for every seat ranked below it and -1 for every seat
        ranked above it, divided by ``players - 1`` (zero-sum, in [-1, 1]; ties count 0).
        Cooperative games: every seat gets 1 after a win and 0 after a loss.
        """
        result = self.rules.result(self.state) if self.finished else None
        if result is None:
            return [0.0] * self.players
        if self.spec.cooperative:
            won = 1.0 if result.get("outcome") == "won" else 0.0
            return [won] * self.players
        rank = {row["seat"]: row["rank"] for row in result["ranking"]}
        scale = self.players - 1
        return [sum((rank[o] > rank[s]) - (rank[o] < rank[s]) for o in range(self.players)) / scale
                for s in range(self.players)]

    # --- playing -----------------------------------------------------------------------------------

    def play(self, seat: int, index: int) -> Match:
        """The match after ``seat`` plays its ``index``-th legal move (and the system's steps after it)."""
        moves = self.moves(seat)
        if not 0 <= index < len(moves):
            raise ValueError(f"seat {seat} has {len(moves)} legal moves; {index} is not one of them")
        events, state = self._step(moves[index])
        played = Match(self.rules, self.spec, self.seed, self.game_id, self.players, state,
                       Log(self.rules, self.log, tuple(events)), self.decisions + 1)
        return played._systems_done()

    def _step(self, command: Any) -> tuple[list[Any], Any]:
        rng = Rng(self.seed, self.game_id, self.rules.draw_counter(self.state))
        step = getattr(self.rules, "step", None)  # decide + fold in one, where a game offers it
        if step is not None:
            stepped: tuple[list[Any], Any] = step(self.state, command, rng)
            return stepped
        events = self.rules.decide(self.state, command, rng)
        return events, fold(self.rules, events, self.state)

    def _systems_done(self) -> Match:
        match = self
        while not match.finished and SYSTEM in match.rules.to_act(match.state):
            events, state = match._step(match.rules.legal_moves(match.state, SYSTEM)[0])
            match = Match(match.rules, match.spec, match.seed, match.game_id, match.players, state,
                          Log(match.rules, match.log, tuple(events)), match.decisions)
        return match

    def seen(self, seat: int) -> str:
        """A digest of the event log as ``seat`` sees it (see ``Log``)."""
        return self.log.digest(seat)


class Log:
    """The event log as a chain of batches, newest last, with per-seat digests made on demand.

    The digest of a seat at a batch is SHA-256 of the previous batch's digest followed by the
    canonical JSON of the batch's events as the seat sees them (``event_view``). Play never
    computes it (a random rollout does not pay for it); an information state asks for it, and
    the digests along the chain are kept once made.
    """

    __slots__ = ("rules", "parent", "events", "_digests")

    def __init__(self, rules: Any, parent: Log | None, events: tuple[Any, ...]) -> None:
        self.rules, self.parent, self.events = rules, parent, events
        self._digests: dict[int, str] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as a flat list of batches: a chain thousands of batches long is too deep for
        pickle's recursion (OpenSpiel pickles Python states to serialize them)."""
        batches: list[tuple[Any, ...]] = []
        node: Log | None = self
        while node is not None:
            batches.append(node.events)
            node = node.parent
        return _log_from, (self.rules, batches[::-1])

    def digest(self, seat: int) -> str:
        pending: list[Log] = []
        node: Log | None = self
        while node is not None and seat not in node._digests:
            pending.append(node)
            node = node.parent
        digest = "" if node is None else node._digests[seat]
        for batch in reversed(pending):
            views = [batch.rules.event_view(e, seat) for e in batch.events]
            digest = batch._digests[seat] = hashlib.sha256((digest + canonical_json(views)).encode()).hexdigest()
        return digest


def _log_from(rules: Any, batches: list[tuple[Any, ...]]) -> Log | None:
    log = None
    for events in batches:
        log = Log(rules, log, events)
    return log
