"""Atomic file writes: a crash at any moment leaves either the old file or the new one.

The data go to a temporary file in the same folder, named after the writing
process and numbered within it (so two writers never share one), are flushed
and synced to disk (unless the write need not be durable), and only then
take the final name: ``os.replace``, or ``os.link`` when the name must
not exist yet (where the file system has no hard links, a check that the
name is free and then ``os.replace``).  Temporary names start with ``.`` and
end with ``.tmp``, and carry the writing process's ID:
``.<name>.<pid>.<number>.tmp``.

``append`` adds a line to an existing file in one write instead: cheaper,
and all or nothing for readers that drop an unfinished last line.

What a killed process left behind is removed the first time a process
writes into a folder: a temporary file whose process is no longer running,
and any temporary file more than ``STALE_AFTER`` seconds old (a name from
an older version without a process ID, or a process ID since reused).
"""

from __future__ import annotations

import itertools
import os
import re
import time
from pathlib import Path

STALE_AFTER = 24 * 60 * 60
"""Seconds after which any temporary file is taken for one a dead process left."""
_WITH_PID = re.compile(r"\..+\.([0-9]+)\.[^.]+\.tmp")
_numbers = itertools.count()
"""Numbers the temporary files of this process's writes (``next`` is atomic under the GIL)."""
_cleaned: set[str] = set()
"""The folders this process has already cleaned."""


def is_temp_name(name: str) -> bool:
    """Return whether ``name`` is a temporary file of an unfinished write."""
    return name.startswith(".") and name.endswith(".tmp")


def _process_gone(pid: int) -> bool:
    """Return whether no process has the ID ``pid`` (False where that cannot be told)."""
    if os.name != "posix" or pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def remove_stale_temps(folder: Path) -> list[str]:
    """Remove the temporary files that dead processes left in ``folder``; return their names.

    A file is left if its process still runs and it is not older than
    ``STALE_AFTER``; nothing but temporary names is ever touched.
    """
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        if not is_temp_name(name):
            continue
        path = folder / name
        match = _WITH_PID.fullmatch(name)
        try:
            stale = (match is not None and _process_gone(int(match.group(1)))
                     or now - os.lstat(path).st_mtime > STALE_AFTER)
            if stale:
                os.unlink(path)
                removed.append(name)
        except OSError:
            continue
    return removed


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


def write_atomic(path: Path, data: bytes, *, exclusive: bool = False,
                 durable: bool = True, mode: int = 0o600) -> None:
    """Write ``data`` as the file ``path``, all or nothing.

    A new file gets the permissions ``mode`` less the process's umask (the
    default: its owner's alone; 0o666 makes a file as ``open`` does).

    ``durable`` (the default) waits until the file and its name are on the
    disk, so that they survive a crash of the machine; without it they
    survive the end of the process (the system writes them soon after),
    which is enough for what can be made again (a computer's move, replayed
    from the save before it).

    With ``exclusive``, ``FileExistsError`` is raised (and nothing changed)
    if ``path`` already exists, even when another process creates it at the
    same moment (where the file system has hard links).  Any ``OSError``
    leaves ``path`` as it was.
    """
    if str(path.parent) not in _cleaned:
        _cleaned.add(str(path.parent))
        remove_stale_temps(path.parent)
    temp = str(path.parent / f".{path.name}.{os.getpid()}.{next(_numbers)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), mode)
    renamed = False
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            if durable:
                os.fsync(stream.fileno())
        if exclusive:
            _link(temp, path)
        else:
            os.replace(temp, path)
            renamed = True
        if durable:
            _sync_folder(path.parent)
    finally:
        if not renamed:  # the name a link copied, or a write that failed
            try:
                os.unlink(temp)
            except OSError:
                pass


def append(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Add ``data`` (one line, ending in a newline) at the end of the file ``path``.

    One write; ``durable`` waits until the data are on the disk (the data
    only: the name is not new).  ``FileNotFoundError`` if the file is gone
    (nothing is created); ``OSError`` if not all was written, which may leave
    part of the line at the end of the file, where readers drop it.
    """
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
    try:
        if os.write(fd, data) != len(data):
            raise OSError(f"{path}: only part of a line was written")
        if durable:
            _sync_data(fd)
    finally:
        os.close(fd)


def _sync_data(fd: int) -> None:
    """Wait until the data of the open file ``fd`` are on the disk."""
    if hasattr(os, "fdatasync"):
        os.fdatasync(fd)
    else:
        os.fsync(fd)


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
