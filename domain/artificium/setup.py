"""Config and set-up: 2–6 players, 5 coins each, one shuffled draw pile, a random first player."""
from __future__ import annotations

from typing import Any

from domain import codec
from domain.artificium import data as D
from domain.artificium.model import Config, GameStarted
from domain.core import Rejected, RejectKind

CONFIG_FIELDS = frozenset({"edition", "players", "rules_version"})


def config_from_json(data: Any, rules_version: int = D.RULES_VERSION) -> Config:
    """A validated config for a game played by ``rules_version``; a ``rules_version`` field in
    ``data`` (recorded by ``config_to_json``) must name that same version."""
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
    recorded = data.get("rules_version", rules_version)
    if isinstance(recorded, bool) or recorded != rules_version:
        raise Rejected(RejectKind.INVALID_CONFIG, f"rules_version is recorded by the engine: this one plays {rules_version}")
    return Config(players=players, edition=edition, rules_version=rules_version)


def config_to_json(config: Config) -> dict[str, Any]:
    out: dict[str, Any] = codec.to_json(config)
    return out


def setup(config: Config, rng: Any) -> list[Any]:
    """All cards shuffled into one draw pile (A-rules l.154-156); the first player is drawn at
    random (A-rules l.174). Coins and the turn marker are the fold's starting values."""
    deck = rng.shuffled(D.FULL_DECK)
    first = rng.below(config.players)
    return [GameStarted(config=config, deck=deck, first_player=first, draws=rng.counter)]
