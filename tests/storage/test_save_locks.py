"""Save locks: a save held by one process is refused to another, and freed when that one dies.

The other process is a real one, started with ``subprocess``: it takes the
lock, says so on its standard output, and holds it until its standard input
closes (or it is killed); the test reads that line before going on, so the
two processes meet at the pipe, never by waiting a while.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import Problems, play_through, script_for, variant_of
from yahtzee.storage import locks
from yahtzee.storage.problems import SaveInUseError, SaveNotFoundError
from yahtzee.storage.saves import SaveStore

ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import sys
from pathlib import Path
from yahtzee.storage.locks import try_lock
lock = try_lock(Path(sys.argv[1]))
print("locked" if lock is not None else "refused", flush=True)
sys.stdin.read()
"""
"""A process that locks the file named by its argument and holds it until its input ends."""

pytestmark = pytest.mark.skipif(not locks.LOCKING, reason="no file locks on this platform")


class Holder:
    """Another process holding the lock on one file."""

    def __init__(self, path: Path) -> None:
        """Start the process and wait until it says it holds the lock on ``path``."""
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == b"locked\n"

    def close(self) -> None:
        """Let the process end (it releases the lock on its way out) and wait for it."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        assert self.process.wait() == 0

    def kill(self) -> None:
        """Kill the process with SIGKILL, as a crash would, and wait for it."""
        self.process.kill()
        assert self.process.wait() == -signal.SIGKILL


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SaveStore]:
    """Return a store holding one unfinished game (ID 1), not locked; release its locks after."""
    saves = SaveStore(tmp_path / "saves", problems=Problems())
    saves.create(play_through(7, variant_of("course"), script_for(7, "course")[:5])
                 .game.engine.record())
    saves.release()
    yield saves
    saves.release()


def test_a_save_locked_by_another_process_is_refused_until_it_ends(store: SaveStore) -> None:
    """While another process holds the lock, ``lock`` and ``delete`` refuse; after it, both work."""
    before = store.path(1).read_bytes()
    holder = Holder(store.lock_path(1))
    try:
        assert store.is_open_elsewhere(1)
        with pytest.raises(SaveInUseError):
            store.lock(1)
        with pytest.raises(SaveInUseError):
            store.delete(1)
        assert store.path(1).read_bytes() == before
    finally:
        holder.close()
    assert not store.is_open_elsewhere(1)
    store.lock(1)
    assert store.load(1).save_id == 1


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_holder_leaves_the_save_free(store: SaveStore) -> None:
    """A process killed with SIGKILL while holding the lock blocks nothing afterwards."""
    holder = Holder(store.lock_path(1))
    try:
        with pytest.raises(SaveInUseError):
            store.lock(1)
    finally:
        holder.kill()
    assert store.lock_path(1).exists()
    store.lock(1)
    assert store.delete(1).save_id == 1


def test_a_new_save_skips_an_id_reserved_by_another_process(store: SaveStore) -> None:
    """A new game never takes an ID whose lock another process holds, even with no save yet."""
    record = store.load(1).snapshot
    holder = Holder(store.lock_path(2))
    try:
        save = store.create(record)
        assert save.save_id == 3
    finally:
        holder.close()
    assert sorted(os.listdir(store.directory)) == ["1.json", "1.lock", "2.lock", "3.json", "3.lock"]


def test_new_saves_are_numbered_without_listing_the_folder_again(
        store: SaveStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a store's first new save, the next IDs come from the process's count: a busy
    table's folder of thousands of files is not listed for each game made."""
    record = store.load(1).snapshot
    listed: list[str] = []
    real = os.listdir

    def listing(path: object = ".") -> list[str]:
        """Note a listing of the saves folder, then list it."""
        if path == store.directory:
            listed.append(str(path))
        return real(path)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(os, "listdir", listing)
    assert [store.create(record).save_id for _ in range(3)] == [2, 3, 4]
    assert listed == []
    store.remove(4)
    assert store.create(record).save_id == 5, "a removed save's ID is not given again"


def test_a_file_in_the_counted_id_s_way_sends_the_count_past_the_folder(
        store: SaveStore) -> None:
    """Files made meanwhile by another program (here: by hand) are found when one is in the
    way: the new save goes after every ID in the folder, a file kept aside included."""
    record = store.load(1).snapshot
    assert store.create(record).save_id == 2
    (store.directory / "3.json").write_text("made elsewhere")
    (store.directory / "9.json.damaged").write_text("kept aside elsewhere")
    assert store.create(record).save_id == 10
    assert (store.directory / "3.json").read_text() == "made elsewhere"
    assert store.create(record).save_id == 11


def test_the_lock_of_a_save_held_in_this_process_is_refused_to_another(
        store: SaveStore, tmp_path: Path) -> None:
    """A store holding a save's lock keeps it from a second store (as from another process)."""
    store.lock(1)
    other = SaveStore(store.directory, problems=Problems())
    assert other.is_open_elsewhere(1) and not store.is_open_elsewhere(1)
    with pytest.raises(SaveInUseError):
        other.lock(1)
    store.release()
    other.lock(1)
    other.release()


def test_deleting_removes_the_save_and_its_lock_file(store: SaveStore) -> None:
    """``delete`` returns the game, removes both files, and refuses an ID with no game."""
    store.lock(1)
    store.release(1)
    assert sorted(os.listdir(store.directory)) == ["1.json", "1.lock"]
    assert store.delete(1).save_id == 1
    assert os.listdir(store.directory) == []
    with pytest.raises(SaveNotFoundError):
        store.delete(1)
    assert os.listdir(store.directory) == []


def test_a_lock_file_replaced_while_locking_is_locked_afresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the lock file's name leads to a new file once locked, the new file is the one locked."""
    import fcntl
    path = tmp_path / "1.lock"
    real_flock = fcntl.flock
    calls: list[int] = []

    def flock_after_replacement(fd: int, operation: int) -> None:
        """On the first call, let the file be removed and made anew first (its holder let go)."""
        calls.append(fd)
        if len(calls) == 1:
            os.unlink(path)
            path.write_bytes(b"")
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock_after_replacement)
    lock = locks.try_lock(path)
    assert lock is not None and lock.fd is not None
    assert len(calls) == 2
    assert os.fstat(lock.fd).st_ino == os.stat(path).st_ino
    monkeypatch.setattr(fcntl, "flock", real_flock)
    assert locks.try_lock(path) is None
    lock.release()
    again = locks.try_lock(path)
    assert again is not None
    again.release(remove=True)
    assert not path.exists()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_lock_let_go_is_free_even_while_a_child_forked_meanwhile_runs(tmp_path: Path) -> None:
    path = tmp_path / "1.lock"
    lock = locks.try_lock(path)
    assert lock is not None
    wait, go = os.pipe()
    child = os.fork()  # as the solver's helper processes are, holding a copy of the lock
    if child == 0:  # pragma: no cover - the child only waits
        os.close(go)
        os.read(wait, 1)
        os._exit(0)
    os.close(wait)
    try:
        assert locks.try_lock(path) is None  # held, by this process and its child
        lock.release()
        again = locks.try_lock(path)
        assert again is not None  # free while the child still runs
        again.release()
    finally:
        os.close(go)
        os.waitpid(child, 0)
