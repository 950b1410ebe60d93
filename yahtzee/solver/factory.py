"""Strategies by name: what plays a computer kind of the player-kinds table in a given game.

Yahtzee under each rule set reads its solved table (``yahtzee.solver.cache``);
Poker Dice has a small table of its own.  This is the one place that maps a
strategy name and a game to a strategy object, to optimal play's expected
score, and to many simulated games.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from yahtzee.domain.card import Variant
from yahtzee.domain.games import rules_of
from yahtzee.domain.rules import Rules
from yahtzee.players.kinds import COMPUTER, EXPECTED, GREEDY, SOLO_STRATEGIES, STRATEGIES
from yahtzee.players.players import Strategy
from yahtzee.solver.cache import TableSource
from yahtzee.solver.duel import Contender, Tally, duel
from yahtzee.solver.levels import LevelStrategy, find_level
from yahtzee.solver.moments import Moments
from yahtzee.solver.play_to_win import BoxMover, PlayToWinStrategy, outlooks_of
from yahtzee.solver.poker import (PokerStrategy, expected_poker_score, poker_moments,
                                  poker_solution)
from yahtzee.solver.profiles import Profiler
from yahtzee.solver.simulate import play_games, simulate
from yahtzee.solver.strategy import GreedyStrategy, OptimalStrategy, TurnStrategy


def get_strategy(kind: str, variant: Variant, tables: TableSource,
                 moments: MomentsSource | None = None) -> Strategy:
    """Return the strategy ``kind`` (a name of ``STRATEGIES``) for the game ``variant``.

    Optimal Yahtzee play asks ``tables`` for its rule set's table (built the
    first time it is asked for); playing to win also asks ``moments`` for the
    spreads of the scores to come (``ValueError`` without it, or for an
    unknown strategy).
    """
    if kind not in STRATEGIES:
        raise ValueError(f"unknown strategy {kind!r}; choose one of: {', '.join(STRATEGIES)}")
    rules = rules_of(variant)
    if kind == COMPUTER.strategy:
        if moments is None:
            raise ValueError("playing to win needs the moments of optimal play")
        profiler = get_profiler(variant, tables, moments)
        return cast(Strategy, PlayToWinStrategy(cast(BoxMover, profiler.strategy),
                                                profiler.moments))
    level = find_level(kind)
    optimal = kind == EXPECTED.strategy or level is not None
    strategy: TurnStrategy[Any, Any]
    if rules is None:
        strategy = PokerStrategy(optimal=optimal)
    elif optimal:
        strategy = OptimalStrategy(rules, tables(rules))
    else:
        strategy = GreedyStrategy(rules)
    return cast(Strategy, strategy if level is None else LevelStrategy(strategy, level))


MomentsSource = Callable[[Rules], Moments]
"""Gives the spreads and chances of a rule set's optimal play (``load_or_build_moments``)."""


def get_profiler(variant: Variant, tables: TableSource, moments: MomentsSource) -> Profiler:
    """Return the outcome profiler of optimal play in ``variant``.

    Yahtzee asks ``tables`` and ``moments`` for its rule set's tables;
    Poker Dice works out its own (it has no bonus or Yahtzee box).
    """
    rules = rules_of(variant)
    if rules is None:
        return Profiler(PokerStrategy(optimal=True), poker_moments(), goals=False)
    return Profiler(OptimalStrategy(rules, tables(rules)), moments(rules))


def expected_score(variant: Variant, tables: TableSource) -> float:
    """Return the expected final score of optimal solitaire play of ``variant``.

    Yahtzee asks ``tables`` for its rule set's table; Poker Dice solves its own.
    """
    rules = rules_of(variant)
    if rules is None:
        return expected_poker_score()
    return tables(rules).expected_score


def simulate_games(variant: Variant, strategy: str, games: int, seed: int | None,
                   tables: TableSource) -> npt.NDArray[np.int64]:
    """Return the final scores of ``games`` solitaire games of ``variant`` played by ``strategy``.

    ``strategy`` is a name of ``STRATEGIES``; ``seed`` seeds the dice.
    """
    rules = rules_of(variant)
    if rules is not None:
        return simulate(rules, strategy, games, seed, tables)
    if strategy not in SOLO_STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; "
                         f"choose one of: {', '.join(SOLO_STRATEGIES)}")
    level = find_level(strategy)
    model, values = poker_solution(strategy != GREEDY.strategy)
    return play_games(model, values, games, seed, 0.0 if level is None else level.temperature)


def duel_games(strategies: Sequence[str], variant: Variant, games: int, seed: int | None,
               tables: TableSource, moments: MomentsSource,
               progress: Callable[[int, int], None] | None = None) -> Tally:
    """Return the tally of ``games`` computer-only games of Yahtzee between ``strategies``.

    Each is a name of ``STRATEGIES``, one per contender; the win chances
    predicted along the way read optimal play's tables and their moments,
    each contender's lowered by its known shortfall (``levels.shortfall``).
    ``ValueError`` for Poker Dice or an unknown strategy.
    """
    rules = rules_of(variant)
    if rules is None:
        raise ValueError("duels are played under Yahtzee rules")
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise ValueError(f"unknown strategy {unknown[0]!r}; choose one of: {', '.join(STRATEGIES)}")
    solution = tables(rules)
    model, values = solution.model, solution.values
    outlooks = outlooks_of(model, values, moments(rules))
    greedy = np.zeros(model.shape)
    contenders = [Contender(model, greedy if s == GREEDY.strategy else values,
                            s == COMPUTER.strategy, _temperature(s),
                            strategy=s) for s in strategies]
    return duel(contenders, outlooks, games, seed, progress, workers=os.cpu_count() or 1)


def _temperature(strategy: str) -> float:
    """Return the temperature of the level ``strategy`` plays (0: it is no level)."""
    level = find_level(strategy)
    return 0.0 if level is None else level.temperature
