"""The command line's parsing and its refusals: what is read, what is refused, and how."""

from __future__ import annotations

import pytest

from yahtzee.domain.games import YAHTZEE
from yahtzee.engine.moves import Notation
from yahtzee.interfaces.cli import main, parse_command_line


def refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str]:
    """Run the command line ``argv`` in this process; return its exit status and standard error.

    argparse's refusals leave through ``SystemExit``; the others return a status.
    """
    try:
        status: int | str | None = main(argv)
    except SystemExit as stopped:
        status = stopped.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize("argv, unknown", [
    (["duel", "--game", "poker-dice"], "--game poker-dice"),
    (["simulate", "--strat", "greedy"], "--strat greedy"),
    (["stats", "--js"], "--js"),
    (["--see=3"], "--see=3"),
    (["play", "--coa"], "--coa"),
])
def test_an_abbreviated_option_is_refused_not_read_as_another(
        argv: list[str], unknown: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = refusal(argv, capsys)
    assert status == 2
    assert f"unrecognized arguments: {unknown}" in " ".join(err.split())
    assert "whole number" not in err


@pytest.mark.parametrize("argv, message", [
    (["--seed", "3", "stats"], "--seed is an option of play, not of stats"),
    (["--seed", "3", "--coach", "analyze"], "--seed, --coach are options of play, not of analyze"),
    (["--rules", "official", "simulate", "--games", "3"],
     "write --rules after simulate: options before a command are play's"),
    (["--database", "postgresql:///x", "saves"],
     "write --database after saves: options before a command are play's"),
    (["--players", "human,computer", "--seed", "1", "duel"],
     "write --players, --seed after duel: options before a command are play's"),
])
def test_play_options_before_another_command_are_refused_naming_where_they_go(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = refusal(argv, capsys)
    assert status == 2
    assert f"error: {message}" in " ".join(err.split())


def test_play_options_still_count_before_play_and_with_no_command() -> None:
    plain = vars(parse_command_line(["--seed", "3"]))
    assert plain == {"command": None, "players": None, "names": None, "rules": None,
                     "game": YAHTZEE, "seed": 3, "coach": False, "resume": None, "delay": None,
                     "keep_by": Notation.POSITIONS, "database": None}
    before = parse_command_line(["--seed", "3", "play", "--rules", "official"])
    assert (before.command, before.seed, before.rules) == ("play", 3, "official")
    assert parse_command_line(["stats"]).seed is None  # every command's namespace has them
