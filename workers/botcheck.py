"""``hourglass bot check URL``: play a short game against a push bot and report what a tournament
would hold against it, in the platform's own words.

The check runs the game in this process (no server needed) and asks the bot through the worker's
own call (``workers.httpbot.ask_bot``: the same body, HMAC signature, size limit and deadline cut),
seat 0 being the bot and the other seats built-in random bots. Each call gets the platform's
outcome code (docs/bots.md, "Push call outcomes"): ``ok``, ``timeout`` (no whole answer within the
decision's deadline: the call is cut there, as the worker cuts it), ``bad_signature`` (the bot
refused our signature with 401/403: its secret is not the one you gave), ``http_status``,
``garbage`` (not JSON, or no move object), ``illegal``, ``too_large``, ``error``. One finding is
the check's own, because the platform never sends such a request: ``forged``, the bot answered a
request signed with a wrong key, or unsigned (it must refuse them with 401/403, or anyone could
feed it fake games).

The deadline is a decision's, as in play: ``--deadline`` (default ``HOURGLASS_BOT_DEADLINE_S`` or
2 s) for all the calls of one decision together (a planning phase's provisional moves included).
After ``HOURGLASS_FORFEIT_AFTER`` (5) failed decisions in a row the platform forfeits the seat, and
the check stops there too: a bot that never answers costs at most that many deadlines.

Exit code 0 when nothing was found, 1 otherwise, 2 for bad arguments.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO
from urllib.parse import urlsplit

from domain.bots import bot_rng, get_bot
from domain.core import SYSTEM, Rejected
from domain.games import fold, game_names, get_game, provisional, step
from domain.rng import Rng
from workers import forfeits
from workers.httpbot import DEFAULT_DEADLINE_S, OUTCOMES, ask_bot, request_body
from workers.jobs import DEADLINE_ENV

PROBE_GRACE = 3.0  # the two forgery probes wait this many deadlines (they are not decisions)
FORGED = "forged"  # the check's own finding; every other name is a call outcome of workers.httpbot.OUTCOMES


@dataclass
class Findings:
    problems: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    decisions: int = 0
    failed_in_a_row: int = 0
    forfeited: bool = False

    def add(self, kind: str, example: str) -> None:
        assert kind in OUTCOMES or kind == FORGED, kind
        self.problems[kind] += 1
        self.examples.setdefault(kind, example)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hourglass bot check", description=__doc__.splitlines()[0])
    p.add_argument("url", help="the bot's URL, e.g. http://127.0.0.1:9000/move")
    p.add_argument("--secret", required=True, help="the bot's HMAC secret")
    p.add_argument("--game", default="artificium", help=f"one of: {', '.join(game_names())}")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--decisions", type=int, default=40, help="stop after this many of the bot's decisions")
    p.add_argument("--deadline", type=float, default=float(os.environ.get(DEADLINE_ENV) or DEFAULT_DEADLINE_S),
                   help="seconds per decision, as the platform gives a push seat (default: %(default)s)")
    p.add_argument("--seed", default="bot-check")
    return p


def allow_only(url: str) -> dict[str, str]:
    """The allow-list the check calls under: exactly the URL's own host:port (a local bot included)."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return {}
    host = parts.hostname or ""
    return {"HOURGLASS_BOT_HOSTS": f"[{host}]:{port}" if ":" in host else f"{host}:{port}"}


def probe_forgery(url: str, secret: str, body: bytes, deadline: float, findings: Findings) -> None:
    """Two requests the platform never sends: a wrong key's signature and none. Accepting either is
    ``forged``. Not a decision, so a slow bot gets :data:`PROBE_GRACE` deadlines to show it accepts."""
    for label, key in (("signed with a wrong key", secret + "-not"), ("unsigned", None)):
        call = ask_bot(url, key, body, deadline * PROBE_GRACE, lambda move: True, allow_only(url))
        if call.status is not None and 200 <= call.status < 300:
            findings.add(FORGED, f"a request {label} was answered {call.status}; refuse it with 401")
        elif call.outcome not in ("bad_signature", "http_status"):
            findings.add(call.outcome, f"the {label} probe: {call.detail}")


def ask(url: str, secret: str, game_id: str, seat: int, version: int, view: dict[str, Any],
        moves: list[dict[str, Any]], left_s: float, findings: Findings) -> tuple[dict[str, Any] | None, float]:
    """One call as the worker makes it, with ``left_s`` of the decision left: (the move or None, its ms)."""
    body = request_body(game_id, seat, version, view, moves, time.time() + max(left_s, 0.0))
    call = ask_bot(url, secret, body, left_s, lambda move: move in moves, allow_only(url))
    if call.outcome not in ("rejected_url", "error") and (call.status is not None or call.outcome == "timeout"):
        findings.latencies_ms.append(call.rtt_ms)
    if call.outcome != "ok":
        findings.add(call.outcome, f"version {version}: {call.detail or call.outcome}")
        return None, call.rtt_ms
    return call.move, call.rtt_ms


def play(args: argparse.Namespace, findings: Findings) -> None:
    rules = get_game(args.game)
    config = rules.config_from_json({"players": args.players})
    seed, game_id = args.seed.encode(), "bot-check"
    events = rules.setup(config, Rng(seed, game_id, 0))
    state, version = fold(rules, events), len(events)
    held = provisional(rules)  # moves after which the same decision goes on
    probed, spent_ms, in_decision = False, 0.0, False
    forfeit_after = forfeits.after()
    while rules.result(state) is None and findings.decisions < args.decisions:
        to_act = rules.to_act(state)
        actor: int | str = SYSTEM if SYSTEM in to_act else min(a for a in to_act if isinstance(a, int))
        moves = rules.legal_moves(state, actor)
        command = moves[0] if actor == SYSTEM else None
        if actor == 0:
            listed = [rules.move_to_json(m) for m in moves]
            view = rules.view(state, 0)
            if not probed:
                probe_forgery(args.url, args.secret, request_body(game_id, 0, version, view, listed, time.time()),
                              args.deadline, findings)
                probed = True
            if not in_decision:
                findings.decisions += 1
                spent_ms, in_decision = 0.0, True
            left = args.deadline - spent_ms / 1000
            answer, ms = ask(args.url, args.secret, game_id, 0, version, view, listed, left, findings)
            spent_ms += ms
            command = moves[listed.index(answer)] if answer is not None else rules.default_move(state, 0)
            in_decision = answer is not None and type(command).__name__ in held
            if not in_decision:
                findings.failed_in_a_row = 0 if answer is not None else findings.failed_in_a_row + 1
                if forfeit_after and findings.failed_in_a_row >= forfeit_after:
                    findings.forfeited = True
                    return
        else:
            in_decision = False
        if command is None and isinstance(actor, int) and actor != 0:
            command = get_bot("random", rules.name)(rules, state, actor, moves, bot_rng(seed, game_id, actor, version))
        events, state = step(rules, state, command, Rng(seed, game_id, rules.draw_counter(state)))
        version += len(events)


def report(findings: Findings, out: TextIO) -> int:
    lat = findings.latencies_ms
    if lat:
        print(f"{findings.decisions} decisions asked; latency p50 {statistics.median(lat):.0f} ms, "
              f"max {max(lat):.0f} ms", file=out)
    if findings.forfeited:
        print(f"stopped: {findings.failed_in_a_row} failed decisions in a row, where the platform forfeits "
              "the seat", file=out)
    if not findings.problems:
        print("pass: nothing a tournament would reject", file=out)
        return 0
    for kind, count in findings.problems.most_common():
        print(f"FAIL {kind}: {count}× — e.g. {findings.examples[kind]}", file=out)
    return 1


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = parser().parse_args(argv)
    out = out or sys.stdout
    if args.game not in game_names():
        print(f"hourglass bot check: unknown game {args.game!r}", file=sys.stderr)
        return 2
    findings = Findings()
    try:
        play(args, findings)
    except Rejected as exc:
        print(f"hourglass bot check: {exc.message}", file=sys.stderr)
        return 2
    return report(findings, out)
