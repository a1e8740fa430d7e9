"""Views and the JSON edges of Orléans; ``RULES`` declares the game (``domain.core.GamePlugin``).

Hidden information: the seed and the order of the hour glass deck (everyone), each bag's order
(its contents are its owner's only), and sealed planning (D10). While planning, what another seat
or a spectator may know of a seat is exactly what the table showed when planning began (its
market and its Gunpowder Tower, placed characters, everything public) plus whether the seat has
declared itself done. Nothing of its placements: not where, not which characters, not how many,
not whether a character left the tower. ``view`` shows every other seat's market and tower as
they stood when planning began, and ``event_view`` turns a placement and a take-back (and, in
rules-2 games, a tower move) of another seat into the same ``SealedPlanning`` record. What the
service's log itself shows cannot be hidden by the rules: one entry per planning move of a seat,
so the number of its moves is public, and since a take-back is a move too, that number bounds the
number of placements and gives its parity, nothing more. Games recorded by orleans-2 also show the
tower as it is (they keep no record of which placed characters came from it).
"""
from __future__ import annotations

from enum import Enum
from functools import partial
from typing import Any

from domain import codec
from domain.core import GamePlugin, JsonEdges, Policy
from domain.orleans import data as D
from domain.orleans import dispatch
from domain.orleans import queries as Q
from domain.orleans.evolve import evolve, without_all
from domain.orleans.model import (
    CHARS,
    COMMANDS,
    EVENTS,
    GOODS,
    HIDDEN_EVENTS,
    LEGACY_RULES_VERSION,
    RULES_VERSION,
    SYSTEM_COMMANDS,
    TRACKS,
    Command,
    Config,
    Event,
    GameStarted,
    Phase,
    Player,
    Slots,
    State,
    rules_at_least,
    sort_tiles,
)
from domain.orleans.reference import reference
from domain.orleans.schema import SCHEMA
from domain.orleans.scoring import result, score
from domain.orleans.setup import config_from_json, config_to_json, setup

# orleans-2: the 2023 edition's Farmer-only technology tile (F§2.3, F§8.2). orleans-3 to
# orleans-5: the rules of model.RULES_VERSION; a game records its rules version in its config, and
# games recorded by orleans-1 or orleans-2 replay with rules 2, those by orleans-3 or orleans-4
# with their own rules.
ENGINE_VERSION = f"orleans-{RULES_VERSION}"
LEGACY_ENGINES = frozenset({"orleans-1", "orleans-2"})


# --- views ------------------------------------------------------------------------------------------


def _counts(keys: tuple[Enum, ...], values: tuple[int, ...]) -> dict[str, int]:
    return {k.value: v for k, v in zip(keys, values)}


def _hourglass_json(tile: D.Hourglass | None) -> dict[str, str] | None:
    return None if tile is None else {"event": tile.event.value, "level": tile.level}


def view(state: State, seat: int | None) -> dict[str, Any]:
    finished = state.phase is Phase.FINISHED
    out: dict[str, Any] = {
        "game": "orleans",
        "edition": state.config.edition.value,
        "players": state.config.players,
        "you": seat,
        "round": state.round,
        "rounds": D.ROUNDS,
        "phase": state.phase.value,
        "event": _hourglass_json(state.event),
        "hourglass_remaining": len(state.hourglass),
        "start_player": state.start_player,
        "turn": state.turn,
        "to_act": sorted(dispatch.to_act(state), key=str),
        "board": _board_view(state),
        "seats": [_seat_view(state, i, seat) for i in range(state.config.players)],
        "choice": _choice_view(state),
        "dues": [{"seat": d.seat, "kind": d.kind, "amount": d.amount} for d in state.dues],
        "result": result(state),
    }
    if finished:
        for i, s in enumerate(out["seats"]):
            s["score"] = score(state, i)
    return out


def _board_view(state: State) -> dict[str, Any]:
    supply = Q.coin_supply(state)
    return {
        "supply": _counts(CHARS, state.supply),
        "goods_market": _counts(GOODS, state.goods_market),
        "connections": [
            {"id": c.id, "a": c.a, "b": c.b, "route": c.route.value, "goods": [g.value for g in goods]}
            for c, goods in zip(D.CONNECTIONS, state.roads)
        ],
        "towns": list(D.TOWNS),
        "stations": [{"town": t, "seat": s} for t, s in state.stations],
        "deeds": [
            {"id": d.id, "name": d.name, "coins": d.coins, "development_choice": d.development_choice,
             "spaces": [{"needs": need.value, "seat": taken} for need, taken in zip(d.spaces, seats)],
             "citizen_available": any(x is None for x in seats)}
            for d, seats in zip(D.DEEDS, state.deeds)
        ],
        "place_tiles": {
            "I": [t for t in state.place_tiles if D.PLACES[t].stack == 1],
            "II": [t for t in state.place_tiles if D.PLACES[t].stack == 2],
        },
        "excluded_place_tiles": list(state.excluded),
        "technology_tiles": state.tech_supply,
        "citizens": {
            "knights": state.knights_citizen,
            "boatmen": state.boatmen_citizen,
            "development": [{"position": pos, "seat": s} for pos, s in zip(D.DEVELOPMENT_CITIZENS, state.development_citizens)],
            "most_stations": state.bonus_citizen,
        },
        "coin_supply": supply,
    }


def _seat_view(state: State, i: int, viewer: int | None) -> dict[str, Any]:
    p = state.players[i]
    own = viewer == i
    sealed = state.phase is Phase.PLANNING and not own  # D10: others' plans stay hidden
    market, tower = _before_planning(p) if sealed else (p.market, p.tower)
    out: dict[str, Any] = {
        "seat": i,
        "coins": p.coins,
        "goods": _counts(GOODS, p.goods),
        "tracks": {c.value: pos for c, pos in zip(TRACKS, p.tracks)},
        "followers_per_round": Q.draw_limit(p),
        "development_position": p.development,
        "development_status": Q.status(p),
        "citizens": p.citizens,
        "trading_stations_built": Q.built_stations(state, i),
        "trading_stations_left": p.stations,
        "technology_tiles": p.techs,
        "farmer_only_technology": p.farmer_tech,
        "merchant": p.merchant,
        "market": [t.value for t in sort_tiles(market)],
        "tower": [t.value for t in tower],
        "bag_count": len(p.bag),
        "places": [_place_view(s) for s in p.places],
        "planning_done": p.planned,
        "plan_hidden": sealed,  # market and tower are shown as they stood when planning began
        "followers_drawn": p.drew,
        "loading_tower": p.loading,  # phase 3, rules 3: drew, and may now load (rules 5: or unload) the tower
        "passed": p.passed,
    }
    if own:
        if rules_at_least(state, 4) and state.phase is Phase.PLANNING:  # D13; hidden like the plan itself
            out["take_backs_left"] = D.TAKE_BACKS_PER_PLANNING - p.take_backs
        out["bag"] = [t.value for t in p.bag]
        out["planned"] = [{"tile": x.tile.value, "place": x.place, "space": x.space, "from_tower": x.from_tower}
                          for x in p.pending]
        out["tower_planned"] = [t.value for t in p.tower_pending]
    return out


def _before_planning(p: Player) -> tuple[tuple[D.Tile, ...], tuple[D.Tile, ...]]:
    """A seat's market and Gunpowder Tower as they stood when planning began."""
    from_market = without_all(tuple(x.tile for x in p.pending), p.planned_from_tower)
    return sort_tiles(p.market + from_market + p.tower_pending), sort_tiles(p.tower + p.planned_from_tower)


def _place_view(s: Slots) -> dict[str, Any]:
    place = D.PLACES[s.place]
    return {
        "id": place.id, "name": place.name, "stack": place.stack,
        "spaces": [{"needs": need.value if need else "any", "holds": v} for need, v in zip(place.spaces, s.slots)],
        "activated": Q.activated_slots(s.place, s.slots),
    }


def _choice_view(state: State) -> dict[str, Any] | None:
    c = state.choice
    if c is None:
        return None
    return {"seat": c.seat, "kind": c.kind.value, "source": c.source, "tiles": [t.value for t in c.tiles],
            "connection": c.connection, "stacks": list(c.stacks), "remaining": c.remaining}


def summary(state: State) -> dict[str, Any]:
    return {"phase": state.phase.value, "round": state.round, "event": _hourglass_json(state.event),
            "to_act": sorted(dispatch.to_act(state), key=str), "turn": state.turn,
            "start_player": state.start_player, "finished": state.phase is Phase.FINISHED}


SEALED_PLANNING = "SealedPlanning"  # what other seats see of a sealed planning event


# --- JSON edges --------------------------------------------------------------------------------------

EDGES = JsonEdges[Command, Event](COMMANDS, EVENTS, SYSTEM_COMMANDS)


def event_view(event: Event, seat: int | None) -> dict[str, Any]:
    if isinstance(event, HIDDEN_EVENTS) and event.seat != seat:  # before encoding what is not shown
        return {"type": SEALED_PLANNING, "seat": event.seat, "hidden": True}  # every kind alike
    out = EDGES.event_to_json(event)
    if isinstance(event, GameStarted):
        out["hourglass"] = len(event.hourglass)  # the deck order stays hidden
    return out


def public_event(event: Event) -> bool:
    """Shown to every seat as stored: anything ``event_view`` leaves as it is."""
    return not isinstance(event, (GameStarted, *HIDDEN_EVENTS))


def state_to_json(state: State) -> dict[str, Any]:
    return codec.object_to_json(state)


def draw_counter(state: State) -> int:
    return state.draws


def is_finished(state: State) -> bool:
    return state.phase is dispatch.FINISHED  # read on every decision: see dispatch.FINISHED


def _bots() -> dict[str, Policy]:
    from domain.bots import greedy, search_orleans

    return {"greedy": greedy.choose, "search": search_orleans.choose}


EVENTS_NOTE = """Data: `docs/orleans-data.md`.

Shown differently to others: `GameStarted.hourglass` (the order of the Hour Glass tiles) is
sent as its length. During planning, another seat's `FollowerPlaced`, `FollowerTakenBack` and
`MovedToTower` reach everyone else as `{"type": "SealedPlanning", "seat": n, "hidden": true}`,
whatever the kind, until `PlansRevealed` shows every placement at once."""


def plugin(rules_version: int) -> GamePlugin[State, Command, Event, Config]:
    """Orléans played by ``rules_version``: ``config_from_json`` records that version in new games'
    configs. Everything else reads the version from the state, so any of these plugins plays any
    game by the rules it was created with; ``for_engine`` picks the one that sets a recorded game
    up again."""
    return GamePlugin(
        name="orleans", title="Orléans", engine_version=f"orleans-{rules_version}",
        editions={e.value: range(min(n), max(n) + 1) for e, n in D.PLAYERS.items()},
        config_from_json=partial(config_from_json, rules_version=rules_version), config_to_json=config_to_json,
        setup=setup, decide=dispatch.decide, step=dispatch.step, evolve=evolve,
        legal_moves=dispatch.legal_moves, to_act=dispatch.to_act, is_finished=is_finished, result=result,
        draw_counter=draw_counter, view=view, event_view=event_view, public_event=public_event,
        summary=summary, state_type=State, state_to_json=state_to_json,
        codec=EDGES, api_schema=SCHEMA, default_move=dispatch.default_move,
        # A clock's stint, and a push bot's deadline_s, cover the whole of phase 3 or planning for a seat.
        provisional=frozenset(c.__name__ for c in dispatch.PROVISIONAL),
        for_engine=for_engine, bots=_bots, reference=reference, renderer="orleans", events_note=EVENTS_NOTE,
    )


def for_engine(engine_version: str) -> GamePlugin[State, Command, Event, Config]:
    """The rules that set up a game recorded by ``engine_version`` again (a replay's verifier reads
    it from the bundle header): rules 2 for orleans-1 and orleans-2, rules 3 for orleans-3, rules 4
    for orleans-4, else the current."""
    if engine_version in LEGACY_ENGINES:
        return LEGACY_RULES
    return RECORDED_RULES.get(engine_version, RULES)


RULES = plugin(RULES_VERSION)
RULES_3 = plugin(3)  # orleans-3: take-backs without a limit, two timeouts for a tower loading
RULES_4 = plugin(4)  # orleans-4: the market's copy placed first, a take-back back to the tower first
LEGACY_RULES = plugin(LEGACY_RULES_VERSION)
RECORDED_RULES = {rules.engine_version: rules for rules in (RULES_3, RULES_4)}
