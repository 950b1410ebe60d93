"""Poker Dice on the solver: its scoring model and an optimal (or greedy) strategy.

The faces 9, 10, J, Q, K and A are the die values 1 to 6; a roll's points
in each of the nine boxes come from ``yahtzee.poker_dice.calculate_score``.
There are no bonuses and a game lasts nine turns, one per box, so the
states are just the filled-box masks and the table is solved in memory in
a fraction of a second.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from yahtzee.poker_dice import FACES, PokerCategory, PokerScoreCard, calculate_score
from yahtzee.solver.engine import TurnValues, single_turn_values, solve, start_state_value
from yahtzee.solver.keeps import KEEPS, ROLLS, FloatArray, roll_number
from yahtzee.solver.model import ScoringModel, base_table
from yahtzee.solver.strategy import _distinct_sub_keeps, _first_best

_TURNS_REMEMBERED = 64


def poker_model() -> ScoringModel:
    """Return the scoring model of Poker Dice."""
    count = len(PokerCategory)
    boxes = list(PokerCategory)

    def points(box: int, roll: int) -> int:
        """Return what the roll scores in the box, by the Poker Dice rules."""
        return calculate_score([FACES[v - 1] for v in ROLLS[roll]], boxes[box].number)

    return ScoringModel(name="poker-dice", n_categories=count, rounds=count,
                        base=base_table(points, count), upper=(False,) * count)


@lru_cache(maxsize=2)
def poker_solution(optimal: bool = True) -> tuple[ScoringModel, FloatArray]:
    """Return the Poker Dice model with its state values (all zero when not ``optimal``)."""
    model = poker_model()
    values = solve(model) if optimal else np.zeros(model.shape)
    return model, values


def expected_poker_score() -> float:
    """Return the expected final score of optimal Poker Dice play."""
    model, values = poker_solution()
    return start_state_value(model, values)


class PokerStrategy:
    """Poker Dice decisions: optimal (expected final score) or greedy (this turn's points)."""

    def __init__(self, optimal: bool = True) -> None:
        """Play optimally, or greedily when ``optimal`` is False."""
        self.model, self.values = poker_solution(optimal)
        self._turns: OrderedDict[int, TurnValues] = OrderedDict()

    @staticmethod
    def mask_of(card: PokerScoreCard) -> int:
        """Return the filled-box mask of a card."""
        return sum(1 << i for i, points in enumerate(card.scores()) if points is not None)

    def _turn(self, card: PokerScoreCard) -> TurnValues:
        """Return the values inside a turn for the card's state (remembered for a while)."""
        mask = self.mask_of(card)
        found = self._turns.get(mask)
        if found is None:
            found = single_turn_values(self.model, self.values, 0, mask, 0, None)
            self._turns[mask] = found
            if len(self._turns) > _TURNS_REMEMBERED:
                self._turns.popitem(last=False)
        return found

    def _keep_worth(self, card: PokerScoreCard, dice: Sequence[int],
                    rolls_left: int) -> list[tuple[tuple[int, ...], float]]:
        """Return each keep with its expected points to come, scoring now first."""
        if rolls_left not in (1, 2):
            raise ValueError(f"rolls_left must be 1 or 2, not {rolls_left}")
        turn = self._turn(card)
        roll = roll_number(list(dice))
        table = turn.keep1 if rolls_left == 1 else turn.keep2
        subs = _distinct_sub_keeps(roll)
        return [(KEEPS[subs[0]], float(turn.leaf[roll, 0]))] + [
            (KEEPS[k], float(table[k, 0])) for k in subs[1:]]

    def keep_values(self, card: PokerScoreCard, dice: Sequence[int],
                    rolls_left: int) -> dict[tuple[int, ...], float]:
        """Return the expected final score of each keep (all five: score now)."""
        now = float(card.score())
        return {keep: now + worth for keep, worth in self._keep_worth(card, dice, rolls_left)}

    def keep(self, card: PokerScoreCard, dice: Sequence[int],
             rolls_left: int) -> tuple[int, ...] | None:
        """Return the die values to keep before the next roll, or None to score now."""
        best_keep, _ = _first_best(self._keep_worth(card, dice, rolls_left))
        return None if len(best_keep) == len(dice) else best_keep

    def _category_worth(self, card: PokerScoreCard,
                        dice: Sequence[int]) -> list[tuple[PokerCategory, float]]:
        """Return each open box with its points plus the expected points to come."""
        mask = self.mask_of(card)
        roll = roll_number(list(dice))
        flat = self.values.ravel()
        return [(box, float(self.model.base[roll, box.get_value()])
                 + float(flat[(mask | 1 << box.get_value()) * self.model.n_upper]))
                for box in PokerCategory if not mask >> box.get_value() & 1]

    def category_values(self, card: PokerScoreCard,
                        dice: Sequence[int]) -> dict[PokerCategory, float]:
        """Return the expected final score after scoring the dice in each open box."""
        now = float(card.score())
        return {box: now + worth for box, worth in self._category_worth(card, dice)}

    def category(self, card: PokerScoreCard, dice: Sequence[int]) -> PokerCategory:
        """Return the open box with the highest expected final score (lowest number on ties)."""
        worth = self._category_worth(card, dice)
        if not worth:
            raise ValueError("no box can be chosen on a full card")
        return _first_best(worth)[0]

    def expected_final(self, card: PokerScoreCard) -> float:
        """Return the card's points plus the expected points still to come."""
        return float(card.score()) + float(self.values.ravel()[self.mask_of(card)])
