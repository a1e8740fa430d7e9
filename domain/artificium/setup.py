"""Config and set-up: 2–6 players, 5 coins each, one shuffled draw pile, a random first player."""
from __future__ import annotations

from typing import Any

from domain import codec
from domain.artificium import data as D
from domain.artificium.model import Config, GameStarted
from domain.core import Rejected, RejectKind

CONFIG_FIELDS = frozenset({"edition", "players"})


def config_from_json(data: Any) -> Config:
    if not isinstance(data, dict):
        raise Rejected(RejectKind.INVALID_CONFIG, "config must be an object")
    unknown = sorted(set(data) - CONFIG_FIELDS)
    if unknown:
        raise Rejected(RejectKind.INVALID_CONFIG, f"unknown config field(s): {', '.join(unknown)}")
    try:
        edition = D.Edition(data.get("edition", D.Edition.STANDARD.value))
    except ValueError:
        raise Rejected(RejectKind.INVALID_CONFIG, "edition must be 'standard'") from None
    players = data.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or players not in D.PLAYERS:
        raise Rejected(RejectKind.INVALID_CONFIG, f"Artificium is for {D.PLAYERS[0]}–{D.PLAYERS[-1]} players")
    return Config(players=players, edition=edition)


def config_to_json(config: Config) -> dict[str, Any]:
    out: dict[str, Any] = codec.to_json(config)
    return out


def setup(config: Config, rng: Any) -> list[Any]:
    """All cards shuffled into one draw pile (A-rules l.154-156); the first player is drawn at
    random (A-rules l.174). Coins and the turn marker are the fold's starting values."""
    deck = rng.shuffled(D.FULL_DECK)
    first = rng.below(config.players)
    return [GameStarted(config=config, deck=deck, first_player=first, draws=rng.counter)]
