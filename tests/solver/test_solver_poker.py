"""Poker Dice on the solver: the model's points, brute force on small games, the strategy."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, product

import pytest

from yahtzee.domain.dice import Dice
from yahtzee.domain.poker_dice import (FACES, PokerCategory, PokerScoreCard, calculate_score,
                                       possible_points)
from yahtzee.solver.keeps import ROLLS, roll_number
from yahtzee.solver.poker import PokerStrategy, expected_poker_score, poker_model

_OUTCOMES = {
    n: [(roll, count / 6 ** n) for roll, count in
        Counter(tuple(sorted(p)) for p in product(range(1, 7), repeat=n)).items()]
    for n in range(6)}
_ROLLS = sorted({tuple(sorted(p)) for p in product(range(1, 7), repeat=5)})


def _keeps(roll: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Return every sub-multiset of a roll."""
    return {tuple(sorted(c)) for n in range(6) for c in combinations(roll, n)}


def brute_poker(card: PokerScoreCard, memo: dict[tuple[int | None, ...], float]) -> float:
    """Return the expected final score of optimal play by enumerating every roll and keep."""
    if card.rounds_used() >= len(PokerCategory):
        return float(card.score())
    key = tuple(card.scores())
    if key in memo:
        return memo[key]
    scored = {}
    for roll in _ROLLS:
        best = -1.0
        for box in PokerCategory:
            if not card.check_scored(box):
                after = PokerScoreCard.restore(card.scores())
                after.choose(box, Dice.of(roll))
                best = max(best, brute_poker(after, memo))
        scored[roll] = best
    one = {roll: max(sum(p * scored[tuple(sorted(k + e))] for e, p in _OUTCOMES[5 - len(k)])
                     for k in _keeps(roll)) for roll in _ROLLS}
    two = {roll: max(sum(p * one[tuple(sorted(k + e))] for e, p in _OUTCOMES[5 - len(k)])
                     for k in _keeps(roll)) for roll in _ROLLS}
    memo[key] = float(sum(p * two[r] for r, p in _OUTCOMES[5]))
    return memo[key]


def test_the_model_scores_by_calculate_score() -> None:
    model = poker_model()
    assert model.base.shape == (252, 9) and model.rounds == 9
    for roll in ([6, 6, 6, 6, 6], [1, 2, 3, 4, 5], [2, 2, 3, 3, 3], [6, 1, 6, 1, 2]):
        faces = [FACES[v - 1] for v in roll]
        for box in PokerCategory:
            assert model.base[roll_number(roll), box.get_value()] == calculate_score(
                faces, box.number)
    assert model.base[roll_number([6, 6, 6, 6, 6]), PokerCategory.FIVE_OF_A_KIND.get_value()] == 100


def test_expected_score_is_pinned() -> None:
    assert round(expected_poker_score(), 6) == 463.740279


def test_solver_equals_brute_force_with_two_open_boxes() -> None:
    scores: list[int | None] = [min(possible_points(c), key=lambda points: abs(points - 20))
                                for c in PokerCategory]
    scores[PokerCategory.FULL_HOUSE.get_value()] = None
    scores[PokerCategory.SMALL_STRAIGHT.get_value()] = None
    card = PokerScoreCard.restore(scores)
    expected = brute_poker(card, {})
    assert PokerStrategy().expected_final(card) == pytest.approx(expected, abs=1e-9)


def test_decisions_are_legal_and_optimal_beats_greedy() -> None:
    totals = {}
    for optimal in (True, False):
        strategy = PokerStrategy(optimal)
        rng = random.Random(4)
        total = 0
        for _ in range(40):
            card = PokerScoreCard()
            while card.rounds_used() < 9:
                dice = [rng.randint(1, 6) for _ in range(5)]
                for rolls_left in (2, 1):
                    keep = strategy.keep(card, dice, rolls_left)
                    if keep is None:
                        break
                    assert len(keep) < 5 and not Counter(keep) - Counter(dice)
                    dice = list(keep) + [rng.randint(1, 6) for _ in range(5 - len(keep))]
                box = strategy.category(card, dice)
                assert not card.check_scored(box)
                card.choose(box, Dice.of(dice))
            total += card.score()
        totals[optimal] = total
    assert totals[False] < totals[True]


def test_keep_and_category_values() -> None:
    strategy = PokerStrategy()
    card = PokerScoreCard()
    values = strategy.keep_values(card, [6, 6, 6, 2, 1], 2)
    assert list(values)[0] == (1, 2, 6, 6, 6) and strategy.keep(card, [6, 6, 6, 2, 1], 2) == (
        6, 6, 6)
    boxes = strategy.category_values(card, [6, 6, 6, 2, 1])
    assert set(boxes) == set(PokerCategory)
    assert max(boxes.values()) == pytest.approx(values[(1, 2, 6, 6, 6)], abs=1e-9)
    assert strategy.category(card, list(ROLLS[0])) is PokerCategory.FIVE_OF_A_KIND
