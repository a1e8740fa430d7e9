"""The verifiers run on an auditor's machine (issue 26): ``hourglass tournament verify`` and
``hourglass replay verify`` import and verify offline without the server's packages. A child
Python refuses every import of flask, redis, rq, marshmallow, gunicorn, gevent, httpx, requests and
cryptography, then runs both commands through the ``hourglass`` entry point on golden files."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import zipfile

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "golden"
ROOT = GOLDEN.parents[1]

CHILD = r"""
import importlib.abc, json, sys
BLOCKED = {"flask", "redis", "rq", "marshmallow", "flask_smorest", "gunicorn", "gevent", "httpx", "requests",
           "cryptography"}

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"not on an auditor's machine: {name}")
        return None

sys.meta_path.insert(0, Refuse())
from service.cli import main
codes = [main(["tournament", "verify", sys.argv[1], "--quiet"]), main(["replay", "verify", sys.argv[2]]),
         main(["replay", "verify", sys.argv[2], "--key", "00" * 32])]  # a signature check needs cryptography: usage error
loaded = sorted({m.split(".")[0] for m in sys.modules} & BLOCKED)
print(json.dumps({"codes": codes, "loaded": loaded}))
"""


def test_both_verifiers_run_without_the_server_packages(tmp_path: pathlib.Path) -> None:
    package = GOLDEN / "tournament-rules1-cathedral.zip"
    with zipfile.ZipFile(package) as archive:  # one of its games' replay bundles
        bundle = tmp_path / "game.jsonl"
        bundle.write_bytes(archive.read(next(n for n in archive.namelist() if n.startswith("games/"))))
    done = subprocess.run([sys.executable, "-c", CHILD, str(package), str(bundle)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    last = json.loads(done.stdout.strip().splitlines()[-1])
    assert last == {"codes": [0, 0, 2], "loaded": []}, done.stdout + done.stderr[-2000:]
    assert "verified: tournament" in done.stdout
    assert "needs the 'cryptography' package" in done.stderr
