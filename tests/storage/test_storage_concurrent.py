"""Four programs, or eight threads of one, finishing games at the same moment: each filed once.

Real processes, started together behind a barrier, each file a finished
one-player game (through the ``Autosave``, as the game does) into a data
folder that has no history yet; twenty rounds, a fresh folder each.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest

from tests.helpers import Problems, play_through, script_for
from yahtzee.app.session import Autosave
from yahtzee.domain.games import POKER_DICE
from yahtzee.engine.engine import Engine
from yahtzee.storage.history import History
from yahtzee.storage.saves import SaveStore

PROCESSES = 4
ROUNDS = 20
THREADS = 8


def _finish(engine: Engine, folders: list[Path], barrier: Barrier,
            results: multiprocessing.Queue[tuple[int, str]]) -> None:
    """In each folder, save the finished game, wait for the others, then file it."""
    for folder in folders:
        problems = Problems()
        saver = Autosave(SaveStore(folder / "saves", problems=problems),
                         History(folder / "history.sqlite3", problems=problems))
        saver.changed(engine)
        barrier.wait()
        saver.finished(engine)
        results.put((os.getpid(), repr((problems.damaged, problems.unsaved, problems.twice))))


def test_four_programs_finishing_at_once_file_every_game_once(tmp_path: Path) -> None:
    """No game is lost, none is filed twice, nothing is called damaged or left unsaved."""
    engine = play_through(5, POKER_DICE, script_for(5, "poker"), players=1).game.engine
    assert engine.is_over()
    folders = [tmp_path / str(n) for n in range(ROUNDS)]
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(PROCESSES)
    results: multiprocessing.Queue[tuple[int, str]] = context.Queue()
    workers = [context.Process(target=_finish, args=(engine, folders, barrier, results))
               for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    reports = [results.get() for _ in range(PROCESSES * ROUNDS)]
    for worker in workers:
        worker.join()
    assert [worker.exitcode for worker in workers] == [0] * PROCESSES
    assert {report for _, report in reports} == {"([], [], [])"}
    for folder in folders:
        assert sorted(os.listdir(folder)) == ["history.sqlite3", "saves"], folder
        assert os.listdir(folder / "saves") == []
        games = History(folder / "history.sqlite3").games()
        assert len(games) == PROCESSES and len({game.uid for game in games}) == PROCESSES


def test_threads_filing_at_once_take_turns_rather_than_time_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's threads filing many games at once each file theirs, however long they wait."""
    engine = play_through(5, POKER_DICE, script_for(5, "poker"), players=1).game.engine
    monkeypatch.setattr(History, "timeout", 0.0)  # no wait at all for SQLite's own lock
    path = tmp_path / "history.sqlite3"
    History(path).record(engine.record(), uid="first")  # the database made beforehand
    barrier = threading.Barrier(THREADS)
    failures: list[str] = []

    def file(number: int) -> None:
        """File the game under a uid of its own, once every thread is ready."""
        barrier.wait()
        for attempt in range(ROUNDS):
            try:
                History(path).record(engine.record(), uid=f"{number}-{attempt}")
            except sqlite3.Error as error:
                failures.append(str(error))

    threads = [threading.Thread(target=file, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(History(path).games()) == 1 + THREADS * ROUNDS
