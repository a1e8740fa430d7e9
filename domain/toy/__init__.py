"""The toy game: a tiny sealed-bid game, the smallest complete plugin (docs/adding-a-game.md).

Each round the system draws a prize (1–6); every seat bids 1, 2 or 3 in secret; when all have bid,
the system reveals the bids and a seat whose bid is the only highest one scores prize × bid. After
``rounds`` rounds (3 unless configured) the highest score wins, ties shared.

It exercises what the service must get right for any game without depending on a real one:
simultaneous hidden plans (other seats see ``my_bid`` of their own only, and another seat's
``BidPlaced`` with ``bid: null``), random draws recorded in events, SYSTEM steps, a result. It is
registered unlisted (``listed=False``): its contract is tested with every other game's, and the
service offers it only where a process shows it (the service tests do, ``domain.games.show``).

Modules: ``model`` (config, state, commands, events), ``rules`` (set-up, decide, the fold, legal
moves, default moves), ``game`` (views, result, the JSON edges, the schema and ``RULES``).
"""
from domain.toy.game import RULES

__all__ = ["RULES"]
