"""Whole Poker Dice games through the shared turn engine, with people and computer players."""

from __future__ import annotations

import io
import re

import pytest

from yahtzee import Game, HumanPlayer
from yahtzee.app.session import Solvers
from yahtzee.domain.games import POKER_DICE
from yahtzee.domain.poker_dice import FACE_VALUES, PokerScoreCard, calculate_score
from yahtzee.interfaces.cli import main
from yahtzee.interfaces.console import Console
from yahtzee.players.kinds import COMPUTER


def test_a_person_against_the_computer_plays_nine_rounds_to_a_winner() -> None:
    script = "".join(f"score\n{box}\n" for box in range(1, 10))
    out = io.StringIO()
    players = [HumanPlayer("Player 1", POKER_DICE.new_card()),
               Solvers().player(COMPUTER, "Computer", POKER_DICE)]
    game = Game(players, variant=POKER_DICE, console=Console(io.StringIO(script), out), seed=5)
    game.play_game()
    transcript = out.getvalue()
    assert transcript.startswith("*" * 31 + "\n       WELCOME TO POKER DICE\n")
    assert game.engine.is_over() and transcript.count("*** Computer: ***") == 9 + 1
    for player in players:
        card = player.card
        assert isinstance(card, PokerScoreCard) and None not in card.scores()
    human = [d for d in game.log if d.seat == 0 and d.label is not None]
    for decision in human:
        faces = [POKER_DICE.face(v) for v in decision.dice]
        assert decision.points == calculate_score(faces, int(decision.command))
        assert all(face in FACE_VALUES for face in faces)
    totals = [p.card.score() for p in players]
    assert players[0].card.score() == sum(d.points or 0 for d in human)
    last = transcript.splitlines()[-1]
    if totals[0] != totals[1]:
        winner = players[totals.index(max(totals))].name
        assert last == f"{winner} wins with {max(totals)} points"
    else:
        assert last == f"Tie between Player 1 and Computer with {totals[0]} points"
    menu_lines = re.findall(r"^ ?\d: (.+), \d+ points$", transcript, re.M)
    assert set(menu_lines) <= {"One Pair", "Two Pair", "Three of a Kind", "Four of a Kind",
                               "Five of a Kind", "Full House", "Small Straight",
                               "Large Straight", "Chance"}


def test_two_computers_play_poker_dice_from_the_command_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--game", "poker-dice", "--players", "computer,greedy",
                 "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nComputer scored ") == out.count("\nGreedy scored ") == 9
    assert "You scored" not in out
    final = out[out.index("FINAL SCORES"):]
    totals = {name: int(total) for name, total in
              re.findall(r"^\*\*\* (\w+): \*\*\*\n(?:.*\n)*?\s+Total: (\d+)", final, re.M)}
    assert set(totals) == {"Computer", "Greedy"}
    best = max(totals.values())
    leaders = [name for name, total in totals.items() if total == best]
    expected = (f"{leaders[0]} wins with {best} points" if len(leaders) == 1
                else f"Tie between Computer and Greedy with {best} points")
    lines = out.splitlines()
    assert lines[-4] == expected
    # Then each player's score split into expectation, luck and decisions' cost, and the
    # game's number for analyze.
    assert [line.split(" = ")[0] for line in lines[-3:-1]] == [
        f"Computer: {totals['Computer']}", f"Greedy: {totals['Greedy']}"]
    assert re.fullmatch(r"Filed as game (\d+): python -m yahtzee analyze \1 reviews it\.",
                        lines[-1])
