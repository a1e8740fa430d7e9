"""Build ``hourglass-replay/4`` bundles (and, on request, ``/3``, ``/2`` or ``/1``): canonical JSON
Lines, one line per batch.

Pure functions of (game id, meta, entries); the field-by-field description is in
docs/replay-format.md. Line 1 is the header, then one line per batch (the setup batch first),
then the footer. Every line is ``canonical_json(obj) + "\\n"``. Format 1 hashes the state after
every batch, formats 2 and 3 only at checkpoints (every ``CHECKPOINT``-th batch; the footer hashes
the final state in all of them). Format 3 adds the service's signature to the footer
(:func:`sign_lines`, ``core.signing``); format 4 adds every seat's view-chain head after every
batch (``view_heads``, ``core.viewchain``).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from core import table, viewchain
from core.signing import Signer
from domain.canonical import GENESIS_HASH, canonical_json, json_hash
from domain.core import GameRules
from domain.games import get_game
from domain.rng import derive_seed
from replays.entries import ENTRY_KEYS, Entry, chain_hashes, event_json, split_batches
from replays.statehash import StateHasher

FORMAT_1 = "hourglass-replay/1"  # a state hash after every batch
FORMAT_2 = "hourglass-replay/2"  # a state hash on checkpoint batches only
FORMAT_3 = "hourglass-replay/3"  # format 2 and the service's signature in the footer
FORMAT = "hourglass-replay/4"  # format 3 and every seat's view-chain head after every batch; what export writes
FORMATS = (FORMAT_1, FORMAT_2, FORMAT_3, FORMAT)
SIGNED_FORMATS = (FORMAT_3, FORMAT)
VIEW_CHAIN_FORMATS = (FORMAT,)
SIGNATURE_CONTEXT = b"hourglass-replay signature\n"  # so a bundle's signature can sign nothing else
CHECKPOINT = 64  # format 2: batches 0, 64, 128, ... carry a state hash, the others null
HEADER_KEYS = frozenset({
    "kind", "format", "game", "game_id", "edition", "players", "config", "options", "seats",
    "engine_version", "seed", "seed_commitment", "contributions",
})
UNCONTRIBUTED_HEADER_KEYS = HEADER_KEYS - {"contributions"}  # formats 1 and 2
BATCH_KEYS = frozenset({"kind", "batch", "actor", "command", "entries", "state_hash", "chain_hash", "view_heads"})
UNVIEWED_BATCH_KEYS = BATCH_KEYS - {"view_heads"}  # formats 1 to 3
BATCH_ENTRY_KEYS = frozenset(ENTRY_KEYS) - {"command"}
FOOTER_KEYS = frozenset({
    "kind", "batches", "entries", "version", "result", "final_state_hash", "final_hash", "header_hash", "signature",
})
UNSIGNED_FOOTER_KEYS = FOOTER_KEYS - {"signature"}  # formats 1 and 2


def footer_keys(fmt: str) -> frozenset[str]:
    return FOOTER_KEYS if fmt in SIGNED_FORMATS else UNSIGNED_FOOTER_KEYS


def batch_keys(fmt: str) -> frozenset[str]:
    return BATCH_KEYS if fmt in VIEW_CHAIN_FORMATS else UNVIEWED_BATCH_KEYS


def header_keys(fmt: str) -> frozenset[str]:
    return HEADER_KEYS if fmt in SIGNED_FORMATS else UNCONTRIBUTED_HEADER_KEYS


def play_seed(header: dict[str, Any], seed: bytes) -> bytes:
    """The seed the game drew from: ``seed`` itself, or derived with the seats' contributions."""
    contributions = header.get("contributions")
    return seed if contributions is None else derive_seed(seed, contributions)
CONFIG_CORE_KEYS = ("edition", "players")
OVER = ("finished", "aborted")  # an aborted game has a bundle too, with a null result

RulesLookup = Callable[[str], GameRules]


class NotFinished(ValueError):
    """The game has no revealed seed or no result yet: a bundle would be unverifiable."""


def state_hash(rules: GameRules, state: Any) -> str:
    return json_hash(rules.state_to_json(state))


def build_header(game_id: str, meta: dict[str, Any], rules: GameRules, fmt: str = FORMAT) -> dict[str, Any]:
    config = meta["config"]
    seed = meta.get("seed")
    if not seed:
        raise NotFinished(f"game {game_id} has not revealed its seed (is it finished?)")
    contributed = {"contributions": meta.get("contributions")} if fmt in SIGNED_FORMATS else {}
    if meta.get("contributions") is not None and fmt not in SIGNED_FORMATS:
        raise ValueError(f"a game with seat contributions needs format {FORMAT_3} or later")
    return {
        **contributed,
        "kind": "header",
        "format": fmt,
        "game": meta["game"],
        "game_id": game_id,
        "edition": config.get("edition"),
        "players": config.get("players"),
        "config": config,
        "options": {k: v for k, v in sorted(config.items()) if k not in CONFIG_CORE_KEYS},
        "seats": meta.get("seats", []),
        "engine_version": meta.get("engine_version") or rules.engine_version,
        "seed": seed,
        "seed_commitment": meta["seed_commitment"],
    }


def hashed_batch(fmt: str, index: int) -> bool:
    """Does batch ``index`` of a bundle in format ``fmt`` carry the state hash after it?"""
    return fmt == FORMAT_1 or index % CHECKPOINT == 0


def batch_line(index: int, batch: Sequence[Entry], state_hash_after: str | None, chain_hash: str,
               view_heads: Sequence[str] | None = None) -> dict[str, Any]:
    """A batch line; ``view_heads`` (format 4): every seat's view-chain head after the batch."""
    first = batch[0]
    viewed = {"view_heads": list(view_heads)} if view_heads is not None else {}
    return {
        **viewed,
        "kind": "batch",
        "batch": index,
        "actor": first["actor"],
        "command": first["command"],
        "entries": [{k: e.get(k) for k in ENTRY_KEYS if k != "command"} for e in batch],
        "state_hash": state_hash_after,
        "chain_hash": chain_hash,
    }


Known = tuple[Any, table.Table, tuple[str, ...]]
"""(state, table, every seat's view-chain head) after a batch."""
KnownAfter = Callable[[Sequence[Entry]], "Known | None"]


def build_lines(
    game_id: str, meta: dict[str, Any], entries: Sequence[Entry], rules_for: RulesLookup = get_game,
    fmt: str = FORMAT, known: KnownAfter | None = None,
) -> list[dict[str, Any]]:
    """The bundle as a list of JSON objects (header, batches…, footer), in format ``fmt``.

    ``known``: what a process that played the game holds of it: for a batch, the state, table and
    heads after it, as folding it would give them (None: fold it). The lines are the same."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown bundle format {fmt!r}; known: {', '.join(FORMATS)}")
    rules = rules_for(meta["game"])
    header = build_header(game_id, meta, rules, fmt)
    hashes = chain_hashes(entries)
    hasher = StateHasher(rules)
    lines: list[dict[str, Any]] = [header]
    state, tbl, done = None, table.EMPTY, 0
    seats = len(header["seats"])
    heads = viewchain.genesis_heads(seats)
    for index, batch in enumerate(split_batches(entries)):
        held = known(batch) if known is not None else None
        if held is not None:
            state, tbl, heads = held
        else:
            data = [event_json(e) for e in batch]
            events = table.decoded(rules, data)  # once for the fold and the view chains
            state, tbl = table.fold_decoded(rules, data, events, state, tbl)
            tbl = table.note(tbl, batch[0]["actor"], batch[0]["command"], batch[0].get("meta"))
            if fmt in VIEW_CHAIN_FORMATS:
                heads = viewchain.advance_all(rules, heads, batch[-1]["seq"], data, decoded=events)
        done += len(batch)
        after = hasher(state) if hashed_batch(fmt, index) else None
        lines.append(batch_line(index, batch, after, hashes[done - 1],
                                heads if fmt in VIEW_CHAIN_FORMATS else None))
    if state is None or table.status(rules, state, tbl) not in OVER:
        raise NotFinished(f"game {game_id} is not finished")
    result = table.result(rules, state, tbl)
    signed = {"signature": None} if fmt in SIGNED_FORMATS else {}
    lines.append({
        **signed,
        "kind": "footer",
        "batches": len(lines) - 1,
        "entries": len(entries),
        "version": entries[-1]["seq"],
        "result": result,
        "final_state_hash": state_hash(rules, state),
        "final_hash": hashes[-1] if hashes else GENESIS_HASH,
        "header_hash": json_hash(header),
    })
    return lines


def dumps(lines: Sequence[dict[str, Any]]) -> str:
    return "".join(canonical_json(line) + "\n" for line in lines)


def signed_message(unsigned_digest: bytes) -> bytes:
    """What the Ed25519 signature signs: a fixed context and the sha256 of the unsigned bundle,
    the bundle's exact bytes with the footer's ``signature.value`` left out (so a verifier reading
    the bundle as a stream needs one hash, never the whole bundle)."""
    return SIGNATURE_CONTEXT + unsigned_digest


def sign_lines(lines: list[dict[str, Any]], signer: Signer, signed_at: str, body: str | None = None) -> None:
    """Sign a format-3 bundle's lines in place: the footer's ``signature`` becomes
    ``{alg, key_id, signed_at, value}``, ``value`` the signature over the rest. ``body``: the
    lines before the footer already encoded (``dumps(lines[:-1])``), when the caller has them."""
    footer = lines[-1]
    if "signature" not in footer:
        raise ValueError("only a format-3 or -4 bundle carries a signature")
    footer["signature"] = signer.stamp(signed_at)
    digest = hashlib.sha256(((dumps(lines[:-1]) if body is None else body) + dumps([footer])).encode("utf-8")).digest()
    footer["signature"] = {**footer["signature"], "value": signer.sign(signed_message(digest))}


def build_bundle(
    game_id: str, meta: dict[str, Any], entries: Sequence[Entry], rules_for: RulesLookup = get_game,
    fmt: str = FORMAT, signer: Signer | None = None, signed_at: str | None = None,
    known: KnownAfter | None = None,
) -> str:
    """The bundle text (UTF-8 JSON Lines, trailing newline); signed by ``signer`` at
    ``signed_at`` (ISO-8601 UTC) when one is given, else its ``signature`` is null.
    ``known``: see :func:`build_lines`."""
    lines = build_lines(game_id, meta, entries, rules_for, fmt, known)
    body = dumps(lines[:-1])  # encoded once: hashed for the signature, then sent
    if signer is not None:
        if signed_at is None:
            raise ValueError("a signed bundle needs the time of signing")
        sign_lines(lines, signer, signed_at, body)
    return body + dumps(lines[-1:])
