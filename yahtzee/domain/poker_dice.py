"""Poker Dice: the dice API of the assignment, its scoring, and a card for the turn engine.

The dice are lists of face strings ('9', '10', 'J', 'Q', 'K', 'A'). The module holds:

- the dice API: ``FACES``, ``FACE_VALUES``, ``roll_dice``, ``are_valid``, ``add_values``
  and ``num_faces``;
- ``calculate_score(dice, score_type)`` for the nine scoring types, numbered 1 to 9;
- ``PokerCategory`` (the nine types), ``PokerScoreCard`` (a ``Card`` of
  ``yahtzee.domain.card``) and ``faces_of``; the game itself, ``POKER_DICE``, is
  registered in ``yahtzee.domain.games``.

Scoring decisions the assignment leaves open, taken as a Poker Dice player
reads its "at least" rules:

- A pattern counts when the dice hold at least it: three or more alike is also
  One Pair, four or five alike is also Three of a Kind, five alike is also Four
  of a Kind, a Large Straight is also a Small Straight, and a Full House is also
  Two Pair (its two faces each show at least twice).
- Matching is by face, not by value: J, Q and K are worth 10 each but never pair
  with one another or with '10'.
- Two Pair and Full House need two different faces, so four or five alike are
  neither (four alike is not two pairs, five alike is not a full house).
- Where several faces qualify, the highest-valued ones count (One Pair of
  ['9', '9', 'A', 'A', 'Q'] is 22).
- Full House adds the sum of all the dice to its 50 points.
- Invalid dice (as ``are_valid`` judges them) or a type outside 1 to 9 score 0,
  like any failed match. Any valid list of 1 to 10 dice is scored by the same
  rules; Five of a Kind then means at least five alike, and a Large Straight
  five faces in a row.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import ClassVar, TypeGuard

from yahtzee.domain.dice import Dice
from yahtzee.domain.score_card import IllegalChoiceError
from yahtzee.domain.card import JokerBar, MenuItem, NumberedBox

FACES: list[str] = ['9', '10', 'J', 'Q', 'K', 'A']
FACE_VALUES: dict[str, int] = {'9': 9, '10': 10, 'J': 10, 'Q': 10, 'K': 10, 'A': 11}

MIN_DICE = 1
MAX_DICE = 10
DEFAULT_NUM_DICE = 5
OUT_OF_RANGE_ROLL: list[str] = [FACES[0]]

PAIR = 2
THREE_ALIKE = 3
FOUR_ALIKE = 4
FIVE_ALIKE = 5
SMALL_STRAIGHT_RUN = 4
LARGE_STRAIGHT_RUN = 5

THREE_OF_A_KIND_BONUS = 10
FOUR_OF_A_KIND_BONUS = 20
FIVE_OF_A_KIND_POINTS = 100
FULL_HOUSE_BONUS = 50
SMALL_STRAIGHT_POINTS = 70
LARGE_STRAIGHT_POINTS = 95
NO_SCORE = 0
INVALID = -1


def roll_dice(n: int = DEFAULT_NUM_DICE, seed: int | None = 0) -> list[str]:
    """Return ``n`` random faces (1 to 10 dice), or ['9'] when ``n`` is out of range.

    The faces come from a generator seeded with ``seed``; None seeds it from the
    clock. ``roll_dice(3, 10001) == ['J', '9', '9']``.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not MIN_DICE <= n <= MAX_DICE:
        return list(OUT_OF_RANGE_ROLL)
    rng = random.Random(time.time_ns() if seed is None else seed)
    return [rng.choice(FACES) for _ in range(n)]


def are_valid(dice: object) -> TypeGuard[Sequence[str]]:
    """Return whether ``dice`` is a list of 1 to 10 faces from ``FACES`` (None is not)."""
    if not isinstance(dice, Sequence) or isinstance(dice, str):
        return False
    if not MIN_DICE <= len(dice) <= MAX_DICE:
        return False
    return all(isinstance(face, str) and face in FACE_VALUES for face in dice)


def add_values(dice: Sequence[str] | None) -> int:
    """Return the total value of the dice, or -1 if they are not valid."""
    if not are_valid(dice):
        return INVALID
    return sum(FACE_VALUES[face] for face in dice)


def num_faces(dice_list: Sequence[str] | None, face: str) -> int:
    """Return how many dice show ``face``, or -1 if the dice are not valid."""
    if not are_valid(dice_list):
        return INVALID
    found = 0
    for shown in dice_list:
        if shown == face:
            found += 1
    return found


class PokerCategory(NumberedBox):
    """A Poker Dice scoring type: its index (``get_value()``), Type# (``number``) and name."""

    ONE_PAIR = (0, "One Pair")
    TWO_PAIR = (1, "Two Pair")
    THREE_OF_A_KIND = (2, "Three of a Kind")
    FOUR_OF_A_KIND = (3, "Four of a Kind")
    FIVE_OF_A_KIND = (4, "Five of a Kind")
    FULL_HOUSE = (5, "Full House")
    SMALL_STRAIGHT = (6, "Small Straight")
    LARGE_STRAIGHT = (7, "Large Straight")
    CHANCE = (8, "Chance")

    @classmethod
    def from_number(cls, number: int) -> PokerCategory:
        """Return the type numbered ``number`` (1 to 9); ``ValueError`` for any other."""
        category = cls.find(number)
        if category is None:
            raise ValueError(f"no Poker Dice type has the number {number!r}")
        return category


def _faces_shown_at_least(dice: Sequence[str], times: int) -> list[str]:
    """Return the faces that at least ``times`` dice show, highest value first."""
    return [face for face in reversed(FACES) if num_faces(dice, face) >= times]


def _alike_points(dice: Sequence[str], times: int) -> int:
    """Return the value of ``times`` dice of the highest face shown that often, else 0."""
    faces = _faces_shown_at_least(dice, times)
    return times * FACE_VALUES[faces[0]] if faces else NO_SCORE


def _of_a_kind_score(dice: Sequence[str], times: int, bonus: int) -> int:
    """Return ``times`` matched values plus ``bonus``, or 0 if no face shows ``times`` times."""
    matched = _alike_points(dice, times)
    return matched + bonus if matched else NO_SCORE


def _two_pair_score(dice: Sequence[str]) -> int:
    """Return the values of the two highest pairs of different faces, or 0 without two."""
    faces = _faces_shown_at_least(dice, PAIR)
    if len(faces) < PAIR:
        return NO_SCORE
    return sum(PAIR * FACE_VALUES[face] for face in faces[:PAIR])


def _five_of_a_kind_score(dice: Sequence[str]) -> int:
    """Return 100 if at least five dice show one face, else 0."""
    return FIVE_OF_A_KIND_POINTS if _faces_shown_at_least(dice, FIVE_ALIKE) else NO_SCORE


def _full_house_score(dice: Sequence[str]) -> int:
    """Return 50 plus the dice's sum for three of one face and two of another, else 0."""
    triples = _faces_shown_at_least(dice, THREE_ALIKE)
    pairs = _faces_shown_at_least(dice, PAIR)
    has_full_house = any(pair != triple for triple in triples for pair in pairs)
    return FULL_HOUSE_BONUS + add_values(dice) if has_full_house else NO_SCORE


def _longest_run(dice: Sequence[str]) -> int:
    """Return the length of the longest run of consecutive ``FACES`` among the dice."""
    longest = 0
    run = 0
    for face in FACES:
        run = run + 1 if num_faces(dice, face) > 0 else 0
        longest = max(longest, run)
    return longest


def _straight_score(dice: Sequence[str], run: int, points: int) -> int:
    """Return ``points`` if the dice hold ``run`` or more faces in a row, else 0."""
    return points if _longest_run(dice) >= run else NO_SCORE


_SCORERS: dict[PokerCategory, Callable[[Sequence[str]], int]] = {
    PokerCategory.ONE_PAIR: lambda dice: _alike_points(dice, PAIR),
    PokerCategory.TWO_PAIR: _two_pair_score,
    PokerCategory.THREE_OF_A_KIND:
        lambda dice: _of_a_kind_score(dice, THREE_ALIKE, THREE_OF_A_KIND_BONUS),
    PokerCategory.FOUR_OF_A_KIND:
        lambda dice: _of_a_kind_score(dice, FOUR_ALIKE, FOUR_OF_A_KIND_BONUS),
    PokerCategory.FIVE_OF_A_KIND: _five_of_a_kind_score,
    PokerCategory.FULL_HOUSE: _full_house_score,
    PokerCategory.SMALL_STRAIGHT:
        lambda dice: _straight_score(dice, SMALL_STRAIGHT_RUN, SMALL_STRAIGHT_POINTS),
    PokerCategory.LARGE_STRAIGHT:
        lambda dice: _straight_score(dice, LARGE_STRAIGHT_RUN, LARGE_STRAIGHT_POINTS),
    PokerCategory.CHANCE: add_values,
}
"""How each type scores valid dice (0 for no match)."""


def calculate_score(dice: Sequence[str] | None, score_type: int) -> int:
    """Return the points ``dice`` score in type ``score_type`` (1 to 9), 0 for no match.

    Invalid dice or an unknown type score 0. See the module docstring for how
    the rules read where the assignment leaves them open.
    """
    category = PokerCategory.find(score_type)
    return (_SCORERS[category](dice) if category is not None and are_valid(dice)
            else NO_SCORE)  # one return, as the assignment asks


@lru_cache(maxsize=None)
def possible_points(category: PokerCategory) -> frozenset[int]:
    """Return every number of points the box ``category`` can hold: what some roll scores there."""
    return frozenset(calculate_score(list(roll), category.number)
                     for roll in itertools.combinations_with_replacement(FACES, DEFAULT_NUM_DICE))


def faces_of(d: Dice) -> list[str]:
    """Return the Poker Dice faces of ``d``: a die showing 1 to 6 is ``FACES[value - 1]``."""
    return [FACES[value - 1] for value in d.values()]


class PokerScoreCard:
    """One player's Poker Dice card: a box per scoring type, each open or holding points."""

    NUM_CATS: ClassVar[int] = len(PokerCategory)

    def __init__(self) -> None:
        """Make a card with every box open."""
        self._scores: list[int | None] = [None] * PokerScoreCard.NUM_CATS

    def scores(self) -> list[int | None]:
        """Return each box's points in ``PokerCategory`` order, None for an open box."""
        return list(self._scores)

    def check_scored(self, category: PokerCategory) -> bool:
        """Return whether the box ``category`` has been used."""
        return self._scores[category.get_value()] is not None

    def get_category_score(self, category: PokerCategory) -> int:
        """Return the points in the box ``category`` (0 while open)."""
        points = self._scores[category.get_value()]
        return NO_SCORE if points is None else points

    def get_evaluation(self, category: PokerCategory, d: Dice) -> int:
        """Return the points the dice ``d`` would score in ``category``."""
        return calculate_score(faces_of(d), category.number)

    def choose(self, category: PokerCategory, d: Dice) -> None:
        """Score the dice in ``category``; ``IllegalChoiceError`` if that box is used."""
        if self.check_scored(category):
            raise IllegalChoiceError(f"{category} has already been scored")
        self._scores[category.get_value()] = self.get_evaluation(category, d)

    def menu(self, d: Dice) -> list[MenuItem]:
        """Return the open boxes with the points the dice ``d`` would score in each."""
        return [MenuItem(c.number, c.label, self.get_evaluation(c, d))
                for c in PokerCategory if not self.check_scored(c)]

    def choose_number(self, number: int, d: Dice) -> MenuItem:
        """Score the dice in the box numbered ``number`` (1 to 9) and return its menu line.

        A used or unknown number raises ``IllegalChoiceError`` and leaves the card as it was.
        """
        for item in self.menu(d):
            if item.number == number:
                self.choose(PokerCategory.from_number(number), d)
                return item
        raise IllegalChoiceError(f"{number} is not on the menu for these dice")

    def joker_bar(self, number: int, d: Dice) -> JokerBar | None:
        """Return None: Poker Dice has no joker rule, so every open box is offered."""
        return None

    def score(self) -> int:
        """Return the grand total: the sum of the nine boxes (Poker Dice has no bonus)."""
        return sum(self.get_category_score(c) for c in PokerCategory)

    def rounds_used(self) -> int:
        """Return how many turns the card has taken: one per used box."""
        return sum(points is not None for points in self._scores)

    def rows(self) -> list[tuple[str, int]]:
        """Return the printed rows: the nine boxes, then the total."""
        rows = [(c.label, self.get_category_score(c)) for c in PokerCategory]
        rows.append(("Total", self.score()))
        return rows

    @classmethod
    def restore(cls, scores: Sequence[int | None]) -> PokerScoreCard:
        """Return a card holding ``scores`` (points or None for each box, in type order)."""
        if len(scores) != cls.NUM_CATS:
            raise ValueError(f"a card has {cls.NUM_CATS} boxes, not {len(scores)}")
        card = cls()
        for index, points in enumerate(scores):
            if points is not None:
                if isinstance(points, bool) or not isinstance(points, int) or points < 0:
                    raise ValueError(f"a box holds whole points, not {points!r}")
                if points not in possible_points(PokerCategory.from_number(index + 1)):
                    raise ValueError(f"{PokerCategory.from_number(index + 1)} cannot hold "
                                     f"{points} points")
                card._scores[index] = points
        return card

    def __str__(self) -> str:
        return "\n".join(f"{label:>15}: {value}" for label, value in self.rows())

    def __repr__(self) -> str:
        return f"PokerScoreCard.restore({self.scores()!r})"
