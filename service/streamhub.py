"""The stream process: live streams handed over by the web workers, so no fan-out runs in a
process that answers moves.

``hourglass serve`` starts it beside gunicorn (``--no-stream-hub`` leaves it out) and gives the
web workers its Unix socket (``HOURGLASS_STREAM_HUB``). A web worker that accepted a live stream
(it checked the token, the open-stream caps and the resume point, and sent the headers and the
opening frame) passes the client's socket to this process (``SCM_RIGHTS``) with what the stream
needs: game, seat, resume point, format, framing and heartbeat. This process serves it exactly
as a web worker would have (``service.routes.events._stream``: the gap, then the feed writing
each batch onto the socket, keep-alives between), writing what gunicorn would have written. A
joining stream never loads its game: the process holds one folded game per game id, shared by
its streams and extended from the feed (``service.streams.Hub``).

The web worker keeps one idle greenlet per handed-over stream, asleep on the control
connection (the stream's slot is renewed with the worker's others, ``service.limits.Leases``);
when this process closes that connection the stream is over and the worker ends the response
(for HTTP/1.1, the last chunk). A web worker that cannot reach this process serves the stream
itself. If this process dies, its streams drop and the clients resume with ``Last-Event-ID``;
the supervisor starts it again.

``--nice N`` lowers this process's CPU priority by N (``hourglass serve`` passes
:data:`DEFAULT_NICE`): where the web and the fan-out share cores, the kernel then runs a move
first and the fan-out in the time left, so a crowd of spectators does not slow the seats'
POSTs; the streams lag instead, within the lag bound (``STREAM_LAG_S``): a subscriber further
behind is caught up with a resync line. :func:`lag_figures` asks a running stream process for
its measured lag (``service.streamlag``).

    python -m service.streamhub --socket PATH [--app service.wsgi:app] [--nice N]
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
from typing import Any

log = logging.getLogger(__name__)

HUB_ENV = "HOURGLASS_STREAM_HUB"
LAG_REQUEST = {"op": "lag"}  # a message without a socket asking for the lag figures (lag_figures)
DEFAULT_NICE = 5  # bench/streams.py --hub --burn 2 (cores busy with other work): worst lag 0.2 s at 0, 0.4 s at 5, 1.2 s at 10
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


def wait_until_served(control: socket.socket) -> None:
    """Until the stream process closes ``control`` (the stream is over). No timer: the stream's
    slot is renewed with the process's others (``service.limits.Leases``), so the wait costs
    nothing until the end."""
    control.settimeout(None)
    try:
        while control.recv(64):
            pass
    except OSError:
        return
    finally:
        control.close()


def _received(conn: socket.socket) -> tuple[dict[str, Any], int | None]:
    message, fds, _, _ = socket.recv_fds(conn, MAX_PARAMS, 1)
    while not message.endswith(b"\n") and len(message) < MAX_PARAMS:
        more = conn.recv(MAX_PARAMS)
        if not more:
            break
        message += more
    params = json.loads(message)
    if params == LAG_REQUEST and not fds:
        return params, None
    if len(fds) != 1:
        for fd in fds:
            os.close(fd)
        raise ValueError("a hand-over carries exactly one socket")
    return params, fds[0]


def lag_figures(path: str, timeout: float = 10.0) -> dict[str, Any]:
    """The stream process's lag figures (``service.streamlag.LagStats.snapshot``, with its bound)
    and ``subscribers``, the live subscribers it holds."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as control:
        control.settimeout(timeout)
        control.connect(path)
        control.sendall(json.dumps(LAG_REQUEST).encode() + b"\n")
        answer = b""
        while chunk := control.recv(65536):
            answer += chunk
    figures: dict[str, Any] = json.loads(answer)
    return figures


def serve_one(app: Any, conn: socket.socket) -> None:
    """One handed-over stream, start to end; closing ``conn`` tells the web worker it is over.
    A message without a socket that asks for the lag figures gets them (the Unix socket is the
    operator's: mode 0600)."""
    from service.routes.events import FORMATS, _stream
    from service.streamlag import STATS
    from service.streamsink import chunk

    client = None
    try:
        params, fd = _received(conn)
        if fd is None:
            streams = app.extensions["hourglass.streams"]
            figures = {**STATS.snapshot(streams.bound), "subscribers": streams.subscribers()}
            conn.sendall(json.dumps(figures).encode())
            return
        client = socket.socket(fileno=fd)
        with app.app_context():
            after = None if params["after"] is None else int(params["after"])  # None: a fresh stream
            frames = _stream(params["game"], params["seat"], after, float(params["heartbeat"]),
                             FORMATS[params["form"]], client, bool(params["chunked"]))
            next(frames)  # the opening: the web worker sent it with the headers
            for text in frames:  # the gap and keep-alives, written as gunicorn would have
                data = text.encode("utf-8")
                if not data:
                    continue  # an empty chunk would end the chunked body
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

    from service.streams import Hub

    module, _, attribute = app_spec.partition(":")
    app = getattr(importlib.import_module(module), attribute or "app")
    app.extensions["hourglass.streams"] = Hub(app.extensions["hourglass"], float(app.config["STREAM_LAG_S"]),
                                              yielding=False)  # nothing here waits on a fan-out but joins
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
