"""Several server processes on one PostgreSQL database, behind one address, under load.

``serve --workers 2 --database URL`` is started as a user would; scripted
clients (``benchmarks/web_load.py``) play a person against the computer in
each game.  One worker is killed (SIGKILL) in the middle: nothing any
client was shown may be lost, every game goes on through the other worker
(the computers of the killed one's games once its leases lapse), and every
finished game is filed exactly once.  The workers' solver tables are the
first process's pages, shared, even after games were played.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from benchmarks.web_load import (lost, play_and_kill, play_games, server_cpu,  # noqa: E402
                                 start_server, tcp_sockets, versions, worker_pids)
from yahtzee.solver.moments import Moments  # noqa: E402

GAMES = 10
KILLED_AFTER = 120
"""Moves answered (after every game exists) before a worker is killed."""


def test_two_workers_serve_games_and_one_killed_loses_nothing(
        tmp_path: Path, solver_cache: Path, official_moments: Moments, course_moments: Moments,
        postgres_url: str) -> None:
    process, url = start_server(tmp_path / "data", capacity=GAMES, cache=solver_cache,
                                database=postgres_url, workers=2)
    try:
        for _ in range(400):  # the workers start once the address is printed
            workers = worker_pids(process.pid)
            if len(workers) == 2 and process.pid not in workers:
                break
            time.sleep(0.05)
        assert len(workers) == 2 and process.pid not in workers

        port = int(url.rsplit(":", 1)[1])

        held: dict[int, int] = {}

        def kill_the_busier() -> None:
            """Kill the worker holding most of the clients' connections (SIGKILL)."""
            held.update((pid, tcp_sockets(pid, port, "01")) for pid in workers)
            os.kill(max(workers, key=lambda pid: (held[pid], server_cpu(pid))), signal.SIGKILL)

        load = asyncio.run(play_and_kill(url, GAMES, KILLED_AFTER, kill_the_busier))
        assert len(load.secrets) == GAMES, load.failures
        # The killed worker was serving clients. A poll it dropped is sent again, to the
        # other worker; a move in flight fails. Either way each game goes on there.
        assert max(held.values()) > 0, held

        survived = asyncio.run(versions(url, load))
        assert all(version >= load.seen[game] for game, version in survived.items()), (
            survived, load.seen)
        load.failures.clear()
        asyncio.run(play_games(url, GAMES, load=load))
        assert process.poll() is None  # the address is still served, by the other worker
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    assert lost(tmp_path / "data", load, GAMES, database=postgres_url) == []
    assert len(load.finished) == GAMES


def memory_kb(pid: int) -> dict[str, int]:
    """Return the fields of ``/proc/PID/smaps_rollup`` in kB (the process's memory in all)."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, value = line.partition(":")
        fields[name] = int(value.split()[0])
    return fields


def test_the_workers_share_the_first_process_tables_even_after_playing(
        tmp_path: Path, solver_cache: Path, official_moments: Moments, course_moments: Moments,
        postgres_url: str) -> None:
    tables = sum((solver_cache / f"solver-{rules}.{kind}").stat().st_size
                 for rules in ("course", "official") for kind in ("table", "moments", "shape"))
    assert tables > 100 * 2**20  # both rule sets' tables, spreads and shapes
    process, url = start_server(tmp_path / "data", capacity=10, cache=solver_cache,
                                database=postgres_url, workers=2)
    try:
        for _ in range(400):
            workers = worker_pids(process.pid)
            if len(workers) == 2 and process.pid not in workers:
                break
            time.sleep(0.05)
        assert len(workers) == 2 and process.pid not in workers
        asyncio.run(play_games(url, 4))  # each worker reads the tables: nothing is copied
        for worker in workers:
            memory = memory_kb(worker)
            # Pages shared with the first process (they were its own, written before the
            # fork): the tables and more.  A worker that loaded its own tables has ~0 here
            # (what it remembers of the positions it met is its own, Private_Dirty).
            assert memory["Shared_Dirty"] * 1024 > tables, memory
            assert os.getpgid(worker) == worker  # a Ctrl-C reaches it once, from the first
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
