"""What a Cathedral position is worth to the team: the greedy bot's evaluation.

Built sections count most. Orders on the board count for what has been delivered to them, goods
and rosettes in knapsacks for the orders that lack them (or, if no order does, as a fifth of a
Rest), and Master Builders lose a little for every step they stand away from the Workshop that
wants what they carry or from the place the active Event order names. Monks in the bags make
future draws more useful. Every seat shares one estimate: the game is cooperative.

The estimate reads only what every player knows: the table and what the bags hold, which the
rulebook asks players to remember from the public log (C-rules l.318-325).
"""
from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final

from domain.cathedral import data as D
from domain.cathedral.data import Condition, HourGlass, Item, Place, Reward, Workshop
from domain.cathedral.model import Outcome, State

SECTION_VALUE: Final = 100.0
ROSETTE_VALUE: Final = 18.0
MONK_VALUE: Final = 8.0
BLUEPRINT_VALUE: Final = (SECTION_VALUE * D.BLUEPRINTS[Reward.SECTION] + ROSETTE_VALUE * D.BLUEPRINTS[Reward.ROSETTE]
                          + MONK_VALUE * D.BLUEPRINTS[Reward.MONK]) / D.BLUEPRINT_COUNT
REWARD_VALUE: Final[Mapping[Reward, float]] = MappingProxyType({
    Reward.SECTION: SECTION_VALUE, Reward.BLUEPRINT: BLUEPRINT_VALUE, Reward.ROSETTE: ROSETTE_VALUE,
    Reward.MONK: MONK_VALUE})
WIN_VALUE: Final = 10_000.0
DELIVERED_SHARE: Final = 0.6  # an item on an order, as a share of that item's part of the reward
HELD_SHARE: Final = 0.45  # an item in a knapsack that an order lacks, its carrier on the spot
HELD_STEP: Final = 0.07  # less per step between the carrier and the Workshop
HELD_FLOOR: Final = 0.15
HOUR_GLASS_RISK: Final = 0.8  # the Hour Glass is lost at the end of the round
LOOSE_ITEM: Final = BLUEPRINT_VALUE / D.KNAPSACK_SLOTS * 0.6  # nobody needs it: part of a future Rest
LOOSE_POWER: Final = 1.0  # how much faster a Rest comes closer as the knapsack fills
LOOSE_ROSETTE: Final = 12.0  # Glass Painting turns it into a Blueprint; two make an Event order
IDLE_STEP: Final = 2.0  # per step between a Workshop and the nearest builder at all
ORDER_STEP: Final = 5.0  # per step between the active order's place and the nearest builder
MONK_IN_BAG: Final = 6.0
ACTION_VALUE: Final = 10.0  # an action still to come this game


def _distances() -> Mapping[Place, Mapping[Place, int]]:
    """Steps between places along any route (a Cart or a Boat moves one route per action)."""
    out: dict[Place, Mapping[Place, int]] = {}
    for start in Place:
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for spec in D.ROUTES.values():
                other = spec.other_end(here)
                if other is not None and other not in seen:
                    seen[other] = seen[here] + 1
                    queue.append(other)
        out[start] = MappingProxyType(seen)
    return MappingProxyType(out)


DISTANCE: Final = _distances()


class Order:
    """An order on the board as the estimate sees it: what it lacks and what each item is worth."""

    __slots__ = ("place", "lacks", "per_item", "delivered", "worths")

    def __init__(self, needs: tuple[Item, ...], delivered: tuple[Item, ...], rewards: Iterable[Reward],
                 place: Place | None, risk: float = 1.0) -> None:
        self.place = place
        self.lacks = Counter(needs) - Counter(delivered)
        self.per_item = sum(REWARD_VALUE[r] for r in rewards) / len(needs) * risk
        self.delivered = len(delivered)
        self.worths: dict[Place, float] = {}  # worth_at, filled as asked

    def worth_at(self, here: Place) -> float:
        """What one lacking item is worth to this order, carried by a builder at ``here``."""
        worth = self.worths.get(here)
        if worth is None:
            far = 0 if self.place is None else DISTANCE[self.place][here]
            worth = self.worths[here] = self.per_item * held_share(far)
        return worth


def open_orders(state: State) -> list[Order]:
    tables = D.tables(state.config.rules_version)
    orders = [_workshop_order(tables, w.tile, w.delivered, w.place) for w in state.workshops if not w.done]
    glass = state.hour_glass
    if glass is not None:
        orders.append(_glass_order(tables, glass.tile, glass.delivered))
    return orders


# An Order is read-only once made (knapsack_value counts down copies of ``lacks``), so each
# distinct (tile, delivered, place) is built once: the lookahead asks for thousands a game. The
# keys are finite (a tile and a part of what it needs), so the tables stay small.
_WORKSHOP_ORDERS: dict[tuple[D.Tables, Workshop, tuple[Item, ...], Place], Order] = {}
_GLASS_ORDERS: dict[tuple[D.Tables, HourGlass, tuple[Item, ...]], Order] = {}


def _workshop_order(tables: D.Tables, tile: Workshop, delivered: tuple[Item, ...], place: Place) -> Order:
    key = (tables, tile, delivered, place)
    order = _WORKSHOP_ORDERS.get(key)
    if order is None:
        spec = tables.workshops[tile]
        order = _WORKSHOP_ORDERS[key] = Order(spec.needs, delivered, spec.rewards, place)
    return order


def _glass_order(tables: D.Tables, tile: HourGlass, delivered: tuple[Item, ...]) -> Order:
    key = (tables, tile, delivered)
    order = _GLASS_ORDERS.get(key)
    if order is None:
        spec = tables.hour_glasses[tile]
        order = _GLASS_ORDERS[key] = Order(spec.needs, delivered, spec.rewards, None, HOUR_GLASS_RISK)
    return order


Carried = dict[tuple[tuple[tuple[Item, ...], ...], tuple[Place, ...], tuple[int, ...]], tuple[float, float]]
# (id of the workshops tuple, id of the Hour Glass slot) -> (both, kept alive; the open orders; their delivered worth)
Listed = dict[tuple[int, int], tuple[object, object, list[Order], float]]


def estimate(state: State, carried: Carried | None = None, listed: Listed | None = None) -> float:
    """The position's worth. ``carried`` (optional, the caller's) remembers the knapsack value
    and idle cost, which depend only on the knapsacks, the builders and the open orders: the
    leaves of one search share them about ten to one. ``listed`` (optional, the caller's)
    remembers the open orders and their delivered worth by the identity of the workshops tuple
    and the Hour Glass slot, which the fold passes on unchanged from position to position."""
    if state.outcome is Outcome.WON:
        return WIN_VALUE + SECTION_VALUE * state.sections
    value = SECTION_VALUE * state.sections
    if listed is None:
        orders = open_orders(state)
        value += sum(o.per_item * o.delivered * DELIVERED_SHARE for o in orders)
    else:
        workshops, glass = state.workshops, state.hour_glass
        seen = listed.get((id(workshops), id(glass)))
        if seen is None:
            orders = open_orders(state)
            worth = sum(o.per_item * o.delivered * DELIVERED_SHARE for o in orders)
            seen = listed[(id(workshops), id(glass))] = (workshops, glass, orders, worth)
        orders = seen[2]
        value += seen[3]
    if carried is None:
        held, idle = knapsack_value(state, orders), idle_cost(state, orders)
    else:
        # orders live in the tables above for good, so their ids name them
        key = (state.knapsacks, state.builders, tuple(map(id, orders)))
        hit = carried.get(key)
        if hit is None:
            hit = carried[key] = (knapsack_value(state, orders), idle_cost(state, orders))
        held, idle = hit
    value += held
    value -= idle
    value += order_value(state)
    value += MONK_IN_BAG * (state.red_bag.count(D.Follower.MONK) + state.blue_bag.count(D.Follower.MONK))
    value += ACTION_VALUE * actions_left(state)
    return value


BELL_TOWER: Final = D.SPACE_LIST.index(D.Space.BT)


def actions_left(state: State) -> int:
    """Free action spaces this round plus full rounds to come: a round ended early loses the rest."""
    if state.outcome is not None:
        return 0
    free = state.spaces.count(None) - (state.spaces[BELL_TOWER] is None)
    return free + (D.ROUNDS - state.round) * (len(D.SPACE_LIST) - 1)


def held_share(distance: int) -> float:
    """A held item an order lacks, by how far its carrier stands from where it is delivered."""
    return max(HELD_FLOOR, HELD_SHARE - HELD_STEP * distance)


def knapsack_value(state: State, orders: list[Order]) -> float:
    """Each held item an order lacks is worth a share of that order, more the closer its carrier
    stands to the Workshop (the Hour Glass takes deliveries from anywhere); items are matched to
    the best-paying wants first. The rest count toward a Rest, rosettes toward Glass Painting."""
    offers = []  # (worth, seat, item, order index)
    knapsacks = state.knapsacks
    for seat, knapsack in enumerate(knapsacks):
        if not knapsack:
            continue
        here = state.builders[seat]
        for item in set(knapsack):
            for k, order in enumerate(orders):
                if item in order.lacks:  # (a Counter difference keeps only what is still lacking)
                    offers.append((order.worth_at(here), seat, item, k))
    value = 0.0
    if not offers:  # nothing matched: each knapsack counts whole toward a Rest
        for knapsack in knapsacks:
            value += _leftover_worth(knapsack)
        return value
    # what each seat still holds after the matching (plain dicts: this runs for every leaf)
    left: list[dict[Item, int]] = []
    for knapsack in knapsacks:
        counts: dict[Item, int] = {}
        for item in knapsack:
            counts[item] = counts.get(item, 0) + 1
        left.append(counts)
    offers.sort(key=lambda o: -o[0])
    wants = [dict(o.lacks) for o in orders]
    for worth, seat, item, k in offers:
        held, wanted = left[seat], wants[k]
        while held.get(item, 0) and wanted.get(item, 0):
            held[item] -= 1
            wanted[item] -= 1
            value += worth
    for counts in left:
        rosettes = counts.get(Item.ROSETTE, 0)
        value += _rest_term(rosettes, sum(counts.values()) - rosettes)
    return value


def _rest_term(rosettes: int, loose: int) -> float:
    """What ``rosettes`` rosettes and ``loose`` other items nobody takes are worth (a few pairs,
    worked out once each)."""
    term = _REST_TERMS.get((rosettes, loose))
    if term is None:
        term = _REST_TERMS[(rosettes, loose)] = rosettes * LOOSE_ROSETTE + rest_value(loose)
    return term


def _leftover_worth(knapsack: tuple[Item, ...]) -> float:
    """``_rest_term`` of a whole knapsack, by the knapsack (sorted tuples: few distinct ones)."""
    term = _LEFTOVER.get(knapsack)
    if term is None:
        rosettes = knapsack.count(Item.ROSETTE)
        term = _LEFTOVER[knapsack] = _rest_term(rosettes, len(knapsack) - rosettes)
    return term


_REST_TERMS: dict[tuple[int, int], float] = {}
_LEFTOVER: dict[tuple[Item, ...], float] = {}


def rest_value(loose: int) -> float:
    """Goods nobody needs are worth their share of a Rest, more as the knapsack fills up."""
    share: float = (loose / D.KNAPSACK_SLOTS) ** LOOSE_POWER
    return LOOSE_ITEM * D.KNAPSACK_SLOTS * share


def idle_cost(state: State, orders: list[Order]) -> float:
    """A Workshop that lacks something nobody carries still wants a builder nearby."""
    cost = 0.0
    for order in orders:
        if order.place is None or not order.lacks:
            continue
        if not any(order.lacks[i] for k in state.knapsacks for i in k):
            cost += IDLE_STEP * min(DISTANCE[order.place][b] for b in state.builders)
    return cost


def order_value(state: State) -> float:
    """The active Event order pays a Blueprint when met: value getting closer to it."""
    if state.order is None:
        return 0.0
    spec = D.tables(state.config.rules_version).events[state.order]
    if spec.condition is Condition.BUILDER_AT and spec.place is not None:
        return -ORDER_STEP * min(DISTANCE[spec.place][b] for b in state.builders)
    if spec.condition is Condition.ROSETTES:
        most = max(k.count(Item.ROSETTE) for k in state.knapsacks)
        return BLUEPRINT_VALUE * 0.3 * min(most, spec.count) / spec.count
    return 0.0
