"""Several server processes behind one address: ``serve --workers N --database URL``.

The first process holds the address (bound, not listening), then starts
``N`` worker processes (``python -m yahtzee serve --port P --worker``) that
each listen on the same port (``SO_REUSEPORT``): the operating system
spreads the new connections evenly among them.
They share nothing but the database, which serializes every game's moves
(see ``app/browser.py``); any of them answers any request.  The first
process only waits: Ctrl-C or SIGTERM stops every worker.  A worker that
dies leaves the others serving; its games' computers are taken up by them
once its leases lapse.  The database URL reaches the workers through the
environment (``YAHTZEE_DATABASE``), never on a command line that other users
of the machine could read.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType

from yahtzee.storage.port import DATABASE_VARIABLE


def worker_command(port: int, host: str, options: Sequence[str]) -> list[str]:
    """Return the command line of one worker listening on ``host``:``port`` beside the others."""
    return [sys.executable, "-m", "yahtzee", "serve", "--host", host, "--port", str(port),
            "--worker", *options]


def wait_until_served(workers: Sequence[subprocess.Popen[bytes]], host: str, port: int,
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


def run_workers(count: int, port: int, host: str, options: Sequence[str], database: str,
                env: dict[str, str], ready: Callable[[], None]) -> int:
    """Run ``count`` workers on ``host``:``port`` until stopped; return the status.

    ``options`` are the workers' other ``serve`` options; ``database`` is
    handed over in ``env``; ``ready()`` is called once the port takes
    connections.  Status 0 after Ctrl-C or SIGTERM, 1 if every worker
    stopped by itself.
    """
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        """Stop every worker (they finish their answers, as a server does on Ctrl-C)."""
        nonlocal stopping
        stopping = True
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGINT)

    workers: list[subprocess.Popen[bytes]] = []
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        child_env = {**env, DATABASE_VARIABLE: database}
        workers = [subprocess.Popen(worker_command(port, host, options), env=child_env,
                                    stdin=subprocess.DEVNULL)
                   for _ in range(count)]
        if wait_until_served(workers, host, port):
            ready()
        for worker in workers:
            worker.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    return 0 if stopping else 1
