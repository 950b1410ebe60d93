"""Computer strategies: the optimal one (exact expected final score) and a greedy one.

Both answer the two questions of a turn: which dice to keep before a
re-roll (or none: score now), and which box to score.  The optimal
strategy reads the solved table of state values; the greedy one uses the
same machinery with every future worth nothing, so it chases the best box
of this turn alone.  Decisions are deterministic: ties (values closer
than ``TIE``, whatever the rounding of their last bits) go to scoring now,
then to keeping more dice, then to the lower dice; for boxes, to the
lower box number.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from collections.abc import Hashable
from functools import lru_cache
from typing import Any, Generic, TypeVar, cast

import numpy as np

from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice
from yahtzee.domain.rules import Rules
from yahtzee.domain.score_card import ScoreCard
from yahtzee.solver import accel
from yahtzee.solver.cache import Solution
from yahtzee.solver.dynamic import (SpecialChoices, States, TurnValues, flat_index,
                                    single_turn_values, step_one, table_specials)
from yahtzee.solver.keeps import (KEEPS, SUB_KEEP_COUNT, SUB_KEEPS, FloatArray,
                                  IntArray, roll_number)
from yahtzee.solver.model import ScoringModel, option_slot, situation_choices, yahtzee_model
from yahtzee.solver.ties import TIE
from yahtzee.domain.card import Card

_TURNS_REMEMBERED = 1024
"""Turns remembered, the last used kept: a server holds one or two turns in play per
game (the player's, the coach's), so 1,024 keep about 500 games at once from working
theirs out again; each is a few kilobytes to a few tens (60 MB at most in all)."""
_STATES_KEPT = 1024
"""How many cards' solver states a strategy remembers at most (``state_of``): a few hundred
games' cards, about 0.2 MB."""
_CATEGORIES = tuple(CategoryValue)
_T = TypeVar("_T")
_CardT = TypeVar("_CardT")
_BoxT = TypeVar("_BoxT")


def _sub_keep_lists() -> tuple[IntArray, ...]:
    """Return, per roll, its distinct keeps in tie-breaking order (the roll itself first)."""
    return tuple(SUB_KEEPS[roll, :count] for roll, count in enumerate(SUB_KEEP_COUNT))


_SUB_KEEP_LISTS = _sub_keep_lists()
_SUB_KEEP_DICE = tuple(tuple(KEEPS[int(k)] for k in subs) for subs in _SUB_KEEP_LISTS)
"""Per roll, the dice of its distinct keeps in tie-breaking order."""


_DISTINCT_SUB_KEEPS = tuple(tuple(int(k) for k in subs) for subs in _SUB_KEEP_LISTS)
"""Per roll, the numbers of its distinct keeps in tie-breaking order (the roll itself first)."""


def distinct_sub_keeps(roll: int) -> list[int]:
    """Return the keeps of a roll without the padding, the roll itself first."""
    return list(_DISTINCT_SUB_KEEPS[roll])


def _first_best(items: list[tuple[_T, float]]) -> tuple[_T, float]:
    """Return the first item whose value is within ``TIE`` of the highest."""
    top = max(value for _, value in items)
    return next((item, value) for item, value in items if value >= top - TIE)


def keep_options(turn: TurnValues, dice: Sequence[int],
                 rolls_left: int) -> tuple[tuple[tuple[int, ...], ...], FloatArray]:
    """Return the distinct keeps of these dice and each one's expected points to come.

    Both come in the tie-breaking order of ``best_keep``: the first keep holds
    every die and stands for scoring now (its worth is the best box's); the
    points are those of ``turn``'s tables with ``rolls_left`` (1 or 2) rolls left.
    """
    roll = roll_number(list(dice))
    table = turn.keep1 if rolls_left == 1 else turn.keep2
    worth = table.take(_SUB_KEEP_LISTS[roll])
    worth[0] = turn.leaf[roll, 0]
    return _SUB_KEEP_DICE[roll], worth


def best_keep(turn: TurnValues, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
    """Return the keep of these dice that ``turn``'s tables rate best, or None to score now.

    ``rolls_left`` is 1 or 2; ties (within ``TIE``) go to scoring now, then to
    the keeps in ``SUB_KEEPS`` order (more dice first, then lower dice).
    """
    roll = roll_number(list(dice))
    table = turn.keep1 if rolls_left == 1 else turn.keep2
    best = accel.best_keep(table, turn.leaf, roll)
    if best is None:
        worth = table.take(_SUB_KEEP_LISTS[roll])
        worth[0] = turn.leaf[roll, 0]
        best = int(np.argmax(worth >= worth.max() - TIE))
    return None if best == 0 else _SUB_KEEP_DICE[roll][best]


class TurnStrategy(Generic[_CardT, _BoxT]):
    """Decisions read from a turn's tables of expected points: what every table strategy shares.

    A subclass says how a card maps to a solver state (``_key``), how to
    work out the turn's tables for a state (``_solve_turn``) and what each
    legal box is worth (``_category_worth``); the keeps, the choices and
    their tie-breaking are the same for every game.
    """

    def __init__(self) -> None:
        """Start with no turn's tables remembered (the last ``_TURNS_REMEMBERED`` are kept)."""
        self._turn_of_key = lru_cache(maxsize=_TURNS_REMEMBERED)(self._solve_turn)

    def _key(self, card: _CardT) -> Hashable:
        """Return the card's solver state."""
        raise NotImplementedError

    def _solve_turn(self, key: Any) -> TurnValues:
        """Return the values inside a turn from the solver state ``key``."""
        raise NotImplementedError

    def _category_worth(self, card: _CardT,
                        dice: Sequence[int]) -> list[tuple[_BoxT, float]]:
        """Return each legal box with its points now plus the expected points to come."""
        raise NotImplementedError

    def turn(self, card: _CardT) -> TurnValues:
        """Return the values inside a turn for the card's state (remembered for a while)."""
        return self._turn_of_key(self._key(card))

    def _keep_worth(self, card: _CardT, dice: Sequence[int],
                    rolls_left: int) -> list[tuple[tuple[int, ...], float]]:
        """Return each keep with its expected points to come, in tie-breaking order."""
        if rolls_left not in (1, 2):
            raise ValueError(f"rolls_left must be 1 or 2, not {rolls_left}")
        turn = self.turn(card)
        roll = roll_number(list(dice))
        table = turn.keep1 if rolls_left == 1 else turn.keep2
        keeps = _SUB_KEEP_DICE[roll]
        worth = table[_SUB_KEEP_LISTS[roll][1:], 0].tolist()
        return [(keeps[0], float(turn.leaf[roll, 0]))] + list(zip(keeps[1:], worth))

    def keep_values(self, card: _CardT, dice: Sequence[int],
                    rolls_left: int) -> dict[tuple[int, ...], float]:
        """Return the expected final score of each keep of these dice.

        Keeping all five dice stands for scoring now.  The keeps come in the
        tie-breaking order: all five first, then by size descending.
        """
        now = float(cast(Card, card).score())
        return {keep: now + worth for keep, worth in self._keep_worth(card, dice, rolls_left)}

    def keep(self, card: _CardT, dice: Sequence[int],
             rolls_left: int) -> tuple[int, ...] | None:
        """Return the best keep before the next roll, or None when scoring now is as good."""
        if rolls_left not in (1, 2):
            raise ValueError(f"rolls_left must be 1 or 2, not {rolls_left}")
        return best_keep(self.turn(card), dice, rolls_left)

    def box_worth(self, card: _CardT, dice: Sequence[int]) -> tuple[list[_BoxT], list[float]]:
        """Return the legal boxes for these dice in menu order, and each one's points now
        plus the expected points to come (empty lists on a full card)."""
        worth = self._category_worth(card, dice)
        return [box for box, _ in worth], [value for _, value in worth]

    def category_values(self, card: _CardT, dice: Sequence[int]) -> dict[_BoxT, float]:
        """Return the expected final score after each legal choice for these dice."""
        now = float(cast(Card, card).score())
        return {box: now + worth for box, worth in self._category_worth(card, dice)}

    def category(self, card: _CardT, dice: Sequence[int]) -> _BoxT:
        """Return the box with the highest expected final score (lowest number on ties)."""
        worth = self._category_worth(card, dice)
        if not worth:
            raise ValueError("no box can be chosen on a full card")
        return _first_best(worth)[0]


class _TableStrategy(TurnStrategy[ScoreCard, CategoryValue]):
    """Yahtzee decisions read from a table of state values (shared by both strategies)."""

    def __init__(self, rules: Rules, model: ScoringModel, values: FloatArray) -> None:
        """Decide under ``rules`` with ``model`` and the state ``values``."""
        super().__init__()
        self.rules = rules
        self.model = model
        self.values = values
        self._base: list[list[int]] = model.base.tolist()
        self._special_rolls = frozenset(
            () if model.special is None else model.special.rolls.tolist())
        self._states: dict[int, tuple[weakref.ref[ScoreCard], int, tuple[int, int, int]]] = {}
        """``state_of``'s latest answers by the card's identity, with the card (weakly) and its
        changes."""

    def state_of(self, card: ScoreCard) -> tuple[int, int, int]:
        """Return the solver state (flag state, filled mask, capped upper total) of a card.

        Remembered while the card stays the same (``ScoreCard.changes``): a
        decision, the coach and the win chances ask about the same cards many
        times between two boxes.  Up to ``_STATES_KEPT`` cards are remembered,
        then all are forgotten at once.
        """
        changes = card.changes  # read first: a change meanwhile is then seen at the next call
        kept = self._states.get(id(card))
        if kept is not None and kept[0]() is card and kept[1] == changes:
            return kept[2]
        state = self._state_now(card)
        if len(self._states) >= _STATES_KEPT:
            self._states.clear()
        # a weak reference: the card is not kept alive, and another card given its identity
        # later finds it dead
        self._states[id(card)] = (weakref.ref(card), changes, state)
        return state

    def _state_now(self, card: ScoreCard) -> tuple[int, int, int]:
        """Work out ``state_of(card)``."""
        model = self.model
        scores = card.scores()
        mask = upper = 0
        for i, points in enumerate(scores):
            if points is not None:
                mask |= 1 << i
                if model.upper[i]:
                    upper += points
        upper = min(model.n_upper - 1, upper)
        flag = 0
        if model.flag_category is not None and scores[model.flag_category]:
            flag = 1 + min(card.get_yahtzee_bonus(), model.bonus_levels - 1)
        return flag, mask, upper

    def _key(self, card: ScoreCard) -> Hashable:
        """Return the card's solver state."""
        return self.state_of(card)

    def _specials(self, flag: int, mask: int, states: States) -> SpecialChoices | None:
        """Return the choices of the special rolls in this state."""
        if self.model.special is not None:
            return table_specials(self.model, states)
        rolls, allowed, box, bonus, varies = situation_choices(self.rules, self.model, flag,
                                                               mask)
        return SpecialChoices(allowed[None], box[None], bonus[None], np.array([varies]), rolls)

    def _solve_turn(self, key: Any) -> TurnValues:
        """Return the values inside a turn from the state (flag, mask, upper)."""
        flag, mask, upper = key
        if self.model.special is not None:
            fast = accel.one_turn(self.model, self.values, flag, mask, upper, want_choice=False)
            if fast is not None:
                return TurnValues(*fast)
        states = States(np.array([flag]), np.array([mask]), np.array([upper]))
        return single_turn_values(self.model, self.values, flag, mask, upper,
                                  self._specials(flag, mask, states))

    def _category_worth(self, card: ScoreCard,
                        dice: Sequence[int]) -> list[tuple[CategoryValue, float]]:
        """Return each legal box with its points now plus the expected points to come."""
        model = self.model
        flag, mask, upper = self.state_of(card)
        flat = self.values.reshape(-1)
        result = []
        for category, slot, box, bonus in self.choices(card, dice, (flag, mask, upper)):
            f2, m2, u2, reward = step_one(model, flag, mask, upper, slot, box, bonus)
            result.append((category, reward + float(flat[(f2 * model.n_masks + m2)
                                                         * model.n_upper + u2])))
        return result

    def choices(self, card: ScoreCard, dice: Sequence[int], state: tuple[int, int, int]
                ) -> list[tuple[CategoryValue, int, int, int]]:
        """Return the legal choices for these dice as (box, slot, box points, bonus points).

        They are those of ``card.options``, in menu order; where the model's
        tables say the rules offer every open box at its own points (any roll
        but a Yahtzee in a few situations), they are read from the model.
        """
        flag, mask, _ = state
        model = self.model
        roll = roll_number(list(dice))
        if self._plain(roll, flag, mask):
            points = self._base[roll]
            return [(_CATEGORIES[c], c, points[c], 0)
                    for c in range(model.n_categories) if not mask >> c & 1]
        return [(option.category, option_slot(option, model.n_categories), option.box_points,
                 option.bonus_points) for option in card.options(Dice.of(dice))]

    def _plain(self, roll: int, flag: int, mask: int) -> bool:
        """Return whether the model's tables say this roll offers the open boxes plainly."""
        special = self.model.special
        return special is not None and not (roll in self._special_rolls
                                            and special.varies[flag, mask])

    def category(self, card: ScoreCard, dice: Sequence[int]) -> CategoryValue:
        """Return the box with the highest expected final score (lowest number on ties)."""
        flag, mask, upper = self.state_of(card)
        roll = roll_number(list(dice))
        if self._plain(roll, flag, mask):
            box = accel.best_box(self.model, self.values, flag, mask, upper, roll)
            if box is not None:
                return _CATEGORIES[box]
        return super().category(card, dice)

    def state_key(self, card: ScoreCard) -> tuple[int, int, int]:
        """Return the card's solver state (flag state, filled mask, capped upper total)."""
        return self.state_of(card)

    def box_moves(self, card: ScoreCard,
                  dice: Sequence[int]) -> list[tuple[CategoryValue, int, int, int]]:
        """Return the legal boxes for these dice as (box, slot, box points, bonus points)."""
        return self.choices(card, dice, self.state_of(card))

    def expected_final(self, card: ScoreCard) -> float:
        """Return the card's points plus the expected points still to come, at a turn's start."""
        flag, mask, upper = self.state_of(card)
        if card.rounds_used() >= self.model.rounds:
            return float(card.score())
        index = flat_index(self.model, flag, mask, upper)
        return float(card.score()) + float(self.values.ravel()[index])


class OptimalStrategy(_TableStrategy):
    """Exact optimal play: every decision maximizes the expected final score."""

    def __init__(self, rules: Rules, solution: Solution) -> None:
        """Play ``rules`` optimally with their solved table ``solution`` (see ``load_or_build``)."""
        super().__init__(rules, solution.model, solution.values)


class GreedyStrategy(_TableStrategy):
    """Greedy play: chase the most points this turn, ignoring every later turn.

    It keeps toward the best box of this turn and scores the box that adds
    the most points now (an upper bonus earned by it included).
    """

    def __init__(self, rules: Rules) -> None:
        """Play ``rules`` greedily (no table needed)."""
        model = yahtzee_model(rules, tables=False)
        super().__init__(rules, model, np.zeros(model.shape))
