"""The command line's parsing and its refusals: what is read, what is refused, and how."""

from __future__ import annotations

import pytest

from yahtzee.interfaces.cli import main


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
