"""Unfinished games: no save before the first move, ``saves --json`` and ``--delete``, the resume
notice, and a save open in one process refused to another (even to ``saves --delete``).
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import signal
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from tests.helpers import (Problems, final_screen, message_of, play_through, run_cli,
                           script_for, variant_of)
from yahtzee.domain.die import Die
from yahtzee.interfaces.cli import main
from yahtzee.interfaces.console import DIE_PROMPT, Console
from yahtzee.storage import locks
from yahtzee.storage.history import History
from yahtzee.storage.problems import StorageError
from yahtzee.storage.saves import BrowserSeats, SaveFile, SaveStore

ROOT = Path(__file__).resolve().parents[2]
NOTHING_SAVED = "Game stopped before any move; nothing was saved.\n"


def typed(lines: list[str]) -> str:
    """Return ``lines`` as typed input."""
    return "".join(line + "\n" for line in lines)


def two_games(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Leave two unfinished games: 1, a course game in round 4; 2, Ann's Poker Dice game."""
    run_cli(["--seed", "7"], typed(script_for(7, "course")[:40]), monkeypatch, capsys)
    run_cli(["--seed", "3", "--game", "poker-dice", "--players", "human", "--names", "Ann"],
            "roll\n", monkeypatch, capsys)


# -- no save before the first move ----------------------------------------------
@pytest.mark.parametrize("text", ["", "hello\n0\n\n"], ids=["end of input", "refused lines"])
def test_a_game_stopped_before_any_move_leaves_no_save(
        text: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """End of input before any accepted command: no save, and the last line says so."""
    status, out, err = run_cli(["--seed", "7"], text, monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert out.endswith(f"{DIE_PROMPT}\n{NOTHING_SAVED}")
    assert not (data / "saves").exists()
    assert run_cli(["saves"], "", monkeypatch, capsys) == (0, "No unfinished games.\n", "")


def test_ctrl_c_at_the_first_prompt_leaves_no_save(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C at the first prompt: status 130, no save, and the line says nothing was saved."""
    def interrupted(size: int = -1, /) -> str:
        """Raise ``KeyboardInterrupt``, as Ctrl-C does."""
        raise KeyboardInterrupt

    stream = io.StringIO()
    setattr(stream, "readline", interrupted)
    monkeypatch.setattr(sys, "stdin", stream)
    assert main(["--seed", "7"]) == 130
    assert capsys.readouterr().out.endswith(f"{DIE_PROMPT}\n{NOTHING_SAVED}")
    assert not (data / "saves").exists()


def test_the_first_accepted_command_saves_the_game(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """One accepted command is enough to save; resuming then goes on from it exactly."""
    script = script_for(7, "course")
    reference = play_through(7, variant_of("course"), script)
    Die.r = random.Random()
    status, out, _ = run_cli(["--seed", "7"], typed(script[:1]), monkeypatch, capsys)
    assert out.endswith("Game saved. To continue it, run: python -m yahtzee --resume 1\n")
    Die.r = random.Random()
    status, out, err = run_cli(["--resume"], typed(script[1:]), monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert final_screen(out) == final_screen(reference.out)


# -- the resume notice -------------------------------------------------------------
def test_resuming_says_which_game_and_whose_turn(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The first line of a resumed game names it, its rules, its round and who plays next."""
    two_games(monkeypatch, capsys)
    run_cli(["--seed", "2", "--rules", "official", "--players", "human,human,human"],
            "1\n", monkeypatch, capsys)
    expected = {"1": "Resuming game 1: Yahtzee, course rules, round 4 of 13; Player 2 to play.\n"
                     "*** Player 2: ***\n",
                "2": "Resuming game 2: Poker Dice, round 1 of 9; Ann to play.\n*** Ann: ***\n",
                "3": "Resuming game 3: Yahtzee, official rules, round 1 of 13; "
                     "Player 1 to play.\n*** Player 1: ***\n"}
    for save_id, start in expected.items():
        status, out, err = run_cli(["--resume", save_id], "", monkeypatch, capsys)
        assert (status, err) == (0, "")
        assert out.startswith(start)
        assert out.count("Resuming") == 1


# -- the saves listing ---------------------------------------------------------------
SIX_NAMES = "Alexandra Longname-Smith,Bartholomew Q. Jones,Cy,Di Lee,Ed,Flora Montgomery"


def test_saves_lists_each_game_in_80_columns_its_players_below_it(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Six players with long names, a browser game, a game open in another window: each
    game's line, then its players wrapped between names and the window's mark, indented."""
    run_cli(["--players", ",".join(["human"] * 6), "--names", SIX_NAMES, "--rules", "official",
             "--seed", "3"], "roll\n", monkeypatch, capsys)
    store = SaveStore(problems=Problems())
    record = play_through(4, variant_of("course"), ["roll"]).game.engine.record()
    browser = store.create(record, browser=BrowserSeats(4, True, False, (("d" * 64, (0, 1)),)))
    store.release(browser.save_id)
    status, out, err = run_cli(["saves"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    listing = [
        "ID  Saved             Round  Game",
        " 2  YYYY-MM-DD HH:MM  1/13   yahtzee (course) in the browser",
        "    Players: Player 1 (human), Player 2 (human)",
        " 1  YYYY-MM-DD HH:MM  1/13   yahtzee (official)",
        "    Players: Alexandra Longname-Smith (human), Bartholomew Q. Jones (human),",
        "             Cy (human), Di Lee (human), Ed (human), Flora Montgomery (human)"]
    times = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d")
    assert times.sub("YYYY-MM-DD HH:MM", out).splitlines() == listing
    assert max(len(line) for line in out.splitlines()) <= 80
    shown = io.StringIO()
    Console(io.StringIO(), shown).saves_listing(store.unfinished(), {1})
    marked = [*out.splitlines()[4:], "    Open in another window"]
    assert shown.getvalue().splitlines()[4:] == marked


# -- saves --json and --delete --------------------------------------------------------
def test_saves_json_lists_the_unfinished_games(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``saves --json``: each game's ID, time with its zone, round, game, rules, players, turn."""
    assert run_cli(["saves", "--json"], "", monkeypatch, capsys) == (0, "[]\n", "")
    two_games(monkeypatch, capsys)
    status, out, err = run_cli(["saves", "--json"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    games = json.loads(out)
    times = [datetime.fromisoformat(game.pop("saved")) for game in games]
    assert all(moment.utcoffset() is not None for moment in times)
    assert times[0] >= times[1]
    assert games == [
        {"id": 2, "game": "poker-dice", "rules": "poker-dice", "round": 1, "rounds": 9,
         "players": [{"name": "Ann", "kind": "human"}], "to_play": "Ann", "open": False},
        {"id": 1, "game": "yahtzee", "rules": "course", "round": 4, "rounds": 13,
         "players": [{"name": "Player 1", "kind": "human"}, {"name": "Player 2", "kind": "human"}],
         "to_play": "Player 2", "open": False}]


@pytest.mark.parametrize("command", [["saves"], ["saves", "--delete", "all"], ["--resume"]])
def test_a_storage_failure_is_one_line_and_no_traceback(
        command: list[str], data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    lost = "the database postgresql://ann@db.example/yahtzee was lost: the server closed it"

    def fails(store: SaveStore) -> list[SaveFile]:
        """Fail as a database lost in the middle does."""
        raise StorageError(lost)

    monkeypatch.setattr(SaveStore, "unfinished", fails)
    assert run_cli(command, "", monkeypatch, capsys) == (1, "", f"yahtzee: {lost}\n")


def test_a_finished_game_the_history_refuses_is_told_and_its_save_kept(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def refuses(history: History, *args: object, **kwargs: object) -> int:
        """Refuse the game as the history does chances that are not the game's."""
        raise ValueError("the win chances are not one per player at each turn's start")

    monkeypatch.setattr(History, "record", refuses)
    lines = "".join(f"score\n{box}\n" for box in range(1, 14))
    status, out, err = run_cli(["--players", "human", "--seed", "6"], lines, monkeypatch, capsys)
    assert status == 0 and out.endswith("Player 1 finished with 109 points\n")
    assert err == ("yahtzee: warning: the game cannot be saved (the win chances are not one "
                   "per player at each turn's start); play goes on without saving\n")
    status, out, _ = run_cli(["saves", "--json"], "", monkeypatch, capsys)
    assert status == 0 and [game["round"] for game in json.loads(out)] == [13]


def test_saves_delete_ids_and_all(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--delete`` removes the games named (one line each), ``all`` removes every one."""
    two_games(monkeypatch, capsys)
    run_cli(["--seed", "2"], "1\n", monkeypatch, capsys)
    assert run_cli(["saves", "--delete", "1"], "", monkeypatch, capsys) == (
        0, "Deleted game 1 (Yahtzee, course rules, round 4 of 13).\n", "")
    assert sorted(os.listdir(data / "saves")) == ["2.json", "2.lock", "3.json", "3.lock"]
    assert run_cli(["saves", "--delete", "all"], "", monkeypatch, capsys) == (
        0, "Deleted game 3 (Yahtzee, course rules, round 1 of 13).\n"
           "Deleted game 2 (Poker Dice, round 1 of 9).\n", "")
    assert os.listdir(data / "saves") == []
    assert run_cli(["saves", "--delete", "all"], "", monkeypatch, capsys) == (
        0, "No unfinished games.\n", "")


@pytest.mark.parametrize(("argv", "error"), [
    (["2", "9"], "yahtzee: no unfinished game has the ID '9'; nothing was deleted "
                 "(the command 'saves' lists them)\n"),
    (["x"], "yahtzee: no unfinished game has the ID 'x'; nothing was deleted "
            "(the command 'saves' lists them)\n"),
    (["0"], "yahtzee: no unfinished game has the ID '0'; nothing was deleted "
            "(the command 'saves' lists them)\n"),
    (["all", "1"], "yahtzee: saves --delete takes save IDs or 'all', not both\n"),
])
def test_saves_delete_with_a_wrong_id_deletes_nothing(
        argv: list[str], error: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An ID of no unfinished game: one message, status 2, and not one game deleted."""
    two_games(monkeypatch, capsys)
    before = {name: (data / "saves" / name).read_bytes() for name in os.listdir(data / "saves")}
    status, out, err = run_cli(["saves", "--delete", *argv], "", monkeypatch, capsys)
    assert (status, out, message_of(err) + "\n") == (2, "", error)
    after = {name: (data / "saves" / name).read_bytes() for name in os.listdir(data / "saves")}
    assert after == before


# -- a save open in another process --------------------------------------------------
class GameProcess:
    """``python -m yahtzee`` running in another process, fed one line at a time."""

    def __init__(self, *args: str) -> None:
        """Start the program with ``args`` and wait for its first prompt."""
        self.process = subprocess.Popen(
            [sys.executable, "-m", "yahtzee", *args], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.out = b""
        self.wait_for_prompts(1)

    def wait_for_prompts(self, count: int) -> None:
        """Read the program's output until it has shown the die prompt ``count`` times."""
        assert self.process.stdout is not None
        prompt = DIE_PROMPT.encode()
        while self.out.count(prompt) < count:
            chunk = os.read(self.process.stdout.fileno(), 65536)
            assert chunk, "the game ended early"
            self.out += chunk

    def type(self, line: str) -> None:
        """Type ``line``."""
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def kill(self) -> None:
        """Kill the program with SIGKILL and wait for it."""
        self.process.kill()
        self.process.wait()


@pytest.mark.skipif(not locks.LOCKING or not hasattr(signal, "SIGKILL"),
                    reason="needs file locks and SIGKILL")
def test_a_game_open_in_another_process_is_refused_until_that_one_is_killed(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--resume`` and ``saves --delete`` refuse a game being played; once killed, it resumes."""
    script = script_for(7, "course")
    assert script[0] in {"1", "2", "3", "4", "5"}
    reference = play_through(7, variant_of("course"), script)
    other = GameProcess("--seed", "7")
    try:
        other.type(script[0])
        other.wait_for_prompts(2)  # the command was taken, so the game is saved
        save = data / "saves" / "1.json"
        before = save.read_bytes()
        refused = "yahtzee: game 1 is open in another window; finish or stop it there first\n"
        for argv in (["--resume"], ["--resume", "1"]):
            assert run_cli(argv, "roll\n", monkeypatch, capsys) == (2, "", refused)
        assert run_cli(["saves", "--delete", "all"], "", monkeypatch, capsys) == (
            1, "", "yahtzee: game 1 is open in another window; it was not deleted\n")
        assert json.loads(run_cli(["saves", "--json"], "", monkeypatch, capsys)[1])[0]["open"]
        listed = run_cli(["saves"], "", monkeypatch, capsys)[1].splitlines()[1:]
        assert listed[0].endswith("  yahtzee (course)") and listed[1:] == [
            "    Players: Player 1 (human), Player 2 (human)", "    Open in another window"]
        assert save.read_bytes() == before
    finally:
        other.kill()
    assert other.process.returncode == -signal.SIGKILL
    assert not json.loads(run_cli(["saves", "--json"], "", monkeypatch, capsys)[1])[0]["open"]
    assert "another window" not in run_cli(["saves"], "", monkeypatch, capsys)[1]
    Die.r = random.Random()
    status, out, err = run_cli(["--resume", "1"], typed(script[1:]), monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert final_screen(out) == final_screen(reference.out)
    assert os.listdir(data / "saves") == []


def test_a_game_played_in_this_process_frees_its_save_when_it_stops(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Once a game stops, its save is free: ``--resume`` and ``saves --delete`` work at once."""
    run_cli(["--seed", "7"], "1\n", monkeypatch, capsys)
    assert run_cli(["--resume"], "", monkeypatch, capsys)[0] == 0
    assert run_cli(["saves", "--delete", "1"], "", monkeypatch, capsys)[0] == 0
