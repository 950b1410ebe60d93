"""Strategies, batched simulation, the solve/simulate commands and the table cache."""

from __future__ import annotations

import io
import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from yahtzee.category_value import CategoryValue
from yahtzee.dice import Dice
from yahtzee.die import Die
from yahtzee.rules import COURSE, OFFICIAL, Rules
from yahtzee.score_card import ScoreCard
from yahtzee.solver import cache
from yahtzee.solver.cache import (FORMAT_VERSION, MAGIC, DamagedTableError, Solution, decode,
                                  encode, load_or_build, table_path)
from yahtzee.solver.commands import histogram, run_simulate, run_solve
from yahtzee.solver.engine import States, single_turn_values, table_specials, turn_values
from yahtzee.solver.simulate import play_games
from yahtzee.solver.strategy import GreedyStrategy, OptimalStrategy, get_strategy


def _is_sub_multiset(keep: tuple[int, ...], dice: list[int]) -> bool:
    """Return whether ``keep`` can be taken from ``dice``."""
    rest = list(dice)
    for value in keep:
        if value not in rest:
            return False
        rest.remove(value)
    return True


def _play(rules: Rules, kind: str, seed: int) -> tuple[int, list[object]]:
    """Play one solitaire game with a strategy; return its score and every decision."""
    strategy = get_strategy(kind, rules)
    rng = random.Random(seed)
    card = ScoreCard(rules)
    decisions: list[object] = []
    while card.rounds_used() < rules.ROUNDS:
        dice = [rng.randint(1, 6) for _ in range(5)]
        for rolls_left in (2, 1):
            keep = strategy.keep(card, dice, rolls_left)
            decisions.append(keep)
            if keep is None:
                break
            assert keep == tuple(sorted(keep)) and len(keep) < 5
            assert _is_sub_multiset(keep, dice)
            dice = list(keep) + [rng.randint(1, 6) for _ in range(5 - len(keep))]
        box = strategy.category(card, dice)
        assert box in card.choices(Dice.of(dice))
        decisions.append(box)
        card.choose(box, Dice.of(dice))
    return card.score(), decisions


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
@pytest.mark.parametrize("kind", ["optimal", "greedy"])
def test_decisions_are_legal_deterministic_and_leave_the_dice_alone(
        rules: Rules, kind: str, official: Solution, course: Solution) -> None:
    state = Die.r.getstate()
    first = _play(rules, kind, seed=21)
    assert _play(rules, kind, seed=21) == first
    assert Die.r.getstate() == state


def test_get_strategy_kinds(official: Solution) -> None:
    assert isinstance(get_strategy("optimal", OFFICIAL), OptimalStrategy)
    assert isinstance(get_strategy("greedy", OFFICIAL), GreedyStrategy)
    with pytest.raises(ValueError, match="unknown strategy"):
        get_strategy("random", OFFICIAL)


def test_optimal_keeps_a_yahtzee_and_scores_it(official: Solution) -> None:
    strategy = OptimalStrategy(OFFICIAL)
    card = ScoreCard(OFFICIAL)
    assert strategy.keep(card, [6, 6, 6, 6, 6], 2) is None
    assert strategy.category(card, [6, 6, 6, 6, 6]) is CategoryValue.YAHTZEE
    assert strategy.keep(card, [6, 6, 6, 6, 2], 2) == (6, 6, 6, 6)


def test_keep_values_describe_the_decision(official: Solution) -> None:
    strategy = OptimalStrategy(OFFICIAL)
    card = ScoreCard(OFFICIAL)
    card.choose(CategoryValue.CHANCE, Dice.of([6, 6, 5, 5, 4]))
    dice = [2, 3, 4, 5, 5]
    values = strategy.keep_values(card, dice, 1)
    assert list(values)[0] == (2, 3, 4, 5, 5)
    assert len(values) == 24 and () in values
    best = max(values, key=lambda k: values[k])
    assert strategy.keep(card, dice, 1) == (None if best == (2, 3, 4, 5, 5) else best)
    scored = strategy.category_values(card, dice)
    assert values[(2, 3, 4, 5, 5)] == pytest.approx(max(scored.values()), abs=1e-9)
    assert set(scored) == set(card.choices(Dice.of(dice)))
    with pytest.raises(ValueError):
        strategy.keep_values(card, dice, 0)


def test_expected_final_of_an_empty_and_a_finished_card(official: Solution) -> None:
    strategy = OptimalStrategy(OFFICIAL)
    assert strategy.expected_final(ScoreCard(OFFICIAL)) == pytest.approx(
        official.expected_score, abs=1e-12)
    full = ScoreCard.restore(OFFICIAL, [3, 6, 9, 12, 15, 18, 20, 0, 25, 30, 40, 50, 22], 1)
    assert strategy.expected_final(full) == full.score() == 63 + 35 + 187 + 100


def test_greedy_scores_the_most_points_now() -> None:
    strategy = GreedyStrategy(OFFICIAL)
    card = ScoreCard(OFFICIAL)
    assert strategy.category(card, [3, 3, 3, 2, 2]) is CategoryValue.FULL_HOUSE
    assert strategy.category(card, [1, 2, 3, 4, 5]) is CategoryValue.LG_STRAIGHT


def test_simulated_mean_matches_the_solved_value_and_beats_greedy(official: Solution) -> None:
    optimal = play_games(official.model, official.values, 4000, seed=7)
    greedy = play_games(official.model, np.zeros(official.model.shape), 4000, seed=7)
    error = optimal.std(ddof=1) / np.sqrt(len(optimal))
    assert abs(optimal.mean() - official.expected_score) < 4 * error
    assert greedy.mean() < optimal.mean() - 20
    again = play_games(official.model, official.values, 4000, seed=7)
    assert (again == optimal).all()


def test_simulate_command_json_and_reproducibility(course: Solution) -> None:
    outs = []
    for _ in range(2):
        out = io.StringIO()
        assert run_simulate("course", "optimal", 300, 5, True, out) == 0
        outs.append(json.loads(out.getvalue()))
    first, second = outs
    assert set(first) == {"rules", "strategy", "games", "mean", "stdev", "min", "max",
                          "seconds"}
    assert (first["rules"], first["strategy"], first["games"]) == ("course", "optimal", 300)
    assert {k: v for k, v in first.items() if k != "seconds"} == {
        k: v for k, v in second.items() if k != "seconds"}
    assert first["min"] <= first["mean"] <= first["max"]


def test_simulate_command_text_has_a_histogram(official: Solution) -> None:
    out = io.StringIO()
    assert run_simulate("official", "optimal", 200, 1, False, out) == 0
    text = out.getvalue()
    assert "mean" in text and "stdev" in text and "#" in text


@pytest.mark.parametrize("args", [("official", "optimal", 0), ("official", "best", 10),
                                  ("house", "optimal", 10)])
def test_simulate_command_rejects_bad_arguments(args: tuple[str, str, int],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert run_simulate(args[0], args[1], args[2], 1, True, out) == 2
    assert out.getvalue() == ""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("yahtzee: ")


def test_solve_command(official: Solution, capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert run_solve("official", True, out) == 0
    report = json.loads(out.getvalue())
    assert set(report) == {"rules", "expected_score", "seconds"}
    assert report["rules"] == "official" and round(report["expected_score"], 4) == 254.5877
    text = io.StringIO()
    assert run_solve("official", False, text) == 0
    assert "254.5877" in text.getvalue() and text.getvalue().count("\n") == 1
    assert run_solve("house", True, io.StringIO()) == 2
    assert capsys.readouterr().err.startswith("yahtzee: unknown rules")


def test_histogram_rows() -> None:
    assert histogram([100, 101, 145, 150], width=4, bin_size=20) == [
        " 100-119  2 ####", " 120-139  0", " 140-159  2 ####"]


# -- the cache -----------------------------------------------------------------

def test_table_round_trips(official: Solution) -> None:
    again = decode(OFFICIAL, encode(OFFICIAL, official))
    assert np.array_equal(again.values, official.values)
    assert again.expected_score == official.expected_score


def _damaged(data: bytes, how: str, other_rules: bytes) -> bytes:
    """Return the table bytes damaged in one way."""
    if how == "truncated":
        return data[:len(data) // 2]
    if how == "flipped":
        spot = len(data) - 1000
        return data[:spot] + bytes([data[spot] ^ 0x40]) + data[spot + 1:]
    if how == "version":
        end = data.index(b"\n", len(MAGIC))
        header = json.loads(data[len(MAGIC):end])
        header["version"] = FORMAT_VERSION + 1
        return MAGIC + json.dumps(header).encode() + data[end:]
    if how == "rules":
        return other_rules
    if how == "garbage":
        return b"not a table at all"
    return data[:len(MAGIC) + 10]


@pytest.mark.parametrize("how", ["truncated", "flipped", "version", "rules", "garbage",
                                 "header"])
def test_damaged_tables_are_detected_and_rebuilt(
        how: str, official: Solution, course: Solution, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    data = _damaged(table_path(OFFICIAL).read_bytes(), how, table_path(COURSE).read_bytes())
    with pytest.raises(DamagedTableError):
        decode(OFFICIAL, data)
    folder = tmp_path / "cache"
    folder.mkdir()
    table_path(OFFICIAL, folder).write_bytes(data)
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(folder))
    builds: list[Rules] = []

    def fake_build(rules: Rules, progress: object = None) -> Solution:
        builds.append(rules)
        return official

    monkeypatch.setattr(cache, "build", fake_build)
    solution = load_or_build(OFFICIAL)
    err = capsys.readouterr().err
    assert builds == [OFFICIAL]
    assert err.count("\n") == 1 and "not usable" in err
    assert solution is official
    assert decode(OFFICIAL, table_path(OFFICIAL, folder).read_bytes()).expected_score == (
        official.expected_score)
    cache.forget_loaded()


def test_a_good_stored_table_is_read_not_rebuilt(
        official: Solution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    shutil.copy(table_path(OFFICIAL), table_path(OFFICIAL, folder))
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(folder))
    monkeypatch.setattr(cache, "build", lambda *args: pytest.fail("rebuilt a good table"))
    solution = load_or_build(OFFICIAL)
    assert np.array_equal(solution.values, official.values)
    assert capsys.readouterr().err == ""
    cache.forget_loaded()


def test_an_unwritable_cache_folder_still_works(
        official: Solution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(cache, "build", lambda *args: official)
    solution = load_or_build(OFFICIAL)
    assert solution is official
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "keeping it in memory" in err
    cache.forget_loaded()


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_one_state_turn_values_equal_the_batched_ones(rules: Rules, official: Solution,
                                                      course: Solution) -> None:
    solution = official if rules is OFFICIAL else course
    model = solution.model
    strategy = OptimalStrategy(rules)
    rng = random.Random(12)
    cards = []
    for _ in range(12):
        card = ScoreCard(rules)
        for _ in range(rng.randrange(12)):
            dice = [rng.randint(1, 6)] * 5 if rng.random() < 0.3 else [
                rng.randint(1, 6) for _ in range(5)]
            card.choose(rng.choice(card.choices(Dice.of(dice))), Dice.of(dice))
        cards.append(card)
    keys = [strategy.state_of(card) for card in cards]
    batch = States(*(np.array(column) for column in zip(*keys)))
    together = turn_values(model, solution.values, batch, table_specials(model, batch),
                           want_choice=True)
    assert together.choice is not None
    for i, (flag, mask, upper) in enumerate(keys):
        one = States(np.array([flag]), np.array([mask]), np.array([upper]))
        alone = single_turn_values(model, solution.values, flag, mask, upper,
                                   table_specials(model, one))
        assert alone.choice is not None
        assert np.array_equal(alone.leaf[:, 0], together.leaf[:, i])
        assert np.allclose(alone.keep1[:, 0], together.keep1[:, i], rtol=0, atol=1e-9)
        assert np.allclose(alone.keep2[:, 0], together.keep2[:, i], rtol=0, atol=1e-9)
        assert np.array_equal(alone.choice[:, 0], together.choice[:, i])
