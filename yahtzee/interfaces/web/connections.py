"""uvicorn's HTTP/1.1 protocol with deadlines and a cap per client, so that slow or idle
clients cannot hold the server's connections.

- A connection has ``Limits.header_timeout`` seconds to send a request's
  head, from when it opens and from the end of each answer (so an idle
  kept-alive connection is closed after as long); a head sent one line at a
  time, slower than that, is cut off.
- A client holds at most ``Limits.connections_per_client`` connections; a
  further one is closed as soon as it opens.

The body's deadline is the application's (``server.read_body``).  The
protocol is uvicorn's httptools one (a C parser, several times cheaper per
request than the pure-Python h11) when httptools is installed, as the web
extra does; else h11.  The event loop is uvloop's (libuv, in C) when uvloop
is installed, as the web extra does where it exists (not on Windows); else
asyncio's own.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as BaseProtocol
except ImportError:  # pragma: no cover - httptools is part of the web extra
    BaseProtocol = H11Protocol  # type: ignore[misc, assignment]

from yahtzee.interfaces.web.limits import Limits, Slots

try:
    import uvloop  # noqa: F401 - only whether it is there matters
except ImportError:  # pragma: no cover - uvloop is part of the web extra, not on Windows
    LOOP = "asyncio"
else:
    LOOP = "uvloop"
"""The event loop the server runs on: uvloop's where installed (a request costs about a
quarter less processor time than on asyncio's loop; see docs/scaling.md)."""


def guarded_protocol(limits: Limits) -> type[BaseProtocol]:
    """Return an HTTP/1.1 protocol class that keeps ``limits`` (one per server)."""
    slots = Slots(limits.connections_per_client, limits)

    class GuardedProtocol(BaseProtocol):
        """uvicorn's protocol with a deadline for each request's head and a cap per client."""

        peer: str | None = None
        deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            """Count the connection for its client; close it if the client has too many."""
            super().connection_made(transport)
            peer = self.client[0] if self.client else ""
            if not slots.take(peer):
                transport.abort()
                return
            self.peer = peer
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            """Give the client's slot back."""
            self._disarm()
            if self.peer is not None:
                slots.give_back(self.peer)
                self.peer = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            """Take the data; once a request's head is whole, its deadline is met."""
            cycle = self.cycle
            super().data_received(data)
            if self.cycle is not cycle:
                self._disarm()

        def on_response_complete(self) -> None:
            """After an answer, the next request's head has its own deadline."""
            cycle = self.cycle
            super().on_response_complete()
            if self.cycle is cycle and not self.transport.is_closing():
                self._arm()

        def _arm(self) -> None:
            """Start the deadline for a request's head."""
            self._disarm()
            self.deadline = self.loop.call_later(limits.header_timeout, self._too_slow)

        def _disarm(self) -> None:
            """Stop the deadline."""
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def _too_slow(self) -> None:
            """Close a connection whose request's head did not come in time."""
            self.deadline = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

    return GuardedProtocol


CONNECTIONS_PER_GAME = 4
"""Open connections allowed for each game a server holds live: a page keeps one for its long
poll and one for its moves; the rest is room for pages opened twice and for new visitors."""
LEAST_CONNECTIONS = 1000
"""Open connections a server always allows, however few games it holds."""


def most_connections(capacity: int) -> int:
    """Return how many connections a server holding ``capacity`` live games allows open at once.

    Past that, uvicorn answers every new request 503 (its ``limit_concurrency``,
    which counts open connections, idle ones too), so the cap grows with the
    games: a fixed 1,000 refused every request once 1,000 one-connection
    clients were connected.
    """
    return max(LEAST_CONNECTIONS, CONNECTIONS_PER_GAME * capacity)


FILES_BESIDE = 256
"""Open files a server needs beside its connections: the data folder's, the database's
sockets, the solver's tables."""
MOST_FILES_ASKED = 10240
"""The soft limit asked for when a larger one is refused (macOS refuses a soft limit above
its ``kern.maxfilesperproc`` even when the hard limit is unlimited)."""


def open_files_for(connections: int) -> int:
    """Raise this process's soft limit of open files towards ``connections`` plus the files
    beside them (``FILES_BESIDE``); return how many connections it now leaves room for.

    Each connection is a file descriptor; a common soft limit is 1,024,
    fewer than a large table's connections, and an ``accept`` past it fails
    (where uvicorn's cap would have answered 503).  The soft limit is raised,
    never above the hard one (which only an administrator can raise), and
    never lowered.  Where the platform has no such limits, ``connections``.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return connections
    wanted = connections + FILES_BESIDE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        ceiling = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        for asked in dict.fromkeys((ceiling, min(ceiling, MOST_FILES_ASKED))):
            if asked <= soft:
                break
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (asked, hard))
            except (ValueError, OSError):
                continue
            soft = asked
            break
    if soft == resource.RLIM_INFINITY:
        return connections
    return max(1, min(connections, soft - FILES_BESIDE))


def server_config(app: Any, limits: Limits, connections: int = LEAST_CONNECTIONS,
                  **options: Any) -> dict[str, Any]:
    """Return uvicorn's ``Config`` keywords for serving ``app`` within ``limits``.

    ``connections`` are allowed open at once (``most_connections`` for the
    games the application holds, within ``open_files_for``).
    """
    return {"app": app, "http": guarded_protocol(limits), "loop": LOOP, "log_level": "warning",
            "access_log": False, "lifespan": "on", "limit_concurrency": connections,
            "timeout_keep_alive": max(1, int(limits.header_timeout)),
            "timeout_graceful_shutdown": 2, **options}
