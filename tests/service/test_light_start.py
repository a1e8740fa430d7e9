"""Light start-up of the web app (issue 27): ``import service.wsgi`` leaves the games' rules, the
OpenAPI document and the libraries only some requests need for later, and the first request that
needs each still gets it. Checked in fresh interpreters; nothing here measures time."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LATER = ["domain.orleans.game", "domain.artificium.game", "domain.cathedral.game", "prometheus_client",
         "cryptography.fernet", "openskill", "workers.tournaments"]


def _fresh(code: str) -> Any:
    """What ``code`` prints last as JSON, run in a fresh interpreter against the test Redis db."""
    url = os.environ["HOURGLASS_TEST_REDIS_URL"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": url, "HOURGLASS_ADVANCE": "rq"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_the_wsgi_app_imports_no_game_and_builds_no_document() -> None:
    loaded = _fresh("import sys, json\nimport service.wsgi\napi = service.wsgi.app.extensions['flask-smorest']"
                    "['apis']['']['ext_obj']\n"
                    f"print(json.dumps([[m for m in {LATER!r} if m in sys.modules], api._built is None]))")
    assert loaded == [[], True]


def test_the_first_document_request_builds_it_with_every_game() -> None:
    found = _fresh("import sys, json\nimport service.wsgi\nclient = service.wsgi.app.test_client()\n"
                   "doc = client.get('/openapi.json').get_json()\nagain = client.get('/openapi.json').get_json()\n"
                   "print(json.dumps([sorted(m for m in sys.modules if m.startswith('domain.') and m.endswith('.game')),"
                   " doc == again, sorted(doc['components']['schemas'])]))")
    games, stable, schemas = found
    assert games == ["domain.artificium.game", "domain.cathedral.game", "domain.orleans.game"]
    assert stable
    assert {"Move", "OrleansMove", "ArtificiumMove", "CathedralMove", "MoveResult", "Problem"} <= set(schemas)
