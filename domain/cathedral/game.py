"""Views, the result and the JSON edges of The Cathedral of Orléans; ``RULES`` declares the game (``domain.core.GamePlugin``).

Hidden information: what is inside the red, blue and black bags and the face-down Event, Hour
Glass and Blueprint tiles (and the Workshop tiles left in the box). ``view`` shows every seat and
spectator the same table: counts of those piles, never their contents. No pile has an order
before a tile is drawn (draws are made from sorted piles with the game's secret seed), and every
event records only an outcome the table sees at that moment (a tile drawn and placed face up, an
Event or Blueprint turned over), so ``event_view`` needs no redaction.

The result is shared: ``outcome`` (won/lost) and ``sections_built`` for the whole team, with the
keys every game has so the service, replays and tournaments treat it uniformly: every seat scores
the sections built, ``winners`` is every seat after a win and nobody after a loss, and the
``ranking`` puts every seat first together (docs/cathedral-data.md, "The result").
"""
from __future__ import annotations

from functools import partial
from typing import Any

from domain import codec
from domain.cathedral import data as D
from domain.cathedral import dispatch
from domain.cathedral.evolve import evolve
from domain.cathedral.model import COMMANDS, EVENTS, SYSTEM_COMMANDS, Config, Outcome, State, WorkshopSlot
from domain.cathedral.moves import stage
from domain.cathedral.reference import reference
from domain.cathedral.schema import SCHEMA
from domain.cathedral.setup import config_from_json, config_to_json, setup
from domain.core import GamePlugin, JsonEdges, Policy

# cathedral-1: rules 1 (no gift into a full knapsack). cathedral-2: rules 2 (the receiver of a gift
# makes room, C-rules l.173-180). A game records its rules version in its config; a game recorded
# by cathedral-1 replays with rules 1.
ENGINE_VERSION = f"cathedral-{D.RULES_VERSION}"
GAME = "cathedral"

# --- views -------------------------------------------------------------------------------------------------


def _values(tiles: tuple[Any, ...]) -> list[Any]:
    return [t.value for t in tiles]


def _order_json(needs: tuple[D.Item, ...], rewards: tuple[D.Reward, ...]) -> dict[str, Any]:
    return {"needs": _values(needs), "rewards": _values(rewards)}


def _event_json(tables: D.Tables, tile: D.EventTile) -> dict[str, Any]:
    spec = tables.events[tile]
    return {"tile": tile.value, "reward": spec.reward and spec.reward.value,
            "condition": spec.condition and spec.condition.value, "place": spec.place and spec.place.value,
            "count": spec.count or None}


def _workshop_json(tables: D.Tables, w: WorkshopSlot) -> dict[str, Any]:
    spec = tables.workshops[w.tile]
    return {"place": w.place.value, "tile": w.tile.value, **_order_json(spec.needs, spec.rewards),
            "delivered": _values(w.delivered), "done": w.done}


def board_json() -> dict[str, Any]:
    """The printed board (all of it C§4 reconstruction): places, routes, item spots, action spaces."""
    return {
        "places": [p.value for p in D.Place],
        "start": D.START_PLACE.value,
        "routes": [{"route": r.value, "a": s.a.value, "b": s.b.value, "kind": s.kind.value,
                    "spots": list(D.spots_on(r))} for r, s in D.ROUTES.items()],
        "workshop_places": [p.value for p in D.WORKSHOP_PLACES],
        "spaces": [{"space": sp.value, "area": s.area.value, "action": s.action.value, "shows": _values(s.shows),
                    "monk_only": s.monk_only} for sp, s in D.SPACES.items()],
    }


# The view's keys whose values come from reconstructed tables (data.RECONSTRUCTED, docs/cathedral-data.md
# C§4): the map and its spaces, and the printed contents of the tiles shown.
VIEW_RECONSTRUCTED = ("board", "workshops", "hour_glass", "events", "blueprints")


def view(state: State, seat: int | None) -> dict[str, Any]:
    glass, tables = state.hour_glass, D.tables(state.config.rules_version)
    return {
        "game": GAME,
        "edition": state.config.edition.value,
        "players": state.config.players,
        "you": seat,
        "round": state.round,
        "rounds": D.ROUNDS,
        "active": state.active,
        "stage": stage(state).value,
        "to_act": sorted(dispatch.to_act(state), key=str),
        "drawn": state.drawn and state.drawn.value,
        "pending": _pending_json(state),
        "rewards": _values(state.rewards),
        "board": board_json(),
        "spots": [item and item.value for item in state.spots],
        "spaces": {sp.value: (f and f.value) for sp, f in zip(D.SPACE_LIST, state.spaces)},
        "seats": [{"seat": i, "builder": place.value, "knapsack": _values(knapsack)}
                  for i, (place, knapsack) in enumerate(zip(state.builders, state.knapsacks))],
        "bags": {"red": len(state.red_bag), "blue": len(state.blue_bag), "black": len(state.black_bag)},
        "supply": {"monks": state.supply_monks, "rosettes": state.supply_rosettes},
        "workshops": [_workshop_json(tables, w) for w in state.workshops],
        "hour_glass": None if glass is None else {"tile": glass.tile.value, "delivered": _values(glass.delivered),
                                                  **_order_json(tables.hour_glasses[glass.tile].needs,
                                                                tables.hour_glasses[glass.tile].rewards)},
        "hour_glass_stack": hour_glass_stack(state),
        "events": {"stack": len(state.event_pool), "order": state.order and _event_json(tables, state.order),
                   "discard": [_event_json(tables, t) for t in state.event_discard]},
        "blueprints": {"face_down": len(state.blueprint_pool), "turned": _values(state.blueprints_turned)},
        "sections": {"built": state.sections, "needed": D.SECTIONS},
        "removed": _values(state.removed),
        "result": result(state),
        "reconstructed": list(VIEW_RECONSTRUCTED),
    }


def hour_glass_stack(state: State) -> int:
    """Face-down Hour Glass tiles still to come (3 are in play; the rest stay in the box)."""
    shown = len(state.hour_glass_gone) + (state.hour_glass is not None)
    return max(0, D.HOUR_GLASSES_IN_PLAY - shown)


def _pending_json(state: State) -> dict[str, Any] | None:
    p = state.pending
    if p is None:
        return None
    return {"space": p.space.value, "action": p.action.value, "route": p.route and p.route.value,
            "delivered": p.delivered}


def result(state: State) -> dict[str, Any] | None:
    if state.outcome is None:
        return None
    n, seats = state.sections, range(state.config.players)
    won = state.outcome is Outcome.WON
    return {
        "outcome": state.outcome.value,
        "sections_built": n,
        "sections_needed": D.SECTIONS,
        "rounds_played": state.round,
        "scores": [n for _ in seats],
        "winners": list(seats) if won else [],
        "ranking": [{"seat": s, "rank": 1, "score": n} for s in seats],
    }


def summary(state: State) -> dict[str, Any]:
    return {"phase": stage(state).value, "round": state.round, "active": state.active,
            "to_act": sorted(dispatch.to_act(state), key=str), "sections_built": state.sections,
            "finished": state.outcome is not None}


# --- JSON edges --------------------------------------------------------------------------------------------

EDGES = JsonEdges[Any, Any](COMMANDS, EVENTS, SYSTEM_COMMANDS)


def event_view(event: Any, seat: int | None) -> dict[str, Any]:
    """Every event is public: it names only what the table sees at that moment (module docstring)."""
    return EDGES.event_to_json(event)


def public_event(event: Any) -> bool:
    """Every event is shown as stored (``event_view``)."""
    return True


def state_to_json(state: State) -> dict[str, Any]:
    out: dict[str, Any] = codec.to_json(state)
    return out


def draw_counter(state: State) -> int:
    return state.draws


def is_finished(state: State) -> bool:
    return state.outcome is not None


def _bots() -> dict[str, Policy]:
    from domain.bots import cathedral_greedy

    return {"greedy": cathedral_greedy.choose}


EVENTS_NOTE = """Data: `docs/cathedral-data.md`.

Every event is public: it names only what the whole table sees at that moment (tiles drawn from
a bag are shown as they come out)."""


def plugin(rules_version: int) -> GamePlugin[State, Any, Any, Config]:
    """The Cathedral played by ``rules_version``: ``config_from_json`` records that version in new
    games' configs; everything else reads it from the state."""
    return GamePlugin(
        name="cathedral", title="The Cathedral of Orléans", engine_version=f"cathedral-{rules_version}",
        editions={e.value: D.PLAYERS for e in D.Edition},
        config_from_json=partial(config_from_json, rules_version=rules_version), config_to_json=config_to_json,
        setup=setup,
        decide=dispatch.decide, step=dispatch.step, evolve=evolve, legal_moves=dispatch.legal_moves,
        to_act=dispatch.to_act, is_finished=is_finished, result=result, draw_counter=draw_counter,
        view=view, event_view=event_view, public_event=public_event,
        summary=summary, state_type=State, state_to_json=state_to_json, codec=EDGES,
        api_schema=SCHEMA, default_move=dispatch.default_move,
        # None: every command moves the turn on through the steps the rules ask for in order (draw,
        # place, act, rewards) and none can be undone, so each ends a decision and a per-move clock
        # starts afresh for the next.
        provisional=frozenset(),
        for_engine=for_engine, bots=_bots, reference=reference, renderer="cathedral", events_note=EVENTS_NOTE,
    )


def for_engine(engine_version: str) -> GamePlugin[State, Any, Any, Config]:
    """The rules that set up a game recorded by ``engine_version`` again: rules 1 for cathedral-1,
    rules 2 for cathedral-2, else the current."""
    return RECORDED_RULES.get(engine_version, RULES)


RULES = plugin(D.RULES_VERSION)
RULES_2 = plugin(2)  # cathedral-2: the first tile tables (data.TABLES_1), gifts make room
LEGACY_RULES = plugin(D.LEGACY_RULES_VERSION)
RECORDED_RULES = {rules.engine_version: rules for rules in (LEGACY_RULES, RULES_2)}
