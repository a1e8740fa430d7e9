"""ReDoc at /redoc, served from the package (no CDN): the ``redoc.standalone.js`` bundle ships in
the ``flask-openapi-redoc`` wheel, whose files we serve without importing its Flask plugin. That
bundle is an ES module; ``static/redoc-init.js`` starts it with ReDoc's telemetry off, and the
page's Content-Security-Policy keeps the browser on this origin. ReDoc's attribution logo, which
the bundle always asks a CDN for, is served from here instead (``static/redoc-logo.svg``, our own
drawing): the bundle is served with those two addresses rewritten, so the browser never tries
another origin.
Swagger UI stays at /docs (flask-swagger-ui, wired in ``service.app``).
"""
from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from flask import Blueprint, Response, send_from_directory

REDOC_DIR = str(resources.files("flask_openapi_redoc").joinpath("templates", "redoc", "js"))
STATIC_DIR = str(resources.files("service").joinpath("static"))
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>hourglass API · ReDoc</title>
</head>
<body>
  <div id="redoc"></div>
  <script type="module" src="/redoc/init.js"></script>
</body>
</html>
"""

LOGO = "/redoc/logo.svg"
CDN_LOGOS = ("https://cdn.redoc.ly/redoc/logo-mini-full.svg", "https://cdn.redoc.ly/redoc/logo-mini.svg")

blp = Blueprint("redoc", __name__)


@blp.route("/redoc")
def redoc() -> Response:
    response = Response(PAGE, mimetype="text/html")
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; script-src 'self' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self'")
    return response


@cache
def _bundle() -> bytes:
    """ReDoc's bundle with its logo addresses pointing here (read and rewritten once per process)."""
    text = (Path(REDOC_DIR) / "redoc.standalone.js").read_text(encoding="utf-8")
    for address in CDN_LOGOS:
        text = text.replace(address, LOGO)
    return text.encode("utf-8")


@blp.route("/redoc/redoc.standalone.js")
def redoc_js() -> Response:
    response = Response(_bundle(), mimetype="text/javascript")
    response.cache_control.public, response.cache_control.max_age = True, 86_400
    return response


@blp.route(LOGO)
def redoc_logo() -> Response:
    return send_from_directory(STATIC_DIR, "redoc-logo.svg", max_age=86_400)


@blp.route("/redoc/init.js")
def redoc_init() -> Response:
    return send_from_directory(STATIC_DIR, "redoc-init.js", max_age=0)
