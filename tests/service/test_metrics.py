"""Issue 23: ``GET /metrics`` for operators (service/metrics.py, core/metrics.py).

The abuse case: a stranger gets a 401 (counted against the address's failed-auth budget) or,
where no token is configured, a 404; never a figure. With the operators' token the scrape shows
figures summed over processes (another process's are in it), and names no game, token, secret
or URL, even of a game created only for itself."""
from __future__ import annotations

import subprocess
import sys
import uuid
from typing import Any

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from core import metrics
from core.games import GameService
from service.app import create_app
from tests.conftest import REDIS_URL

TOKEN = "metrics-" + uuid.uuid4().hex


@pytest.fixture
def reset(conn: redis.Redis) -> Any:
    saved = conn.hgetall(metrics.KEY)
    conn.delete(metrics.KEY)
    yield
    conn.delete(metrics.KEY)
    if saved:
        conn.hset(metrics.KEY, mapping=saved)


def app_client(conn: redis.Redis, **config: Any) -> Any:
    return create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "RATE_LIMIT": 0, **config}).test_client()


def families(text: str) -> dict[str, Any]:
    return {f.name: f for f in text_string_to_metric_families(text)}


def test_without_a_configured_token_there_are_no_metrics(conn: redis.Redis) -> None:
    answer = app_client(conn).get("/metrics")
    assert answer.status_code == 404 and answer.mimetype == "application/problem+json"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}])
def test_a_stranger_gets_a_401_and_no_figure(conn: redis.Redis, headers: dict[str, str]) -> None:
    answer = app_client(conn, METRICS_TOKEN=TOKEN).get("/metrics", headers=headers)
    assert answer.status_code == 401 and answer.mimetype == "application/problem+json"
    assert "hourglass_" not in answer.get_data(as_text=True)


def test_failed_scrapes_draw_from_the_failed_auth_budget(conn: redis.Redis) -> None:
    client = create_app({"REDIS": conn, "TESTING": True, "ADVANCE": "off", "METRICS_TOKEN": TOKEN,
                         "AUTH_FAIL_LIMIT": 2}).test_client()
    address = {"REMOTE_ADDR": f"10.9.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"}
    codes = [client.get("/metrics", headers={"Authorization": "Bearer guess"}, environ_base=address).status_code
             for _ in range(3)]
    assert codes == [401, 401, 429]


def test_figures_add_up_across_processes_and_name_no_game(conn: redis.Redis, reset: Any, created: list[str]) -> None:
    svc = GameService(conn, client_seeds="any")
    game = svc.create({"game": "cathedral", "seats": [{"name": "Ann"}, {"name": "Bob"}]})
    created.append(game["id"])
    client = app_client(conn, METRICS_TOKEN=TOKEN)
    assert client.get("/api/v1/games/no-such-game").status_code == 404  # one problem answer, counted
    metrics.bot_call("good-bot", "ok", 0.02)
    metrics.job_slice("fast", 0.004, 3)
    metrics.flush()
    script = ("from core import metrics; import redis; "
              f"metrics.use(redis.Redis.from_url({REDIS_URL!r})); "
              "metrics.bot_call('good-bot', 'timeout', 2.0); metrics.problem(503); metrics.flush()")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)

    answer = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200 and answer.mimetype.startswith("text/plain")
    text = answer.get_data(as_text=True)
    found = families(text)
    calls = {(s.labels["outcome"], s.name): s.value for s in found["hourglass_bot_call_seconds"].samples
             if s.labels.get("bot") == "good-bot" and s.name.endswith("_count")}
    assert calls == {("ok", "hourglass_bot_call_seconds_count"): 1.0, ("timeout", "hourglass_bot_call_seconds_count"): 1.0}
    problems = {s.labels["status"]: s.value for s in found["hourglass_http_problems"].samples
                if s.name == "hourglass_http_problems_total"}
    assert problems["404"] >= 1 and problems["503"] == 1  # this process's and the other one's
    assert "hourglass_queue_depth" in found and "hourglass_job_slice_seconds" in found
    secrets = [game["id"], *(s.get("token", "") for s in game["seats"]), "http://", "https://"]
    assert not [s for s in secrets if s and s in text]


def test_a_bot_label_is_a_bot_name_never_a_url(conn: redis.Redis) -> None:
    assert metrics.bot_label(None, conn) == "unregistered"
    name = f"label-{uuid.uuid4().hex[:6]}"
    assert metrics.bot_label(name, conn) == name
    conn.srem(metrics.BOTS_KEY, name)
