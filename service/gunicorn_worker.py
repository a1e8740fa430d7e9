"""gunicorn worker classes whose own error answers are problem+json, like every other error.

gunicorn answers a request it cannot parse (request line too long or malformed, too many or too
long headers, a bad header name, an unknown transfer coding…) before the app sees it, with a
small HTML page. These classes keep gunicorn's classification of the error (status and message,
``Worker.handle_error``) and replace only how it is written: gunicorn writes it through
``gunicorn.util.write_error``, which :func:`write_problem` stands in for in the worker process.

``hourglass serve`` runs :class:`ProblemGeventWorker` (one greenlet per connection, so slow
clients and SSE streams cost no thread); :class:`ProblemThreadWorker` is the gthread variant.
"""
from __future__ import annotations

import json
import socket

from gunicorn import util
from gunicorn.workers.ggevent import GeventWorker
from gunicorn.workers.gthread import ThreadWorker

PROBLEM_JSON = "application/problem+json"  # service.problems' (not imported: this module loads in
# gunicorn's master before gevent patches the standard library, and must not pull in redis or ssl)
_KINDS = {400: "MALFORMED", 403: "FORBIDDEN", 431: "HEADERS_TOO_LARGE", 500: "INTERNAL", 501: "NOT_IMPLEMENTED"}
MAX_DETAIL = 200


def problem_bytes(status: int, reason: str, message: str) -> bytes:
    """A complete HTTP/1.1 answer carrying the problem+json body for a gunicorn error."""
    kind = _KINDS.get(status, "HTTP_ERROR")
    body = json.dumps({
        "type": f"urn:hourglass:problem:{kind.lower().replace('_', '-')}", "title": reason, "status": status,
        "detail": (message or reason)[:MAX_DETAIL], "kind": kind,
    }, sort_keys=True).encode("utf-8")
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: {PROBLEM_JSON}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """``gunicorn.util.write_error``'s signature, writing problem+json instead of HTML."""
    util.write_nonblock(sock, problem_bytes(status_int, reason, mesg))


class _ProblemErrors:
    def init_process(self) -> None:
        util.write_error = write_problem  # gunicorn's workers look it up at each error
        super().init_process()  # type: ignore[misc]


class ProblemGeventWorker(_ProblemErrors, GeventWorker):
    """gunicorn's gevent worker, errors as problem+json."""


class ProblemThreadWorker(_ProblemErrors, ThreadWorker):
    """gunicorn's gthread worker, errors as problem+json."""
