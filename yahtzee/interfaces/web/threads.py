"""The browser table's worker threads: where its blocking work (people's moves, saves, the
history's pages) runs, handed off from the event loop.

A save waits for the disk, so saves of different games wait side by side
in threads while the event loop goes on answering.  Moves themselves are
made on the loop's own thread when nothing in them can wait (a thread adds
hand-offs and a contest for the interpreter's lock, and no parallel work),
and in these threads when something can: a database's round trips, tables
still loading, a game's end filed (``BrowserGame.act_at_once``).  The server sets
``WORKER_THREADS`` of them as its loop's default executor when it starts
(``use_worker_threads``); ``in_thread`` hands a call to them.

A person's move made on the loop has its save appended by the compiled
threads of ``yahtzee.storage.appends`` where they were built
(``keep_saved``): Python threads waiting for the disk would take the
interpreter's lock from the loop after every system call.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from yahtzee.storage.appends import BackgroundAppends

if TYPE_CHECKING:
    from yahtzee.app.browser import BrowserGame

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


_APPENDS = BackgroundAppends()
_WATCHING: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
"""The event loops that watch ``_APPENDS`` for finished appends."""


async def keep_saved(table: BrowserGame) -> None:
    """Write the save of the move ``table.act_at_once`` made, wait for it on the disk, and let go
    of the game.

    Where the compiled appends were built and the change is one line, the
    line is made here, on the loop's thread, and appended by the compiled
    threads; else, or when that append fails, ``table.keep_move`` writes
    the save in a thread of the saves' pool.  The game is let go of even
    when the request is cancelled meanwhile (the server stops).
    """
    line = table.keep_move_later() if _APPENDS.available() else None
    if line is None:
        await in_save_thread(table.keep_move)
        return
    loop = asyncio.get_running_loop()
    appended: asyncio.Future[OSError | None] = loop.create_future()
    try:
        if loop not in _WATCHING:
            loop.add_reader(_APPENDS.fileno(), _APPENDS.collect)
            _WATCHING.add(loop)
        _APPENDS.submit(line.path, line.line, True, functools.partial(_settle, appended))
    except OSError as error:  # no thread or pipe to be had: the save is written whole
        appended.set_result(error)

    async def finish() -> None:
        """Let go of the game once the line is on the disk; else write the save whole."""
        if not table.kept(await appended):
            await in_save_thread(table.keep_move)

    await asyncio.shield(asyncio.ensure_future(finish()))


def _settle(appended: asyncio.Future[OSError | None], error: OSError | None) -> None:
    """Give ``appended`` the append's outcome, on its own loop's thread."""
    loop = appended.get_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        if not appended.done():
            appended.set_result(error)
    elif not loop.is_closed():  # else nobody waits for it any more
        loop.call_soon_threadsafe(_settle, appended, error)
