"""Views, results and the JSON edges of Artificium; ``RULES`` bundles the contract.

Hidden information: hands, the draw pile's order and every seat's sealed card. ``view`` shows a
seat its own hand and sealed card only; spectators see neither. ``event_view`` redacts draws,
sealed commitments, shuffles and Exploration's stolen card per seat. The discard pile is face up
(the rules are silent; most of it, market leftovers and revealed cards, was public anyway), so
cards discarded from a hand are shown.
"""
from __future__ import annotations

from typing import Any

from domain import codec
from domain.artificium import data as D
from domain.artificium import dispatch
from domain.artificium.evolve import evolve
from domain.artificium.model import (
    COMMANDS,
    EVENTS,
    RESOURCES,
    SYSTEM_COMMANDS,
    CardCommitted,
    CardExplored,
    CardsDrawn,
    DeckReshuffled,
    GameStarted,
    Phase,
    Player,
    State,
)
from domain.artificium.scoring import final_points, result
from domain.artificium.setup import config_from_json, config_to_json, setup
from domain.core import JsonEdges

ENGINE_VERSION = "artificium-1"


# --- views -----------------------------------------------------------------------------------------------


def _cards(cards: tuple[Any, ...]) -> list[str]:
    return [c.value for c in cards]


def view(state: State, seat: int | None) -> dict[str, Any]:
    return {
        "game": "artificium",
        "edition": state.config.edition.value,
        "players": state.config.players,
        "you": seat,
        "turn": state.turn,
        "turns": D.TURNS,
        "turn_space": D.TURN_SPACES[state.turn - 1] if state.turn else None,
        "phase": state.phase.value,
        "first_player": state.first_player,
        "to_act": sorted(dispatch.to_act(state), key=str),
        "step": state.step,
        "resolving": list(state.queue),
        "owed_discards": state.owed_discards,
        "market": _cards(state.market),
        "market_turn": state.market_turn,
        "deck_count": len(state.deck),
        "discard": _cards(state.discard),
        "bank": state.bank,
        "score_board": {"length": D.SCORE_BOARD_LENGTH,
                        "bonus_spaces": {str(k): v.value for k, v in D.BONUS_SPACES.items()}},
        "prices": {r.value: {"level": D.RESOURCE_LEVELS[r], "buy": D.BUY_PRICES[r], "sell": D.SELL_PRICES[r]}
                   for r in RESOURCES},
        "seats": [_seat_view(p, i, seat) for i, p in enumerate(state.players)],
        "result": result(state),
    }


def _seat_view(p: Player, i: int, viewer: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seat": i,
        "vp": p.vp,
        "space": p.vp % D.SCORE_BOARD_LENGTH,
        "coins": p.coins,
        "resources": {r.value: n for r, n in zip(RESOURCES, p.resources)},
        "hand_count": len(p.hand),
        "committed": p.committed is not None,
        "revealed": None if p.revealed is None else p.revealed.value,
        "played": _cards(p.played),
        "plays": p.plays,
        "exchanges": p.exchanges,
        "redrew": p.redrew,
        "market_passed": p.market_passed,
        "passed": p.passed,
        "finished": p.finished,
        "knights": p.knights,
        "wizards": p.wizards,
        "projected_score": final_points(p),
    }
    if viewer == i:
        out["hand"] = _cards(p.hand)
        out["committed_card"] = None if p.committed is None else p.committed.value
    return out


def summary(state: State) -> dict[str, Any]:
    return {"phase": state.phase.value, "round": state.turn, "turn": state.turn, "step": state.step,
            "to_act": sorted(dispatch.to_act(state), key=str), "first_player": state.first_player,
            "finished": state.phase is Phase.FINISHED}


# --- JSON edges ----------------------------------------------------------------------------------------------

EDGES = JsonEdges[Any, Any](COMMANDS, EVENTS, SYSTEM_COMMANDS)


def event_view(event: Any, seat: int | None) -> dict[str, Any]:
    out = EDGES.event_to_json(event)
    if isinstance(event, (GameStarted, DeckReshuffled)):
        out["deck"] = len(event.deck)  # the order of the draw pile stays hidden
    elif isinstance(event, CardsDrawn) and event.seat != seat:
        out = {"type": out["type"], "seat": event.seat, "count": len(event.cards), "hidden": True}
    elif isinstance(event, CardCommitted) and event.seat != seat:
        out = {"type": out["type"], "seat": event.seat, "hidden": True}
    elif isinstance(event, CardExplored) and seat not in (event.seat, event.target):
        out = {"type": out["type"], "seat": event.seat, "target": event.target, "draws": event.draws,
               "hidden": True}
    return out


def state_to_json(state: State) -> dict[str, Any]:
    out: dict[str, Any] = codec.to_json(state)
    return out


class ArtificiumRules:
    """The decider contract of domain.core.GameRules for Artificium."""

    name = "artificium"
    engine_version = ENGINE_VERSION
    # Trading before a card resolves and selling or discarding at turn end never end the seat's
    # step (ResolveCard, DeclineCard, TakeCardBack or FinishTurn do): one clock stint covers them.
    provisional: frozenset[str] = frozenset(c.__name__ for c in dispatch.PROVISIONAL)

    config_from_json = staticmethod(config_from_json)
    config_to_json = staticmethod(config_to_json)
    setup = staticmethod(setup)
    decide = staticmethod(dispatch.decide)
    step = staticmethod(dispatch.step)
    evolve = staticmethod(evolve)
    legal_moves = staticmethod(dispatch.legal_moves)
    to_act = staticmethod(dispatch.to_act)
    view = staticmethod(view)
    result = staticmethod(result)
    summary = staticmethod(summary)
    default_move = staticmethod(dispatch.default_move)
    command_from_json = staticmethod(EDGES.command_from_json)
    command_to_json = staticmethod(EDGES.command_to_json)
    move_to_json = staticmethod(EDGES.move_to_json)
    event_to_json = staticmethod(EDGES.event_to_json)
    event_from_json = staticmethod(EDGES.event_from_json)
    event_view = staticmethod(event_view)
    state_to_json = staticmethod(state_to_json)

    @staticmethod
    def draw_counter(state: State) -> int:
        return state.draws

    @staticmethod
    def is_finished(state: State) -> bool:
        return state.phase is Phase.FINISHED


RULES = ArtificiumRules()
