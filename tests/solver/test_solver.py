"""The solver's values: published anchors, brute force on small games, agreement with the rules."""

from __future__ import annotations

import random
import weakref
from collections import Counter
from itertools import product

import numpy as np
import pytest

from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules
from yahtzee.domain.score_card import ScoreCard
from yahtzee.solver import keeps
from yahtzee.solver.cache import Solution
from yahtzee.solver.dynamic import solve, start_state_value, step
from yahtzee.solver.model import option_slot, yahtzee_model
from yahtzee.solver.strategy import OptimalStrategy

NO_BONUS = Rules(name="no-bonus", bonus_by_choice=False, bonus_cap=0, forced_joker=False)
"""No Yahtzee bonus and no joker."""


def test_official_expected_score_is_the_forced_joker_optimum(official: Solution) -> None:
    assert round(official.expected_score, 4) == 254.5877


def test_course_expected_score_is_pinned(course: Solution) -> None:
    assert round(course.expected_score, 6) == 252.001814


def test_no_bonus_no_joker_expected_score() -> None:
    model = yahtzee_model(NO_BONUS)
    assert model.special is not None and not model.special.varies.any()
    assert round(start_state_value(model, solve(model)), 4) == 245.8708


def test_keep_tables_are_complete_and_consistent() -> None:
    assert (keeps.NUM_KEEPS, keeps.NUM_ROLLS, keeps.ROLL_START) == (462, 252, 210)
    assert keeps.ROLL_PROBABILITY.sum() == pytest.approx(1.0, abs=1e-15)
    assert keeps.ROLL_PROBABILITY[keeps.roll_number([1, 1, 1, 1, 1])] == pytest.approx(6 ** -5)
    assert keeps.ROLL_PROBABILITY[keeps.roll_number([5, 1, 2, 4, 3])] == pytest.approx(
        120 / 6 ** 5)
    assert keeps.SUB_KEEP_COUNT[keeps.roll_number([1, 2, 3, 4, 5])] == 32
    assert keeps.SUB_KEEP_COUNT[keeps.roll_number([6, 6, 6, 6, 6])] == 6


def test_expected_over_keeps_matches_enumeration() -> None:
    rng = np.random.default_rng(5)
    leaf = rng.random((keeps.NUM_ROLLS, 1))
    table = keeps.expected_over_keeps(leaf)
    for keep in [(), (3,), (2, 2), (1, 5, 6), (4, 4, 4, 1)]:
        total = 0.0
        for extra in product(range(1, 7), repeat=5 - len(keep)):
            total += leaf[keeps.roll_number(list(keep + extra)), 0]
        assert table[keeps.keep_number(keep), 0] == pytest.approx(total / 6 ** (5 - len(keep)))
    best = keeps.best_sub_keep(table)
    roll = keeps.keep_number((2, 3, 3, 5, 6))
    subs = {tuple(sorted(c)) for n in range(6) for c in _subsets((2, 3, 3, 5, 6), n)}
    assert best[roll, 0] == max(table[keeps.keep_number(s), 0] for s in subs)


def _subsets(values: tuple[int, ...], size: int) -> set[tuple[int, ...]]:
    """Return the sub-multisets of ``values`` with ``size`` dice."""
    from itertools import combinations
    return {tuple(sorted(c)) for c in combinations(values, size)}


# -- brute force ---------------------------------------------------------------

_OUTCOMES = {
    n: [(roll, count / 6 ** n) for roll, count in
        Counter(tuple(sorted(p)) for p in product(range(1, 7), repeat=n)).items()]
    for n in range(6)}
_ROLLS = sorted({tuple(sorted(p)) for p in product(range(1, 7), repeat=5)})
_KEEPS_OF = {roll: sorted({k for n in range(6) for k in _subsets(roll, n)}) for roll in _ROLLS}
_AFTER = {keep: [(tuple(sorted(keep + extra)), p) for extra, p in _OUTCOMES[5 - len(keep)]]
          for roll in _ROLLS for keep in _KEEPS_OF[roll]}


def brute_expected_final(card: ScoreCard) -> float:
    """Return the expected final score of optimal play, by enumerating every roll and keep.

    Written without the solver: the card itself scores each choice and says
    when the game is over.
    """
    memo: dict[tuple[tuple[int | None, ...], int], float] = {}

    def value(c: ScoreCard) -> float:
        if c.rounds_used() >= c.rules.ROUNDS:
            return float(c.score())
        key = (tuple(c.scores()), c.get_yahtzee_bonus())
        if key in memo:
            return memo[key]
        scored: dict[tuple[int, ...], float] = {}
        for roll in _ROLLS:
            best = -1.0
            for option in c.options(Dice.of(roll)):
                after = ScoreCard.restore(c.rules, c.scores(), c.get_yahtzee_bonus())
                after.choose(option.category, Dice.of(roll))
                best = max(best, value(after))
            scored[roll] = best
        one_left = {roll: max(sum(p * scored[r] for r, p in _AFTER[k])
                              for k in _KEEPS_OF[roll]) for roll in _ROLLS}
        two_left = {roll: max(sum(p * one_left[r] for r, p in _AFTER[k])
                              for k in _KEEPS_OF[roll]) for roll in _ROLLS}
        result = float(sum(p * two_left[r] for r, p in _OUTCOMES[5]))
        memo[key] = result
        return result

    return value(card)


def _card(rules: Rules, open_boxes: set[CategoryValue], upper_points: dict[CategoryValue, int],
          yahtzee: int, bonuses: int) -> ScoreCard:
    """Return a card with only ``open_boxes`` open, the given upper points and Yahtzee box."""
    scores: list[int | None] = []
    for cv in CategoryValue:
        if cv in open_boxes:
            scores.append(None)
        elif cv is CategoryValue.YAHTZEE:
            scores.append(yahtzee)
        else:
            near_20 = min(rules.possible_points(cv), key=lambda points: abs(points - 20))
            scores.append(upper_points.get(cv, 0) if cv.is_upper else near_20)
    return ScoreCard.restore(rules, scores, bonuses)


def test_official_solver_equals_brute_force_with_two_open_boxes(official: Solution) -> None:
    upper = {CategoryValue.ONES: 3, CategoryValue.TWOS: 6, CategoryValue.THREES: 12,
             CategoryValue.FIVES: 15, CategoryValue.SIXES: 18}
    card = _card(OFFICIAL, {CategoryValue.FOURS, CategoryValue.FULL_HOUSE}, upper, 50, 0)
    solver = OptimalStrategy(OFFICIAL, official)
    assert solver.expected_final(card) == pytest.approx(brute_expected_final(card), abs=1e-9)


def test_official_forced_joker_with_zero_in_yahtzee_equals_brute_force(
        official: Solution) -> None:
    upper = {CategoryValue.TWOS: 6, CategoryValue.THREES: 9, CategoryValue.FOURS: 12,
             CategoryValue.FIVES: 15, CategoryValue.SIXES: 18}
    card = _card(OFFICIAL, {CategoryValue.ONES, CategoryValue.LG_STRAIGHT}, upper, 0, 0)
    solver = OptimalStrategy(OFFICIAL, official)
    assert solver.expected_final(card) == pytest.approx(brute_expected_final(card), abs=1e-9)


def test_course_solver_equals_brute_force_with_bonus_turns(course: Solution) -> None:
    upper = {CategoryValue.ONES: 3, CategoryValue.TWOS: 6, CategoryValue.THREES: 9,
             CategoryValue.FOURS: 12, CategoryValue.FIVES: 15}
    card = _card(COURSE, {CategoryValue.SIXES, CategoryValue.CHANCE}, upper, 50, 1)
    assert card.rounds_used() == 12
    solver = OptimalStrategy(COURSE, course)
    assert solver.expected_final(card) == pytest.approx(brute_expected_final(card), abs=1e-9)
    two_turns = _card(COURSE, {CategoryValue.SIXES, CategoryValue.CHANCE}, upper, 50, 0)
    assert solver.expected_final(two_turns) == pytest.approx(brute_expected_final(two_turns),
                                                             abs=1e-9)


# -- agreement with the rules --------------------------------------------------

def random_cards(rules: Rules, count: int, seed: int) -> list[ScoreCard]:
    """Return cards reached by random legal play, Yahtzees made frequent."""
    rng = random.Random(seed)
    cards = []
    for _ in range(count):
        card = ScoreCard(rules)
        turns = rng.randrange(rules.ROUNDS)
        for _ in range(turns):
            if rng.random() < 0.35:
                dice = [rng.randint(1, 6)] * 5
            else:
                dice = [rng.randint(1, 6) for _ in range(5)]
            options = card.options(Dice.of(dice))
            card.choose(rng.choice(options).category, Dice.of(dice))
        cards.append(card)
    return cards


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_solver_transitions_agree_with_the_rules(
        rules: Rules, official: Solution, course: Solution) -> None:
    solution = official if rules is OFFICIAL else course
    model = solution.model
    assert model.special is not None
    strategy = OptimalStrategy(rules, solution)
    rng = random.Random(11)
    special = [int(r) for r in model.special.rolls]
    checked = 0
    for card in random_cards(rules, 150, seed=3 if rules is OFFICIAL else 4):
        flag, mask, upper = strategy.state_of(card)
        rolls = special + rng.sample(range(keeps.NUM_ROLLS), 8)
        for roll in rolls:
            dice = list(keeps.ROLLS[roll])
            expected = {(option_slot(o, model.n_categories), o.box_points, o.bonus_points)
                        for o in card.options(Dice.of(dice))}
            if roll in special:
                s = special.index(roll)
                slots = np.flatnonzero(model.special.allowed[flag, mask, s])
                got = {(int(slot), int(model.special.box_points[flag, mask, s, slot]),
                        int(model.special.bonus_points[flag, mask, s, slot])) for slot in slots}
            else:
                got = {(c, int(model.base[roll, c]), 0) for c in range(model.n_categories)
                       if not mask >> c & 1}
            assert got == expected, (card, dice)
            for slot, box, bonus in expected:
                f2, m2, u2, reward = step(model, np.array(flag), np.array(mask),
                                          np.array(upper), slot, box, bonus)
                after = ScoreCard.restore(rules, card.scores(), card.get_yahtzee_bonus())
                boxes = list(CategoryValue)
                chosen = CategoryValue.YAHTZEE if slot == model.n_categories else boxes[slot]
                after.choose(chosen, Dice.of(dice))
                assert strategy.state_of(after) == (int(f2), int(m2), int(u2))
                assert after.score() - card.score() == int(reward)
                checked += 1
    assert checked > 1000


def test_a_card_s_remembered_state_follows_every_change_of_the_card(official: Solution) -> None:
    strategy = OptimalStrategy(OFFICIAL, official)
    card = ScoreCard(OFFICIAL)
    first = strategy.state_of(card)
    assert first == (0, 0, 0) and strategy.state_of(card) is first  # remembered
    changes = card.changes
    card.choose(CategoryValue.YAHTZEE, Dice.of([4] * 5))
    assert card.changes > changes
    assert strategy.state_of(card) == (1, 1 << 11, 0)  # its Yahtzee box filled with 50
    card.choose(CategoryValue.FOURS, Dice.of([4] * 5))  # a bonus and 20 in Fours
    flag, mask, upper = strategy.state_of(card)
    assert (mask, upper) == (1 << 11 | 1 << 3, 20)
    twin = ScoreCard.restore(OFFICIAL, card.scores(), card.get_yahtzee_bonus())
    assert strategy.state_of(twin) == (flag, mask, upper)  # a new card: worked out afresh
    gone = weakref.ref(twin)
    del twin
    assert gone() is None  # remembering a card's state does not keep the card alive


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_scoring_values_agree_with_the_leaf_table(rules: Rules, official: Solution,
                                                  course: Solution) -> None:
    strategy = OptimalStrategy(rules, official if rules is OFFICIAL else course)
    rng = random.Random(8)
    for card in random_cards(rules, 25, seed=9):
        if card.rounds_used() >= rules.ROUNDS:
            continue
        turn = strategy.turn(card)
        for roll in rng.sample(range(keeps.NUM_ROLLS), 10) + [0, 5]:
            dice = list(keeps.ROLLS[roll])
            values = strategy.category_values(card, dice)
            assert max(values.values()) - card.score() == pytest.approx(turn.leaf[roll, 0],
                                                                        abs=1e-9)
