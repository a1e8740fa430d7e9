"""Seat kinds are one enum and one table (core/seats.py, docs/adding-a-bot-kind.md).

A new kind of seat is one ``SeatKind`` member and one ``SEAT_POLICIES`` row: every kind has a
policy, the API's lists of kinds are derived from the enum, stored seats keep their JSON, and no
module outside core/seats.py decides by comparing a kind with a string.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from marshmallow import validate

from core.seating import seat_spec
from core.seats import (
    REGISTRABLE_KINDS,
    SEAT_POLICIES,
    Credential,
    Player,
    SeatKind,
    SeatSpec,
    policy_of,
    seat_entry,
)
from domain.canonical import canonical_json

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "service", "workers", "replays")
KIND_VALUES = {k.value for k in SeatKind}
# principals (service.auth, where they are defined) have kinds of their own: "seat", "bot", ...
PRINCIPAL_KINDS = ("caller.kind", "who.kind", "principal().kind")
PRINCIPALS = "service/auth.py"


def test_every_kind_has_exactly_one_policy() -> None:
    assert set(SEAT_POLICIES) == set(SeatKind)
    assert all(policy_of(kind.value) is SEAT_POLICIES[kind] for kind in SeatKind)
    assert policy_of("robot") is None and policy_of(None) is None and policy_of(["bot"]) is None


@pytest.mark.parametrize("kind", list(SeatKind))
def test_a_policy_is_consistent_with_who_plays_the_seat(kind: SeatKind) -> None:
    policy = SEAT_POLICIES[kind]
    # the worker plays builtin and push seats; people and pull bots post their own moves
    assert policy.acts_from_outside == (policy.played_by in (Player.PERSON, Player.PULL))
    assert policy.is_bot == (policy.played_by is not Player.PERSON)
    assert not policy.forfeits or policy.is_bot
    assert not policy.registrable or policy.is_bot
    assert policy.inline or policy.registrable  # a kind nobody can create would be dead
    assert policy.credential is not Credential.BEARER_TOKEN or policy.played_by is Player.PERSON
    assert not policy.claimable or policy.played_by is Player.PERSON


def test_the_api_lists_of_kinds_come_from_the_enum() -> None:
    from service.platform_schemas import BotRegisterSchema
    from service.schemas import SeatSchema, SeatSpecSchema

    def choices(schema: type, name: str) -> list[str]:
        validators = [v for v in schema._declared_fields[name].validators  # type: ignore[attr-defined]
                      if isinstance(v, validate.OneOf)]
        return list(validators[0].choices)

    everything = [k.value for k in SeatKind]
    assert choices(SeatSpecSchema, "kind") == everything
    assert choices(SeatSchema, "kind") == everything
    assert choices(BotRegisterSchema, "kind") == [k.value for k in REGISTRABLE_KINDS] == ["http", "pull"]


@pytest.mark.parametrize("stored", [
    {"name": "Ann", "kind": "human"},
    {"name": "Ann", "kind": "human", "clock": {"initial_s": 60, "increment_s": 1}},
    {"name": "R", "kind": "bot", "bot": "random"},
    {"name": "H", "kind": "http", "url": "https://bots.example/x"},
    {"name": "Open seat 1", "kind": "open", "private": False},
    {"name": "Open seat 1", "kind": "open", "private": True, "seat": 1},
    {"name": "pb", "kind": "pull", "bot_id": "ab12", "deadline_s": 5, "clock": {"move_s": 5}},
    {"name": "hb", "kind": "http", "bot_id": "cd34", "deadline_s": 2.5},
])
def test_a_stored_seat_reads_and_writes_the_same_json(stored: dict[str, object]) -> None:
    spec = SeatSpec.from_json(stored)
    assert isinstance(spec.kind, SeatKind)
    assert canonical_json(spec.to_json()) == canonical_json(stored)
    assert json.loads(json.dumps(spec.to_json())) == stored


def test_a_seat_with_a_field_we_do_not_know_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown fields"):
        SeatSpec.from_json({"name": "x", "kind": "human", "colour": "red"})


def test_seats_of_a_new_game_are_typed_and_keep_their_old_json() -> None:
    assert seat_entry(0, {"name": "Ann"}).to_json() == {"seat": 0, "name": "Ann", "kind": "human"}
    assert seat_entry(1, {"kind": "bot", "bot": "random"}).to_json() == {"seat": 1, "name": "Seat 1", "kind": "bot",
                                                                         "bot": "random"}
    assert seat_spec(2, {"kind": "open"}).to_json() == {"seat": 2, "name": "Open seat 2", "kind": "open",
                                                        "private": False}


def _kind_side(node: ast.expr) -> bool:
    """An expression that reads a seat kind: ``x["kind"]``, ``x.get("kind")``, ``x.kind``, ``kind``..."""
    text = ast.unparse(node)
    return "kind" in text and not any(text.startswith(p) for p in PRINCIPAL_KINDS)


def _kind_literals(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & KIND_VALUES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # a list of kinds, not a list that has one
        found = [_kind_literals(e) for e in node.elts]
        return set().union(*found) if node.elts and all(found) else set()
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("frozenset", "set", "tuple") and node.args:
        return _kind_literals(node.args[0])
    return set()


def _string_kind_decisions(source: str, where: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_kind_literals(s) for s in sides) and any(_kind_side(s) for s in sides):
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(_kind_literals(node)) >= 2:
            found.append(f"{where}:{node.lineno}: a list of seat kinds {ast.unparse(node)}")
    return found


def test_no_module_decides_by_comparing_a_seat_kind_with_a_string() -> None:
    found = [hit for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             if path != ROOT / "core" / "seats.py" and path != ROOT / PRINCIPALS
             for hit in _string_kind_decisions(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert found == [], "read core.seats.SEAT_POLICIES instead:\n" + "\n".join(found)


def test_the_grep_finds_what_it_forbids() -> None:
    probe = ('def f(s, seat):\n    return s["kind"] == "bot" or seat.get("kind") in ("human", "open")\n'
             'KINDS = frozenset({"http", "pull"})\n'
             'def g(caller):\n    return caller.kind == "bot" or s.status == "open"\n')
    assert len(_string_kind_decisions(probe, "probe")) == 4
