"""Processor time of handing work from the server's event loop to a thread and back.

Run from the project root (the web extra installed)::

    python benchmarks/bench_handoff.py                 # text
    python benchmarks/bench_handoff.py --count 50000 --json

Work the browser table's server cannot do on its event loop goes to a
worker thread and back (``threads.in_thread``, ``in_save_thread``): each
save of a person's move, and the moves that wait on a database or on
tables still loading.  This measures one hand-off of a function that does nothing, in
the two ways it can be done: Starlette's ``run_in_threadpool`` (anyio's
threads) and asyncio's ``run_in_executor`` (what the server uses), each on
asyncio's own event loop and on uvloop's (what the server runs on where
uvloop is installed), ``--count`` times each, in turn, ``--repeat`` rounds.
It prints the process's processor time per hand-off (user + system) and
the event loop thread's share, the median of the rounds, in microseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio.to_thread

WORKERS = 128
"""Worker threads, as the server allows (``threads.WORKER_THREADS``)."""


def nothing(value: int) -> int:
    """Return ``value``: the work handed off is nothing, so only the hand-off counts."""
    return value


async def measure(count: int, repeat: int) -> dict[str, dict[str, float]]:
    """Hand ``nothing`` off ``count`` times each way, ``repeat`` rounds; return the medians."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(WORKERS))
    anyio.to_thread.current_default_thread_limiter().total_tokens = WORKERS

    def anyio_way(value: int) -> Awaitable[int]:
        """Starlette's ``run_in_threadpool``: anyio's ``to_thread.run_sync``."""
        return anyio.to_thread.run_sync(nothing, value)

    def executor_way(value: int) -> Awaitable[int]:
        """asyncio's default executor, as ``threads.in_thread`` does."""
        return loop.run_in_executor(None, functools.partial(nothing, value))

    ways: dict[str, Callable[[int], Awaitable[int]]] = {
        "anyio run_sync": anyio_way, "asyncio run_in_executor": executor_way}
    rounds: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    for _ in range(repeat):
        for name, way in ways.items():
            process, thread = time.process_time(), time.thread_time()
            for value in range(count):
                await way(value)
            rounds[name].append(((time.process_time() - process) / count * 1e6,
                                 (time.thread_time() - thread) / count * 1e6))
    return {name: {"process_us": round(statistics.median(r[0] for r in runs), 1),
                   "loop_thread_us": round(statistics.median(r[1] for r in runs), 1)}
            for name, runs in rounds.items()}


def main() -> int:
    """Measure on each event loop and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20_000, help="hand-offs per round and way")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (the median is kept)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures: dict[str, Any] = {"count": args.count, "repeat": args.repeat,
                               "asyncio loop": asyncio.run(measure(args.count, args.repeat))}
    try:
        import uvloop
    except ImportError:
        figures["uvloop"] = None
    else:
        figures["uvloop"] = uvloop.run(measure(args.count, args.repeat))
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    for loop_name in ("asyncio loop", "uvloop"):
        if figures[loop_name] is None:
            print(f"{loop_name}: not installed")
            continue
        for way, spent in figures[loop_name].items():
            print(f"{loop_name}, {way}: {spent['process_us']} µs of processor time per "
                  f"hand-off, {spent['loop_thread_us']} µs of it on the loop's thread")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
