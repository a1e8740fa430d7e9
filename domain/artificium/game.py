"""Views, results and the JSON edges of Artificium; ``RULES`` declares the game (``domain.core.GamePlugin``).

Hidden information: hands, the draw pile's order and every seat's sealed card. ``view`` shows a
seat its own hand and sealed card only; spectators see neither. ``event_view`` redacts draws,
sealed commitments, shuffles and Exploration's stolen card per seat. The discard pile is face up
(the rules are silent; most of it, market leftovers and revealed cards, was public anyway), so
cards discarded from a hand are shown.
"""
from __future__ import annotations

from functools import partial
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
    tables,
)
from domain.artificium.reference import reference
from domain.artificium.schema import SCHEMA
from domain.artificium.scoring import final_points, result
from domain.artificium.setup import config_from_json, config_to_json, setup
from domain.core import GamePlugin, JsonEdges, Policy

# artificium-1: rules 1 (the research sheet's tables, an unlimited bank). artificium-2: rules 2 (a bank
# of 100 tokens, re-tuned prices and bonus spaces, data.TABLES). A game records its rules version
# in its config, and a game recorded by artificium-1 replays with rules 1.
ENGINE_VERSION = f"artificium-{D.RULES_VERSION}"


# --- views -----------------------------------------------------------------------------------------------


def _cards(cards: tuple[Any, ...]) -> list[str]:
    return [c.value for c in cards]


# The view's keys that carry reconstructed values (docs/artificium-data.md A§4).
VIEW_RECONSTRUCTED = ("bank_limit", "prices", "score_board")


def view(state: State, seat: int | None) -> dict[str, Any]:
    t = tables(state)
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
        "bank_limit": D.TOKEN_POOL if t.bank_is_limited else None,
        "score_board": {"length": D.SCORE_BOARD_LENGTH,
                        "bonus_spaces": {str(k): v.value for k, v in t.bonus_spaces.items()}},
        "prices": {r.value: {"level": D.RESOURCE_LEVELS[r], "buy": t.buy[r], "sell": t.sell[r]} for r in RESOURCES},
        "seats": [_seat_view(state, p, i, seat) for i, p in enumerate(state.players)],
        "result": result(state),
        "rules_version": state.config.rules_version,
        # Values the printed boards would give but no source does (A§4): shown, never passed off as printed.
        "reconstructed": list(VIEW_RECONSTRUCTED),
    }


def _seat_view(state: State, p: Player, i: int, viewer: int | None) -> dict[str, Any]:
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
        "projected_score": final_points(state, p),
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


def public_event(event: Any) -> bool:
    """Shown to every seat as stored: anything ``event_view`` leaves as it is."""
    return not isinstance(event, (GameStarted, DeckReshuffled, CardsDrawn, CardCommitted, CardExplored))


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


def plugin(rules_version: int) -> GamePlugin[State, Any, Any, Config]:
    """Artificium played by ``rules_version``: ``config_from_json`` records that version in new games'
    configs; everything else reads it from the state, so either plugin plays any game by the rules it
    was created with, and ``for_engine`` picks the one that sets a recorded game up again."""
    return GamePlugin(
        name="artificium", title="Artificium", engine_version=f"artificium-{rules_version}",
        editions={e.value: D.PLAYERS for e in D.Edition},
        config_from_json=partial(config_from_json, rules_version=rules_version), config_to_json=config_to_json,
        setup=setup,
        decide=dispatch.decide, step=dispatch.step, evolve=evolve, legal_moves=dispatch.legal_moves,
        to_act=dispatch.to_act, is_finished=is_finished, result=result, draw_counter=draw_counter,
        view=view, event_view=event_view, public_event=public_event,
        summary=summary, state_type=State, state_to_json=state_to_json, codec=EDGES,
        api_schema=SCHEMA, default_move=dispatch.default_move,
        # Trading before a card resolves and selling or discarding at turn end never end the seat's
        # step (ResolveCard, DeclineCard, TakeCardBack or FinishTurn do): one clock stint covers them.
        provisional=frozenset(c.__name__ for c in dispatch.PROVISIONAL),
        for_engine=for_engine, bots=_bots, reference=reference, renderer="artificium", events_note=EVENTS_NOTE,
    )


def for_engine(engine_version: str) -> GamePlugin[State, Any, Any, Config]:
    """The rules that set up a game recorded by ``engine_version`` again: rules 1 for artificium-1."""
    return LEGACY_RULES if engine_version == LEGACY_RULES.engine_version else RULES


RULES = plugin(D.RULES_VERSION)
LEGACY_RULES = plugin(D.LEGACY_RULES_VERSION)
