"""Solver benchmarks: cold table build (time, peak memory), decision latency, simulation speed.

Run from the project root::

    python benchmarks/bench_solver.py            # everything, text table
    python benchmarks/bench_solver.py --json     # the same figures as JSON

Each table build runs in a fresh subprocess with an empty cache folder, so
its time and peak memory (``ru_maxrss``) are those of a cold start.  Our
solver runs with its compiled kernel where it is built; with
``YAHTZEE_PURE_NUMPY=1`` set, with numpy alone (the JSON says which).  When
the PyPI package ``yatzy-solver`` is importable, its variant
``american+forced-joker`` is measured the same way, side by side; without
it that column is left out.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:
    from yahtzee.solver.cache import TableSource

THEIRS = "american+forced-joker"
"""The yatzy-solver variant that plays the official (forced-joker) rules."""


def peak_mb() -> float:
    """Return the peak resident memory of this process or its largest finished child, in MB."""
    usage = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return usage / (1024 * 1024) if sys.platform == "darwin" else usage / 1024


def child_build(which: str) -> dict[str, Any]:
    """Build one table from scratch in this (fresh) process and return its figures."""
    if which == "theirs":
        import yatzy_solver
        started = time.perf_counter()
        solver = yatzy_solver.Solver.build(yatzy_solver.Variant(THEIRS))
        seconds = time.perf_counter() - started
        value = float(solver.state_value("upper 0 | filled -"))
    else:
        from yahtzee.domain.rules import get_rules
        from yahtzee.interfaces.console import Console
        from yahtzee.solver.cache import load_or_build
        from yahtzee.storage.solver_files import SolverFiles
        store = SolverFiles.in_cache_folder()
        report = Console().solver_event
        started = time.perf_counter()
        solution = load_or_build(get_rules(which), store, report)
        seconds = time.perf_counter() - started
        value = solution.expected_score
    return {"seconds": seconds, "peak_mb": peak_mb(), "expected_score": value}


def build_in_subprocess(which: str, folder: str) -> dict[str, Any]:
    """Run ``child_build`` in a new interpreter whose cache folder is ``folder`` (empty)."""
    env = {**os.environ, "YAHTZEE_CACHE_DIR": folder}
    done = subprocess.run([sys.executable, __file__, "--child", which], env=env,
                          capture_output=True, text=True, check=True)
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def our_tables() -> TableSource:
    """Return the program's source of solved tables: the cache folder, building what is missing."""
    from yahtzee.app.session import solver_tables
    from yahtzee.interfaces.console import Console
    return solver_tables(Console().solver_event)


THEIR_BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind",
               "four_of_a_kind", "full_house", "small_straight", "large_straight",
               "five_of_a_kind", "chance")
"""yatzy-solver's names of the 13 boxes, in score-card order."""


def their_situation(scores: list[int | None], upper: int, dice: list[int],
                    rolls_left: int) -> str:
    """Return yatzy-solver's notation of a solitaire situation of the official game."""
    filled = [THEIR_BOXES[i] for i, points in enumerate(scores) if points is not None]
    text = (f"dice {' '.join(str(v) for v in sorted(dice))} | rolls {rolls_left} | "
            f"upper {min(upper, 63)} | filled {','.join(filled) or '-'}")
    if scores[11] is not None:
        text += f" | five_of_a_kind {scores[11]}"
    return text


def our_decisions(rules_name: str, games: int, seed: int) -> dict[str, Any]:
    """Time every decision of some games played by the optimal strategy (table loaded).

    The decisions are taken in play order, so the first of each turn works
    out that turn's values.  Each situation is also returned in
    yatzy-solver's notation (``situations``), with whether it opens a turn.
    """
    from yahtzee.domain.dice import Dice
    from yahtzee.domain.rules import get_rules
    from yahtzee.domain.score_card import ScoreCard
    from yahtzee.solver.strategy import OptimalStrategy

    rules = get_rules(rules_name)
    strategy = OptimalStrategy(rules, our_tables()(rules))
    rng = random.Random(seed)
    times: list[float] = []
    first: list[float] = []
    situations: list[tuple[str, bool]] = []
    for _ in range(games):
        card = ScoreCard(rules)
        while card.rounds_used() < rules.ROUNDS:
            dice = [rng.randint(1, 6) for _ in range(5)]
            for rolls_left in (2, 1):
                situations.append((their_situation(card.scores(), card.upper_subtotal(), dice,
                                                   rolls_left), rolls_left == 2))
                started = time.perf_counter()
                keep = strategy.keep(card, dice, rolls_left)
                times.append(time.perf_counter() - started)
                if rolls_left == 2:
                    first.append(times[-1])
                if keep is None:
                    break
                dice = list(keep) + [rng.randint(1, 6) for _ in range(5 - len(keep))]
            situations.append((their_situation(card.scores(), card.upper_subtotal(), dice, 0),
                               False))
            started = time.perf_counter()
            box = strategy.category(card, dice)
            times.append(time.perf_counter() - started)
            card.choose(box, Dice.of(dice))
    return {"median_ms": statistics.median(times) * 1e3,
            "first_of_turn_median_ms": statistics.median(first) * 1e3,
            "decisions": float(len(times)), "situations": situations}


@functools.lru_cache(maxsize=1)
def their_solver() -> Any:
    """Return yatzy-solver's solver of the official rules, built once in this process."""
    import yatzy_solver
    return yatzy_solver.Solver.build(yatzy_solver.Variant(THEIRS))


def their_decisions(situations: list[tuple[str, bool]]) -> dict[str, float]:
    """Time yatzy-solver's best action in the same situations, in the same order."""
    solver = their_solver()
    times = []
    first = []
    for situation, opens_turn in situations:
        started = time.perf_counter()
        solver.best_action(situation)
        times.append(time.perf_counter() - started)
        if opens_turn:
            first.append(times[-1])
    return {"median_ms": statistics.median(times) * 1e3,
            "first_of_turn_median_ms": statistics.median(first) * 1e3,
            "decisions": float(len(times))}


def our_simulation(rules_name: str, games: int, seed: int) -> dict[str, float]:
    """Simulate games with the optimal strategy (table loaded) and return speed and statistics."""
    from yahtzee.domain.rules import get_rules
    from yahtzee.solver.simulate import simulate

    rules = get_rules(rules_name)
    tables = our_tables()
    expected = tables(rules).expected_score
    started = time.perf_counter()
    scores = simulate(rules, "optimal", games, seed, tables)
    seconds = time.perf_counter() - started
    return _stats([int(s) for s in scores], seconds, expected)


def their_simulation(games: int, seed: int) -> dict[str, float]:
    """Simulate games with yatzy-solver's optimal policy and return speed and statistics."""
    solver = their_solver()
    expected = float(solver.state_value("upper 0 | filled -"))
    started = time.perf_counter()
    result = solver.simulate(games, seed=seed)
    seconds = time.perf_counter() - started
    return _stats([int(s) for s in result["scores"]], seconds, expected)


def _stats(scores: list[int], seconds: float, expected: float) -> dict[str, float]:
    """Return games per second, mean, stdev and the mean's distance in standard errors."""
    mean = statistics.fmean(scores)
    stdev = statistics.stdev(scores)
    error = stdev / len(scores) ** 0.5
    return {"games": float(len(scores)), "seconds": seconds,
            "games_per_second": len(scores) / seconds, "mean": mean, "stdev": stdev,
            "expected": expected, "standard_errors_off": abs(mean - expected) / error}


def theirs_available() -> bool:
    """Return whether yatzy-solver can be imported."""
    try:
        import yatzy_solver  # noqa: F401
    except ImportError:
        return False
    return True


def median_of(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """Return the run with the median ``key`` (the lower middle one), with every run's ``key``.

    Every run's peak memory is listed too, where runs have one.
    """
    ordered = sorted(runs, key=lambda figures: figures[key])
    result = {**ordered[(len(ordered) - 1) // 2], f"all_{key}": [f[key] for f in runs]}
    if "peak_mb" in result:
        result["all_peak_mb"] = [f["peak_mb"] for f in runs]
    return result


def build_runs(which: str, repeat: int) -> list[dict[str, Any]]:
    """Build one table ``repeat`` times, each in a fresh process with an empty cache folder."""
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as folder:
            runs.append(build_in_subprocess(which, folder))
    return runs


def run(games: int, seed: int, with_course: bool, repeat: int = 1) -> dict[str, Any]:
    """Run every benchmark and return the figures by name.

    Each measurement is taken ``repeat`` times, ours and yatzy-solver's in
    turn, so that both meet the same load; the median run is reported.
    """
    from yahtzee.solver import accel
    results: dict[str, Any] = {"ours": {}, "theirs": None, "repeat": repeat,
                               "kernel": accel.PLAN is not None,
                               "load_average_before": os.getloadavg()[0]}
    ours = results["ours"]
    theirs_too = theirs_available()
    builds: dict[str, list[dict[str, Any]]] = {"official": [], "course": [], "theirs": []}
    for _ in range(repeat):
        for which in ("official", "theirs", "course"):
            if (which != "theirs" or theirs_too) and (which != "course" or with_course):
                builds[which] += build_runs(which, 1)
    ours["build_official"] = median_of(builds["official"], "seconds")
    if with_course:
        ours["build_course"] = median_of(builds["course"], "seconds")
    decisions: list[dict[str, Any]] = []
    simulations: list[dict[str, float]] = []
    their_decision_runs: list[dict[str, float]] = []
    their_simulations: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        os.environ["YAHTZEE_CACHE_DIR"] = folder
        for _ in range(repeat):
            decisions.append(our_decisions("official", 20, seed))
            situations = decisions[-1].pop("situations")
            if theirs_too:
                their_decision_runs.append(their_decisions(situations))
            simulations.append(our_simulation("official", games, seed))
            if theirs_too:
                their_simulations.append(their_simulation(games, seed))
    ours["decisions"] = median_of(decisions, "median_ms")
    ours["decisions"]["first_of_turn_median_ms"] = statistics.median(
        d["first_of_turn_median_ms"] for d in decisions)
    ours["simulate"] = median_of(simulations, "seconds")
    if theirs_too:
        their_decision = median_of(their_decision_runs, "median_ms")
        their_decision["first_of_turn_median_ms"] = statistics.median(
            d["first_of_turn_median_ms"] for d in their_decision_runs)
        results["theirs"] = {"build_official": median_of(builds["theirs"], "seconds"),
                             "decisions": their_decision,
                             "simulate": median_of(their_simulations, "seconds")}
    results["load_average_after"] = os.getloadavg()[0]
    return results


def show(results: dict[str, Any]) -> str:
    """Return the figures as a text table, ours beside yatzy-solver's."""
    ours = results["ours"]
    theirs = results["theirs"] or {}
    rows = [("official table build (s)", "build_official", "seconds", "{:.2f}"),
            ("peak memory of the build (MB)", "build_official", "peak_mb", "{:.0f}"),
            ("official expected score", "build_official", "expected_score", "{:.4f}"),
            ("decision latency, median (ms)", "decisions", "median_ms", "{:.3f}"),
            ("first decision of a turn, median (ms)", "decisions", "first_of_turn_median_ms",
             "{:.3f}"),
            ("simulated games per second", "simulate", "games_per_second", "{:,.0f}"),
            ("simulated mean", "simulate", "mean", "{:.2f}"),
            ("simulated stdev", "simulate", "stdev", "{:.2f}"),
            ("mean - expected (standard errors)", "simulate", "standard_errors_off", "{:.2f}")]
    lines = [f"{'':36} {'yahtzee':>14} {'yatzy-solver':>14}"]
    for label, group, key, fmt in rows:
        mine = fmt.format(ours[group][key])
        other = fmt.format(theirs[group][key]) if group in theirs else "-"
        lines.append(f"{label:36} {mine:>14} {other:>14}")
    if "build_course" in ours:
        course = ours["build_course"]
        lines.append(f"course table build: {course['seconds']:.2f} s, "
                     f"peak {course['peak_mb']:.0f} MB, "
                     f"expected score {course['expected_score']:.6f}")
    lines.append("solver: " + ("the compiled kernel" if results["kernel"] else
                               "numpy alone (no kernel, or YAHTZEE_PURE_NUMPY set)"))
    lines.append(f"load average (1 min) before and after: {results['load_average_before']:.2f}, "
                 f"{results['load_average_after']:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run the benchmarks and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000, help="games to simulate")
    parser.add_argument("--seed", type=int, default=1, help="seed of dice and situations")
    parser.add_argument("--no-course", action="store_true", help="skip the course build")
    parser.add_argument("--repeat", type=int, default=3,
                        help="times each figure is measured, ours and theirs in turn (median)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_build(args.child)))
        return 0
    results = run(args.games, args.seed, not args.no_course, args.repeat)
    print(json.dumps(results, indent=2) if args.json else show(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
