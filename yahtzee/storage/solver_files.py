"""The solver's table files in the cache folder: read whole, written atomically.

This is the store the application hands the solver (``yahtzee.solver.cache``
checks and decodes the bytes; this module only keeps them).  Standard
library only.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from yahtzee.storage.atomic import write_atomic
from yahtzee.storage.problems import move_aside
from yahtzee.storage.paths import cache_dir


@dataclass(frozen=True)
class SolverFiles:
    """Table files kept in ``folder`` (the cache folder by default), one file per name."""

    folder: Path

    @classmethod
    def in_cache_folder(cls) -> SolverFiles:
        """Return the store in the cache folder (``YAHTZEE_CACHE_DIR`` if set)."""
        return cls(cache_dir())

    def read(self, name: str, max_bytes: int | None = None) -> bytes | None:
        """Return the bytes stored as ``name``; None if there is no such file.

        Only a regular file of at most ``max_bytes`` is read: anything else in
        its place (a folder, a pipe, a device, an oversized file) is moved
        aside and ``OSError`` raised, saying so; ``OSError`` too if it exists
        but cannot be read.
        """
        path = self.folder / name
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                raise self._set_aside(path, "not a regular file")
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except (FileNotFoundError, NotADirectoryError):
            return None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise self._set_aside(path, "not a regular file")
        with os.fdopen(fd, "rb") as stream:
            if max_bytes is None:
                return stream.read()
            if info.st_size <= max_bytes:
                data = stream.read(max_bytes + 1)
                if len(data) <= max_bytes:
                    return data
        raise self._set_aside(path, f"{max(info.st_size, max_bytes + 1)} bytes, "
                                    "more than a table can have")

    @staticmethod
    def _set_aside(path: Path, reason: str) -> OSError:
        """Move what is at ``path`` aside and return the error that says so and why."""
        moved_to = move_aside(path)
        kept = (f"moved aside to {moved_to.name}" if moved_to is not None
                else "it could not be moved aside")
        return OSError(errno.EINVAL, f"{reason}; {kept}", str(path))

    def write(self, name: str, data: bytes) -> None:
        """Store ``data`` as ``name``, atomically; ``OSError`` if it cannot be stored."""
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / name, data)

    def where(self, name: str) -> str:
        """Return the path of ``name``, for messages."""
        return str(self.folder / name)
