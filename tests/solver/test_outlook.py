"""The one outlook of every win chance: its cumulants, its shape, and who reads it.

The coach's chances, the computer's own and the duel's predictions must be
the same numbers for the same cards, since they come from one place.
"""

from __future__ import annotations

import random
from math import erfc, sqrt

import numpy as np
import pytest

from yahtzee.app.session import Solvers
from yahtzee.domain.dice import Dice
from yahtzee.domain.games import yahtzee_variant
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules
from yahtzee.domain.score_card import ScoreCard
from yahtzee.players.kinds import COMPUTER
from yahtzee.solver.cache import Solution
from yahtzee.solver.calibration import play_turn
from yahtzee.solver.dynamic import state_index
from yahtzee.solver.factory import get_strategy
from yahtzee.solver.moments import LastTurn, Moments
from yahtzee.solver.outlook import Field, chance_to_win, shaped_cdf
from yahtzee.solver.play_to_win import PlayToWinStrategy, outlooks_of
from yahtzee.solver.strategy import OptimalStrategy

RULE_SETS = (OFFICIAL, COURSE)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_the_cumulants_of_a_last_turn_are_those_of_its_exact_distribution(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments) -> None:
    solution = official if rules is OFFICIAL else course
    moments = official_moments if rules is OFFICIAL else course_moments
    assert moments.shape is not None
    last = LastTurn(solution.model, solution.values)
    index = np.random.default_rng(8).choice(np.flatnonzero(last.row_of >= 0), size=100,
                                            replace=False)
    pmf = last.pmf[last.rows(index)]
    points = np.arange(pmf.shape[1])[None, :] - solution.values.ravel()[index][:, None]
    variance = (pmf * points ** 2).sum(axis=1)
    third = (pmf * points ** 3).sum(axis=1)
    fourth = (pmf * points ** 4).sum(axis=1) - 3 * variance ** 2
    assert np.allclose(moments.shape.third.ravel()[index], third, rtol=1e-5, atol=1e-2)
    assert np.allclose(moments.shape.fourth.ravel()[index], fourth, rtol=1e-5, atol=1.0)


def test_the_shape_of_a_whole_game_has_the_long_right_tail(
        official: Solution, official_moments: Moments) -> None:
    """From the empty card: skewness about 1.59, excess kurtosis about 4.6 (official rules)."""
    assert official_moments.shape is not None
    variance = official_moments.second.ravel()[0] - official.values.ravel()[0] ** 2
    skew = float(official_moments.shape.third.ravel()[0]) / variance ** 1.5
    excess = float(official_moments.shape.fourth.ravel()[0]) / variance ** 2
    assert skew == pytest.approx(1.588, abs=1e-3)
    assert excess == pytest.approx(4.608, abs=1e-3)


def test_with_no_higher_cumulants_the_outlook_is_normal_and_a_known_score_a_step() -> None:
    x = np.array([150.0, 230.0, 250.0, 262.0, 400.0])
    zero = np.zeros(1)
    normal = [0.5 * erfc(-(v - 250.0) / (50.0 * sqrt(2))) for v in x]
    assert np.allclose(shaped_cdf(x, np.full(1, 250.0), np.full(1, 2500.0), zero, zero), normal,
                       rtol=2e-7)
    assert shaped_cdf(x, np.full(1, 250.0), zero, zero, zero).tolist() == [0, 0, 0.5, 1, 1]


@pytest.mark.parametrize("skew, excess", [(0.0, 2.0), (1.6, 4.6), (-3.0, 9.0), (0.4, -1.0)])
def test_the_shaped_distribution_never_falls_and_spans_zero_to_one(skew: float,
                                                                   excess: float) -> None:
    """Even cumulants far outside what the expansion can follow give a distribution."""
    x = np.linspace(-600.0, 600.0, 4001)
    sd = 50.0
    cdf = shaped_cdf(x, np.zeros(1), np.full(1, sd * sd), np.full(1, skew * sd ** 3),
                     np.full(1, excess * sd ** 4))
    assert (np.diff(cdf) >= 0).all()
    assert cdf[0] == pytest.approx(0.0, abs=1e-12) and cdf[-1] == pytest.approx(1.0, abs=1e-12)


def test_the_skew_tilts_a_tail_the_excess_kurtosis_thins_the_shoulders() -> None:
    """A right-skewed score is less often far below its mean; a heavy-tailed one less often
    one spread away than a normal score."""
    one = np.ones(1)
    normal = float(shaped_cdf(-1.5 * one, 0 * one, one, 0 * one, 0 * one)[0])
    skewed = float(shaped_cdf(-1.5 * one, 0 * one, one, 0.5 * one, 0 * one)[0])
    heavy = float(shaped_cdf(-1.0 * one, 0 * one, one, 0 * one, 2.0 * one)[0])
    assert skewed < normal
    assert heavy < float(shaped_cdf(-1.0 * one, 0 * one, one, 0 * one, 0 * one)[0])


def cards_in_play(rules: Rules, solution: Solution, players: int, rounds: int,
                  seed: int) -> list[ScoreCard]:
    """Return the cards of ``players`` optimal players after ``rounds`` seeded rounds."""
    strategy = OptimalStrategy(rules, solution)
    rng = random.Random(seed)
    cards = [ScoreCard(rules) for _ in range(players)]
    for _ in range(rounds):
        for card in cards:
            play_turn(strategy, card, rng)
    return cards


@pytest.mark.parametrize("rounds", [0, 5, 11, 12])
def test_the_coach_the_computer_and_the_duel_give_the_same_chances(
        rounds: int, official: Solution, official_moments: Moments) -> None:
    """Exactly equal for the same cards, between turns, one or two turns left or more."""
    cards = cards_in_play(OFFICIAL, official, 2, rounds, seed=rounds + 1)
    variant = yahtzee_variant(OFFICIAL)
    setup = Solvers()
    coach = setup.coach(variant, profiles=True)
    assert COMPUTER.strategy is not None
    computer = get_strategy(COMPUTER.strategy, variant, setup.solutions(), setup.moments())
    assert isinstance(computer, PlayToWinStrategy)
    outlooks = outlooks_of(official.model, official.values, official_moments)
    model = official.model
    index = np.array([int(state_index(model, *map(np.array, OptimalStrategy(
        OFFICIAL, official).state_key(card)))) for card in cards])
    banked = np.array([float(card.score()) for card in cards])
    duel = [float(chance_to_win(banked[[seat]], index[[seat]], np.zeros(1, dtype=np.int64),
                                Field.of(outlooks, banked[[1 - seat]][:, None],
                                         index[[1 - seat]][:, None]), outlooks)[0])
            for seat in (0, 1)]
    from_coach = coach.win_chances(cards, 0)
    assert from_coach is not None
    assert from_coach == computer.chances(cards) == duel
    assert sum(from_coach) == pytest.approx(1.0, abs=1e-6)
    if rounds < 11:
        assert 0.0 < from_coach[0] < 1.0
    else:  # exact with two turns left: a lead more than two turns can make up is decided
        assert 0.0 <= from_coach[0] <= 1.0


def test_in_the_middle_of_a_turn_the_chances_follow_the_move(official: Solution,
                                                             official_moments: Moments) -> None:
    """Scoring now is the chances after optimal play's box; a keep's lie between its ends."""
    cards = cards_in_play(OFFICIAL, official, 3, 7, seed=4)
    strategy = OptimalStrategy(OFFICIAL, official)
    winner = PlayToWinStrategy(strategy, official_moments)
    dice = (6, 6, 6, 2, 1)
    box = strategy.category(cards[1], list(dice))
    now = winner.chances_after(cards, 1, dice, 2, kept=dice)
    assert now == winner.chances_after(cards, 1, dice, 0, box=box.number)
    after = ScoreCard.restore(OFFICIAL, cards[1].scores(), cards[1].get_yahtzee_bonus())
    after.choose_number(box.number, Dice.of(list(dice)))
    assert now == pytest.approx(winner.chances([cards[0], after, cards[2]]), abs=1e-12)
    other = next(move[0] for move in strategy.box_moves(cards[1], dice)
                 if move[0].number != box.number)  # a box optimal play does not take
    elsewhere = ScoreCard.restore(OFFICIAL, cards[1].scores(), cards[1].get_yahtzee_bonus())
    elsewhere.choose_number(other.number, Dice.of(list(dice)))
    moved = winner.chances_after(cards, 1, dice, 0, box=other.number)
    assert moved == pytest.approx(winner.chances([cards[0], elsewhere, cards[2]]), abs=1e-12)
    assert moved != now
    for rolls_left in (1, 2):
        keep = winner.chances_after(cards, 1, dice, rolls_left, kept=(6, 6, 6))
        assert sum(keep) == pytest.approx(1.0, abs=1e-3)
        assert all(0.0 < chance < 1.0 for chance in keep)
    assert winner.chances_after(cards, 1, dice, 1, kept=(6, 6, 6)) != now
