"""Moments of optimal play and outcome profiles, checked against brute-force last turns.

For a card with one box left, the last turn's points are enumerated exactly:
every roll with its chance, the strategy's own keep at each roll, and the box
scored at the end; with two boxes left, each end of the first turn so
enumerated is followed by its last turn.  The tables' mean, second moment and goal chances must be
those numbers; profiles must agree with the strategy's expected scores.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable, Hashable, Iterator
from itertools import combinations_with_replacement
from pathlib import Path
from typing import TypeVar
from math import factorial

import numpy as np
import pytest

from yahtzee.domain.category_value import CategoryValue as CV
from yahtzee.domain.dice import Dice
from yahtzee.domain.games import POKER_DICE
from yahtzee.domain.rules import OFFICIAL
from yahtzee.domain.score_card import ScoreCard
from yahtzee.solver import accel
from yahtzee.solver.cache import Solution
from yahtzee.solver.events import BuildStarted, SolverEvent
from yahtzee.solver.dynamic import States, level_states, state_index, table_specials, turn_values
from yahtzee.solver.keeps import ROLL_PROBABILITY, expected_over_keeps
from yahtzee.solver.moments import (LastTurn, Moments, at_chosen_keeps, chosen_keeps,
                                    final_roll_chances, solve_moments, solve_shape)
from yahtzee.solver.poker import PokerStrategy, poker_moments, poker_solution
from yahtzee.solver.profiles import Profiler
from yahtzee.solver.strategy import OptimalStrategy
from yahtzee.storage.solver_files import SolverFiles


def outcomes(count: int) -> Iterator[tuple[tuple[int, ...], float]]:
    """Yield each multiset of ``count`` thrown dice with its chance."""
    for faces in combinations_with_replacement(range(1, 7), count):
        ways = factorial(count)
        for face in set(faces):
            ways //= factorial(faces.count(face))
        yield faces, ways / 6 ** count


End = TypeVar("End", bound=Hashable)
"""What a turn's end is counted by (points, and what else a test follows)."""


def turn_outcomes(strategy: OptimalStrategy, card: ScoreCard,
                  scored: Callable[[tuple[int, ...]], End]) -> dict[End, float]:
    """Return the exact distribution of ``scored(final dice)`` over one turn played by
    ``strategy`` from ``card``, every roll enumerated."""
    memo: dict[tuple[tuple[int, ...], int], dict[End, float]] = {}

    def position(dice: tuple[int, ...], rolls_left: int) -> dict[End, float]:
        """Return the distribution from these dice with ``rolls_left`` re-rolls."""
        key = (tuple(sorted(dice)), rolls_left)
        if key not in memo:
            keep = strategy.keep(card, dice, rolls_left) if rolls_left else None
            result: dict[End, float] = {}
            if keep is None:
                result[scored(dice)] = 1.0
            else:
                for thrown, chance in outcomes(5 - len(keep)):
                    for end, p in position(tuple(keep) + thrown, rolls_left - 1).items():
                        result[end] = result.get(end, 0.0) + chance * p
            memo[key] = result
        return memo[key]

    total: dict[End, float] = {}
    for dice, chance in outcomes(5):
        for end, p in position(dice, 2).items():
            total[end] = total.get(end, 0.0) + chance * p
    return total


def last_turn(strategy: OptimalStrategy, card: ScoreCard) -> dict[tuple[int, bool, bool], float]:
    """Return the exact distribution of (points added, upper bonus at end, Yahtzee 50 at end)."""
    def scored(dice: tuple[int, ...]) -> tuple[int, bool, bool]:
        """Return what scoring the dice as the strategy does leaves on a copy of the card."""
        copy = ScoreCard.restore(OFFICIAL, card.scores(), card.get_yahtzee_bonus())
        box = strategy.category(copy, dice)
        copy.choose(box, Dice.of(dice))
        return (copy.score() - card.score(), copy.score_top() > copy.upper_subtotal(),
                copy.get_category_score(CV.YAHTZEE) == 50)

    return turn_outcomes(strategy, card, scored)


@pytest.mark.parametrize("open_box, scores", [
    (CV.CHANCE, {}),
    (CV.SIXES, {CV.ONES: 3, CV.TWOS: 6, CV.THREES: 9, CV.FOURS: 12, CV.FIVES: 15}),
    (CV.YAHTZEE, {}),
], ids=["chance", "sixes-for-the-bonus", "yahtzee"])
def test_a_last_turn_matches_its_exact_enumeration(
        official: Solution, official_moments: Moments, open_box: CV,
        scores: dict[CV, int]) -> None:
    card_scores: list[int | None] = [0] * 13
    card_scores[CV.CHANCE.get_value()] = 5
    for cv, points in scores.items():
        card_scores[cv.get_value()] = points
    card_scores[open_box.get_value()] = None
    card = ScoreCard.restore(OFFICIAL, card_scores, 0)
    strategy = OptimalStrategy(OFFICIAL, official)
    exact = last_turn(strategy, card)
    mean = sum(points * p for (points, _, _), p in exact.items())
    second = sum(points * points * p for (points, _, _), p in exact.items())
    bonus = sum(p for (_, b, _), p in exact.items() if b)
    yahtzee = sum(p for (_, _, y), p in exact.items() if y)
    profile = Profiler(strategy, official_moments).between_turns(card)
    assert profile.mean - card.score() == pytest.approx(mean, abs=1e-9)
    assert profile.sd == pytest.approx(math.sqrt(second - mean * mean), abs=1e-9)
    assert profile.bonus == pytest.approx(bonus, abs=1e-12)
    assert profile.yahtzee == pytest.approx(yahtzee, abs=1e-12)
    assert 0 < profile.sd


def test_optimal_play_from_an_empty_card(official: Solution, official_moments: Moments) -> None:
    """The known figures of optimal solitaire play: mean 254.59, deviation about 59.6."""
    profile = Profiler(OptimalStrategy(OFFICIAL, official), official_moments).between_turns(
        ScoreCard(OFFICIAL))
    assert round(profile.mean, 4) == 254.5877
    assert round(profile.sd, 1) == 59.6
    assert profile.bonus is not None and 0.6 < profile.bonus < 0.75
    assert profile.yahtzee is not None and 0.3 < profile.yahtzee < 0.4


def test_profiles_agree_with_the_strategys_values(official: Solution,
                                                  official_moments: Moments) -> None:
    strategy = OptimalStrategy(OFFICIAL, official)
    profiler = Profiler(strategy, official_moments)
    card = ScoreCard(OFFICIAL)
    card.choose(CV.FIVES, Dice.of([5, 5, 5, 2, 1]))
    for dice in ([5, 5, 2, 1, 6], [3, 3, 3, 3, 3], [1, 2, 3, 4, 6]):
        for rolls_left in (1, 2):
            keeps = profiler.keeps(card, dice, rolls_left)
            assert {k: p.mean for k, p in keeps.items()} == pytest.approx(
                strategy.keep_values(card, dice, rolls_left), abs=1e-9)
        boxes = profiler.boxes(card, dice)
        assert {b: p.mean for b, p in boxes.items()} == pytest.approx(
            strategy.category_values(card, dice), abs=1e-9)
        best = max(boxes.values(), key=lambda p: p.mean)
        now = keeps[tuple(sorted(dice))]
        assert (now.mean, now.sd, now.bonus, now.yahtzee) == pytest.approx(
            (best.mean, best.sd, best.bonus, best.yahtzee), abs=1e-9)


def test_poker_dice_profiles_have_no_goals() -> None:
    profiler = Profiler(PokerStrategy(optimal=True), poker_moments(), goals=False)
    profile = profiler.between_turns(POKER_DICE.new_card())
    assert round(profile.mean, 4) == 463.7403
    assert profile.bonus is None and profile.yahtzee is None and profile.sd > 0


def test_stored_moments_read_back_and_damaged_ones_are_refused(
        course: Solution, course_moments: Moments, solver_cache: Path) -> None:
    from yahtzee.domain.rules import COURSE
    from yahtzee.solver.cache import DamagedTableError, decode_moments, moments_name
    data = (solver_cache / moments_name(COURSE)).read_bytes()
    again = decode_moments(COURSE, course.model, data)
    assert all((a == b).all() for a, b in zip(again.tables(), course_moments.tables()))
    with pytest.raises(DamagedTableError):
        decode_moments(COURSE, course.model, data[:-8])
    with pytest.raises(DamagedTableError):
        decode_moments(OFFICIAL, course.model, data)


def test_moments_with_their_shape_in_one_pass_are_the_two_passes_with_numpy_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accel, "PLAN", None)
    model, values = poker_solution()
    both = solve_moments(model, values, with_shape=True)
    apart = solve_moments(model, values)
    shape = solve_shape(model, values, apart.second)
    assert both.shape is not None and apart.shape is None
    assert all(np.array_equal(a, b) for a, b in zip(both.tables(), apart.tables()))
    assert all(np.array_equal(a, b) for a, b in zip(both.shape.tables(), shape.tables()))
    assert float(both.shape.third[0, 0, 0]) != 0.0


def test_stored_moments_get_their_shape_built_alone_and_stored(
        course: Solution, course_moments: Moments, solver_cache: Path, tmp_path: Path) -> None:
    from yahtzee.domain.rules import COURSE
    from yahtzee.solver.cache import load_or_build_moments, moments_name, shape_name
    assert (solver_cache / shape_name(COURSE)).is_file()  # built with the moments
    shutil.copy(solver_cache / moments_name(COURSE), tmp_path / moments_name(COURSE))
    events: list[SolverEvent] = []
    loaded = load_or_build_moments(COURSE, course, SolverFiles(tmp_path), events.append)
    assert events[0] == BuildStarted("course", shape=True) and len(events) == 15
    assert (tmp_path / shape_name(COURSE)).is_file()
    assert loaded.shape is not None and course_moments.shape is not None
    assert all(np.array_equal(a, b)
               for a, b in zip(loaded.shape.tables(), course_moments.shape.tables()))


Boxes = tuple[tuple[int | None, ...], int]
"""A card's boxes (None: open) and its Yahtzee bonuses."""


def turn_ends(strategy: OptimalStrategy, card: ScoreCard) -> dict[tuple[int, Boxes], float]:
    """Return the exact distribution of (points added, the card's boxes after) over one turn."""
    def scored(dice: tuple[int, ...]) -> tuple[int, Boxes]:
        """Return the points and boxes after scoring the dice as the strategy does."""
        copy = ScoreCard.restore(OFFICIAL, card.scores(), card.get_yahtzee_bonus())
        copy.choose(strategy.category(copy, dice), Dice.of(dice))
        return copy.score() - card.score(), (tuple(copy.scores()), copy.get_yahtzee_bonus())

    return turn_outcomes(strategy, card, scored)


@pytest.mark.parametrize("open_boxes, scores", [
    ((CV.YAHTZEE, CV.LG_STRAIGHT), {}),
    ((CV.SIXES, CV.FULL_HOUSE), {CV.ONES: 3, CV.TWOS: 6, CV.THREES: 9, CV.FOURS: 12,
                                 CV.FIVES: 15}),
], ids=["yahtzee-and-large-straight", "sixes-for-the-bonus-and-full-house"])
def test_two_last_turns_are_the_first_turns_ends_each_followed_by_its_exact_last_turn(
        official: Solution, official_moments: Moments, open_boxes: tuple[CV, CV],
        scores: dict[CV, int]) -> None:
    card_scores: list[int | None] = [0] * 13
    card_scores[CV.CHANCE.get_value()] = 5
    for cv, points in scores.items():
        card_scores[cv.get_value()] = points
    for cv in open_boxes:
        card_scores[cv.get_value()] = None
    card = ScoreCard.restore(OFFICIAL, card_scores, 0)
    strategy = OptimalStrategy(OFFICIAL, official)
    brute: dict[int, float] = {}
    for (first, (boxes, bonus)), p in turn_ends(strategy, card).items():
        after = ScoreCard.restore(OFFICIAL, list(boxes), bonus)
        for (second, _, _), q in last_turn(strategy, after).items():
            brute[first + second] = brute.get(first + second, 0.0) + p * q
    last = LastTurn(official.model, official.values, turns=2)
    flag, mask, upper = strategy.state_key(card)
    row = int(last.rows(np.array([state_index(official.model, np.array(flag), np.array(mask),
                                              np.array(upper))]))[0])
    assert row >= last.ones  # a row of the two-turn level
    pmf = last.pmf[row]
    assert sorted(np.flatnonzero(pmf).tolist()) == sorted(brute)
    for points, chance in brute.items():
        assert pmf[points] == pytest.approx(chance, abs=1e-13)
    assert last.size[row] == len(brute)
    assert last.cdf[row, -1] == pytest.approx(1.0, abs=1e-13)
    assert pmf @ np.arange(len(pmf)) == pytest.approx(strategy.expected_final(card)
                                                      - card.score(), abs=1e-9)


@pytest.mark.parametrize("rules_name", ["official", "course"])
def test_two_turn_distributions_have_the_tables_mean_and_second_moment(
        rules_name: str, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments) -> None:
    solution, moments = ((official, official_moments) if rules_name == "official"
                         else (course, course_moments))
    model = solution.model
    last = LastTurn(model, solution.values, turns=2)
    states = level_states(model, model.rounds - 2)
    pick = np.random.default_rng(11).choice(len(states), size=40, replace=False)
    index = state_index(model, states.flag[pick], states.mask[pick], states.upper[pick])
    rows = last.rows(index)
    assert (rows >= last.ones).all()
    pmf = last.pmf[rows]
    points = np.arange(pmf.shape[1])
    assert np.allclose(pmf.sum(axis=1), 1.0, atol=1e-12)
    assert np.allclose(pmf @ points, solution.values.ravel()[index], atol=1e-9)
    assert np.allclose(pmf @ points ** 2, moments.second.ravel()[index], atol=1e-6)
    assert (last.rows(np.array([0])) == -1).all()  # the empty card: 13 turns left


def test_final_roll_chances_follow_optimal_keeps_forward_as_a_backward_pass_does(
        official: Solution) -> None:
    model = official.model
    states = level_states(model, 7)
    states = States(states.flag[:5], states.mask[:5], states.upper[:5])
    turn = turn_values(model, official.values, states, table_specials(model, states))
    forward = final_roll_chances(turn)
    assert np.allclose(forward.sum(axis=0), 1.0, atol=1e-13)
    one_hot = np.repeat(np.eye(252)[:, :, None], len(states), axis=2)  # (roll, which, state)
    one_left = expected_over_keeps(one_hot.reshape(252, -1)).reshape(-1, 252, len(states))
    after_second = at_chosen_keeps(turn.keep1, one_left).reshape(252, -1)
    two_left = expected_over_keeps(after_second).reshape(-1, 252, len(states))
    backward = np.tensordot(ROLL_PROBABILITY, at_chosen_keeps(turn.keep2, two_left), axes=1)
    assert np.allclose(forward, backward, atol=1e-15)


@pytest.mark.parametrize("states", [1, 2, 4])
def test_a_few_states_choose_their_keeps_as_a_wide_batch_does(states: int) -> None:
    rng = np.random.default_rng(states)
    means = rng.integers(0, 4, size=(462, states)).astype(np.float64)
    means += rng.random(means.shape) * 5e-10  # many keeps level within the tie width
    wide = np.hstack([means, rng.random((462, 8))])  # more states: compared in a loop
    few = chosen_keeps(means)
    assert few.dtype == np.int64
    assert np.array_equal(few, chosen_keeps(wide)[:, :states])
    assert (few != np.arange(210, 462)[:, None]).any()  # not every roll kept whole
