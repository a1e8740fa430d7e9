"""Games recorded under an older Orléans engine keep verifying and keep their rules.

The two bundles in tests/golden/orleans-2-bundle-*.jsonl were written by engine ``orleans-2``
(commit 430a54d, before the orleans-3 rule fixes) from greedy-bot games with the expert place-tile
exclusion switched on and a Gunpowder Tower loaded during planning, so they exercise exactly the
rules orleans-3 changed. They are never regenerated: they are what an old tournament archive holds.
"""
from __future__ import annotations

import json
import pathlib

import pytest

from domain.core import Rejected, RejectKind
from domain.games import fold, for_engine, get_game
from domain.orleans import RULES
from domain.orleans.game import LEGACY_RULES
from domain.orleans.model import FinishLoading, LoadTower, Phase, SkipExclusion, TakeBackFollower
from domain.rng import Rng
from replays.verify import verify_bundle

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
LEGACY_BUNDLES = ["orleans-2-bundle-classic-4p.jsonl", "orleans-2-bundle-2023-3p.jsonl"]


@pytest.mark.parametrize("name", LEGACY_BUNDLES)
def test_an_orleans_2_bundle_still_verifies(name: str) -> None:
    text = (GOLDEN / name).read_text(encoding="utf-8")
    assert json.loads(text.splitlines()[0])["engine_version"] == "orleans-2"
    report = verify_bundle(text)
    assert report.ok, report.describe()


@pytest.mark.parametrize("name", LEGACY_BUNDLES)
def test_a_flipped_byte_in_an_orleans_2_bundle_is_still_caught(name: str) -> None:
    lines = (GOLDEN / name).read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines[40].index('"chain_hash":"') + len('"chain_hash":"')
    flipped = "0" if lines[40][at] != "0" else "1"
    lines[40] = lines[40][:at] + flipped + lines[40][at + 1:]
    report = verify_bundle("".join(lines))
    assert not report.ok and report.divergence is not None and report.divergence.line == 41


@pytest.mark.parametrize("name", LEGACY_BUNDLES)
def test_an_orleans_2_bundle_verifies_by_its_own_rules_without_a_warning(name: str) -> None:
    report = verify_bundle((GOLDEN / name).read_text(encoding="utf-8"))
    assert report.ok and report.warnings == ()


@pytest.mark.parametrize("name", LEGACY_BUNDLES)
def test_a_game_recorded_before_the_bump_keeps_its_rules_when_loaded_today(name: str) -> None:
    """The service loads a stored game by folding its events and decides with today's RULES: the
    rules version in the recorded config brings back every orleans-2 rule."""
    lines = [json.loads(line) for line in (GOLDEN / name).read_text(encoding="utf-8").splitlines()]
    batches = [line for line in lines if line["kind"] == "batch"]
    state = fold(RULES, (RULES.event_from_json(e["data"]) for e in batches[0]["entries"]))
    assert state.config.rules_version == 2
    seed = bytes.fromhex(lines[0]["seed"])
    for batch in batches[1:]:
        command = RULES.command_from_json(batch["command"])
        assert not isinstance(command, TakeBackFollower | LoadTower | FinishLoading | SkipExclusion)
        events = RULES.decide(state, command, Rng(seed, lines[0]["game_id"], state.draws))
        assert [RULES.event_to_json(e) for e in events] == [e["data"] for e in batch["entries"]]
        state = fold(RULES, events, state)
        if state.phase is Phase.PLANNING:
            assert not any(isinstance(m, TakeBackFollower) for s in RULES.to_act(state) if isinstance(s, int)
                           for m in RULES.legal_moves(state, s))
    assert RULES.result(state) == lines[-1]["result"]


def test_new_games_record_rules_5_and_engine_orleans_5() -> None:
    config = RULES.config_from_json({"edition": "classic", "players": 3})
    assert config.rules_version == 5 and RULES.engine_version == "orleans-5"
    assert RULES.config_to_json(config)["rules_version"] == 5
    assert RULES.config_from_json(RULES.config_to_json(config)) == config
    for older in (2, 3, 4):
        with pytest.raises(Rejected) as info:
            RULES.config_from_json({"edition": "classic", "players": 3, "rules_version": older})
        assert info.value.kind is RejectKind.INVALID_CONFIG


def test_an_old_config_without_a_rules_version_reads_as_rules_2_and_keeps_its_bytes() -> None:
    old = {"edition": "classic", "exclusion": True, "players": 4, "start_player": 0}
    assert LEGACY_RULES.config_from_json(old).rules_version == 2
    assert LEGACY_RULES.config_to_json(LEGACY_RULES.config_from_json(old)) == old  # no rules_version field
    setup_line = json.loads((GOLDEN / LEGACY_BUNDLES[0]).read_text(encoding="utf-8").splitlines()[1])
    started = setup_line["entries"][0]["data"]
    assert RULES.event_to_json(RULES.event_from_json(started)) == started
    assert RULES.event_from_json(started).config.rules_version == 2


@pytest.mark.parametrize("engine,rules_version",
                         [("orleans-1", 2), ("orleans-2", 2), ("orleans-3", 3), ("orleans-4", 4), ("orleans-5", 5),
                          ("orleans-9", 5)])
def test_the_engine_version_selects_the_rules_that_set_a_game_up(engine: str, rules_version: int) -> None:
    rules = get_game("orleans", engine)
    assert rules.config_from_json({"edition": "2023", "players": 2}).rules_version == rules_version
    assert for_engine(RULES, engine) is rules


def test_the_fast_state_hash_leaves_out_added_fields_as_the_codec_does() -> None:
    """replays.statehash mirrors codec.added: a loading seat, tower placements and skipped
    exclusions hash the same through its fast path and through state_to_json."""
    from domain.canonical import canonical_json, sha256_hex
    from domain.orleans.model import PlaceTileTaken
    from replays.statehash import StateHasher

    config = RULES.config_from_json({"edition": "classic", "players": 3, "exclusion": True})
    state = RULES.evolve(fold(RULES, RULES.setup(config, Rng(b"h", "h", 0))), PlaceTileTaken(0, "gunpowder_tower"))
    hasher, chooser, seen = StateHasher(RULES), Rng(b"h", "chooser", 0), set()
    while RULES.result(state) is None:
        acting = sorted(RULES.to_act(state), key=str)
        actor = acting[chooser.below(len(acting))] if "system" not in acting else "system"
        moves = RULES.legal_moves(state, actor)
        skip = [m for m in moves if isinstance(m, SkipExclusion)]
        move = skip[0] if skip else moves[chooser.below(len(moves))]
        state = RULES.step(state, move, Rng(b"h", "h", state.draws))[1]
        assert hasher(state) == sha256_hex(canonical_json(RULES.state_to_json(state)).encode())
        seen |= {f for p in state.players for f in ("loading", "planned_from_tower", "tower_returns") if getattr(p, f)}
        seen |= {"from_tower"} if any(x.from_tower for p in state.players for x in p.pending) else set()
        seen |= {"exclusions_skipped"} if state.exclusions_skipped else set()
    assert hasher.fast and seen == {"loading", "planned_from_tower", "tower_returns", "from_tower", "exclusions_skipped"}
