"""The browser table on one machine's files against PostgreSQL with 1, 2 and 4 server processes.

Run from the project root (the web and postgres extras installed, Debian's
``postgresql`` package present; the solver's tables in the cache folder)::

    python benchmarks/bench_scale.py                      # 60 games, workers 1, 2 and 4
    python benchmarks/bench_scale.py --games 100 --workers 1,2 --json

It starts a throw-away PostgreSQL cluster (``tests/postgres_fixtures.py``,
with PostgreSQL's own durable settings), then for the default storage (the
data folder's files, one process) and for each number of workers (``serve
--workers N --database URL``, a fresh database each) it plays ``--games``
games at once through the one address, each a person against the computer
with the coach on, by the scripted clients of ``benchmarks/web_load.py``
(``--think`` seconds before each move; 0 floods the server to measure its
throughput).  For each it prints the moves per second, the median and p99
answer, the processor time of every server process (and the database's
own) per move of the person, the memory of the server processes at the end
(the sum of their shares, PSS, the first process's included), and what was
lost (every game must finish and be filed once,
no save left over).  The clients, the server processes and PostgreSQL share
the machine's cores: the figures say what one machine does, not how far
more machines would take it (see docs/scaling.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.web_load import (answer_times, lost, play_games, server_cpu,  # noqa: E402
                                 start_server, worker_pids)
from tests.postgres_fixtures import Cluster, running_cluster  # noqa: E402


def resident_mb(pid: int) -> float:
    """Return the process ``pid``'s share of resident memory in MB (its PSS; Linux; else 0).

    The workers share the solver's tables with the first process (forked
    after loading them): a page several processes map counts once in the
    sum of their shares, split among them.
    """
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def database_cpu(cluster: Cluster | None) -> float:
    """Return the processor time PostgreSQL's processes have used so far, in seconds."""
    if cluster is None:
        return 0.0
    found = subprocess.run(["pgrep", "-f", str(cluster.folder)], capture_output=True, text=True)
    total = 0.0
    for pid in found.stdout.split():
        total += server_cpu(int(pid))
        for child in worker_pids(int(pid)):
            total += server_cpu(child) if child != int(pid) else 0.0
    return total


def database_bytes(cluster: Cluster | None, database: str | None) -> int:
    """Return the size of ``database`` (a name on ``cluster``) in bytes (0 without one)."""
    if cluster is None or database is None:
        return 0
    import psycopg
    with psycopg.connect(cluster.url(database), autocommit=True) as connection:
        row = connection.execute("SELECT pg_database_size(current_database())").fetchone()
    return int(row[0]) if row else 0


def run_one(games: int, think: float, workers: int, cluster: Cluster | None) -> dict[str, Any]:
    """Play ``games`` games through one server setup; return its figures."""
    database = name = None
    if cluster is not None:
        name = f"bench_{workers}_{os.getpid()}_{time.monotonic_ns()}"
        cluster.execute(f"CREATE DATABASE {name}")
        database = cluster.url(name)
    empty = database_bytes(cluster, name)
    with tempfile.TemporaryDirectory(prefix="yahtzee-bench-scale-") as folder:
        data = Path(folder) / "data"
        process, url = start_server(data, capacity=games * 2, delay=0.0, database=database,
                                    workers=workers)
        try:
            pids = worker_pids(process.pid) if workers > 1 else [process.pid]
            for _ in range(200):
                if len(pids) == workers:
                    break
                time.sleep(0.05)
                pids = worker_pids(process.pid)
            before = sum(server_cpu(pid) for pid in pids)
            db_before = database_cpu(cluster)
            started = time.perf_counter()
            load = asyncio.run(play_games(url, games, think=think))
            seconds = time.perf_counter() - started
            cpu = sum(server_cpu(pid) for pid in pids) - before
            db_cpu = database_cpu(cluster) - db_before
            memory = sum(resident_mb(pid) for pid in {process.pid, *pids})
        finally:
            process.terminate()
            process.wait(timeout=60)
        problems = lost(data, load, games, database=database)
    grown = database_bytes(cluster, name) - empty if name is not None else 0
    answers = answer_times(load.times, digits=1)
    moves = max(len(load.times), 1)
    return {"storage": "files" if cluster is None else "postgresql", "workers": workers,
            "games": games, "moves": len(load.times), "seconds": round(seconds, 1),
            "moves_per_second": round(len(load.times) / seconds, 1),
            "median_ms": answers["median_ms"], "p99_ms": answers["p99_ms"],
            "server_cpu_ms_per_move": round(cpu / moves * 1000, 2),
            "database_cpu_ms_per_move": round(db_cpu / moves * 1000, 2),
            "server_memory_mb": round(memory, 1), "errors": len(load.failures),
            "database_bytes_per_game": round(grown / max(games, 1)),
            "load_average": round(os.getloadavg()[0], 2), "lost": problems}


def main() -> int:
    """Run every setup in turn and print the figures; status 1 if anything was lost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games at once (default 60)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds each client waits before a move (default 0)")
    parser.add_argument("--workers", default="1,2,4",
                        help="numbers of server processes on PostgreSQL (default 1,2,4)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",") if n.strip()]
    rows = [run_one(args.games, args.think, 1, None)]
    with running_cluster(durable=True) as cluster:
        rows += [run_one(args.games, args.think, n, cluster) for n in counts]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'storage':<11}{'procs':>6}{'moves/s':>9}{'median':>9}{'p99':>9}"
              f"{'cpu/move':>10}{'db/move':>9}{'memory':>9}  lost")
        for row in rows:
            print(f"{row['storage']:<11}{row['workers']:>6}{row['moves_per_second']:>9}"
                  f"{row['median_ms']:>7} ms{row['p99_ms']:>6} ms"
                  f"{row['server_cpu_ms_per_move']:>7} ms{row['database_cpu_ms_per_move']:>6} ms"
                  f"{row['server_memory_mb']:>6} MB  {'; '.join(row['lost']) or 'nothing'}")
    return 1 if any(row["lost"] for row in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
