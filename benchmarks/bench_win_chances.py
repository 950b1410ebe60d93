"""Calibration of the win chances: predicted against observed, per tenth, over seeded games.

Run from the project root::

    python benchmarks/bench_win_chances.py --rules official --games 1000 --seed 1
    python benchmarks/bench_win_chances.py --json

Two optimal players (or ``--players N``) play seeded games; at the start of
every turn the chance of the player about to roll is predicted from all
cards, then compared with how the game ended (a tie shares the win).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    """Play the games, print the calibration table (or JSON); return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", choices=("course", "official"), default="official")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from yahtzee.app.session import Solvers
    from yahtzee.domain.rules import get_rules
    from yahtzee.solver.calibration import calibration, predictions
    from yahtzee.solver.profiles import Profiler
    from yahtzee.solver.strategy import OptimalStrategy

    rules = get_rules(args.rules)
    setup = Solvers()
    solution = setup.solutions()(rules)
    strategy = OptimalStrategy(rules, solution)
    profiler = Profiler(strategy, setup.moments()(rules))
    started = time.perf_counter()
    pairs = predictions(rules, profiler, strategy, args.games, args.seed, args.players)
    seconds = time.perf_counter() - started
    bins = calibration(pairs)
    brier = sum((c - o) ** 2 for c, o in pairs) / len(pairs)
    report = {"rules": rules.name, "players": args.players, "games": args.games,
              "seed": args.seed, "predictions": len(pairs), "brier": round(brier, 5),
              "seconds": round(seconds, 1),
              "calibration": [{"predicted": round(b.predicted, 4),
                               "observed": round(b.observed, 4), "count": b.count}
                              for b in bins]}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.games} games of {args.players} optimal players, {rules.name} rules, "
          f"seed {args.seed}: {len(pairs)} predictions in {seconds:.0f} s, "
          f"Brier score {brier:.4f}")
    print("predicted  observed  count")
    for b in bins:
        print(f"{b.predicted:9.3f} {b.observed:9.3f} {b.count:6d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
