"""ReDoc at /redoc, served from the package (no CDN): the ``redoc.standalone.js`` bundle ships in
the ``flask-openapi-redoc`` wheel, whose files we serve without importing its Flask plugin.
Swagger UI stays at /docs (flask-swagger-ui, wired in ``service.app``).
"""
from __future__ import annotations

from importlib import resources

from flask import Blueprint, Response, send_from_directory

REDOC_DIR = str(resources.files("flask_openapi_redoc").joinpath("templates", "redoc", "js"))
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>hourglass API · ReDoc</title>
</head>
<body>
  <redoc spec-url="/openapi.json"></redoc>
  <script src="/redoc/redoc.standalone.js"></script>
</body>
</html>
"""

blp = Blueprint("redoc", __name__)


@blp.route("/redoc")
def redoc() -> Response:
    response = Response(PAGE, mimetype="text/html")
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; script-src 'self' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self' data:")
    return response


@blp.route("/redoc/redoc.standalone.js")
def redoc_js() -> Response:
    return send_from_directory(REDOC_DIR, "redoc.standalone.js", max_age=86_400)
