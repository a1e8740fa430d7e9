"""The viewer is plain static files (the import direction is checked by tests/test_layers.py)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names




def test_viewer_is_plain_static_files() -> None:
    """The viewer is static files and ES modules (no build step, nothing from the internet)."""
    static = ROOT / "replays" / "static"
    kinds = {p.suffix for p in static.iterdir()}
    assert kinds <= {".html", ".css", ".js"}
    html = (static / "viewer.html").read_text(encoding="utf-8")
    assert '<script type="module" src="/replays/static/viewer.js">' in html and "<script>" not in html  # CSP 'self'
    for path in static.iterdir():
        text = path.read_text(encoding="utf-8")
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text, path.name
