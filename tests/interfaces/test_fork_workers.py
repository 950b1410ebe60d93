"""The worker processes of ``serve --workers N``: forked, sharing the first process's memory.

These tests fork the test process itself (``workers.fork_worker``); the
worker runs a small function instead of a server.  That the real workers
share the real tables is checked in ``test_web_workers.py``.
"""

from __future__ import annotations

import errno
import os
import platform
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from yahtzee.interfaces.web import workers as workers_module
from yahtzee.interfaces.web.server import bind
from yahtzee.interfaces.web.workers import (Worker, fork_worker, limit_malloc_arenas, run_workers,
                                            watch)
from yahtzee.solver.cache import read_only

ROOT = Path(__file__).resolve().parents[2]


def test_a_worker_exits_with_the_status_its_function_returns() -> None:
    worker = fork_worker(lambda: 7)
    assert worker.wait() == 7
    assert worker.poll() == 7  # collected once, remembered


def test_an_unexpected_error_in_a_worker_is_one_line_and_status_1(
        capfd: pytest.CaptureFixture[str]) -> None:
    def serve() -> int:
        """Fail as a server could."""
        raise RuntimeError("no more sockets")

    assert fork_worker(serve).wait() == 1
    assert capfd.readouterr().err == (
        "yahtzee: a server process stopped: RuntimeError: no more sockets\n")


def test_a_worker_that_ends_by_itself_is_told_and_the_others_serve_on(
        capfd: pytest.CaptureFixture[str]) -> None:
    """The first process says which worker ended, how, and how many still serve; workers
    ended by a stop it passed on are not told."""
    read, write = os.pipe()

    def serve() -> int:
        """Wait for a word on the pipe: its exit status."""
        return int(os.read(read, 1).decode() or "0")

    def sleep() -> int:
        """Wait to be killed."""
        signal.pause()
        return 0

    workers = [fork_worker(serve), fork_worker(serve), fork_worker(sleep)]
    os.kill(workers[2].pid, signal.SIGKILL)
    stopping = False

    def stop_the_rest() -> None:
        """Once the killed worker is told, let the other two end with a stop under way."""
        nonlocal stopping
        stopping = True
        os.write(write, b"3")
        os.write(write, b"0")

    capfd.readouterr()
    watching = threading.Timer(1.0, stop_the_rest)
    watching.start()
    watch(workers, lambda: stopping)
    watching.join()
    os.close(read)
    os.close(write)
    assert capfd.readouterr().err == (
        f"yahtzee: a server process (pid {workers[2].pid}) ended (killed by SIGKILL); "
        "2 of 3 serve on\n")
    assert sorted(worker.poll() or 0 for worker in workers[:2]) == [0, 3]


def test_a_worker_that_served_a_while_is_replaced_and_one_that_ended_soon_is_not(
        capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed after ``RESPAWN_AFTER`` seconds of serving gets a new fork in its
    place, told in one line; one killed sooner is only told (a new one would end alike)."""
    read, write = os.pipe()

    def serve() -> int:
        """Wait for a word on the pipe: its exit status."""
        return int(os.read(read, 1).decode() or "0")

    monkeypatch.setattr(workers_module, "RESPAWN_AFTER", 0.5)
    workers = [fork_worker(serve), fork_worker(serve)]
    workers[0].started -= 1.0             # has served long enough
    os.kill(workers[0].pid, signal.SIGKILL)
    os.kill(workers[1].pid, signal.SIGKILL)   # has not
    first, second = workers[0].pid, workers[1].pid
    forked: list[Worker] = []
    stopping = False

    def respawn() -> Worker:
        """Fork a worker like the first ones."""
        forked.append(fork_worker(serve))
        return forked[-1]

    def stop_the_rest() -> None:
        """Once both deaths are told, let the new worker end with a stop under way."""
        nonlocal stopping
        stopping = True
        os.write(write, b"0")

    capfd.readouterr()
    watching = threading.Timer(1.0, stop_the_rest)
    watching.start()
    watch(workers, lambda: stopping, respawn=respawn)
    watching.join()
    os.close(read)
    os.close(write)
    assert len(forked) == 1 and workers == [forked[0], workers[1]]
    assert forked[0].poll() == 0          # it served until the stop
    assert capfd.readouterr().err == (
        f"yahtzee: a server process (pid {first}) ended (killed by SIGKILL); "
        f"a new one (pid {forked[0].pid}) takes its place\n"
        f"yahtzee: a server process (pid {second}) ended (killed by SIGKILL); "
        "1 of 2 serve on\n")


def test_the_address_workers_share_must_be_free_of_any_other_server() -> None:
    """SO_REUSEPORT would let a second ``serve --workers`` share the port another one's
    workers listen on, splitting its clients between two tables: it is refused."""
    other = bind("127.0.0.1", 0, shared_port=True)   # another server's worker
    port = other.getsockname()[1]
    with other, pytest.raises(OSError) as refused:
        bind("127.0.0.1", port, shared_port=True, listen=False)
    assert refused.value.errno == errno.EADDRINUSE
    with bind("127.0.0.1", port, shared_port=True, listen=False):   # free again
        with bind("127.0.0.1", port, shared_port=True) as worker:   # its own workers share it
            assert worker.getsockname()[1] == port


ORPHANED = """
import signal, sys, time
from yahtzee.interfaces.web.workers import fork_worker
worker = fork_worker(lambda: (signal.pause(), 0)[1])
print(worker.pid, flush=True)
time.sleep(60)
"""
"""A first process that forks one worker (waiting for a signal) and says its ID."""


def _ended(pid: int) -> bool:
    """Return whether process ``pid`` ended (gone, or a zombie no one collected yet)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


@pytest.mark.skipif(platform.system() != "Linux", reason="prctl's parent-death signal is Linux's")
def test_workers_stop_when_the_first_process_is_killed() -> None:
    """Orphans would serve on unwatched, and meet the next server on the port."""
    first = subprocess.Popen([sys.executable, "-c", ORPHANED], stdout=subprocess.PIPE,
                             text=True, cwd=ROOT)
    assert first.stdout is not None
    worker = int(first.stdout.readline())
    assert not _ended(worker)
    first.kill()
    first.wait()
    deadline = time.monotonic() + 10
    while not _ended(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _ended(worker)


def _mappings(pid: int, start: int, size: int) -> dict[str, int]:
    """Return the smaps fields (kB) of process ``pid`` summed over the mappings that hold
    bytes of ``start`` to ``start + size`` (an array's pages may span several)."""
    fields: dict[str, int] = {}
    inside = False
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        words = line.split()
        if "-" in words[0] and not words[0].endswith(":"):
            low, high = (int(part, 16) for part in words[0].split("-"))
            inside = low < start + size and start < high
        elif inside and words[-1] == "kB":
            name = words[0].rstrip(":")
            fields[name] = fields.get(name, 0) + int(words[1])
    return fields


def test_a_worker_reads_the_parent_table_from_the_same_pages() -> None:
    table = np.arange(6 * 2**20, dtype=np.float64)  # 48 MB, as a loaded table is made
    read_only(table)
    expected = float(table.sum())
    ready, told = os.pipe()
    go, going = os.pipe()

    def serve() -> int:
        """Read every page of the table, wait while the parent looks, say if it was whole."""
        total = float(table.sum())
        os.write(told, b"+")
        os.read(go, 1)
        return 0 if total == expected else 3

    worker = fork_worker(serve)
    try:
        assert os.read(ready, 1) == b"+"
        seen = _mappings(worker.pid, table.ctypes.data, table.nbytes)
    finally:
        os.write(going, b"+")
        status = worker.wait()
        for fd in (ready, told, go, going):
            os.close(fd)
    assert status == 0
    # Written by the parent before the fork, read by both since: shared, not copied.
    assert seen["Shared_Dirty"] * 1024 >= table.nbytes, seen
    assert seen["Private_Dirty"] * 1024 < table.nbytes // 8, seen


def test_a_stopping_signal_stops_every_worker_each_in_its_own_process_group() -> None:
    port = _free_port()
    read, write = os.pipe()

    def serve() -> int:
        """Listen on the port beside the other worker until SIGINT, saying so in the pipe."""
        try:
            with socket.socket() as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                sock.bind(("127.0.0.1", port))
                sock.listen()
                os.write(write, f"ready {os.getpid()} {os.getpgid(0)}\n".encode())
                signal.pause()
        except KeyboardInterrupt:
            os.write(write, f"stopped {os.getpid()}\n".encode())
            return 0
        return 5

    heard: list[list[str]] = []
    with os.fdopen(read) as said:
        def stop_when_both_listen() -> None:
            """Send this process SIGTERM (as ``kill`` would) once both workers listen."""
            heard.extend(said.readline().split() for _ in range(2))
            os.kill(os.getpid(), signal.SIGTERM)

        status = run_workers(2, serve, stop_when_both_listen, host="127.0.0.1", port=port)
        os.close(write)
        stopped = [line.split() for line in said.read().splitlines()]
    assert status == 0
    assert [words[0] for words in heard] == ["ready", "ready"]
    pids = sorted(int(words[1]) for words in heard)
    assert all(words[1] == words[2] for words in heard)  # each its own process group
    assert sorted(int(words[1]) for words in stopped if words[0] == "stopped") == pids


def _free_port() -> int:
    """Return a port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


_ARENAS = """
import ctypes, sys, threading
from yahtzee.interfaces.web.workers import limit_malloc_arenas
limited = limit_malloc_arenas(int(sys.argv[1])) if sys.argv[1] != "0" else False
together = threading.Barrier(13)
def allocate():
    held = [bytearray(64) for _ in range(2000)]  # small blocks: from the thread's arena
    together.wait()
    together.wait()
threads = [threading.Thread(target=allocate) for _ in range(12)]
for thread in threads:
    thread.start()
together.wait()  # every thread holds its blocks now
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
libc.malloc_info.argtypes = (ctypes.c_int, ctypes.c_void_p)
libc.fclose.argtypes = (ctypes.c_void_p,)
stream = libc.fopen(sys.argv[2].encode(), b"w")
libc.malloc_info(0, stream)
libc.fclose(stream)
together.wait()
print(limited, open(sys.argv[2]).read().count("<heap nr="))
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's allocator only")
@pytest.mark.parametrize(("arenas", "limited"), [(0, False), (2, True)])
def test_the_server_keeps_few_memory_arenas(arenas: int, limited: bool, tmp_path: Path) -> None:
    """Twelve threads allocating at once: one arena each by default, two once limited."""
    env = {key: value for key, value in os.environ.items() if key != "MALLOC_ARENA_MAX"}
    done = subprocess.run([sys.executable, "-c", _ARENAS, str(arenas), str(tmp_path / "info")],
                          capture_output=True, text=True, env=env, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    said, heaps = done.stdout.split()
    assert said == str(limited)
    assert (int(heaps) <= 2) == limited


def test_the_users_own_arena_limit_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MALLOC_ARENA_MAX`` in the environment: the server leaves the allocator as it is."""
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert limit_malloc_arenas() is False
