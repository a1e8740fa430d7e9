"""Per-client limits that keep an anonymous flood from drowning the seat holders.

Flask-Limiter (a maintained extension, on the game Redis so every web process shares the
counters) enforces three limits keyed by the client's address:

- ``ANON_RATE_LIMIT`` requests per ``RATE_LIMIT_WINDOW`` seconds for calls without a bearer
  token (spectators, listings, the viewer);
- ``AUTH_FAIL_LIMIT`` answers of 401 per window to calls that carry a bearer token (a forged
  token burns this allowance, so guessing tokens is throttled per address);
- ``CREATE_RATE_LIMIT`` game creations per window.

Seat holders are limited per token (``RATE_LIMIT``) in ``service.web``; that window stays next
to the store so a move costs one Redis round trip. Every response carries the IETF draft
``RateLimit-Limit``/``RateLimit-Remaining``/``RateLimit-Reset`` headers of the limit that applied;
a breach is a 429 problem+json with ``Retry-After``. Behind a reverse proxy set
``TRUSTED_PROXIES`` (env ``HOURGLASS_TRUSTED_PROXIES``) to the number of proxies in front, so
the address comes from ``X-Forwarded-For``.
"""
from __future__ import annotations

import time
from typing import Any

from flask import Flask, Response, g, request
from flask_limiter import HeaderNames, Limiter, RateLimitExceeded
from werkzeug.middleware.proxy_fix import ProxyFix

from service.problems import ApiProblem, problem_response

HEADERS = {HeaderNames.LIMIT: "RateLimit-Limit", HeaderNames.REMAINING: "RateLimit-Remaining",
           HeaderNames.RESET: "RateLimit-Reset", HeaderNames.RETRY_AFTER: "Retry-After"}


def client_address() -> str:
    return request.remote_addr or "unknown"


def has_bearer_token() -> bool:
    return request.headers.get("Authorization", "").lower().startswith("bearer ")


def install(app: Flask, conn: Any) -> Limiter | None:
    """Attach the per-address limits to ``app``; None when limits are switched off."""
    config = app.config
    proxies = int(config.get("TRUSTED_PROXIES") or 0)
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
    window = int(config["RATE_LIMIT_WINDOW"])
    anon, fails, creates = (int(config[k]) for k in ("ANON_RATE_LIMIT", "AUTH_FAIL_LIMIT", "CREATE_RATE_LIMIT"))
    if int(config["RATE_LIMIT"]) <= 0 or not (anon or fails or creates):
        return None  # RATE_LIMIT=0 switches every limit off (tests, benchmarks)
    limiter = Limiter(
        client_address, app=app, key_prefix="hg:limit", strategy="fixed-window",
        storage_uri="redis://", storage_options={"connection_pool": conn.connection_pool},
        application_limits=[f"{anon}/{window} second"] if anon else [],
        application_limits_exempt_when=has_bearer_token,
        default_limits=[f"{fails}/{window} second"] if fails else [],
        default_limits_deduct_when=lambda response: response.status_code == 401,
        default_limits_exempt_when=lambda: not has_bearer_token(),
        headers_enabled=True, header_name_mapping=HEADERS,
    )
    app.register_error_handler(RateLimitExceeded, lambda exc: _breach(limiter, exc))
    if creates:
        from service.routes import games

        limiter.limit(f"{creates}/{window} second", methods=["POST"], override_defaults=False)(games.blp)
    return limiter


def _breach(limiter: Limiter, exc: RateLimitExceeded) -> Response:
    current = limiter.current_limit
    reset_at = current.reset_at if current is not None else time.time() + exc.limit.limit.get_expiry()
    retry = max(1, int(reset_at - time.time()) + 1)
    return problem_response(ApiProblem(429, "RATE_LIMITED", f"more than {exc.limit.limit} from this address; "
                                       f"retry in {retry} s", headers={"Retry-After": str(retry)}))


def token_headers(response: Response) -> Response:
    """RateLimit-* headers for a seat holder's request (its per-token window, see service.web)."""
    window = getattr(g, "token_window", None)
    if window is not None:  # a valid seat token: its own window is the one that matters
        limit, remaining, reset = window
        response.headers["RateLimit-Limit"] = str(limit)
        response.headers["RateLimit-Remaining"] = str(max(0, remaining))
        response.headers["RateLimit-Reset"] = str(reset)
    return response
