"""Computer levels: their chances, their draws from the game's generator, and where they play."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from tests.helpers import run_cli
from yahtzee.app.session import Solvers
from yahtzee.app.service import new_game
from yahtzee.domain.card import Card
from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.games import POKER_DICE, yahtzee_variant
from yahtzee.domain.rules import COURSE, OFFICIAL, RULES, Rules
from yahtzee.domain.score_card import ScoreCard
from yahtzee.engine.engine import TurnView
from yahtzee.engine.moves import MoveKind
from yahtzee.interfaces.cli import build_parser
from yahtzee.players.kinds import (CASUAL, HUMAN, KINDS, LEVELS, NOVICE, SKILLED, SOLO_NAMES,
                                   find_kind, solo_strategy)
from yahtzee.players.players import ComputerPlayer, Drawing
from yahtzee.solver.cache import Solution, TableSource
from yahtzee.solver.factory import duel_games, get_strategy, simulate_games
from yahtzee.solver.levels import (LEVELS as LEVEL_TABLE, POINTS_SHORT, LevelStrategy,
                                   choice_chances, draw_option, draw_options, find_level,
                                   shortfall)
from yahtzee.solver.moments import Moments
from yahtzee.solver.poker import PokerStrategy, poker_solution
from yahtzee.solver.strategy import OptimalStrategy

VARIANT = yahtzee_variant(OFFICIAL)


def only(*solved: tuple[Rules, Solution]) -> TableSource:
    """Return a table source that gives these solutions and fails the test for any other."""
    known = {rules.name: solution for rules, solution in solved}

    def tables(rules: Rules) -> Solution:
        """Return the known table of ``rules``."""
        if rules.name not in known:
            pytest.fail(f"the table of {rules.name} rules was asked for")
        return known[rules.name]

    return tables


def test_chances_fall_with_the_cost_as_the_softmax_says() -> None:
    worth = np.array([10.0, 9.0, 7.0, -np.inf, 10.0])
    weights = [1.0, math.exp(-0.5), math.exp(-1.5), 0.0, 1.0]
    chances = choice_chances(worth, 2.0)
    assert chances.tolist() == pytest.approx([w / sum(weights) for w in weights], abs=1e-15)
    assert choice_chances(worth, 0.0).tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    columns = choice_chances(np.array([[1.0, 5.0], [2.0, 5.0]]), 1.0)
    assert columns[:, 0].tolist() == pytest.approx([1 / (1 + math.e), math.e / (1 + math.e)])
    assert columns[:, 1].tolist() == [0.5, 0.5]


def test_a_draw_lays_the_chances_end_to_end_and_never_takes_an_option_not_offered() -> None:
    worth = np.array([[math.log(0.5)], [math.log(0.25)], [-np.inf], [math.log(0.25)]])
    drawn = [int(draw_options(worth, 1.0, np.array([u]))[0])
             for u in (0.0, 0.49, 0.5, 0.74, 0.75, 0.999999999999)]
    assert drawn == [0, 0, 1, 1, 3, 3]
    padded = np.array([[3.0, 1.0], [3.0, 2.0], [-np.inf, -np.inf]])
    assert draw_options(padded, 5.0, np.array([1 - 1e-17, 1 - 1e-17])).tolist() == [1, 1]
    assert draw_option([1.0, 8.0, 8.0, 2.0], 0.0, random.Random(1)) == 1


def test_one_decision_draws_as_a_batch_does_with_the_same_uniform() -> None:
    worth = [4.0, 3.5, -np.inf, 1.0, 3.9, 0.0]
    for seed in range(200):
        uniform = random.Random(seed).random()
        batch = draw_options(np.array(worth)[:, None], 0.8, np.array([uniform]))
        assert draw_option(worth, 0.8, random.Random(seed)) == int(batch[0])


def test_a_seeded_sample_takes_cheaper_keeps_more_often(official: Solution) -> None:
    optimal = OptimalStrategy(OFFICIAL, official)
    card, dice = ScoreCard(OFFICIAL), [6, 6, 5, 2, 1]
    values = optimal.keep_values(card, dice, 2)
    level = find_level(CASUAL.strategy or "")
    assert level is not None
    play = LevelStrategy(optimal, level).drawing(random.Random(5))
    counts = Counter(play.keep(card, dice, 2) for _ in range(3000))
    ranked = sorted(values, key=values.__getitem__, reverse=True)
    taken = [counts[None if len(keep) == 5 else keep] for keep in ranked]
    assert taken[0] == max(taken) and ranked[0] == (6, 6)
    assert taken[0] > taken[1] > taken[2] > 0
    assert sum(taken) == 3000
    chances = choice_chances(np.array([values[k] for k in ranked]), level.temperature)
    for count, chance in zip(taken, chances):
        assert abs(count - 3000 * chance) <= 5 * math.sqrt(3000 * chance * (1 - chance)) + 1


def test_every_level_is_a_player_kind_and_a_strategy_everywhere(official: Solution) -> None:
    assert [k.name for k in LEVELS] == ["skilled", "casual", "novice"]
    assert [level.kind for level in LEVEL_TABLE] == list(LEVELS)
    assert [level.target_loss for level in LEVEL_TABLE] == [10.0, 25.0, 45.0]
    assert all(level.kind in KINDS and find_kind(level.kind.name) is level.kind
               for level in LEVEL_TABLE)
    temperatures = [level.temperature for level in LEVEL_TABLE]
    assert 0 < temperatures[0] < temperatures[1] < temperatures[2]
    for kind in LEVELS:
        made = get_strategy(kind.strategy or "", VARIANT, only((OFFICIAL, official)))
        assert isinstance(made, LevelStrategy) and isinstance(made, Drawing)
        assert isinstance(made.optimal, OptimalStrategy)
        poker = get_strategy(kind.strategy or "", POKER_DICE, only())
        assert isinstance(poker, LevelStrategy) and isinstance(poker.optimal, PokerStrategy)
    assert find_level("optimal") is None


def test_the_command_line_takes_the_levels_as_players_and_every_computer_kind_to_simulate(
        ) -> None:
    parser = build_parser()
    args = parser.parse_args(["--players", "human,casual"])
    assert args.players == [find_kind("human"), CASUAL]
    assert parser.parse_args(["play", "--players", "novice,skilled"]).players == [NOVICE, SKILLED]
    computers = [k.name for k in KINDS if k.is_computer]
    assert set(computers) <= set(SOLO_NAMES)
    for name in SOLO_NAMES:
        assert parser.parse_args(["simulate", "--strategy", name]).strategy == name
    assert [solo_strategy(n) for n in ("computer", "expected", "optimal", "greedy", "casual")] \
        == ["optimal", "optimal", "optimal", "greedy", "casual"]
    assert solo_strategy("human") is None and solo_strategy("robot") is None
    duel = parser.parse_args(["duel", "--players", "skilled,casual"])
    assert duel.players == [SKILLED, CASUAL]


def _game_log(kinds: Sequence[str], seed: int) -> tuple[list[object], list[int]]:
    """Return the log and final totals of a seeded computer game played through the service."""
    setup = Solvers()
    found = [find_kind(name) for name in kinds]
    live = new_game(setup, VARIANT, [k for k in found if k is not None], seed=seed)
    while not live.is_over():
        live.computer_move()
    return list(live.engine.log), [p.card.score() for p in live.players]


def test_a_seeded_game_of_levels_is_played_the_same_way_every_time(official: Solution) -> None:
    first = _game_log(["novice", "casual"], 12)
    assert first == _game_log(["novice", "casual"], 12)
    assert first != _game_log(["novice", "casual"], 13)


class Alternating:
    """A drawing strategy whose every keep differs from the last: it counts its draws."""

    def __init__(self) -> None:
        """Start with no draw."""
        self.draws = 0

    def drawing(self, rng: random.Random) -> Alternating:
        """Return itself (it draws nothing from ``rng``)."""
        return self

    def keep(self, card: Card, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the first die, then the first two, then the first again, and so on."""
        self.draws += 1
        return tuple(sorted(dice[:1 if self.draws % 2 else 2]))

    def category(self, card: Card, dice: Sequence[int]) -> CategoryValue:
        """Return Chance."""
        return CategoryValue.CHANCE


def test_a_drawn_keep_is_drawn_once_per_roll_however_many_toggles_lead_to_it() -> None:
    strategy = Alternating()
    player = ComputerPlayer("Casual", VARIANT.new_card(), lambda: strategy, CASUAL)
    dice = (3, 1, 4, 1, 5)
    saved: tuple[bool, ...] = (False, True, True, True, False)
    moves = []
    for _ in range(4):
        move = player.move(TurnView(1, 0, dice, saved, 2, player.card, VARIANT), False)
        moves.append(str(move))
        if move.kind is MoveKind.TOGGLE:
            position = move.number - 1
            saved = tuple(not s if i == position else s for i, s in enumerate(saved))
    assert strategy.draws == 1
    assert moves == ["2", "3", "4", "1"]
    player.move(TurnView(1, 0, dice, saved, 1, player.card, VARIANT), False)
    assert strategy.draws == 2


@pytest.mark.parametrize("rules", [OFFICIAL, COURSE], ids=lambda r: r.name)
def test_a_small_seeded_simulation_of_each_level_scores_below_optimal_play(
        rules: Rules, official: Solution, course: Solution) -> None:
    variant = yahtzee_variant(rules)
    tables = only((OFFICIAL, official), (COURSE, course))
    optimal = simulate_games(variant, "optimal", 200, 9, tables).mean()
    means = [simulate_games(variant, k.strategy or "", 200, 9, tables).mean() for k in LEVELS]
    assert means[0] < optimal and means[2] < means[0] - 15
    again = simulate_games(variant, "casual", 200, 9, tables)
    assert again.mean() == means[1]


def test_poker_dice_levels_score_below_optimal_play() -> None:
    optimal = simulate_games(POKER_DICE, "optimal", 400, 4, only()).mean()
    novice = simulate_games(POKER_DICE, "novice", 400, 4, only()).mean()
    assert novice < optimal - 10


def test_simulate_and_duel_take_a_level_by_its_kind_name(
        official: Solution, official_moments: Moments, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--rules", "official", "--strategy", "skilled", "--games", "200",
            "--seed", "9", "--json"]
    status, out, err = run_cli(argv, "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    report = json.loads(out)
    assert report["strategy"] == "skilled" and report["games"] == 200
    expected = simulate_games(VARIANT, "skilled", 200, 9, only((OFFICIAL, official)))
    assert report["mean"] == round(float(expected.mean()), 4)
    status, out, _ = run_cli(["simulate", "--rules", "official", "--strategy", "computer",
                              "--games", "50", "--seed", "9", "--json"], "", monkeypatch, capsys)
    optimal = simulate_games(VARIANT, "optimal", 50, 9, only((OFFICIAL, official)))
    assert status == 0 and json.loads(out)["mean"] == round(float(optimal.mean()), 4)
    tally = duel_games(["skilled", "novice"], VARIANT, 400, 2, lambda rules: official,
                       lambda rules: official_moments)
    assert sum(tally.wins) == pytest.approx(400)
    assert tally.wins[0] > tally.wins[1] and tally.points[0] > tally.points[1]


def test_a_console_game_of_levels_is_filed_for_stats_and_analyze(
        official: Solution, official_moments: Moments, data: object,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--players", "casual,novice", "--seed", "3", "--delay", "0", "--rules", "official"]
    status, out, _ = run_cli(argv, "", monkeypatch, capsys)
    assert status == 0 and "Casual scored" in out and "Novice scored" in out
    status, out, _ = run_cli(["stats", "--json"], "", monkeypatch, capsys)
    strengths = [group["strength"] for group in json.loads(out)["computers"]]
    assert status == 0 and sorted(strengths) == ["casual", "novice"]
    status, out, _ = run_cli(["analyze", "--json"], "", monkeypatch, capsys)
    players = json.loads(out)["players"]
    assert status == 0 and [p["name"] for p in players] == ["Casual", "Novice"]
    assert all(p["total_cost"] > 0 for p in players)


@pytest.mark.parametrize("strategy", ["skilled", "casual", "novice", "greedy"])
@pytest.mark.parametrize("rules", ["official", "course", "poker-dice"])
def test_the_known_shortfalls_are_what_the_strategies_lose(
        rules: str, strategy: str, official: Solution, course: Solution) -> None:
    """``levels.POINTS_SHORT`` against 10,000 new seeded games of each: within 2 points (the
    mean of 10,000 games is known to about half a point)."""
    if rules == "poker-dice":
        variant, best = POKER_DICE, float(poker_solution()[1].ravel()[0])
        tables = only()
    else:
        table = official if rules == "official" else course
        variant, best = yahtzee_variant(RULES[rules]), float(table.values.ravel()[0])
        tables = only((RULES[rules], table))
    mean = float(simulate_games(variant, strategy, 10_000, 17, tables).mean())
    assert POINTS_SHORT[rules][strategy] == pytest.approx(best - mean, abs=2.0)
    whole = shortfall(rules, strategy, variant.rounds, variant.rounds)
    assert whole == POINTS_SHORT[rules][strategy]
    assert shortfall(rules, strategy, 0, variant.rounds) == 0.0


def test_a_shortfall_is_spread_over_the_turns_left_and_nobody_else_falls_short() -> None:
    assert shortfall("course", "novice", 13, 13) == 45.0
    assert shortfall("course", "novice", 6.5, 13) == pytest.approx(22.5)
    assert shortfall("course", "greedy", 6.5, 13) == pytest.approx(35.4 / 4)  # it costs early
    assert np.asarray(shortfall("official", "casual", np.array([13.0, 0.0]), 13)).tolist() == [
        24.6, 0.0]
    for nobody in (None, "optimal", "win", "human"):
        assert shortfall("official", nobody, 13, 13) == 0.0
    assert shortfall("house rules", "novice", 13, 13) == 0.0


@pytest.mark.parametrize("strategy", ["novice", "greedy"])
def test_a_weaker_computer_s_chance_at_the_start_is_its_win_rate_against_best_play(
        strategy: str, course: Solution, course_moments: Moments) -> None:
    """The chance the coach gives a novice (or greedy play) against a player taken to play
    as well as the game allows is what 1,000 duels against best play give it: about a
    quarter, not the even chance of two players on empty cards."""
    variant = yahtzee_variant(COURSE)
    coach = Solvers().coach(variant, profiles=True)   # the fixtures' tables, from the cache
    cards = [variant.new_card(), variant.new_card()]
    chances = coach.win_chances(cards, 0, strategies=[None, strategy])
    assert chances is not None and chances[0] + chances[1] == pytest.approx(1.0)
    assert coach.win_chances(cards, 0, strategies=[None, None]) == pytest.approx([0.5, 0.5])
    tally = duel_games(["optimal", strategy], variant, 1000, 23, lambda rules: course,
                       lambda rules: course_moments)
    won = float(tally.wins[1]) / 1000   # its standard error is about 0.014
    assert chances[1] == pytest.approx(won, abs=0.045)
    assert chances[1] < 0.35


def test_a_live_game_s_chances_know_the_computer_s_level(
        course: Solution, course_moments: Moments) -> None:
    """A person against a novice: the coach's chances on the first roll favour the person."""
    game = new_game(Solvers(), yahtzee_variant(COURSE), [HUMAN, NOVICE], seed=4, coach=True)
    coaching = game.coaching()
    assert coaching is not None and coaching.chances is not None
    person, novice = coaching.chances
    assert person > 0.7 and novice < 0.3
