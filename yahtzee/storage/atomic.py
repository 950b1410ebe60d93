"""Atomic file writes: a crash at any moment leaves either the old file or the new one.

The data go to a fresh temporary file in the same folder (``tempfile.mkstemp``,
so two processes never share one), are flushed and synced to disk, and only
then take the final name: ``os.replace``, or ``os.link`` when the name must
not exist yet (where the file system has no hard links, a check that the
name is free and then ``os.replace``).  Temporary names start with ``.`` and
end with ``.tmp``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def is_temp_name(name: str) -> bool:
    """Return whether ``name`` is a temporary file of an unfinished write."""
    return name.startswith(".") and name.endswith(".tmp")


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable, where the platform allows it."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write ``data`` as the file ``path``, all or nothing.

    With ``exclusive``, ``FileExistsError`` is raised (and nothing changed)
    if ``path`` already exists, even when another process creates it at the
    same moment (where the file system has hard links).  Any ``OSError``
    leaves ``path`` as it was.
    """
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if exclusive:
            _link(temp, path)
        else:
            os.replace(temp, path)
        _sync_folder(path.parent)
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass


def _link(temp: str, path: Path) -> None:
    """Give ``temp``'s contents the name ``path``; ``FileExistsError`` if it is taken.

    Where the file system has no hard links (``link`` fails otherwise), the
    name is checked and then taken with ``os.replace``.
    """
    try:
        os.link(temp, path)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(path):
            raise FileExistsError(f"{path} exists") from None
        os.replace(temp, path)
