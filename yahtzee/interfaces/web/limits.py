"""What one client, and everyone together, may ask of the browser table: the numbers and
the counters that keep them.

A client is its address (behind a trusted proxy, the address the proxy
says).  The machine's own loopback clients are exempt from the per-client
limits by default: they are its user (and the benchmarks), who could as
well stop the server; the limits for everyone (computer-only games, live
games, connections) hold for them too.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import Counter
from dataclasses import dataclass

MINUTE = 60.0
DAY = 24 * 60 * MINUTE


@dataclass(frozen=True)
class Limits:
    """The browser table's limits (the defaults are those of ``serve``; docs/browser.md
    tells them under "On a network")."""

    creations_burst: int = 10
    """New games a client may start in a row."""
    creations_per_minute: float = 10.0
    """New games a client may start per minute, on average, after the burst."""
    computer_games_per_client: int = 2
    """Computer-only games (no person plays) a client may have going at once."""
    computer_games: int = 4
    """Computer-only games going at once on the server, whoever started them."""
    fresh_for: float = 15 * MINUTE
    """Seconds a new game that never got a move is kept; then its save is deleted."""
    idle_for: float = 7 * DAY
    """Seconds an unfinished game is kept after its last move; then its save is deleted."""
    sweep_every: float = MINUTE
    """Seconds between two looks for expired games."""
    collect_after: int = 1_000_000
    """Objects made, less those freed, before the garbage collector passes over every
    object but the start's (``serve`` turns its own passes off; ``WebTable.collect``).
    Playing makes no garbage in cycles (measured); this bounds what a path not measured
    could pile up.  A pass holds every request, about 1.6 µs per live object here (some
    1.6 s at a million), so it comes only as a server grows by that many, and never
    below what the games it holds explain (``server.OBJECTS_PER_GAME`` each)."""
    polls_per_client: int = 16
    """Long polls (requests waiting for a change) a client may have open at once."""
    connections_per_client: int = 32
    """Connections a client may have open at once."""
    header_timeout: float = 10.0
    """Seconds a connection has to send a request's head (also: how long it may be idle)."""
    body_timeout: float = 10.0
    """Seconds a request has to send its whole body."""
    exempt_loopback: bool = True
    """Whether this machine's own clients skip the per-client limits."""

    def exempt(self, client: str) -> bool:
        """Return whether ``client`` skips the per-client limits."""
        if not self.exempt_loopback:
            return False
        try:
            return ipaddress.ip_address(client).is_loopback
        except ValueError:
            return False


class Throttle:
    """A token bucket per client: ``burst`` at once, then ``per_minute`` on average."""

    MAX_CLIENTS = 10_000
    """Buckets kept at most: beyond, the full ones are forgotten (they hold nothing)."""

    def __init__(self, burst: int, per_minute: float) -> None:
        """Allow ``burst`` in a row, refilled at ``per_minute``."""
        self.burst = burst
        self.rate = per_minute / MINUTE
        self.buckets: dict[str, tuple[float, float]] = {}

    def take(self, client: str, now: float | None = None) -> float:
        """Take one for ``client``: 0 if it may go on, else the seconds until it may."""
        now = time.monotonic() if now is None else now
        tokens, then = self.buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if tokens < 1:
            self.buckets[client] = (tokens, now)
            return math.inf if self.rate <= 0 else (1 - tokens) / self.rate
        self.buckets[client] = (tokens - 1, now)
        if len(self.buckets) > self.MAX_CLIENTS:
            self._forget_full(now)
        return 0.0

    def _forget_full(self, now: float) -> None:
        """Forget the clients whose bucket has filled up again."""
        for client, (tokens, then) in list(self.buckets.items()):
            if tokens + (now - then) * self.rate >= self.burst:
                del self.buckets[client]


class Slots:
    """How many of something (connections, long polls) each client holds, with a cap."""

    def __init__(self, cap: int, limits: Limits) -> None:
        """Let each client hold ``cap`` (exempt clients: any number)."""
        self.cap = cap
        self.limits = limits
        self.held: Counter[str] = Counter()

    def take(self, client: str) -> bool:
        """Take a slot for ``client``; False (nothing taken) if it holds its cap already."""
        if self.held[client] >= self.cap and not self.limits.exempt(client):
            return False
        self.held[client] += 1
        return True

    def give_back(self, client: str) -> None:
        """Give back a slot of ``client``."""
        self.held[client] -= 1
        if self.held[client] <= 0:
            del self.held[client]


def retry_after(seconds: float) -> str:
    """Return a ``Retry-After`` value: whole seconds, at least 1."""
    return str(max(1, math.ceil(min(seconds, DAY))))
