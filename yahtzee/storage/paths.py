"""Where saves, the game history and solver tables live on disk.

``YAHTZEE_DATA_DIR`` and ``YAHTZEE_CACHE_DIR`` override the defaults, which
follow each platform's convention for per-user data and cache folders.  The
standard library is enough here so that two people can play on a bare Python.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "yahtzee"


def _platform_dir(kind: str) -> Path:
    """Return the per-user folder of ``kind`` (``"data"`` or ``"cache"``) for this platform."""
    home = Path.home()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / APP / ("Cache" if kind == "cache" else "Data")
    if sys.platform == "darwin":
        sub = "Caches" if kind == "cache" else "Application Support"
        return home / "Library" / sub / APP
    variable, fallback = (("XDG_CACHE_HOME", home / ".cache") if kind == "cache"
                          else ("XDG_DATA_HOME", home / ".local" / "share"))
    return Path(os.environ.get(variable) or fallback) / APP


def data_dir() -> Path:
    """Return the folder for saves and history (``YAHTZEE_DATA_DIR`` if set)."""
    override = os.environ.get("YAHTZEE_DATA_DIR")
    return Path(override) if override else _platform_dir("data")


def cache_dir() -> Path:
    """Return the folder for solver tables (``YAHTZEE_CACHE_DIR`` if set)."""
    override = os.environ.get("YAHTZEE_CACHE_DIR")
    return Path(override) if override else _platform_dir("cache")
