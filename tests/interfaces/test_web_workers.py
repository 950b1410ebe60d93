"""Several server processes on one PostgreSQL database, behind one address, under load.

``serve --workers 2 --database URL`` is started as a user would; scripted
clients (``benchmarks/web_load.py``) play a person against the computer in
each game.  One worker is killed (SIGKILL) in the middle: nothing any
client was shown may be lost, every game goes on through the other worker
(the computers of the killed one's games once its leases lapse), and every
finished game is filed exactly once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from benchmarks.web_load import (Load, lost, play_games, play_one, server_cpu,  # noqa: E402
                                 start_server, versions, worker_pids)
from yahtzee.solver.cache import Solution  # noqa: E402

GAMES = 10
KILLED_AFTER = 120
"""Moves answered (after every game exists) before a worker is killed."""


def test_two_workers_serve_games_and_one_killed_loses_nothing(
        tmp_path: Path, solver_cache: Path, course: Solution, postgres_url: str) -> None:
    process, url = start_server(tmp_path / "data", capacity=GAMES, cache=solver_cache,
                                database=postgres_url, workers=2)
    try:
        for _ in range(400):  # the workers start once the address is printed
            workers = worker_pids(process.pid)
            if len(workers) == 2 and process.pid not in workers:
                break
            time.sleep(0.05)
        assert len(workers) == 2 and process.pid not in workers
        killed = 0

        async def play_until_one_is_killed() -> Load:
            """Play the games at once; kill a worker once every game exists and has moves."""
            nonlocal killed
            load = Load()
            players = asyncio.gather(*(play_one(url, load, seed, 0.0, False)
                                       for seed in range(1, GAMES + 1)))
            while len(load.secrets) < GAMES and not players.done():
                await asyncio.sleep(0.005)
            counted_from = len(load.times)
            while len(load.times) < counted_from + KILLED_AFTER and not players.done():
                await asyncio.sleep(0.005)
            killed = max(workers, key=server_cpu)  # the one serving most of the clients
            os.kill(killed, signal.SIGKILL)
            await players
            return load

        load = asyncio.run(play_until_one_is_killed())
        assert len(load.secrets) == GAMES, load.failures
        assert len(load.finished) < GAMES and load.failures  # its clients saw connections drop

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
