"""Atomic file writes: a crash at any moment leaves either the old file or the new one.

The data go to a fresh temporary file in the same folder (``tempfile.mkstemp``,
so two processes never share one), are flushed and synced to disk, and only
then take the final name: ``os.replace``, or ``os.link`` when the name must
not exist yet (where the file system has no hard links, a check that the
name is free and then ``os.replace``).  Temporary names start with ``.`` and
end with ``.tmp``, and carry the writing process's ID:
``.<name>.<pid>.<random>.tmp``.

What a killed process left behind is removed the first time a process
writes into a folder: a temporary file whose process is no longer running,
and any temporary file more than ``STALE_AFTER`` seconds old (a name from
an older version without a process ID, or a process ID since reused).
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path

SIDE_BY_SIDE = 3
"""The fewest syncs worth handing to other threads (fewer are made one after the other)."""
STALE_AFTER = 24 * 60 * 60
"""Seconds after which any temporary file is taken for one a dead process left."""
_WITH_PID = re.compile(r"\..+\.([0-9]+)\.[^.]+\.tmp")
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


def _new_temp(path: Path) -> tuple[int, str]:
    """Create a new temporary file beside ``path``; return its descriptor and name.

    The first file made in a folder removes what dead processes left there.
    """
    if str(path.parent) not in _cleaned:
        _cleaned.add(str(path.parent))
        remove_stale_temps(path.parent)
    return tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.",
                            suffix=".tmp")


def _write_temp(path: Path, data: bytes) -> str:
    """Write ``data`` to a new temporary file beside ``path``, synced to disk; return its name."""
    fd, temp = _new_temp(path)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        _unlink_quietly(temp)
        raise
    return temp


def _unlink_quietly(name: str) -> None:
    """Delete the file ``name`` if it is there."""
    try:
        os.unlink(name)
    except OSError:
        pass


def write_atomic(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write ``data`` as the file ``path``, all or nothing.

    With ``exclusive``, ``FileExistsError`` is raised (and nothing changed)
    if ``path`` already exists, even when another process creates it at the
    same moment (where the file system has hard links).  Any ``OSError``
    leaves ``path`` as it was.
    """
    temp = _write_temp(path, data)
    try:
        if exclusive:
            _link(temp, path)
        else:
            os.replace(temp, path)
        _sync_folder(path.parent)
    finally:
        _unlink_quietly(temp)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the file ``fd``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _each(pool: Executor | None, calls: Sequence[Callable[[], None]]) -> list[OSError | None]:
    """Make every call (side by side on ``pool`` if given); return each one's ``OSError``."""
    errors: list[OSError | None] = [None] * len(calls)
    if pool is None or len(calls) < SIDE_BY_SIDE:
        for n, call in enumerate(calls):
            try:
                call()
            except OSError as error:
                errors[n] = error
        return errors
    running = [pool.submit(call) for call in calls]
    for n, future in enumerate(running):
        failure = future.exception()
        if isinstance(failure, OSError):
            errors[n] = failure
        elif failure is not None:
            raise failure
    return errors


def write_atomic_many(files: Sequence[tuple[Path, bytes]], *,
                      pool: Executor | None = None) -> list[OSError | None]:
    """Write each ``(path, data)`` as ``write_atomic`` does; return each one's error (None if none).

    Every file's data are written, then synced (side by side on ``pool``,
    so that the system can flush them together), then each file takes its
    name, then each folder is synced once for all its files: what several
    ``write_atomic`` calls promise, with one folder sync instead of one per
    file.  A file that fails is left as it was and does not stop the others.
    """
    errors: list[OSError | None] = [None] * len(files)
    temps: list[str | None] = [None] * len(files)
    opened: dict[int, int] = {}
    """The open temporary files: file number -> descriptor."""
    try:
        for n, (path, data) in enumerate(files):
            try:
                fd, temps[n] = _new_temp(path)
                opened[n] = fd
                _write_all(fd, data)
            except OSError as error:
                errors[n] = error
        written = [n for n in opened if errors[n] is None]
        synced = _each(pool, [functools.partial(os.fsync, opened[n]) for n in written])
        for n, failure in zip(written, synced):
            errors[n] = failure
        while opened:
            os.close(opened.popitem()[1])
        folders: dict[Path, None] = {}
        for n, (path, _) in enumerate(files):
            temp = temps[n]
            if temp is None or errors[n] is not None:
                continue
            try:
                os.replace(temp, path)
            except OSError as error:
                errors[n] = error
                continue
            temps[n] = None
            folders[path.parent] = None
        _each(pool, [functools.partial(_sync_folder, folder) for folder in folders])
    finally:
        for fd in opened.values():
            os.close(fd)
        for temp in temps:
            if temp is not None:
                _unlink_quietly(temp)
    return errors


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
