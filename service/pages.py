"""The public pages, rendered on the server (Jinja templates in ``service/templates``; issue 26).

- ``/leaderboard`` (the games) and ``/leaderboard/<game>``: the tournament leaderboard and the
  game's ladders, each bot linking to its page;
- ``/tournaments``: running and finished tournaments, linking to their pages and audit packages;
- ``/bots/<id>``: a bot's record: owner, tournaments and games, its ladder ratings with the
  rating over time as an inline SVG plot, each ladder game's calls, timeouts, errors and latency;
- ``/favicon.ico``.

Each page is built from the same functions as its JSON in the API (``GET /api/v1/leaderboard``,
``/api/v1/tournaments``, ``/api/v1/bots/{id}/record``), so the two never disagree. Pages are for
people and stay out of the OpenAPI document (a plain Flask blueprint, as the tournament page is).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import flask
from flask import Response, render_template, send_from_directory

from domain.games import game_names
from service.problems import ApiProblem

pages = flask.Blueprint("public_pages", __name__, template_folder="templates")
STATIC_DIR = str(resources.files("service").joinpath("static"))
PLOT_W, PLOT_H, PAD = 640, 200, 32


@pages.route("/favicon.ico", methods=["GET"])
def favicon() -> Response:
    response = send_from_directory(STATIC_DIR, "favicon.ico", mimetype="image/vnd.microsoft.icon", max_age=86_400)
    return response


@pages.route("/leaderboard", methods=["GET"])
def leaderboards_page() -> str:
    return render_template("leaderboards.html", games=sorted(game_names()))


@pages.route("/leaderboard/<string:game>", methods=["GET"])
def leaderboard_page(game: str) -> Response | str:
    from service.routes.tournaments import leaderboard_json

    try:
        board = leaderboard_json(game, None)
    except ApiProblem as exc:
        return Response(render_template("missing.html", title=exc.detail), status=exc.status)
    return render_template("leaderboard.html", board=board)


@pages.route("/tournaments", methods=["GET"])
def tournaments_page() -> str:
    from service.routes.tournaments import tournament_rows

    rows = tournament_rows()
    return render_template("tournaments.html", running=[r for r in rows if r["status"] == "running"],
                           ended=[r for r in rows if r["status"] != "running"])


@pages.route("/bots/<string:bot_id>", methods=["GET"])
def bot_page(bot_id: str) -> Response | str:
    """A bot's public record for people (its JSON: ``GET /api/v1/bots/{id}/record``)."""
    from service.routes.bots import record_json

    try:
        record = record_json(bot_id)
    except ApiProblem as exc:
        return Response(render_template("missing.html", title=exc.detail), status=exc.status)
    plots = {row["ladder"]: rating_plot(row["history"]) for row in record["ladders"]}
    return render_template("bot.html", record=record, plots=plots)


def rating_plot(points: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Coordinates of a bot's rating over its ladder games for an inline SVG: mu as a line, the
    band mu ± sigma, and the ordinal (mu − 3σ) as a second line; y spans what the points reach."""
    if not points:
        return {"empty": True, "width": PLOT_W, "height": PLOT_H}
    lows = [p["mu"] - p["sigma"] for p in points] + [p["ordinal"] for p in points]
    highs = [p["mu"] + p["sigma"] for p in points]
    low, high = min(lows), max(highs)
    if high - low < 1e-9:
        high = low + 1.0
    span_x = max(1, len(points) - 1)

    def x(i: int) -> float:
        return round(PAD + (PLOT_W - 2 * PAD) * (i / span_x if len(points) > 1 else 0.5), 1)

    def y(v: float) -> float:
        return round(PLOT_H - PAD - (PLOT_H - 2 * PAD) * (v - low) / (high - low), 1)

    xs = [x(i) for i in range(len(points))]
    mu = [(xs[i], y(p["mu"])) for i, p in enumerate(points)]
    upper = [f"{xs[i]},{y(p['mu'] + p['sigma'])}" for i, p in enumerate(points)]
    lower = [f"{xs[i]},{y(p['mu'] - p['sigma'])}" for i, p in enumerate(points)]
    return {"empty": False, "width": PLOT_W, "height": PLOT_H, "pad": PAD,
            "mu": " ".join(f"{a},{b}" for a, b in mu),
            "ordinal": " ".join(f"{xs[i]},{y(p['ordinal'])}" for i, p in enumerate(points)),
            "band": " ".join(upper + lower[::-1]),
            "dots": [{"x": a, "y": b, "title": f"after {p['game_id']}: mu {p['mu']:.2f}, sigma {p['sigma']:.2f}"}
                     for (a, b), p in zip(mu, points)],
            "top": f"{high:.1f}", "bottom": f"{low:.1f}", "games": len(points)}
