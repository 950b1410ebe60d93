"""Computer levels: players of a known strength, who err as people do.

A level sees, at each decision (the dice to keep, the box to score), every
legal option with its expected final score when optimal play follows (the
solver's tables).  It takes option ``i`` with a chance proportional to
``exp((v_i - v_best) / T)``: the best option most often, a slightly worse
one nearly as often, a costly one hardly ever, and never any option at
random regardless of cost.  The temperature ``T`` (in points) of each level was
fitted so that the mean loss against optimal play under the official rules
(254.5877 points a game) is the level's target; ``benchmarks/bench_levels.py
--fit`` fits it again.  The same temperatures serve the course rules and
Poker Dice.

The chances are drawn from the game's own generator: a console or browser
game's ``random.Random``, or the numpy generator of many simulated games,
so a seeded game is played the same way every time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from yahtzee.players.kinds import CASUAL, NOVICE, SKILLED, PlayerKind
from yahtzee.solver.dynamic import first_best
from yahtzee.solver.keeps import FloatArray, IntArray
from yahtzee.solver.strategy import TurnStrategy, keep_options
from yahtzee.solver.ties import TIE


@dataclass(frozen=True)
class Level:
    """A computer level: the kind that plays it, its temperature and the loss it aims at."""

    kind: PlayerKind
    temperature: float
    """Points: an option that costs this much is taken ``e`` times less often than the best."""
    target_loss: float
    """The mean points a game it should lose against optimal play (official rules)."""

    @property
    def strategy(self) -> str:
        """The name of the strategy that plays the level."""
        return self.kind.strategy or ""


LEVELS: tuple[Level, ...] = (
    Level(SKILLED, 0.671, 10.0),
    Level(CASUAL, 1.156, 25.0),
    Level(NOVICE, 1.834, 45.0),
)
"""The levels, strongest first; their temperatures come from ``bench_levels.py --fit``."""


POINTS_SHORT: dict[str, dict[str, float]] = {
    "official": {"skilled": 9.4, "casual": 24.6, "novice": 44.9, "greedy": 37.0},
    "course": {"skilled": 10.0, "casual": 25.2, "novice": 45.0, "greedy": 35.4},
    "poker-dice": {"skilled": 4.6, "casual": 12.1, "novice": 23.8, "greedy": 15.6},
}
"""Points a whole game a computer of known strength scores below optimal play, per rule set.

Optimal play's exact expected score minus the strategy's mean over 100,000
seeded games (``python -m yahtzee simulate --rules R --strategy S --games
100000 --seed 1``; ``--game poker-dice``); the test suite plays 10,000
more of each to check them.  A person, the computer that plays to win and
``expected`` are taken to play as well as the game allows.
"""

SHORT_POWER: dict[str, float] = {"greedy": 2.0}
"""How a strategy's shortfall is spread over the game (1 where not named): with a share
``f`` of the turns left, ``f ** power`` of it is still to come.  A level errs alike all
game long (1); greedy play costs most early, when a box spent on quick points could
have waited (2).  Fitted on the calibration of ``python -m yahtzee duel --players
expected,S --games 4000 --seed 1``: every tenth of chance within 0.015 of the outcomes."""


def shortfall(rules: str, strategy: str | None, turns_left: FloatArray | float,
              rounds: int) -> FloatArray | float:
    """Return the points ``strategy`` is expected to score below optimal play from here on.

    ``turns_left`` of the game's ``rounds`` (a number, or an array of them).
    The win chances lower a player's outlook by it.  0 for a strategy of no
    known shortfall (optimal play, playing to win, a person's ``None``) and
    under a rule set ``POINTS_SHORT`` does not know.
    """
    points = POINTS_SHORT.get(rules, {}).get(strategy or "", 0.0)
    power = SHORT_POWER.get(strategy or "", 1.0)
    if isinstance(turns_left, (int, float)):  # a number: numpy's cost is per call
        return 0.0 if not points else points * (max(turns_left, 0) / rounds) ** power
    result: FloatArray = points * (np.maximum(turns_left, 0) / rounds) ** power
    return result


def find_level(strategy: str) -> Level | None:
    """Return the level played by the strategy called ``strategy``, or None if it is none."""
    return next((level for level in LEVELS if level.strategy == strategy), None)


def choice_chances(worth: FloatArray, temperature: float) -> FloatArray:
    """Return the chance of taking each option, along the first axis of ``worth``.

    ``worth`` holds the options' expected final scores (``-inf`` for an option
    that is not offered: chance 0).  A temperature of 0 or less takes the first
    best option (within ``TIE``) for certain, as optimal play does.
    """
    if temperature <= 0:
        best = first_best(worth, axis=0)
        certain: FloatArray = (np.arange(len(worth)).reshape((-1,) + (1,) * (worth.ndim - 1))
                               == best).astype(np.float64)
        return certain
    weights = np.exp((worth - worth.max(axis=0, keepdims=True)) / temperature)
    chances: FloatArray = weights / weights.sum(axis=0, keepdims=True)
    return chances


def draw_options(worth: FloatArray, temperature: float, uniforms: FloatArray) -> IntArray:
    """Return, per column of ``worth`` (options, decisions), the option its uniform draws.

    ``uniforms`` holds one number in [0, 1) per column; the options' chances
    are ``choice_chances``, laid end to end from the first option.
    """
    chances = choice_chances(worth, temperature)
    reached = np.cumsum(chances, axis=0)
    drawn: IntArray = (reached <= uniforms[None, :] * reached[-1][None, :]).sum(axis=0)
    offered = np.isfinite(worth)
    last = len(worth) - 1 - np.argmax(offered[::-1], axis=0)
    result: IntArray = np.minimum(drawn, last)
    return result


def draw_option(worth: Sequence[float], temperature: float, rng: random.Random) -> int:
    """Return the position of the option drawn among ``worth`` (one decision's options).

    The same draw as ``draw_options`` with the uniform ``rng.random()``, in plain
    Python: a decision has at most 32 options, too few for numpy to pay.
    """
    values = list(worth)
    top = max(values)
    if temperature <= 0:
        return next(i for i, v in enumerate(values) if v >= top - TIE)
    weights = [math.exp((v - top) / temperature) for v in values]
    target = rng.random() * math.fsum(weights)
    reached = 0.0
    for position, weight in enumerate(weights):
        reached += weight
        if reached > target:
            return position
    return max(i for i, weight in enumerate(weights) if weight > 0)


class LevelStrategy:
    """A level's play of one game: the optimal strategy's options, drawn by their chances.

    It wraps an optimal ``TurnStrategy`` (Yahtzee under any rule set, or
    Poker Dice) and is shared by every game; ``drawing`` gives the decisions
    of one game, drawn from that game's generator.
    """

    def __init__(self, optimal: TurnStrategy[Any, Any], level: Level) -> None:
        """Play ``level`` with the options and values of ``optimal``."""
        self.optimal = optimal
        self.level = level

    def drawing(self, rng: random.Random) -> LevelPlay:
        """Return the decisions of a game whose generator is ``rng``."""
        return LevelPlay(self, rng)

    def keep(self, card: Any, dice: Sequence[int], rolls_left: int,
             rng: random.Random) -> tuple[int, ...] | None:
        """Return the keep drawn before the next roll, or None to score now.

        ``rolls_left`` is 1 or 2 (``ValueError`` otherwise).
        """
        if rolls_left not in (1, 2):
            raise ValueError(f"rolls_left must be 1 or 2, not {rolls_left}")
        keeps, worth = keep_options(self.optimal.turn(card), dice, rolls_left)
        choice = draw_option(worth.tolist(), self.level.temperature, rng)
        return None if choice == 0 else keeps[choice]

    def category(self, card: Any, dice: Sequence[int], rng: random.Random) -> Any:
        """Return the box drawn to score these dice in (``ValueError`` on a full card)."""
        boxes, worth = self.optimal.box_worth(card, dice)
        if not boxes:
            raise ValueError("no box can be chosen on a full card")
        return boxes[draw_option(worth, self.level.temperature, rng)]


class LevelPlay:
    """A level's decisions in one game: ``LevelStrategy``'s, drawn from the game's generator."""

    def __init__(self, strategy: LevelStrategy, rng: random.Random) -> None:
        """Decide as ``strategy`` does, drawing from ``rng``."""
        self.strategy = strategy
        self.rng = rng

    def keep(self, card: Any, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the keep drawn before the next roll, or None to score now."""
        return self.strategy.keep(card, dice, rolls_left, self.rng)

    def category(self, card: Any, dice: Sequence[int]) -> Any:
        """Return the box drawn to score these dice in."""
        return self.strategy.category(card, dice, self.rng)
