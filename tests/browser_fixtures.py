"""Shared fixture of the tests in a real browser: Debian's Chromium, headless, through Playwright.

Playwright is imported when a test asks for the browser, so that the rest of
the suite runs without it; each browser test module skips itself (or fails,
where ``YAHTZEE_REQUIRE_BROWSER`` is set) when Chromium is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync"]
"""Chromium's flags here: no sandbox (the tests may run as root) and no calls to the network."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (one per test module)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield launched
        launched.close()
