"""Round trips to PostgreSQL per person's move, listed by statement and by caller.

Run from the project root (the postgres extra installed, Debian's
``postgresql`` package present, the solver's tables in the cache folder)::

    YAHTZEE_CACHE_DIR=<warm cache> python benchmarks/pg_round_trips.py --games 4
    YAHTZEE_CACHE_DIR=<warm cache> python benchmarks/pg_round_trips.py --source /tmp/older-copy

It starts a throw-away PostgreSQL cluster (``tests/postgres_fixtures.py``)
and plays ``--games`` games of a person against the computer with the
coach on, as ``benchmarks/move_cpu.py`` does (one game of each rule set
first, not counted), through a relay that counts the **round trips**: the
server answering after the program sent something
(``tests.postgres_fixtures.Relay``; opening a connection counts too, but
the pool keeps them open).  Psycopg's pure Python implementation is used,
so that the statements it sends can be listed: outside a pipeline each is
sent alone; in a pipeline, those sent before one sync or flush request go
together.  It prints the round trips and the bytes of the parameters sent
per person's move, and the bytes the server wrote to its write-ahead log
per person's move (the games' filing in the history included), then how
often each group of statements was sent, by
itself and by caller in the application (the first function of
``yahtzee/app`` on the stack, and the storage's method under it), per
person's move.
"""

from __future__ import annotations

import os

os.environ["PSYCOPG_IMPL"] = "python"  # its connection's methods can be watched

import argparse  # noqa: E402
import collections  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402
from types import FrameType  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from psycopg.pq import pq_ctypes  # noqa: E402

from tests.postgres_fixtures import Relay, running_cluster  # noqa: E402

_SENDS = ("send_query", "send_query_params", "send_prepare", "send_query_prepared")
_FLUSHES = ("pipeline_sync", "send_flush_request")


class Counter:
    """Round trips and parameter bytes seen on every connection, with their statements."""

    def __init__(self) -> None:
        """Start at nothing, not counting."""
        self.on = False
        self.groups = 0
        self.bytes = 0
        self.statements: collections.Counter[str] = collections.Counter()
        self.callers: collections.Counter[str] = collections.Counter()
        self._pending: dict[int, list[str]] = {}
        self._prepared: dict[tuple[int, bytes], str] = {}
        """The statements prepared on each connection, by (connection, name)."""
        self._lock = threading.Lock()

    def sent(self, conn: object, name: str, args: tuple[Any, ...]) -> None:
        """Note one query sent on ``conn``: a round trip unless it is in a pipeline."""
        statement = _statement(name, args)
        size = _param_bytes(name, args)
        with self._lock:
            if name == "send_prepare":
                self._prepared[id(conn), bytes(args[0])] = statement
            elif name == "send_query_prepared":
                statement = self._prepared.get((id(conn), bytes(args[0])), statement)
            if not self.on:
                return
            self.bytes += size
            if getattr(conn, "pipeline_status", 0):
                self._pending.setdefault(id(conn), []).append(statement)
            else:
                self._trip([statement])

    def flushed(self, conn: object) -> None:
        """Note a sync or flush in a pipeline: a round trip if anything was sent since the last."""
        with self._lock:
            pending = self._pending.pop(id(conn), [])
            if self.on and pending:
                self._trip(pending)

    def _trip(self, statements: list[str]) -> None:
        """Count one group of ``statements`` sent together (the lock held)."""
        self.groups += 1
        runs: list[list[Any]] = []
        for statement in statements:
            if runs and runs[-1][0] == statement:
                runs[-1][1] += 1
            else:
                runs.append([statement, 1])
        key = " + ".join(text if times == 1 else f"{text} (x{times})" for text, times in runs)
        self.statements[key] += 1
        self.callers[f"{_caller()} | {key}"] += 1


def _statement(name: str, args: tuple[Any, ...]) -> str:
    """Return the statement a send carries, shortened to its first 70 characters."""
    query = args[0] if name in ("send_query", "send_query_params") else (
        args[1] if name == "send_prepare" else b"<prepared " + bytes(args[0]) + b">")
    text = bytes(query).decode(errors="replace") if not isinstance(query, str) else query
    return " ".join(text.split())[:70]


def _param_bytes(name: str, args: tuple[Any, ...]) -> int:
    """Return the bytes of the parameter values a send carries."""
    if name not in ("send_query_params", "send_query_prepared") or len(args) < 2:
        return 0
    return sum(len(value) for value in (args[1] or ()) if value is not None)


def _caller() -> str:
    """Return the first function of ``yahtzee/app`` on the stack, with the storage's under it."""
    frame: FrameType | None = sys._getframe(2)
    storage = ""
    while frame is not None:
        path = frame.f_code.co_filename
        if "yahtzee/storage/" in path:  # the outermost one: the method the caller called
            storage = f"{Path(path).stem}.{frame.f_code.co_name}"
        if "yahtzee/app/" in path:
            return f"{Path(path).stem}.{frame.f_code.co_name} > {storage}"
        frame = frame.f_back
    return f"? > {storage}"


def _watch(counter: Counter) -> None:
    """Wrap the pure Python connection's sends and flushes to count them."""
    def wrap_send(name: str) -> Callable[..., Any]:
        original = getattr(pq_ctypes.PGconn, name)

        def send(self: Any, *args: Any, **kwargs: Any) -> Any:
            counter.sent(self, name, args)
            return original(self, *args, **kwargs)
        return send

    def wrap_flush(name: str) -> Callable[..., Any]:
        original = getattr(pq_ctypes.PGconn, name)

        def flush(self: Any, *args: Any, **kwargs: Any) -> Any:
            counter.flushed(self)
            return original(self, *args, **kwargs)
        return flush

    for name in _SENDS:
        setattr(pq_ctypes.PGconn, name, wrap_send(name))
    for name in _FLUSHES:
        setattr(pq_ctypes.PGconn, name, wrap_flush(name))


@contextmanager
def counting(counter: Counter) -> Iterator[None]:
    """Count inside the block."""
    counter.on = True
    try:
        yield
    finally:
        counter.on = False


def _wal(url: str) -> int:
    """Return the server's write-ahead log position, in bytes."""
    import psycopg
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()
    assert row is not None
    return int(row[0])


def measure(url: str, relay: Relay, games: int, direct: str) -> dict[str, Any]:
    """Play the warm-up games, then ``games`` counted ones; return the counts per person's move."""
    from benchmarks.move_cpu import RULES, play
    from yahtzee.app.browser import BrowserGames
    from yahtzee.app.session import Solvers
    from yahtzee.storage.port import open_storage
    from yahtzee.storage.problems import SilentProblems

    counter = Counter()
    _watch(counter)
    storage = open_storage(url, SilentProblems())
    registry = BrowserGames(Solvers(), SilentProblems(), capacity=games + 10, storage=storage)
    try:
        for seed, rules in enumerate(RULES):
            play(registry, 1000 + seed, rules)
        trips, wal = relay.trips, _wal(direct)
        with counting(counter):
            moves = sum(play(registry, seed, RULES[seed % len(RULES)]) for seed in range(games))
    finally:
        trips, wal = relay.trips - trips, _wal(direct) - wal
        registry.close()
        storage.close()

    def per_move(counts: collections.Counter[str]) -> dict[str, float]:
        return {key: round(count / moves, 2) for key, count in counts.most_common()}

    return {"games": games, "moves": moves,
            "round_trips_per_move": round(trips / moves, 2),
            "statement_groups_per_move": round(counter.groups / moves, 2),
            "param_bytes_per_move": round(counter.bytes / moves),
            "wal_bytes_per_move": round(wal / moves),
            "statements": per_move(counter.statements), "callers": per_move(counter.callers)}


def main() -> int:
    """Count as the command line says and print the figures (JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games counted (default 4)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="the copy of the project whose package is counted (default this one)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.source.resolve()))
    os.environ["YAHTZEE_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-round-trips-")
    with running_cluster() as cluster:
        cluster.execute("CREATE DATABASE trips")
        relay = Relay(cluster.port)
        try:
            direct = cluster.url("trips")
            figures = measure(direct.replace(f":{cluster.port}/", f":{relay.port}/"),
                              relay, args.games, direct)
        finally:
            relay.close()
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{figures['moves']} moves of the person in {figures['games']} games: "
          f"{figures['round_trips_per_move']} round trips, "
          f"{figures['param_bytes_per_move']} bytes of parameters and "
          f"{figures['wal_bytes_per_move']} bytes of the server's log (WAL) per move")
    print("statements sent together, per move:")
    for key, value in figures["statements"].items():
        print(f"  {value:6.2f}  {key}")
    print("the same by caller, per move:")
    for key, value in figures["callers"].items():
        print(f"  {value:6.2f}  {key}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
