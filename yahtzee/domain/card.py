"""What the turn engine needs from a dice game: its card protocol and its description.

Yahtzee and Poker Dice share the turn mechanics (five dice, three rolls,
toggle and roll, then score one box); a ``Variant`` says what differs:
the card, the number of rounds, the faces' labels and the banner.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, TypeVar

from yahtzee.domain.dice import Dice


_Box = TypeVar("_Box", bound="NumberedBox")


class NumberedBox(enum.Enum):
    """A box of a dice game's card: members are ``(index, printed name)`` pairs.

    The index counts from 0 (``get_value()``), the menu number from 1
    (``number``), and ``str()`` is the printed name.
    """

    def __init__(self, index: int, label: str) -> None:
        self._index = index
        self._label = label

    def get_value(self) -> int:
        """Return the box's index, counted from 0."""
        return self._index

    @property
    def label(self) -> str:
        """The box's printed name, such as ``"Full House"``."""
        return self._label

    @property
    def number(self) -> int:
        """The box's menu number, counted from 1."""
        return self._index + 1

    @classmethod
    def find(cls: type[_Box], number: object) -> _Box | None:
        """Return the box with menu number ``number``, or None if there is none."""
        if isinstance(number, bool) or not isinstance(number, int):
            return None
        return next((box for box in cls if box.number == number), None)

    def __str__(self) -> str:
        return self._label

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class MenuItem(NamedTuple):
    """One line of the scoring menu: the box's fixed number, its name and its points.

    ``points`` is all the choice adds to the card; ``bonus`` is the part of
    them that is a Yahtzee bonus earned on top of filling the box (0 when the
    bonus is the whole turn, as a course-rules bonus is).
    """

    number: int
    name: str
    points: int
    bonus: int = 0

    @property
    def box_points(self) -> int:
        """The points written in the box itself: ``points`` less a Yahtzee bonus earned besides."""
        return self.points - self.bonus


class JokerBar(NamedTuple):
    """Why the joker rule keeps an open box off the menu for a Yahtzee.

    ``box`` names the one box the rule requires (the upper box of the dice's
    face, while it is open), or is None when it requires any open lower box.
    """

    box: str | None


class Card(Protocol):
    """A score card the turn engine can show, offer and fill."""

    def menu(self, d: Dice) -> list[MenuItem]:
        """Return the boxes that may be chosen for these dice, with their points."""
        ...

    def choose_number(self, number: int, d: Dice) -> MenuItem:
        """Score the dice in the box with menu number ``number``; ``ValueError`` if not offered."""
        ...

    def joker_bar(self, number: int, d: Dice) -> JokerBar | None:
        """Return why the joker rule keeps the open box ``number`` off the menu, or None."""
        ...

    def rows(self) -> list[tuple[str, int]]:
        """Return the printed rows of the card as (label, value) pairs."""
        ...

    def score(self) -> int:
        """Return the grand total, every bonus included: the number the winner is chosen by."""
        ...

    def rounds_used(self) -> int:
        """Return how many turns the card has taken."""
        ...


@dataclass(frozen=True)
class Variant:
    """A dice game played with the shared turn mechanics, under one rule set.

    The registry of games (``yahtzee.domain.games``) makes every instance.
    """

    name: str
    """The game's registry name (``yahtzee``, ``poker-dice``)."""
    rules_name: str
    """The rule set's name; a game with one rule set repeats its own name."""
    rounds: int
    new_card: Callable[[], Card]
    restore_card: Callable[[Sequence[int | None], int], Card]
    """A card holding saved box contents and a Yahtzee bonus count; ``ValueError`` if impossible."""
    card_contents: Callable[[Card], tuple[tuple[int | None, ...], int]]
    """The inverse of ``restore_card``: a card's box contents and its Yahtzee bonus count."""
    face_labels: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
    dice: int = 5
    """How many dice a turn rolls."""

    @property
    def boxes(self) -> int:
        """How many boxes a card has, numbered from 1 on the menu: as many as the game's rounds
        (under course rules a bonus turn fills none, and a box left open counts 0)."""
        return self.rounds

    def face(self, value: int) -> str:
        """Return how a die showing ``value`` (1 to 6) is printed."""
        return self.face_labels[value - 1]

    @property
    def faces_are_values(self) -> bool:
        """Whether each die is printed as its own value (Yahtzee's ``1`` to ``6``), so that a
        digit typed is a face as it stands; Poker Dice's ``9`` stands for the value 1."""
        return all(label == str(value) for value, label in enumerate(self.face_labels, 1))


def format_rows(rows: Sequence[tuple[str, int]],
                dice_by_label: dict[str, str] | None = None) -> str:
    """Return card rows as ``f"{label:>15}: {value}"`` lines, with the dice when given."""
    lines = []
    for label, value in rows:
        line = f"{label:>15}: {value}"
        if dice_by_label and label in dice_by_label:
            line = f"{line:<22}{dice_by_label[label]}"
        lines.append(line)
    return "\n".join(lines)
