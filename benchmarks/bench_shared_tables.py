"""Memory of ``serve --workers N`` process by process, and the processor time of a move.

Run from the project root (the web and postgres extras installed, Debian's
``postgresql`` package present, the solver's tables in the cache folder)::

    python benchmarks/bench_shared_tables.py                   # workers 1, 2 and 4
    python benchmarks/bench_shared_tables.py --workers 2 --json
    python benchmarks/bench_shared_tables.py --source /tmp/older-copy --json

It starts a throw-away PostgreSQL cluster (``tests/postgres_fixtures.py``).
**Memory**: for each number of workers it starts ``serve --workers N
--database URL`` (a fresh database each) and plays ``--games`` games of
each rule set at once through the one address (a person against the
computer with the coach on, scripted by ``benchmarks/web_load.py``), so
that every process has used what a game of each needs; once the address
is printed and again after the games, it reads
``/proc/PID/smaps_rollup`` of every server process (the first one and its
workers): the resident memory (RSS), each process's share of it (PSS:
a page that several processes map counts in each one's PSS divided by
their number, so the PSS of all of them adds up to the memory they take
together) and the part shared with other processes.  The seconds until the
address is printed and the server's processor time per move of the person
during the load are shown too.
**A move's processor time**: ``benchmarks/move_cpu.py`` plays games in one
process without HTTP, ``--repeat`` times in each mode: ``own`` (the
process loads its tables, as each worker used to) and ``forked`` (the
tables are loaded by a parent that then forks the process, as the workers
are started now); the median of the runs is shown.

``--source`` measures another copy of the project (its server and its
package; ``forked`` is measured only where ``Solvers.preload`` exists).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.web_load import Load, lost, play_one, server_cpu, start_server  # noqa: E402
from benchmarks.web_load import tcp_sockets, worker_pids  # noqa: E402
from tests.postgres_fixtures import Cluster, running_cluster  # noqa: E402

RULES = ("course", "official")
MEMORY_FIELDS = ("Rss", "Pss", "Shared_Clean", "Shared_Dirty", "Private_Clean",
                 "Private_Dirty")


def memory_mb(pid: int) -> dict[str, float]:
    """Return the ``MEMORY_FIELDS`` of ``/proc/PID/smaps_rollup`` in MB (empty if unreadable)."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return {}
    found = {}
    for line in lines:
        name, _, value = line.partition(":")
        if name in MEMORY_FIELDS:
            found[name] = round(int(value.split()[0]) / 1024, 1)
    return found


def database(cluster: Cluster, label: str) -> str:
    """Return the URL of a fresh database of ``cluster``."""
    name = f"bench_{label}_{os.getpid()}_{time.monotonic_ns()}"
    cluster.execute(f"CREATE DATABASE {name}")
    return cluster.url(name)


def server_processes(process: subprocess.Popen[str], workers: int) -> list[int]:
    """Return the first process of the server and its workers, once they are all there."""
    if workers == 1:
        return [process.pid]
    found = worker_pids(process.pid)
    for _ in range(400):
        if len(found) == workers and process.pid not in found:
            break
        time.sleep(0.05)
        found = worker_pids(process.pid)
    return [process.pid, *found]


def wait_listening(pids: list[int], port: int) -> None:
    """Wait (at most a minute) until every worker of ``pids`` listens on ``port``.

    The address is printed once one worker listens; connections made before
    the others do would all go to it (and stay, kept alive).
    """
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(tcp_sockets(pid, port, "0A") for pid in pids):
        time.sleep(0.05)


async def play_every_rule_set(url: str, games: int) -> Load:
    """Play ``games`` games of each rule set at once (no pause, the coach on)."""
    load = Load()
    await asyncio.gather(*(play_one(url, load, 1 + n + 100 * r, 0.0, True, rules=rules)
                           for r, rules in enumerate(RULES) for n in range(games)))
    return load


def memory_of(workers: int, games: int, source: Path, cluster: Cluster) -> dict[str, Any]:
    """Serve ``games`` games of each rule set by ``workers`` processes; return their memory."""
    url = database(cluster, str(workers))
    with tempfile.TemporaryDirectory(prefix="yahtzee-bench-shared-") as folder:
        data = Path(folder) / "data"
        started = time.perf_counter()
        process, address = start_server(data, capacity=games * 4, database=url,
                                        workers=workers, source=source)
        start_seconds = time.perf_counter() - started
        try:
            pids = server_processes(process, workers)
            wait_listening(pids[1:] if workers > 1 else pids, int(address.rsplit(":", 1)[1]))
            idle = [memory_mb(pid) for pid in pids]
            before = sum(server_cpu(pid) for pid in pids)
            load = asyncio.run(play_every_rule_set(address, games))
            cpu = sum(server_cpu(pid) for pid in pids) - before
            processes: list[dict[str, Any]] = [
                {"pid": pid, "role": "first" if pid == process.pid and workers > 1
                 else "worker", **memory_mb(pid)} for pid in pids]
        finally:
            process.terminate()
            process.wait(timeout=60)
        problems = lost(data, load, games * len(RULES), database=url)
    return {"workers": workers, "start_seconds": round(start_seconds, 1),
            "idle_total_pss_mb": round(sum(m.get("Pss", 0.0) for m in idle), 1),
            "idle_pss_mb": [m.get("Pss", 0.0) for m in idle],
            "games": games * len(RULES), "moves": len(load.times),
            "errors": len(load.failures), "lost": problems,
            "server_cpu_ms_per_move": round(cpu / max(len(load.times), 1) * 1000, 2),
            "total_pss_mb": round(sum(float(p.get("Pss", 0.0)) for p in processes), 1),
            "total_rss_mb": round(sum(float(p.get("Rss", 0.0)) for p in processes), 1),
            "processes": processes, "load_average": round(os.getloadavg()[0], 2)}


def move_cpu(mode: str, games: int, source: Path, cluster: Cluster) -> dict[str, Any] | None:
    """Return the figures of one ``move_cpu.py`` run in ``mode`` (None if it could not run)."""
    env = dict(os.environ, PYTHONPATH=str(source))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "move_cpu.py"),
                           database(cluster, mode), mode, "--games", str(games)],
                          cwd=source, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not done.stdout.strip():
        print(f"move_cpu.py {mode} failed: {done.stderr.strip()[-2000:]}", file=sys.stderr)
        return None
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def moves_of(games: int, repeat: int, source: Path, cluster: Cluster) -> dict[str, Any]:
    """Return the median processor time per move in each mode over ``repeat`` runs."""
    runs: dict[str, list[float]] = {"own": [], "forked": []}
    for _ in range(repeat):
        for mode, found in runs.items():
            figures = move_cpu(mode, games, source, cluster)
            if figures is not None and "cpu_ms_per_move" in figures:
                found.append(figures["cpu_ms_per_move"])
    return {mode: {"runs": found, "median_ms": statistics.median(found) if found else None}
            for mode, found in runs.items()}


def show(memory: list[dict[str, Any]], moves: dict[str, Any] | None) -> None:
    """Print the figures as text."""
    for row in memory:
        print(f"--workers {row['workers']}: address printed after {row['start_seconds']} s; "
              f"total PSS {row['idle_total_pss_mb']} MB then, {row['total_pss_mb']} MB and "
              f"RSS {row['total_rss_mb']} MB after the games; server "
              f"{row['server_cpu_ms_per_move']} ms per move over {row['moves']} moves; "
              f"lost: {'; '.join(row['lost']) or 'nothing'}")
        for proc, idle in zip(row["processes"], row["idle_pss_mb"]):
            shared = proc.get("Shared_Clean", 0.0) + proc.get("Shared_Dirty", 0.0)
            print(f"    {proc['role']:<7} PSS {idle:>7} MB at the start; after: "
                  f"RSS {proc.get('Rss', 0.0):>7} MB  PSS {proc.get('Pss', 0.0):>7} MB  "
                  f"shared {shared:>7.1f} MB")
    if moves is not None:
        for mode, figures in moves.items():
            print(f"a move in one process, tables {mode}: {figures['median_ms']} ms "
                  f"(runs {figures['runs']})")


def main() -> int:
    """Measure as the command line says and print the figures; status 1 if anything was lost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4",
                        help="numbers of server processes (default 1,2,4)")
    parser.add_argument("--games", type=int, default=24,
                        help="games of each rule set played through the server (default 24)")
    parser.add_argument("--move-games", type=int, default=6,
                        help="games timed in one process per run (default 6)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs of each in-process mode (default 5)")
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="the copy of the project to measure (default this one)")
    parser.add_argument("--no-moves", action="store_true", help="measure the memory only")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    source = args.source.resolve()
    counts = [int(n) for n in args.workers.split(",") if n.strip()]
    with running_cluster(durable=True) as cluster:
        memory = [memory_of(n, args.games, source, cluster) for n in counts]
        moves = (None if args.no_moves
                 else moves_of(args.move_games, args.repeat, source, cluster))
    if args.json:
        print(json.dumps({"source": str(source), "memory": memory, "moves": moves}, indent=2))
    else:
        show(memory, moves)
    return 1 if any(row["lost"] for row in memory) else 0


if __name__ == "__main__":
    raise SystemExit(main())
