"""Push calls without a waiting thread: the caller process's HTTP client (httpx, asyncio).

The protocol, the outcome codes and what is recorded are those of ``workers.httpbot`` (its
docstring is the reference); so are the protections, made with asyncio instead of a watchdog
thread:

- the URL is checked against the allow-list of host and port, its host resolved once and every
  address checked (``core.seats.resolve_bot_url``, in a thread: name resolution blocks), and the
  connection goes to a checked address: the request URL names the address, while the ``Host``
  header and the TLS server name (httpx's ``sni_hostname``, which the certificate is checked
  against) keep the bot's host name;
- the deadline is one ``asyncio.timeout`` over the whole exchange, resolution included: a bot
  that trickles its headers or body costs its seat the deadline, never more;
- the answer is read as it arrives, at most ``MAX_RESPONSE_BYTES`` (a larger declared length is
  refused before reading), without content decoding (``Accept-Encoding: identity``);
- redirects are never followed, environment proxies are ignored, connections are never reused
  (a pooled connection could carry one bot's request to another name's checked address);
- the body is signed (``X-Hourglass-Signature``); nothing the bot sent leaves this module except
  in a server log line.
"""
from __future__ import annotations

import asyncio
import logging
import ssl
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from core.seats import BotTarget, BotUrlRejected, resolve_bot_url
from workers.httpbot import MAX_RESPONSE_BYTES, SIGNATURE_HEADER, BotCall, _pick_move, sign

DEFAULT_PORTS = {"http": 80, "https": 443}
log = logging.getLogger("hourglass.httpbot")


class _TooLarge(Exception):
    """The answer is (or says it is) longer than MAX_RESPONSE_BYTES."""


def client() -> httpx.AsyncClient:
    """The client a caller process shares between its calls (no pooling, no proxies, no redirects)."""
    return httpx.AsyncClient(follow_redirects=False, trust_env=False, timeout=None,
                             verify=ssl.create_default_context(),
                             limits=httpx.Limits(max_connections=None, max_keepalive_connections=0))


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _request_url(target: BotTarget, address: str) -> str:
    parts = urlsplit(target.url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return f"{target.scheme}://{_bracketed(address)}:{target.port}{path}"


def _host_header(target: BotTarget) -> str:
    host = _bracketed(target.host)
    return host if target.port == DEFAULT_PORTS[target.scheme] else f"{host}:{target.port}"


async def _read(response: httpx.Response) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise _TooLarge
    raw = bytearray()
    async for chunk in response.aiter_raw():
        raw += chunk
        if len(raw) > MAX_RESPONSE_BYTES:
            raise _TooLarge
    return bytes(raw)


async def post(http: httpx.AsyncClient, target: BotTarget, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    """POST to the first of the target's checked addresses that accepts a connection: (status, body)."""
    error: Exception = OSError(f"no address to connect to for {target.host}")
    for address in target.addresses:
        try:
            async with http.stream("POST", _request_url(target, address), content=body,
                                   headers={**headers, "Host": _host_header(target)},
                                   extensions={"sni_hostname": target.host}) as response:
                return response.status_code, await _read(response)
        except httpx.ConnectError as exc:
            error = exc
    raise error


async def ask_bot(http: httpx.AsyncClient, url: str, secret: str, body: bytes, timeout_s: float,
                  is_legal: Callable[[dict[str, Any]], bool]) -> BotCall:
    """POST ``body`` to ``url``; the bot's move if a valid one is all in within ``timeout_s``."""
    started = time.monotonic()
    call = await _exchange(http, url, secret, body, timeout_s, is_legal, started)
    log.info("http seat %s: %s in %.0f ms%s", url, call.outcome, call.rtt_ms, f" ({call.detail})" if call.detail else "")
    return call


async def _exchange(http: httpx.AsyncClient, url: str, secret: str, body: bytes, timeout_s: float,
                    is_legal: Callable[[dict[str, Any]], bool], started: float) -> BotCall:
    def call(outcome: str, detail: str, status: int | None = None, move: dict[str, Any] | None = None) -> BotCall:
        return BotCall(url, outcome, (time.monotonic() - started) * 1000, move=move, detail=detail, status=status)

    headers = {"Content-Type": "application/json", "Accept-Encoding": "identity", SIGNATURE_HEADER: sign(secret, body)}
    try:
        async with asyncio.timeout(max(0.01, timeout_s)):
            target = await asyncio.to_thread(resolve_bot_url, url)
            status, raw = await post(http, target, body, headers)
    except BotUrlRejected as exc:
        return call("rejected_url", str(exc))
    except TimeoutError:
        return call("timeout", f"no complete answer within {timeout_s:g} s")
    except _TooLarge:
        return call("too_large", f"answer larger than {MAX_RESPONSE_BYTES} bytes")
    except (httpx.HTTPError, OSError) as exc:
        return call("error", f"{type(exc).__name__}: {exc}")
    if status in (401, 403):  # the bot refused our signature: its secret is not the one we sign with
        return call("bad_signature", f"HTTP {status}: the bot refused the request's signature", status)
    if not 200 <= status < 300:
        return call("http_status", f"HTTP {status}", status)
    outcome, move, detail = _pick_move(raw, is_legal)
    return call(outcome, detail, status, move)
