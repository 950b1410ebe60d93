"""Pytest configuration shared by every test module.

- The solver's session fixtures (``tests.solver_fixtures``) are available everywhere.
- The data and cache folders point at a temporary folder for the whole run, so
  the tests never read or write a user's real saves, history or tables.
- Every test gets its own dice generator (``Die.r``), put back afterwards.
- ``data`` points the data folder at a fresh folder for one test.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from yahtzee.domain.die import Die

pytest_plugins = ["tests.solver_fixtures", "tests.browser_fixtures", "tests.postgres_fixtures"]

_FOLDERS: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """Point ``YAHTZEE_DATA_DIR`` and ``YAHTZEE_CACHE_DIR`` at a fresh temporary folder."""
    base = tempfile.mkdtemp(prefix="yahtzee-tests-")
    _FOLDERS.append(base)
    os.environ["YAHTZEE_DATA_DIR"] = os.path.join(base, "data")
    os.environ["YAHTZEE_CACHE_DIR"] = os.path.join(base, "cache")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the temporary folder."""
    for base in _FOLDERS:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(autouse=True)
def fresh_generator() -> Iterator[None]:
    """Give every test its own dice generator and put the shared one back afterwards."""
    saved = Die.r
    Die.r = random.Random()
    yield
    Die.r = saved


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``YAHTZEE_DATA_DIR`` at a fresh folder and return it."""
    folder = tmp_path / "data"
    monkeypatch.setenv("YAHTZEE_DATA_DIR", str(folder))
    return folder
