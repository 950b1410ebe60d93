"""Tests of luck against skill: a final score is optimal play's expectation + luck - cost."""

from __future__ import annotations

import io
from typing import cast

import pytest

from yahtzee import CategoryValue, Dice, Game, ScoreCard
from yahtzee.domain.card import Variant
from yahtzee.domain.games import POKER_DICE, yahtzee_variant
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules
from yahtzee.engine.records import Decision
from yahtzee.interfaces.console import Console
from yahtzee.players.kinds import EXPECTED, GREEDY
from yahtzee.players.players import ComputerPlayer, Player, Strategy
from yahtzee.solver.cache import Solution
from yahtzee.solver.coach import Coach, ValueStrategy
from yahtzee.solver.factory import get_strategy
from yahtzee.solver.strategy import OptimalStrategy
from tests.helpers import PolicyPlayer

NO_ROLL = (False,) * 5


def tables_of(*solutions: tuple[Rules, Solution]) -> dict[Rules, Solution]:
    """Return the solved tables by rule set."""
    return dict(solutions)


def seat(kind: str, name: str, variant: Variant, tables: dict[Rules, Solution]) -> Player:
    """Return a player of ``kind`` (``policy``, or a strategy name) called ``name``."""
    if kind == "policy":
        return PolicyPlayer(name, variant.new_card())

    def load() -> Strategy:
        """Return the strategy, as the application makes it."""
        return get_strategy(kind, variant, lambda rules: tables[rules])

    return ComputerPlayer(name, variant.new_card(), load)


def coach_of(variant: Variant, tables: dict[Rules, Solution]) -> Coach:
    """Return a coach of ``variant`` judging with optimal play."""
    assert EXPECTED.strategy is not None
    strategy = get_strategy(EXPECTED.strategy, variant, lambda rules: tables[rules])
    return Coach(variant, lambda: cast(ValueStrategy, strategy))


def play(players: list[Player], variant: Variant, seed: int) -> Game:
    """Play a seeded game of ``players`` to its end, silently."""
    game = Game(players, variant=variant, console=Console(io.StringIO(), io.StringIO()),
                seed=seed)
    game.play_game()
    return game


@pytest.mark.parametrize("game_name, seed", [("official", 10), ("official", 25),
                                             ("course", 10), ("course", 15),
                                             ("poker", 3), ("poker", 8)])
def test_final_is_optimum_plus_luck_minus_cost_for_every_player(
        official: Solution, course: Solution, game_name: str, seed: int) -> None:
    variant = POKER_DICE if game_name == "poker" else yahtzee_variant(
        OFFICIAL if game_name == "official" else COURSE)
    tables = tables_of((OFFICIAL, official), (COURSE, course))
    assert GREEDY.strategy is not None and EXPECTED.strategy is not None
    players = [seat("policy", "Ann", variant, tables),
               seat(EXPECTED.strategy, "Computer", variant, tables),
               seat(GREEDY.strategy, "Greedy", variant, tables)]
    game = play(players, variant, seed)
    analyses = coach_of(variant, tables).analyze([p.name for p in players], game.log)
    if game_name != "poker":
        # The seeds give Yahtzee bonuses: official jokers, or course bonus turns filling no box.
        assert any(isinstance(p.card, ScoreCard) and p.card.get_yahtzee_bonus()
                   for p in players)
    optimum = analyses[0].optimum
    for player, analysis in zip(players, analyses):
        assert analysis.final == player.card.score()
        assert analysis.optimum == optimum
        assert analysis.final == pytest.approx(
            analysis.optimum + analysis.luck - analysis.total_cost, abs=1e-6)
    assert analyses[1].total_cost == pytest.approx(0, abs=1e-9)
    assert analyses[0].total_cost > 1 and analyses[2].total_cost > 1


def test_after_every_turn_the_expectation_has_moved_by_luck_minus_cost(
        official: Solution) -> None:
    variant = yahtzee_variant(OFFICIAL)
    tables = tables_of((OFFICIAL, official))
    players = [seat("policy", "Ann", variant, tables), seat("policy", "Bob", variant, tables)]
    game = play(players, variant, seed=12)
    coach = coach_of(variant, tables)
    strategy = OptimalStrategy(OFFICIAL, official)
    ends = [i + 1 for i, d in enumerate(game.log) if d.label is not None]
    for end in ends[:8]:
        prefix = game.log[:end]
        cards = [variant.new_card() for _ in players]
        for d in prefix:
            if d.label is not None:
                cards[d.seat].choose_number(int(d.command), Dice.of(d.dice))
        for card, analysis in zip(cards, coach.analyze(["Ann", "Bob"], prefix)):
            assert isinstance(card, ScoreCard)
            assert strategy.expected_final(card) == pytest.approx(
                analysis.optimum + analysis.luck - analysis.total_cost, abs=1e-6)


def test_a_first_roll_yahtzee_is_luck_worth_what_it_adds_to_the_expectation(
        official: Solution) -> None:
    variant = yahtzee_variant(OFFICIAL)
    coach = coach_of(variant, tables_of((OFFICIAL, official)))
    log = [Decision(1, 0, (6, 6, 6, 6, 6), NO_ROLL, 2, "score"),
           Decision(1, 0, (6, 6, 6, 6, 6), NO_ROLL, 2, "12", 50, "Yahtzee")]
    [analysis] = coach.analyze(["Ann"], log)
    card = ScoreCard(OFFICIAL)
    card.choose(CategoryValue.YAHTZEE, Dice.of((6, 6, 6, 6, 6)))
    after = OptimalStrategy(OFFICIAL, official).expected_final(card)
    assert analysis.total_cost == pytest.approx(0, abs=1e-9)
    assert analysis.luck == pytest.approx(after - analysis.optimum, abs=1e-9)
    assert analysis.optimum == pytest.approx(254.5877, abs=1e-4)
    assert analysis.luck > 30 and analysis.final == 50
