"""An independent statement of the Yahtzee box rules, used by the tests as an oracle.

It is written from the rules text alone (counts of faces, sets of faces),
not from the package's classes, so the two can disagree if either is wrong.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

NAMES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Three of a Kind",
         "Four of a Kind", "Full House", "Small Straight", "Large Straight", "Yahtzee",
         "Chance"]


def points(index: int, dice: Sequence[int]) -> int:
    """Return what box ``index`` (0 = Ones ... 12 = Chance) scores for ``dice``."""
    counts = Counter(dice)
    faces = set(dice)
    if index < 6:
        return (index + 1) * counts[index + 1]
    most = max(counts.values())
    runs = [{1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}]
    table = {
        6: sum(dice) if most >= 3 else 0,
        7: sum(dice) if most >= 4 else 0,
        8: 25 if sorted(counts.values()) == [2, 3] else 0,
        9: 30 if any(run <= faces for run in runs) else 0,
        10: 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0,
        11: 50 if most == 5 else 0,
        12: sum(dice),
    }
    return table[index]


class ScriptedRandom(random.Random):
    """A generator whose ``randint`` returns the given values in order, then seeded ones."""

    def __init__(self, values: Iterable[int]) -> None:
        super().__init__(0)
        self._values = list(values)

    def randint(self, a: int, b: int) -> int:
        """Return the next scripted value (which must lie in ``a..b``)."""
        if not self._values:
            return super().randint(a, b)
        value = self._values.pop(0)
        assert a <= value <= b
        return value
