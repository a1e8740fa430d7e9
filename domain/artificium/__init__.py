"""Artificium (2014, 2–6 players): production chains from simultaneous, sealed card plays.

Modules by game part: ``data`` (cards, resources, prices, the score board), ``model`` (state,
commands, events), ``evolve`` (the fold), ``setup``, ``market`` (Card Market), ``playing``
(sealed steps, reveal, declining), ``trade`` (the bank), ``effects`` (resolving cards, the score
board), ``turn`` (Start and Turn end), ``scoring`` (the final score), ``flow`` (automatic steps),
``dispatch`` (guard, decide, legal moves) and ``game`` (views, JSON, ``RULES``).

Default move (a seat's clock ran out, or its HTTP bot gave no valid answer): the seat keeps what
it has. Card Market: pass. Sealed step: the first card of its hand in card-list order (the only
way the rules let a seat sit a step out is to reveal a card and take it back). Its revealed card:
take it back and pass for the round, with no trade. Wizard's Tower discards: the first card of
its hand. Turn end: finish, selling nothing.
"""
from domain.artificium.game import LEGACY_RULES, RULES

__all__ = ["LEGACY_RULES", "RULES"]
