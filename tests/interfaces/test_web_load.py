"""A bounded load test of the browser table: games played at once by scripted clients, on loopback.

The benchmark ``benchmarks/bench_web.py`` plays 100 games and measures the
answer times; this smaller version plays a dozen, without a pause, and
checks only that nothing is lost: every move answered, every game finished
and filed once in the history, no save left over.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from benchmarks.web_load import lost, play_games, start_server  # noqa: E402
from yahtzee.solver.cache import Solution  # noqa: E402

GAMES = 12


def test_a_dozen_games_at_once_lose_nothing(
        tmp_path: Path, solver_cache: Path, course: Solution) -> None:
    data = tmp_path / "data"
    process, url = start_server(data, capacity=GAMES, delay=0.0, cache=solver_cache)
    try:
        load = asyncio.run(play_games(url, GAMES, think=0.0))
    finally:
        process.terminate()
        process.wait(timeout=60)
    assert lost(data, load, GAMES) == []
    assert len(load.finished) == GAMES
    assert len(load.times) == GAMES * 13 * 4  # die 1, roll, score and the box, every turn
