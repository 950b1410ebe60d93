"""Play to win, measured: the duel against expected-score play, and the time of a decision.

Run from the project root::

    python benchmarks/bench_duel.py --rules official --games 200000 --seed 1
    python benchmarks/bench_duel.py --rules course --games 200000 --seed 1 --json

Part one is ``python -m yahtzee duel --players computer,expected``: seeded
games, seats rotating, batched on every core; it prints each side's win
rate with its 99% interval, the games per second and the calibration of
the win chances.  Part two plays ``--decision-games`` seeded games of the
play-to-win computer against the expected-score one through the
strategies a console game uses, and times every decision of the
play-to-win side (the first of a turn included: it plans the whole turn),
and the first decisions of its turns on their own (``turn_plan_median_ms``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

Z_99 = 2.5758
"""Standard errors either side of a rate in its 99% interval."""


def decision_times(rules_name: str, games: int, seed: int) -> tuple[list[float], list[float]]:
    """Return the seconds of every decision of the play-to-win side in seeded games, and of
    the first of each of its turns (where it plans the whole turn) on their own."""
    from yahtzee.app.session import Solvers
    from yahtzee.domain.dice import Dice
    from yahtzee.domain.games import get_variant
    from yahtzee.domain.rules import get_rules
    from yahtzee.domain.score_card import ScoreCard
    from yahtzee.players.kinds import COMPUTER, EXPECTED
    from yahtzee.solver.factory import get_strategy
    from yahtzee.solver.play_to_win import PlayToWinStrategy

    variant = get_variant("yahtzee", rules_name)
    setup = Solvers()
    assert COMPUTER.strategy is not None and EXPECTED.strategy is not None
    winner = get_strategy(COMPUTER.strategy, variant, setup.solutions(), setup.moments())
    assert isinstance(winner, PlayToWinStrategy)
    steady = get_strategy(EXPECTED.strategy, variant, setup.solutions())
    rng = random.Random(seed)
    times: list[float] = []
    plans: list[float] = []
    for game in range(games):
        cards = [ScoreCard(get_rules(rules_name)), ScoreCard(get_rules(rules_name))]
        order = [0, 1] if game % 2 == 0 else [1, 0]
        for _ in range(13):
            for seat in order:
                card, other = cards[seat], cards[1 - seat]
                timed = seat == 0
                chooser = winner.facing([other]) if timed else steady
                dice = [rng.randint(1, 6) for _ in range(5)]
                for rolls_left in (2, 1):
                    started = time.perf_counter()
                    keep = chooser.keep(card, dice, rolls_left)
                    if timed:
                        times.append(time.perf_counter() - started)
                        if rolls_left == 2:
                            plans.append(times[-1])
                    if keep is None:
                        break
                    dice = list(keep) + [rng.randint(1, 6) for _ in range(5 - len(keep))]
                started = time.perf_counter()
                box = chooser.category(card, dice)
                if timed:
                    times.append(time.perf_counter() - started)
                card.choose_number(box.number, Dice.of(dice))
    return times, plans


def main() -> int:
    """Run both parts and print the figures (or JSON); return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", choices=("course", "official"), default="official")
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decision-games", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from yahtzee.app.session import Solvers
    from yahtzee.domain.games import get_variant
    from yahtzee.solver.factory import duel_games

    variant = get_variant("yahtzee", args.rules)
    setup = Solvers()
    tables, moments = setup.solutions(), setup.moments()
    rules = variant.rules_name
    from yahtzee.domain.rules import get_rules
    moments(get_rules(rules))  # built (or read) before the clock starts
    started = time.perf_counter()
    tally = duel_games(["win", "optimal"], variant, args.games, args.seed, tables, moments)
    seconds = time.perf_counter() - started
    rate = float(tally.wins[0]) / tally.games
    margin = Z_99 * (rate * (1 - rate) / tally.games) ** 0.5
    times, plans = decision_times(args.rules, args.decision_games, args.seed)
    report = {
        "rules": rules, "games": tally.games, "seed": args.seed,
        "win_rate": round(rate, 5), "interval_99": [round(rate - margin, 5),
                                                    round(rate + margin, 5)],
        "mean_score": [round(float(p) / tally.games, 3) for p in tally.points],
        "seconds": round(seconds, 1), "games_per_second": round(tally.games / seconds, 1),
        "decisions": len(times),
        "decision_median_ms": round(1000 * statistics.median(times), 3),
        "decision_p90_ms": round(1000 * statistics.quantiles(times, n=10)[-1], 3),
        "decision_max_ms": round(1000 * max(times), 3),
        "turn_plan_median_ms": round(1000 * statistics.median(plans), 3),
        "calibration": [{"predicted": round(b.predicted, 4), "observed": round(b.observed, 4),
                         "count": b.count} for b in tally.calibration()]}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{tally.games} games, {rules} rules, seed {args.seed}: play to win won "
          f"{100 * rate:.2f}% (99% interval {100 * (rate - margin):.2f}-"
          f"{100 * (rate + margin):.2f}%) against expected-score play")
    print(f"mean scores {report['mean_score'][0]} and {report['mean_score'][1]}; "
          f"{seconds:.1f} s, {tally.games / seconds:.0f} games/s")
    print(f"decisions of play to win ({len(times)}): median "
          f"{report['decision_median_ms']} ms, 90th percentile {report['decision_p90_ms']} ms, "
          f"longest {report['decision_max_ms']} ms; a turn's plan (its first decision): "
          f"median {report['turn_plan_median_ms']} ms")
    print("  predicted  observed    count")
    for b in tally.calibration():
        print(f"  {b.predicted:9.3f}  {b.observed:8.3f}  {b.count:7d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
