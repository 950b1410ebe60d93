"""The ``solve`` and ``simulate`` commands, as functions the command line calls.

Each writes its result to ``out`` (a readable text, or JSON) and returns
the exit status: 0, or 2 with a one-line message on stderr for a bad
argument.  numpy is imported only when a command runs.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from yahtzee.rules import Rules, get_rules

STRATEGIES = ("optimal", "greedy")
"""The strategies ``simulate`` can play."""
HISTOGRAM_WIDTH = 50
"""Characters of the longest histogram bar."""
HISTOGRAM_BIN = 20
"""Points per histogram row."""


def _rules_or_none(rules_name: str) -> Rules | None:
    """Return the rule set called ``rules_name``, or report it and return None."""
    try:
        return get_rules(rules_name)
    except ValueError as error:
        sys.stderr.write(f"yahtzee: {error}\n")
        return None


def run_solve(rules_name: str, as_json: bool, out: TextIO) -> int:
    """Print optimal play's expected final score under ``rules_name``; return the exit status."""
    rules = _rules_or_none(rules_name)
    if rules is None:
        return 2
    from yahtzee.solver.cache import load_or_build
    started = time.perf_counter()
    solution = load_or_build(rules)
    seconds = time.perf_counter() - started
    expected = solution.expected_score
    if as_json:
        out.write(json.dumps({"rules": rules.name, "expected_score": round(expected, 6),
                              "seconds": round(seconds, 3)}) + "\n")
    else:
        out.write(f"Optimal play under {rules.name} rules: expected final score "
                  f"{expected:.4f} (table ready in {seconds:.2f} s)\n")
    return 0


def histogram(scores: Sequence[int], width: int = HISTOGRAM_WIDTH,
              bin_size: int = HISTOGRAM_BIN) -> list[str]:
    """Return text rows of a histogram of ``scores``, one row per ``bin_size`` points."""
    if not scores:
        return []
    low = min(scores) // bin_size
    high = max(scores) // bin_size
    counts = [0] * (high - low + 1)
    for score in scores:
        counts[score // bin_size - low] += 1
    top = max(counts)
    digits = len(str(top))
    rows = []
    for i, count in enumerate(counts):
        start = (low + i) * bin_size
        bar = "#" * math.ceil(count * width / top) if count else ""
        rows.append(f"{start:>4}-{start + bin_size - 1:<4} {count:>{digits}} {bar}".rstrip())
    return rows


def run_simulate(rules_name: str, strategy: str, games: int, seed: int | None, as_json: bool,
                 out: TextIO) -> int:
    """Play ``games`` solitaire games with ``strategy`` and print their statistics."""
    if strategy not in STRATEGIES:
        sys.stderr.write(f"yahtzee: unknown strategy {strategy!r}; choose one of: "
                         f"{', '.join(STRATEGIES)}\n")
        return 2
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        sys.stderr.write(f"yahtzee: the number of games must be at least 1, not {games}\n")
        return 2
    rules = _rules_or_none(rules_name)
    if rules is None:
        return 2
    from yahtzee.solver.simulate import simulate
    started = time.perf_counter()
    scores = [int(s) for s in simulate(rules, strategy, games, seed)]
    seconds = time.perf_counter() - started
    mean = sum(scores) / games
    stdev = math.sqrt(sum((s - mean) ** 2 for s in scores) / (games - 1)) if games > 1 else 0.0
    report = {"rules": rules.name, "strategy": strategy, "games": games,
              "mean": round(mean, 4), "stdev": round(stdev, 4), "min": min(scores),
              "max": max(scores), "seconds": round(seconds, 3)}
    if as_json:
        out.write(json.dumps(report) + "\n")
        return 0
    seeded = f", seed {seed}" if seed is not None else ""
    noun = "game" if games == 1 else "games"
    out.write(f"{games} {noun} of {rules.name} rules played by the {strategy} strategy"
              f"{seeded}, in {seconds:.2f} s\n")
    out.write(f"mean {mean:.2f}  stdev {stdev:.2f}  min {min(scores)}  max {max(scores)}\n")
    out.write("scores:\n")
    for row in histogram(scores):
        out.write(f"  {row}\n")
    return 0
