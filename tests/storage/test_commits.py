"""Group commits: files written together, each writer told when its file is on disk, in order.

The committer is held busy by a job that waits, so that what is queued
meanwhile forms one group, as under a server's load.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.helpers import Problems, humans, variant_of
from yahtzee.app.session import Autosaver
from yahtzee.engine.engine import Engine
from yahtzee.storage.atomic import write_atomic_many
from yahtzee.storage.commits import GroupCommitter
from yahtzee.storage.saves import SaveStore


@pytest.mark.parametrize("pool", [False, True], ids=["one thread", "side by side"])
def test_a_group_writes_every_file_and_leaves_no_temporary_file(
        tmp_path: Path, pool: bool) -> None:
    other = tmp_path / "other"
    other.mkdir()
    files = [(tmp_path / "1.json", b"one\n"), (tmp_path / "2.json", b"two\n"),
             (other / "3.json", b"three\n")]
    (tmp_path / "1.json").write_bytes(b"old\n")
    with ThreadPoolExecutor(2) as executor:
        errors = write_atomic_many(files, pool=executor if pool else None)
    assert errors == [None, None, None]
    assert [path.read_bytes() for path, _ in files] == [b"one\n", b"two\n", b"three\n"]
    assert sorted(os.listdir(tmp_path)) == ["1.json", "2.json", "other"]
    assert os.listdir(other) == ["3.json"]


def test_a_file_that_cannot_be_written_fails_alone(tmp_path: Path) -> None:
    missing = tmp_path / "gone" / "2.json"
    errors = write_atomic_many([(tmp_path / "1.json", b"one\n"), (missing, b"two\n"),
                                (tmp_path / "3.json", b"three\n")])
    assert errors[0] is None and errors[2] is None
    assert isinstance(errors[1], FileNotFoundError)
    assert sorted(os.listdir(tmp_path)) == ["1.json", "3.json"]


def busy(committer: GroupCommitter) -> threading.Event:
    """Hold the committer busy until the returned event is set."""
    release = threading.Event()
    started = threading.Event()

    def hold() -> None:
        """Wait for the test to let go."""
        started.set()
        release.wait(10)

    committer.run(hold)
    started.wait(10)
    return release


def test_what_is_queued_meanwhile_is_one_group_and_a_file_queued_twice_is_written_once(
        tmp_path: Path) -> None:
    committer = GroupCommitter()
    release = busy(committer)
    first = committer.write(tmp_path / "1.json", b"first\n")
    other = committer.write(tmp_path / "2.json", b"other\n")
    latest = committer.write(tmp_path / "1.json", b"latest\n")
    assert not first.done()
    release.set()
    for future in (first, other, latest):
        assert future.result(10) is None
    assert (tmp_path / "1.json").read_bytes() == b"latest\n"
    assert (tmp_path / "2.json").read_bytes() == b"other\n"
    counts = committer.counts
    assert (counts.groups, counts.files, counts.writes, counts.jobs) == (1, 2, 3, 1)
    assert counts.syncs == 3  # each file, and their folder once
    committer.close()


def test_a_job_runs_after_the_writes_queued_before_it(tmp_path: Path) -> None:
    committer = GroupCommitter()
    release = busy(committer)
    committer.write(tmp_path / "1.json", b"saved\n")
    seen: list[bytes] = []
    job = committer.run(lambda: seen.append((tmp_path / "1.json").read_bytes()))
    committer.write(tmp_path / "1.json", b"later\n")
    release.set()
    assert job.result(10) is None
    assert seen == [b"saved\n"]
    committer.close()
    assert (tmp_path / "1.json").read_bytes() == b"later\n"


def test_a_failed_write_is_told_to_its_writer_and_the_committer_goes_on(tmp_path: Path) -> None:
    committer = GroupCommitter()
    failed = committer.write(tmp_path / "gone" / "1.json", b"lost\n")
    assert isinstance(failed.exception(10), FileNotFoundError)

    def broken() -> None:
        """A job that fails."""
        raise OSError("no room")

    assert isinstance(committer.run(broken).exception(10), OSError)
    assert committer.write(tmp_path / "2.json", b"kept\n").result(10) is None
    committer.close()


def test_close_writes_what_is_queued_and_later_writes_happen_at_once(tmp_path: Path) -> None:
    committer = GroupCommitter()
    release = busy(committer)
    queued = committer.write(tmp_path / "1.json", b"queued\n")
    threading.Timer(0.05, release.set).start()
    committer.close()
    assert queued.done() and (tmp_path / "1.json").read_bytes() == b"queued\n"
    late = committer.write(tmp_path / "2.json", b"late\n")
    assert late.done() and (tmp_path / "2.json").read_bytes() == b"late\n"


class FailingCommitter(GroupCommitter):
    """A committer whose every write fails, as on a full disk."""

    def write(self, path: Path, data: bytes) -> Future[None]:
        """Fail the write."""
        future: Future[None] = Future()
        future.set_exception(OSError(28, "No space left on device"))
        return future


def test_a_save_its_committer_cannot_write_is_reported_once_and_the_game_plays_on(
        tmp_path: Path) -> None:
    problems = Problems()
    store = SaveStore(tmp_path, problems=problems, committer=FailingCommitter())
    saver = Autosaver(store)
    variant = variant_of("course")
    engine = Engine(variant, humans(variant), seed=3, observers=[saver])
    for command in ("roll", "score", "13", "roll", "roll", "12"):
        engine.prompt()
        assert engine.submit(command).accepted
    assert saver.save_id is not None  # the first save is written at once
    assert [str(error) for error in problems.unsaved] == ["[Errno 28] No space left on device"]
    assert saver.resume_id() is None
