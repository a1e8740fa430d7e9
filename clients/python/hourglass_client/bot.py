"""The ``Bot`` base class: write ``choose`` once, run it as a push server or as a pull client.

    class Mine(Bot):
        def choose(self, turn: Turn) -> dict:
            return turn.moves[0]          # one of the listed moves, verbatim

    Mine().serve(secret, port=9000)       # push: the service POSTs each decision to you (HMAC-checked)
    Mine().play(client, bot_id)           # pull: you follow your stream and post your moves

Push: every request carries ``X-Hourglass-Signature: sha256=<HMAC-SHA256 of the raw body>`` under
your bot's secret. A request whose signature does not verify is answered 401 and never reaches
``choose`` (the service records that call as ``bad_signature`` on your stream: your secret and
the service's differ). Pull: the bot's one event stream says ``your_turn`` (game, seat, version,
deadline); the bot reads its view and legal moves and posts one with its token, retried safely
under an Idempotency-Key.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hourglass_client.client import ApiError, Client, StreamEvent

SIGNATURE_HEADER = "X-Hourglass-Signature"
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_REREADS = 50  # a game that moves on under a turn this often has other seats in a hurry, not a stuck bot
log = logging.getLogger("hourglass_client.bot")


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, body: bytes, header: str | None) -> bool:
    return header is not None and hmac.compare_digest(sign(secret, body), header)


@dataclass(frozen=True)
class Turn:
    """One decision: your seat's view, your legal moves (post one verbatim) and the deadline."""

    game: str
    seat: int
    version: int
    view: dict[str, Any]
    moves: list[dict[str, Any]]
    deadline_ms: int | None = None


class Bot:
    """Subclass and implement :meth:`choose`; optionally :meth:`on_event` to see your stream."""

    def choose(self, turn: Turn) -> dict[str, Any]:
        raise NotImplementedError

    def on_event(self, event: StreamEvent) -> None:
        """Every event of the bot's stream (pull), e.g. ``call`` outcomes and ``game_finished``."""

    # -- push --------------------------------------------------------------------------------------

    def serve(self, secret: str, host: str = "127.0.0.1", port: int = 0) -> PushServer:
        """Start the push server in a thread; returns it (``.url``; ``.stop()``, or use ``with``)."""
        return PushServer(self, secret, host, port).start()

    # -- pull --------------------------------------------------------------------------------------

    def play(self, client: Client, bot_id: str, *, games: int | None = None,
             stop: threading.Event | None = None, on_game_end: Callable[[StreamEvent], None] | None = None) -> int:
        """Follow the bot's stream and play every turn; returns after ``games`` games ended (or ``stop``)."""
        finished = 0
        posted: dict[str, int] = {}  # game -> the version our last move produced
        for event in client.follow_bot(bot_id):
            self.on_event(event)
            if stop is not None and stop.is_set():
                break
            if event.event == "your_turn":
                self._take_turn(client, event.data, posted)
            elif event.event == "game_finished":
                finished += 1
                posted.pop(event.data["game"], None)
                if on_game_end is not None:
                    on_game_end(event)
                if games is not None and finished >= games:
                    break
        return finished

    def _take_turn(self, client: Client, data: dict[str, Any], posted: dict[str, int]) -> None:
        game_id = data["game"]
        if data["version"] < posted.get(game_id, -1):
            return  # an older turn we already answered (a resync after a reconnect)
        for _ in range(MAX_REREADS):  # the stream says your_turn once per prompt: keep at it while we still owe a move
            moves = client.moves(game_id)
            if not moves["moves"]:
                return  # not our turn any more (the clock played for us, or the game ended)
            view = client.state(game_id).get("view", {})
            turn = Turn(game_id, int(data["seat"]), moves["version"], view, moves["moves"], data.get("deadline_ms"))
            try:
                result = client.post_move(game_id, self.choose(turn))
            except ApiError as exc:
                if exc.status == 422 and exc.kind in ("NOT_YOUR_TURN", "WRONG_PHASE", "ILLEGAL_MOVE", "GAME_OVER"):
                    log.info("game %s moved on under us (%s); reading it again", game_id, exc.kind)
                    continue
                raise
            posted[game_id] = result["version"]
            return
        log.warning("game %s: still to act after %d reads that the game moved on under; giving up this turn",
                    game_id, MAX_REREADS)


class PushServer:
    """A small threaded HTTP server that verifies the HMAC and answers with the bot's move."""

    def __init__(self, bot: Bot, secret: str, host: str, port: int) -> None:
        self.bot = bot
        self.secret = secret
        self.calls = 0
        self.refused = 0
        self.httpd = ThreadingHTTPServer((host, port), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True, name="hourglass-push-bot")

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        assert isinstance(host, str)  # an AF_INET server's address
        return f"http://{host}:{port}/move"

    def start(self) -> PushServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> PushServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def answer(self, body: bytes, signature: str | None) -> tuple[int, dict[str, Any]]:
        if not verify_signature(self.secret, body, signature):
            self.refused += 1
            return 401, {"error": "bad signature"}
        try:
            payload = json.loads(body)
            turn = Turn(payload["game"], payload["seat"], payload["version"], payload["view"], payload["moves"],
                        payload.get("deadline_ms"))
        except (ValueError, KeyError, TypeError):
            return 400, {"error": "not a decision request"}
        self.calls += 1
        return 200, {"move": self.bot.choose(turn)}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._send(200, {"bot": type(server.bot).__name__})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    return self._send(413, {"error": "too large"})
                body = self.rfile.read(length)
                status, answer = server.answer(body, self.headers.get(SIGNATURE_HEADER))
                self._send(status, answer)

            def _send(self, status: int, obj: dict[str, Any]) -> None:
                data = json.dumps(obj).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler
