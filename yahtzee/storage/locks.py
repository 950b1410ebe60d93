"""Per-file locks that tell processes apart, so that one save is never played in two at once.

A lock is ``fcntl.flock(LOCK_EX | LOCK_NB)`` on a lock file of its own (a
save is replaced with ``os.replace`` at every write, so locking the save's
own file would lock an old copy).  The kernel releases the lock when its
process ends, however it ends: a killed process never blocks a game.

After the lock is taken, the lock file's name must still lead to the file
locked (the same device and inode); if not (its holder removed it in the
meantime), the lock is dropped and taken again on the file the name now
leads to, so that a removed and recreated lock file is never held twice.

Where the platform has no ``fcntl`` (Windows), ``LOCKING`` is False and
every lock is granted without locking anything.
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no fcntl
    LOCKING = False
else:
    LOCKING = True
"""Whether locks exclude other processes here (False where the platform has no ``fcntl``)."""


class FileLock:
    """A lock held by this process on one lock file, until ``release``.

    A process forked while the lock is held (the solver's helpers) shares
    it: closing this process's descriptor alone would leave the lock held
    by the child's copy for as long as the child runs, so ``release``
    unlocks first, which frees it for every copy.  Only the process that
    took the lock unlocks it; a child forgetting its copy just closes it.
    """

    def __init__(self, path: Path, fd: int | None) -> None:
        """Hold the lock on ``path`` through the open descriptor ``fd`` (None: no locking)."""
        self.path = path
        self.fd = fd
        self.owner = os.getpid()

    def release(self, *, remove: bool = False) -> None:
        """Let the lock go; with ``remove``, delete the lock file first, while still held."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        if os.getpid() == self.owner:
            if remove:
                try:
                    os.unlink(self.path)
                except FileNotFoundError:
                    pass
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass  # closing lets it go all the same where no copy is left
        os.close(fd)

    def __del__(self) -> None:
        """Let the lock go if it is still held when the lock is forgotten."""
        self.release()


def try_lock(path: Path) -> FileLock | None:
    """Lock the file ``path`` (creating it) for this process; None if another one holds it.

    ``OSError`` if the lock file cannot be opened or created.
    """
    if not LOCKING:  # pragma: no cover - Windows
        return FileLock(path, None)
    while True:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except OSError:
            os.close(fd)
            raise
        try:
            named = os.stat(path)
        except FileNotFoundError:
            named = None
        locked = os.fstat(fd)
        if named is not None and (named.st_dev, named.st_ino) == (locked.st_dev, locked.st_ino):
            return FileLock(path, fd)
        os.close(fd)
