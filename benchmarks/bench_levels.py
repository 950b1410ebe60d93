"""Computer levels, measured: each level's mean loss against optimal play, and its fit.

Run from the project root::

    python benchmarks/bench_levels.py                     # each level's loss, every game
    python benchmarks/bench_levels.py --json
    python benchmarks/bench_levels.py --fit --games 40000 # fit the temperatures again

The loss of a level is optimal play's expected score (254.5877 under the
official rules) minus the level's mean over ``--games`` seeded solitaire
games (``simulate``'s batched play).  ``--fit`` searches, per level, the
temperature whose loss under the official rules is the level's target: a
bisection on the temperature's logarithm, every step playing the same
seeded games (so the loss moves smoothly with the temperature).  Without
``--fit`` it reports the loss of the temperatures in ``yahtzee.solver.levels``
under each rule set and in Poker Dice, and times the decisions of a level's
console strategy against optimal play's.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIT_STEPS = 14
"""Bisection steps of ``--fit``: the temperature to about one part in a thousand."""
LOW, HIGH = 0.05, 20.0
"""The temperatures, in points, that ``--fit`` searches between."""


def level_losses(rules_name: str, temperature: float, games: int, seed: int) -> tuple[float, float]:
    """Return (optimal expected score, mean score) of ``games`` seeded games at ``temperature``."""
    from yahtzee.app.session import solver_tables
    from yahtzee.domain.rules import get_rules
    from yahtzee.solver.simulate import play_games

    solution = solver_tables()(get_rules(rules_name))
    scores = play_games(solution.model, solution.values, games, seed, temperature)
    return solution.expected_score, float(scores.mean())


def poker_losses(temperature: float, games: int, seed: int) -> tuple[float, float]:
    """Return (optimal expected score, mean score) of seeded Poker Dice games at ``temperature``."""
    from yahtzee.solver.poker import expected_poker_score, poker_solution
    from yahtzee.solver.simulate import play_games

    model, values = poker_solution(True)
    scores = play_games(model, values, games, seed, temperature)
    return expected_poker_score(), float(scores.mean())


def fit(target: float, games: int, seed: int) -> tuple[float, float]:
    """Return the temperature whose official-rules loss is ``target``, and that loss."""
    low, high = LOW, HIGH
    loss = 0.0
    middle = (low * high) ** 0.5
    for _ in range(FIT_STEPS):
        middle = (low * high) ** 0.5
        optimum, mean = level_losses("official", middle, games, seed)
        loss = optimum - mean
        print(f"  T {middle:.4f}: loss {loss:.2f}", file=sys.stderr, flush=True)
        if loss < target:
            low = middle
        else:
            high = middle
    return middle, loss


def decision_times(strategy_name: str, games: int, seed: int) -> list[float]:
    """Return the seconds of every decision in seeded official-rules games of a strategy."""
    from yahtzee.app.session import Solvers
    from yahtzee.domain.dice import Dice
    from yahtzee.domain.games import get_variant
    from yahtzee.domain.rules import get_rules
    from yahtzee.domain.score_card import ScoreCard
    from yahtzee.players.players import Drawing
    from yahtzee.solver.factory import get_strategy

    setup = Solvers()
    made = get_strategy(strategy_name, get_variant("yahtzee", "official"), setup.solutions())
    rng = random.Random(seed)
    chooser: Any = made.drawing(rng) if isinstance(made, Drawing) else made
    times: list[float] = []
    for _ in range(games):
        card = ScoreCard(get_rules("official"))
        for _ in range(13):
            dice = [rng.randint(1, 6) for _ in range(5)]
            for rolls_left in (2, 1):
                started = time.perf_counter()
                keep = chooser.keep(card, dice, rolls_left)
                times.append(time.perf_counter() - started)
                if keep is None:
                    break
                dice = list(keep) + [rng.randint(1, 6) for _ in range(5 - len(keep))]
            started = time.perf_counter()
            box = chooser.category(card, dice)
            times.append(time.perf_counter() - started)
            card.choose_number(box.number, Dice.of(dice))
    return times


def measure(games: int, seed: int) -> dict[str, Any]:
    """Return each level's temperature and loss per rule set and in Poker Dice, and timings."""
    from yahtzee.solver.levels import LEVELS

    report: dict[str, Any] = {"games": games, "seed": seed, "levels": []}
    for level in LEVELS:
        row: dict[str, Any] = {"level": level.kind.name, "temperature": level.temperature,
                               "target_loss": level.target_loss}
        for rules_name in ("official", "course"):
            optimum, mean = level_losses(rules_name, level.temperature, games, seed)
            row[rules_name] = {"mean": round(mean, 2), "loss": round(optimum - mean, 2)}
        optimum, mean = poker_losses(level.temperature, games, seed)
        row["poker-dice"] = {"mean": round(mean, 2), "loss": round(optimum - mean, 2)}
        report["levels"].append(row)
    for name in ("optimal", LEVELS[0].strategy):
        times = decision_times(name, 20, seed)
        report[f"decision_ms_{name}"] = round(statistics.median(times) * 1000, 4)
    return report


def main() -> int:
    """Fit or measure the levels and print the figures (or JSON); return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="fit the temperatures again")
    parser.add_argument("--games", type=int, default=20000, help="games per figure")
    parser.add_argument("--seed", type=int, default=1, help="seed of the dice")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    from yahtzee.solver.levels import LEVELS

    if args.fit:
        fitted = {}
        for level in LEVELS:
            print(f"{level.kind.name}: target loss {level.target_loss}", file=sys.stderr)
            temperature, loss = fit(level.target_loss, args.games, args.seed)
            fitted[level.kind.name] = {"temperature": round(temperature, 3),
                                       "loss": round(loss, 2), "target": level.target_loss}
        print(json.dumps(fitted) if args.json else "\n".join(
            f"{name}: T = {f['temperature']} (loss {f['loss']}, target {f['target']})"
            for name, f in fitted.items()))
        return 0
    report = measure(args.games, args.seed)
    if args.json:
        print(json.dumps(report))
        return 0
    for row in report["levels"]:
        print(f"{row['level']:8} T {row['temperature']:<6} target {row['target_loss']:>5}  "
              + "  ".join(f"{game} loss {row[game]['loss']:6.2f}"
                          for game in ("official", "course", "poker-dice")))
    print(f"median decision: optimal {report['decision_ms_optimal']} ms, "
          f"{LEVELS[0].kind.name} {report['decision_ms_' + LEVELS[0].strategy]} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
