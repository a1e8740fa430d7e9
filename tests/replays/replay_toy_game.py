"""A tiny game behind the full plugin contract (domain.core.GamePlugin), to show replays/ is game-agnostic.

"Bag race": set-up shuffles tiles 1..9 into a bag; on their turn a seat draws a random tile
(its value is added to their score) or passes; SYSTEM ends the game once every tile is drawn
or every seat passed in a row. Events and commands are plain JSON-able dicts.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from domain.core import SYSTEM, GamePlugin, GameRules, Rejected, RejectKind
from domain.rng import Rng


@dataclass(frozen=True)
class State:
    players: int
    bag: tuple[int, ...]
    scores: tuple[int, ...]
    turn: int
    passes: int
    draws: int
    over: bool = False


class ToyRules:
    name = "bagrace"
    engine_version = "bagrace-1"
    command_types: tuple[type, ...] = ()  # commands and events are plain dicts
    event_types: tuple[type, ...] = ()

    def config_from_json(self, data: dict[str, Any]) -> dict[str, Any]:
        if not 2 <= int(data.get("players", 0)) <= 4:
            raise Rejected(RejectKind.INVALID_CONFIG, "players must be 2..4")
        return {"players": int(data["players"])}

    def config_to_json(self, config: dict[str, Any]) -> dict[str, Any]:
        return dict(config)

    def setup(self, config: dict[str, Any], rng: Rng) -> list[dict[str, Any]]:
        bag = rng.shuffled(range(1, 10))
        return [{"type": "Started", "players": config["players"], "bag": list(bag), "draws": rng.counter}]

    def to_act(self, state: State) -> frozenset[Any]:
        if state.over:
            return frozenset()
        if not state.bag or state.passes >= state.players:
            return frozenset({SYSTEM})
        return frozenset({state.turn})

    def legal_moves(self, state: State, actor: Any) -> list[dict[str, Any]]:
        if actor not in self.to_act(state):
            return []
        if actor == SYSTEM:
            return [{"type": "EndGame", "seat": SYSTEM}]
        return [{"type": "Draw", "seat": actor}, {"type": "Pass", "seat": actor}]

    def decide(self, state: State, command: dict[str, Any], rng: Rng) -> list[dict[str, Any]]:
        if command not in self.legal_moves(state, command.get("seat")):
            raise Rejected(RejectKind.ILLEGAL_MOVE, f"{command} is not legal now")
        if command["type"] == "EndGame":
            return [{"type": "Ended", "scores": list(state.scores)}]
        if command["type"] == "Pass":
            return [{"type": "Passed", "seat": command["seat"]}]
        index = rng.below(len(state.bag))
        return [{"type": "Drew", "seat": command["seat"], "tile": state.bag[index], "draws": rng.counter}]

    def evolve(self, state: State | None, event: dict[str, Any]) -> State:
        kind = event["type"]
        if kind == "Started":
            return State(event["players"], tuple(event["bag"]), (0,) * event["players"], 0, 0, event["draws"])
        assert state is not None
        if kind == "Ended":
            return replace(state, over=True)
        nxt = (state.turn + 1) % state.players
        if kind == "Passed":
            return replace(state, turn=nxt, passes=state.passes + 1)
        bag = list(state.bag)
        bag.remove(event["tile"])
        scores = list(state.scores)
        scores[event["seat"]] += event["tile"]
        return replace(state, bag=tuple(bag), scores=tuple(scores), turn=nxt, passes=0, draws=event["draws"])

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return {"scores": list(state.scores), "bag": len(state.bag), "turn": state.turn}

    def result(self, state: State) -> dict[str, Any] | None:
        if not state.over:
            return None
        best = max(state.scores)
        return {"scores": list(state.scores), "winners": [i for i, s in enumerate(state.scores) if s == best]}

    def summary(self, state: State) -> dict[str, Any]:
        return {"over": state.over}

    def draw_counter(self, state: State) -> int:
        return state.draws

    def default_move(self, state: State, actor: Any) -> dict[str, Any]:
        return self.legal_moves(state, actor)[-1]

    def command_from_json(self, data: dict[str, Any], seat: Any = None) -> dict[str, Any]:
        return dict(data) if seat is None else {**data, "seat": seat}

    def command_to_json(self, command: dict[str, Any]) -> dict[str, Any]:
        return dict(command)

    def move_to_json(self, command: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in command.items() if k != "seat"}

    def event_to_json(self, event: dict[str, Any]) -> dict[str, Any]:
        return dict(event)

    def event_from_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return dict(data)

    def event_view(self, event: dict[str, Any], seat: int | None) -> dict[str, Any]:
        return dict(event)

    def state_to_json(self, state: State) -> dict[str, Any]:
        return {"players": state.players, "bag": list(state.bag), "scores": list(state.scores),
                "turn": state.turn, "passes": state.passes, "draws": state.draws, "over": state.over}


_BAG_RACE = ToyRules()
TOY: GameRules = GamePlugin(
    name=_BAG_RACE.name, title="Bag race", engine_version=_BAG_RACE.engine_version, editions={"": range(2, 5)},
    config_from_json=_BAG_RACE.config_from_json, config_to_json=_BAG_RACE.config_to_json, setup=_BAG_RACE.setup,
    decide=_BAG_RACE.decide, evolve=_BAG_RACE.evolve, legal_moves=_BAG_RACE.legal_moves, to_act=_BAG_RACE.to_act,
    is_finished=lambda state: state.over, result=_BAG_RACE.result, draw_counter=_BAG_RACE.draw_counter,
    view=_BAG_RACE.view, event_view=_BAG_RACE.event_view, summary=_BAG_RACE.summary, state_type=State,
    state_to_json=_BAG_RACE.state_to_json, codec=_BAG_RACE, api_schema=None, default_move=_BAG_RACE.default_move,
    listed=False,
)


def toy_rules(name: str) -> GameRules:
    if name != "bagrace":
        raise Rejected(RejectKind.INVALID_CONFIG, f"unknown game {name!r}")
    return TOY
