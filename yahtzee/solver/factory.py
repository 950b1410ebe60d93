"""Strategies by name: what plays a computer kind of the player-kinds table in a given game.

Yahtzee under each rule set reads its solved table (``yahtzee.solver.cache``);
Poker Dice has a small table of its own.  This is the one place that maps a
strategy name and a game to a strategy object.
"""

from __future__ import annotations

from typing import cast

from yahtzee.domain.card import Variant
from yahtzee.domain.games import rules_of
from yahtzee.players.kinds import COMPUTER, STRATEGIES
from yahtzee.players.players import Strategy
from yahtzee.solver.cache import TableSource
from yahtzee.solver.poker import PokerStrategy
from yahtzee.solver.strategy import GreedyStrategy, OptimalStrategy


def get_strategy(kind: str, variant: Variant, tables: TableSource) -> Strategy:
    """Return the strategy ``kind`` (a name of ``STRATEGIES``) for the game ``variant``.

    Optimal Yahtzee play asks ``tables`` for its rule set's table (built the
    first time it is asked for); ``ValueError`` for an unknown strategy.
    """
    if kind not in STRATEGIES:
        raise ValueError(f"unknown strategy {kind!r}; choose one of: {', '.join(STRATEGIES)}")
    optimal = kind == COMPUTER.strategy
    rules = rules_of(variant)
    if rules is None:
        return cast(Strategy, PokerStrategy(optimal=optimal))
    if optimal:
        return cast(Strategy, OptimalStrategy(rules, tables(rules)))
    return cast(Strategy, GreedyStrategy(rules))
