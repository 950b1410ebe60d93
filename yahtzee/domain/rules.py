"""The two rule sets, ``course`` and ``official``, as pure functions of a card and the dice.

A rule set answers one question: with these boxes filled and these dice,
which boxes may the player choose, and what does each choice add?  The
score card, the console and the solver all ask it, so the rules live here
and nowhere else.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, NamedTuple

from yahtzee.domain.card import JokerBar
from yahtzee.domain.category import CATEGORY_CLASSES, Category, FullHouse, LgStraight, SmStraight
from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice
from yahtzee.domain.die import Die

UPPER_BONUS = 35
"""Points added once the upper boxes total ``UPPER_BONUS_THRESHOLD`` or more."""
UPPER_BONUS_THRESHOLD = 63
"""The upper-section total that earns ``UPPER_BONUS``."""
YAHTZEE_BONUS = 100
"""Points of one Yahtzee bonus."""

_BOXES: tuple[Category, ...] = tuple(cls() for cls in CATEGORY_CLASSES)
_CATEGORIES: tuple[CategoryValue, ...] = tuple(CategoryValue)
"""The boxes in card order (iterating a tuple is quicker than the enum: the solver asks often)."""
_JOKER_POINTS = {
    CategoryValue.FULL_HOUSE: FullHouse.POINTS,
    CategoryValue.SM_STRAIGHT: SmStraight.POINTS,
    CategoryValue.LG_STRAIGHT: LgStraight.POINTS,
}


class Option(NamedTuple):
    """One legal choice: the box, the points it writes there, the bonus it earns."""

    category: CategoryValue
    box_points: int
    bonus_points: int
    fills_box: bool

    @property
    def points(self) -> int:
        """The points this choice adds to the card (box points plus any Yahtzee bonus)."""
        return self.box_points + self.bonus_points


def box_points(cv: CategoryValue, d: Dice) -> int:
    """Return what the box ``cv`` scores for ``d`` by its own rule (no joker, no bonus)."""
    return all_box_points(tuple(sorted(d.values())))[cv.get_value()]


@lru_cache(maxsize=1024)
def all_box_points(faces: tuple[int, ...]) -> tuple[int, ...]:
    """Return every box's points by its own rule, in card order, for the dice ``faces`` (sorted).

    The thirteen ``Category`` objects score a throw once: a card, the menu
    and the server ask about the same few throws again and again, and there
    are only 252 throws of five dice.
    """
    d = Dice.of(faces)
    return tuple(box.evaluate(d) for box in _BOXES)


@lru_cache(maxsize=None)
def _rolled_points(cv: CategoryValue) -> frozenset[int]:
    """Return every number of points the box ``cv`` scores by its own rule, over every roll."""
    faces = range(1, Die.SIDES + 1)
    return frozenset(box_points(cv, Dice.of(roll))
                     for roll in itertools.combinations_with_replacement(faces, Dice.DEF_CAP))


def is_yahtzee(d: Dice) -> bool:
    """Return whether the dice are five alike."""
    return _BOXES[CategoryValue.YAHTZEE.get_value()].evaluate(d) > 0


@dataclass(frozen=True)
class Rules:
    """A Yahtzee rule set: how the Yahtzee bonus is earned and whether jokers are forced."""

    name: str
    bonus_by_choice: bool
    """True: a later Yahtzee is scored as a bonus by choosing Yahtzee again, filling no box."""
    bonus_cap: int | None
    """The most Yahtzee bonuses one card may take (None: no limit)."""
    forced_joker: bool
    """True: a Yahtzee with the Yahtzee box filled must be placed by the joker steps."""

    ROUNDS: ClassVar[int] = 13

    def options(self, scores: Sequence[int | None], bonus_count: int, d: Dice,
                points: Sequence[int] | None = None) -> list[Option]:
        """Return the legal choices, in menu order, for a card and the dice.

        ``scores`` holds each box's points in ``CategoryValue`` order, None
        for an open box; ``bonus_count`` is the Yahtzee bonuses taken so far.
        ``points``, when given, is ``box_points`` of every box for these dice
        in the same order, worked out once by a caller that asks about the
        same dice many times (the solver).
        """
        table = all_box_points(tuple(sorted(d.values()))) if points is None else points

        def own(cv: CategoryValue) -> int:
            """Return what the dice score in ``cv`` by the box's own rule."""
            return table[cv.get_value()]

        open_boxes = [cv for cv, held in zip(_CATEGORIES, scores) if held is None]
        yahtzee_box = scores[CategoryValue.YAHTZEE.get_value()]
        if yahtzee_box is None or not is_yahtzee(d):
            return [Option(cv, own(cv), 0, True) for cv in open_boxes]
        bonus_open = (yahtzee_box > 0
                      and (self.bonus_cap is None or bonus_count < self.bonus_cap))
        if self.bonus_by_choice:
            plain = [Option(cv, own(cv), 0, True) for cv in open_boxes]
            if not bonus_open:
                return plain
            bonus = Option(CategoryValue.YAHTZEE, 0, YAHTZEE_BONUS, False)
            return sorted([*plain, bonus], key=lambda o: o.category.get_value())
        bonus_points = YAHTZEE_BONUS if bonus_open else 0
        if not self.forced_joker:
            return [Option(cv, own(cv), bonus_points, True) for cv in open_boxes]
        return self._joker_options(open_boxes, bonus_points, d, own)

    @staticmethod
    def _joker_options(open_boxes: list[CategoryValue], bonus_points: int, d: Dice,
                       own: Callable[[CategoryValue], int]) -> list[Option]:
        """Return the forced-joker choices for a Yahtzee rolled with the Yahtzee box filled.

        ``own`` gives what the dice score in a box by the box's own rule.
        """
        upper = CategoryValue.upper_for_face(d.get_die(0).get_value())
        if upper in open_boxes:
            return [Option(upper, own(upper), bonus_points, True)]
        lower = [cv for cv in open_boxes if not cv.is_upper]
        if lower:
            return [Option(cv, _JOKER_POINTS[cv] if cv in _JOKER_POINTS else own(cv),
                           bonus_points, True) for cv in lower]
        return [Option(cv, 0, bonus_points, True) for cv in open_boxes]

    def joker_bar(self, scores: Sequence[int | None], d: Dice,
                  cv: CategoryValue) -> JokerBar | None:
        """Return why the forced joker keeps the open box ``cv`` off the menu, or None.

        None unless the rules force jokers, the dice are a Yahtzee, the Yahtzee
        box is filled, ``cv`` is open and the joker steps send the dice elsewhere:
        to the upper box of their face, or to any open lower box.
        """
        open_boxes = [c for c in _CATEGORIES if scores[c.get_value()] is None]
        if (not self.forced_joker or cv not in open_boxes or not is_yahtzee(d)
                or scores[CategoryValue.YAHTZEE.get_value()] is None):
            return None
        upper = CategoryValue.upper_for_face(d.get_die(0).get_value())
        if upper in open_boxes:
            return None if cv is upper else JokerBar(upper.label)
        if cv.is_upper and any(not c.is_upper for c in open_boxes):
            return JokerBar(None)
        return None

    def possible_points(self, cv: CategoryValue) -> frozenset[int]:
        """Return every number of points the box ``cv`` can hold under these rules.

        What some roll scores there by the box's own rule, and under a forced
        joker also the joker's fixed points (25, 30, 40).
        """
        points = _rolled_points(cv)
        if self.forced_joker and cv in _JOKER_POINTS:
            points = points | {_JOKER_POINTS[cv]}
        return points

    def rounds_used(self, filled: int, bonus_count: int) -> int:
        """Return how many turns a card has used: one per filled box, one per chosen bonus."""
        return filled + (bonus_count if self.bonus_by_choice else 0)


COURSE = Rules(
    name="course",
    bonus_by_choice=True,
    bonus_cap=3,
    forced_joker=False,
)
"""The course's rules (the default): a later Yahtzee, with 50 in the Yahtzee box, may be scored
in Yahtzee again as a 100-point bonus (at most 3) that fills no box; no joker."""

OFFICIAL = Rules(
    name="official",
    bonus_by_choice=False,
    bonus_cap=None,
    forced_joker=True,
)
"""Hasbro's official rules: every later Yahtzee with 50 in the Yahtzee box earns 100 points, and
a Yahtzee with that box filled is placed by the forced joker."""

RULES: dict[str, Rules] = {COURSE.name: COURSE, OFFICIAL.name: OFFICIAL}
"""Every rule set, by name."""


def get_rules(name: str) -> Rules:
    """Return the rule set called ``name`` (``"course"`` or ``"official"``)."""
    try:
        return RULES[name]
    except KeyError:
        known = ", ".join(RULES)
        raise ValueError(f"unknown rules {name!r}; choose one of: {known}") from None
