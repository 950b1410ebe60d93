"""Tests of the coach: advice matches the optimal computer, and analysis finds the costly moves."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import pytest

from yahtzee import CategoryValue, Dice, Die, Game, HumanPlayer, Player, ScoreCard
from yahtzee.domain.card import Card
from yahtzee.domain.games import yahtzee_variant
from yahtzee.domain.rules import OFFICIAL, Rules
from yahtzee.engine.moves import Move
from yahtzee.engine.records import Decision
from yahtzee.engine.engine import TurnView
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.review import analysis_json, mistake_words
from yahtzee.interfaces.wording import keep_text, move_text
from yahtzee.players.kinds import EXPECTED
from yahtzee.players.players import ComputerPlayer, Strategy
from yahtzee.solver import play_to_win
from yahtzee.solver.cache import Solution
from yahtzee.solver.coach import Coach, Keep, ScoreBox, ValueStrategy
from yahtzee.solver.factory import get_strategy
from yahtzee.solver.moments import Moments
from yahtzee.solver.profiles import Profile, Profiler
from yahtzee.solver.ranking import MoveRanking, RankedMove, best_first
from yahtzee.solver.strategy import OptimalStrategy

VARIANT = yahtzee_variant(OFFICIAL)


def optimal(solution: Solution) -> Callable[[], Strategy]:
    """Return a loader of the optimal strategy of the official rules, reading ``solution``."""
    def tables(rules: Rules) -> Solution:
        """Return the official table (the only one these games need)."""
        assert rules == OFFICIAL
        return solution

    def load() -> Strategy:
        """Return the strategy the computer kind plays, as the application makes it."""
        assert EXPECTED.strategy is not None
        return get_strategy(EXPECTED.strategy, VARIANT, tables)

    return load


def official_coach(solution: Solution) -> Coach:
    """Return a coach of the official rules, judging with ``solution``."""
    return Coach(VARIANT, lambda: OptimalStrategy(OFFICIAL, solution))


def computer(solution: Solution, name: str = "Computer") -> ComputerPlayer:
    """Return an optimal computer player of the official rules with a new card."""
    return ComputerPlayer(name, VARIANT.new_card(), optimal(solution))


class Blunderer(ComputerPlayer):
    """Plays optimally except that in ``round`` it scores the legal box worth the least."""

    def __init__(self, round_: int, solution: Solution) -> None:
        """Seat the blunderer, who errs in round ``round_``."""
        super().__init__("Blunderer", VARIANT.new_card(), optimal(solution))
        self.round = round_

    def move(self, view: TurnView, choosing: bool, *, whole_keeps: bool = False) -> Move:
        """Return the worst box in the chosen round, the optimal move otherwise."""
        if view.round != self.round or not choosing:
            return super().move(view, choosing, whole_keeps=whole_keeps)
        strategy = self.prepare()
        assert isinstance(strategy, OptimalStrategy) and isinstance(self.card, ScoreCard)
        values = strategy.category_values(self.card, view.dice)
        return Move.box(min(values, key=lambda box: values[box]).number)


class Mimic(HumanPlayer):
    """A 'human' who types exactly what the optimal computer would do in the same seat."""

    def __init__(self, solution: Solution) -> None:
        """Seat the mimic and its computer twin, who share one card."""
        super().__init__("Player 1", VARIANT.new_card())
        self.twin = ComputerPlayer("twin", self.card, optimal(solution))

    def move(self, view: TurnView, choosing: bool) -> Move:
        """Return the computer's next move, as typed."""
        return self.twin.move(view, choosing)


def play(players: Sequence[Player], seed: int,
         advisor: Coach | None = None) -> tuple[Game, str]:
    """Play a seeded game with no typed input; return it and its transcript."""
    out = io.StringIO()
    game = Game(players, variant=VARIANT, console=Console(io.StringIO(), out), seed=seed,
                advisor=advisor)
    game.play_game()
    return game, out.getvalue()


@pytest.mark.parametrize("seed", [1, 2])
def test_a_game_of_the_optimal_computer_costs_nothing(official: Solution, seed: int) -> None:
    game, _ = play([computer(official)], seed)
    [analysis] = official_coach(official).analyze(["Computer"], game.log)
    assert analysis.turns() == 13
    assert len(analysis.decisions) >= 13
    assert abs(analysis.total_cost) < 1e-9
    assert analysis.costliest() == []


def test_one_deliberate_mistake_is_found_with_its_exact_cost(official: Solution) -> None:
    game, _ = play([Blunderer(4, official)], seed=7)
    [analysis] = official_coach(official).analyze(["Blunderer"], game.log)
    costly = [a for a in analysis.decisions if a.cost > 1e-9]
    assert len(costly) == 1
    mistake = costly[0]
    assert (mistake.round, mistake.rolls_left) == (4, 0)
    assert analysis.costliest() == [mistake]
    assert analysis.total_cost == pytest.approx(mistake.cost, abs=1e-9)

    # The cost again, from the state values of the cards each choice leads to.
    card = ScoreCard(OFFICIAL)
    choices = [d for d in game.log if d.label is not None]
    for d in choices[:3]:
        card.choose(CategoryValue.from_number(int(d.command)), Dice.of(d.dice))
    fourth = choices[3]
    dice = Dice.of(fourth.dice)
    strategy = OptimalStrategy(OFFICIAL, official)

    def after(box: CategoryValue) -> float:
        """Return the expected final score once ``box`` is scored with the fourth dice."""
        copy = ScoreCard.restore(OFFICIAL, card.scores(), card.get_yahtzee_bonus())
        copy.choose(box, dice)
        return strategy.expected_final(copy)

    outcomes = {box: after(box) for box in card.choices(dice)}
    chosen = CategoryValue.from_number(int(fourth.command))
    best = max(outcomes, key=lambda box: outcomes[box])
    assert mistake.choice == ScoreBox(chosen.number, str(chosen))
    assert mistake.best == ScoreBox(best.number, str(best))
    assert move_text(mistake.choice, VARIANT) == f"score {chosen}"
    assert mistake.cost == pytest.approx(max(outcomes.values()) - outcomes[chosen], abs=1e-6)
    assert mistake.cost > 0


def test_advice_names_the_move_the_optimal_computer_makes(official: Solution) -> None:
    mimic = Mimic(official)
    game, transcript = play([mimic], seed=4, advisor=official_coach(official))
    raw = re.findall(r"^Coach: (.*) \(expected [\d.]+\)$", transcript, re.M)
    advice = [re.sub(r" \((save only dice|dice) [1-5 ]+( saved)?\)", "", line) for line in raw]
    assert len(advice) == len(game.log)
    for full, line, decision in zip(raw, advice, game.log):
        if decision.command == "roll" and any(decision.saved):
            which = " ".join(str(i + 1) for i, s in enumerate(decision.saved) if s)
            assert f"(dice {which} saved)" in full
        if decision.label is not None:
            assert line == f"score {decision.command} ({decision.label})"
        elif decision.command == "score":
            assert line == "score now"
        elif decision.command == "roll":
            kept = [v for v, s in zip(decision.dice, decision.saved) if s]
            assert line == keep_text(Keep(tuple(sorted(kept)), 5), VARIANT)
    [analysis] = official_coach(official).analyze(["Player 1"], game.log)
    assert abs(analysis.total_cost) < 1e-9


def test_the_analysis_prints_three_lines_and_exports_json(official: Solution) -> None:
    blunderers = [Blunderer(2, official), Blunderer(9, official)]
    blunderers[1].name = "Second"
    game, _ = play(blunderers, seed=3)
    analyses = official_coach(official).analyze([p.name for p in blunderers], game.log)
    out = io.StringIO()
    Console(io.StringIO(), out).analysis(analyses, VARIANT)
    text = out.getvalue()
    assert "Blunderer: " in text and "Second: " in text
    assert text.count("  Round 2, scoring") == 1 and text.count("  Round 9, scoring") == 1
    data = json.loads(json.dumps(analysis_json(analyses, VARIANT)))
    assert [p["name"] for p in data["players"]] == ["Blunderer", "Second"]
    for player, analysis in zip(data["players"], analyses):
        assert player["total_cost"] == pytest.approx(analysis.total_cost)
        assert {"round", "rolls_left", "dice", "choice", "best", "cost"} <= set(
            player["decisions"][0])


def test_a_roll_where_scoring_was_best_names_the_box_the_review_would_score(
        official: Solution) -> None:
    straight = (2, 3, 4, 5, 6)
    rolled = Decision(1, 0, straight, (False,) * 5, 2, "roll")
    scored = Decision(1, 0, straight, (False,) * 5, 2, "score")
    coach = official_coach(official)
    [[roll]] = [a.decisions for a in coach.analyze(["Ann"], [rolled])]
    assert roll.best == Keep(straight, 5) and roll.best_box == "Large Straight"
    assert roll.cost > 10
    assert mistake_words(roll, VARIANT) == (
        f"Round 1, after the first roll (2 3 4 5 6): kept nothing and rolled; score Large "
        f"Straight now was worth {roll.cost:.1f} points more on average.")
    assert move_text(roll.best, VARIANT) == "score now"  # the console's words stay
    [[score]] = [a.decisions for a in coach.analyze(["Ann"], [scored])]
    assert score.best_box == "Large Straight" and score.cost == 0
    kept = Decision(1, 0, (1, 1, 1, 2, 6), (True, True, True, False, False), 2, "roll")
    [[keep]] = [a.decisions for a in coach.analyze(["Ann"], [kept])]
    assert keep.best_box is None  # three ones and two re-rolls: roll on


def test_analyze_judges_a_finished_game_of_the_history(official: Solution, solver_cache: Path,
                                                       tmp_path: Path) -> None:
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(tmp_path), YAHTZEE_CACHE_DIR=str(solver_cache))
    script = "".join(f"score\n{box}\n" for box in range(1, 14))

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """Run the program with ``args``; return the finished process."""
        return subprocess.run([sys.executable, "-m", "yahtzee", *args], input=stdin, text=True,
                              capture_output=True, env=env, timeout=300)

    assert run("analyze").returncode == 1
    played = run("--players", "human", "--rules", "official", "--seed", "6", stdin=script)
    assert played.returncode == 0 and "FINAL SCORES" in played.stdout
    done = run("analyze", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    [player] = data["players"]
    assert player["name"] == "Player 1" and player["total_cost"] > 0
    Die.r.seed(6)
    rolls = [[Die().get_value() for _ in range(5)] for _ in range(13)]
    assert [d["dice"] for d in player["decisions"] if d["rolls_left"] == 0] == rolls
    assert sum(d["cost"] for d in player["decisions"]) == pytest.approx(player["total_cost"])
    text = run("analyze", str(data["game_id"]))
    assert text.returncode == 0 and "COACH'S ANALYSIS" in text.stdout
    assert re.match(r"Game 1, finished [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}, "
                    r"Yahtzee, official rules\n", text.stdout), text.stdout
    assert run("analyze", "99").returncode == 2 and run("analyze", "x").returncode == 2


def test_the_computer_unsaves_before_it_saves() -> None:

    class Fixed:
        """A strategy that always keeps the two 3s."""

        def keep(self, card: Card, dice: Sequence[int],
                 rolls_left: int) -> tuple[int, ...] | None:
            """Return the two 3s."""
            return (3, 3)

        def category(self, card: Card, dice: Sequence[int]) -> CategoryValue:
            """Return Chance (never asked for here)."""
            return CategoryValue.CHANCE

    player = ComputerPlayer("Computer", VARIANT.new_card(), Fixed)

    def view(saved: tuple[bool, ...]) -> TurnView:
        """Return what the player sees in round 1 with the dice 2 3 5 4 3, ``saved`` saved."""
        return TurnView(round=1, seat=0, dice=(2, 3, 5, 4, 3), saved=saved, rolls_left=2,
                        card=player.card, variant=VARIANT)

    assert player.move(view((False, False, True, False, False)), False) == Move.toggle(3)
    assert player.move(view((False, False, False, False, False)), False) == Move.toggle(2)
    assert player.move(view((False, True, False, False, True)), False) == Move.roll()


_EQUAL_KEEPS = {(1, 4, 4, 4, 6): 140.0, (4, 4, 4, 6): 142.4, (1, 4, 4, 4): 142.4 + 3e-14,
                (4, 4, 4): 145.1 - 2e-14, (4, 4): 145.1}
"""Keeps whose values differ only in the last bits, or by a point, in the tie-breaking order."""


class _EqualKeeps:
    """A strategy and profiler stand-in: the keeps of ``_EQUAL_KEEPS``; Chance scores now."""

    def keep_values(self, card: Card, dice: Sequence[int],
                    rolls_left: int) -> dict[tuple[int, ...], float]:
        """Return the values in the tie-breaking order (keeping all five: scoring now)."""
        return dict(_EQUAL_KEEPS)

    def category_values(self, card: Card, dice: Sequence[int]) -> dict[CategoryValue, float]:
        """Return Chance, worth as much as scoring now."""
        return {CategoryValue.CHANCE: 140.0}

    def keeps(self, card: Card, dice: Sequence[int], rolls_left: int,
              only: Collection[tuple[int, ...]] | None = None
              ) -> dict[tuple[int, ...], Profile]:
        """Return the keeps' profiles (``only`` those)."""
        return {keep: Profile(mean, 36.0, 0.0, 0.1) for keep, mean in _EQUAL_KEEPS.items()
                if only is None or keep in only}

    def boxes(self, card: Card, dice: Sequence[int],
              only: Collection[int] | None = None) -> dict[CategoryValue, Profile]:
        """Return Chance's profile."""
        return {CategoryValue.CHANCE: Profile(140.0, 30.0, 0.0, 0.1)}


def test_equal_options_keep_the_tie_breaking_order_whatever_their_last_bits() -> None:
    stand_in = _EqualKeeps()
    coach = Coach(VARIANT, lambda: cast(ValueStrategy, stand_in),
                  lambda: cast(Profiler, stand_in))
    ranked = coach.keep_options(ScoreCard(OFFICIAL), [1, 4, 4, 4, 6], 2, count=5)
    assert [keep.values for keep, _ in ranked] == [
        (4, 4, 4), (4, 4), (4, 4, 4, 6), (1, 4, 4, 4), (1, 4, 4, 4, 6)]


def test_the_best_move_without_profiles_is_the_first_option_even_among_ties() -> None:
    stand_in = _EqualKeeps()
    coach = Coach(VARIANT, lambda: cast(ValueStrategy, stand_in),
                  lambda: cast(Profiler, stand_in))
    dice = [1, 4, 4, 4, 6]
    assert coach.best_move(ScoreCard(OFFICIAL), dice, 2, scoring=False) == Keep((4, 4, 4), 5)
    assert coach.best_move(ScoreCard(OFFICIAL), dice, 0, scoring=True) == coach.box_options(
        ScoreCard(OFFICIAL), dice)[0][0]


def test_the_best_move_is_the_first_of_the_ranked_options_in_seeded_positions(
        official: Solution) -> None:
    """A seeded game's every position: the best move is the first option, scoring now too."""
    strategy = OptimalStrategy(OFFICIAL, official)
    coach = Coach(VARIANT, lambda: strategy)
    moves = 0
    for seed in range(3):
        card = ScoreCard(OFFICIAL)
        rng = random.Random(seed)
        for _ in range(13):
            dice = sorted(rng.randint(1, 6) for _ in range(5))
            for rolls_left in (2, 1):
                ranked = coach.rank_moves(card, dice, rolls_left).keeps(1)[0].move
                best = coach.best_move(card, dice, rolls_left, scoring=False)
                assert best == ranked, (card.scores(), dice, rolls_left)
                moves += 1
            box = coach.best_move(card, dice, 0, scoring=True)
            assert box == coach.rank_moves(card, dice, 0).boxes(1)[0].move
            assert isinstance(box, ScoreBox)
            card.choose_number(box.number, Dice.of(dice))
    assert moves == 78
    five_sixes = coach.best_move(ScoreCard(OFFICIAL), [6] * 5, 2, scoring=False)
    assert five_sixes == Keep((6,) * 5, 5)  # scoring now, as the options show it
    assert coach.rank_moves(ScoreCard(OFFICIAL), [6] * 5, 2).keeps(1)[0].move == five_sixes


def test_the_options_shown_have_the_profiles_the_whole_ranking_gives_them(
        official: Solution, official_moments: Moments) -> None:
    """Only the options shown are profiled: each exactly as when every move is profiled."""
    strategy = OptimalStrategy(OFFICIAL, official)
    coach = Coach(VARIANT, lambda: strategy, lambda: Profiler(strategy, official_moments))
    scoring_now = 0
    for seed in range(3):
        card = ScoreCard(OFFICIAL)
        rng = random.Random(seed)
        for _ in range(13):
            dice = sorted([rng.randint(1, 6)] * 5 if rng.random() < 0.2
                          else [rng.randint(1, 6) for _ in range(5)])
            for rolls_left in (2, 1):
                whole = coach.rank_moves(card, dice, rolls_left)  # every move profiled
                for count in (1, 3, 8):
                    shown = coach.keep_options(card, dice, rolls_left, count)
                    assert shown == [(m.move, m.profile) for m in whole.keeps(count)]
                    scoring_now += sum(keep.scores_now for keep, _ in shown)
            whole = coach.rank_moves(card, dice, 0)
            for count in (1, 3, 13):
                assert coach.box_options(card, dice, count) == [
                    (m.move, m.profile) for m in whole.boxes(count)]
            card.choose_number(coach.category_advice(card, dice).box.number, Dice.of(dice))
    assert scoring_now > 0


def test_moves_closer_than_the_tie_width_are_ranked_in_tie_order() -> None:
    values = [1.0, 2.0, 2.0 + 5e-10, 1.0 + 5e-10,  # pairs within TIE: the first of each first
              3.0, 3.0 + 0.8e-9, 3.0 + 1.6e-9]  # a chain: only its neighbours are equal
    moves = [RankedMove(Keep((i,), 5), value) for i, value in enumerate(values)]
    order = [cast(Keep, ranked.move).values[0] for ranked in best_first(moves)]
    assert order == [5, 6, 4, 1, 2, 0, 3]


def test_score_now_stands_once_where_the_best_box_ranks() -> None:
    dice = (2, 2, 3, 5, 6)
    moves = (RankedMove(Keep((2, 2), 5), 9.0), RankedMove(ScoreBox(2, "Twos"), 8.0),
             RankedMove(Keep((2,), 5), 7.0), RankedMove(ScoreBox(3, "Threes"), 6.0),
             RankedMove(Keep((), 5), 5.0))
    ranking = MoveRanking(moves, dice)
    folded = [(ranked.move, ranked.expected) for ranked in ranking.keeps(4)]
    assert folded == [(Keep((2, 2), 5), 9.0), (Keep(dice, 5), 8.0), (Keep((2,), 5), 7.0),
                      (Keep((), 5), 5.0)]
    assert len(ranking.keeps(2)) == 2 and ranking.keeps(0) == []


def test_a_coach_shared_by_many_games_threads_makes_each_of_its_strategies_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's coach serves every game's thread; the first games ask at once, and each
    strategy is made once (made twice at once, a play-to-win strategy held its arrays twice)."""
    made: list[str] = []

    def slowly(name: str, thing: Callable[[], Any]) -> Callable[..., Any]:
        """Return a maker of a new ``thing()`` that takes a while and notes each call."""
        def make(*_: object) -> Any:
            """Note the call, wait, and make a new one."""
            made.append(name)
            time.sleep(0.1)
            return thing()
        return make

    fake_profiler = type("FakeProfiler", (), {"strategy": None, "moments": None})
    coach = Coach(yahtzee_variant(OFFICIAL), slowly("strategy", object),
                  slowly("profiler", fake_profiler))
    monkeypatch.setattr(play_to_win, "PlayToWinStrategy", slowly("play to win", object))
    with ThreadPoolExecutor(6) as pool:
        got = list(pool.map(lambda _: (coach.strategy, coach.profiler, coach.play_to_win()),
                            range(6)))
    assert sorted(made) == ["play to win", "profiler", "strategy"]
    assert all(all(a is b for a, b in zip(trio, got[0])) for trio in got)
