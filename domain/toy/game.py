"""The toy game's views, result, JSON edges and schema, and ``RULES``: its plugin."""
from __future__ import annotations

from typing import Any

from domain import codec
from domain.apischema import BOOL, INT, ApiSchema, array, enum, nullable, obj
from domain.core import GamePlugin, JsonEdges
from domain.toy import rules
from domain.toy.model import (
    BIDS,
    COMMANDS,
    EVENTS,
    PLAYERS,
    SYSTEM_COMMANDS,
    Bid,
    BidPlaced,
    Command,
    Config,
    Edition,
    Event,
    State,
)


def view(state: State, seat: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"game": "toy", "round": state.round, "rounds": state.rounds, "prize": state.prize,
                           "scores": list(state.scores), "bid_placed": [b is not None for b in state.bids]}
    if seat is not None:
        out["my_bid"] = state.bids[seat]  # a seat sees its own sealed bid only
    return out


def result(state: State) -> dict[str, Any] | None:
    if not state.finished:
        return None
    best = max(state.scores)
    return {"scores": list(state.scores), "winners": [i for i, s in enumerate(state.scores) if s == best]}


def summary(state: State) -> dict[str, Any]:
    return {"phase": "finished" if state.finished else ("bid" if None in state.bids else "reveal"),
            "round": state.round, "event": None, "finished": state.finished}


EDGES = JsonEdges[Command, Event](COMMANDS, EVENTS, SYSTEM_COMMANDS)


def event_view(event: Event, seat: int | None) -> dict[str, Any]:
    out = EDGES.event_to_json(event)
    if isinstance(event, BidPlaced) and event.seat != seat:
        out["bid"] = None  # sealed until BidsRevealed
    return out


def public_event(event: Event) -> bool:
    """Shown to every seat as stored: anything but a bid, sealed until revealed."""
    return not isinstance(event, BidPlaced)


def state_to_json(state: State) -> dict[str, Any]:
    return codec.object_to_json(state)


RESULT = obj({"scores": array(INT), "winners": array(INT)})
VIEW = obj({"game": enum(["toy"]), "round": INT, "rounds": INT, "prize": INT, "scores": array(INT),
            "bid_placed": array(BOOL), "my_bid": nullable(enum(list(BIDS)))},
           required=("game", "round", "rounds", "prize", "scores", "bid_placed"))
SCHEMA = ApiSchema(moves=(Bid,), config=Config, view=VIEW, result=RESULT)

RULES: GamePlugin[State, Command, Event, Config] = GamePlugin(
    name="toy", title="Toy sealed bids", engine_version="toy-1", editions={Edition.CLASSIC.value: PLAYERS},
    config_from_json=rules.config_from_json, config_to_json=rules.config_to_json, setup=rules.setup,
    decide=rules.decide, evolve=rules.evolve, legal_moves=rules.legal_moves, to_act=rules.to_act,
    is_finished=rules.is_finished, result=result, draw_counter=rules.draw_counter,
    view=view, event_view=event_view, public_event=public_event,
    summary=summary, state_type=State, state_to_json=state_to_json, codec=EDGES,
    api_schema=SCHEMA, default_move=rules.default_move,
    listed=False,
)
