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
event loop's own thread: about a fifth of the processor time of the move it saves (on a
solid-state disk a save takes 0.1 to 0.3 ms), so that a save waited for there leaves the
loop most of its time for other requests."""
PROBE_EVERY = 1.0
"""Seconds between two saves tried on the loop again while saves go to their threads."""


class Saving:
    """Where the saves of moves made on the event loop are written: on the loop while the disk
    is quick, in the saves' own threads (``in_save_thread``) while it is not.

    A save handed to a thread costs the server more processor time than the
    save itself (measured: a tenth of all the processor time per move of a
    person, flooded; docs/scaling.md, "Saves on the loop while the disk is
    quick"): the hand-off and back, and the thread and the loop contesting
    the interpreter's lock.  On the loop the save holds every other request
    for as long as the disk takes, so it is written there only while the
    last save written there took at most ``quick`` seconds, from start to
    end.  Once one took longer, saves go to the threads, and one save in
    ``probe_every`` seconds is tried on the loop again, so that the loop
    takes them back once the disk is quick again (a save timed in a thread
    would count its wait for the interpreter's lock too).  The first save
    is tried on the loop.
    """

    def __init__(self, quick: float = QUICK_SAVE, probe_every: float = PROBE_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Save on the loop while a save takes at most ``quick`` seconds (see the class)."""
        self.quick = quick
        self.probe_every = probe_every
        self._clock = clock
        self.on_loop = True
        """Whether the next save is written on the loop (else in a thread, but for probes)."""
        self._probed = clock()

    async def save(self, func: Callable[[], object]) -> None:
        """Call ``func``, a save that waits for the disk, where this says; return once done.

        An exception of ``func`` is raised here, and tells nothing of the disk.
        """
        now = self._clock()
        if self.on_loop or now - self._probed >= self.probe_every:
            self._probed = now
            started = time.perf_counter()
            func()
            self.on_loop = time.perf_counter() - started <= self.quick
        else:
            await in_save_thread(func)
