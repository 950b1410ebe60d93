"""Lines appended to files and waited for on the disk off the interpreter's lock, where the
compiled ``_disk`` module was built.

A browser table answers a person's move once its save is on the disk.
Waited for in Python threads, each of the write's system calls gives the
interpreter's lock up and takes it again, and with a thousand games at
once those threads keep taking it from the event loop, whose answers queue
behind them.  ``BackgroundAppends`` hands each line to the compiled module's
threads, which open, write, wait for the disk and close without the lock;
the caller watches ``fileno`` and calls ``collect`` when it is readable,
which calls each finished append's ``done`` with ``None`` or the
``OSError`` it met.  Without the compiled module (no C compiler at the
install, or a system without POSIX threads) ``available`` is False and the
caller writes as before (``atomic.append`` in a thread of its own).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from pathlib import Path

try:
    from yahtzee.storage import _disk
except ImportError:  # not compiled: callers write in threads of their own
    _disk = None  # type: ignore[assignment]

APPEND_THREADS = 16
"""Threads that wait for the disk side by side: saves of different games reach it together."""

Done = Callable[[OSError | None], None]
_KEYS = itertools.count()
_WAITING: dict[int, Done] = {}
"""What to call when each append submitted in this process is done, by its key."""


def _forget_the_parent_s() -> None:
    """In a child after ``fork``: the parent's appends are its own to be told of."""
    _WAITING.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_the_parent_s)


class BackgroundAppends:
    """Appends to existing files, each waited for on the disk, by threads that never hold the
    interpreter's lock; the results are handed back on the thread that calls ``collect``.

    The compiled threads, and the appends waiting, are the process's own,
    shared by every appender: the threads start at the first ``fileno`` or
    ``submit``, and again in a child after ``fork``, where the parent's
    appends are not waited for.  Any appender's ``collect`` tells every
    append finished, whoever submitted it.
    """

    @staticmethod
    def available() -> bool:
        """Return whether the compiled module was built, so that appends can be made here."""
        return _disk is not None

    def fileno(self) -> int:
        """Start the threads if they are not running in this process; return the descriptor that
        becomes readable when appends are done (``collect``).  Needs ``available``."""
        if _disk is None:
            raise RuntimeError("the compiled appends (yahtzee.storage._disk) were not built")
        return _disk.start(APPEND_THREADS)

    def submit(self, path: Path, line: bytes, durable: bool, done: Done) -> None:
        """Append ``line`` to the existing file ``path`` (waited for on the disk if
        ``durable``); ``collect`` calls ``done`` with None, or the ``OSError`` met.

        Starts the threads, as ``fileno`` does.  Nothing is created: a
        missing file is ``FileNotFoundError``.  A write of part of the line is
        an ``OSError`` too, which may leave that part at the end of the file,
        where readers drop it.  Appends to one file are made in the order
        submitted only when each waits for the last.
        """
        key = next(_KEYS)
        self.fileno()  # the threads started, in this process
        _WAITING[key] = done
        try:
            _disk.submit(key, os.fsencode(path), line, durable)
        except BaseException:
            del _WAITING[key]
            raise

    def collect(self) -> None:
        """Call ``done`` of every append finished since the last call."""
        assert _disk is not None, "fileno() first"
        for key, error in _disk.finished():
            done = _WAITING.pop(key)
            done(None if not error else OSError(error, os.strerror(error)))

    def waiting(self) -> int:
        """Return how many appends were submitted and not yet collected."""
        return len(_WAITING)
