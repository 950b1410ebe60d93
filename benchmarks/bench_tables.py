"""The spread-and-chances and shape tables' builds, timed from a solved table.

Run from the project root::

    YAHTZEE_CACHE_DIR=/path/to/warm/cache python benchmarks/bench_tables.py course
    YAHTZEE_CACHE_DIR=/path/to/warm/cache python benchmarks/bench_tables.py official

The rule set's optimal-play table is read from the cache folder (or built
first, not timed); then the moments alone, the shape alone from them (what a
cache holding only the moments needs), and the two in one pass (what a
fresh cache needs) are built in memory, each timed once.  Nothing is stored.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    """Parse the rule set's name, build its tables and print each build's seconds."""
    from yahtzee.domain.rules import COURSE, OFFICIAL
    from yahtzee.solver.cache import build_moments, build_shape, load_or_build
    from yahtzee.storage.solver_files import SolverFiles

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules", choices=["course", "official"])
    rules = {"course": COURSE, "official": OFFICIAL}[parser.parse_args().rules]
    solution = load_or_build(rules, SolverFiles.in_cache_folder())
    started = time.perf_counter()
    moments = build_moments(rules, solution)
    print(f"build_moments {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    build_shape(rules, solution, moments)
    print(f"build_shape {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    build_moments(rules, solution, with_shape=True)
    print(f"build_moments(with_shape=True) {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
