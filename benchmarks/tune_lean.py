"""Fitting ``LEAN``: duels of play to win, leaning by a given schedule, against expected play.

Run from the project root::

    python benchmarks/tune_lean.py --rules official --games 100000 --seed 1 --scale 0.002

The schedule weighs an expected final point ``scale * (k / 12) ** power``
with ``k`` turns left after the one planned (so nothing on the last turn),
or, with ``--lean``, the 13 weights given (k = 0 first); ``--scale 0`` is
play to win with the tie-breaker
alone.  Every schedule meets the same seeded dice, so two schedules
compare paired on one seed.  It prints the win rate of play to win with
its 99% interval and both mean scores, or JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

Z_99 = 2.5758
"""Standard errors either side of a rate in its 99% interval."""


def schedule(scale: float, power: float) -> tuple[float, ...]:
    """Return the 13 weights ``scale * (k / 12) ** power`` for k = 0..12 turns left after."""
    return tuple(scale * (k / 12) ** power for k in range(13))


def main() -> int:
    """Run the duel with the schedule asked for and print the figures; return the status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", choices=("course", "official"), default="official")
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scale", type=float, default=0.0)
    parser.add_argument("--power", type=float, default=1.0)
    parser.add_argument("--lean", help="13 comma-separated weights (overrides --scale)")
    parser.add_argument("--exact-turns", type=int, default=None,
                        help="turns left with an exact outlook (default: EXACT_TURNS)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from yahtzee.app.session import Solvers
    from yahtzee.domain.rules import get_rules
    from yahtzee.solver.duel import Contender, duel
    from yahtzee.solver.play_to_win import EXACT_TURNS, outlooks_of

    lean = (tuple(float(w) for w in args.lean.split(",")) if args.lean
            else schedule(args.scale, args.power))
    if len(lean) != 13:
        parser.error("--lean takes 13 weights")
    rules = get_rules(args.rules)
    setup = Solvers()
    solution = setup.solutions()(rules)
    model, values = solution.model, solution.values
    exact = EXACT_TURNS if args.exact_turns is None else args.exact_turns
    outlooks = outlooks_of(model, values, setup.moments()(rules), exact)
    contenders = [Contender(model, values, True, lean=lean), Contender(model, values, False)]
    started = time.perf_counter()
    tally = duel(contenders, outlooks, args.games, args.seed, workers=os.cpu_count() or 1)
    seconds = time.perf_counter() - started
    rate = float(tally.wins[0]) / tally.games
    margin = Z_99 * (rate * (1 - rate) / tally.games) ** 0.5
    report = {"rules": args.rules, "games": tally.games,
              "seed": args.seed, "lean": [round(w, 7) for w in lean], "exact_turns": exact,
              "win_rate": round(rate, 5),
              "interval_99": [round(rate - margin, 5), round(rate + margin, 5)],
              "mean_score": [round(float(p) / tally.games, 3) for p in tally.points],
              "seconds": round(seconds, 1), "load": [round(x, 2) for x in os.getloadavg()]}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{tally.games} games, {args.rules} rules, seed {args.seed}: play to win won "
          f"{100 * rate:.2f}% (99% interval {100 * (rate - margin):.2f}-"
          f"{100 * (rate + margin):.2f}%); mean scores {report['mean_score'][0]} and "
          f"{report['mean_score'][1]}; {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
