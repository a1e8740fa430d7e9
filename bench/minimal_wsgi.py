"""The baseline app of ``bench/api.py``: one minimal Flask route, served by the same gunicorn
command as the API (``gunicorn bench.minimal_wsgi:app``), so the bench can print the server's own
floor beside the POST move figures."""
from __future__ import annotations

from flask import Flask, Response, jsonify, request

app = Flask(__name__)


@app.post("/echo")
def echo() -> Response:
    body = request.get_json(silent=True) or {}
    return jsonify({"version": 1, "type": body.get("type")})
