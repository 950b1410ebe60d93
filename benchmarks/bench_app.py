"""Processor time of a person's move at the browser table with no HTTP server: the
application called in this process, and which threads spend it.

Run from the project root (the solver's tables in the cache folder, or built
the first time)::

    python benchmarks/bench_app.py                     # 100 games, every other one coached
    python benchmarks/bench_app.py --games 40 --coach all --json

``bench_web.py``'s clients (``web_load``) play ``--games`` games at once,
each a person against the play-to-win computer, every move sent once the
last is answered, the computers' turns paced by ``--delay``, as
``bench_web.py --think 0`` plays them.  Here they call the application
``make_app`` returns directly, on this process's event loop (uvloop where
it is installed, as the server runs), with no socket and no HTTP server
between: the requests and answers are the same, their bytes are not
parsed or sent.  The figures are the processor time per move of the
person, in all and by thread (Linux; elsewhere in all only): the event
loop's thread, where the application and the clients run side by side, the
worker threads' (moves that can wait, a game's end) and the saves' threads'.

Beside ``bench_web.py``'s figure for the same games, the difference is
what the HTTP server, the loop's wake-ups for sockets and their system
calls cost, less what the clients cost here: their own share (building
each request, reading each answer's JSON) is inside the loop's figure
here and is not in ``bench_web.py``'s.  A request the application fails
(an exception, an answer that is not JSON) counts as an error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_web import COACH_EVERY  # noqa: E402
from benchmarks.web_load import HttpError, Load, play_games, stat_cpu, warm_up  # noqa: E402
from yahtzee.interfaces.web.server import collect_rarely, make_app  # noqa: E402

ADDRESS = "http://127.0.0.1:8000"
"""The address the application is told it is reached at (no socket is opened)."""
Application = Callable[[dict[str, Any], Callable[[], Any], Callable[[Any], Any]],
                       Coroutine[Any, Any, None]]
"""An ASGI application, as called here."""


class AppClient:
    """A ``web_load.Client`` whose requests are calls of an ASGI application, one at a time."""

    def __init__(self, app: Application) -> None:
        """Send every request to ``app``."""
        self.app = app

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """Call the application with one request (``body`` as JSON); return its status and JSON."""
        parts = urlsplit(path)
        payload = b"" if body is None else json.dumps(body).encode("utf-8")
        sent = [(b"host", b"127.0.0.1:8000"), (b"content-length", str(len(payload)).encode())]
        if body is not None:
            sent.append((b"content-type", b"application/json"))
        sent.extend((name.lower().encode("latin-1"), value.encode("latin-1"))
                    for name, value in (headers or {}).items())
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": method, "scheme": "http", "path": parts.path,
                 "raw_path": parts.path.encode(), "query_string": parts.query.encode(),
                 "headers": sent, "client": ("127.0.0.1", 50000),
                 "server": ("127.0.0.1", 8000), "root_path": "", "state": {}}
        given = False
        status = 0
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            """Give the body at once, then wait as a connection kept open does."""
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": payload, "more_body": False}
            await asyncio.Event().wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            """Keep the answer's status and body."""
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        try:
            await self.app(scope, receive, send)
        except Exception as error:  # answered 500 and raised again by the application
            raise HttpError(f"the application failed: {error!r}") from error
        raw = b"".join(chunks)
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            raise HttpError(f"an answer that is not JSON: {raw[:80]!r}") from None

    async def close(self) -> None:
        """Nothing to let go of."""


def thread_cpu() -> dict[str, float]:
    """Return the processor time (s) of this process's live threads so far, by kind.

    The kinds are the threads' names without their number (``yahtzee-save``
    for ``yahtzee-save_3``), the main thread's ``loop``.  Linux only (its
    ``/proc``); elsewhere empty.
    """
    names = {thread.native_id: thread.name for thread in threading.enumerate()}
    spent: dict[str, float] = {}
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return spent
    for task in tasks:
        seconds = stat_cpu(Path(f"/proc/self/task/{task}/stat"))
        if seconds is None:
            continue  # the thread ended meanwhile
        name = names.get(int(task), "other")
        kind = "loop" if name == "MainThread" else name.split("_")[0]
        spent[kind] = spent.get(kind, 0.0) + seconds
    return spent


async def measure(games: int, coach: str, delay: float) -> dict[str, Any]:
    """Play ``games`` games through the application, its lifespan running; return the figures."""
    app = make_app(delay=delay, capacity=max(games, 1) * 2, address=ADDRESS)
    async with app.router.lifespan_context(app):
        collect_rarely()  # as ``serve`` does once the application is made

        def connect(url: str) -> AppClient:
            """Return a client of the application (``url`` unused: nothing is connected)."""
            return AppClient(app)

        await warm_up(ADDRESS, connect=connect)
        every = COACH_EVERY[coach]
        threads_before, before = thread_cpu(), time.process_time()
        started = time.perf_counter()
        load: Load = await play_games(ADDRESS, games, coach=every > 0,
                                      coach_every=max(every, 1), connect=connect)
        seconds = time.perf_counter() - started
        spent, threads = time.process_time() - before, thread_cpu()
    moves = max(len(load.times), 1)
    return {"games": games, "coach": coach, "computer_delay": delay,
            "moves": len(load.times), "seconds": round(seconds, 2),
            "errors": len(load.failures),
            "cpu_ms_per_move": round(spent / moves * 1000, 3),
            "cpu_ms_per_move_by_thread": {
                kind: round((threads[kind] - threads_before.get(kind, 0.0)) / moves * 1000, 3)
                for kind in sorted(threads) if threads[kind] > threads_before.get(kind, 0.0)}}


def main() -> int:
    """Run the benchmark and print its figures; status 1 if a client failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games at once (default 100)")
    parser.add_argument("--coach", choices=sorted(COACH_EVERY), default="half",
                        help="which games have the coach: all, half (default: every other "
                             "one) or none")
    parser.add_argument("--delay", type=float, default=0.5,
                        help="the pace of a computer's moves, in seconds (default 0.5, as "
                             "served)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="yahtzee-bench-app-") as folder:
        os.environ["YAHTZEE_DATA_DIR"] = str(Path(folder) / "data")
        try:
            import uvloop
        except ImportError:
            figures = asyncio.run(measure(options.games, options.coach, options.delay))
        else:
            figures = uvloop.run(measure(options.games, options.coach, options.delay))
    if options.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{figures['games']} games at once, coach: {figures['coach']}, "
              f"{figures['moves']} moves of the person in {figures['seconds']} s")
        print(f"processor time per move of the person: {figures['cpu_ms_per_move']} ms")
        for kind, ms in figures["cpu_ms_per_move_by_thread"].items():
            print(f"  {kind}: {ms} ms")
        if figures["errors"]:
            print(f"{figures['errors']} requests failed")
    return 1 if figures["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
