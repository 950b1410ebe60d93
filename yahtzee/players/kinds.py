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
SKILLED = PlayerKind("skilled", "Skilled", "skilled")
"""A strong person's play: about 10 points a game below optimal play, on average."""
CASUAL = PlayerKind("casual", "Casual", "casual")
"""A fair person's play: about 25 points a game below optimal play, on average."""
NOVICE = PlayerKind("novice", "Novice", "novice")
"""A beginner's play: about 45 points a game below optimal play, on average."""
LEVELS: tuple[PlayerKind, ...] = (SKILLED, CASUAL, NOVICE)
"""The computer kinds that play like people of a known strength, strongest first.

Each chooses among the optimal strategy's options at random, a costlier option
less often (``yahtzee.solver.levels`` holds how much less).
"""
KINDS: tuple[PlayerKind, ...] = (HUMAN, COMPUTER, EXPECTED, SKILLED, CASUAL, NOVICE, GREEDY)
"""Every player kind, in the order help texts list them."""
STRATEGIES: tuple[str, ...] = tuple(k.strategy for k in KINDS if k.strategy is not None)
"""The solver strategies that computer kinds play (``win``, ``optimal``, the levels, ``greedy``)."""
SOLO_STRATEGIES: tuple[str, ...] = (EXPECTED.strategy or "", GREEDY.strategy or "",
                                    *(k.strategy or "" for k in LEVELS))
"""The strategies that play differently alone (playing to win alone is optimal play)."""


def find_kind(name: str) -> PlayerKind | None:
    """Return the kind called ``name`` (or one of its aliases), or None if there is none."""
    return next((k for k in KINDS if name == k.name or name in k.aliases), None)


def strategies_of(names: Sequence[str]) -> list[str | None]:
    """Return the strategy each kind called ``names`` plays: None for a person or a name of no kind.

    What the win chances need to know of the players of a saved or filed game.
    """
    kinds = [find_kind(name) for name in names]
    return [None if kind is None else kind.strategy for kind in kinds]


def solo_strategy(name: str) -> str | None:
    """Return the strategy that plays solitaire games for a strategy or computer kind ``name``.

    A strategy stands for itself; a computer kind for its strategy, except that
    playing to win alone is optimal play.  None when ``name`` is neither.
    """
    if name in SOLO_STRATEGIES:
        return name
    kind = find_kind(name)
    if kind is None or kind.strategy is None:
        return None
    return EXPECTED.strategy if kind is COMPUTER else kind.strategy


SOLO_NAMES: tuple[str, ...] = tuple(dict.fromkeys(
    (*SOLO_STRATEGIES, *(k.name for k in KINDS if k.is_computer))))
"""What ``simulate --strategy`` takes: every solitaire strategy and every computer kind."""


def numbered(names: Sequence[str]) -> list[str]:
    """Return ``names`` told apart: a name given more than once is numbered in order
    (``Computer 1``, ``Computer 2``), a name given once stays as it is."""
    totals = Counter(names)
    seen: Counter[str] = Counter()
    told = []
    for name in names:
        seen[name] += 1
        told.append(name if totals[name] == 1 else f"{name} {seen[name]}")
    return told


def default_names(kinds: Sequence[PlayerKind]) -> list[str]:
    """Return default names: ``Player N`` for a person in seat N, the kind's label otherwise.

    A computer label shared by several seats is numbered (``Computer 1``, ``Computer 2``).
    """
    computers = iter(numbered([kind.label for kind in kinds if kind.is_computer]))
    return [next(computers) if kind.is_computer else f"{kind.label} {seat}"
            for seat, kind in enumerate(kinds, start=1)]
