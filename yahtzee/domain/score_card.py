"""The ``ScoreCard``: thirteen boxes, the Yahtzee bonuses and the totals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from yahtzee.domain.category import Category, FiveOfAKind, make_category
from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice
from yahtzee.domain.rules import (COURSE, UPPER_BONUS, UPPER_BONUS_THRESHOLD, YAHTZEE_BONUS,
                                  Option, Rules, box_points, is_yahtzee)
from yahtzee.domain.card import JokerBar, MenuItem, format_rows


_UPPER_BOXES = sum(cv.is_upper for cv in CategoryValue)
"""The upper section's boxes come first in card order (Ones to Sixes)."""


class IllegalChoiceError(ValueError):
    """A box was chosen that the rules do not allow for these dice."""


class ScoreCard:
    """One player's score card: a ``Category`` per box plus the Yahtzee bonus count."""

    NUM_CATS: ClassVar[int] = 13

    def __init__(self, rules: Rules = COURSE) -> None:
        """Make an empty card played under ``rules`` (the course's by default)."""
        self._rules = rules
        self._scorecard: list[Category] = [make_category(cv) for cv in CategoryValue]
        self._scores: list[int | None] = [None] * self.NUM_CATS
        """What ``scores()`` returns, kept with the boxes (the solver asks it at every decision)."""
        self._yahtzee_bonus = 0
        self._upper = self._lower = 0
        """The points in the upper and in the lower boxes (no bonus): kept as boxes fill."""
        self._changes = 0
        """How many times the card changed: the memo below holds for one number of changes."""
        self._last: tuple[tuple[int, tuple[int, ...]], list[Option], list[MenuItem]] | None = None
        """The last choices asked for (``options`` and ``menu``), with the number of changes
        and the dice they were asked for: the engine, the table's view and the computer ask
        again and again about the same card and dice."""

    @property
    def rules(self) -> Rules:
        """The rule set this card is played under."""
        return self._rules

    @property
    def changes(self) -> int:
        """How many times the card changed (a box filled, a bonus won, a restore).

        What depends on the card alone can be remembered with this number and
        holds while it stays the same; it only grows.
        """
        return self._changes

    def scores(self) -> list[int | None]:
        """Return each box's points in ``CategoryValue`` order, None for an open box."""
        return list(self._scores)

    def options(self, d: Dice) -> list[Option]:
        """Return the legal choices for these dice, with their points, in menu order."""
        return list(self._choices(d)[1])

    def _choices(self, d: Dice) -> tuple[tuple[int, tuple[int, ...]], list[Option],
                                         list[MenuItem]]:
        """Return the choices for these dice as options and as menu lines (kept: do not change).

        Worked out once per change of the card and dice shown.
        """
        key = (self._changes, tuple(d.values()))
        last = self._last
        if last is None or last[0] != key:
            options = self._rules.options(self._scores, self._yahtzee_bonus, d)
            menu = [MenuItem(o.category.number, o.category.label, o.points,
                             o.bonus_points if o.fills_box else 0) for o in options]
            last = self._last = (key, options, menu)
        return last

    def choices(self, d: Dice) -> list[CategoryValue]:
        """Return the boxes the player may choose for these dice, in menu order."""
        return [option.category for option in self.options(d)]

    def _option(self, cv: CategoryValue, d: Dice) -> Option | None:
        """Return the legal choice of ``cv`` for these dice, or None if it is not allowed."""
        return next((o for o in self.options(d) if o.category is cv), None)

    def choose(self, cv: CategoryValue, d: Dice) -> None:
        """Score the dice in ``cv``; ``IllegalChoiceError`` (a ``ValueError``) if not allowed."""
        option = self._option(cv, d)
        if option is None:
            cap = self._rules.bonus_cap
            if (cv is CategoryValue.YAHTZEE and self._rules.bonus_by_choice and is_yahtzee(d)
                    and cap is not None and self._yahtzee_bonus >= cap):
                raise IllegalChoiceError(f"the limit of {cap} Yahtzee bonuses has been reached")
            if self.check_scored(cv):
                raise IllegalChoiceError(f"{cv} has already been scored")
            raise IllegalChoiceError(f"{cv} may not be chosen for these dice")
        if option.fills_box:
            self._fill(cv, option.box_points)
        if option.bonus_points:
            self._yahtzee_bonus += 1
            self._changes += 1

    def _fill(self, cv: CategoryValue, points: int) -> None:
        """Write ``points`` in the open box ``cv``, keeping the section totals."""
        self._scorecard[cv.get_value()].set_score(points)
        self._scores[cv.get_value()] = points
        if cv.get_value() < _UPPER_BOXES:
            self._upper += points
        else:
            self._lower += points
        self._changes += 1

    def menu(self, d: Dice) -> list[MenuItem]:
        """Return the scoring menu for these dice: number, name and points of each choice."""
        return list(self._choices(d)[2])

    def joker_bar(self, number: int, d: Dice) -> JokerBar | None:
        """Return why the forced joker keeps the open box ``number`` off the menu, or None."""
        cv = CategoryValue.find(number)
        return None if cv is None else self._rules.joker_bar(self.scores(), d, cv)

    def choose_number(self, number: int, d: Dice) -> MenuItem:
        """Score the dice in the box numbered ``number`` (1 to 13) and return its menu line."""
        for item in self.menu(d):
            if item.number == number:
                self.choose(CategoryValue.from_number(number), d)
                return item
        raise IllegalChoiceError(f"{number} is not on the menu for these dice")

    def get_evaluation(self, cv: CategoryValue, d: Dice) -> int:
        """Return what choosing ``cv`` would add (box points plus any Yahtzee bonus).

        For a box that is not a legal choice, return what its own rule scores.
        """
        option = self._option(cv, d)
        return option.points if option else box_points(cv, d)

    def check_scored(self, cv: CategoryValue) -> bool:
        """Return whether the box ``cv`` has been used."""
        return self._scorecard[cv.get_value()].get_used()

    def get_category_score(self, cv: CategoryValue) -> int:
        """Return the points in the box ``cv`` (0 while open)."""
        return self._scorecard[cv.get_value()].get_score()

    def get_yahtzee_bonus(self) -> int:
        """Return how many Yahtzee bonuses the card holds."""
        return self._yahtzee_bonus

    def upper_subtotal(self) -> int:
        """Return the upper boxes' total, without the upper bonus."""
        return self._upper

    def upper_bonus(self) -> int:
        """Return the upper bonus: 35 once the upper boxes reach 63, else 0."""
        return UPPER_BONUS if self.upper_subtotal() >= UPPER_BONUS_THRESHOLD else 0

    def score_top(self) -> int:
        """Return the upper section's total, with the upper bonus once earned."""
        return self.upper_subtotal() + self.upper_bonus()

    def score_bottom(self) -> int:
        """Return the lower section's total, with the Yahtzee bonuses."""
        return self._lower + YAHTZEE_BONUS * self._yahtzee_bonus

    def score(self) -> int:
        """Return the grand total: ``score_top()`` (upper bonus included) + ``score_bottom()``."""
        return self.score_top() + self.score_bottom()

    def rounds_used(self) -> int:
        """Return how many turns this card has taken."""
        filled = self.NUM_CATS - self._scores.count(None)  # the boxes used, as ``_fill`` keeps
        return self._rules.rounds_used(filled, self._yahtzee_bonus)

    def rows(self) -> list[tuple[str, int]]:
        """Return the printed rows of the card as (label, value) pairs."""
        rows = [(cv.label, self.get_category_score(cv)) for cv in CategoryValue]
        rows += [("Yahtzee bonus:", YAHTZEE_BONUS * self._yahtzee_bonus),
                 ("Upper Total", self.score_top()),
                 ("Lower Total", self.score_bottom()),
                 ("Total", self.score())]
        return rows

    @classmethod
    def restore(cls, rules: Rules, scores: Sequence[int | None], bonus_count: int) -> ScoreCard:
        """Return a card under ``rules`` holding ``scores`` and ``bonus_count`` bonuses."""
        if len(scores) != cls.NUM_CATS:
            raise ValueError(f"a card has {cls.NUM_CATS} boxes, not {len(scores)}")
        if not isinstance(bonus_count, int) or bonus_count < 0 or (
                rules.bonus_cap is not None and bonus_count > rules.bonus_cap):
            raise ValueError(f"{bonus_count!r} Yahtzee bonuses are not possible")
        card = cls(rules)
        for cv, points in zip(CategoryValue, scores):
            if points is not None:
                card._restore_box(cv, points)
        filled = sum(points is not None for points in scores)
        later_turns = rules.ROUNDS - filled if rules.bonus_by_choice else filled - 1
        if bonus_count and (scores[CategoryValue.YAHTZEE.get_value()] != FiveOfAKind.POINTS
                            or bonus_count > later_turns):
            raise ValueError(f"{bonus_count} Yahtzee bonuses are not possible on this card")
        card._yahtzee_bonus = bonus_count
        card._changes += 1
        return card

    def _restore_box(self, cv: CategoryValue, points: int) -> None:
        """Fill the box ``cv`` with ``points`` on a card being restored (``ValueError``: cannot)."""
        if isinstance(points, bool) or not isinstance(points, int):
            raise ValueError(f"a box holds whole points, not {points!r}")
        if points not in self._rules.possible_points(cv):
            raise ValueError(f"{cv} cannot hold {points} points")
        self._fill(cv, points)

    def __str__(self) -> str:
        return format_rows(self.rows())

    def __repr__(self) -> str:
        return (f"ScoreCard.restore({self._rules.name!r} rules, {self.scores()!r}, "
                f"{self._yahtzee_bonus})")
