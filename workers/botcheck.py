"""``hourglass bot check URL``: play a short game against a push bot and report what a tournament
would hold against it.

The check runs the game in this process (no server needed) and calls the bot exactly as the
worker does (``workers.httpbot``'s body and HMAC signature), seat 0 being the bot and the other
seats built-in random bots. It reports:

- ``forged``: the bot answered a request signed with a wrong key, or not signed (it must refuse
  with 401/403: otherwise anyone can feed it fake games);
- ``slow``: an answer that came after the deadline (a tournament plays the default move);
- ``http_status``: a non-2xx answer to a correctly signed request (401/403 there means the bot
  and you disagree about the secret);
- ``bad_json``: an answer that is not JSON, or has no move object;
- ``illegal``: a move that is not one of the listed moves;
- ``error``: the connection failed.

Exit code 0 when nothing was found, 1 otherwise, 2 for bad arguments.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import requests

from domain.bots import bot_rng, get_bot
from domain.core import SYSTEM, Rejected
from domain.games import fold, game_names, get_game, step
from domain.rng import Rng
from workers.httpbot import SIGNATURE_HEADER, request_body, sign

GRACE = 3.0  # wait this many deadlines before calling an answer lost (so "slow" is measured, not guessed)


@dataclass
class Findings:
    problems: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    decisions: int = 0

    def add(self, kind: str, example: str) -> None:
        self.problems[kind] += 1
        self.examples.setdefault(kind, example)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hourglass bot check", description=__doc__.splitlines()[0])
    p.add_argument("url", help="the bot's URL, e.g. http://127.0.0.1:9000/move")
    p.add_argument("--secret", required=True, help="the bot's HMAC secret")
    p.add_argument("--game", default="artificium", help=f"one of: {', '.join(game_names())}")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--decisions", type=int, default=40, help="stop after this many of the bot's decisions")
    p.add_argument("--deadline", type=float, default=2.0, help="seconds per answer, as in a tournament")
    p.add_argument("--seed", default="bot-check")
    return p


def _post(url: str, body: bytes, signature: str | None, timeout_s: float) -> tuple[int | None, bytes, float, str]:
    headers = {"Content-Type": "application/json"}
    if signature is not None:
        headers[SIGNATURE_HEADER] = signature
    started = time.monotonic()
    try:
        response = requests.post(url, data=body, headers=headers, timeout=timeout_s, allow_redirects=False)
    except requests.RequestException as exc:
        return None, b"", (time.monotonic() - started) * 1000, type(exc).__name__
    return response.status_code, response.content[:65536], (time.monotonic() - started) * 1000, ""


def probe_forgery(url: str, secret: str, body: bytes, deadline: float, findings: Findings) -> None:
    for label, signature in (("signed with a wrong key", sign(secret + "-not", body)), ("unsigned", None)):
        status, _, _, error = _post(url, body, signature, deadline * GRACE)
        if status is not None and 200 <= status < 300:
            findings.add("forged", f"a request {label} was answered {status}; refuse it with 401")
        elif error:
            findings.add("error", f"the {label} probe failed: {error}")


def ask(url: str, secret: str, game_id: str, seat: int, version: int, view: dict[str, Any],
        moves: list[dict[str, Any]], deadline: float, findings: Findings) -> dict[str, Any] | None:
    body = request_body(game_id, seat, version, view, moves, time.time() + deadline)
    status, raw, ms, error = _post(url, body, sign(secret, body), deadline * GRACE)
    findings.decisions += 1
    if status is None:
        findings.add("error", f"version {version}: {error}")
        return None
    findings.latencies_ms.append(ms)
    if ms > deadline * 1000:
        findings.add("slow", f"version {version}: answered after {ms:.0f} ms (deadline {deadline * 1000:.0f} ms)")
    if not 200 <= status < 300:
        findings.add("http_status", f"version {version}: HTTP {status}")
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        findings.add("bad_json", f"version {version}: {raw[:80]!r}")
        return None
    move = data.get("move", data) if isinstance(data, dict) else None
    if not isinstance(move, dict):
        findings.add("bad_json", f"version {version}: no move object in {raw[:80]!r}")
        return None
    if move not in moves:
        findings.add("illegal", f"version {version}: {json.dumps(move)[:100]} is not a listed move")
        return None
    return move


def play(args: argparse.Namespace, findings: Findings) -> None:
    rules = get_game(args.game)
    config = rules.config_from_json({"players": args.players})
    seed, game_id = args.seed.encode(), "bot-check"
    events = rules.setup(config, Rng(seed, game_id, 0))
    state, version = fold(rules, events), len(events)
    probed = False
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
            answer = ask(args.url, args.secret, game_id, 0, version, view, listed, args.deadline, findings)
            command = moves[listed.index(answer)] if answer is not None else rules.default_move(state, 0)
        elif command is None and isinstance(actor, int):
            command = get_bot("random", rules.name)(rules, state, actor, moves, bot_rng(seed, game_id, actor, version))
        events, state = step(rules, state, command, Rng(seed, game_id, rules.draw_counter(state)))
        version += len(events)


def report(findings: Findings, out: TextIO) -> int:
    lat = findings.latencies_ms
    if lat:
        print(f"{findings.decisions} decisions asked; latency p50 {statistics.median(lat):.0f} ms, "
              f"max {max(lat):.0f} ms", file=out)
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
