"""Strategies, batched simulation, the solve/simulate commands and the table cache."""

from __future__ import annotations

import io
import json
import math
import os
import random
import re
import shutil
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import message_of, run_cli
from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice
from yahtzee.domain.die import Die
from yahtzee.domain.games import POKER_DICE, yahtzee_variant
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules
from yahtzee.domain.score_card import ScoreCard
from yahtzee.interfaces.cli import main
from yahtzee.interfaces.console import Console
from yahtzee.solver import cache
from yahtzee.solver.cache import (FORMAT_VERSION, MAGIC, DamagedTableError, Solution,
                                  TableSource, decode, encode, load_or_build, table_name)
from yahtzee.solver.dynamic import (States, single_turn_values, step, step_one, table_specials,
                                    turn_values)
from yahtzee.solver.model import option_slot
from yahtzee.solver.moments import Moments
from yahtzee.solver.events import (BuildFinished, BuildProgress, BuildStarted, Report,
                                   SolverEvent, TableNotStored, TableUnusable)
from yahtzee.solver.factory import get_strategy, simulate_games
from yahtzee.solver.poker import PokerStrategy
from yahtzee.solver.simulate import play_games, simulate
from yahtzee.solver.strategy import GreedyStrategy, OptimalStrategy
from yahtzee.storage.stats import Bucket, histogram
from yahtzee.storage.solver_files import SolverFiles


def tables_of(*solved: tuple[Rules, Solution]) -> TableSource:
    """Return a table source that gives these solutions (the session's) and nothing else."""
    known = {rules.name: solution for rules, solution in solved}

    def tables(rules: Rules) -> Solution:
        """Return the known table of ``rules``; fail the test for any other rule set."""
        if rules.name not in known:
            pytest.fail(f"the table of {rules.name} rules was asked for")
        return known[rules.name]

    return tables


def _is_sub_multiset(keep: tuple[int, ...], dice: list[int]) -> bool:
    """Return whether ``keep`` can be taken from ``dice``."""
    rest = list(dice)
    for value in keep:
        if value not in rest:
            return False
        rest.remove(value)
    return True


def _play(rules: Rules, kind: str, seed: int,
          tables: TableSource) -> tuple[int, list[object]]:
    """Play one solitaire game with a strategy; return its score and every decision."""
    strategy = get_strategy(kind, yahtzee_variant(rules), tables)
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
        assert isinstance(box, CategoryValue) and box in card.choices(Dice.of(dice))
        decisions.append(box)
        card.choose(box, Dice.of(dice))
    return card.score(), decisions


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
@pytest.mark.parametrize("kind", ["optimal", "greedy"])
def test_decisions_are_legal_deterministic_and_leave_the_dice_alone(
        rules: Rules, kind: str, official: Solution, course: Solution) -> None:
    tables = tables_of((OFFICIAL, official), (COURSE, course))
    state = Die.r.getstate()
    first = _play(rules, kind, 21, tables)
    assert _play(rules, kind, 21, tables) == first
    assert Die.r.getstate() == state


def test_get_strategy_kinds(official: Solution) -> None:
    variant = yahtzee_variant(OFFICIAL)
    optimal = get_strategy("optimal", variant, tables_of((OFFICIAL, official)))
    assert isinstance(optimal, OptimalStrategy) and optimal.values is official.values
    assert isinstance(get_strategy("greedy", variant, tables_of()), GreedyStrategy)
    assert isinstance(get_strategy("optimal", POKER_DICE, tables_of()), PokerStrategy)
    with pytest.raises(ValueError, match="unknown strategy"):
        get_strategy("random", variant, tables_of((OFFICIAL, official)))


def test_optimal_keeps_a_yahtzee_and_scores_it(official: Solution) -> None:
    strategy = OptimalStrategy(OFFICIAL, official)
    card = ScoreCard(OFFICIAL)
    assert strategy.keep(card, [6, 6, 6, 6, 6], 2) is None
    assert strategy.category(card, [6, 6, 6, 6, 6]) is CategoryValue.YAHTZEE
    assert strategy.keep(card, [6, 6, 6, 6, 2], 2) == (6, 6, 6, 6)


def test_keep_values_describe_the_decision(official: Solution) -> None:
    strategy = OptimalStrategy(OFFICIAL, official)
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
    strategy = OptimalStrategy(OFFICIAL, official)
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


def _simulate_argv(rules: str, strategy: str, games: int, seed: int, *more: str) -> list[str]:
    """Return the command line of ``simulate`` with these options."""
    return ["simulate", "--rules", rules, "--strategy", strategy, "--games", str(games),
            "--seed", str(seed), *more]


def test_simulate_command_json_and_reproducibility(
        course: Solution, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    for _ in range(2):
        status, out, err = run_cli(_simulate_argv("course", "optimal", 300, 5, "--json"), "",
                                   monkeypatch, capsys)
        assert (status, err) == (0, "")
        assert out.count("\n") == 1
        outs.append(json.loads(out))
    first, second = outs
    assert set(first) == {"game", "rules", "strategy", "games", "seed", "mean", "stdev", "min",
                          "max", "seconds"}
    assert (first["game"], first["rules"], first["strategy"], first["games"], first["seed"]) == (
        "yahtzee", "course", "optimal", 300, 5)
    assert {k: v for k, v in first.items() if k != "seconds"} == {
        k: v for k, v in second.items() if k != "seconds"}
    assert first["min"] <= first["mean"] <= first["max"]


def _histogram_rows(scores: list[int], bin_size: int, width: int) -> list[str]:
    """Return the rows ``simulate`` prints for ``scores``, worked out here independently.

    One row per ``bin_size`` points from the lowest score's to the highest's
    (empty ones kept), the count right-aligned, then a bar of ``#`` as long as
    ``width`` for the fullest row and rounded up for the others.
    """
    counts = Counter(score // bin_size for score in scores)
    top = max(counts.values())
    rows = []
    for row in range(min(counts), max(counts) + 1):
        low = row * bin_size
        bar = "#" * math.ceil(counts[row] * width / top)
        rows.append(f"  {low:>4}-{low + bin_size - 1:<4} {counts[row]:>{len(str(top))}} "
                    f"{bar}".rstrip())
    return rows


def test_simulate_command_text_is_the_seeded_games_figures(
        official: Solution, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(_simulate_argv("official", "optimal", 200, 1), "", monkeypatch,
                               capsys)
    assert (status, err) == (0, "")
    scores = [int(s) for s in simulate(OFFICIAL, "optimal", 200, 1,
                                       tables_of((OFFICIAL, official)))]
    mean, stdev = statistics.fmean(scores), statistics.stdev(scores)
    lines = out.split("\n")
    assert lines.pop() == ""
    assert re.fullmatch(r"200 games of official rules played by the optimal strategy, seed 1, "
                        r"in \d+\.\d\d s", lines[0]), lines[0]
    assert lines[1:] == [
        f"mean {mean:.2f}  stdev {stdev:.2f}  min {min(scores)}  max {max(scores)}",
        "scores:",
        *_histogram_rows(scores, 20, 50)]
    assert sum(int(line.split()[1]) for line in lines[3:]) == 200


def test_simulate_without_a_seed_tells_the_seed_that_plays_it_again(
        official: Solution, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    unseeded = ["simulate", "--rules", "official", "--games", "200"]
    status, out, err = run_cli(unseeded, "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    header = re.fullmatch(r"200 games of official rules played by the optimal strategy, "
                          r"seed (\d+), in \d+\.\d\d s", out.splitlines()[0])
    assert header is not None, out.splitlines()[0]
    seed = int(header.group(1))
    scores = [int(s) for s in simulate(OFFICIAL, "optimal", 200, seed,
                                       tables_of((OFFICIAL, official)))]
    assert out.splitlines()[1] == (f"mean {statistics.fmean(scores):.2f}  stdev "
                                   f"{statistics.stdev(scores):.2f}  min {min(scores)}  "
                                   f"max {max(scores)}")
    _, again, _ = run_cli([*unseeded, "--seed", str(seed)], "", monkeypatch, capsys)
    assert again.splitlines()[1:] == out.splitlines()[1:]
    _, report, _ = run_cli([*unseeded, "--json"], "", monkeypatch, capsys)
    figures = json.loads(report)
    _, repeated, _ = run_cli([*unseeded, "--json", "--seed", str(figures["seed"])], "",
                             monkeypatch, capsys)
    assert {k: v for k, v in figures.items() if k != "seconds"} == {
        k: v for k, v in json.loads(repeated).items() if k != "seconds"}


@pytest.mark.parametrize("args, problem", [
    (("official", "optimal", 0), "argument --games: '0' is less than 1"),
    (("official", "optimal", 1_000_001), "argument --games: '1000001' is more than 1000000"),
    (("official", "best", 10), "argument --strategy: invalid choice: 'best'"),
    (("house", "optimal", 10), "argument --rules: invalid choice: 'house'")])
def test_simulate_command_rejects_bad_arguments(args: tuple[str, str, int], problem: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(_simulate_argv(*args, 1, "--json"))
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: ") and " simulate " in err.splitlines()[0]
    last = message_of(err)
    assert re.fullmatch(r"\S.* simulate: error: " + re.escape(problem) + r".*", last), last


def test_solve_command(official: Solution, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(["solve", "--rules", "official", "--json"], "", monkeypatch,
                               capsys)
    assert (status, err) == (0, "")
    assert out.count("\n") == 1
    report = json.loads(out)
    assert set(report) == {"game", "rules", "expected_score", "seconds"}
    assert report["game"] == "yahtzee" and report["rules"] == "official"
    assert round(report["expected_score"], 4) == 254.5877
    status, text, err = run_cli(["solve", "--rules", "official"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert re.fullmatch(r"Optimal play under official rules: expected final score 254\.5877 "
                        r"\(table ready in \d+\.\d\d s\)\n", text), text
    with pytest.raises(SystemExit) as stopped:
        main(["solve", "--rules", "house", "--json"])
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert re.fullmatch(r"\S.* solve: error: argument --rules: invalid choice: 'house'.*",
                        message_of(err)), err


def test_solve_command_solves_poker_dice(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    status, text, err = run_cli(["solve", "--game", "poker-dice"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert re.fullmatch(r"Optimal play of Poker Dice: expected final score 463\.7403 "
                        r"\(table ready in \d+\.\d\d s\)\n", text), text
    status, out, err = run_cli(["solve", "--game", "poker-dice", "--json"], "", monkeypatch,
                               capsys)
    report = json.loads(out)
    assert (report["game"], report["rules"]) == ("poker-dice", "poker-dice")
    assert round(report["expected_score"], 4) == 463.7403


@pytest.mark.parametrize("strategy", ["optimal", "greedy"])
def test_simulate_command_plays_poker_dice_with_either_strategy(
        strategy: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--game", "poker-dice", "--strategy", strategy, "--games", "400",
            "--seed", "3", "--json"]
    reports = []
    for _ in range(2):
        status, out, err = run_cli(argv, "", monkeypatch, capsys)
        assert (status, err) == (0, "")
        reports.append({k: v for k, v in json.loads(out).items() if k != "seconds"})
    assert reports[0] == reports[1]
    report = reports[0]
    assert (report["game"], report["rules"], report["strategy"], report["games"]) == (
        "poker-dice", "poker-dice", strategy, 400)
    assert 0 <= report["min"] <= report["mean"] <= report["max"] <= 600
    status, text, err = run_cli(argv[:-1], "", monkeypatch, capsys)
    assert text.startswith(f"400 games of Poker Dice played by the {strategy} strategy, seed 3")


def test_poker_dice_optimal_play_averages_its_expected_score() -> None:
    scores = simulate_games(POKER_DICE, "optimal", 4000, 7, tables_of())
    greedy = simulate_games(POKER_DICE, "greedy", 4000, 7, tables_of())
    error = scores.std(ddof=1) / np.sqrt(len(scores))
    assert abs(scores.mean() - 463.7403) < 4 * error
    assert greedy.mean() < scores.mean() - 5


@pytest.mark.parametrize("argv", [["solve", "--game", "poker-dice", "--rules", "official"],
                                  ["simulate", "--game", "poker-dice", "--rules", "course"]])
def test_rules_with_poker_dice_is_the_same_error_for_every_command(
        argv: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(argv, "", monkeypatch, capsys)
    assert (status, out) == (2, "")
    assert err == "yahtzee: --rules chooses Yahtzee rules; Poker Dice has one rule set\n"


def test_histogram_rows() -> None:
    buckets = histogram([100, 101, 145, 150], 20)
    assert buckets == (Bucket(100, 119, 2), Bucket(120, 139, 0), Bucket(140, 159, 2))
    out = io.StringIO()
    Console(io.StringIO(), out).simulate_histogram(buckets, 4)
    assert out.getvalue() == "   100-119  2 ####\n   120-139  0\n   140-159  2 ####\n"
    assert _histogram_rows([100, 101, 145, 150], 20, 4) == out.getvalue().splitlines()
    Console(io.StringIO(), out).simulate_histogram(histogram([], 20), 4)
    assert out.getvalue().count("\n") == 3


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


def _reason(data: bytes, how: str) -> str:
    """Return why the table ``data`` damaged as ``how`` cannot be used, in the cache's words."""
    end = data.index(b"\n", len(MAGIC))
    payload = len(data) - end - 1
    return {"truncated": f"{len(data) // 2 - end - 1} bytes of data, expected {payload}",
            "flipped": "checksum mismatch",
            "version": f"format version {FORMAT_VERSION + 1}, expected {FORMAT_VERSION}",
            "rules": "made for other rules",
            "garbage": "not a solver table",
            "header": "truncated header"}[how]


class Recorder:
    """A ``report`` callback that records the solver's events and has the console show them."""

    def __init__(self) -> None:
        """Start with nothing reported."""
        self.events: list[SolverEvent] = []
        self.console = Console(io.StringIO(), io.StringIO())

    def __call__(self, event: SolverEvent) -> None:
        """Record ``event`` and show it as the program does (on standard error)."""
        self.events.append(event)
        self.console.solver_event(event)


def _builds_instead(monkeypatch: pytest.MonkeyPatch, solution: Solution) -> list[Rules]:
    """Make the cache's builds return ``solution`` at once; return the list of rules built."""
    builds: list[Rules] = []

    def fake_build(rules: Rules, report: Report | None = None) -> Solution:
        """Record the build and return the ready table."""
        builds.append(rules)
        return solution

    monkeypatch.setattr(cache, "build", fake_build)
    return builds


@pytest.mark.parametrize("how", ["truncated", "flipped", "version", "rules", "garbage",
                                 "header"])
def test_damaged_tables_are_detected_and_rebuilt(
        how: str, official: Solution, course: Solution, solver_cache: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    good = (solver_cache / table_name(OFFICIAL)).read_bytes()
    data = _damaged(good, how, (solver_cache / table_name(COURSE)).read_bytes())
    reason = _reason(good, how)
    with pytest.raises(DamagedTableError) as caught:
        decode(OFFICIAL, data)
    assert str(caught.value) == reason
    folder = tmp_path / "cache"
    folder.mkdir()
    path = folder / table_name(OFFICIAL)
    path.write_bytes(data)
    builds = _builds_instead(monkeypatch, official)
    report = Recorder()
    solution = load_or_build(OFFICIAL, SolverFiles(folder), report)
    assert builds == [OFFICIAL]
    assert report.events == [TableUnusable(str(path), reason)]
    assert capsys.readouterr() == (
        "", f"yahtzee: the solver table {path} is not usable ({reason}); rebuilding it\n")
    assert solution is official
    assert decode(OFFICIAL, path.read_bytes()).expected_score == official.expected_score
    cache.forget_loaded()


def test_a_good_stored_table_is_read_not_rebuilt(
        official: Solution, solver_cache: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    shutil.copy(solver_cache / table_name(OFFICIAL), folder / table_name(OFFICIAL))
    monkeypatch.setattr(cache, "build", lambda *args: pytest.fail("rebuilt a good table"))
    report = Recorder()
    solution = load_or_build(OFFICIAL, SolverFiles(folder), report)
    assert np.array_equal(solution.values, official.values)
    assert report.events == []
    assert capsys.readouterr() == ("", "")
    cache.forget_loaded()


def test_threads_asking_at_once_for_a_table_get_the_one_copy_read_once(
        official: Solution, solver_cache: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's first games ask for a table from many threads at once: one reads it, the
    others wait for that copy (each copy of a table is tens of MB)."""
    folder = tmp_path / "cache"
    folder.mkdir()
    shutil.copy(solver_cache / table_name(OFFICIAL), folder / table_name(OFFICIAL))
    store = SolverFiles(folder)
    reads: list[str] = []
    read = cache.decode

    def slow_read(rules: Rules, data: bytes) -> Solution:
        """Read the table slowly enough that the other threads ask meanwhile."""
        reads.append(threading.current_thread().name)
        time.sleep(0.2)
        return read(rules, data)

    monkeypatch.setattr(cache, "decode", slow_read)
    cache.forget_loaded()
    try:
        with ThreadPoolExecutor(6) as pool:
            got = list(pool.map(lambda _: load_or_build(OFFICIAL, store), range(6)))
        assert len(reads) == 1
        assert all(solution is got[0] for solution in got)
        assert np.array_equal(got[0].values, official.values)
    finally:
        cache.forget_loaded()


def test_tables_in_memory_are_read_only_whether_read_or_built(
        official: Solution, official_moments: Moments, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    for table in (official.values, *official_moments.tables(),
                  *official_moments.shape_tables()):
        assert not table.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        official.values.flat[0] = 1.0
    assert not decode(OFFICIAL, encode(OFFICIAL, official)).values.flags.writeable
    built = Solution(official.model, official.values.copy(), 0.0)
    assert built.values.flags.writeable
    _builds_instead(monkeypatch, built)
    assert load_or_build(OFFICIAL, SolverFiles(tmp_path)) is built
    assert not built.values.flags.writeable
    cache.forget_loaded()


def test_an_unwritable_cache_folder_still_works(
        official: Solution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    folder = blocker / "cache"
    with pytest.raises(OSError) as refused:
        folder.mkdir(parents=True, exist_ok=True)
    reason = refused.value.strerror
    assert reason is not None
    builds = _builds_instead(monkeypatch, official)
    report = Recorder()
    solution = load_or_build(OFFICIAL, SolverFiles(folder), report)
    assert solution is official and builds == [OFFICIAL]
    assert report.events == [TableNotStored(str(folder / table_name(OFFICIAL)), reason)]
    assert capsys.readouterr() == (
        "", f"yahtzee: cannot store the solver table in {folder} ({reason}); "
            "keeping it in memory only\n")
    cache.forget_loaded()


def _in_place_of_table(folder: Path, make: Callable[[Path], None], official: Solution,
                       monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[SolverEvent]]:
    """Put ``make``'s thing where the official table goes; load; return its path and events."""
    path = folder / table_name(OFFICIAL)
    folder.mkdir(parents=True, exist_ok=True)
    make(path)
    builds = _builds_instead(monkeypatch, official)
    report = Recorder()
    assert load_or_build(OFFICIAL, SolverFiles(folder), report) is official
    assert builds == [OFFICIAL]
    cache.forget_loaded()
    return path, report.events


def _aside(path: Path) -> Path:
    """Return the one thing moved aside from ``path``."""
    aside = [p for p in path.parent.iterdir() if p.name.startswith(path.name + ".corrupt-")]
    assert len(aside) == 1
    return aside[0]


def _folder_with_a_file(path: Path) -> None:
    """Make a folder, holding a file, at ``path``."""
    path.mkdir()
    (path / "kept.txt").write_text("kept\n")


@pytest.mark.parametrize("make", [_folder_with_a_file,
                                  lambda path: path.symlink_to("/dev/null"),
                                  lambda path: path.symlink_to("/dev/zero")],
                         ids=["folder", "link to /dev/null", "link to /dev/zero"])
def test_a_table_that_is_not_a_regular_file_is_set_aside_and_rebuilt(
        make: Callable[[Path], None], official: Solution, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing but a regular file is read; what is in its place is moved aside, once."""
    path, events = _in_place_of_table(tmp_path / "cache", make, official, monkeypatch)
    aside = _aside(path)
    assert events == [TableUnusable(str(path), f"not a regular file; moved aside to {aside.name}",
                                    unreadable=True)]
    assert capsys.readouterr().err == (
        f"yahtzee: cannot read the solver table {path} (not a regular file; moved aside to "
        f"{aside.name}); rebuilding it\n")
    assert decode(OFFICIAL, path.read_bytes()).expected_score == official.expected_score
    if aside.is_dir():
        assert os.listdir(aside) == ["kept.txt"]


def test_a_named_pipe_in_place_of_the_table_is_never_opened(
        official: Solution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pipe is set aside unread: a writer waiting on it still finds no reader afterwards."""
    written: list[int] = []

    def writer(path: Path) -> None:
        """Open the pipe for writing (waits for a reader), then write a little and close."""
        with open(path, "wb") as pipe:
            written.append(pipe.write(b"not a table"))

    def fifo(path: Path) -> None:
        """Make a named pipe at ``path`` with a writer waiting on it (by another name)."""
        os.mkfifo(path)
        os.link(path, tmp_path / "same-pipe")
        thread = threading.Thread(target=writer, args=(tmp_path / "same-pipe",), daemon=True)
        thread.start()
        threads.append(thread)

    threads: list[threading.Thread] = []
    path, events = _in_place_of_table(tmp_path / "cache", fifo, official, monkeypatch)
    aside = _aside(path)
    assert written == [] and isinstance(events[0], TableUnusable)
    assert events[0].reason.startswith("not a regular file")
    with open(os.open(aside, os.O_RDONLY | os.O_NONBLOCK), "rb"):
        threads[0].join()


def test_an_oversized_table_is_not_read(official: Solution, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A regular file larger than any table is set aside without being read."""
    monkeypatch.setattr(cache, "MAX_TABLE_BYTES", 1000)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail("read the whole file"))

    def big(path: Path) -> None:
        """Make a sparse file of 1001 bytes."""
        with open(path, "wb") as stream:
            stream.truncate(1001)

    path, events = _in_place_of_table(tmp_path / "cache", big, official, monkeypatch)
    assert isinstance(events[0], TableUnusable)
    assert events[0].reason.startswith("1001 bytes, more than a table can have; moved aside")
    assert _aside(path).stat().st_size == 1001


class _Terminal(io.StringIO):
    """An output stream that says it is a terminal."""

    def isatty(self) -> bool:
        """Return True: a terminal."""
        return True


def test_the_console_shows_a_build_and_its_progress_only_on_a_terminal(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    build: list[SolverEvent] = [BuildStarted("official"), BuildProgress(1, 13),
                                BuildProgress(13, 13), BuildFinished(13, 7.34)]
    console = Console(io.StringIO(), io.StringIO())
    for event in build:
        console.solver_event(event)
    assert capsys.readouterr() == (
        "", "Building the optimal-play table for official rules (once, then cached)...\n"
            "  solved 13/13 turns in 7.3 s\n")
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    for event in build:
        console.solver_event(event)
    assert terminal.getvalue() == (
        "Building the optimal-play table for official rules (once, then cached)...\n"
        "\r  solved 1/13 turns\r  solved 13/13 turns\r  solved 13/13 turns in 7.3 s\n")


def test_each_table_built_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    console = Console(io.StringIO(), io.StringIO())
    for event in (BuildStarted("course", moments=True), BuildStarted("course", shape=True)):
        console.solver_event(event)
    assert capsys.readouterr().err == (
        "Building the spread-and-chances table for course rules (once, then cached)...\n"
        "Building the win-chance table for course rules (once, then cached)...\n")


def _random_dice(rng: random.Random, yahtzee_chance: float) -> list[int]:
    """Return five random dice, a Yahtzee with the given chance."""
    if rng.random() < yahtzee_chance:
        return [rng.randint(1, 6)] * 5
    return [rng.randint(1, 6) for _ in range(5)]


def _random_card(rules: Rules, rng: random.Random) -> ScoreCard:
    """Return a card after up to 11 turns of random legal choices (many Yahtzees)."""
    card = ScoreCard(rules)
    for _ in range(rng.randrange(12)):
        dice = _random_dice(rng, 0.3)
        card.choose(rng.choice(card.choices(Dice.of(dice))), Dice.of(dice))
    return card


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_one_state_turn_values_equal_the_batched_ones(rules: Rules, official: Solution,
                                                      course: Solution) -> None:
    solution = official if rules is OFFICIAL else course
    model = solution.model
    strategy = OptimalStrategy(rules, solution)
    rng = random.Random(12)
    cards = [_random_card(rules, rng) for _ in range(12)]
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


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_fast_choices_and_steps_match_the_rules_and_step(
        rules: Rules, official: Solution, course: Solution) -> None:
    solution = official if rules is OFFICIAL else course
    model = solution.model
    strategy = OptimalStrategy(rules, solution)
    rng = random.Random(5)
    for _ in range(300):
        card = _random_card(rules, rng)
        dice = _random_dice(rng, 0.5)
        state = strategy.state_of(card)
        fast = strategy.choices(card, dice, state)
        assert fast == [(o.category, option_slot(o, model.n_categories), o.box_points,
                         o.bonus_points) for o in card.options(Dice.of(dice))]
        for _, slot, box, bonus in fast:
            flag, mask, upper = (np.array(v) for v in state)
            expected = step(model, flag, mask, upper, slot, box, bonus)
            assert step_one(model, *state, slot, box, bonus) == tuple(
                int(v) for v in expected)


def test_equal_keeps_go_to_the_lower_dice_whatever_the_rounding() -> None:
    card = ScoreCard(OFFICIAL)
    for cv in CategoryValue:
        if cv is not CategoryValue.YAHTZEE:
            card.choose(cv, Dice.of([1, 2, 3, 4, 6]))
    strategy = GreedyStrategy(OFFICIAL)
    assert strategy.keep(card, [5, 5, 2, 2, 3], 2) == (2, 2)
    assert strategy.keep(card, [6, 6, 1, 1, 3], 1) == (1, 1)
    values = strategy.keep_values(card, [5, 5, 2, 2, 3], 2)
    assert abs(values[(2, 2)] - values[(5, 5)]) < 1e-9
