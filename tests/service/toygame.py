"""A tiny sealed-bid game implementing the ``domain.core.GameRules`` contract.

It exercises what the service must get right for any game without depending on Orléans:
simultaneous hidden plans (other seats see ``bid: null`` until the SYSTEM reveal), random
draws recorded in events, SYSTEM steps, a result. Registered as ``"toy"`` by conftest.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from domain.apischema import BOOL, INT, ApiSchema, array, enum, nullable, obj
from domain.core import SYSTEM, Rejected, RejectKind

BIDS = (1, 2, 3)


@dataclass(frozen=True)
class Config:
    edition: str
    players: int
    rounds: int = 3


@dataclass(frozen=True)
class State:
    players: int
    rounds: int
    round: int
    bids: tuple[int | None, ...]
    scores: tuple[int, ...]
    prize: int
    draws: int
    finished: bool


@dataclass(frozen=True)
class Bid:
    seat: int
    bid: int


@dataclass(frozen=True)
class Reveal:
    seat: str = SYSTEM


class ToyRules:
    name = "toy"
    engine_version = "toy-1"

    def config_from_json(self, data: dict[str, Any]) -> Config:
        if not isinstance(data, dict) or set(data) - {"edition", "players", "rounds"}:
            raise Rejected(RejectKind.INVALID_CONFIG, f"unknown option(s) in {sorted(data)}")
        if data.get("edition") != "classic":
            raise Rejected(RejectKind.INVALID_CONFIG, f"edition {data.get('edition')!r} is not classic")
        players, rounds = data.get("players"), data.get("rounds", 3)
        if not isinstance(players, int) or not 2 <= players <= 4:
            raise Rejected(RejectKind.INVALID_CONFIG, f"players {players!r} is not 2..4")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 50:
            raise Rejected(RejectKind.INVALID_CONFIG, f"rounds {rounds!r} is not 1..50")
        return Config("classic", players, rounds)

    def config_to_json(self, config: Config) -> dict[str, Any]:
        return {"edition": config.edition, "players": config.players, "rounds": config.rounds}

    def setup(self, config: Config, rng: Any) -> list[dict[str, Any]]:
        return [{"type": "GameStarted", "players": config.players, "rounds": config.rounds},
                {"type": "PrizeDrawn", "prize": 1 + rng.below(6), "draws": rng.counter}]

    def decide(self, state: State, command: Any, rng: Any) -> list[dict[str, Any]]:
        if state.finished:
            raise Rejected(RejectKind.GAME_OVER, "the game is over")
        if isinstance(command, Reveal):
            if None in state.bids:
                raise Rejected(RejectKind.WRONG_PHASE, "not every seat has bid")
            out = [{"type": "BidsRevealed", "bids": list(state.bids), "prize": state.prize}]
            if state.round + 1 >= state.rounds:
                return out + [{"type": "GameEnded"}]
            return out + [{"type": "PrizeDrawn", "prize": 1 + rng.below(6), "draws": rng.counter}]
        if command.seat not in self.to_act(state):
            raise Rejected(RejectKind.NOT_YOUR_TURN, f"seat {command.seat} is not to act")
        if command.bid not in BIDS:
            raise Rejected(RejectKind.ILLEGAL_MOVE, f"bid {command.bid} is not one of {BIDS}")
        return [{"type": "BidPlaced", "seat": command.seat, "bid": command.bid}]

    def evolve(self, state: State | None, event: dict[str, Any]) -> State:
        kind = event["type"]
        if kind == "GameStarted":
            n = event["players"]
            return State(n, event["rounds"], 0, (None,) * n, (0,) * n, 0, 0, False)
        assert state is not None
        if kind == "PrizeDrawn":
            return replace(state, prize=event["prize"], draws=event["draws"])
        if kind == "BidPlaced":
            bids = list(state.bids)
            bids[event["seat"]] = event["bid"]
            return replace(state, bids=tuple(bids))
        if kind == "BidsRevealed":
            bids = event["bids"]
            top = max(bids)
            scores = tuple(s + (event["prize"] * b if b == top and bids.count(top) == 1 else 0)
                           for s, b in zip(state.scores, bids))
            return replace(state, scores=scores, bids=(None,) * state.players, round=state.round + 1)
        return replace(state, finished=True)

    def to_act(self, state: State) -> frozenset:
        if state.finished:
            return frozenset()
        waiting = frozenset(i for i, b in enumerate(state.bids) if b is None)
        return waiting or frozenset({SYSTEM})

    def legal_moves(self, state: State, actor: Any) -> list[Any]:
        if actor not in self.to_act(state):
            return []
        return [Reveal()] if actor == SYSTEM else [Bid(actor, b) for b in BIDS]

    def default_move(self, state: State, actor: Any) -> Any:
        return self.legal_moves(state, actor)[0]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = {"game": "toy", "round": state.round, "rounds": state.rounds, "prize": state.prize,
               "scores": list(state.scores), "bid_placed": [b is not None for b in state.bids]}
        if seat is not None:
            out["my_bid"] = state.bids[seat]
        return out

    def result(self, state: State) -> dict[str, Any] | None:
        if not state.finished:
            return None
        best = max(state.scores)
        return {"scores": list(state.scores), "winners": [i for i, s in enumerate(state.scores) if s == best]}

    def summary(self, state: State) -> dict[str, Any]:
        return {"phase": "finished" if state.finished else ("bid" if None in state.bids else "reveal"),
                "round": state.round, "event": None, "finished": state.finished}

    def draw_counter(self, state: State) -> int:
        return state.draws

    def is_finished(self, state: State) -> bool:
        return state.finished

    def command_from_json(self, data: Any, seat: Any = None) -> Any:
        if not isinstance(data, dict):
            raise Rejected(RejectKind.MALFORMED, "a move is a JSON object")
        body = dict(data)
        if seat is not None:
            if "seat" in body:
                raise Rejected(RejectKind.MALFORMED, "a move must not name its seat")
            body["seat"] = seat
        kind = body.pop("type", None)
        if kind == "Reveal":
            return Reveal()
        if kind != "Bid":
            raise Rejected(RejectKind.UNKNOWN_MOVE, f"unknown move type {kind!r}")
        if set(body) != {"seat", "bid"}:
            raise Rejected(RejectKind.MALFORMED, f"Bid takes exactly the field bid, got {sorted(body)}")
        if not isinstance(body["bid"], int) or isinstance(body["bid"], bool):
            raise Rejected(RejectKind.MALFORMED, "bid must be an integer")
        return Bid(body["seat"], body["bid"])

    def command_to_json(self, command: Any) -> dict[str, Any]:
        return {"type": type(command).__name__, **command.__dict__}

    def move_to_json(self, command: Any) -> dict[str, Any]:
        return {k: v for k, v in self.command_to_json(command).items() if k != "seat"}

    def event_to_json(self, event: dict[str, Any]) -> dict[str, Any]:
        return dict(event)

    def event_from_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return dict(data)

    def event_view(self, event: dict[str, Any], seat: int | None) -> dict[str, Any]:
        if event["type"] == "BidPlaced" and event["seat"] != seat:
            return {**event, "bid": None}
        return dict(event)

    def state_to_json(self, state: State) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in state.__dict__.items()}


RESULT = obj({"scores": array(INT), "winners": array(INT)})
VIEW = obj({"game": enum(["toy"]), "round": INT, "rounds": INT, "prize": INT, "scores": array(INT),
            "bid_placed": array(BOOL), "my_bid": nullable(enum(list(BIDS)))},
           required=("game", "round", "rounds", "prize", "scores", "bid_placed"))
ToyRules.api_schema = ApiSchema(moves=(Bid,), config=Config, view=VIEW, result=RESULT)  # type: ignore[attr-defined]
RULES = ToyRules()
