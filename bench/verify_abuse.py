"""Hostile uploads to ``POST /api/v1/replays/verify`` against ``hourglass serve`` (prints, never asserts).

    REDIS_URL=redis://127.0.0.1:6379/0 python bench/verify_abuse.py [--before CHECKOUT] [--mib 64]

For each checkout (``--before``: a plain copy of the code to compare with, e.g.
``git archive main | tar -x -C /tmp/base``; then this one), in the same run:

1. ``hourglass serve --no-worker`` with default limits on a free loopback port (2 web workers);
   a game with two human seats, whose first seat's token is the seat holder's;
2. the seat holder's ``GET /state`` latency with nothing else running: the **idle baseline**;
3. one body of ``--mib`` MiB of newlines (a bundle that fails at line 1), sent with a
   Content-Length and again chunked: the answer, the client's time to it, the CPU seconds the
   web workers spent (``/proc/<pid>/stat``) and their peak RSS (``VmHWM``) after it;
4. ``--hostile`` (4) clients sending such bodies back to back (each as soon as the last was
   answered) while the seat holder asks for its state every 0.2 s: median and worst latency, and
   their ratio to the idle median;
5. the same number of clients asking for a spectator's game summary back to back: what a flood
   of cheap requests costs the seat holder, for comparison with 4.

Every client runs in this process (threads; ``sendall`` of a large body costs no Python time).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 1 << 20
VERIFY = "/api/v1/replays/verify"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children_of(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with suppress(OSError):
                kids = [int(p) for p in (task / "children").read_text().split()]
                found += kids
                todo += kids
    return found


def web_workers(serve_pid: int) -> list[int]:
    """gunicorn's worker processes: the gunicorn processes whose parent is a gunicorn process."""
    gunicorns = [p for p in children_of(serve_pid) if b"gunicorn" in _cmdline(p)]
    return [p for p in gunicorns if _parent(p) in gunicorns]


def _cmdline(pid: int) -> bytes:
    with suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    return b""


def _parent(pid: int) -> int:
    with suppress(OSError, ValueError):
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return 0


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pids: list[int]) -> float:
    best = 0
    for pid in pids:
        with suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    best = max(best, int(line.split()[1]))
    return best / 1024


class Server:
    """``hourglass serve --no-worker`` from ``checkout`` on a free port, default limits."""

    def __init__(self, checkout: Path, redis_url: str) -> None:
        self.port = free_port()
        env = {**os.environ, "REDIS_URL": redis_url, "HOURGLASS_ADVANCE": "off", "PYTHONPATH": str(checkout)}
        self.proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--no-worker", "--port",
                                      str(self.port)], cwd=checkout, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with suppress(OSError, http.client.HTTPException):
                if self.call("GET", "/openapi.json")[0] == 200 and len(web_workers(self.proc.pid)) >= 2:
                    return
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"hourglass serve from {checkout} did not answer")

    def call(self, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def workers(self) -> list[int]:
        return web_workers(self.proc.pid)

    def stop(self) -> None:
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 15)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()


def seat_holder(server: Server) -> tuple[str, str]:
    body = json.dumps({"game": "orleans", "edition": "classic", "seats": [{"name": "Ann"}, {"name": "Bob"}]})
    status, data = server.call("POST", "/api/v1/games", body.encode(), {"Content-Type": "application/json"})
    assert status == 201, data[:300]
    created = json.loads(data)
    return created["id"], created["seats"][0]["token"]


def state_latencies(server: Server, game_id: str, token: str, count: int, until: threading.Event | None = None,
                    pause: float = 0.05) -> list[float]:
    """``count`` timed ``GET /state`` calls on one keep-alive connection (fewer if ``until`` is set)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    out: list[float] = []
    try:
        for _ in range(count):
            if until is not None and until.is_set():
                break
            started = time.perf_counter()
            conn.request("GET", f"/api/v1/games/{game_id}/state", headers={"Authorization": f"Bearer {token}"})
            response = conn.getresponse()
            response.read()
            out.append(time.perf_counter() - started)
            assert response.status == 200, response.status
            time.sleep(pause)
    finally:
        conn.close()
    return out


def complete(reply: bytes) -> bool:
    """Whether ``reply`` holds a whole HTTP response (by Content-Length, or a chunked body's end)."""
    head, sep, body = reply.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return body.endswith(b"0\r\n\r\n")


def hostile_upload(port: int, mib: int, chunked: bool) -> tuple[str, float]:
    """One body of ``mib`` MiB of newlines; (the answer's status or what happened, seconds)."""
    started = time.perf_counter()
    total = mib * CHUNK
    head = f"POST {VERIFY} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/x-ndjson\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {total}\r\n\r\n"
    block = b"\n" * CHUNK
    if chunked:
        block = f"{CHUNK:x}\r\n".encode() + block + b"\r\n"
    reply = b""
    sock = socket.create_connection(("127.0.0.1", port), timeout=120)
    outcome = "?"

    def read_reply() -> None:
        nonlocal reply
        with suppress(OSError):
            while chunk := sock.recv(65536):
                reply += chunk
                if complete(reply):
                    break

    reader = threading.Thread(target=read_reply, daemon=True)
    reader.start()
    try:
        sock.sendall(head.encode())
        for _ in range(mib):
            sock.sendall(block)
            if reply:
                break
        if chunked and not reply:
            sock.sendall(b"0\r\n\r\n")
    except OSError as exc:
        outcome = f"send: {type(exc).__name__}"
    reader.join(timeout=120)
    elapsed = time.perf_counter() - started
    sock.close()
    if reply.startswith(b"HTTP/1.1 "):
        status = reply.split(b" ", 2)[1].decode()
        ok = b'"ok":false' in reply.replace(b" ", b"")
        outcome = status + (" ok=false" if ok else "")
    return outcome, elapsed


def spectator_read(port: int, game_id: str) -> str:
    """One cheap request on a new connection: a spectator's game summary."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("GET", f"/api/v1/games/{game_id}")
        response = conn.getresponse()
        response.read()
        return str(response.status)
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    finally:
        conn.close()


def under_load(server: Server, game_id: str, token: str, clients: int, samples: int,
               request: Callable[[bool], str]) -> tuple[tuple[list[float], float], dict[str, int]]:
    """The seat holder's latencies while ``clients`` threads repeat ``request`` back to back
    (alternating its ``chunked`` argument); and how the requests were answered."""
    stop = threading.Event()
    answers: Counter[str] = Counter()

    def attack() -> None:
        chunked = False
        while not stop.is_set():
            answers[request(chunked)] += 1
            chunked = not chunked

    threads = [threading.Thread(target=attack, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    started = time.monotonic()
    loaded = state_latencies(server, game_id, token, samples, pause=0.2)
    seconds = time.monotonic() - started
    stop.set()
    for thread in threads:
        thread.join(timeout=180)
    return (loaded, seconds), dict(answers)


def measure(checkout: Path, redis_url: str, mib: int, hostile: int, samples: int) -> dict[str, Any]:
    server = Server(checkout, redis_url)
    try:
        game_id, token = seat_holder(server)
        state_latencies(server, game_id, token, 20, pause=0)  # warm both workers
        idle = state_latencies(server, game_id, token, samples)
        single: dict[str, Any] = {}
        for chunked in (False, True):
            pids = server.workers()
            cpu = cpu_seconds(pids)
            outcome, seconds = hostile_upload(server.port, mib, chunked)
            time.sleep(0.5)  # let the worker finish what it does after answering
            single["chunked" if chunked else "length"] = {
                "answer": outcome, "seconds": seconds, "cpu_s": cpu_seconds(pids) - cpu, "peak_rss_mb": peak_rss_mb(pids)}
        hostile_loaded, answers = under_load(server, game_id, token, hostile, samples,
                                             lambda chunked: hostile_upload(server.port, mib, chunked)[0])
        flood_loaded, flood_answers = under_load(server, game_id, token, hostile, samples,
                                                 lambda chunked: spectator_read(server.port, game_id))
        return {"idle": idle, "loaded": hostile_loaded, "answers": answers, "flood": flood_loaded,
                "flood_answers": flood_answers, "single": single, "peak_rss_mb": peak_rss_mb(server.workers())}
    finally:
        server.stop()


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.1f} ms"


def report(label: str, r: dict[str, Any]) -> None:
    idle = r["idle"]
    base = statistics.median(idle)
    print(f"== {label}")
    for kind, one in r["single"].items():
        print(f"  one {kind:<7} body: answer {one['answer']:<18} client {one['seconds']:6.2f} s, "
              f"web CPU {one['cpu_s']:6.2f} s, web peak RSS {one['peak_rss_mb']:7.1f} MB")
    print(f"  GET /state idle:    median {ms(base)}, worst {ms(max(idle))} ({len(idle)} calls)")
    for name, (loaded, seconds), answers in (("hostile uploads", r["loaded"], r["answers"]),
                                             ("spectator reads", r["flood"], r["flood_answers"])):
        print(f"  GET /state during {name}: median {ms(statistics.median(loaded))} "
              f"(x{statistics.median(loaded) / base:.1f} idle), worst {ms(max(loaded))} (x{max(loaded) / base:.1f}); "
              f"{len(loaded)} calls in {seconds:.1f} s; their answers {answers}")
    print(f"  web peak RSS after all: {r['peak_rss_mb']:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a checkout to measure first, in the same run")
    parser.add_argument("--mib", type=int, default=64, help="size of each hostile body (MiB)")
    parser.add_argument("--hostile", type=int, default=4, help="hostile clients in parallel")
    parser.add_argument("--samples", type=int, default=40, help="GET /state calls per phase")
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    print(f"verify abuse: {args.mib} MiB of newlines; {args.hostile} hostile clients; "
          f"{args.samples} GET /state per phase; Redis {redis_url}")
    runs = ([("before: " + str(args.before), args.before)] if args.before else []) + [("this checkout", ROOT)]
    for label, checkout in runs:
        report(label, measure(checkout.resolve(), redis_url, args.mib, args.hostile, args.samples))


if __name__ == "__main__":
    main()
