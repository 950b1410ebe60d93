"""The command line's parsing and its refusals: what is read, what is refused, and how."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli, script_for
from yahtzee.domain.games import YAHTZEE
from yahtzee.engine.engine import MAX_NAME
from yahtzee.interfaces.cli import main, parse_command_line
from yahtzee.interfaces.commands import COMMANDS
from yahtzee.players.kinds import KINDS

ROOT = Path(__file__).resolve().parents[2]


def run_main(argv: list[str],
             capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str, str]:
    """Run the command line ``argv`` in this process; return its exit status and what it
    printed on standard output and standard error.

    argparse's refusals (and ``--help``) leave through ``SystemExit``; the rest return a status.
    """
    try:
        status: int | str | None = main(argv)
    except SystemExit as stopped:
        status = stopped.code
    out, err = capsys.readouterr()
    return status, out, err


def refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str]:
    """Run the command line ``argv`` in this process; return its exit status and standard error."""
    status, _, err = run_main(argv, capsys)
    return status, err


@pytest.mark.parametrize("argv, unknown", [
    (["duel", "--game", "poker-dice"], "--game poker-dice"),
    (["simulate", "--strat", "greedy"], "--strat greedy"),
    (["stats", "--js"], "--js"),
    (["--see=3"], "--see=3"),
    (["play", "--coa"], "--coa"),
    (["--gam", "poker-dice"], "--gam poker-dice"),
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
                     "keep_by": None, "database": None}  # None: a resumed game's own
    before = parse_command_line(["--seed", "3", "play", "--rules", "official"])
    assert (before.command, before.seed, before.rules) == ("play", 3, "official")
    assert parse_command_line(["stats"]).seed is None  # every command's namespace has them


LONG = "1" * 5000
"""A value past what Python reads as a number, and past any line."""
BAD_COMMAND_LINES: list[tuple[list[str], int]] = [
    (["duel", "--game", "poker-dice"], 2),
    (["--seed", "x"], 2),
    (["--seed", LONG], 2),
    (["simulate", "--seed", "-1"], 2),
    (["--rules", "house"], 2),
    (["frobnicate"], 2),
    (["simulate", "--strategy", "foo"], 2),
    (["--resume", "1", "2"], 2),
    (["--resume", "77"], 1),  # a fresh data folder: no game at all to work on
    (["analyze", "abc"], 2),
    (["analyze", "f" * 32], 1),
    (["--players", "human,robot"], 2),
    (["--players", "x" * 300], 2),
    (["--players", ",".join(["computer"] * 7)], 2),
    (["--names", "A" * 30 + ",B"], 2),
    (["--names", "A\x1b[2J" + "b" * 60 + ",B"], 2),
    (["--names", "A,B,C"], 2),
    (["--delay", "1e9"], 2),
    (["--keep-by", "nope"], 2),
    (["--game", "poker-dice", "--rules", "official"], 2),
    (["--database", "mysql://player@host/games"], 2),
    (["--seed", "3", "--rules", "official", "simulate"], 2),
    (["--seed", "3", "--players", "human,computer", "--coach", "stats"], 2),
    (["serve", "--port", LONG], 2),
    (["serve", "--allowed-host", "https://table.example.org:8000/a/long/path/to/nowhere"], 2),
    (["serve", "--proxy", "the-proxy-in-front-of-the-server"], 2),
    (["advise", "--card", "x" * 100], 2),
    (["advise", "--json"], 2),
    (["advise", "--opponents", "120,,95"], 2),
    (["advise", "--opponents", "-5"], 2),
    (["advise", "--json", "--dice", "5 5 2 1 6", "--roll", LONG], 2),
    (["saves", "--delete", "99"], 1),
    (["saves", "--delete", "all", "3"], 2),
    (["duel", "--players", "human,computer"], 2),
    (["simulate", "--games", "0"], 2),
]
"""Command lines that cannot run, and the exit status each ends with."""


def assert_fits(err: str) -> None:
    """Assert that ``err`` says something, without a traceback, in lines of 80 columns at most."""
    assert err and "Traceback" not in err
    assert all(len(line) <= 80 for line in err.splitlines()), err


@pytest.mark.parametrize("argv, status", BAD_COMMAND_LINES)
def test_every_command_line_error_fits_80_columns_with_its_status(
        argv: list[str], status: int, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # argparse's usage lines follow the terminal's width
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    ended, err = refusal(argv, capsys)
    assert ended == status
    assert_fits(err)


def test_the_missing_packages_are_named_within_80_columns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(tmp_path), COLUMNS="80")
    blocked = ("import sys; sys.modules['numpy'] = None; "
               "from yahtzee.interfaces.cli import main; raise SystemExit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", blocked, "solve"], input="", text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 1
    assert_fits(done.stderr)
    assert done.stderr.splitlines()[-1].strip().startswith("python -m pip install")
    for name in [m for m in sys.modules if m.split(".")[0] in ("starlette", "uvicorn")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.delitem(sys.modules, "yahtzee.interfaces.web.server", raising=False)
    status, err = refusal(["serve", "--port", "0"], capsys)
    assert status == 1
    assert_fits(err)
    assert err.splitlines()[-1].strip().startswith("python -m pip install -e '.[web]'")


WHOLE = ("python -m yahtzee", "game_driver.py COMMAND", "pip install", "COMMAND --help",
         "--resume ID")
"""Commands that help texts never break across lines."""


@pytest.mark.parametrize("started", ["__main__.py", "game_driver.py"])
def test_no_help_text_breaks_a_command_across_lines(
        started: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", [started])
    for width in range(60, 141):
        monkeypatch.setenv("COLUMNS", str(width))
        for command in [[], *([name] for name in COMMANDS)]:
            status, text, _ = run_main([*command, "--help"], capsys)
            assert status == 0
            flat = " ".join(text.split())
            for phrase in WHOLE:
                assert text.count(phrase) == flat.count(phrase), (command, width, phrase)


def test_the_help_names_every_kind_and_the_longest_name(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(["play", "--help"], capsys)
    flat = " ".join(out.split())
    assert status == 0
    for kind in KINDS:
        assert all(name in flat for name in (kind.name, *kind.aliases)), kind.name
    assert f"each of {MAX_NAME} characters at most" in flat


def test_nothing_to_work_on_is_status_1_in_every_command_and_a_wrong_id_2(
        data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    nothing = "yahtzee: no finished games yet: there is nothing to analyze\n"
    no_save = "yahtzee: there is no unfinished game to resume\n"
    for argv, status, err in [
            (["analyze"], 1, nothing), (["analyze", "5"], 1, nothing),
            (["analyze", "--json"], 1, nothing), (["--resume"], 1, no_save),
            (["--resume", "5"], 1, no_save),
            (["saves", "--delete", "5"], 1, "yahtzee: there is no unfinished game to delete\n"),
            (["stats"], 0, ""), (["saves"], 0, ""), (["saves", "--delete", "all"], 0, "")]:
        assert run_main(argv, capsys)[::2] == (status, err), argv
    finished = "".join(line + "\n" for line in script_for(3, "course"))
    assert run_cli(["--seed", "3"], finished, monkeypatch, capsys)[0] == 0
    assert run_cli(["--seed", "3"], "roll\n", monkeypatch, capsys)[0] == 0  # one left unfinished
    for argv in (["analyze", "99"], ["--resume", "7"], ["saves", "--delete", "7"],
                 ["analyze", "abc"], ["--resume", "x"]):
        assert run_main(argv, capsys)[0] == 2, argv
