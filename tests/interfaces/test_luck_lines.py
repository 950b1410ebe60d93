"""The luck lines: each player's final score as expectation + luck - decisions, where they show."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from tests.helpers import run_cli
from yahtzee.app.session import Solvers, SolverUnavailableError
from yahtzee.domain.card import Variant
from yahtzee.domain.games import yahtzee_variant
from yahtzee.domain.rules import OFFICIAL
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.review import analysis_json
from yahtzee.interfaces.review_html import luck_bar, signed
from yahtzee.interfaces.wording import luck_line
from yahtzee.solver.cache import Solution
from yahtzee.solver.coach import Assessment, Coach, PlayerAnalysis, ScoreBox
from yahtzee.solver.moments import Moments

LUCK_LINE = re.compile(r"^(\w+): (\d+) = ([\d.]+) expected ([+-]) ([\d.]+) luck "
                       r"- ([\d.]+) decisions$")
WINNER = re.compile(r"^(.* wins with|Tie between .* with|.* finished with) \d+ points$", re.M)


def analysis(optimum: float, luck: float, cost: float, final: int) -> PlayerAnalysis:
    """Return Ann's analysis with these figures, its cost in one decision."""
    decision = Assessment(1, 0, 0, (1, 2, 3, 4, 5), ScoreBox(13, "Chance"),
                          ScoreBox(13, "Chance"), 100.0 - cost, 100.0)
    return PlayerAnalysis("Ann", (decision,), optimum, luck, final)


@pytest.mark.parametrize("figures, line", [
    ((254.5877, 12.26, 35.8877, 231), "Ann: 231 = 254.6 expected + 12.3 luck - 35.9 decisions"),
    ((254.5877, 0.41, 0.0, 255), "Ann: 255 = 254.6 expected + 0.4 luck - 0.0 decisions"),
    # The figures shown add up: the luck is 180 - 254.6 + 62.2, not -12.34 rounded.
    ((254.5877, -12.34, 62.2477, 180), "Ann: 180 = 254.6 expected - 12.4 luck - 62.2 decisions"),
    # A luck of -0.02 is shown as 254 - 254.6 + 0.6: no "- 0.0".
    ((254.5877, -0.02, 0.5677, 254), "Ann: 254 = 254.6 expected + 0.0 luck - 0.6 decisions"),
])
def test_the_luck_line_adds_up_to_the_final_score(
        figures: tuple[float, float, float, int], line: str) -> None:
    assert luck_line(analysis(*figures)) == line


def test_the_reviews_bars_show_the_luck_of_the_luck_line() -> None:
    # computed, the luck is -12.34 (-12.3 to a tenth); the line shows -12.4 so that it adds up,
    # and the bar beside it must not show another figure
    bars = luck_bar(analysis(254.5877, -12.34, 62.2477, 180), 300.0)
    assert ">\u221212.4<" in bars and "12.3" not in bars
    assert ">254.6<" in bars and ">\u221262.2<" in bars and ">180<" in bars


def test_decisions_that_cost_nothing_are_not_shown_as_a_gain() -> None:
    bars = luck_bar(analysis(254.5877, 0.41, 0.0, 255), 300.0)
    assert ">0.0<" in bars and "+0.0" not in bars and ">+0.4<" in bars


@pytest.mark.parametrize("value, shown", [
    (0.0, "0.0"), (0.04, "0.0"), (-0.04, "0.0"), (0.4, "+0.4"), (-4, "\u22124.0"),
    (12.34, "+12.3")])
def test_points_are_signed_unless_they_round_to_nothing(value: float, shown: str) -> None:
    assert signed(value) == shown


def test_the_analysis_shows_the_luck_line_first_and_exports_the_figures() -> None:
    variant = yahtzee_variant(OFFICIAL)
    analyses = [analysis(254.5877, -12.3400001, 62.2477, 180)]
    out = io.StringIO()
    Console(io.StringIO(), out).analysis(analyses, variant)
    lines = out.getvalue().splitlines()
    assert lines[3] == "Ann: 180 = 254.6 expected - 12.4 luck - 62.2 decisions"
    assert lines[4].startswith("Ann: 62.2 expected points lost")
    [player] = json.loads(json.dumps(analysis_json(analyses, variant)))["players"]
    assert list(player) == ["name", "optimum", "luck", "total_cost", "final", "win_chances",
                            "decisions"]
    assert (player["optimum"], player["luck"], player["total_cost"], player["final"]) == (
        254.5877, -12.34, 62.2477, 180)


def script(rounds: int) -> str:
    """Return input that scores box N at the first roll of round N."""
    return "".join(f"score\n{n}\n" for n in range(1, rounds + 1))


def test_a_game_with_a_computer_ends_with_the_lines_of_analyze(
        official: Solution, official_moments: Moments, data: Path,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(["--players", "human,greedy", "--names", "Ann,Greedy",
                                "--rules", "official", "--seed", "8"], script(13),
                               monkeypatch, capsys)
    assert (status, err) == (0, "")
    winner = WINNER.search(out)
    assert winner is not None
    lines = out[winner.end():].splitlines()[1:-1]   # the last: the game's number
    assert [line.split(":")[0] for line in lines] == ["Ann", "Greedy"]
    status, report, _ = run_cli(["analyze", "--json"], "", monkeypatch, capsys)
    players = json.loads(report)["players"]
    for line, player in zip(lines, players):
        match = LUCK_LINE.match(line)
        assert match is not None, line
        name, final, optimum, sign, luck, cost = match.groups()
        assert (name, int(final), float(optimum)) == (player["name"], player["final"], 254.6)
        assert float(cost) == round(player["total_cost"], 1)
        shown = float(luck) if sign == "+" else -float(luck)
        assert shown == pytest.approx(player["luck"], abs=0.11)
        assert int(final) * 10 == round(float(optimum) * 10) + round(shown * 10) - round(
            float(cost) * 10)
        assert player["final"] == pytest.approx(
            player["optimum"] + player["luck"] - player["total_cost"], abs=1e-5)
    assert players[0]["total_cost"] > players[1]["total_cost"] > 0


def test_a_game_past_the_specifications_transcript_ends_with_its_number_for_analyze(
        official: Solution, official_moments: Moments, data: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # with a computer, after the luck lines; with the coach, after the analysis's chart
    people = "".join(f"score\n{n}\n" * 2 for n in range(1, 14))   # each of two, box N
    for number, options, before in ((1, ["--players", "human,greedy"], "Greedy: 178 = "),
                                    (2, ["--coach"], "Player 2 ")):
        status, out, err = run_cli([*options, "--rules", "official", "--seed", "8"], people,
                                   monkeypatch, capsys)
        assert (status, err) == (0, "")
        lines = out.splitlines()
        assert lines[-1] == (f"Filed as game {number}: "
                             f"python -m yahtzee analyze {number} reviews it.")
        assert lines[-2].startswith(before)
        status, review, _ = run_cli(["analyze", str(number)], "", monkeypatch, capsys)
        assert status == 0 and review.startswith(f"Game {number}, finished ")
    # a game of people alone ends as the specification's transcript does: with the winner
    status, out, err = run_cli(["--rules", "official", "--seed", "8"], people, monkeypatch,
                               capsys)
    assert (status, err) == (0, "") and WINNER.fullmatch(out.splitlines()[-1])


def test_without_the_solver_a_game_ends_with_the_winner(
        official: Solution, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    def unavailable(self: Solvers, variant: Variant, *, profiles: bool = False) -> Coach:
        """Fail as the coach does without numpy."""
        raise SolverUnavailableError("No module named 'numpy'")

    monkeypatch.setattr(Solvers, "coach", unavailable)
    status, out, err = run_cli(["--players", "human,computer", "--rules", "official",
                                "--seed", "8"], script(13), monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert WINNER.search(out.splitlines()[-1])
