"""The rules tables against the rule text's counts, and every citation against docs/cathedral-data.md."""
from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from domain.cathedral import data as D
from domain.cathedral.data import Action, Follower, Item, Reward, RouteKind, Space

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "cathedral-data.md").read_text(encoding="utf-8")
CITING = sorted([*(ROOT / "domain" / "cathedral").glob("*.py"), *(ROOT / "domain" / "bots").glob("cathedral_*.py"),
                 *(ROOT / "tests" / "cathedral").glob("*.py")])


def test_component_counts_match_the_rulebook() -> None:
    """C-rules l.19, l.21, l.23-26, l.28-29, l.31, l.33, l.35."""
    assert sum(D.FOLLOWERS_IN_GAME.values()) == 34
    assert sum(D.GOODS_IN_GAME.values()) == 37 and D.ROSETTES == 10
    assert sum(D.BLUEPRINTS.values()) == D.BLUEPRINT_COUNT == 12
    assert len(D.Workshop) == 8 and len(D.HourGlass) == 6 and len(D.EventTile) == 10 and D.SECTIONS == 8


def test_bags_and_supply_hold_every_follower() -> None:
    """C-rules l.66-72, l.74, l.83-86: in either variant bags plus supply make the 34 tiles."""
    for edition in D.Edition:
        total = Counter(D.bag_contents(D.Bag.RED, edition)) + Counter(D.bag_contents(D.Bag.BLUE, edition))
        total[Follower.MONK] += D.supply_monks(edition)
        assert total == Counter(D.FOLLOWERS_IN_GAME)


def test_the_reconstructed_map_is_connected_and_has_fifteen_goods_spaces() -> None:
    """C§4.1: 8 places, 13 routes, 15 Goods spaces and the rosette space between Tours and Bourges."""
    assert len(D.ROUTES) == 13 and len(D.GOODS_SPOTS) == 15 and len(D.SPOTS) == 16
    assert {D.ROUTES[D.SPOTS[D.ROSETTE_SPOT].route].a, D.ROUTES[D.SPOTS[D.ROSETTE_SPOT].route].b} == {
        D.Place.TOURS, D.Place.BOURGES}
    reached, frontier = {D.START_PLACE}, [D.START_PLACE]
    while frontier:
        here = frontier.pop()
        for spec in D.ROUTES.values():
            other = spec.other_end(here)
            if other is not None and other not in reached:
                reached.add(other)
                frontier.append(other)
    assert reached == set(D.Place)
    assert {s.kind for s in D.ROUTES.values()} == set(RouteKind)


def test_the_reconstructed_action_spaces_follow_the_rule_text() -> None:
    """C§4.3 within the rule text: two Festival Grounds take any tile, the glass actions take Monks
    only, and every kind of follower has somewhere to go besides the Bell Tower."""
    by_action = Counter(s.action for s in D.SPACES.values())
    assert by_action[Action.BELL_TOWER] == 1 and by_action[Action.FESTIVAL_GROUND] == 2
    assert all(s.monk_only for s in D.SPACES.values() if s.action in (Action.GLASS_FOUNDRY, Action.GLASS_PAINTING))
    for follower in Follower:
        assert sum(s.accepts(follower) for sp, s in D.SPACES.items() if sp is not Space.BT) >= 4


def test_the_reconstructed_orders_ask_only_for_items_and_pay_only_reward_icons() -> None:
    for spec in [*D.WORKSHOPS.values(), *D.HOUR_GLASSES.values()]:
        assert spec.needs and set(spec.needs) <= set(Item) and set(spec.rewards) <= set(Reward)
    assert sum(1 for e in D.EVENTS.values() if e.is_order) == 5, "about half are orders (C§2 reviews)"


# --- reconstructions and citations resolve in docs/cathedral-data.md ----------------------------------


def reconstruction_comments() -> set[str]:
    """Names of the constants whose line in data.py carries a RECONSTRUCTION mark."""
    source = (ROOT / "domain" / "cathedral" / "data.py").read_text(encoding="utf-8")
    lines = source.splitlines()
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            here = lines[node.lineno - 1] + (lines[node.lineno - 2] if node.lineno > 1 else "")
            if "RECONSTRUCTION" in here:
                names.add(node.target.id)
    return names


def test_every_reconstructed_value_is_named_marked_and_documented() -> None:
    assert reconstruction_comments() == set(D.RECONSTRUCTED) - {"SPOTS"}  # SPOTS derives from ROUTES
    for name in D.RECONSTRUCTED:
        assert hasattr(D, name), name
        assert f"`{name}`" in DOC, f"{name} is not documented in docs/cathedral-data.md"


def cited() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Every ``C-rules l.N`` (and the ``l.M`` that follow it on its line) and every ``C§n``."""
    rules: dict[str, list[str]] = {}
    sections: dict[str, list[str]] = {}
    for path in CITING:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            start = line.find("C-rules")
            if start >= 0:
                for ref in re.findall(r"\bl\.(\d+(?:-\d+)?)", line[start:]):
                    rules.setdefault(ref, []).append(where)
            for ref in re.findall(r"C§(\d+(?:\.\d+)?)", line):
                sections.setdefault(ref, []).append(where)
    return rules, sections


def test_every_rulebook_citation_has_an_entry_in_the_line_index() -> None:
    rules, _ = cited()
    assert len(rules) > 50
    missing = {ref: where[0] for ref, where in rules.items() if f"| C-rules l.{ref} |" not in DOC}
    assert not missing, f"cited but not in the rulebook line index: {missing}"


def test_every_facts_section_citation_has_a_heading() -> None:
    _, sections = cited()
    headings = set(re.findall(r"^#+ C§(\d+(?:\.\d+)?) ", DOC, flags=re.M))
    missing = {ref: where[0] for ref, where in sections.items() if ref not in headings}
    assert not missing, f"cited but no heading in docs/cathedral-data.md: {missing}"


def test_the_line_index_cites_real_lines_in_order() -> None:
    entries = re.findall(r"^\| C-rules l\.(\d+)(?:-(\d+))? \|", DOC, flags=re.M)
    assert entries and all(int(b or a) >= int(a) for a, b in entries)
    assert [int(a) for a, _ in entries] == sorted(int(a) for a, _ in entries)
    assert max(int(b or a) for a, b in entries) <= 374  # the rulebook text has 374 lines


def test_every_view_names_its_reconstructed_keys() -> None:
    """C§4: the map, the action spaces and the tiles' printed contents are reconstructions; every
    view (a seat's and a spectator's) says which of its keys carry them, as the reference API
    lists the tables (data.RECONSTRUCTED)."""
    from domain.cathedral import RULES
    from domain.games import fold
    from domain.rng import Rng

    config = RULES.config_from_json({"players": 3})
    state = fold(RULES, RULES.setup(config, Rng(b"labels", "labels", 0)))
    for seat in (0, None):
        view = RULES.view(state, seat)
        assert view["reconstructed"] == ["board", "workshops", "hour_glass", "events", "blueprints"]
        assert all(key in view for key in view["reconstructed"])
    assert RULES.reference()["reconstructed"] == sorted(D.RECONSTRUCTED)
