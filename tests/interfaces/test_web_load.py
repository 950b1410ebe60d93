"""Bounded load tests of the browser table: games played at once by scripted clients, on loopback.

The benchmark ``benchmarks/bench_web.py`` plays 100 games and measures the
answer times; these smaller versions play a dozen, without a pause, and
check only that nothing is lost: every move answered, every game finished
and filed once in the history, no save left over; and when the server is
killed (SIGKILL) in the middle of it all, no state that it had shown to a
client is lost: every game takes up again at least where its client saw
it, and plays on to its end.
"""

from __future__ import annotations

import asyncio
import gc
import math
import signal
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from benchmarks.bench_app import measure  # noqa: E402
from benchmarks.web_load import (MOST_FRAMES, PAGE_SCRIPT, answer_times,  # noqa: E402
                                 keep_playing, lost, page_constant, peak_memory_mb, play_and_kill,
                                 play_games, playback_seconds, start_server, versions)
from tests.helpers import collector_off  # noqa: E402
from yahtzee.solver.cache import Solution  # noqa: E402

GAMES = 12
KILLED_AFTER = 150
"""How many moves are answered, once every game exists, before the server is killed."""


def test_a_dozen_games_at_once_lose_nothing(
        tmp_path: Path, solver_cache: Path, course: Solution) -> None:
    data = tmp_path / "data"
    process, url = start_server(data, capacity=GAMES, delay=0.0, cache=solver_cache)
    try:
        load = asyncio.run(play_games(url, GAMES, think=0.0))
        peak = peak_memory_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=60)
    assert lost(data, load, GAMES) == []
    assert 30 < peak < 2000  # Python, numpy and the course tables, read while it runs
    assert peak_memory_mb(process.pid) == 0.0  # gone
    assert len(load.finished) == GAMES
    assert len(load.times) == GAMES * 13 * 4  # die 1, roll, score and the box, every turn


def test_the_clients_play_through_the_application_called_in_this_process(
        data: Path, solver_cache: Path, course: Solution, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    """``bench_app.py``: the same games with no socket, and the threads' processor time."""
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(solver_cache))
    with collector_off():  # ``measure`` turns the collector's passes off, as a server does
        try:
            figures = asyncio.run(measure(4, "half", 0.0))
        finally:
            gc.unfreeze()
    assert figures["errors"] == 0
    assert figures["moves"] == 4 * 13 * 4
    by_thread = figures["cpu_ms_per_move_by_thread"]
    assert 0 < by_thread["loop"] <= figures["cpu_ms_per_move"] + 0.5
    assert sum(by_thread.values()) <= figures["cpu_ms_per_move"] + 0.5


def test_clients_kept_playing_start_game_after_game_and_lose_nothing(
        tmp_path: Path, solver_cache: Path, course: Solution) -> None:
    """``bench_web.py --steady``: each client starts a new game when its game ends."""
    data = tmp_path / "data"
    process, url = start_server(data, capacity=GAMES, delay=0.0, cache=solver_cache)
    try:
        started = time.perf_counter()
        load = asyncio.run(keep_playing(url, 3, 8.0, think=0.0, coach_every=2, ramp=1.0))
        ended = time.perf_counter()
    finally:
        process.terminate()
        process.wait(timeout=60)
    assert load.failures == []
    assert len(load.secrets) > 3  # some client played more than one game
    assert sorted(load.finished) == sorted(load.secrets)
    assert len(load.sent) == len(load.times)
    assert all(started <= sent <= ended - answer for sent, answer in zip(load.sent, load.times))
    assert lost(data, load, len(load.secrets)) == []


def test_the_clients_play_back_as_many_of_a_computer_s_re_rolls_as_the_page_s_script_does(
) -> None:
    """``MOST_FRAMES`` is the page script's own number, not a copy: a computer's turn of that
    many re-rolls is waited for, frame by frame, and one of more re-rolls is not."""
    script = PAGE_SCRIPT.read_text(encoding="utf-8")
    lines = [line for line in script.splitlines() if "const MOST_FRAMES" in line]
    assert len(lines) == 1, "app.js defines MOST_FRAMES once"
    assert MOST_FRAMES >= 1 and f"MOST_FRAMES = {MOST_FRAMES};" in lines[0]
    with pytest.raises(LookupError):
        page_constant("NO_SUCH_NUMBER")
    players = [{"computer": False}, {"computer": True}]
    before = {"steps": [{"made": 0, "seat": 1, "box": 5}], "players": players}

    def turn(re_rolls: int) -> dict[str, object]:
        """The state after the computer's turn of ``re_rolls`` re-rolls and its box."""
        steps = [{"made": n, "seat": 2, "box": None} for n in range(1, re_rolls + 1)]
        return {"steps": [*steps, {"made": re_rolls + 1, "seat": 2, "box": 3}],
                "players": players, "pace": 0.5}

    assert playback_seconds(before, turn(MOST_FRAMES)) == 0.5 * MOST_FRAMES
    assert playback_seconds(before, turn(MOST_FRAMES + 1)) == 0.0


def test_answer_times_interpolate_between_the_answers_however_few() -> None:
    """A p99 of ten answers lies between the ninth and the tenth, never past the longest."""
    answers = [n / 1000 for n in range(10, 0, -1)]  # 10 to 1 ms, given out of order
    assert answer_times(answers) == {"median_ms": 5.5, "p90_ms": 9.1, "p99_ms": 9.91,
                                     "max_ms": 10.0}
    assert answer_times(answers, digits=1)["p99_ms"] == 9.9
    assert answer_times([0.004]) == {"median_ms": 4.0, "p90_ms": 4.0, "p99_ms": 4.0,
                                     "max_ms": 4.0}
    assert all(math.isnan(value) for value in answer_times([]).values())


def test_a_server_killed_under_load_loses_nothing_it_showed(
        tmp_path: Path, solver_cache: Path, course: Solution) -> None:
    data = tmp_path / "data"
    process, url = start_server(data, capacity=GAMES, delay=0.0, cache=solver_cache)
    try:
        load = asyncio.run(play_and_kill(
            url, GAMES, KILLED_AFTER, lambda: process.send_signal(signal.SIGKILL)))
    finally:
        process.kill()
        process.wait(timeout=60)
    assert len(load.secrets) == GAMES, load.failures
    assert len(load.finished) < GAMES
    assert load.failures  # the clients playing at the kill saw their connections drop

    process, url = start_server(data, capacity=GAMES, delay=0.0, cache=solver_cache)

    try:
        restarted = asyncio.run(versions(url, load))
        assert all(version >= load.seen[game] for game, version in restarted.items()), (
            restarted, load.seen)
        load.failures.clear()
        asyncio.run(play_games(url, GAMES, load=load))
    finally:
        process.terminate()
        process.wait(timeout=60)
    assert lost(data, load, GAMES) == []
