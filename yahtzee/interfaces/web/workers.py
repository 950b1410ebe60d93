"""Several server processes behind one address: ``serve --workers N --database URL``.

The first process holds the address (bound, not listening) and makes what
every game needs from the solver (``Solvers.preload``: the tables, a few
hundred MB), then forks ``N`` worker processes that each listen on the
same port (``SO_REUSEPORT``): the operating system spreads the new
connections evenly among them.  A forked worker starts as a copy of the
first process whose pages the kernel shares until one of them writes to
a page; the tables are read-only, so the workers and the first process
hold one copy of them between them, not one each.  When it forks, the
first process runs no thread and no event loop: each worker opens its own
database connections and runs its own server (uvicorn, its event loop and
threads).

The workers share nothing else but the database, which serializes every
game's moves (see ``app/browser.py``); any of them answers any request.
The first process only waits: Ctrl-C, SIGTERM or SIGHUP stops every worker.  A
worker that dies leaves the others serving, and the first process says so
in one line; its games' computers are taken up by the others once its
leases lapse.  One that had served a while is replaced by a new fork (the
first process is as quiet as when it forked the first ones); one that
ended soon after it started is not, since a new one would likely end
alike.  The workers get the database URL in the memory they inherit (a
URL typed on the first process's command line stays on theirs too).
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType

from yahtzee.interfaces.reporting import Reporter

MALLOC_ARENAS = 2
"""The memory arenas glibc's allocator may keep per server process (``limit_malloc_arenas``).

By default it keeps up to eight per core, and a server's move threads
each take one: memory freed in one arena is not reused by the others, so
a process held a third more after the same games.  Two arenas measured
the same processor time per move (``benchmarks/bench_shared_tables.py``,
docs/scaling.md).
"""
_M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter number of the most arenas (``M_ARENA_MAX``)."""


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Let glibc's allocator keep at most ``arenas`` arenas; return whether it was set.

    Called before the server starts any thread.  Nothing is changed where
    ``MALLOC_ARENA_MAX`` is set in the environment (the user's choice
    stands) or where the C library has no ``mallopt`` (not glibc).
    """
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_ARENA_MAX, arenas))


STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop the server (Ctrl-C, ``kill``, the terminal closed; not SIGHUP
where it is ignored, as under ``nohup``): the first process passes each on to every worker
as SIGINT."""


class Worker:
    """One forked worker process: its process ID and, once it ended, its exit status."""

    def __init__(self, pid: int) -> None:
        """Follow the child process ``pid`` (a child of this process), forked just now."""
        self.pid = pid
        self.status: int | None = None
        self.started = time.monotonic()

    def _reaped(self, flags: int) -> int | None:
        """Collect the exit status if the worker ended (waiting for it without ``WNOHANG``)."""
        if self.status is None:
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:  # collected elsewhere: its status is lost
                self.status = 1
            else:
                if pid:
                    self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def poll(self) -> int | None:
        """Return the exit status (negative: the signal that ended it), None while it runs."""
        return self._reaped(os.WNOHANG)

    def wait(self) -> int:
        """Wait for the worker to end; return its exit status."""
        status = self._reaped(0)
        assert status is not None
        return status

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` to the worker, if it still runs."""
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """End the worker at once (SIGKILL)."""
        self.send_signal(signal.SIGKILL)


_PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal a process gets when its parent ends."""


def _stop_with(parent: int) -> None:
    """Have the system stop this worker (SIGINT: a stop, answers finished) once ``parent``,
    the first process, ends however it ends, SIGKILL included; nothing where ``prctl`` is
    not (not Linux).  Without it, workers of a killed first process would serve on,
    unwatched, and a new server would meet them on the port."""
    try:
        prctl = ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        return
    prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong)
    prctl.restype = ctypes.c_int
    prctl(_PR_SET_PDEATHSIG, signal.SIGINT, 0, 0, 0)
    if os.getppid() != parent:  # it ended before that was asked: stop now
        os.kill(os.getpid(), signal.SIGINT)


def _become_worker(inherited: Sequence[int], parent: int) -> None:
    """Set up a freshly forked worker: signals as a new process has them, no terminal input.

    The worker is a process group of its own, so that a Ctrl-C reaches it
    once, passed on by the first process, not also from the terminal (a
    second SIGINT would cut its server's shutdown short); it is stopped when
    ``parent``, the first process, ends (``_stop_with``).  ``inherited``
    are file descriptors of the first process the worker must not keep
    (the socket holding the address).
    """
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING_SIGNALS)
    _stop_with(parent)
    for fd in inherited:
        os.close(fd)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)


def fork_worker(serve: Callable[[], int], inherited: Sequence[int] = ()) -> Worker:
    """Fork a worker process that runs ``serve()`` and exits with its status; return it.

    Only the first process returns: the worker ends inside (``os._exit``),
    never running the first process's cleanup.  An error the worker did not
    expect is said in one line.  Call it with the ``STOPPING_SIGNALS``
    blocked (see ``_signals_held``), so that a signal meant for the first process is
    never handled by its copy of the handlers in the worker.
    """
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return Worker(pid)
    status = 1
    try:
        _become_worker(inherited, parent)
        status = serve()
    except KeyboardInterrupt:
        status = 130
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    except BaseException as error:  # the worker's last word; never a traceback
        Reporter().error(f"a server process stopped: {type(error).__name__}: {error}")
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold the ``STOPPING_SIGNALS`` back inside the block; they are handled after it."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING_SIGNALS)


def wait_until_served(workers: Sequence[Worker], host: str, port: int,
                      seconds: float = 60.0) -> bool:
    """Return once a worker takes connections on ``port`` (True), or all stopped or timed out."""
    target = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(w.poll() is None for w in workers):
        try:
            with socket.create_connection((target, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


WATCH_SECONDS = 0.25
"""How often the first process looks at its workers while they serve."""

RESPAWN_AFTER = 30.0
"""Seconds a worker must have served for a new one to take its place when it ends: one
that ends sooner (a port, a database or a memory limit it cannot get past) would likely
end alike, and be forked again and again."""


def watch(workers: list[Worker], stopping: Callable[[], bool],
          reporter: Reporter | None = None,
          respawn: Callable[[], Worker] | None = None) -> None:
    """Return once every worker ended; say in one line each that ended while not ``stopping``.

    A worker killed (the out-of-memory killer, an operator's SIGKILL) or
    stopped by an error leaves the others serving.  With ``respawn`` (which
    forks a new worker) one that had served ``RESPAWN_AFTER`` seconds is
    replaced in ``workers`` and the line names the new one; otherwise the
    line tells the operator how many still serve.
    """
    told: set[int] = set()
    while True:
        for place, worker in enumerate(workers):
            status = worker.poll()
            if status is None or worker.pid in told or stopping():
                continue
            told.add(worker.pid)
            how = (f"killed by {signal.Signals(-status).name}" if status < 0
                   else f"exit status {status}")
            said = f"a server process (pid {worker.pid}) ended ({how}); "
            if respawn is not None and time.monotonic() - worker.started >= RESPAWN_AFTER:
                with _signals_held():  # a stop meanwhile reaches the new worker too
                    workers[place] = respawn()
                said += f"a new one (pid {workers[place].pid}) takes its place"
            else:
                serving = sum(w.poll() is None for w in workers)
                said += f"{serving} of {len(workers)} serve on"
            (reporter or Reporter()).error(said)
        if all(worker.poll() is not None for worker in workers):
            return
        time.sleep(WATCH_SECONDS)


def run_workers(count: int, serve: Callable[[], int], ready: Callable[[], None], *,
                host: str, port: int, inherited: Sequence[int] = ()) -> int:
    """Fork ``count`` workers, each running ``serve()``, and wait until they are stopped.

    ``serve`` listens on ``host``:``port`` beside the other workers;
    ``ready()`` is called once the port takes connections; ``inherited``
    are the file descriptors the workers close (see ``fork_worker``).
    Everything this process holds when it calls this is shared with the
    workers until written: the objects made so far are moved out of the
    garbage collector's reach first (``gc.freeze``, undone at the end), so
    that its passes in the workers (rare: ``server.collect_rarely``) do not
    write to their pages.  Status 0 after Ctrl-C, SIGTERM or SIGHUP, 1 if
    every worker stopped by itself.
    """
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        """Stop every worker (they finish their answers, as a server does on Ctrl-C)."""
        nonlocal stopping
        stopping = True
        for worker in workers:
            worker.send_signal(signal.SIGINT)

    workers: list[Worker] = []
    previous = {sig: signal.signal(sig, stop) for sig in STOPPING_SIGNALS
                if sig != signal.SIGHUP or signal.getsignal(sig) != signal.SIG_IGN}  # nohup
    try:
        gc.freeze()
        with _signals_held():
            for _ in range(count):
                workers.append(fork_worker(serve, inherited))
        if wait_until_served(workers, host, port):
            ready()
        watch(workers, lambda: stopping, respawn=lambda: fork_worker(serve, inherited))
    finally:
        gc.unfreeze()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    return 0 if stopping else 1
