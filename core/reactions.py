"""What follows a game's append: the reactions, called in order with the :class:`Change`.

The command handler (``core.commands``) and game creation (``core.games``) append; then every
reaction of the service's list hears of it. The list, in the order the service calls it:

- :class:`LiveIndex`: the live-game index and key retention (``core.retention``);
- :class:`LobbyIndex`: the lobby's sorted sets (``core.lobby``), when a status or the meta changed;
- :class:`Feeds`: the streams of the game's registered bots and bound accounts (``core.botfeed``);
- :class:`Work`: the work list, the advance callback (a worker plays SYSTEM, bots, clocks) and
  the tournament hook (``on_finished``).

A reaction runs after the append has been stored: it must not undo or refuse it.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import redis

from core.botfeed import AccountFeed, BotFeed
from core.game import Game
from core.lobby import Lobby
from core.retention import LiveGames
from core.store import StoredEntry
from core.worklist import WorkList

log = logging.getLogger("core.games")


@dataclass(frozen=True)
class Change:
    """One append: the game before it (None: just created), after it, and its entries."""

    before: Game | None
    after: Game
    entries: tuple[StoredEntry, ...]
    meta_changed: bool = False  # the meta hash changed beyond the version (a status, a joined seat, ...)

    @property
    def created(self) -> bool:
        return self.before is None


class Reaction(Protocol):
    def __call__(self, change: Change) -> None: ...


@dataclass(frozen=True)
class LiveIndex:
    live: LiveGames

    def __call__(self, change: Change) -> None:
        if change.created:
            return  # the creator reserved its place in the index before the game was written
        if change.after.finished:
            self.live.finished(change.after.game_id)
        else:
            self.live.touch(change.after.game_id)


@dataclass(frozen=True)
class LobbyIndex:
    lobby: Lobby

    def __call__(self, change: Change) -> None:
        game = change.after
        if change.created:
            info = game.info
            self.lobby.add(game.game_id, info.game, info.config.get("edition"), game.status(), info.created,
                           info.seats)
        elif change.meta_changed:
            self.lobby.reindex(game.game_id)


@dataclass(frozen=True)
class Feeds:
    feed: BotFeed
    accounts: AccountFeed

    def __call__(self, change: Change) -> None:
        """The bots' and accounts' streams hear of the append; a failure there must not undo a stored move."""
        after = change.after
        try:
            self.feed.after_append(change.before, after, change.entries)
            if after.info.accounts:
                self.accounts.after_append(change.before, after, change.entries)
        except redis.RedisError:
            log.exception("could not tell the bots and accounts of game %s about version %d", after.game_id,
                          after.version)


@dataclass
class Work:
    """What a worker is to do next: nothing once the game is over (its tournament hears of it),
    else an advance when a machine or a clock is to act."""

    worklist: WorkList
    advance: Callable[[str, int], None] | None = None
    on_finished: Callable[[Game], None] | None = None

    def __call__(self, change: Change) -> None:
        game = change.after
        if game.finished:
            self.worklist.drop(game.game_id)
            if self.on_finished is not None and game.info.tournament:
                self.on_finished(game)
        elif self.advance is not None and game.wants_worker():
            self.advance(game.game_id, game.version)
