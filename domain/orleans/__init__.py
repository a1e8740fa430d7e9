"""Orléans (classic 2014 for 2–4 players, 2023 edition for 2–5).

Where a rule lives, by game part (the same skeleton as every game package):

- ``data``: the rules tables (map, tracks, places, deeds, hour glass tiles, counts per player
  count and edition), each value citing its facts row.
- ``model``: state, commands and events (frozen dataclasses); ``evolve``: the fold.
- ``setup``: the config, the opening events, the expert place-tile exclusion.
- ``followers``: phase 2 census; phase 3 recalling and drawing followers, loading the
  Gunpowder Tower.
- ``planning``: phase 4, sealed placements on action spaces, taking them back, the reveal.
- ``actions``: phase 5, taking an action or passing, turn order, technology tiles after passing.
- ``places``: what each place does (Farm House … Bathhouse, Pharmacy, Laboratory, Town Hall).
- ``tracks``: recruiting characters and each track's reward; the Village; a Trader's place tile.
- ``travel``: Ship, Wagon and Horse Wagon on the map, and the good taken on the way.
- ``deeds``: beneficial deeds from the Town Hall or the Gunpowder Tower, and their citizens.
- ``events``: the hour glass, phase 1 reveal and phase 6 events (Income, Harvest, Taxes,
  Trading Day, Plague; Pilgrimage), the Sacristy's exemption.
- ``torture``: paying what one cannot (bankruptcy) and the items given up.
- ``scoring``: phase 7 start player, the end of the game, scores and ranks.
- ``queries``: read-only questions every module asks; ``common``: the transaction and payouts;
  ``memo``: the speed machinery, all in one module (derived values kept on frozen states, the
  fold's copies, the constructors; docs/performance.md).
- ``dispatch``: guards, who acts, decide/step, legal moves and timeouts' default moves.
- ``game``: views (what each seat may see), the JSON edges and ``RULES``, the plugin.
"""
from domain.orleans.game import RULES

__all__ = ["RULES"]
