"""The printed parts of each game that the viewer draws but no view carries.

A view says where the pieces are; it does not repeat the board they stand on: the names of the
places and cards, the length of a track, the bonus of a track space, which hour-glass stack a
round draws from. The viewer reads these from ``GET /api/v1/reference/{game}`` (service/viewer_api.py).
Each game declares them as its plugin's ``reference`` (``domain.core.GamePlugin``), built from its
rules tables, so a correction in ``domain/<game>/data.py`` reaches the page without a second copy
in JavaScript.

``reference(name)`` returns None for a game that is not offered or declares no reference data (the
viewer then draws what the view alone shows).
"""
from __future__ import annotations

from functools import cache
from typing import Any

from domain.games import find_game


@cache
def reference(name: str) -> dict[str, Any] | None:
    """The game's printed reference data (see the module docstring), or None."""
    plugin = find_game(name)
    return None if plugin is None or plugin.reference is None else plugin.reference()
