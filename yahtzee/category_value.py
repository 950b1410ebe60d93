"""The ``CategoryValue`` enumeration: the thirteen boxes of a Yahtzee score card."""

from __future__ import annotations

import enum


class CategoryValue(enum.Enum):
    """A score-card box: its fixed index (``get_value()``) and its printed name."""

    ONES = (0, "Ones")
    TWOS = (1, "Twos")
    THREES = (2, "Threes")
    FOURS = (3, "Fours")
    FIVES = (4, "Fives")
    SIXES = (5, "Sixes")
    THREE_OF_A_KIND = (6, "Three of a Kind")
    FOUR_OF_A_KIND = (7, "Four of a Kind")
    FULL_HOUSE = (8, "Full House")
    SM_STRAIGHT = (9, "Small Straight")
    LG_STRAIGHT = (10, "Large Straight")
    YAHTZEE = (11, "Yahtzee")
    CHANCE = (12, "Chance")

    def __init__(self, value: int, label: str) -> None:
        self._index = value
        self._label = label

    def get_value(self) -> int:
        """Return the box's index, 0 for ONES up to 12 for CHANCE."""
        return self._index

    @property
    def label(self) -> str:
        """The box's printed name, such as ``"Three of a Kind"``."""
        return self._label

    @property
    def number(self) -> int:
        """The box's menu number, 1 to 13."""
        return self._index + 1

    @property
    def is_upper(self) -> bool:
        """Whether the box belongs to the upper section (Ones to Sixes)."""
        return self._index < 6

    @property
    def face(self) -> int:
        """The die face an upper box counts (1 to 6); ``ValueError`` for a lower box."""
        if not self.is_upper:
            raise ValueError(f"{self._label} is not an upper-section box")
        return self._index + 1

    @classmethod
    def from_number(cls, number: int) -> CategoryValue:
        """Return the box with menu number ``number`` (1 to 13)."""
        for cv in cls:
            if cv.number == number:
                return cv
        raise ValueError(f"no category has the number {number}")

    @classmethod
    def upper_for_face(cls, face: int) -> CategoryValue:
        """Return the upper box that counts ``face`` (1 to 6)."""
        if not 1 <= face <= 6:
            raise ValueError(f"no upper box counts the face {face}")
        return list(cls)[face - 1]

    def __str__(self) -> str:
        return self._label

    def __repr__(self) -> str:
        return f"CategoryValue.{self.name}"
