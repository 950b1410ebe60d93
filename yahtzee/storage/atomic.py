"""Atomic file writes: a crash at any moment leaves either the old file or the new one.

The data go to a temporary file in the same folder, are flushed and
synced to disk, and only then take the final name with ``os.replace``
(or ``os.link`` when the name must not exist yet).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO


def temp_name(path: Path) -> Path:
    """Return the temporary name used while ``path`` is being written by this process."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def is_temp_name(name: str) -> bool:
    """Return whether ``name`` is a temporary file of an unfinished write."""
    return name.startswith(".") and name.endswith(".tmp")


def _write(stream: BinaryIO, data: bytes) -> None:
    """Write ``data`` to ``stream`` and push it to the disk."""
    stream.write(data)
    stream.flush()
    os.fsync(stream.fileno())


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
    if ``path`` already exists.  Any ``OSError`` leaves ``path`` as it was.
    """
    temp = temp_name(path)
    try:
        with open(temp, "wb") as stream:
            _write(stream, data)
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


def _link(temp: Path, path: Path) -> None:
    """Give ``temp``'s contents the name ``path``; ``FileExistsError`` if it is taken."""
    try:
        os.link(temp, path)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(path):
            raise FileExistsError(f"{path} exists") from None
        os.replace(temp, path)
