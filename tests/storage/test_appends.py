"""The compiled appends (``yahtzee.storage.appends``): lines on the disk in turn, errors handed
back, and a child process after ``fork`` with threads of its own."""

from __future__ import annotations

import functools
import os
import select
import time
from pathlib import Path

import pytest

from yahtzee.storage.appends import BackgroundAppends

pytestmark = pytest.mark.skipif(not BackgroundAppends.available(),
                                reason="the compiled appends were not built (no C compiler)")


def wait_for_all(appends: BackgroundAppends, seconds: float = 10.0) -> None:
    """Collect until every append submitted is told done, as an event loop watching does."""
    descriptor = appends.fileno()
    deadline = time.monotonic() + seconds
    while appends.waiting():
        assert time.monotonic() < deadline, "an append was never told done"
        select.select([descriptor], [], [], 0.2)
        appends.collect()


def test_lines_waited_for_in_turn_follow_each_other_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "1.json"
    path.write_bytes(b"whole\n")
    appends = BackgroundAppends()
    told: list[OSError | None] = []
    for number in range(3):
        appends.submit(path, f"step {number}\n".encode(), True, told.append)
        wait_for_all(appends)
    assert told == [None, None, None]
    assert path.read_bytes() == b"whole\nstep 0\nstep 1\nstep 2\n"


def test_files_side_by_side_each_get_their_own_line(tmp_path: Path) -> None:
    appends = BackgroundAppends()
    told: dict[int, OSError | None] = {}
    for number in range(200):
        (tmp_path / f"{number}.json").write_bytes(b"")
        appends.submit(tmp_path / f"{number}.json", f"{number}\n".encode(), number % 2 == 0,
                       functools.partial(told.__setitem__, number))
    wait_for_all(appends)
    assert told == {number: None for number in range(200)}
    assert all((tmp_path / f"{number}.json").read_bytes() == f"{number}\n".encode()
               for number in range(200))


def test_a_missing_file_is_told_as_not_found_and_is_not_made(tmp_path: Path) -> None:
    appends = BackgroundAppends()
    told: list[OSError | None] = []
    appends.submit(tmp_path / "gone.json", b"step\n", True, told.append)
    wait_for_all(appends)
    assert len(told) == 1 and isinstance(told[0], FileNotFoundError)
    assert not (tmp_path / "gone.json").exists()


def test_lines_queued_together_are_each_told_their_own_outcome(tmp_path: Path) -> None:
    """A thread writes every line queued before it waits for any: a missing file among them
    fails its own line only, and every other line is on the disk when told done."""
    appends = BackgroundAppends()
    told: dict[int, OSError | None] = {}
    for number in range(300):
        if number % 3:
            (tmp_path / f"{number}.json").write_bytes(b"whole\n")
        appends.submit(tmp_path / f"{number}.json", f"{number}\n".encode(), True,
                       functools.partial(told.__setitem__, number))
    wait_for_all(appends)
    assert sorted(told) == list(range(300))
    assert all(isinstance(told[number], FileNotFoundError) for number in range(0, 300, 3))
    assert all(told[number] is None for number in range(300) if number % 3)
    assert all((tmp_path / f"{number}.json").read_bytes() == f"whole\n{number}\n".encode()
               for number in range(300) if number % 3)
    assert not any((tmp_path / f"{number}.json").exists() for number in range(0, 300, 3))


def test_a_child_after_fork_appends_by_threads_of_its_own(tmp_path: Path) -> None:
    """The parent's threads run, and may hold the queue's lock, as the child is made."""
    appends = BackgroundAppends()
    path = tmp_path / "1.json"
    path.write_bytes(b"")
    appends.submit(path, b"parent\n", True, lambda error: None)
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's outcome is its exit status
        status = 1
        try:
            told: list[OSError | None] = []
            appends.submit(path, b"child\n", True, told.append)
            wait_for_all(appends)
            status = 0 if told == [None] else 1
        finally:
            os._exit(status)
    wait_for_all(appends)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert sorted(path.read_bytes().splitlines()) == [b"child", b"parent"]
