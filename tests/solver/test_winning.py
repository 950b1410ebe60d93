"""Chances to finish first from players' final-score distributions."""

from __future__ import annotations

from math import erf, sqrt

import numpy as np
import pytest

from yahtzee.solver.winning import Outlook, win_chances


def test_known_totals_decide_and_a_tie_is_shared() -> None:
    assert win_chances([Outlook(120, 0), Outlook(90, 0)]) == [1.0, 0.0]
    assert win_chances([Outlook(90, 0), Outlook(90, 0), Outlook(80, 0)]) == [0.5, 0.5, 0.0]
    assert win_chances([Outlook(250, 900)]) == [1.0]


def test_equal_outlooks_share_evenly() -> None:
    chances = win_chances([Outlook(240.5, 3500.0)] * 3)
    assert chances == pytest.approx([1 / 3] * 3, abs=1e-12)


def test_a_spread_score_against_a_known_one_is_the_normal_tail() -> None:
    """P(A > 200) + half of P(A = 200), A normal(210, 15^2) spread over whole points."""
    chance = win_chances([Outlook(210, 225), Outlook(200, 0)])[0]

    def cdf(x: float) -> float:
        return 0.5 * (1 + erf((x - 210) / (15 * sqrt(2))))
    inside = cdf(210 + 6 * 15 + 0.5) - cdf(210 - 6 * 15 - 0.5)
    expected = (1 - cdf(200.5) - (1 - cdf(210 + 90.5)) + 0.5 * (cdf(200.5) - cdf(199.5))) / inside
    assert chance == pytest.approx(expected, abs=1e-9)


def test_chances_match_sampling_of_the_same_distributions() -> None:
    """Three players' chances agree with a million sampled games of the same whole-point scores."""
    outlooks = [Outlook(230, 50 ** 2), Outlook(250, 30 ** 2), Outlook(240, 0.25)]
    rng = np.random.default_rng(5)
    draws = []
    for o in outlooks:
        low, high = o.span()
        pmf = o.pmf(low, high)
        draws.append(rng.choice(np.arange(low, high + 1), size=1_000_000, p=pmf))
    finals = np.stack(draws)
    best = finals.max(axis=0)
    leaders = finals == best
    shares = (leaders / leaders.sum(axis=0)).mean(axis=1)
    assert win_chances(outlooks) == pytest.approx(list(shares), abs=3e-3)
    assert sum(win_chances(outlooks)) == pytest.approx(1.0, abs=1e-12)


def test_the_coach_gives_win_chances_from_every_card(official: object) -> None:
    """A player 90 points ahead after two turns (of 13) is well ahead; chances sum to 1."""
    from yahtzee.app.session import Solvers
    from yahtzee.domain.category_value import CategoryValue as CV
    from yahtzee.domain.dice import Dice
    from yahtzee.domain.games import yahtzee_variant
    from yahtzee.domain.rules import OFFICIAL
    from yahtzee.domain.score_card import ScoreCard
    coach = Solvers().coach(yahtzee_variant(OFFICIAL), profiles=True)
    fresh = [ScoreCard(OFFICIAL), ScoreCard(OFFICIAL)]
    even = coach.win_chances(fresh, 0)
    assert even == pytest.approx([0.5, 0.5], abs=1e-12)
    ahead, behind = ScoreCard(OFFICIAL), ScoreCard(OFFICIAL)
    ahead.choose(CV.YAHTZEE, Dice.of([6, 6, 6, 6, 6]))
    ahead.choose(CV.LG_STRAIGHT, Dice.of([1, 2, 3, 4, 5]))
    chances = coach.win_chances([ahead, behind], 1)
    assert chances is not None and 0.7 < chances[0] < 0.85 and sum(chances) == pytest.approx(1.0)
    assert coach.win_chances([ahead], 0) is None


def test_calibration_groups_predictions_per_tenth() -> None:
    from yahtzee.solver.calibration import calibration
    pairs = [(0.05, 0.0), (0.05, 1.0), (0.31, 1.0), (0.39, 0.0), (0.39, 0.5), (1.0, 1.0)]
    bins = calibration(pairs)
    assert [(b.low, b.count) for b in bins] == [(0.0, 2), (0.3, 3), (0.9, 1)]
    assert [b.predicted for b in bins] == pytest.approx([0.05, (0.31 + 0.78) / 3, 1.0])
    assert [b.observed for b in bins] == pytest.approx([0.5, 0.5, 1.0])


def test_win_chances_of_seeded_games_are_near_their_outcomes(official: object) -> None:
    """Over 200 seeded games, predictions of about a half, and at the extremes, come true."""
    from yahtzee.app.session import Solvers
    from yahtzee.domain.rules import OFFICIAL
    from yahtzee.solver.calibration import calibration, predictions
    from yahtzee.solver.profiles import Profiler
    from yahtzee.solver.strategy import OptimalStrategy
    setup = Solvers()
    strategy = OptimalStrategy(OFFICIAL, setup.solutions()(OFFICIAL))
    pairs = predictions(OFFICIAL, Profiler(strategy, setup.moments()(OFFICIAL)), strategy,
                        200, seed=3)
    assert len(pairs) == 200 * 2 * 13
    bins = {round(b.low, 1): b for b in calibration(pairs)}
    for low in (0.0, 0.5, 0.9):
        assert abs(bins[low].predicted - bins[low].observed) < 0.08, bins[low]


def test_analyze_charts_each_players_win_chance_round_by_round(
        official: object, data: object, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Round 1 starts even; every round's chances sum to 1; the chart has a column per round."""
    import json
    from tests.helpers import run_cli
    run_cli(["--players", "computer,greedy", "--seed", "3", "--rules", "official"], "",
            monkeypatch, capsys)
    status, out, _ = run_cli(["analyze", "--json"], "", monkeypatch, capsys)
    players = json.loads(out)["players"]
    rows = [p["win_chances"] for p in players]
    assert status == 0 and [len(row) for row in rows] == [13, 13]
    assert rows[0][0] == rows[1][0] == 0.5
    assert all(abs(a + b - 1) < 1e-5 for a, b in zip(*rows))
    text = run_cli(["analyze"], "", monkeypatch, capsys)[1].splitlines()
    chart = text[text.index("Win chances (%) at the start of each round:") + 1:]
    assert chart[0].split() == ["Round", *[str(n) for n in range(1, 14)]]
    assert chart[1].split()[1:] == [str(round(c * 100)) for c in rows[0]]
