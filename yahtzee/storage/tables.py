"""The solver's table files in the cache folder: read whole, written atomically.

This is the store the application hands the solver (``yahtzee.solver.cache``
checks and decodes the bytes; this module only keeps them).  Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from yahtzee.storage.atomic import write_atomic
from yahtzee.storage.paths import cache_dir


@dataclass(frozen=True)
class TableFiles:
    """Table files kept in ``folder`` (the cache folder by default), one file per name."""

    folder: Path

    @classmethod
    def in_cache_folder(cls) -> TableFiles:
        """Return the store in the cache folder (``YAHTZEE_CACHE_DIR`` if set)."""
        return cls(cache_dir())

    def read(self, name: str) -> bytes | None:
        """Return the bytes stored as ``name``; None if there is no such file.

        ``OSError`` if it exists but cannot be read.
        """
        try:
            return (self.folder / name).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def write(self, name: str, data: bytes) -> None:
        """Store ``data`` as ``name``, atomically; ``OSError`` if it cannot be stored."""
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / name, data)

    def where(self, name: str) -> str:
        """Return the path of ``name``, for messages."""
        return str(self.folder / name)
