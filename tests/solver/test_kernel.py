"""The compiled kernel against numpy: the same tables, turn values, choices and games.

The session's tables (``official``, ``course``) are built the way the program
builds them: with the kernel where it was compiled.  Here each is built again
with numpy alone (``accel.PLAN`` set to None) and compared; the turn values of
single states and of batches, the choices and whole simulated games are
compared too.  Without the kernel these tests are skipped, unless
``YAHTZEE_REQUIRE_KERNEL`` is set (as CI sets it: gcc is there, so the
kernel must have been built).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest

from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice
from yahtzee.domain.poker_dice import PokerScoreCard
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules
from yahtzee.domain.score_card import ScoreCard
from yahtzee.solver import accel
from yahtzee.solver.cache import Solution
from yahtzee.solver.dynamic import (States, TurnValues, level_states, single_turn_values, solve,
                                    state_index, table_specials, turn_values)
from yahtzee.solver.keeps import (NUM_ROLLS, ROLL_START, IntArray, best_sub_keep,
                                  expected_over_keeps)
from yahtzee.solver.model import ScoringModel, yahtzee_model
from yahtzee.solver.moments import (LastTurn, Moments, raw_shape, solve_moments, turn_moments,
                                    turn_shape)
from yahtzee.solver.outlook import (_EXCESS_STEPS, _SKEW_LIMITS, _Z_NODES, _Z_WEIGHTS, KNOWN,
                                    Field, Outlooks, chance_to_win, seat_chances)
from yahtzee.solver.play_to_win import PlayToWinStrategy, TurnEnds
from yahtzee.solver.poker import PokerStrategy, poker_solution
from yahtzee.solver.profiles import moments_inside
from yahtzee.solver.simulate import play_games
from yahtzee.solver.strategy import GreedyStrategy, OptimalStrategy, TurnStrategy

ROOT = Path(__file__).resolve().parents[2]
_CardT = TypeVar("_CardT")
_BoxT = TypeVar("_BoxT")

if accel.PLAN is None:
    if os.environ.get("YAHTZEE_REQUIRE_KERNEL"):
        raise RuntimeError("YAHTZEE_REQUIRE_KERNEL is set but the compiled kernel is missing "
                           "(or YAHTZEE_PURE_NUMPY is set)")
    pytest.skip("the compiled kernel is not built here", allow_module_level=True)


def _solution(rules: Rules, official: Solution, course: Solution) -> Solution:
    """Return the session's table of ``rules``."""
    return official if rules is OFFICIAL else course


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_the_table_built_with_numpy_alone_is_the_kernels(
        rules: Rules, official: Solution, course: Solution, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_kernel = _solution(rules, official, course)
    monkeypatch.setattr(accel, "PLAN", None)
    model = yahtzee_model(rules)
    values = solve(model)
    assert np.allclose(values, with_kernel.values, rtol=0, atol=1e-9)
    expected = {"official": 254.58772873, "course": 252.00181377}[rules.name]
    assert round(float(values[0, 0, 0]), 8) == round(with_kernel.expected_score, 8) == expected


def _cards(rules: Rules, count: int, seed: int) -> list[ScoreCard]:
    """Return cards after random legal play, with many Yahtzees (special choices)."""
    rng = random.Random(seed)
    cards = []
    for _ in range(count):
        card = ScoreCard(rules)
        for _ in range(rng.randrange(rules.ROUNDS)):
            dice = ([rng.randint(1, 6)] * 5 if rng.random() < 0.35
                    else [rng.randint(1, 6) for _ in range(5)])
            card.choose(rng.choice(card.options(Dice.of(dice))).category, Dice.of(dice))
        cards.append(card)
    return cards


def _assert_same_turn(fast: TurnValues, slow: TurnValues) -> None:
    """Check two turns' values: leaves and choices exactly, keeps to 1e-9."""
    assert fast.leaf.shape == slow.leaf.shape
    assert np.array_equal(fast.leaf, slow.leaf)
    assert np.allclose(fast.keep1, slow.keep1, rtol=0, atol=1e-9)
    assert np.allclose(fast.keep2, slow.keep2, rtol=0, atol=1e-9)
    if fast.choice is not None and slow.choice is not None:
        assert np.array_equal(fast.choice, slow.choice)


def _turns_both_ways(strategy: TurnStrategy[_CardT, _BoxT], cards: Sequence[_CardT],
                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Check each card's turn values, worked out with the kernel and with numpy alone."""
    fast = [strategy._solve_turn(strategy._key(card)) for card in cards]
    with monkeypatch.context() as patch:
        patch.setattr(accel, "PLAN", None)
        slow = [strategy._solve_turn(strategy._key(card)) for card in cards]
    for one, other in zip(fast, slow):
        _assert_same_turn(one, other)


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_one_states_turn_is_numpys(rules: Rules, official: Solution, course: Solution,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    solution = _solution(rules, official, course)
    strategy = OptimalStrategy(rules, solution)
    cards = _cards(rules, 60, seed=4)
    special = solution.model.special
    assert special is not None
    assert any(special.varies[strategy.state_of(card)[:2]] for card in cards)
    _turns_both_ways(strategy, list(cards), monkeypatch)


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_one_states_turn_with_the_boxes_chosen_is_numpys(
        rules: Rules, official: Solution, course: Solution,
        monkeypatch: pytest.MonkeyPatch) -> None:
    solution = _solution(rules, official, course)
    model, values = solution.model, solution.values
    strategy = OptimalStrategy(rules, solution)
    keys = [strategy.state_of(card) for card in _cards(rules, 60, seed=5)]

    def turns() -> list[TurnValues]:
        """Return each state's turn values with the boxes chosen."""
        return [single_turn_values(model, values, *key, table_specials(model, States(
            *(np.array([v]) for v in key)))) for key in keys]

    fast = turns()
    monkeypatch.setattr(accel, "PLAN", None)
    for one, other in zip(fast, turns()):
        assert one.choice is not None and other.choice is not None
        _assert_same_turn(one, other)


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_decisions_are_numpys(rules: Rules, official: Solution, course: Solution,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    solution = _solution(rules, official, course)
    rng = random.Random(7)
    situations = [(card, [rng.randint(1, 6)] * 5 if rng.random() < 0.3
                   else [rng.randint(1, 6) for _ in range(5)]) for card in _cards(rules, 150, 7)]

    Decisions = list[tuple[tuple[int, ...] | None, tuple[int, ...] | None, CategoryValue]]

    def decide(strategy: OptimalStrategy) -> Decisions:
        """Return every keep (with two and one rolls left) and box for the situations."""
        return [(strategy.keep(card, dice, 2), strategy.keep(card, dice, 1),
                 strategy.category(card, dice)) for card, dice in situations]

    fast = decide(OptimalStrategy(rules, solution))
    monkeypatch.setattr(accel, "PLAN", None)
    assert fast == decide(OptimalStrategy(rules, solution))
    assert len({keep for keep, _, _ in fast}) > 20


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_greedy_turns_with_choices_asked_one_situation_at_a_time_are_numpys(
        rules: Rules, monkeypatch: pytest.MonkeyPatch) -> None:
    strategy = GreedyStrategy(rules)
    assert strategy.model.special is None
    _turns_both_ways(strategy, list(_cards(rules, 40, seed=9)),
                     monkeypatch)


def test_poker_dice_turns_are_numpys(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(2)
    cards = []
    for _ in range(30):
        card = PokerScoreCard()
        for number in rng.sample(range(1, 10), rng.randrange(9)):
            card.choose_number(number, Dice.of([rng.randint(1, 6) for _ in range(5)]))
        cards.append(card)
    _turns_both_ways(PokerStrategy(), cards, monkeypatch)


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_batched_turns_are_numpys_in_every_turn(rules: Rules, official: Solution,
                                                course: Solution,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    solution = _solution(rules, official, course)
    model, values = solution.model, solution.values
    rng = np.random.default_rng(3)
    for turns in range(model.rounds):
        states = level_states(model, turns)
        pick = np.sort(rng.choice(len(states), size=min(len(states), 200), replace=False))
        batch = States(states.flag[pick], states.mask[pick], states.upper[pick])
        fast = turn_values(model, values, batch, table_specials(model, batch))
        with monkeypatch.context() as patch:
            patch.setattr(accel, "PLAN", None)
            slow = turn_values(model, values, batch, table_specials(model, batch))
        _assert_same_turn(fast, slow)


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_simulated_games_are_the_same_with_numpy_alone(rules: Rules, official: Solution,
                                                       course: Solution,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    solution = _solution(rules, official, course)
    fast = play_games(solution.model, solution.values, 1500, seed=11)
    monkeypatch.setattr(accel, "PLAN", None)
    slow = play_games(solution.model, solution.values, 1500, seed=11)
    assert np.array_equal(fast, slow)


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_moments_are_numpys_in_every_turn(rules: Rules, official: Solution, course: Solution,
                                          official_moments: Moments,
                                          course_moments: Moments) -> None:
    solution = _solution(rules, official, course)
    model, values = solution.model, solution.values
    tables = (official_moments if rules is OFFICIAL else course_moments).tables()
    rng = np.random.default_rng(6)
    for turns in range(model.rounds):
        states = level_states(model, turns)
        pick = np.sort(rng.choice(len(states), size=min(len(states), 60), replace=False))
        batch = States(states.flag[pick], states.mask[pick], states.upper[pick])
        fast = accel.moments_start(model, values, tables, batch.flag, batch.mask, batch.upper)
        slow = turn_moments(model, values, tables, batch).start
        assert fast is not None
        assert np.allclose(fast, slow, rtol=1e-13, atol=1e-9)
        stored = np.stack([t.ravel()[state_index(model, batch.flag, batch.mask, batch.upper)]
                           for t in tables])
        assert np.allclose(fast, stored, rtol=1e-13, atol=1e-9)


def _needs(present: bool, what: str) -> None:
    """Skip a test when the kernel was built before ``what`` (so ``present`` is false).

    As for a kernel not built at all: unless ``YAHTZEE_REQUIRE_KERNEL`` is set,
    when such a kernel is an error.
    """
    if not present:
        if os.environ.get("YAHTZEE_REQUIRE_KERNEL"):
            raise RuntimeError(f"the compiled kernel predates {what}: build it again "
                               "(pip install -e .)")
        pytest.skip(f"the compiled kernel predates {what} (build it again)")


def _needs_the_turn_ends(official: Solution) -> None:
    """Skip a test when the kernel was built before ``turn_ends`` and ``leaf_steps``."""
    _needs(accel._TURN_ENDS is not None
           and hasattr(accel.plan_of(official.model), "leaf_steps"),
           "turn_ends and leaf_steps")


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_a_turns_ends_and_moments_inside_are_numpys_to_the_last_bit(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments, monkeypatch: pytest.MonkeyPatch) -> None:
    # The coach's win chances and options' profiles read these tables: the kernel's
    # leaf_steps and turn_ends must give numpy's numbers exactly, not to rounding.
    _needs_the_turn_ends(official)
    solution = _solution(rules, official, course)
    model, values = solution.model, solution.values
    moments = official_moments if rules is OFFICIAL else course_moments
    winner = PlayToWinStrategy(OptimalStrategy(rules, solution), moments)
    keys = [winner.base.state_key(card) for card in _cards(rules, 40, seed=9)]
    special = model.special
    assert special is not None and any(special.varies[key[:2]] for key in keys)
    turns = [single_turn_values(model, values, *key, table_specials(
        model, States(*(np.array([v]) for v in key)))) for key in keys]
    rng = np.random.default_rng(8)
    leaves = [rng.random((NUM_ROLLS, players)) for players in (2, 3, 6) * len(keys)]

    def worked_out() -> list[tuple[object, ...]]:
        """Return each state's moments inside, leaf steps and chances carried back."""
        found: list[tuple[object, ...]] = []
        for n, (key, turn) in enumerate(zip(keys, turns)):
            assert turn.choice is not None
            inside = (moments_inside(model, values, moments.tables(), key, turn)
                      or turn_moments(model, values, moments.tables(),
                                      States(*(np.array([v]) for v in key)), turn))
            ends = [TurnEnds(leaf, turn.keep1) for leaf in leaves[3 * n:3 * n + 3]]
            found.append((inside.leaf, inside.one_left, inside.two_left,
                          *winner._leaf_steps(*key, turn.choice),
                          *(table for end in ends for table in (end.one_left(), end.two_left()))))
        return found

    fast = worked_out()
    monkeypatch.setattr(accel, "_TURN_ENDS", None)
    monkeypatch.setattr(accel, "leaf_steps", lambda *args: None)
    for kernels, numpys in zip(fast, worked_out()):
        for got, expected in zip(kernels, numpys, strict=True):
            assert isinstance(got, np.ndarray) and isinstance(expected, np.ndarray)
            assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_the_kernels_turn_ends_refuse_arrays_that_do_not_fit(official: Solution) -> None:
    _needs_the_turn_ends(official)
    plan = accel.plan_of(official.model)
    choice = np.zeros(NUM_ROLLS, dtype=np.int8)
    steps = (np.empty(NUM_ROLLS, dtype=np.int64), np.empty(NUM_ROLLS, dtype=np.int64))
    with pytest.raises(ValueError, match="one number per roll"):
        plan.leaf_steps(0, 0, 0, choice[:-1], *steps)
    with pytest.raises(ValueError, match="no such slot"):
        plan.leaf_steps(0, 0, 0, choice - 1, *steps)
    with pytest.raises(ValueError, match="no such state"):
        plan.leaf_steps(0, 1 << 13, 0, choice, *steps)
    keep1, leaf, out = np.zeros(462), np.zeros((NUM_ROLLS, 2)), np.empty((462, 2))
    assert accel._TURN_ENDS is not None
    with pytest.raises(ValueError, match="do not fit"):
        accel._TURN_ENDS(keep1[:-1], leaf, out, out.copy())
    with pytest.raises(ValueError, match="do not fit"):
        accel._TURN_ENDS(keep1, leaf, out[:, :1].copy(), out.copy())


def _plan_inputs(model: ScoringModel) -> dict[str, IntArray]:
    """Return the states of one turn as the kernel takes them."""
    states = level_states(model, 5)
    return {"flags": states.flag, "masks": states.mask, "uppers": states.upper}


def test_the_kernel_refuses_arrays_that_do_not_fit(official: Solution) -> None:
    model, values = official.model, official.values
    plan = accel.plan_of(model)
    states = _plan_inputs(model)
    out = np.empty(len(states["masks"]))
    with pytest.raises(ValueError, match="value table"):
        plan.start(values[:1], states["flags"], states["masks"], states["uppers"], out)
    with pytest.raises(ValueError, match="does not fit the states"):
        plan.start(values, states["flags"], states["masks"], states["uppers"], out[:-1])
    with pytest.raises(ValueError, match="differ in length"):
        plan.start(values, states["flags"][:-1], states["masks"], states["uppers"], out)
    with pytest.raises(ValueError, match="no such state"):
        plan.start(values, states["flags"], states["masks"] + (1 << 13), states["uppers"], out)
    with pytest.raises(TypeError, match="bytes"):
        plan.start(values, states["flags"].astype(np.int32), states["masks"], states["uppers"],
                   out)
    with pytest.raises(ValueError):
        plan.turn_one(values, 0, 0, 0, np.empty(10), np.empty(252, dtype=np.int8))
    assert accel.PLAN is not None
    nonsense = (np.zeros(8, dtype=np.int64),) + (np.zeros(1, dtype=np.int64),) * 10
    with pytest.raises(ValueError, match="inconsistent"):
        accel.PLAN(*nonsense)
    remade = accel._make_plan(accel.PLAN, model)
    with pytest.raises(ValueError, match="inconsistent"):
        remade.__init__(*nonsense)  # type: ignore[misc]
    with pytest.raises(RuntimeError, match="not made"):
        remade.start(values, states["flags"], states["masks"], states["uppers"], out)


def test_yahtzee_pure_numpy_leaves_the_kernel_out() -> None:
    probe = "from yahtzee.solver import accel; print(accel.PLAN is None)"
    for setting, expected in (("1", "True"), ("0", "False")):
        done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                              text=True, timeout=120,
                              env={**os.environ, accel.PURE_NUMPY: setting})
        assert done.stdout.strip() == expected, done.stderr


def _raw_tables(solution: Solution, moments: Moments) -> tuple[np.ndarray, np.ndarray]:
    """Return the raw third and fourth moments behind the stored cumulants (in float64)."""
    assert moments.shape is not None
    mean, second = solution.values, moments.second
    variance = second - mean * mean
    third = moments.shape.third.astype(np.float64) + 3 * mean * second - 2 * mean ** 3
    central4 = moments.shape.fourth.astype(np.float64) + 3 * variance ** 2
    fourth = central4 + 4 * mean * third - 6 * mean ** 2 * second + 3 * mean ** 4
    return third, fourth


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_moments_with_the_shape_are_numpys_in_every_turn(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments, monkeypatch: pytest.MonkeyPatch) -> None:
    solution = _solution(rules, official, course)
    model, values = solution.model, solution.values
    moments = official_moments if rules is OFFICIAL else course_moments
    third, fourth = _raw_tables(solution, moments)
    tables = (*moments.tables(), third, fourth)
    raw = [values.ravel(), moments.second.ravel(), third.ravel(), fourth.ravel()]
    rng = np.random.default_rng(7)
    for turns in range(model.rounds):
        states = level_states(model, turns)
        pick = np.sort(rng.choice(len(states), size=min(len(states), 40), replace=False))
        batch = States(states.flag[pick], states.mask[pick], states.upper[pick])
        where = (batch.flag, batch.mask, batch.upper)
        both = accel.moments_shape_start(model, values, tables, *where)
        alone = accel.shape_start(model, values, raw[1:], *where)
        plain = accel.moments_start(model, values, moments.tables(), *where)
        assert both is not None and alone is not None and plain is not None
        assert np.array_equal(both[:3], plain) and np.array_equal(both[3:], alone)
        with monkeypatch.context() as patch:
            patch.setattr(accel, "PLAN", None)
            slow = turn_shape(model, raw, batch)
        assert np.allclose(alone, slow, rtol=1e-13, atol=0)


def test_poker_dice_moments_with_the_shape_are_numpys(monkeypatch: pytest.MonkeyPatch) -> None:
    model, values = poker_solution()
    fast = solve_moments(model, values, with_shape=True)
    monkeypatch.setattr(accel, "PLAN", None)
    second = solve_moments(model, values).second
    third, fourth = raw_shape(model, values, second)
    assert fast.shape is not None and np.allclose(fast.second, second, rtol=1e-13, atol=0)
    mean = values
    central4 = fourth - 4 * mean * third + 6 * mean ** 2 * second - 3 * mean ** 4
    assert np.allclose(fast.shape.third, third - 3 * mean * second + 2 * mean ** 3,
                       rtol=1e-6, atol=1e-9 * np.abs(third).max())
    assert np.allclose(fast.shape.fourth, central4 - 3 * (second - mean * mean) ** 2,
                       rtol=1e-6, atol=1e-9 * np.abs(fourth).max())
    assert float(fast.shape.fourth[0, 0, 0]) != 0.0


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_the_play_to_win_turn_s_keeps_are_numpys_to_the_last_bit(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments, monkeypatch: pytest.MonkeyPatch) -> None:
    # The computer that plays to win plans each turn from chances at its leaves; the
    # kernel's turn_keeps carries them back to the keeps with numpy's very numbers, so
    # that its keeps are the same with the kernel or without it, ties included.
    if accel._TURN_KEEPS is None:
        _needs_the_turn_ends(official)  # the same rule: skipped or an error
        pytest.skip("the compiled kernel predates turn_keeps (build it again)")
    solution = _solution(rules, official, course)
    winner = PlayToWinStrategy(OptimalStrategy(rules, solution),
                               official_moments if rules is OFFICIAL else course_moments)
    cards = _cards(rules, 24, seed=4)
    situations = [(winner.base.state_key(card), float(card.score()),
                   ((float(other.score()), winner.index_of(other)),), n % 2 == 0)
                  for n, (card, other) in enumerate(zip(cards, reversed(cards)))]
    fast = [winner._solve_turn(*situation) for situation in situations]
    monkeypatch.setattr(accel, "_TURN_KEEPS", None)
    slow = [winner._solve_turn(*situation) for situation in situations]
    for kernels, numpys in zip(fast, slow, strict=True):
        assert np.array_equal(kernels.leaf, numpys.leaf)
        assert np.array_equal(kernels.keep1, numpys.keep1)
        assert np.array_equal(kernels.keep2, numpys.keep2)
        assert kernels.keep2.shape == (462, 1) and np.isfinite(kernels.keep2).all()


@pytest.mark.parametrize("width", [None, 1, 2, 9])
def test_the_kernel_s_turn_keeps_are_numpys_for_any_width_and_refuse_what_does_not_fit(
        width: int | None) -> None:
    if accel._TURN_KEEPS is None:
        pytest.skip("the compiled kernel predates turn_keeps (build it again)")
    rng = np.random.default_rng(width or 0)
    leaf = rng.random((NUM_ROLLS,) if width is None else (NUM_ROLLS, width)) * 50
    leaf[rng.random(leaf.shape) < 0.1] = -np.inf  # boxes no roll may take
    got = accel.turn_keeps(leaf)
    assert got is not None
    keep1 = expected_over_keeps(leaf)
    assert np.array_equal(got[0], keep1)
    assert np.array_equal(got[1], expected_over_keeps(best_sub_keep(keep1)[ROLL_START:]))
    out = np.empty((462,) + leaf.shape[1:])
    with pytest.raises(ValueError, match="do not fit"):
        accel._TURN_KEEPS(leaf[:-1], out, out.copy())
    with pytest.raises(ValueError, match="do not fit"):
        accel._TURN_KEEPS(leaf, out[:-1], out.copy())


def _winner(rules: Rules, official: Solution, course: Solution, official_moments: Moments,
            course_moments: Moments) -> PlayToWinStrategy:
    """Return the computer that plays to win under ``rules``, on the session's tables."""
    return PlayToWinStrategy(OptimalStrategy(rules, _solution(rules, official, course)),
                             official_moments if rules is OFFICIAL else course_moments)


def _outlook_kinds(rows: IntArray, variance: np.ndarray) -> IntArray:
    """Return each outlook's kind as ``chance_to_win`` branches on it: 0 an exact row, 1 a
    score known, 2 spread."""
    kinds: IntArray = np.where(rows >= 0, 0, np.where(variance <= KNOWN, 1, 2))
    return kinds


def _states_of_each_kind(outlooks: Outlooks) -> tuple[IntArray, IntArray, IntArray]:
    """Return the flat states whose outlook is spread, those with an exact row, and one whose
    points to come are known (nothing, as for a full card): the three kinds ``chance_to_win``
    branches on."""
    assert outlooks.last is not None
    reachable = np.flatnonzero(np.isfinite(outlooks.mean) & (outlooks.variance > 0))
    exact = np.flatnonzero(outlooks.last.row_of >= 0)
    finished = np.array([int(np.argmin(outlooks.variance + (outlooks.mean != 0)))])
    return reachable, exact, finished


def _chances_both_ways(monkeypatch: pytest.MonkeyPatch, banked: np.ndarray,
                       index: IntArray, columns: IntArray, field: Field,
                       outlooks: Outlooks) -> tuple[np.ndarray, np.ndarray]:
    """Return ``chance_to_win`` from the kernel, then from numpy alone."""
    fast = chance_to_win(banked, index, columns, field, outlooks)
    with monkeypatch.context() as patch:
        patch.setattr(accel, "_WIN_CHANCES", None)
        slow = chance_to_win(banked, index, columns, field, outlooks)
    return fast, slow


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_the_kernel_s_chances_to_win_are_numpys(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every branch of the outlook: players spread, exact (one or two turns left) or known
    # (a full card), against one opponent or several, each of those of every kind too.
    _needs(accel._WIN_CHANCES is not None, "win_chances")
    outlooks = _winner(rules, official, course, official_moments, course_moments).outlooks
    assert outlooks.last is not None
    rng = np.random.default_rng(7)
    kinds = _states_of_each_kind(outlooks)
    branches: set[tuple[int, int, int]] = set()
    for trial in range(120):
        others, width, count = 1 + trial % 4, int(rng.integers(1, 9)), 60
        index = rng.choice(kinds[trial % 3], count)
        where = rng.choice(kinds[(trial // 3) % 3], (others, width))
        banked = rng.integers(0, 320, count).astype(np.float64)
        field = Field.of(outlooks, rng.integers(0, 320, (others, width)).astype(np.float64),
                         where)
        columns = rng.integers(0, width, count)
        fast, slow = _chances_both_ways(monkeypatch, banked, index, columns, field, outlooks)
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
        assert ((fast >= 0) & (fast <= 1)).all()
        kinds_now = _outlook_kinds(outlooks.rows(index), outlooks.variance[index])
        kinds_met = _outlook_kinds(field.rows[0, columns], field.variances[0, columns])
        branches.update(zip(kinds_now.tolist(), kinds_met.tolist(), [min(others, 2)] * count))
        if trial % 3 == 0 and others == 1:  # a spread player against one: some of each side
            assert 0 < float(np.mean(fast > 0.5)) < 1
    assert len(branches) == 18  # exact, known and spread players, against each, alone or not


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_the_computer_plans_the_same_turns_with_the_kernel_s_chances(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments, monkeypatch: pytest.MonkeyPatch) -> None:
    _needs(accel._WIN_CHANCES is not None, "win_chances")
    winner = _winner(rules, official, course, official_moments, course_moments)
    cards = _cards(rules, 16, seed=9)
    situations = [(winner.base.state_key(card), float(card.score()),
                   tuple((float(other.score()), winner.index_of(other))
                         for other in cards[n + 1:n + 1 + n % 3]), n % 2 == 0)
                  for n, card in enumerate(cards[:-3])]
    fast = [winner._solve_turn(*situation) for situation in situations]
    monkeypatch.setattr(accel, "_WIN_CHANCES", None)
    slow = [winner._solve_turn(*situation) for situation in situations]
    for kernels, numpys in zip(fast, slow, strict=True):
        np.testing.assert_allclose(kernels.leaf, numpys.leaf, rtol=0, atol=1e-12)
        np.testing.assert_allclose(kernels.keep2, numpys.keep2, rtol=0, atol=1e-12)
        assert kernels.choice is not None and numpys.choice is not None
        assert np.array_equal(kernels.choice, numpys.choice)
        for rolls_left, table in ((1, "keep1"), (2, "keep2")):
            picks = [accel.best_keep(getattr(t, table)[:, 0].copy(), t.leaf[:, 0].copy(), roll)
                     for t in (kernels, numpys) for roll in range(NUM_ROLLS)]
            assert picks[:NUM_ROLLS] == picks[NUM_ROLLS:], rolls_left


def test_the_kernel_s_chances_refuse_arrays_that_do_not_fit(
        official: Solution, official_moments: Moments) -> None:
    _needs(accel._WIN_CHANCES is not None, "win_chances")
    outlooks = _winner(OFFICIAL, official, official, official_moments,
                       official_moments).outlooks
    last = outlooks.last
    assert last is not None
    rows = (last.pmf, last.cdf, last.points, last.chances, last.size)
    tables = (np.zeros(24), np.ones(24), np.linspace(0.0, 4.0, 21), np.full(21, 0.5))
    players, field = np.zeros((5, 3)), np.zeros((5, 1, 2))
    none, zero, two = np.full(3, -1), np.zeros(3, dtype=np.int64), np.full(3, 2)
    out = np.empty(3)
    accel_call = accel._WIN_CHANCES
    assert accel_call is not None
    accel_call(players, none, zero, field, np.full((1, 2), -1), *tables, *rows, out)
    assert np.array_equal(out, np.full(3, 0.5))  # level, known scores: a tie, halved
    with pytest.raises(ValueError, match="do not fit"):
        accel_call(np.zeros((5, 2)), none, zero, field, np.full((1, 2), -1), *tables, *rows, out)
    with pytest.raises(ValueError, match="no such row or column"):
        accel_call(players, none, two, field, np.full((1, 2), -1), *tables, *rows, out)
    with pytest.raises(ValueError, match="no such row or column"):
        accel_call(players, np.full(3, len(last.size)), zero, field, np.full((1, 2), -1),
                   *tables, *rows, out)
    with pytest.raises(ValueError, match="no such row or column"):  # a row, and no rows
        accel_call(players, zero, zero, field, np.full((1, 2), -1), *tables,
                   *(None,) * 5, out)
    with pytest.raises(ValueError, match="in the field"):
        accel_call(players, none, zero, field, np.full((1, 2), -2), *tables, *rows, out)
    with pytest.raises(ValueError, match="quadrature or steps"):
        accel_call(players, none, zero, field, np.full((1, 2), -1), *tables[:3],
                   np.zeros(20), *rows, out)
    with pytest.raises(ValueError, match="exact rows"):
        accel_call(players, none, zero, field, np.full((1, 2), -1), *tables, last.pmf[:-1],
                   *rows[1:], out)


def _seats_by_numpy(monkeypatch: pytest.MonkeyPatch, banked: np.ndarray, index: IntArray,
                    outlooks: Outlooks) -> np.ndarray:
    """Return ``seat_chances`` worked out by numpy alone (the kernel's ``win_chances`` left
    out too)."""
    with monkeypatch.context() as patch:
        patch.setattr(accel, "_SEAT_CHANCES", None)
        patch.setattr(accel, "_WIN_CHANCES", None)
        return seat_chances(banked, index, outlooks)


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_the_kernel_s_chances_of_every_seat_are_numpys_to_the_last_bit(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments, monkeypatch: pytest.MonkeyPatch) -> None:
    # Two to six players of every kind (spread, exact, known) in each position; the kernel
    # gathers them as Field.of does, so its numbers are those of win_chances on numpy's
    # gathering, and within 1e-12 of numpy's own (as win_chances is).
    _needs(accel._SEAT_CHANCES is not None, "seat_chances")
    outlooks = _winner(rules, official, course, official_moments, course_moments).outlooks
    rng = np.random.default_rng(11)
    kinds = _states_of_each_kind(outlooks)
    for trial in range(60):
        players, count = 2 + trial % 5, int(rng.integers(1, 30))
        index = np.stack([rng.choice(kinds[(trial // 5 + p) % 3], count)
                          for p in range(players)])
        banked = rng.integers(0, 320, (players, count)).astype(np.float64)
        outlooks.rows(index.ravel())  # every row worked out, so the kernel takes them all
        fast = accel.seat_chances(banked, index, outlooks, (_Z_NODES, _Z_WEIGHTS),
                                  (_EXCESS_STEPS, _SKEW_LIMITS))
        assert fast is not None and fast.shape == (players, count)
        with monkeypatch.context() as patch:
            patch.setattr(accel, "_SEAT_CHANCES", None)
            assert np.array_equal(seat_chances(banked, index, outlooks), fast)
        np.testing.assert_allclose(_seats_by_numpy(monkeypatch, banked, index, outlooks), fast,
                                   rtol=0, atol=1e-12)
        if players == 2:  # two players' chances add up to 1 as they are
            np.testing.assert_allclose(fast.sum(axis=0), 1.0, rtol=0, atol=1e-9)


def test_the_kernel_leaves_seats_whose_rows_are_not_worked_out_to_numpy(
        official: Solution, official_moments: Moments) -> None:
    # A fresh LastTurn has no row yet: the kernel gives None (nothing written), numpy's
    # path works the rows out, and then the kernel takes the same positions itself.
    _needs(accel._SEAT_CHANCES is not None, "seat_chances")
    winner = _winner(OFFICIAL, official, official, official_moments, official_moments)
    shared = winner.outlooks
    assert shared.last is not None
    fresh = LastTurn(winner.model, winner.base.values, 2)
    outlooks = replace(shared, last=fresh)
    exact = np.flatnonzero(fresh.row_of >= 0)[[5, 900, 10_000]]
    index = np.array([exact, [winner.finished_index()] * 3])
    banked = np.array([[100.0, 150.0, 200.0], [180.0, 250.0, 120.0]])
    quadrature, steps = (_Z_NODES, _Z_WEIGHTS), (_EXCESS_STEPS, _SKEW_LIMITS)
    assert not fresh.solved.any()
    assert accel.seat_chances(banked, index, outlooks, quadrature, steps) is None
    assert not fresh.solved.any()
    by_numpy = seat_chances(banked, index, outlooks)
    assert fresh.solved[fresh.row_of[exact]].all()
    again = accel.seat_chances(banked, index, outlooks, quadrature, steps)
    assert again is not None and np.array_equal(again, by_numpy)
    assert np.array_equal(seat_chances(banked, index, shared), by_numpy)


def test_the_kernel_s_seat_chances_refuse_what_does_not_fit(
        official: Solution, official_moments: Moments) -> None:
    _needs(accel._SEAT_CHANCES is not None, "seat_chances")
    outlooks = _winner(OFFICIAL, official, official, official_moments,
                       official_moments).outlooks
    last = outlooks.last
    assert last is not None
    columns = (outlooks.mean, outlooks.variance, outlooks.third, outlooks.fourth)
    tables = (np.zeros(24), np.ones(24), np.linspace(0.0, 4.0, 21), np.full(21, 0.5))
    rows = (last.pmf, last.cdf, last.points, last.chances, last.size)
    call = accel._SEAT_CHANCES
    assert call is not None
    finished = int(np.argmin(outlooks.variance + (outlooks.mean != 0)))
    index, banked, out = np.full((2, 1), finished), np.array([[10.0], [10.0]]), np.empty((2, 1))
    assert call(banked, index, *columns, last.row_of, last.solved, *tables, *rows, out)
    assert np.array_equal(out, [[0.5], [0.5]])  # level, known scores: a tie, halved
    with pytest.raises(ValueError, match="no such state"):
        call(banked, np.full((2, 1), len(outlooks.mean)), *columns, last.row_of, last.solved,
             *tables, *rows, out)
    with pytest.raises(ValueError, match="arrays that do not fit"):  # one seat: no one to beat
        call(banked[:1], index[:1], *columns, last.row_of, last.solved, *tables, *rows,
             out[:1])
    with pytest.raises(ValueError, match="arrays that do not fit"):
        call(banked, index, *columns, last.row_of, last.solved, *tables, *rows, np.empty(3))
    with pytest.raises(ValueError, match="arrays that do not fit"):  # rows, and no row table
        call(banked, index, *columns, last.row_of, last.solved, *tables, *(None,) * 5, out)
    with pytest.raises(ValueError, match="outlook columns that do not fit"):
        call(banked, index, *columns[:3], outlooks.fourth[:-1], last.row_of, last.solved,
             *tables, *rows, out)
    with pytest.raises(ValueError, match="wrong shape or items"):  # third as float64
        call(banked, index, *columns[:2], outlooks.mean, outlooks.fourth, last.row_of,
             last.solved, *tables, *rows, out)
    with pytest.raises(ValueError, match="no such row"):
        call(banked, index, *columns, np.full(len(outlooks.mean), len(last.size)),
             last.solved, *tables, *rows, out)


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_a_turn_planned_to_win_takes_the_same_boxes_from_the_kernel_s_entries(
        rules: Rules, official: Solution, course: Solution, official_moments: Moments,
        course_moments: Moments, monkeypatch: pytest.MonkeyPatch) -> None:
    # The kernel lists where each open box's points lead and takes each roll's best box;
    # numpy does both itself.  The same worth from the same calls: the very same numbers.
    winner = _winner(rules, official, course, official_moments, course_moments)
    _needs(hasattr(accel.plan_of(winner.model), "best_entries"), "best_entries")
    cards = [card for card in _cards(rules, 40, seed=11) if len(card.options(Dice.of([1] * 5)))]
    situations = [(winner.base.state_key(card), float(card.score()),
                   ((float(other.score()), winner.index_of(other)),), n % 2 == 0)
                  for n, (card, other) in enumerate(zip(cards, reversed(cards)))]
    fast = [winner._solve_turn(*situation) for situation in situations]
    monkeypatch.setattr(accel, "entry_steps", lambda *args: None)
    slow = [winner._solve_turn(*situation) for situation in situations]
    assert len(fast) > 30
    for kernels, numpys in zip(fast, slow, strict=True):
        assert np.array_equal(kernels.leaf, numpys.leaf)
        assert kernels.choice is not None and numpys.choice is not None
        assert np.array_equal(kernels.choice, numpys.choice)
    assert len({int(box) for turn in fast if turn.choice is not None
                for box in np.unique(turn.choice)}) >= 10


def test_the_kernel_s_entries_refuse_what_does_not_fit(official: Solution) -> None:
    plan = accel.plan_of(official.model)
    _needs(hasattr(plan, "best_entries"), "best_entries")
    count = len(official.model.leaf_plan[0])
    reward, following = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)
    plan.entry_steps(0, 0b11, 0, reward, following)
    slots = official.model.leaf_plan[0]
    assert (following[slots < 2] == -1).all() and (following[slots >= 2] >= 0).all()
    with pytest.raises(ValueError, match="one number per entry"):
        plan.entry_steps(0, 0, 0, reward[:-1], following)
    with pytest.raises(ValueError, match="no such state"):
        plan.entry_steps(0, 1 << 13, 0, reward, following)
    best, choice = np.empty(NUM_ROLLS), np.empty(NUM_ROLLS, dtype=np.int8)
    plan.best_entries((1 << 13) - 1, np.zeros(count), best, choice)  # a full card
    assert (best == -np.inf).all() and (choice == 0).all()
    with pytest.raises(ValueError, match="do not fit"):
        plan.best_entries(0, np.zeros(count - 1), best, choice)
