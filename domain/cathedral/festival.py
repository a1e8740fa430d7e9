"""The Festival Ground (C-rules l.259-282): the top Event is revealed, always.

A rosette or Monk Event pays at once, like the reward icons (C§5: the same choices: the rosette
into one's own or another knapsack, the Monk into either bag) and is discarded. An order becomes
the one active order, sending the previous one to the discard pile fulfilled or not. Orders are
checked after every step (``flow``): one already met when revealed pays its Blueprint to the
revealer at once, one met later to the seat whose turn it is (C-rules l.273-278), which in this
game is always the seat that met it.
"""
from __future__ import annotations

from domain.cathedral import data as D
from domain.cathedral.common import Tx, blind_draw
from domain.cathedral.model import EventRevealed, RewardsEarned


def reveal(tx: Tx, seat: int) -> None:
    pool = tx.state.event_pool
    if not pool:  # 10 Events and at most 6 Festival placements a game: never reached with C§4.3
        return
    tile = blind_draw(tx, pool)
    spec = D.tables(tx.state.config.rules_version).events[tile]
    replaced = tx.state.order if spec.is_order else None
    tx.emit(EventRevealed(seat, tile, replaced, tx.rng.counter))
    if spec.reward is not None:
        tx.emit(RewardsEarned(seat, (spec.reward,)))
