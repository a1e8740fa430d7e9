"""The fold: ``evolve(state, event) -> state``. Total; no validation, no randomness."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain.artificium import data as D
from domain.artificium.data import Card, Resource
from domain.artificium.model import (
    RESOURCE_INDEX,
    BonusCollected,
    CardCommitted,
    CardDeclined,
    CardDiscarded,
    CardExchanged,
    CardExplored,
    CardResolved,
    CardReturned,
    CardsDrawn,
    CardsRevealed,
    CardTakenBack,
    CoinsPaid,
    CoinsTaken,
    DeckReshuffled,
    DiscardsOwed,
    EverythingSold,
    GameEnded,
    GameStarted,
    HandDiscarded,
    MarkerPushedBack,
    MarketClosed,
    MarketDealt,
    MarketPassed,
    MarketTurnMoved,
    Phase,
    PhaseBegan,
    PlayedCardsDiscarded,
    Player,
    PlayPassed,
    Produced,
    ResolutionEnded,
    ResourceBought,
    ResourceSold,
    ResourceStolen,
    State,
    StepBegan,
    TimeoutApplied,
    TurnFinished,
    TurnStarted,
    VictoryPointsScored,
    sort_cards,
)
from domain.engine import FoldRules

# --- small tuple helpers ------------------------------------------------------------------------------


def without(cards: tuple[Card, ...], removed: tuple[Card, ...]) -> tuple[Card, ...]:
    """``cards`` less one copy of each of ``removed`` (each must be there)."""
    out = list(cards)
    for card in removed:
        out.remove(card)
    return tuple(out)


def counts_add(counts: tuple[int, ...], resources: tuple[Resource, ...], sign: int) -> tuple[int, ...]:
    out = list(counts)
    for r in resources:
        out[RESOURCE_INDEX[r]] += sign
    return tuple(out)


def with_player(state: State, seat: int, **changes: Any) -> State:
    players = state.players
    return replace(state, players=players[:seat] + (replace(players[seat], **changes),) + players[seat + 1:])


# --- the fold ---------------------------------------------------------------------------------------------


def evolve(state: State | None, event: Any) -> State:
    if isinstance(event, GameStarted):
        return _started(event)
    if state is None:
        raise TypeError(f"a game starts with GameStarted, not {event!r}")
    return FOLD.fold(state, event)


def _started(e: GameStarted) -> State:
    n = e.config.players
    return State(config=e.config, players=(Player(),) * n, deck=e.deck,
                 bank=D.TOKEN_POOL - n * D.STARTING_COINS, first_player=e.first_player, draws=e.draws)


def _new_turn(p: Player) -> Player:
    """A seat's per-turn fields back to their start values; hand, coins, resources and VP stay."""
    return replace(p, played=(), returned=(), plays=0, exchanges=0, redrew=False, market_passed=False,
                   passed=False, finished=False, committed=None, revealed=None)


def _turn_started(s: State, e: TurnStarted) -> State:
    players = tuple(_new_turn(p) for p in s.players)
    return replace(s, turn=e.turn, first_player=e.first_player, players=players, step=0, queue=(),
                   market_turn=None, owed_discards=0)


def _phase(s: State, e: PhaseBegan) -> State:
    return replace(s, phase=e.phase)


def _reshuffled(s: State, e: DeckReshuffled) -> State:
    return replace(s, deck=s.deck + e.deck, discard=(), draws=e.draws)


def _drawn(s: State, e: CardsDrawn) -> State:
    p = s.players[e.seat]
    s = replace(s, deck=s.deck[len(e.cards):])
    return with_player(s, e.seat, hand=sort_cards(p.hand + e.cards))


def _dealt(s: State, e: MarketDealt) -> State:
    return replace(s, deck=s.deck[len(e.cards):], market=sort_cards(e.cards))


def _market_turn(s: State, e: MarketTurnMoved) -> State:
    return replace(s, market_turn=e.seat)


def _exchanged(s: State, e: CardExchanged) -> State:
    p = s.players[e.seat]
    s = replace(s, market=sort_cards(without(s.market, (e.taken,)) + (e.given,)))
    return with_player(s, e.seat, hand=sort_cards(without(p.hand, (e.given,)) + (e.taken,)),
                       exchanges=p.exchanges + 1)


def _hand_discarded(s: State, e: HandDiscarded) -> State:
    p = s.players[e.seat]
    s = replace(s, discard=sort_cards(s.discard + e.cards))
    if e.redraw:
        return with_player(s, e.seat, hand=without(p.hand, e.cards), redrew=True, exchanges=p.exchanges + 1)
    return with_player(s, e.seat, hand=without(p.hand, e.cards))


def _market_passed(s: State, e: MarketPassed) -> State:
    return with_player(s, e.seat, market_passed=True)


def _market_closed(s: State, e: MarketClosed) -> State:
    return replace(s, market=(), discard=sort_cards(s.discard + e.discarded), market_turn=None)


def _play_passed(s: State, e: PlayPassed) -> State:
    return with_player(s, e.seat, passed=True)


def _step(s: State, e: StepBegan) -> State:
    return replace(s, step=e.step, queue=())


def _committed(s: State, e: CardCommitted) -> State:
    p = s.players[e.seat]
    return with_player(s, e.seat, hand=without(p.hand, (e.card,)), committed=e.card)


def _revealed(s: State, e: CardsRevealed) -> State:
    for seat, card in zip(e.order, e.cards):
        s = with_player(s, seat, committed=None, revealed=card)
    return replace(s, queue=e.order, phase=Phase.RESOLVE)


def _coins_paid(s: State, e: CoinsPaid) -> State:
    s = with_player(s, e.seat, coins=s.players[e.seat].coins - e.coins)
    return replace(s, bank=s.bank + e.coins)


def _coins_taken(s: State, e: CoinsTaken) -> State:
    s = with_player(s, e.seat, coins=s.players[e.seat].coins + e.coins)
    return replace(s, bank=s.bank - e.coins)


def _bought(s: State, e: ResourceBought) -> State:
    p = s.players[e.seat]
    s = with_player(s, e.seat, coins=p.coins - e.price, resources=counts_add(p.resources, (e.resource,), 1))
    return replace(s, bank=s.bank + e.price - 1)


def _sold(s: State, e: ResourceSold) -> State:
    p = s.players[e.seat]
    s = with_player(s, e.seat, coins=p.coins + e.price, resources=counts_add(p.resources, (e.resource,), -1))
    return replace(s, bank=s.bank + 1 - e.price)


def _resolved(s: State, e: CardResolved) -> State:
    p = s.players[e.seat]
    returned = without(p.returned, (e.card,)) if e.card in p.returned else p.returned
    return with_player(
        s, e.seat, revealed=None, played=p.played + (e.card,), returned=returned, plays=p.plays + e.counted,
        knights=p.knights + (e.card is Card.CASTLE), wizards=p.wizards + (e.card is Card.WIZARDS_TOWER),
    )


def _produced(s: State, e: Produced) -> State:
    p = s.players[e.seat]
    resources = counts_add(counts_add(p.resources, e.spent, -1), e.made, 1)
    s = with_player(s, e.seat, resources=resources, coins=p.coins - e.coins)
    return replace(s, bank=s.bank + len(e.spent) + e.coins - len(e.made))


def _scored(s: State, e: VictoryPointsScored) -> State:
    p = s.players[e.seat]
    vp = p.vp + e.points
    return with_player(s, e.seat, vp=vp, farthest=max(p.farthest, vp))


def _bonus(s: State, e: BonusCollected) -> State:
    p = s.players[e.seat]
    s = with_player(s, e.seat, resources=counts_add(p.resources, (e.resource,), 1))
    return replace(s, bank=s.bank - 1)


def _pushed_back(s: State, e: MarkerPushedBack) -> State:
    return with_player(s, e.seat, vp=s.players[e.seat].vp - e.spaces)


def _owed(s: State, e: DiscardsOwed) -> State:
    return replace(s, owed_discards=e.count)


def _discarded(s: State, e: CardDiscarded) -> State:
    p = s.players[e.seat]
    s = replace(s, discard=sort_cards(s.discard + (e.card,)), owed_discards=max(0, s.owed_discards - 1))
    return with_player(s, e.seat, hand=without(p.hand, (e.card,)))


def _explored(s: State, e: CardExplored) -> State:
    s = with_player(s, e.target, hand=without(s.players[e.target].hand, (e.card,)))
    s = replace(s, draws=e.draws)
    return with_player(s, e.seat, hand=sort_cards(s.players[e.seat].hand + (e.card,)))


def _returned(s: State, e: CardReturned) -> State:
    p = s.players[e.seat]
    return with_player(s, e.seat, played=without(p.played, (e.card,)), hand=sort_cards(p.hand + (e.card,)),
                       returned=p.returned + (e.card,))


def _stolen(s: State, e: ResourceStolen) -> State:
    t = s.players[e.target]
    s = with_player(s, e.target, resources=counts_add(t.resources, (e.resource,), -1))
    p = s.players[e.seat]
    s = with_player(s, e.seat, resources=counts_add(p.resources, (e.resource,), 1), coins=p.coins - e.coins)
    return replace(s, bank=s.bank + e.coins)


def _declined(s: State, e: CardDeclined) -> State:
    p = s.players[e.seat]
    s = replace(s, discard=sort_cards(s.discard + (e.card,)))
    return with_player(s, e.seat, revealed=None, plays=p.plays + e.counted)


def _taken_back(s: State, e: CardTakenBack) -> State:
    p = s.players[e.seat]
    return with_player(s, e.seat, revealed=None, hand=sort_cards(p.hand + (e.card,)))


def _resolution_ended(s: State, e: ResolutionEnded) -> State:
    return replace(s, queue=s.queue[1:])


def _played_discarded(s: State, e: PlayedCardsDiscarded) -> State:
    players = tuple(replace(p, played=()) for p in s.players)
    return replace(s, players=players, discard=sort_cards(s.discard + e.cards))


def _turn_finished(s: State, e: TurnFinished) -> State:
    return with_player(s, e.seat, finished=True)


def _sold_everything(s: State, e: EverythingSold) -> State:
    p = s.players[e.seat]
    resources = tuple(have - sold for have, sold in zip(p.resources, e.resources))
    s = with_player(s, e.seat, resources=resources, coins=p.coins + e.coins)
    return replace(s, bank=s.bank + sum(e.resources) - e.coins)


def _timeout(s: State, e: TimeoutApplied) -> State:
    return s


def _ended(s: State, e: GameEnded) -> State:
    return replace(s, phase=Phase.FINISHED, market_turn=None, queue=())


FOLD = FoldRules[State]("an Artificium", {
    TurnStarted: _turn_started, PhaseBegan: _phase, DeckReshuffled: _reshuffled, CardsDrawn: _drawn,
    MarketDealt: _dealt, MarketTurnMoved: _market_turn, CardExchanged: _exchanged,
    HandDiscarded: _hand_discarded, MarketPassed: _market_passed, MarketClosed: _market_closed,
    PlayPassed: _play_passed, StepBegan: _step, CardCommitted: _committed, CardsRevealed: _revealed,
    CoinsPaid: _coins_paid, CoinsTaken: _coins_taken, ResourceBought: _bought, ResourceSold: _sold,
    CardResolved: _resolved, Produced: _produced, VictoryPointsScored: _scored, BonusCollected: _bonus,
    MarkerPushedBack: _pushed_back, DiscardsOwed: _owed, CardDiscarded: _discarded, CardExplored: _explored,
    CardReturned: _returned, ResourceStolen: _stolen, CardDeclined: _declined, CardTakenBack: _taken_back,
    ResolutionEnded: _resolution_ended, PlayedCardsDiscarded: _played_discarded, TurnFinished: _turn_finished,
    EverythingSold: _sold_everything, TimeoutApplied: _timeout, GameEnded: _ended,
})
