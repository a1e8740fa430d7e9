"""Resolving a revealed card: one small rule per ``Effect``, and the score board.

Score board (A-rules l.217-223): a resolved Building scores its VP at once; every space the
marker passes or stops on that shows a resource pays that resource from the bank. The Castle's
push-back (A-rules l.63-64) moves a marker back without a bonus (A§4 bonus_on_forward_move_only).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from domain.artificium import data as D
from domain.artificium.common import Tx, Why, bank_pays, draw_cards, is_seat
from domain.artificium.data import Card, Effect, Resource
from domain.artificium.model import (
    RESOURCE_INDEX,
    RESOURCES,
    BonusCollected,
    CardExplored,
    CardResolved,
    CardReturned,
    CoinsTaken,
    DiscardsOwed,
    MarkerPushedBack,
    Player,
    Produced,
    ResolveCard,
    ResourceStolen,
    State,
    VictoryPointsScored,
    tables,
)

# --- the score board ----------------------------------------------------------------------------------


def space_of(vp: int) -> int:
    return vp % D.SCORE_BOARD_LENGTH


def score(tx: Tx, seat: int, points: int) -> None:
    """Move the marker forward; each bonus space passed or reached pays its resource."""
    if points <= 0:
        return
    p = tx.state.players[seat]
    start = p.vp if D.BONUS_REPAYS_ON_RECROSS else max(p.vp, p.farthest)
    tx.emit(VictoryPointsScored(seat, points))
    for vp in range(start + 1, p.vp + points + 1):
        _collect(tx, seat, vp)


def _collect(tx: Tx, seat: int, vp: int) -> None:
    resource = tables(tx.state).bonus_spaces.get(space_of(vp))
    if resource is not None and bank_pays(tx.state, 1):
        tx.emit(BonusCollected(seat, space_of(vp), resource))


def push_back(tx: Tx, target: int, by: int) -> None:
    p = tx.state.players[target]
    spaces = max(0, min(D.CASTLE_PUSHBACK, p.vp - D.CASTLE_PUSHBACK_FLOOR))
    tx.emit(MarkerPushedBack(target, by, spaces))
    if not D.BONUS_ON_FORWARD_MOVE_ONLY:
        for vp in range(p.vp - 1, p.vp - spaces - 1, -1):
            _collect(tx, target, vp)


# --- shared checks ------------------------------------------------------------------------------------------


def has(p: Player, resource: Resource, count: int = 1) -> bool:
    return p.resources[RESOURCE_INDEX[resource]] >= count


def missing_inputs(p: Player, card: Card) -> Why:
    spec = D.CARDS[card]
    for r in dict.fromkeys(spec.takes):
        if not has(p, r, spec.takes.count(r)):
            return f"{spec.name} needs {spec.takes.count(r)} {r.value}"
    if p.coins < spec.coins:
        return f"{spec.name} needs {spec.coins} coin(s)"
    return None


def opponent_why(state: State, seat: int, target: int | None, self_allowed: bool = False) -> Why:
    if target is None or not is_seat(state, target):
        return f"choose a target seat from 0 to {state.config.players - 1}"
    if target == seat and not self_allowed:
        return "choose an opponent, not yourself"
    return None


def counted(p: Player, card: Card) -> bool:
    """Whether resolving ``card`` counts as a play for a later Fair (A§4 fair_counts_replayed_cards)."""
    return D.FAIR_COUNTS_REPLAYED_CARDS or card not in p.returned


def resolved(tx: Tx, seat: int) -> Card:
    """Emit the card's resolution (it goes in front of the seat, A-rules l.224); returns it."""
    p = tx.state.players[seat]
    assert p.revealed is not None
    card = p.revealed
    tx.emit(CardResolved(seat, card, counted(p, card)))
    return card


def pay_and_produce(tx: Tx, seat: int, card: Card) -> None:
    spec = D.CARDS[card]
    made = spec.gives[:bank_pays(tx.state, len(spec.gives))] if not spec.takes else spec.gives
    tx.emit(Produced(seat, spec.takes, spec.coins, made))
    score(tx, seat, spec.vp)


# --- one rule per effect ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EffectRule:
    params: frozenset[str]  # the ResolveCard fields this effect asks for
    validate: Callable[[State, ResolveCard], Why]
    apply: Callable[[Tx, ResolveCard], None]
    candidates: Callable[[State, int], Iterator[ResolveCard]]


def _v_produce(state: State, c: ResolveCard) -> Why:
    p = state.players[c.seat]
    assert p.revealed is not None
    return missing_inputs(p, p.revealed)


def _a_produce(tx: Tx, c: ResolveCard) -> None:
    pay_and_produce(tx, c.seat, resolved(tx, c.seat))


def _c_plain(state: State, seat: int) -> Iterator[ResolveCard]:
    yield ResolveCard(seat)


def _v_knight(state: State, c: ResolveCard) -> Why:
    return opponent_why(state, c.seat, c.target) or _v_produce(state, c)


def _a_knight(tx: Tx, c: ResolveCard) -> None:
    """Castle: a Knight for 1 Beer, 1 Sword, 1 Coin: 8 VP, an opponent back 4 (A-rules l.61-64)."""
    assert c.target is not None
    pay_and_produce(tx, c.seat, resolved(tx, c.seat))
    push_back(tx, c.target, c.seat)


def _c_opponents(state: State, seat: int) -> Iterator[ResolveCard]:
    for target in range(state.config.players):
        if target != seat:
            yield ResolveCard(seat, target=target)


def _a_wizard(tx: Tx, c: ResolveCard) -> None:
    """Wizard's Tower: a Wizard for 1 Beer, 1 Potion, 1 Coin: 8 VP, draw 5, discard 3 (A-rules l.128-133)."""
    pay_and_produce(tx, c.seat, resolved(tx, c.seat))
    draw_cards(tx, c.seat, D.WIZARD_DRAW)
    owed = min(D.WIZARD_DISCARD, len(tx.state.players[c.seat].hand))
    if owed:
        tx.emit(DiscardsOwed(c.seat, owed))


def _v_exploration(state: State, c: ResolveCard) -> Why:
    why = opponent_why(state, c.seat, c.target, D.EXPLORATION_MAY_TARGET_SELF)
    if why is None and c.target is not None and not state.players[c.target].hand:
        why = f"seat {c.target} has no card in hand"
    return why


def _a_exploration(tx: Tx, c: ResolveCard) -> None:
    """A random card from the target's hand; the target draws a new one (A-rules l.44-49)."""
    assert c.target is not None
    resolved(tx, c.seat)
    hand = tx.state.players[c.target].hand  # sorted: the draw indexes a sorted sequence
    card = hand[tx.rng.below(len(hand))]
    tx.emit(CardExplored(c.seat, c.target, card, tx.rng.counter))
    draw_cards(tx, c.target, 1)


def _c_exploration(state: State, seat: int) -> Iterator[ResolveCard]:
    for target in range(state.config.players):
        if (target != seat or D.EXPLORATION_MAY_TARGET_SELF) and state.players[target].hand:
            yield ResolveCard(seat, target=target)


def returnable(p: Player) -> tuple[Card, ...]:
    """The played cards Reconstruction may bring back (distinct kinds)."""
    cards = dict.fromkeys(p.played)
    return tuple(c for c in cards if c is not Card.RECONSTRUCTION or D.RECONSTRUCTION_RETURNS_RECONSTRUCTION)


def _v_reconstruction(state: State, c: ResolveCard) -> Why:
    p = state.players[c.seat]
    if c.card is None or c.card not in returnable(p):
        kinds = ", ".join(k.value for k in returnable(p)) or "none"
        return f"choose a card you resolved this turn to return (can: {kinds})"
    return None


def _a_reconstruction(tx: Tx, c: ResolveCard) -> None:
    """Return one card played this turn to the hand (A-rules l.51-54)."""
    assert c.card is not None
    resolved(tx, c.seat)
    tx.emit(CardReturned(c.seat, c.card))


def _c_reconstruction(state: State, seat: int) -> Iterator[ResolveCard]:
    for card in returnable(state.players[seat]):
        yield ResolveCard(seat, card=card)


def fair_coins(p: Player) -> int:
    return D.FAIR_COINS_PER_CARD * p.plays


def _a_fair(tx: Tx, c: ResolveCard) -> None:
    """2 coins per card played from hand this turn, this Fair not counted (A-rules l.56-59)."""
    coins = bank_pays(tx.state, fair_coins(tx.state.players[c.seat]))  # counted before the Fair itself
    resolved(tx, c.seat)
    if coins:
        tx.emit(CoinsTaken(c.seat, coins))


def _v_theft(state: State, c: ResolveCard) -> Why:
    why = opponent_why(state, c.seat, c.target)
    if why is not None or c.target is None:
        return why
    if c.resource is None or D.RESOURCE_LEVELS[c.resource] not in D.THEFT_COST_BY_LEVEL:
        return "Theft takes a level I or level II resource"
    if not has(state.players[c.target], c.resource):
        return f"seat {c.target} has no {c.resource.value}"
    cost = D.THEFT_COST_BY_LEVEL[D.RESOURCE_LEVELS[c.resource]]
    if state.players[c.seat].coins < cost:
        return f"stealing {c.resource.value} costs {cost} coin(s)"
    return None


def _a_theft(tx: Tx, c: ResolveCard) -> None:
    """Pay 1 coin for a level I, 2 for a level II resource of an opponent (A-rules l.135-140)."""
    assert c.target is not None and c.resource is not None
    resolved(tx, c.seat)
    cost = D.THEFT_COST_BY_LEVEL[D.RESOURCE_LEVELS[c.resource]]
    tx.emit(ResourceStolen(c.seat, c.target, c.resource, cost))


def _c_theft(state: State, seat: int) -> Iterator[ResolveCard]:
    coins = state.players[seat].coins
    stealable = [r for r in RESOURCES if D.THEFT_COST_BY_LEVEL.get(D.RESOURCE_LEVELS[r], coins + 1) <= coins]
    for target in range(state.config.players):
        if target != seat:
            for r in stealable:
                if has(state.players[target], r):
                    yield ResolveCard(seat, target=target, resource=r)


def _v_always(state: State, c: ResolveCard) -> Why:
    return None


NO_PARAMS: frozenset[str] = frozenset()
TARGET = frozenset({"target"})
EFFECTS: dict[Effect, EffectRule] = {
    Effect.PRODUCE: EffectRule(NO_PARAMS, _v_produce, _a_produce, _c_plain),
    Effect.KNIGHT: EffectRule(TARGET, _v_knight, _a_knight, _c_opponents),
    Effect.WIZARD: EffectRule(NO_PARAMS, _v_produce, _a_wizard, _c_plain),
    Effect.EXPLORATION: EffectRule(TARGET, _v_exploration, _a_exploration, _c_exploration),
    Effect.RECONSTRUCTION: EffectRule(frozenset({"card"}), _v_reconstruction, _a_reconstruction, _c_reconstruction),
    Effect.FAIR: EffectRule(NO_PARAMS, _v_always, _a_fair, _c_plain),
    Effect.THEFT: EffectRule(frozenset({"target", "resource"}), _v_theft, _a_theft, _c_theft),
}
PARAMS = ("target", "resource", "card")


def rule_of(state: State, seat: int) -> EffectRule:
    card = state.players[seat].revealed
    assert card is not None
    return EFFECTS[D.CARDS[card].effect]


# --- the ResolveCard command ------------------------------------------------------------------------------


def validate_resolve(state: State, c: ResolveCard) -> Why:
    card = state.players[c.seat].revealed
    if card is None:
        return "you have no revealed card to resolve"
    rule = rule_of(state, c.seat)
    extra = [name for name in PARAMS if name not in rule.params and getattr(c, name) is not None]
    if extra:
        return f"{D.CARDS[card].name} takes no {', '.join(extra)}"
    return rule.validate(state, c)


def apply_resolve(tx: Tx, c: ResolveCard) -> None:
    rule_of(tx.state, c.seat).apply(tx, c)


def candidates_resolve(state: State, seat: int) -> Iterator[ResolveCard]:
    if state.players[seat].revealed is None:
        return iter(())
    rule = rule_of(state, seat)
    return (m for m in rule.candidates(state, seat) if rule.validate(state, m) is None)
