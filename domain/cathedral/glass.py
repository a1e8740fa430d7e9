"""Glass Foundry and Glass Painting, Monks only (C-rules l.247-257).

The Foundry takes a rosette from the supply into the knapsack (a full knapsack puts an item back
first, C-rules l.173-180); the Painting gives up a rosette from the knapsack for a Blueprint.
Painting needs a Blueprint tile left to turn (C§5: nobody trades a rosette for nothing).
"""
from __future__ import annotations

from domain.cathedral.common import Tx, Why, check_put_back
from domain.cathedral.data import Action, Item, Reward
from domain.cathedral.model import (
    ActionFinished,
    GlassMade,
    GlassPainted,
    ItemPutBack,
    MakeGlass,
    PaintGlass,
    RewardsEarned,
    State,
)


def _on(state: State, action: Action) -> Why:
    pending = state.pending
    if pending is None or pending.action is not action:
        return f"this needs a tile on the {action.value.replace('_', ' ')}"
    return None


def validate_make(state: State, c: MakeGlass) -> Why:
    why = _on(state, Action.GLASS_FOUNDRY)
    if why:
        return why
    if state.supply_rosettes <= 0:
        return "no Glass rosette is left in the supply"
    return check_put_back(state, c.seat, c.put_back)


def apply_make(tx: Tx, c: MakeGlass) -> None:
    if c.put_back is not None:
        tx.emit(ItemPutBack(c.seat, c.put_back))
    tx.emit(GlassMade(c.seat))
    tx.emit(ActionFinished(c.seat))


def validate_paint(state: State, c: PaintGlass) -> Why:
    why = _on(state, Action.GLASS_PAINTING)
    if why:
        return why
    if Item.ROSETTE not in state.knapsacks[c.seat]:
        return "you have no Glass rosette to give up"
    if not state.blueprint_pool:
        return "no Blueprint tile is left"
    return None


def apply_paint(tx: Tx, c: PaintGlass) -> None:
    tx.emit(GlassPainted(c.seat))
    tx.emit(RewardsEarned(c.seat, (Reward.BLUEPRINT,)))
    tx.emit(ActionFinished(c.seat))
