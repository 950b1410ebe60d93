"""The ``CategoryValue`` enumeration: the thirteen boxes of a Yahtzee score card."""

from __future__ import annotations

from yahtzee.domain.card import NumberedBox


class CategoryValue(NumberedBox):
    """A score-card box: its fixed index and its printed name.

    The UML's ``getValue()`` and ``toString()`` are ``get_value()`` and
    ``str(cv)``, shared with Poker Dice's boxes through ``NumberedBox``.
    """

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
        box = cls.find(number)
        if box is None:
            raise ValueError(f"no category has the number {number!r}")
        return box

    @classmethod
    def upper_for_face(cls, face: int) -> CategoryValue:
        """Return the upper box that counts ``face`` (1 to 6)."""
        if not 1 <= face <= 6:
            raise ValueError(f"no upper box counts the face {face}")
        return list(cls)[face - 1]
