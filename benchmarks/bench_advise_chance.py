"""How near ``advise``'s win chances come to the truth in one position: shown against played out.

Run from the project root::

    python benchmarks/bench_advise_chance.py --rules official --dice "6 5 3 3 1" \\
        --card "ones=2,twos=6,threes=9,fours=12,fives=20,sixes=18,three-of-a-kind=24,\\
four-of-a-kind=0,full-house=25,small-straight=30,large-straight=40,yahtzee=0" \\
        --opponents 246,231 --finishes 20000 --seed 1

For each move ``advise`` ranks, the chance it shows against the opponents'
totals as final scores is printed beside the share of wins when the game is
played out ``--finishes`` times from that move with seeded dice: the rest of
the turn played for the win, as the chance assumes, and the later turns by
optimal play (a tie counting its share).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from yahtzee.app.advice import Move, ranked_moves  # noqa: E402
from yahtzee.app.session import Solvers  # noqa: E402
from yahtzee.domain.card import Card, Variant  # noqa: E402
from yahtzee.domain.dice import Dice  # noqa: E402
from yahtzee.domain.games import get_variant  # noqa: E402
from yahtzee.engine.records import ROLLS  # noqa: E402
from yahtzee.interfaces.advise import (InputError, parse_card, parse_dice,  # noqa: E402
                                       parse_opponents, parse_roll)
from yahtzee.solver.coach import ValueStrategy  # noqa: E402
from yahtzee.solver.play_to_win import Facing  # noqa: E402


def finish(variant: Variant, strategy: ValueStrategy, card: Card, dice: list[int],
           rolls_left: int, rng: random.Random, this_turn: Any = None) -> int:
    """Play on from ``dice`` (``rolls_left`` re-rolls left); return the final total.

    The rest of this turn is played by ``this_turn`` (default: ``strategy``),
    the later turns by ``strategy``, optimal play.
    """
    deciding = this_turn if this_turn is not None else strategy
    while True:
        while rolls_left > 0:
            keep = deciding.keep(card, dice, rolls_left)
            if keep is None:
                break
            dice = list(keep) + [rng.randint(1, 6) for _ in range(5 - len(keep))]
            rolls_left -= 1
        card.choose_number(deciding.category(card, dice).number, Dice.of(dice))
        if card.rounds_used() >= variant.rounds:
            return card.score()
        dice, rolls_left = [rng.randint(1, 6) for _ in range(5)], ROLLS - 1
        deciding = strategy


def played_out(variant: Variant, strategy: ValueStrategy, card: Card, dice: tuple[int, ...],
               roll: int, move: Move, totals: tuple[int, ...], finishes: int,
               seed: int, this_turn: Any) -> float:
    """Return the share of wins over ``finishes`` games played out from ``move`` on ``dice``.

    After a keep, the rest of the turn is played by ``this_turn`` (for the win).
    """
    rng = random.Random(seed)
    best = max(totals)
    wins = 0.0
    for _ in range(finishes):
        start = variant.restore_card(*variant.card_contents(card))
        if move.box is not None:
            start.choose_number(move.box.number, Dice.of(dice))
            if start.rounds_used() >= variant.rounds:
                final = start.score()
            else:
                final = finish(variant, strategy, start, [rng.randint(1, 6) for _ in range(5)],
                               ROLLS - 1, rng)
        else:
            assert move.keep is not None
            rolled = list(move.keep) + [rng.randint(1, 6) for _ in range(5 - len(move.keep))]
            final = finish(variant, strategy, start, rolled, ROLLS - roll - 1, rng, this_turn)
        if final > best:
            wins += 1.0
        elif final == best:
            wins += 1.0 / (1 + totals.count(best))
    return wins / finishes


def main() -> int:
    """Rank the moves, play each out, print both chances; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", choices=("course", "official"), default="official")
    parser.add_argument("--dice", required=True)
    parser.add_argument("--roll", default="1")
    parser.add_argument("--card", default="")
    parser.add_argument("--opponents", required=True)
    parser.add_argument("--finishes", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    variant = get_variant("yahtzee", args.rules)
    try:
        dice = parse_dice(variant, args.dice)
        roll = parse_roll(args.roll)
        card = parse_card(variant, args.card)
        totals = parse_opponents(args.opponents)
    except InputError as error:
        print(error, file=sys.stderr)
        return 2
    coach = Solvers().coach(variant, profiles=True)
    rest_of_turn = Facing(coach.play_to_win(), (), (float(max(totals)),))
    print(f"{'move':<32} {'shown':>6} {'played out':>10}")
    for move in ranked_moves(coach, card, dice, roll, totals):
        words = (f"score {move.box.name}" if move.box is not None
                 else f"keep {' '.join(map(str, move.keep or ()))} and roll")
        observed = played_out(variant, coach.strategy, card, dice, roll, move, totals,
                              args.finishes, args.seed, rest_of_turn)
        assert move.win_chance is not None
        print(f"{words:<32} {move.win_chance:>6.1%} {observed:>10.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
