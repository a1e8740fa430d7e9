"""Bundles from self-play of every edition and player count verify, and are well formed."""
from __future__ import annotations

import json

import pytest

from domain.canonical import canonical_json, json_hash
from domain.games import fold, get_game
from replays.bundle import FORMAT, NotFinished, build_bundle
from replays.entries import chain_hashes, split_batches
from replays.verify import verify_bundle
from tests.replays.replay_helpers import CONFIGS, bundle_text, played


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_self_played_game_verifies(edition: str, players: int) -> None:
    text = bundle_text(edition, players)
    report = verify_bundle(text)
    assert report.ok, report.describe()
    game_id, meta, entries = played(edition, players)
    assert report.game_id == game_id
    assert report.entries == len(entries)
    assert report.final_hash == entries[-1]["hash"]
    assert report.result == get_game("orleans").result(_final_state(entries))
    assert report.describe().startswith("verified")


def _final_state(entries):
    rules = get_game("orleans")
    return fold(rules, (rules.event_from_json(e["data"]) for e in entries))


def test_lines_are_canonical_json_with_header_batches_footer(small_bundle: str) -> None:
    lines = small_bundle.split("\n")
    assert lines[-1] == ""
    objs = [json.loads(line) for line in lines[:-1]]
    assert all(canonical_json(o) == line for o, line in zip(objs, lines))
    header, *batches, footer = objs
    assert header["format"] == FORMAT and header["kind"] == "header"
    assert header["edition"] == "classic" and header["players"] == 2
    assert json_hash(header) == footer["header_hash"]
    assert [b["batch"] for b in batches] == list(range(len(batches)))
    assert batches[0]["command"] == {"type": "CreateGame", "config": header["config"]}
    assert footer["batches"] == len(batches)
    assert footer["final_hash"] == batches[-1]["chain_hash"]
    assert {"scores", "winners", "ranking"} <= set(footer["result"])
    assert len(footer["result"]["scores"]) == 2


def test_chain_hashes_match_the_store() -> None:
    _, _, entries = played("classic", 2)
    assert chain_hashes(entries) == [e["hash"] for e in entries]
    batches = split_batches(entries)
    assert all(b[0]["command"] is not None for b in batches)
    assert sum(len(b) for b in batches) == len(entries)


def test_bundle_is_deterministic() -> None:
    game_id, meta, entries = played("2023", 3)
    assert build_bundle(game_id, meta, entries) == bundle_text("2023", 3)


def test_unfinished_game_cannot_be_exported() -> None:
    game_id, meta, entries = played("classic", 2)
    with pytest.raises(NotFinished):
        build_bundle(game_id, meta, entries[: len(entries) // 2])


def test_game_without_revealed_seed_cannot_be_exported() -> None:
    game_id, meta, entries = played("classic", 2)
    with pytest.raises(NotFinished):
        build_bundle(game_id, {**meta, "seed": ""}, entries)
