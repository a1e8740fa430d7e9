"""The Cathedral of Orléans (dlp games, 2-4 players): a cooperative bag-building game.

Modules by game part: ``data`` (components, the map, action spaces, tiles; reconstructions
marked), ``model`` (state, commands, events), ``evolve`` (the fold), ``setup``, ``turn`` (draw,
place, rest), ``travel`` (Cart and Boat), ``market`` (deliveries, Workshops, the Hour Glass),
``glass`` (Glass Foundry and Painting), ``festival`` (Events and orders), ``rewards``, ``rounds``
(the Bell Tower, the end of a round and of the game), ``moves`` (validators, appliers and
candidates per command), ``flow`` (automatic steps), ``dispatch`` (guard, decide, legal moves,
timeouts) and ``game`` (views, result, JSON, ``RULES``).
"""
from domain.cathedral.game import LEGACY_RULES, RULES, RULES_2

__all__ = ["LEGACY_RULES", "RULES", "RULES_2"]
