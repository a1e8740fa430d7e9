"""Artificium (2014, 2–6 players): production chains from simultaneous, sealed card plays.

Modules by game part: ``data`` (cards, resources, prices, the score board), ``model`` (state,
commands, events), ``evolve`` (the fold), ``setup``, ``market`` (Card Market), ``playing``
(sealed steps, reveal, declining), ``trade`` (the bank), ``effects`` (resolving cards, the score
board), ``turn`` (Start and Turn end), ``scoring`` (the final score), ``flow`` (automatic steps),
``dispatch`` (guard, decide, legal moves) and ``game`` (views, JSON, ``RULES``).
"""
from domain.artificium.game import RULES

__all__ = ["RULES"]
