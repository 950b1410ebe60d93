"""Shared fixtures of the tests that need PostgreSQL: a throw-away cluster for the whole run.

``postgres_cluster`` finds Debian's server (``/usr/lib/postgresql/*/bin``),
runs ``initdb`` into a temporary folder (as the ``postgres`` user when the
tests run as root: the server refuses to run as root), starts it on a free
port of 127.0.0.1 with its socket in that folder, and stops it at the end,
whatever happened.  ``postgres_url`` is a fresh database of that cluster
for one test.  Without the server or psycopg the tests skip, unless
``YAHTZEE_REQUIRE_POSTGRES=1`` (CI), where they fail.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SUPERUSER = "yahtzee"
"""The cluster's superuser, trusted without a password on 127.0.0.1."""
_NUMBERS = itertools.count(1)


def _missing(reason: str) -> None:
    """Skip the test, or fail it where PostgreSQL is required (CI)."""
    if os.environ.get("YAHTZEE_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"PostgreSQL is required here: {reason}")
    pytest.skip(reason)


def server_folder() -> Path | None:
    """Return the folder of Debian's PostgreSQL programs (the newest version), if installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name)
                   if Path(p).parent.parent.name.isdigit() else 0)
    return Path(found[-1]).parent if found else None


def free_port() -> int:
    """Return a TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Cluster:
    """A running throw-away PostgreSQL server: where it is and how to reach it."""

    folder: Path
    port: int

    def url(self, database: str = "postgres") -> str:
        """Return the URL of ``database`` on this cluster."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def execute(self, statement: str, database: str = "postgres") -> None:
        """Run one SQL statement outside a transaction (CREATE DATABASE, say)."""
        import psycopg
        with psycopg.connect(self.url(database), autocommit=True) as connection:
            connection.execute(statement)


class Relay:
    """A TCP relay between the program and the server that counts round trips.

    A round trip: the server answering after the program sent something
    (what the server sends unasked, a notice to a listener, is not one).
    """

    def __init__(self, port: int) -> None:
        """Listen on a free port of 127.0.0.1, relaying to the server's ``port``."""
        self.server_port = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.trips = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        """Relay each connection in a thread of its own."""
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.server_port))
            threading.Thread(target=self._relay, args=(client, server), daemon=True).start()

    def _relay(self, client: socket.socket, server: socket.socket) -> None:
        """Copy bytes both ways, counting the turns from the program's bytes to the server's."""
        asked = False
        while True:
            ready, _, _ = select.select([client, server], [], [])
            for end in ready:
                data = end.recv(65536)
                if not data:
                    client.close()
                    server.close()
                    return
                if end is client:
                    asked = True
                    server.sendall(data)
                else:
                    if asked:
                        with self._lock:
                            self.trips += 1
                        asked = False
                    client.sendall(data)

    def close(self) -> None:
        """Stop accepting."""
        self.listener.close()


def _as_server_user(command: list[str]) -> list[str]:
    """Return ``command`` run as the ``postgres`` user when the tests run as root."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


class ClusterUnavailableError(RuntimeError):
    """PostgreSQL's server or psycopg is not installed: no cluster can be started."""


@contextlib.contextmanager
def running_cluster(*, durable: bool = False) -> Iterator[Cluster]:
    """Start a PostgreSQL cluster in a temporary folder; stop it and remove it afterwards.

    Without ``durable`` it does not sync its writes to disk (quicker, for
    tests); with it, it keeps PostgreSQL's defaults, as a real server would
    (for benchmarks).  ``ClusterUnavailableError`` when the server or psycopg
    is missing.
    """
    programs = server_folder()
    if programs is None:
        raise ClusterUnavailableError(
            "PostgreSQL's server is not installed (apt-get install postgresql)")
    try:
        import psycopg  # noqa: F401
    except ModuleNotFoundError:
        raise ClusterUnavailableError(
            "psycopg is not installed (pip install 'psycopg[binary]')") from None
    folder = Path(tempfile.mkdtemp(prefix="yahtzee-postgres-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data = folder / "data"
    port = free_port()
    started = False
    try:
        subprocess.run(_as_server_user([str(programs / "initdb"), "-D", str(data), "-U", SUPERUSER,
                                        "--auth=trust", "-E", "UTF8", "--no-sync"]),
                       check=True, capture_output=True)
        options = (f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 "
                   f"-c fsync={'on' if durable else 'off'} -c max_connections=200")
        subprocess.run(_as_server_user([str(programs / "pg_ctl"), "-D", str(data), "-l",
                                        str(folder / "log"), "-o", options, "-w", "start"]),
                       check=True, capture_output=True)
        started = True
        yield Cluster(folder, port)
    finally:
        if started:
            subprocess.run(_as_server_user([str(programs / "pg_ctl"), "-D", str(data), "-m",
                                            "immediate", "-w", "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """Start a PostgreSQL cluster in a temporary folder for the run; stop it afterwards."""
    try:
        with running_cluster() as cluster:
            yield cluster
    except ClusterUnavailableError as error:
        _missing(str(error))


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    """Return the URL of a new, empty database for one test; it is dropped afterwards."""
    name = f"test_{os.getpid()}_{next(_NUMBERS)}"
    postgres_cluster.execute(f"CREATE DATABASE {name}")
    yield postgres_cluster.url(name)
    postgres_cluster.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
