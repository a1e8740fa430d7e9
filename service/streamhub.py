"""The stream process: live streams handed over by the web workers, so no fan-out runs in a
process that answers moves.

``hourglass serve`` starts it beside gunicorn (``--no-stream-hub`` leaves it out) and gives the
web workers its Unix socket (``HOURGLASS_STREAM_HUB``). A web worker that accepted a live stream
(it checked the token, the open-stream caps and the resume point, and sent the headers and the
opening frame) passes the client's socket to this process (``SCM_RIGHTS``) with what the stream
needs: game, seat, resume point, format, framing and heartbeat. This process serves it exactly
as a web worker would have (``service.routes.events._stream``: the gap, then the feed writing
each batch onto the socket, keep-alives between), writing what gunicorn would have written.

The web worker keeps one idle greenlet per handed-over stream, waiting on the control
connection (and renewing the stream's slot); when this process closes that connection the
stream is over and the worker ends the response (for HTTP/1.1, the last chunk). A web worker
that cannot reach this process serves the stream itself. If this process dies, its streams drop
and the clients resume with ``Last-Event-ID``; the supervisor starts it again.

``--nice N`` lowers this process's CPU priority by N (``hourglass serve`` passes
:data:`DEFAULT_NICE`): where the web and the fan-out share cores, the kernel then runs a move
first and the fan-out in the time left, so a crowd of spectators does not slow the seats'
POSTs; the streams lag instead, and a subscriber that falls far behind is cut off and resumes.

    python -m service.streamhub --socket PATH [--app service.wsgi:app] [--nice N]
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

HUB_ENV = "HOURGLASS_STREAM_HUB"
DEFAULT_NICE = 10  # bench/streams.py --hub: the POST's slowdown from 1,000 spectators, 1.24-2.6x at 0, 1.05-1.08x at 10
MAX_PARAMS = 4096


def hand_over(path: str, sock: Any, params: dict[str, Any]) -> socket.socket | None:
    """Pass ``sock`` (a client's stream) and ``params`` to the stream process at ``path``; the
    control connection to wait on, or None when the process cannot be reached."""
    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        control.connect(path)
        socket.send_fds(control, [json.dumps(params).encode() + b"\n"], [sock.fileno()])
    except OSError as exc:
        log.warning("stream process at %s unreachable (%s): serving the stream here", path, exc)
        control.close()
        return None
    return control


def wait_until_served(control: socket.socket, renew: Callable[[], None], every: float) -> None:
    """Until the stream process closes ``control`` (the stream is over), calling ``renew`` every
    ``every`` s meanwhile (the stream's slot in the open-stream caps)."""
    control.settimeout(every)
    try:
        while True:
            try:
                if not control.recv(64):
                    return
            except TimeoutError:
                renew()
    except OSError:
        return
    finally:
        control.close()


def _received(conn: socket.socket) -> tuple[dict[str, Any], int]:
    message, fds, _, _ = socket.recv_fds(conn, MAX_PARAMS, 1)
    while not message.endswith(b"\n") and len(message) < MAX_PARAMS:
        more = conn.recv(MAX_PARAMS)
        if not more:
            break
        message += more
    if len(fds) != 1:
        for fd in fds:
            os.close(fd)
        raise ValueError("a hand-over carries exactly one socket")
    return json.loads(message), fds[0]


def serve_one(app: Any, conn: socket.socket) -> None:
    """One handed-over stream, start to end; closing ``conn`` tells the web worker it is over."""
    from service.routes.events import FORMATS, _stream
    from service.streams import chunk

    client = None
    try:
        params, fd = _received(conn)
        client = socket.socket(fileno=fd)
        with app.app_context():
            svc = app.extensions["hourglass"]
            game = svc.load(params["game"])
            frames = _stream(game, params["seat"], int(params["after"]), float(params["heartbeat"]),
                             FORMATS[params["form"]], client, bool(params["chunked"]))
            next(frames)  # the opening: the web worker sent it with the headers
            for text in frames:  # the gap and keep-alives, written as gunicorn would have
                data = text.encode("utf-8")
                client.sendall(chunk(data) if params["chunked"] else data)
    except OSError:
        pass  # the client went away
    except Exception:  # a bad hand-over or a Redis outage: this stream ends, the client resumes
        log.exception("a handed-over stream failed")
    finally:
        if client is not None:
            client.close()  # this process's copy: the web worker still holds the connection
        conn.close()


def serve(path: str, app_spec: str = "service.wsgi:app") -> None:
    """Accept hand-overs on the Unix socket ``path`` for ever, a greenlet each, for the app
    ``app_spec`` names (``module:attribute``, as gunicorn takes it: the web's own app)."""
    import importlib

    import gevent

    module, _, attribute = app_spec.partition(":")
    app = getattr(importlib.import_module(module), attribute or "app")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    binding = f"{path}.{os.getpid()}"
    listener.bind(binding)
    os.chmod(binding, 0o600)
    listener.listen(1024)
    os.replace(binding, path)  # the path appears once it accepts (and replaces a dead process's)
    print(f"hourglass: stream process on {path}", flush=True)
    while True:
        conn, _ = listener.accept()
        gevent.spawn(serve_one, app, conn)


def main(argv: list[str] | None = None) -> int:
    from gevent import monkey

    monkey.patch_all()  # before Redis and the app are imported: every socket and lock cooperates
    parser = argparse.ArgumentParser(prog="python -m service.streamhub", description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True, help="the Unix socket the web workers hand streams to")
    parser.add_argument("--app", default="service.wsgi:app", help="the web's WSGI app (module:attribute)")
    parser.add_argument("--nice", type=int, default=0, help="lower this process's CPU priority by N (os.nice)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if args.nice:
        os.nice(args.nice)
    serve(args.socket, args.app)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
