"""The table of player kinds: each kind's name, its default player name and its strategy.

Every other module names a kind through this table: the command line's
``--players``, saves, the history, statistics and the solver's strategies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PlayerKind:
    """A kind of player: how it is named, and which solver strategy plays it (None: a person)."""

    name: str
    """As ``--players``, saves and the history name it."""
    label: str
    """The stem of default player names (``Player 2``, ``Computer``, ``Greedy 1``)."""
    strategy: str | None
    """The solver strategy that plays this kind; None for a person at the keyboard."""
    aliases: tuple[str, ...] = ()
    """Other names ``--players`` accepts for this kind."""

    @property
    def is_computer(self) -> bool:
        """Whether the program plays this kind."""
        return self.strategy is not None


HUMAN = PlayerKind("human", "Player", None)
COMPUTER = PlayerKind("computer", "Computer", "win")
"""The strongest computer: it plays to finish first against the actual opponents, and alone
for the highest expected score (exactly as ``EXPECTED``)."""
EXPECTED = PlayerKind("expected", "Expected", "optimal", aliases=("optimal",))
"""Plays for the highest expected final score whoever it plays against (exact optimal solitaire
play)."""
GREEDY = PlayerKind("greedy", "Greedy", "greedy")
KINDS: tuple[PlayerKind, ...] = (HUMAN, COMPUTER, EXPECTED, GREEDY)
"""Every player kind, in the order help texts list them."""
STRATEGIES: tuple[str, ...] = tuple(k.strategy for k in KINDS if k.strategy is not None)
"""The solver strategies that computer kinds play (``win``, ``optimal``, ``greedy``)."""
SOLO_STRATEGIES: tuple[str, ...] = (EXPECTED.strategy or "", GREEDY.strategy or "")
"""The strategies that play differently alone (playing to win alone is optimal play)."""


def find_kind(name: str) -> PlayerKind | None:
    """Return the kind called ``name`` (or one of its aliases), or None if there is none."""
    return next((k for k in KINDS if name == k.name or name in k.aliases), None)


def default_names(kinds: Sequence[PlayerKind]) -> list[str]:
    """Return default names: ``Player N`` for a person in seat N, the kind's label otherwise.

    A computer label shared by several seats is numbered (``Computer 1``, ``Computer 2``).
    """
    totals = Counter(kind.label for kind in kinds)
    seen: Counter[str] = Counter()
    names = []
    for seat, kind in enumerate(kinds, start=1):
        seen[kind.label] += 1
        if not kind.is_computer:
            names.append(f"{kind.label} {seat}")
        else:
            numbered = f"{kind.label} {seen[kind.label]}"
            names.append(kind.label if totals[kind.label] == 1 else numbered)
    return names
