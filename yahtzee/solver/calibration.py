"""Are the win chances honest?  Seeded games of optimal players, predictions against outcomes.

Each game seats optimal players; at the start of every turn the chance of
the player about to roll is predicted from all cards (the one outlook of
every win chance, as ``PlayToWinStrategy.chances`` reads it), and when
the game ends each prediction meets its outcome: 1 for a win, the share
of a tie, 0 for a loss.  Grouped per tenth of the
predicted chance, an honest prediction's mean matches the outcomes' mean.
The grouping (``calibration``) needs no numpy: the statistics of the
history use it on the chances filed with the games.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from yahtzee.domain.dice import Dice
from yahtzee.domain.score_card import ScoreCard

if TYPE_CHECKING:
    from yahtzee.domain.rules import Rules
    from yahtzee.solver.profiles import Profiler
    from yahtzee.solver.strategy import OptimalStrategy

BINS = 10
"""Predictions are grouped per tenth."""


@dataclass(frozen=True)
class Bin:
    """The predictions that fell in one tenth: their mean, the outcomes' mean, how many."""

    low: float
    predicted: float
    observed: float
    count: int


class Decider(Protocol):
    """What playing a turn asks of a strategy: a keep before each re-roll, then a box."""

    def keep(self, card: Any, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the dice values to keep, or None to score now."""
        ...

    def category(self, card: Any, dice: Sequence[int]) -> Any:
        """Return the box (anything with a menu ``number``) to score the dice in."""
        ...


def play_turn(strategy: Decider, card: ScoreCard, rng: random.Random) -> None:
    """Play one turn of ``strategy`` (optimal play, say) on ``card`` with dice from ``rng``."""
    dice = [rng.randint(1, 6) for _ in range(5)]
    for rolls_left in (2, 1):
        keep = strategy.keep(card, dice, rolls_left)
        if keep is None:
            break
        dice = list(keep) + [rng.randint(1, 6) for _ in range(5 - len(keep))]
    card.choose_number(strategy.category(card, dice).number, Dice.of(dice))


def predictions(rules: Rules, profiler: Profiler, strategy: OptimalStrategy, games: int,
                seed: int, players: int = 2) -> list[tuple[float, float]]:
    """Return (predicted chance, outcome) at every turn's start of ``games`` seeded games."""
    from yahtzee.solver.play_to_win import PlayToWinStrategy
    winner = PlayToWinStrategy(cast(Any, profiler.strategy), profiler.moments)
    rng = random.Random(seed)
    pairs: list[tuple[float, float]] = []
    for _ in range(games):
        cards = [ScoreCard(rules) for _ in range(players)]
        made: list[tuple[int, float]] = []
        for _round in range(rules.ROUNDS):
            for seat, card in enumerate(cards):
                made.append((seat, winner.chances(cards)[seat]))
                play_turn(strategy, card, rng)
        finals = [card.score() for card in cards]
        best = max(finals)
        leaders = finals.count(best)
        outcomes = [1.0 / leaders if total == best else 0.0 for total in finals]
        pairs.extend((chance, outcomes[seat]) for seat, chance in made)
    return pairs


def calibration(pairs: Sequence[tuple[float, float]], bins: int = BINS) -> list[Bin]:
    """Return the predictions grouped per ``1 / bins`` of chance (empty groups left out)."""
    groups: list[list[tuple[float, float]]] = [[] for _ in range(bins)]
    for chance, outcome in pairs:
        groups[min(int(chance * bins), bins - 1)].append((chance, outcome))
    return [Bin(i / bins, sum(c for c, _ in group) / len(group),
                sum(o for _, o in group) / len(group), len(group))
            for i, group in enumerate(groups) if group]
