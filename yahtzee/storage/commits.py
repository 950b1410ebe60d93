"""Group commits: files written to disk by one thread, many at a time, each writer told when.

A server that saves a game after every move would otherwise make each
move's thread wait for its own syncs, one file and one folder sync per save,
every game queuing for the same disk.  A ``GroupCommitter`` takes writes
(and other disk jobs) from any thread and carries them out in order on a
thread of its own: the writes queued while it was busy go to disk together
(``write_atomic_many``: every file's data synced, side by side on a few
threads so that the system flushes them together, then each file renamed,
then each folder synced once), and a file queued twice in one group is
written once, with its latest contents.

Each write returns a ``concurrent.futures.Future`` that is done once the
file is on disk as ``write_atomic`` leaves it (durable, all or nothing), or
holds the ``OSError`` that stopped it: whoever waits for it before going on
(a server before answering a move) has exactly ``write_atomic``'s promise.
Nothing is ever cancelled: a write queued is carried out even if nobody
waits for it any more.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from yahtzee.storage.atomic import write_atomic_many

SYNC_THREADS = 8
"""Threads that sync a group's files side by side (the disk flushes them together)."""


def done_future() -> Future[None]:
    """Return a future that is already done: nothing to wait for."""
    future: Future[None] = Future()
    future.set_result(None)
    return future


def _settle(future: Future[None], error: BaseException | None) -> None:
    """Mark ``future`` done, with ``error`` if there is one (unless a waiter cancelled it)."""
    if future.cancelled():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


@dataclass
class _Write:
    """A file to write: its path, its contents, and the future to settle."""

    path: Path
    data: bytes
    future: Future[None] = field(default_factory=Future)


@dataclass
class _Job:
    """Other disk work (filing a game, removing a file), in order with the writes."""

    work: Callable[[], None]
    future: Future[None] = field(default_factory=Future)


@dataclass
class CommitCounts:
    """What a committer has done: groups written, files written, syncs made."""

    groups: int = 0
    files: int = 0
    writes: int = 0
    """Writes asked for (more than ``files`` when a file was queued twice in one group)."""
    syncs: int = 0
    """File and folder syncs asked of the system."""
    jobs: int = 0


class GroupCommitter:
    """One thread that carries out disk writes and jobs in the order given, writes in groups.

    ``write`` and ``run`` may be called from any thread.  After ``close``
    (which carries out everything queued first), they do their work at
    once, in the caller's thread.
    """

    def __init__(self, *, name: str = "group-commit") -> None:
        """Make a committer; its thread starts with the first write."""
        self.name = name
        self.counts = CommitCounts()
        self._queue: list[_Write | _Job] = []
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._syncs = ThreadPoolExecutor(SYNC_THREADS, thread_name_prefix=f"{name}-sync")

    def write(self, path: Path, data: bytes) -> Future[None]:
        """Queue ``data`` to become the file ``path``; return a future done once it is on disk."""
        return self._queued(_Write(path, data)).future

    def run(self, work: Callable[[], None]) -> Future[None]:
        """Queue ``work`` after the writes queued so far; return a future done once it has run."""
        return self._queued(_Job(work)).future

    def _queued(self, item: _Write | _Job) -> _Write | _Job:
        """Queue ``item`` (or, once closed, carry it out now) and return it."""
        with self._ready:
            if not self._closed:
                self._queue.append(item)
                if self._thread is None:
                    self._thread = threading.Thread(target=self._work, name=self.name,
                                                    daemon=True)
                    self._thread.start()
                self._ready.notify()
                return item
        self._carry_out([item])
        return item

    def close(self) -> None:
        """Carry out everything queued, then stop the thread (later work is done at once)."""
        with self._ready:
            self._closed = True
            self._ready.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
            self._syncs.shutdown()

    def _work(self) -> None:
        """Take everything queued, carry it out, and again, until closed and empty."""
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._ready.wait()
                if not self._queue:
                    return
                items, self._queue = self._queue, []
            self._carry_out(items)

    def _carry_out(self, items: list[_Write | _Job]) -> None:
        """Carry out ``items`` in order: each run of writes as one group, each job alone."""
        group: dict[Path, _Write] = {}
        waiting: dict[Path, list[Future[None]]] = {}
        for item in items:
            if isinstance(item, _Write):
                group[item.path] = item
                waiting.setdefault(item.path, []).append(item.future)
                continue
            self._write_group(group, waiting)
            group, waiting = {}, {}
            self.counts.jobs += 1
            try:
                item.work()
            except Exception as error:
                _settle(item.future, error)
            else:
                _settle(item.future, None)
        self._write_group(group, waiting)

    def _write_group(self, group: dict[Path, _Write],
                     waiting: dict[Path, list[Future[None]]]) -> None:
        """Write the group's files together and settle every future waiting for them."""
        if not group:
            return
        paths = list(group)
        self.counts.groups += 1
        self.counts.files += len(paths)
        self.counts.writes += sum(len(futures) for futures in waiting.values())
        errors: list[BaseException | None]
        try:
            errors = list(write_atomic_many([(path, group[path].data) for path in paths],
                                            pool=self._syncs))
        except Exception as failure:
            errors = [failure] * len(paths)
        self.counts.syncs += len(paths) + len({path.parent for path in paths})
        for path, outcome in zip(paths, errors):
            for future in waiting[path]:
                _settle(future, outcome)
