"""Playing to win: the turn planner, the last-turn distributions, the chances, the duel.

The planner with the mean at its leaves must be the optimal program itself;
the last turn's distributions must have the tables' mean and second moment;
chances are checked against hand-counted cases; the computer that plays to
win must play alone exactly as optimal play, and against an opponent on its
last turn take the keep whose exact chance (enumerated here) is best.
"""

from __future__ import annotations

import json
import random
import re
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import factorial
from typing import Any, cast

import numpy as np
import pytest

from yahtzee.domain.category_value import CategoryValue as CV
from yahtzee.domain.games import yahtzee_variant
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules
from yahtzee.domain.score_card import ScoreCard
from yahtzee.players.kinds import COMPUTER, EXPECTED, GREEDY
from yahtzee.solver.cache import Solution
from yahtzee.solver.calibration import play_turn
from yahtzee.solver.duel import Contender, duel
from yahtzee.solver.dynamic import (States, level_states, state_index, step, table_specials,
                                    turn_values)
from yahtzee.solver.factory import duel_games, get_strategy
from yahtzee.solver.moments import LastTurn, Moments, leaf_points
from yahtzee.solver.outlook import Field, Outlooks, chance_to_win, normal_cdf
from yahtzee.solver.keeps import keep_number
from yahtzee.solver.play_to_win import (COURSE_LEAN, COURSE_LEAN_SCALE, LEAN, LEAN_SCALE,
                                        POINT_WEIGHT, PlayToWinStrategy, lean_for, lean_of,
                                        mean_worth, outlooks_of, turn_worth)
from yahtzee.solver.strategy import OptimalStrategy
from tests.helpers import message_of, run_cli

RULE_SETS = [OFFICIAL, COURSE]


def solution_of(rules: Rules, official: Solution, course: Solution) -> Solution:
    """Return the session's table of ``rules``."""
    return official if rules is OFFICIAL else course


def sample(states: States, count: int, seed: int) -> States:
    """Return ``count`` of ``states`` picked by a seeded generator."""
    pick = np.random.default_rng(seed).choice(len(states), size=min(count, len(states)),
                                              replace=False)
    return States(states.flag[pick], states.mask[pick], states.upper[pick])


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
@pytest.mark.parametrize("turns", [0, 6, 11, 12])
def test_the_planner_with_means_at_its_leaves_is_the_optimal_program(
        rules: Rules, turns: int, official: Solution, course: Solution) -> None:
    solution = solution_of(rules, official, course)
    model, values = solution.model, solution.values
    states = sample(level_states(model, turns), 150, turns)
    expected = turn_values(model, values, states, table_specials(model, states),
                           want_choice=True)
    outlooks = Outlooks.of(values, np.zeros(model.shape))
    planned = turn_worth(model, states, mean_worth(outlooks))
    assert np.array_equal(planned.leaf, expected.leaf)
    assert np.array_equal(planned.keep2, expected.keep2)
    assert expected.choice is not None and planned.choice is not None
    assert np.array_equal(planned.choice, expected.choice)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_last_turn_distributions_have_the_tables_mean_and_second_moment(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments) -> None:
    solution = solution_of(rules, official, course)
    second = (official_moments if rules is OFFICIAL else course_moments).second.ravel()
    last = LastTurn(solution.model, solution.values)
    eligible = np.flatnonzero(last.row_of >= 0)
    index = np.random.default_rng(5).choice(eligible, size=120, replace=False)
    rows = last.rows(index)
    points = np.arange(last.pmf.shape[1])
    assert np.allclose(last.pmf[rows].sum(axis=1), 1.0, atol=1e-12)
    assert np.allclose(last.pmf[rows] @ points, solution.values.ravel()[index], atol=1e-9)
    assert np.allclose(last.pmf[rows] @ points ** 2, second[index], atol=1e-7)
    assert (last.rows(np.array([0])) == -1).all()  # the empty card has 13 turns left


def test_the_normal_distribution_function_is_accurate_in_the_tails() -> None:
    from math import erfc, sqrt
    z = np.array([-12.0, -6.0, -2.5, -0.3, 0.0, 0.7, 3.0, 9.0])
    exact = np.array([0.5 * erfc(-v / sqrt(2)) for v in z])
    assert np.allclose(normal_cdf(z), exact, rtol=2e-7, atol=1e-16)
    assert normal_cdf(np.array([np.inf, -np.inf])).tolist() == [1.0, 0.0]


@pytest.fixture(scope="module")
def official_outlooks(official: Solution, official_moments: Moments) -> Outlooks:
    """The official rules' outlooks with their last-turn distributions."""
    return outlooks_of(official.model, official.values, official_moments)


def card_with(open_boxes: set[CV], points: int = 0) -> ScoreCard:
    """Return an official card with every box but ``open_boxes`` filled (``points`` in Chance)."""
    scores: list[int | None] = [None if cv in open_boxes else 0 for cv in CV]
    if CV.CHANCE not in open_boxes:
        scores[CV.CHANCE.get_value()] = points
    return ScoreCard.restore(OFFICIAL, scores, 0)


def test_chances_of_known_scores_and_of_a_last_turn_are_counted_exactly(
        official: Solution, official_outlooks: Outlooks) -> None:
    strategy = OptimalStrategy(OFFICIAL, official)
    done = card_with(set(), 20)
    index_done = strategy.expected_final(done)
    assert index_done == 20.0
    finished = np.array([[state_of(strategy, done)]])
    field = Field.of(official_outlooks, np.array([[20.0]]), finished)
    zero = np.zeros(1, dtype=np.int64)
    # Known against known: ahead, tied, behind.
    for points, chance in ((21.0, 1.0), (20.0, 0.5), (19.0, 0.0)):
        got = chance_to_win(np.array([points]), finished[0], zero, field, official_outlooks)
        assert got[0] == chance
    # One turn left (Chance only) against a finished 20: at least 21 wins, exactly 20 ties.
    chance_card = card_with({CV.CHANCE})
    last_state = np.array([state_of(strategy, chance_card)])
    pmf = exact_chance_points()
    wanted = sum(p for s, p in pmf.items() if s > 20) + 0.5 * pmf.get(20, 0.0)
    got = chance_to_win(np.zeros(1), last_state, zero, field, official_outlooks)
    assert got[0] == pytest.approx(wanted, abs=1e-12)


def state_of(strategy: OptimalStrategy, card: ScoreCard) -> int:
    """Return the flat table index of a card's state."""
    flag, mask, upper = strategy.state_of(card)
    return (flag * strategy.model.n_masks + mask) * strategy.model.n_upper + upper


def outcomes(count: int) -> list[tuple[tuple[int, ...], float]]:
    """Return each multiset of ``count`` thrown dice with its chance."""
    result = []
    for faces in combinations_with_replacement(range(1, 7), count):
        ways = factorial(count)
        for face in set(faces):
            ways //= factorial(faces.count(face))
        result.append((faces, ways / 6 ** count))
    return result


def exact_chance_points() -> dict[int, float]:
    """Return the distribution of a last turn with only Chance open, as optimal play scores it.

    A re-rolled die is worth 3.5 with one roll left and 4.25 with two, so
    optimal play keeps 5s and 6s after the first roll and 4s or more after
    the second; every outcome is enumerated.
    """
    @lru_cache(maxsize=None)
    def best(dice: tuple[int, ...], rolls_left: int) -> tuple[tuple[int, float], ...]:
        """Return the distribution of the sum from these dice with ``rolls_left`` re-rolls."""
        kept = tuple(d for d in dice if d >= (5 if rolls_left == 2 else 4))
        if rolls_left == 0 or len(kept) == 5:
            return ((sum(dice), 1.0),)
        out: dict[int, float] = {}
        for faces, chance in outcomes(5 - len(kept)):
            for total, p in best(tuple(sorted(kept + faces)), rolls_left - 1):
                out[total] = out.get(total, 0.0) + p * chance
        return tuple(out.items())

    result: dict[int, float] = {}
    for dice, chance in outcomes(5):
        for total, p in best(dice, 2):
            result[total] = result.get(total, 0.0) + p * chance
    return result


def test_two_equal_players_have_even_chances_and_chances_are_complementary(
        official: Solution, official_outlooks: Outlooks) -> None:
    model = official.model
    states = sample(level_states(model, 4), 40, 1)
    index = (states.flag * model.n_masks + states.mask) * model.n_upper + states.upper
    banked = np.arange(40, dtype=np.float64) * 3
    rng = np.random.default_rng(2)
    other = index[rng.permutation(40)]
    other_banked = banked[rng.permutation(40)]
    columns = np.arange(40)
    mine = chance_to_win(banked, index, columns,
                         Field.of(official_outlooks, other_banked[None], other[None]),
                         official_outlooks)
    theirs = chance_to_win(other_banked, other, columns,
                           Field.of(official_outlooks, banked[None], index[None]),
                           official_outlooks)
    assert np.allclose(mine + theirs, 1.0, atol=1e-12)
    same = chance_to_win(banked, index, columns,
                         Field.of(official_outlooks, banked[None], index[None]),
                         official_outlooks)
    assert np.allclose(same, 0.5)


def test_three_players_chances_sum_to_one(official: Solution,
                                          official_outlooks: Outlooks) -> None:
    model = official.model
    states = sample(level_states(model, 7), 3, 4)
    index = (states.flag * model.n_masks + states.mask) * model.n_upper + states.upper
    banked = np.array([150.0, 120.0, 135.0])
    chances = []
    for i in range(3):
        others = [j for j in range(3) if j != i]
        field = Field.of(official_outlooks, banked[others][:, None], index[others][:, None])
        chances.append(float(chance_to_win(banked[i:i + 1], index[i:i + 1],
                                           np.zeros(1, dtype=np.int64), field,
                                           official_outlooks)[0]))
    assert sum(chances) == pytest.approx(1.0, abs=2e-3)
    assert chances[0] > chances[2] > chances[1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_seat_at_once_gives_each_seat_its_own_chance(
        players: int, official: Solution, official_moments: Moments,
        official_outlooks: Outlooks) -> None:
    strategy = PlayToWinStrategy(OptimalStrategy(OFFICIAL, official), official_moments)
    model = official.model
    rng = np.random.default_rng(players)
    picked = [sample(level_states(model, level), 12, level) for level in (3, 11, 12, 13)]
    states = States(*(np.concatenate([getattr(s, part) for s in picked])
                      for part in ("flag", "mask", "upper")))
    positions = len(states)  # spread outlooks, exact last turns and finished cards mixed
    flat = (states.flag * model.n_masks + states.mask) * model.n_upper + states.upper
    index = np.stack([flat[rng.permutation(positions)] for _ in range(players)])
    banked = rng.integers(100, 260, size=(players, positions)).astype(np.float64)
    banked[1, ::5] = banked[0, ::5]  # some equal scores: a tie is shared
    seat_by_seat = np.empty((players, positions))
    for seat in range(players):
        others = [p for p in range(players) if p != seat]
        field = Field.of(official_outlooks, banked[others], index[others])
        seat_by_seat[seat] = chance_to_win(banked[seat], index[seat], np.arange(positions),
                                           field, official_outlooks)
    if players > 2:
        seat_by_seat /= seat_by_seat.sum(axis=0, keepdims=True)
    together = strategy.chances_at(banked.T.tolist(), index.T.tolist())
    assert np.allclose(np.array(together).T, seat_by_seat, rtol=0, atol=1e-12)
    assert not np.allclose(seat_by_seat[0], seat_by_seat[1], atol=1e-3)


def play_solitaire(strategy: Any, rules: Rules, seed: int) -> int:
    """Return the final score of a solitaire game played by ``strategy`` with seeded dice."""
    rng = random.Random(seed)
    card = ScoreCard(rules)
    facing = getattr(strategy, "facing", None)
    chooser = facing(()) if facing is not None else strategy
    for _ in range(rules.ROUNDS):
        play_turn(chooser, card, rng)
    return card.score()


def test_alone_the_computer_plays_exactly_as_optimal_play(official: Solution,
                                                          official_moments: Moments) -> None:
    variant = yahtzee_variant(OFFICIAL)
    assert COMPUTER.strategy is not None and EXPECTED.strategy is not None
    winner = get_strategy(COMPUTER.strategy, variant, lambda rules: official,
                          lambda rules: official_moments)
    optimal = get_strategy(EXPECTED.strategy, variant, lambda rules: official)
    assert isinstance(winner, PlayToWinStrategy)
    for seed in range(4):
        assert play_solitaire(winner, OFFICIAL, seed) == play_solitaire(optimal, OFFICIAL, seed)


def test_on_its_last_turn_the_computer_takes_the_keep_with_the_best_exact_chance(
        official: Solution, official_moments: Moments) -> None:
    """Only Chance is open, the finished opponent has 27, one roll is left after 6 6 4 1 1.

    Optimal solitaire play keeps 6 6 4 (16 and two dice: the most points);
    to win, the sum must beat 27, and throwing three dice beside 6 6 gives
    the better chance.
    """
    strategy = PlayToWinStrategy(OptimalStrategy(OFFICIAL, official), official_moments)
    mine = card_with({CV.CHANCE})
    theirs = card_with(set(), 27)
    facing = strategy.facing([theirs])
    dice = (6, 6, 4, 1, 1)
    keep = facing.keep(mine, dice, 1)
    optimal_keep = strategy.base.keep(mine, dice, 1)

    def beat(total: int) -> float:
        """Return the share of the win of a sum ``total`` against 27."""
        return 1.0 if total > 27 else 0.5 if total == 27 else 0.0

    @lru_cache(maxsize=None)
    def chance_after(kept: tuple[int, ...], rolls_left: int = 1) -> float:
        """Return the exact best chance to beat 27 after keeping ``kept``."""
        total = 0.0
        for faces, chance in outcomes(5 - len(kept)):
            total += chance * best_from(tuple(sorted(kept + faces)), rolls_left - 1)
        return total

    @lru_cache(maxsize=None)
    def best_from(dice: tuple[int, ...], rolls_left: int) -> float:
        """Return the best chance from these dice with ``rolls_left`` re-rolls."""
        best = beat(sum(dice))
        if rolls_left:
            best = max([best] + [chance_after(k, rolls_left) for k in keeps_of(dice)])
        return best

    assert keep is not None
    chosen = tuple(keep)
    assert optimal_keep is not None
    assert chance_after(tuple(sorted(chosen))) == pytest.approx(
        max(chance_after(k) for k in keeps_of(dice)), abs=1e-12)
    assert sorted(optimal_keep) == [4, 6, 6] and sorted(chosen) == [6, 6]
    assert chance_after(tuple(sorted(chosen))) > chance_after(tuple(sorted(optimal_keep)))
    turn = strategy.turn_against(mine, [theirs])
    worth = float(turn.keep1[keep_number(list(chosen)), 0])
    assert worth == pytest.approx(chance_after(tuple(sorted(chosen))), abs=40 * POINT_WEIGHT)


def test_the_lean_is_largest_on_the_first_turn_and_nothing_on_the_last(
        official: Solution, course: Solution) -> None:
    """Turns left are counted from filled boxes, and under the course rules from bonuses too."""
    full = (1 << 13) - 1
    yahtzee_bit = 1 << CV.YAHTZEE.get_value()
    twelve = full & ~(1 << CV.CHANCE.get_value())
    eleven = twelve & ~(1 << CV.ONES.get_value())
    states = States(np.array([0, 0, 2, 1, 0]), np.array([0, 1, eleven, eleven, twelve]),
                    np.zeros(5, dtype=np.int64))
    assert yahtzee_bit & eleven
    official_weights = lean_of(official.model, states).tolist()
    course_weights = lean_of(course.model, states).tolist()
    assert official_weights[:2] == [LEAN_SCALE, LEAN[11]] == course_weights[:2]
    assert LEAN[11] == pytest.approx(LEAN_SCALE * 11 / 12)
    # eleven boxes filled: one turn after this one, unless a course bonus took a turn
    assert official_weights[2:] == [LEAN[1], LEAN[1], POINT_WEIGHT]
    assert course_weights[2:] == [POINT_WEIGHT, LEAN[1], POINT_WEIGHT]


def test_each_rule_set_leans_by_its_own_fit(official: Solution, course: Solution,
                                            course_moments: Moments) -> None:
    """The course rules lean half as much as the official ones, in the console and in duels."""
    assert lean_for(official.model) == LEAN and lean_for(course.model) == COURSE_LEAN
    assert COURSE_LEAN[12] == COURSE_LEAN_SCALE == 0.004 and LEAN[12] == LEAN_SCALE == 0.008
    assert COURSE_LEAN[0] == 0.0 and COURSE_LEAN[6] == pytest.approx(0.002)
    assert PlayToWinStrategy(OptimalStrategy(COURSE, course), course_moments).lean == COURSE_LEAN
    outlooks = outlooks_of(course.model, course.values, course_moments)
    expected = Contender(course.model, course.values, to_win=False)

    def points(lean: tuple[float, ...] | None) -> list[float]:
        contender = Contender(course.model, course.values, to_win=True, lean=lean)
        return [float(p) for p in duel([contender, expected], outlooks, 120, 6).points]

    default = points(None)
    assert default == points(COURSE_LEAN)
    assert default[1] == points(LEAN)[1] and default[0] != points(LEAN)[0]


def test_ahead_early_the_lean_keeps_the_points_a_bare_chance_gambles_away(
        official: Solution, official_moments: Moments) -> None:
    """129 against 102 after five turns each; 4 3 3 6 5 with two rolls left.

    By the bare chance to win, 3 4 5 (a large straight) is a little better
    than 3 3 (0.6704 against 0.6691); 3 3 is worth 1.4 expected points
    more, and leaning toward points keeps it, as optimal solitaire play does.
    """
    base = OptimalStrategy(OFFICIAL, official)
    bare = PlayToWinStrategy(base, official_moments, (0.0,) * 13)
    leaning = PlayToWinStrategy(base, official_moments)
    mine = ScoreCard.restore(OFFICIAL, [2, None, None, None, None, None, None, None, 25, 30,
                                        None, 50, 22], 0)
    theirs = ScoreCard.restore(OFFICIAL, [None, None, None, 12, 15, None, 26, 24, None, None,
                                          None, None, 25], 0)
    dice = (4, 3, 3, 6, 5)
    assert bare.facing([theirs]).keep(mine, dice, 2) == (3, 4, 5)
    assert leaning.facing([theirs]).keep(mine, dice, 2) == (3, 3) == base.keep(mine, dice, 2)
    chances = bare.turn_against(mine, [theirs]).keep2
    assert chances[keep_number([3, 4, 5]), 0] == pytest.approx(0.67038, abs=1e-5)
    assert chances[keep_number([3, 3]), 0] == pytest.approx(0.66914, abs=1e-5)


def test_the_coach_reads_bare_chances_whatever_the_computer_leans(
        official: Solution, official_moments: Moments) -> None:
    """A keep's chance against a final total is the same with and without the lean."""
    base = OptimalStrategy(OFFICIAL, official)
    bare = PlayToWinStrategy(base, official_moments, (0.0,) * 13)
    leaning = PlayToWinStrategy(base, official_moments, (0.05,) * 13)
    mine = ScoreCard.restore(OFFICIAL, [2, None, None, None, None, None, None, None, 25, 30,
                                        None, 50, 22], 0)
    dice = (4, 3, 3, 6, 5)
    assert leaning.keep_chances(mine, dice, 2, 230.0) == bare.keep_chances(mine, dice, 2, 230.0)
    assert leaning.turn_against(mine, [], (230.0,)).keep2[keep_number([3, 3]), 0] > 1.0


def keeps_of(dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Return every sub-multiset of the dice except all five."""
    return {tuple(sorted(d for d, m in zip(dice, mask) if m))
            for mask in product((0, 1), repeat=5) if sum(mask) < 5}


def test_a_duel_is_reproducible_and_counts_every_game(official: Solution,
                                                      official_moments: Moments) -> None:
    variant = yahtzee_variant(OFFICIAL)
    strategies = [COMPUTER.strategy or "", EXPECTED.strategy or "", GREEDY.strategy or ""]

    def run() -> tuple[list[float], list[float]]:
        tally = duel_games(strategies, variant, 60, 11, lambda rules: official,
                           lambda rules: official_moments)
        return tally.wins.tolist(), tally.points.tolist()

    first = run()
    assert first == run()
    wins, _ = first
    assert sum(wins) == pytest.approx(60)
    assert wins[2] < wins[0] and wins[2] < wins[1]


def test_seats_rotate_so_equal_players_share_the_wins(official: Solution,
                                                      official_moments: Moments) -> None:
    """Two copies of the same player, 400 games: each wins its share within the noise."""
    outlooks = outlooks_of(official.model, official.values, official_moments)
    same = Contender(official.model, official.values, to_win=False)
    tally = duel([same, same], outlooks, 400, 3)
    assert tally.games == 400
    assert abs(float(tally.wins[0]) - 200) < 40
    bins = tally.calibration()
    assert sum(b.count for b in bins) == 400 * 26
    assert all(0 <= b.predicted <= 1 and 0 <= b.observed <= 1 for b in bins)


def test_the_duel_command_answers_in_json_and_refuses_people(
        official: Solution, official_moments: Moments, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["duel", "--players", "computer,greedy", "--games", "30", "--seed", "4",
            "--rules", "official", "--json"]
    status, out, _ = run_cli(argv, "", monkeypatch, capsys)
    assert status == 0
    report = json.loads(out)
    assert report["rules"] == "official" and report["players"] == ["computer", "greedy"]
    assert report["seed"] == 4
    assert report["games"] == 30 and sum(report["wins"]) == pytest.approx(30)
    assert report["win_rate"][0] == pytest.approx(report["wins"][0] / 30, abs=1e-6)
    assert report["wins"][0] > report["wins"][1]
    assert sum(b["count"] for b in report["calibration"]) == 30 * 26
    again = json.loads(run_cli(argv, "", monkeypatch, capsys)[1])
    assert {k: v for k, v in again.items() if k != "seconds"} == {
        k: v for k, v in report.items() if k != "seconds"}
    for players, message in (("human,computer", "a duel is played by computers only"),
                             ("computer", "a duel needs 2 to 6 players")):
        with pytest.raises(SystemExit) as stopped:
            run_cli(["duel", "--players", players], "", monkeypatch, capsys)
        assert stopped.value.code == 2 and message in message_of(capsys.readouterr().err)


def test_a_duel_without_a_seed_tells_the_seed_that_plays_it_again(
        official: Solution, official_moments: Moments, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """As ``simulate`` does: the drawn seed is in the first line and in the JSON's ``seed``."""
    unseeded = ["duel", "--players", "computer,greedy", "--games", "12", "--rules", "official"]
    status, out, err = run_cli(unseeded, "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    header = re.fullmatch(r"12 games under official rules, seats rotating, seed (\d+), "
                          r"in \d+\.\d\d s \(\d+ games/s\)", out.splitlines()[0])
    assert header is not None, out.splitlines()[0]
    _, again, _ = run_cli([*unseeded, "--seed", header.group(1)], "", monkeypatch, capsys)
    assert again.splitlines()[0].startswith(f"12 games under official rules, seats rotating, "
                                            f"seed {header.group(1)}, in ")
    assert again.splitlines()[1:] == out.splitlines()[1:]
    _, report, _ = run_cli([*unseeded, "--json"], "", monkeypatch, capsys)
    figures = json.loads(report)
    assert isinstance(figures["seed"], int)
    _, repeated, _ = run_cli([*unseeded, "--json", "--seed", str(figures["seed"])], "",
                             monkeypatch, capsys)
    assert {k: v for k, v in figures.items() if k != "seconds"} == {
        k: v for k, v in json.loads(repeated).items() if k != "seconds"}


def test_the_duel_tells_apart_two_computers_of_one_kind(
        official: Solution, official_moments: Moments, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["duel", "--players", "computer,computer,greedy", "--games", "6", "--seed", "1",
            "--rules", "official"]
    status, out, _ = run_cli(argv, "", monkeypatch, capsys)
    assert status == 0
    named = [line.split("  won ")[0].strip() for line in out.splitlines() if "  won " in line]
    assert named == ["computer 1", "computer 2", "greedy"]
    report = json.loads(run_cli([*argv, "--json"], "", monkeypatch, capsys)[1])
    assert report["players"] == ["computer", "computer", "greedy"]  # kinds, by seat, as before


@pytest.mark.parametrize("players", [2, 3])
def test_a_turns_ends_are_each_final_rolls_chances_worked_out_in_one_batch(
        players: int, official: Solution, official_moments: Moments) -> None:
    strategy = PlayToWinStrategy(OptimalStrategy(OFFICIAL, official), official_moments)
    model = official.model
    rng = np.random.default_rng(players)
    for level in (3, 11, 12):  # spread outlooks, then exact ones with two turns and one left
        states = sample(level_states(model, level), players, level)
        index = (states.flag * model.n_masks + states.mask) * model.n_upper + states.upper
        banked = rng.integers(40, 200, size=players).astype(np.float64)
        seat = players - 1
        turn = strategy._optimal_turn_of(int(states.flag[seat]), int(states.mask[seat]),
                                         int(states.upper[seat]))
        assert turn.choice is not None
        one = States(states.flag[seat:], states.mask[seat:], states.upper[seat:])
        slots, box, bonus = leaf_points(model, one, turn.choice)
        flag, mask, upper, reward = step(model, one.flag[None], one.mask[None],
                                         one.upper[None], slots, box, bonus)
        points = np.repeat(banked[None, :], 252, axis=0)
        where = np.repeat(index[None, :], 252, axis=0)
        points[:, seat] += reward[:, 0]
        where[:, seat] = state_index(model, flag, mask, upper)[:, 0]
        every_roll = np.array(strategy.chances_at(points.tolist(), where.tolist()))
        ends = strategy._ends(seat, tuple(banked.tolist()), tuple(index.tolist()))
        assert len(np.unique(where[:, seat] * 1000 + reward[:, 0])) < 252  # rolls share ends
        assert np.array_equal(ends.leaf, every_roll)  # the same floats, to the last bit


def test_strategies_on_one_table_share_its_exact_rows_which_any_batching_gives_alike(
        official: Solution, official_moments: Moments) -> None:
    first = PlayToWinStrategy(OptimalStrategy(OFFICIAL, official), official_moments)
    second = PlayToWinStrategy(OptimalStrategy(OFFICIAL, official), official_moments)
    assert first.outlooks.last is not None and first.outlooks.last is second.outlooks.last
    model = official.model
    picked = [sample(level_states(model, level), 12, level) for level in (11, 12)]
    index = np.concatenate([(s.flag * model.n_masks + s.mask) * model.n_upper + s.upper
                            for s in picked])
    together, alone = LastTurn(model, official.values, 2), LastTurn(model, official.values, 2)
    together.rows(index)
    for at in reversed(range(len(index))):  # one state at a time, the other way round
        alone.rows(index[at:at + 1])
    for name in ("pmf", "cdf", "width", "points", "chances", "size"):
        assert np.array_equal(getattr(together, name), getattr(alone, name))
    assert together.size[together.rows(index)].min() > 1  # rows worked out, not left empty


def test_the_duels_99_percent_intervals_stay_within_0_and_1_and_have_a_width() -> None:
    """Wilson's interval: a few games all won (or none) give an interval inside 0 to 100%
    with a width; half of 100 games won gives 37.5% to 62.5%."""
    from types import SimpleNamespace

    from yahtzee.interfaces.commands import _win_rates
    few = cast(Any, SimpleNamespace(games=3, wins=[3.0, 0.0]))
    rates, ((low_all, high_all), (low_none, high_none)) = _win_rates(few)
    assert rates == [1.0, 0.0]
    assert 0 < low_all < high_all == pytest.approx(1.0) and high_all <= 1
    assert 0 == low_none < high_none < 1 and high_none == pytest.approx(1 - low_all)
    half = cast(Any, SimpleNamespace(games=100, wins=[50.0, 50.0]))
    _, intervals = _win_rates(half)
    assert intervals[0] == pytest.approx((0.3753, 0.6247), abs=1e-4)
