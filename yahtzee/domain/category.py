"""The abstract ``Category`` box and its thirteen concrete score-card boxes.

Each subclass states one scoring rule in ``evaluate``; everything else
(recording points, remembering that the box is used) lives in ``Category``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice


class Category(ABC):
    """One box of the score card: its points and whether it has been used."""

    value: ClassVar[CategoryValue]

    def __init__(self) -> None:
        """Make an unused box holding 0 points."""
        self._score = 0
        self._used = False

    @abstractmethod
    def evaluate(self, d: Dice) -> int:
        """Return the points these dice would score in this box."""

    def add_value(self, d: Dice) -> None:
        """Score the dice in this box (``evaluate``) and mark the box used."""
        self.set_score(self.evaluate(d))

    def set_score(self, points: int) -> None:
        """Record ``points`` in this box and mark it used (for joker points or a restored card)."""
        if self._used:
            raise ValueError(f"{self.value} has already been scored")
        if points < 0:
            raise ValueError(f"a box cannot hold {points} points")
        self._score = points
        self._used = True

    def get_score(self) -> int:
        """Return the points recorded in this box (0 while unused)."""
        return self._score

    def get_used(self) -> bool:
        """Return whether this box has been scored."""
        return self._used

    def __repr__(self) -> str:
        state = f"score={self._score}" if self._used else "unused"
        return f"<{type(self).__name__} {state}>"


class _UpperCategory(Category):
    """An upper box: the total of the dice showing the box's face."""

    face: ClassVar[int]

    def evaluate(self, d: Dice) -> int:
        """Return the face times the number of dice showing it."""
        return self.face * d.count(self.face)


class Ones(_UpperCategory):
    """Ones: 1 point for each die showing 1."""

    value = CategoryValue.ONES
    face = 1


class Twos(_UpperCategory):
    """Twos: 2 points for each die showing 2."""

    value = CategoryValue.TWOS
    face = 2


class Threes(_UpperCategory):
    """Threes: 3 points for each die showing 3."""

    value = CategoryValue.THREES
    face = 3


class Fours(_UpperCategory):
    """Fours: 4 points for each die showing 4."""

    value = CategoryValue.FOURS
    face = 4


class Fives(_UpperCategory):
    """Fives: 5 points for each die showing 5."""

    value = CategoryValue.FIVES
    face = 5


class Sixes(_UpperCategory):
    """Sixes: 6 points for each die showing 6."""

    value = CategoryValue.SIXES
    face = 6


def _most_alike(d: Dice) -> int:
    """Return the largest number of dice showing one face."""
    return max(d.counts(), default=0)


class ThreeOfAKind(Category):
    """Three of a Kind: the sum of all dice when at least three show one face."""

    value = CategoryValue.THREE_OF_A_KIND

    def evaluate(self, d: Dice) -> int:
        """Return the dice total if three or more are alike, else 0."""
        return d.sum() if _most_alike(d) >= 3 else 0


class FourOfAKind(Category):
    """Four of a Kind: the sum of all dice when at least four show one face."""

    value = CategoryValue.FOUR_OF_A_KIND

    def evaluate(self, d: Dice) -> int:
        """Return the dice total if four or more are alike, else 0."""
        return d.sum() if _most_alike(d) >= 4 else 0


class FullHouse(Category):
    """Full House: 25 for three of one face and two of another (five alike is not one)."""

    value = CategoryValue.FULL_HOUSE
    POINTS: ClassVar[int] = 25

    def evaluate(self, d: Dice) -> int:
        """Return 25 if the dice are exactly a three and a pair, else 0."""
        shown = sorted(n for n in d.counts() if n)
        return self.POINTS if shown == [2, 3] else 0


def _longest_run(d: Dice) -> int:
    """Return the length of the longest run of consecutive faces among the dice."""
    longest = run = 0
    for face in range(1, 7):
        run = run + 1 if d.contains(face) else 0
        longest = max(longest, run)
    return longest


class SmStraight(Category):
    """Small Straight: 30 for four faces in a row (a large straight counts too)."""

    value = CategoryValue.SM_STRAIGHT
    POINTS: ClassVar[int] = 30

    def evaluate(self, d: Dice) -> int:
        """Return 30 if four consecutive faces show, else 0."""
        return self.POINTS if _longest_run(d) >= 4 else 0


class LgStraight(Category):
    """Large Straight: 40 for five faces in a row."""

    value = CategoryValue.LG_STRAIGHT
    POINTS: ClassVar[int] = 40

    def evaluate(self, d: Dice) -> int:
        """Return 40 if five consecutive faces show, else 0."""
        return self.POINTS if _longest_run(d) >= 5 else 0


class FiveOfAKind(Category):
    """Yahtzee (Five of a Kind): 50 when all five dice show one face."""

    value = CategoryValue.YAHTZEE
    POINTS: ClassVar[int] = 50

    def evaluate(self, d: Dice) -> int:
        """Return 50 if the dice are five alike, else 0."""
        return self.POINTS if d.get_num_dice() == 5 and _most_alike(d) == 5 else 0


class Chance(Category):
    """Chance: the sum of all dice, whatever they show."""

    value = CategoryValue.CHANCE

    def evaluate(self, d: Dice) -> int:
        """Return the total of all the dice: Chance takes any roll."""
        return d.sum()


CATEGORY_CLASSES: tuple[type[Category], ...] = (
    Ones, Twos, Threes, Fours, Fives, Sixes,
    ThreeOfAKind, FourOfAKind, FullHouse, SmStraight, LgStraight, FiveOfAKind, Chance,
)
"""The thirteen box classes, in ``CategoryValue`` order."""


def make_category(cv: CategoryValue) -> Category:
    """Return a new, unused box for ``cv``."""
    return CATEGORY_CLASSES[cv.get_value()]()
