"""What the solver's table cache needs from outside and tells the outside, without numpy.

``TableStore`` is the port through which tables are kept (persistence's cache
folder, in the program); the ``SolverEvent`` records are what the cache
reports (a damaged file, the build's progress, a store that cannot be
written), passed to a ``Report`` callback that the interface supplies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class TableStore(Protocol):
    """Where table files are kept, by name (persistence's cache folder, in the program)."""

    def read(self, name: str, max_bytes: int | None = None) -> bytes | None:
        """Return the bytes stored as ``name``, None if none are; ``OSError`` if unreadable.

        Only a regular file of at most ``max_bytes`` is read; anything else is
        an ``OSError``, and is moved out of the way.
        """
        ...

    def write(self, name: str, data: bytes) -> None:
        """Store ``data`` as ``name``, all or nothing; ``OSError`` if it cannot be stored."""
        ...

    def where(self, name: str) -> str:
        """Return where ``name`` is (or would be) kept, for messages."""
        ...


@dataclass(frozen=True)
class TableUnusable:
    """The stored table at ``where`` cannot be used (``reason``) and will be rebuilt.

    ``unreadable``: the file could not be read at all (``reason`` is the system's
    words); otherwise it was read and failed a check.
    """

    where: str
    reason: str
    unreadable: bool = False


@dataclass(frozen=True)
class BuildStarted:
    """A table is being built for the rule set ``rules`` (done once, then cached).

    ``moments``: the table of spreads and chances (``yahtzee.solver.moments``),
    not the optimal-play table itself; ``shape``: the table of the higher
    cumulants alone (``moments.Shape``, for win chances), built apart only
    when the spreads and chances were already stored.
    """

    rules: str
    moments: bool = False
    shape: bool = False


@dataclass(frozen=True)
class BuildProgress:
    """``done`` of the table's ``total`` turns are solved."""

    done: int
    total: int


@dataclass(frozen=True)
class BuildFinished:
    """The table's ``total`` turns were solved in ``seconds``."""

    total: int
    seconds: float


@dataclass(frozen=True)
class TableNotStored:
    """The new table could not be stored at ``where`` (``reason``): it lives in memory only."""

    where: str
    reason: str


SolverEvent = TableUnusable | BuildStarted | BuildProgress | BuildFinished | TableNotStored
"""What the table cache tells the player about."""
Report = Callable[[SolverEvent], None]
"""The interface's callback that shows ``SolverEvent``s."""
