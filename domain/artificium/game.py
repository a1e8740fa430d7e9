"""Views, results and the JSON edges of Artificium; ``RULES`` declares the game (``domain.core.GamePlugin``).

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
    Config,
    DeckReshuffled,
    GameStarted,
    Phase,
    Player,
    State,
)
from domain.artificium.reference import reference
from domain.artificium.schema import SCHEMA
from domain.artificium.scoring import final_points, result
from domain.artificium.setup import config_from_json, config_to_json, setup
from domain.core import GamePlugin, JsonEdges, Policy

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


def draw_counter(state: State) -> int:
    return state.draws


def is_finished(state: State) -> bool:
    return state.phase is Phase.FINISHED


def _bots() -> dict[str, Policy]:
    from domain.bots import artificium_greedy, search_artificium

    return {"greedy": artificium_greedy.choose, "search": search_artificium.choose}


EVENTS_NOTE = """Data: `docs/artificium-data.md`.

Shown differently to others: `GameStarted.deck` and `DeckReshuffled.deck` (the draw pile's
order) are sent as their length. Another seat's `CardsDrawn` becomes `{"type", "seat", "count",
"hidden": true}`; another seat's `CardCommitted` (a sealed card) becomes `{"type", "seat",
"hidden": true}` until the reveal; a `CardExplored` that is neither yours nor aimed at you becomes
`{"type", "seat", "target", "draws", "hidden": true}`."""

RULES: GamePlugin[State, Any, Any, Config] = GamePlugin(
    name="artificium", title="Artificium", engine_version=ENGINE_VERSION,
    editions={e.value: D.PLAYERS for e in D.Edition},
    config_from_json=config_from_json, config_to_json=config_to_json, setup=setup,
    decide=dispatch.decide, step=dispatch.step, evolve=evolve, legal_moves=dispatch.legal_moves,
    to_act=dispatch.to_act, is_finished=is_finished, result=result, draw_counter=draw_counter,
    view=view, event_view=event_view, summary=summary, state_type=State, state_to_json=state_to_json, codec=EDGES,
    api_schema=SCHEMA, default_move=dispatch.default_move,
    # Trading before a card resolves and selling or discarding at turn end never end the seat's
    # step (ResolveCard, DeclineCard, TakeCardBack or FinishTurn do): one clock stint covers them.
    provisional=frozenset(c.__name__ for c in dispatch.PROVISIONAL),
    bots=_bots, reference=reference, renderer="artificium", events_note=EVENTS_NOTE,
)
