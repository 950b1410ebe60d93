"""Poker Dice on the solver: its scoring model and an optimal (or greedy) strategy.

The faces 9, 10, J, Q, K and A are the die values 1 to 6; a roll's points
in each of the nine boxes come from ``yahtzee.domain.poker_dice.calculate_score``.
There are no bonuses and a game lasts nine turns, one per box, so the
states are just the filled-box masks and the table is solved in memory in
a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from yahtzee.domain.games import POKER_DICE
from yahtzee.domain.poker_dice import FACES, PokerCategory, PokerScoreCard, calculate_score
from yahtzee.solver.dynamic import TurnValues, single_turn_values, solve, start_state_value
from yahtzee.solver.keeps import ROLLS, FloatArray, roll_number
from yahtzee.solver.model import ScoringModel, base_table
from yahtzee.solver.moments import Moments, solve_moments
from yahtzee.solver.strategy import TurnStrategy


def poker_model() -> ScoringModel:
    """Return the scoring model of Poker Dice."""
    count = len(PokerCategory)
    boxes = list(PokerCategory)

    def points(box: int, roll: int) -> int:
        """Return what the roll scores in the box, by the Poker Dice rules."""
        return calculate_score([FACES[v - 1] for v in ROLLS[roll]], boxes[box].number)

    return ScoringModel(name=POKER_DICE.name, n_categories=count, rounds=count,
                        base=base_table(points, count), upper=(False,) * count)


@lru_cache(maxsize=2)
def poker_solution(optimal: bool = True) -> tuple[ScoringModel, FloatArray]:
    """Return the Poker Dice model with its state values (all zero when not ``optimal``)."""
    model = poker_model()
    values = solve(model) if optimal else np.zeros(model.shape)
    return model, values


@lru_cache(maxsize=1)
def poker_moments() -> Moments:
    """Return the spreads, chances and shape of optimal Poker Dice play (worked out in memory)."""
    model, values = poker_solution()
    return solve_moments(model, values, with_shape=True)


def expected_poker_score() -> float:
    """Return the expected final score of optimal Poker Dice play."""
    model, values = poker_solution()
    return start_state_value(model, values)


class PokerStrategy(TurnStrategy[PokerScoreCard, PokerCategory]):
    """Poker Dice decisions: optimal (expected final score) or greedy (this turn's points)."""

    def __init__(self, optimal: bool = True) -> None:
        """Play optimally, or greedily when ``optimal`` is False."""
        super().__init__()
        self.model, self.values = poker_solution(optimal)

    @staticmethod
    def mask_of(card: PokerScoreCard) -> int:
        """Return the filled-box mask of a card."""
        return sum(1 << i for i, points in enumerate(card.scores()) if points is not None)

    def _key(self, card: PokerScoreCard) -> Hashable:
        """Return the card's solver state: its filled-box mask."""
        return self.mask_of(card)

    def _solve_turn(self, key: Any) -> TurnValues:
        """Return the values inside a turn with the boxes of mask ``key`` filled."""
        return single_turn_values(self.model, self.values, 0, int(key), 0, None)

    def _category_worth(self, card: PokerScoreCard,
                        dice: Sequence[int]) -> list[tuple[PokerCategory, float]]:
        """Return each open box with its points plus the expected points to come."""
        mask = self.mask_of(card)
        roll = roll_number(list(dice))
        flat = self.values.ravel()
        return [(box, float(self.model.base[roll, box.get_value()])
                 + float(flat[(mask | 1 << box.get_value()) * self.model.n_upper]))
                for box in PokerCategory if not mask >> box.get_value() & 1]

    def state_key(self, card: PokerScoreCard) -> tuple[int, int, int]:
        """Return the card's solver state as (flag state, mask, upper total): ``(0, mask, 0)``."""
        return 0, self.mask_of(card), 0

    def box_moves(self, card: PokerScoreCard,
                  dice: Sequence[int]) -> list[tuple[PokerCategory, int, int, int]]:
        """Return the open boxes with their points for these dice, as (box, slot, points, 0)."""
        mask = self.mask_of(card)
        roll = roll_number(list(dice))
        return [(box, box.get_value(), int(self.model.base[roll, box.get_value()]), 0)
                for box in PokerCategory if not mask >> box.get_value() & 1]

    def expected_final(self, card: PokerScoreCard) -> float:
        """Return the card's points plus the expected points still to come."""
        return float(card.score()) + float(self.values.ravel()[self.mask_of(card)])
