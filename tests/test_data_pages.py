"""The data pages in docs/ and the data modules agree, table by table.

docs/orleans-data.md and docs/artificium-data.md are the reference the engine's numbers cite. When a
value is corrected in a data module, the page must say the same, and the other way round; these
tests compare the tables most likely to drift (the map, the tracks, the cards, prices and bonus
spaces) with the frozen data.
"""
from __future__ import annotations

import re
from pathlib import Path

from domain.artificium import data as A
from domain.orleans import data as O

DOCS = Path(__file__).resolve().parents[1] / "docs"


def table_rows(page: str, heading: str) -> list[list[str]]:
    """The body rows of the first table under ``heading`` (cells stripped, header and rule dropped)."""
    text = (DOCS / page).read_text(encoding="utf-8")
    section = text[text.index(heading):]
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[2:]


def _number(cell: str) -> int:
    """The number a cell starts with ("52 (all)" -> 52)."""
    match = re.match(r"\d+", cell.strip())
    assert match, f"no number in {cell!r}"
    return int(match.group(0))


# --- Orléans ----------------------------------------------------------------------------------------

def _town_ids() -> dict[str, str]:
    rows = table_rows("orleans-data.md", "### F§1.1")
    return {re.sub(r" \(.*", "", row[1]): row[2].strip("`") for row in rows}


def test_the_town_table_is_the_engines_town_list() -> None:
    assert list(_town_ids().values()) == list(O.TOWNS)


def test_the_connection_table_is_the_engines_map() -> None:
    towns = _town_ids()
    documented = [(row[0], towns[row[1]], towns[row[2]], O.Route(row[3]), None if row[5] == "–" else int(row[5]),
                   int(row[4])) for row in table_rows("orleans-data.md", "### F§1.2")]
    engine = [(c.id, c.a, c.b, c.route, c.mark, 1 if c.mark is None else 2) for c in O.CONNECTIONS]
    assert documented == engine


def test_the_goods_space_totals_match_the_map() -> None:
    rows = table_rows("orleans-data.md", "### F§1.3")
    assert {_number(row[0]): _number(row[1]) for row in rows} == {n: len(O.goods_spaces(n)) for n in (2, 3, 4, 5)}
    assert {_number(row[0]): _number(row[3]) for row in rows} == dict(O.GOODS_REMOVED)


def test_the_track_tables_are_the_engines_tracks() -> None:
    def values(heading: str) -> list[str]:
        return table_rows("orleans-data.md", heading)[0][1:]

    assert [g.lower() for g in values("### F§2.1")] == [g.value for g in O.FARMER_TRACK_GOODS]
    assert [_number(v) for v in values("### F§2.2")[:4]] == list(O.BOATMEN_TRACK_COINS[:4])
    assert [_number(v) for v in values("### F§2.5")] == list(O.SCHOLARS_TRACK_POINTS)
    assert [_number(v) for v in values("### F§2.6")] == list(O.KNIGHTS_TRACK_DRAWS)


def test_the_neutral_supply_table_is_the_engines() -> None:
    rows = {row[0]: [_number(c) for c in row[1:]] for row in table_rows("orleans-data.md", "### F§7.3")}
    for char in O.Char:
        assert rows[char.value.capitalize()] == [O.NEUTRAL_SUPPLY[n][char] for n in (2, 3, 4, 5)]
    assert rows["Technology tiles"] == [O.TECHNOLOGY_TILES[n] for n in (2, 3, 4, 5)]


def test_the_deed_table_is_the_engines_deeds() -> None:
    rows = table_rows("orleans-data.md", "### F§4.1")
    assert [row[0] for row in rows] == [d.name for d in O.DEEDS]
    assert [_number(row[2]) for row in rows] == [len(d.spaces) for d in O.DEEDS]
    assert [_number(row[3]) for row in rows] == [d.coins for d in O.DEEDS]


def test_the_place_tile_stacks_are_the_engines() -> None:
    rows = table_rows("orleans-data.md", "## F§6")
    documented = {re.sub(r" \(.*", "", row[0]): {"I": 1, "II": 2}[row[1]] for row in rows}
    assert documented == {p.name: p.stack for p in O.PLACE_TILES}


# --- Artificium -------------------------------------------------------------------------------------

def test_the_card_list_is_the_engines() -> None:
    rows = table_rows("artificium-data.md", "Card list")
    documented = {re.sub(r" \(action\)", "", row[0]): (_number(row[1]), _number(row[3])) for row in rows}
    assert documented == {spec.name: (spec.count, spec.vp) for spec in A.CARDS.values()}


def test_the_resource_table_is_the_reconstruction_in_data() -> None:
    rows = table_rows("artificium-data.md", "Resources (all three columns")
    documented = {A.Resource(row[0].lower()): (_number(row[1]), _number(row[2]), _number(row[3])) for row in rows}
    engine = {r: (A.RESOURCE_LEVELS[r], A.BUY_PRICES[r], A.SELL_PRICES[r]) for r in A.Resource}
    assert documented == engine


def test_the_bonus_spaces_are_the_reconstruction_in_data() -> None:
    text = (DOCS / "artificium-data.md").read_text(encoding="utf-8")
    header, _, resources = (line for line in text[text.index("| Space | 20 |"):].splitlines()[:3])  # rules 2
    spaces = [_number(c) for c in header.strip("|").split("|")[1:]]
    names = [A.Resource(c.strip().lower()) for c in resources.strip("|").split("|")[1:]]
    assert dict(zip(spaces, names)) == dict(A.BONUS_SPACES)
