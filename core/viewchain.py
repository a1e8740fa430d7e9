"""Per-seat view hash chains: what each seat was shown of every batch, as a chain of hashes (issue 29).

A seat learns the game through the events it is shown: the stream, the move answers and the event
pages all serve ``event_view`` (:func:`seat_event`: a table event as it is, a game event through
``rules.event_view(event, seat)``, which hides what the seat may not see). After every batch
each seat's head advances over the seat's view of the batch's events:

    head_v = sha256(bytes.fromhex(head_prev) || canonical_json({"seat": s, "version": v, "events": [view, ...]}))

``v`` the version that ends the batch (its last entry's seq), ``head_prev`` the seat's head after
the previous batch, and ``genesis(s)`` before the first. Every seat's head advances on every batch,
so a head names one version. The seat's state view (``GET .../state``) is not chained: it is the
fold of what the events show, and hashing it after every batch cost 30 to 50 times more (a
16 KB Orléans view: bench/viewchain.py, docs/performance.md).

Pure functions of stored event JSON: the service computes heads while folding
(``core.repository``, ``core.commands``), the bundle builder and the verifier with the same code.
"""
from __future__ import annotations

import hashlib
import marshal
from collections.abc import Sequence
from typing import Any

from core.table import decoded as decoded_events
from core.table import is_table_event
from domain.canonical import canonical_bytes, canonical_json
from domain.core import GameRules

GENESIS_CONTEXT = b"hourglass view chain\n"  # so a genesis head is no hash of anything else


def genesis(seat: int) -> str:
    """The head of seat ``seat``'s chain before the first batch."""
    return hashlib.sha256(GENESIS_CONTEXT + str(seat).encode("ascii")).hexdigest()


def genesis_heads(seats: int) -> tuple[str, ...]:
    return tuple(genesis(s) for s in range(seats))


def seat_event(rules: GameRules, data: dict[str, Any], seat: int | None, event: Any = None) -> dict[str, Any]:
    """A stored event (JSON) as ``seat`` is shown it (``event``: the decoded event, when held)."""
    if is_table_event(data):  # joins, resignations, aborts: the same for everyone
        return dict(data)
    return rules.event_view(rules.event_from_json(data) if event is None else event, seat)


def advance(head: str, seat: int, version: int, events: Sequence[dict[str, Any]]) -> str:
    """The head after the batch ending at ``version``, of which seat ``seat`` was shown ``events``."""
    link = canonical_bytes({"seat": seat, "version": version, "events": list(events)})
    return hashlib.sha256(bytes.fromhex(head) + link).hexdigest()


def advance_all(rules: GameRules, heads: tuple[str, ...], version: int,
                batch: Sequence[dict[str, Any]], events: Sequence[Any] | None = None,
                decoded: Sequence[Any] | None = None, encoded: Sequence[str] | None = None) -> tuple[str, ...]:
    """Every seat's head after the batch ``batch`` (its stored event JSON) ending at ``version``
    (``events``: the game's events of the batch, decoded, when the caller holds them; ``batch`` is
    then their ``event_to_json``, as the verifier re-derives it. ``decoded``: ``batch`` decoded by
    the caller (``core.table.decoded``), without that promise. ``encoded``: the canonical JSON
    of each item of ``batch``, when the caller has encoded them already)."""
    if events is not None:
        decoded = events
    elif decoded is None:  # once for every seat
        decoded = decoded_events(rules, batch)
    if type(version) is not int:
        return tuple(advance(head, seat, version, [seat_event(rules, d, seat, e) for d, e in zip(batch, decoded)])
                     for seat, head in enumerate(heads))
    public = getattr(rules, "public_event", None)  # a GamePlugin's field; None for duck-typed rules
    given = encoded if encoded is not None else [None] * len(batch)
    texts = [_texts(rules, public, d, e, events is not None, len(heads), t) for d, e, t in zip(batch, decoded, given)]
    alike = [t for t in texts if type(t) is str]
    if len(alike) == len(texts):  # every seat shown the batch alike: its text joined once
        shown = ",".join(alike).encode()
        return tuple(_link(head, seat, version, shown) for seat, head in enumerate(heads))
    return tuple(_link(head, seat, version, ",".join([t if type(t) is str else t[seat] for t in texts]).encode())
                 for seat, head in enumerate(heads))


def _texts(rules: GameRules, public: Any, data: dict[str, Any], event: Any, encoded: bool,
           seats: int, text: str | None = None) -> str | list[str]:
    """The canonical JSON of each seat's view of one event, or one text when every seat is shown
    it alike: a table event, or a game event its rules declare public (``GamePlugin.public_event``),
    shown as ``data`` when that is the event's own encoding (``encoded``). Other views are encoded
    once per distinct ``marshal`` form: equal bytes only for the same structure of the same exact
    built-in types (``True`` and ``1`` differ, as they do in JSON, and ``==`` would take them for
    one); a value marshal cannot write (an enum, a subclass) is encoded as it is. ``text``:
    ``data``'s canonical JSON, when the caller holds it."""
    if is_table_event(data):
        return canonical_json(data) if text is None else text
    if event is None:
        event = rules.event_from_json(data)
    if public is not None and public(event):
        if encoded and text is not None:
            return text
        return canonical_json(data if encoded else rules.event_view(event, None))
    seen: dict[bytes, str] = {}
    out = []
    for seat in range(seats):
        view = rules.event_view(event, seat)
        try:
            key = marshal.dumps(view)
        except ValueError:
            out.append(canonical_json(view))
            continue
        text = seen.get(key)
        if text is None:
            text = seen[key] = canonical_json(view)
        out.append(text)
    return out


def _link(head: str, seat: int, version: int, shown: bytes) -> str:
    """:func:`advance` from the canonical JSON of each view joined by commas (``shown``, UTF-8),
    the same bytes: a list's canonical JSON is its items' joined by commas, and the link dict is
    written out in its sorted keys (``seat`` and ``version`` are ints)."""
    link = b'{"events":[%b],"seat":%d,"version":%d}' % (shown, seat, version)
    return hashlib.sha256(bytes.fromhex(head) + link).hexdigest()


def batch_views(rules: GameRules, batch: Sequence[dict[str, Any]], seats: int,
                decoded: Sequence[Any] | None = None) -> list[list[dict[str, Any]]]:
    """What each of ``seats`` seats is shown of ``batch`` (its stored event JSON), seat by seat.

    ``decoded``: the batch's events as the rules decided them, ``batch`` their ``event_to_json``.
    An event its rules declare public (``GamePlugin.public_event``) is then shown as that JSON,
    which is its view, instead of being encoded again for every seat (as :func:`_texts` does)."""
    public = getattr(rules, "public_event", None) if decoded is not None else None
    if decoded is None:  # once for every seat
        decoded = decoded_events(rules, batch)
    alike = [e is not None and public is not None and public(e) for e in decoded]
    return [[dict(d) if same else seat_event(rules, d, seat, e) for d, e, same in zip(batch, decoded, alike)]
            for seat in range(seats)]


def advance_views(heads: tuple[str, ...], version: int, views: Sequence[Sequence[dict[str, Any]]]) -> tuple[str, ...]:
    """Every seat's head after the batch ending at ``version`` of which seat ``s`` was shown ``views[s]``.

    The same as :func:`advance` seat by seat: a link is the canonical JSON of one object with the
    keys ``events``, ``seat`` and ``version``, which is the canonical JSON of its ``events`` between
    fixed text and two integers, so the events are encoded once for the seats shown the same
    (every seat, unless the batch hides something from some)."""
    encoded: dict[bytes, bytes] = {}  # by ``marshal`` form, as in :func:`_texts`: ``True`` is not ``1``
    out = []
    for seat, (head, shown) in enumerate(zip(heads, views, strict=True)):
        try:
            key: bytes | None = marshal.dumps(list(shown))
        except ValueError:  # a value marshal cannot write: encoded as it is
            key = None
        events = encoded.get(key) if key is not None else None
        if events is None:
            events = canonical_bytes(list(shown))
            if key is not None:
                encoded[key] = events
        link = b'{"events":%b,"seat":%d,"version":%d}' % (events, seat, version)
        out.append(hashlib.sha256(bytes.fromhex(head) + link).hexdigest())
    return tuple(out)
