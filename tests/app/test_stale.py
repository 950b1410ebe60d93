"""Saves a process does not own: never written, their IDs never handed out, IDs kept to 9 digits;
and what the program says when it is stopped after a game's end, or resumed with ignored options.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import (Problems, listed_ids, play_through, run_cli, save_data,
                           script_for, variant_of)
from yahtzee.app.session import Autosave
from yahtzee.interfaces.console import Console
from yahtzee.solver.cache import Solution
from yahtzee.storage.problems import SaveInUseError
from yahtzee.storage.saves import MAX_SAVE_ID, SaveStore


def typed(lines: list[str]) -> str:
    """Return ``lines`` as typed input."""
    return "".join(line + "\n" for line in lines)


def test_a_process_writes_only_the_save_it_holds(tmp_path: Path) -> None:
    """A stale process cannot overwrite a save another process has taken over."""
    folder = tmp_path / "saves"
    mine, stale = SaveStore(folder, problems=Problems()), SaveStore(folder, problems=Problems())
    play_through(7, variant_of("course"), ["roll"], observers=[Autosave(mine)])
    save = mine.load(1)
    before = mine.path(1).read_bytes()
    with pytest.raises(SaveInUseError):
        stale.write(save)
    assert mine.path(1).read_bytes() == before
    mine.write(save)


def test_the_id_of_a_game_still_held_is_not_handed_out_again(tmp_path: Path) -> None:
    """A game ended (its file gone) while a process still holds its ID: a new game takes another."""
    folder = tmp_path / "saves"
    holder, other = SaveStore(folder, problems=Problems()), SaveStore(folder, problems=Problems())
    play_through(7, variant_of("course"), ["roll"], observers=[Autosave(holder)])
    holder.path(1).unlink()
    saver = Autosave(other)
    play_through(8, variant_of("course"), ["roll"], observers=[saver])
    assert saver.save_id == 2


def test_save_ids_stay_within_nine_digits(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Past the highest ID, a new game takes the lowest free one, which saves lists."""
    run_cli(["--seed", "7"], "roll\n", monkeypatch, capsys)
    saves = data / "saves"
    moved = save_data(saves / "1.json")
    moved["id"] = MAX_SAVE_ID
    (saves / f"{MAX_SAVE_ID}.json").write_text(json.dumps(moved))
    (saves / "1.json").unlink()
    (saves / "1.lock").unlink()
    status, out, _ = run_cli(["--seed", "8"], "roll\n", monkeypatch, capsys)
    assert out.endswith("Game saved. To continue it, run: python -m yahtzee --resume 1\n")
    listing = run_cli(["saves"], "", monkeypatch, capsys)[1]
    assert sorted(listed_ids(listing)) == ["1", str(MAX_SAVE_ID)]


def test_ctrl_c_during_the_analysis_says_the_game_is_filed(
        course: Solution, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The game is over and in the history: the stop message must not say it was not saved."""
    def interrupted(self: Console, *args: object) -> None:
        """Stand for Ctrl-C pressed while the analysis is printed."""
        raise KeyboardInterrupt

    monkeypatch.setattr(Console, "analysis", interrupted)
    script = typed([line for n in range(1, 14) for line in ("score", str(n))])
    status, out, _ = run_cli(["--coach", "--players", "human", "--seed", "4"], script,
                             monkeypatch, capsys)
    assert status == 130
    assert out.splitlines()[-1] == ("Stopped. The game is over and in the history "
                                    "(python -m yahtzee analyze shows it).")
    assert run_cli(["stats", "--json"], "", monkeypatch, capsys)[1].count('"played": 1') == 1
    assert not list((data / "saves").glob("*.json"))


@pytest.mark.parametrize("options", [["--names", "A,A"],
                                     ["--game", "poker-dice", "--rules", "official"],
                                     ["--names", "Ann"]])
def test_resume_ignores_options_that_would_be_refused_for_a_new_game(
        options: list[str], data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The save decides the game: ignored options are named, not checked, and play goes on."""
    script = script_for(7, "course")
    run_cli(["--seed", "7"], typed(script[:10]), monkeypatch, capsys)
    status, out, err = run_cli(["--resume", *options], "", monkeypatch, capsys)
    assert status == 0
    assert err.startswith("yahtzee: ") and "ignored: a resumed game keeps its own settings" in err
    assert out.startswith("Resuming game 1: Yahtzee, course rules, round ")


def test_a_stored_name_with_control_codes_is_shown_escaped(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A name written into a save by other means never breaks the saves listing or the screen."""
    run_cli(["--seed", "7"], "roll\n", monkeypatch, capsys)
    path = data / "saves" / "1.json"
    save = save_data(path)
    save["game"]["players"][0]["name"] = "Ann\n\x1b[2J"
    path.write_text(json.dumps(save))
    status, out, err = run_cli(["saves"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert out.splitlines()[2] == "    Players: Ann\\n\\x1b[2J (human), Player 2 (human)"
    assert len(out.splitlines()) == 3
    status, out, err = run_cli(["--resume"], "", monkeypatch, capsys)
    assert "*** Ann\\n\\x1b[2J: ***\n" in out and "\x1b" not in out
