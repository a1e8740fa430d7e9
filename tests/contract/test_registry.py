"""One list of games (domain/games.py), and every other registry derived from it.

Bots, reference data, the events page, the API schema, the benches and the viewer's renderers all
read the plugins; none of them names a game package itself. Adding a game is its own package plus
one line in ``domain.games.PACKAGES`` (docs/adding-a-game.md).
"""
from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from domain import apischema
from domain.bots import bot_names, get_bot
from domain.core import GamePlugin, Rejected, RejectKind
from domain.games import PACKAGES, find_game, for_engine, game_names, get_game, plugins
from replays.reference import reference

ROOT = Path(__file__).resolve().parents[2]
LISTED = [p for p in plugins() if p.listed]


def test_every_package_declares_one_plugin_under_its_own_name() -> None:
    assert [f"domain.{p.name}" for p in plugins()] == list(PACKAGES)
    assert all(isinstance(p, GamePlugin) for p in plugins())


def test_the_service_offers_the_listed_games_and_an_unlisted_one_only_when_shown() -> None:
    offered = set(game_names())
    assert {p.name for p in LISTED} <= offered
    for plugin in plugins():
        if not plugin.listed and plugin.name not in offered:
            assert find_game(plugin.name) is None


@pytest.mark.parametrize("plugin", LISTED, ids=lambda p: p.name)
def test_bots_come_from_the_plugin(plugin: GamePlugin) -> None:  # type: ignore[type-arg]
    own = plugin.bots()
    assert set(bot_names(plugin.name)) == {"random", *own}
    for name, policy in own.items():
        assert get_bot(name, plugin.name) is policy


@pytest.mark.parametrize("plugin", LISTED, ids=lambda p: p.name)
def test_reference_data_and_api_schema_come_from_the_plugin(plugin: GamePlugin) -> None:  # type: ignore[type-arg]
    assert reference(plugin.name) == (plugin.reference() if plugin.reference else None)
    assert apischema.find(plugin.name, get_game(plugin.name)) is plugin.api_schema


def test_the_events_page_has_one_section_per_listed_game() -> None:
    from tests.test_events_doc import GAMES

    assert [title for title, _, _ in GAMES[:len(LISTED)]] == [p.title for p in LISTED]


def test_the_viewer_has_one_renderer_per_game_that_names_one() -> None:
    """replays/static/renderers.js maps renderer names to modules; the plugin names its renderer."""
    text = (ROOT / "replays" / "static" / "renderers.js").read_text(encoding="utf-8")
    block = text[text.index("const MODULES = {"):text.index("};", text.index("const MODULES = {"))]
    modules = dict(re.findall(r'^\s*(\w+): \(\) => import\("\./([\w.-]+)"\)', block, re.M))
    assert set(modules) == {p.renderer for p in LISTED if p.renderer}
    for name in modules.values():
        assert (ROOT / "replays" / "static" / name).is_file(), name


@pytest.mark.parametrize("path", ["domain/bots/__init__.py", "replays/reference.py", "tests/test_events_doc.py",
                                  "bench/selfplay.py", "domain/apischema.py"])
def test_derived_registries_name_no_game_package(path: str) -> None:
    """A registry that imported ``domain.<game>`` itself would be a second list to keep in step."""
    text = (ROOT / path).read_text(encoding="utf-8")
    for plugin in plugins():
        assert not re.search(rf"\bdomain\.{plugin.name}\b|from domain import .*\b{plugin.name}\b", text), \
            (path, plugin.name)


@pytest.mark.parametrize("plugin", plugins(), ids=lambda p: p.name)
def test_a_plugin_pickles_by_reference_to_the_registered_object(plugin: GamePlugin) -> None:  # type: ignore[type-arg]
    """OpenSpiel pickles states (adapters/openspiel.py): a plugin travels as its name and engine
    version, since some of its functions (memoised queries) cannot be pickled by name."""
    assert pickle.loads(pickle.dumps(plugin)) is plugin
    older = for_engine(plugin, "orleans-3") if plugin.name == "orleans" else plugin
    assert pickle.loads(pickle.dumps(older)) is older


@pytest.mark.parametrize("plugin", plugins(), ids=lambda p: p.name)
def test_an_unknown_move_names_only_what_a_seat_may_post(plugin: GamePlugin) -> None:  # type: ignore[type-arg]
    """Issue 25: the 422 for an unknown move type listed the service's own steps (ApplyTimeout,
    EndGame, ...) among the moves a seat could send."""
    with pytest.raises(Rejected) as refused:
        plugin.command_from_json({"type": "NoSuchMove"}, 0)
    assert refused.value.kind is RejectKind.UNKNOWN_MOVE
    known = set(str(refused.value).split("; known: ", 1)[1].split(", "))
    assert known == set(plugin.codec.commands.by_name) - plugin.codec.system_names and known
    with pytest.raises(Rejected) as as_service:  # the service itself (a replay, a worker) still sees every type
        plugin.command_from_json({"type": "NoSuchMove"})
    assert plugin.codec.system_names <= set(str(as_service.value).split("; known: ", 1)[1].split(", "))
