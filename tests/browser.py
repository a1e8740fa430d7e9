"""What every browser test shares: Debian's chromium driven by Playwright, skipped (saying why)
where either is missing, and the folder the tests leave their screenshots in."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def playwright_or_skip() -> Any:
    """``playwright.sync_api``, or a skip of the calling module (or test) when the browser or
    Playwright is missing."""
    if not CHROMIUM.exists():
        pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
                    allow_module_level=True)
    return pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright for Python")


def launch(pw: Any) -> Any:
    """A headless chromium from a running ``sync_playwright()``."""
    return pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
