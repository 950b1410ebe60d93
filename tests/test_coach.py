"""Tests of the coach: advice matches the optimal computer, and analysis finds the costly moves."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from yahtzee import (CategoryValue, ComputerPlayer, Dice, Die, Game, HumanPlayer, Player,
                     ScoreCard)
from yahtzee.coach import Coach, analysis_json, keep_text
from yahtzee.console import Console
from yahtzee.game import yahtzee_variant
from yahtzee.player import TurnView
from yahtzee.rules import OFFICIAL
from yahtzee.solver.cache import Solution
from yahtzee.solver.strategy import OptimalStrategy

VARIANT = yahtzee_variant(OFFICIAL)


class Blunderer(ComputerPlayer):
    """Plays optimally except that in ``round`` it scores the legal box worth the least."""

    def __init__(self, round_: int) -> None:
        super().__init__("Blunderer", VARIANT.new_card(), "optimal", rules_name="official")
        self.round = round_

    def category(self, view: TurnView, console: Console) -> str:
        """Return the worst box in the chosen round, the optimal one otherwise."""
        if view.round != self.round:
            return super().category(view, console)
        strategy = self.prepare()
        assert isinstance(strategy, OptimalStrategy) and isinstance(self.card, ScoreCard)
        values = strategy.category_values(self.card, view.dice)
        return str(min(values, key=lambda box: values[box]).number)


class Mimic(HumanPlayer):
    """A 'human' who types exactly what the optimal computer would do in the same seat."""

    def __init__(self) -> None:
        super().__init__("Player 1", VARIANT.new_card())
        self.twin = ComputerPlayer("twin", self.card, "optimal", rules_name="official")

    def command(self, view: TurnView, console: Console) -> str:
        """Return the computer's next command, typed silently."""
        return self.twin.next_command(view)

    def category(self, view: TurnView, console: Console) -> str:
        """Return the computer's box."""
        assert isinstance(self.card, ScoreCard)
        return str(self.twin.prepare().category(self.card, view.dice).number)


def play(players: Sequence[Player], seed: int,
         coach: Coach | None = None) -> tuple[Game, str]:
    """Play a silent seeded game; return it and its transcript."""
    out = io.StringIO()
    game = Game(players, variant=VARIANT, console=Console(io.StringIO(), out), seed=seed,
                advisor=coach)
    game.play_game()
    return game, out.getvalue()


@pytest.mark.parametrize("seed", [1, 2])
def test_a_game_of_the_optimal_computer_costs_nothing(official: Solution, seed: int) -> None:
    game, _ = play([ComputerPlayer("Computer", VARIANT.new_card(), rules_name="official")], seed)
    [analysis] = Coach(VARIANT).analyze(["Computer"], game.progress.log)
    assert analysis.turns() == 13
    assert len(analysis.decisions) >= 13
    assert abs(analysis.total_cost) < 1e-9
    assert analysis.costliest() == []


def test_one_deliberate_mistake_is_found_with_its_exact_cost(official: Solution) -> None:
    game, _ = play([Blunderer(4)], seed=7)
    [analysis] = Coach(VARIANT).analyze(["Blunderer"], game.progress.log)
    costly = [a for a in analysis.decisions if a.cost > 1e-9]
    assert len(costly) == 1
    mistake = costly[0]
    assert (mistake.round, mistake.rolls_left) == (4, 0)
    assert analysis.costliest() == [mistake]
    assert analysis.total_cost == pytest.approx(mistake.cost, abs=1e-9)

    # The cost again, from the state values of the cards each choice leads to.
    card = ScoreCard(OFFICIAL)
    choices = [d for d in game.progress.log if d.label is not None]
    for d in choices[:3]:
        card.choose(CategoryValue.from_number(int(d.command)), Dice.of(d.dice))
    fourth = choices[3]
    dice = Dice.of(fourth.dice)
    strategy = OptimalStrategy(OFFICIAL)

    def after(box: CategoryValue) -> float:
        """Return the expected final score once ``box`` is scored with the fourth dice."""
        copy = ScoreCard.restore(OFFICIAL, card.scores(), card.get_yahtzee_bonus())
        copy.choose(box, dice)
        return strategy.expected_final(copy)

    outcomes = {box: after(box) for box in card.choices(dice)}
    chosen = CategoryValue.from_number(int(fourth.command))
    assert mistake.choice == f"score {chosen}"
    assert mistake.cost == pytest.approx(max(outcomes.values()) - outcomes[chosen], abs=1e-6)
    assert mistake.cost > 0


def test_advice_names_the_move_the_optimal_computer_makes(official: Solution) -> None:
    mimic = Mimic()
    game, transcript = play([mimic], seed=4, coach=Coach(VARIANT))
    raw = re.findall(r"^Coach: (.*) \(expected final score [\d.]+\)$", transcript, re.M)
    advice = [re.sub(r" \((save only dice|dice) [1-5 ]+( saved)?\)", "", line) for line in raw]
    assert len(advice) == len(game.progress.log)
    for full, line, decision in zip(raw, advice, game.progress.log):
        if decision.command == "roll" and any(decision.saved):
            which = " ".join(str(i + 1) for i, s in enumerate(decision.saved) if s)
            assert f"(dice {which} saved)" in full
        if decision.label is not None:
            assert line == f"score {decision.command} ({decision.label})"
        elif decision.command == "score":
            assert line == "score now"
        elif decision.command == "roll":
            kept = [v for v, s in zip(decision.dice, decision.saved) if s]
            assert line == keep_text(kept, 5, VARIANT)
    [analysis] = Coach(VARIANT).analyze(["Player 1"], game.progress.log)
    assert abs(analysis.total_cost) < 1e-9


def test_the_analysis_prints_three_lines_and_exports_json(official: Solution) -> None:
    blunderers = [Blunderer(2), Blunderer(9)]
    blunderers[1].name = "Second"
    game, _ = play(blunderers, seed=3)
    analyses = Coach(VARIANT).analyze([p.name for p in blunderers], game.progress.log)
    out = io.StringIO()
    Console(io.StringIO(), out).analysis(analyses, VARIANT)
    text = out.getvalue()
    assert "Blunderer: " in text and "Second: " in text
    assert text.count("  Round 2, scoring") == 1 and text.count("  Round 9, scoring") == 1
    data = json.loads(json.dumps(analysis_json(analyses)))
    assert [p["name"] for p in data["players"]] == ["Blunderer", "Second"]
    for player, analysis in zip(data["players"], analyses):
        assert player["total_cost"] == pytest.approx(analysis.total_cost)
        assert {"round", "rolls_left", "dice", "choice", "best", "cost"} <= set(
            player["decisions"][0])


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
    assert run("analyze", "99").returncode == 2 and run("analyze", "x").returncode == 2


def test_the_computer_unsaves_before_it_saves() -> None:
    player = ComputerPlayer("Computer", VARIANT.new_card(), rules_name="official")

    class Fixed:
        """A strategy that always keeps the two 3s."""

        def keep(self, card: object, dice: Sequence[int], rolls_left: int) -> tuple[int, ...]:
            return (3, 3)

    player._strategy = Fixed()  # type: ignore[assignment]
    view = TurnView(round=1, dice=(2, 3, 5, 4, 3), saved=(False, False, True, False, False),
                    rolls_left=2, card=player.card, variant=VARIANT)
    assert player.next_command(view) == "3"
    view = TurnView(round=1, dice=(2, 3, 5, 4, 3), saved=(False, False, False, False, False),
                    rolls_left=2, card=player.card, variant=VARIANT)
    assert player.next_command(view) == "2"
    view = TurnView(round=1, dice=(2, 3, 5, 4, 3), saved=(False, True, False, False, True),
                    rolls_left=2, card=player.card, variant=VARIANT)
    assert player.next_command(view) == "roll"
