"""The browser table's worker threads: where its blocking work (people's moves, saves, the
history's pages) runs, handed off from the event loop.

A save waits for the disk, so on a slow disk saves of different games wait
side by side in threads while the event loop goes on answering; on a quick
one a save is written on the loop itself (``Saving``), which spares its
hand-off and the threads' contest for the interpreter's lock.  Moves themselves are
made on the loop's own thread when nothing in them can wait (a thread adds
hand-offs and a contest for the interpreter's lock, and no parallel work),
and in these threads when something can: a database's round trips, tables
still loading, a game's end filed (``BrowserGame.act_at_once``).  The server sets
``WORKER_THREADS`` of them as its loop's default executor when it starts
(``use_worker_threads``); ``in_thread`` hands a call to them.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

WORKER_THREADS = 128
"""Threads that write saves and carry out the moves that can wait: each waits for its save to
reach the disk, and saves of different games reach it side by side (a few threads per core
would queue them)."""
SAVE_THREADS = 16
"""Threads that write the saves of moves made on the event loop (``in_save_thread``)."""
Result = TypeVar("Result")
_SAVES = ThreadPoolExecutor(SAVE_THREADS, "yahtzee-save")


def use_worker_threads(loop: asyncio.AbstractEventLoop) -> None:
    """Give ``loop`` its ``WORKER_THREADS`` worker threads (made as they are first needed)."""
    loop.set_default_executor(ThreadPoolExecutor(WORKER_THREADS, "yahtzee-move"))


async def in_thread(func: Callable[..., Result], *args: Any) -> Result:
    """Return ``func(*args)``, run in one of the event loop's worker threads.

    This is asyncio's own hand-off rather than Starlette's
    ``run_in_threadpool`` (anyio's): the same threads for about a sixth less
    processor time per hand-off and a quarter less on the loop's thread
    (``benchmarks/bench_handoff.py``); a move of a person makes three or
    four.  A request cancelled meanwhile (only when the server stops) leaves
    its move to finish and be saved.  Without ``use_worker_threads`` (an
    application run without its lifespan) asyncio's default executor serves.
    """
    return await asyncio.get_running_loop().run_in_executor(None, functools.partial(func, *args))


async def in_save_thread(func: Callable[..., Result], *args: Any) -> Result:
    """Return ``func(*args)``, run in a thread of the saves' own pool, not a worker thread.

    For a call that holds a game until it is done (``BrowserGame.keep_move``):
    work in the worker threads may be waiting for that game (a look at it, a
    move of it), and were the call queued behind such work with every worker
    thread waiting, nothing would ever let go of the game.  Nothing in the
    saves' pool waits for a game.
    """
    return await asyncio.get_running_loop().run_in_executor(_SAVES, functools.partial(func, *args))


QUICK_SAVE = 0.0005
"""Seconds a save of a person's move, waited for on the disk, may take to be written on the
event loop's own thread: about a third of the processor time of the move it saves (on a
solid-state disk a save takes 0.1 to 0.3 ms), so that the loop keeps most of its time for
other requests."""
SAVES_TIMED = 5
"""How many of the latest saves ``Saving`` looks at: that many slow saves in a row send the
saves to the threads."""


class Saving:
    """Where the saves of moves made on the event loop are written: on the loop while the disk
    is quick, in the saves' own threads (``in_save_thread``) while it is not.

    A save handed to a thread costs the server more processor time than the
    save itself: the hand-off and back, and the thread and the loop
    contesting the interpreter's lock (measured in docs/scaling.md, "Saves
    on the loop while the disk is quick").  On the loop a save holds every
    other request for as long as the disk takes, so saves are written there
    only while the quickest of the last ``timed`` saves, wherever written,
    took at most ``quick`` seconds from start to end.  The quickest, since a
    save's time counts its wait for the interpreter's lock after the disk's,
    while another thread holds it: under load one save in ten takes twice
    the usual time or more without the disk being slow, but not all of
    them.  So ``timed`` slow saves in a row send the saves to the threads,
    and one quick save there brings them back.
    """

    def __init__(self, quick: float = QUICK_SAVE, timed: int = SAVES_TIMED) -> None:
        """Save on the loop while one of the last ``timed`` saves took at most ``quick`` s."""
        self.quick = quick
        self.recent: collections.deque[float] = collections.deque(maxlen=timed)
        """Seconds each of the latest saves took, from start to end, oldest first."""

    @property
    def on_loop(self) -> bool:
        """Whether the next save is written on the loop (the first is)."""
        return not self.recent or min(self.recent) <= self.quick

    async def save(self, func: Callable[[], object]) -> None:
        """Call ``func``, a save that waits for the disk, where this says; return once done.

        An exception of ``func`` is raised here, and tells nothing of the disk.
        """
        took = _timed(func) if self.on_loop else await in_save_thread(_timed, func)
        self.recent.append(took)


def _timed(func: Callable[[], object]) -> float:
    """Call ``func``; return the seconds it took, from start to end."""
    started = time.perf_counter()
    func()
    return time.perf_counter() - started
