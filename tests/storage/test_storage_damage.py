"""Damaged saves and history databases: one clear line, the file kept aside, the rest goes on.

Each kind of damage is tried: a file cut short, garbage, a newer version,
and a folder where the file should be.  A file or folder that cannot be read
(permissions) is not damage: it is reported and left where it is.
"""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import (Problems, final_screen, listed_ids, play_through, resume_game,
                           run_cli, save_data, script_for, variant_of)
from yahtzee.app.session import Autosave
from yahtzee.domain.games import POKER_DICE
from yahtzee.interfaces.console import Console
from yahtzee.storage.history import SCHEMA_VERSION, History
from yahtzee.storage.problems import Damage, StoredFile
from yahtzee.storage.saves import SAVE_VERSION, SaveStore

ASIDE = r"\.corrupt-\d{8}T\d{6}Z"


def _saves(data_folder: Path, *games: int) -> None:
    """Write one save per entry of ``games``: a course game stopped after that many commands."""
    store = SaveStore(data_folder / "saves", problems=Problems())
    for commands in games:
        play_through(7, variant_of("course"), script_for(7, "course")[:commands],
                     observers=[Autosave(store)])
    store.release()


def _cut(path: Path) -> None:
    """Cut the file at ``path`` to half its length."""
    raw = path.read_bytes()
    path.write_bytes(raw[:len(raw) // 2])


def _cut_save(path: Path) -> None:
    """Cut the save at ``path``, written whole, to half its length.

    (A cut after the first line is a change appended unfinished, which
    reading drops: ``tests/storage/test_steps.py``.)
    """
    path.write_text(json.dumps(save_data(path)) + "\n")
    _cut(path)


def _garbage(path: Path) -> None:
    """Replace the file at ``path`` with bytes that are not text."""
    path.write_bytes(bytes(range(256)) * 4)


def _not_json(path: Path) -> None:
    """Replace the file at ``path`` with text that is not JSON."""
    path.write_text("These are not the dice you are looking for.\n")


def _wrong_json(path: Path) -> None:
    """Replace the file at ``path`` with JSON that is not a save."""
    path.write_text('{"format": "yahtzee-save", "version": 1, "id": 2}\n')


def _inconsistent(path: Path) -> None:
    """Give the first player a card with one box too many filled for the round."""
    data = save_data(path)
    scores = data["game"]["players"][0]["scores"]
    scores[scores.index(None)] = 5
    path.write_text(json.dumps(data))


def _newer(path: Path) -> None:
    """Mark the save as written in a later format."""
    data = save_data(path)
    data["version"] = SAVE_VERSION + 1
    path.write_text(json.dumps(data))


def _folder(path: Path) -> None:
    """Put a folder where the file is."""
    path.unlink()
    path.mkdir()
    (path / "inside.txt").write_text("kept\n")


SAVE_DAMAGE: list[tuple[str, Callable[[Path], None], str]] = [
    ("cut short", _cut_save, "is cut short"),
    ("garbage", _garbage, "is corrupt"),
    ("not JSON", _not_json, "is corrupt"),
    ("not a save", _wrong_json, "is corrupt"),
    ("inconsistent", _inconsistent, "is corrupt"),
    ("newer", _newer, "was written by a newer version of yahtzee"),
    ("a folder", _folder, "is not a file"),
]


def _content(path: Path) -> object:
    """Return what is at ``path``: its bytes, or a folder's listing."""
    return sorted(os.listdir(path)) if path.is_dir() else path.read_bytes()


@pytest.mark.parametrize(("name", "damage", "message"), SAVE_DAMAGE,
                         ids=[case[0] for case in SAVE_DAMAGE])
def test_a_damaged_save_is_reported_once_and_kept_aside(
        name: str, damage: Callable[[Path], None], message: str, data: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``saves`` names the damaged file in one line, moves it aside, and lists the sound ones."""
    _saves(data, 12, 30)
    bad = data / "saves" / "2.json"
    damage(bad)
    before = _content(bad)
    status, out, err = run_cli(["saves"], "", monkeypatch, capsys)
    assert status == 0
    assert re.fullmatch(rf"yahtzee: the save {re.escape(str(bad))} {message}; "
                        rf"it was moved aside to 2\.json{ASIDE}\n", err), err
    assert listed_ids(out) == ["1"]
    aside = [p for p in (data / "saves").iterdir() if p.name.startswith("2.json.corrupt-")]
    assert len(aside) == 1 and not os.path.lexists(bad)
    assert _content(aside[0]) == before
    assert run_cli(["saves"], "", monkeypatch, capsys)[2] == ""
    assert run_cli(["--resume", "2"], "", monkeypatch, capsys)[0] == 2
    run_cli(["--seed", "4"], "roll\n", monkeypatch, capsys)
    assert (data / "saves" / "3.json").is_file()


def test_resume_skips_a_damaged_latest_save(data: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Plain ``--resume`` reports the damaged newest save and resumes the newest sound one."""
    _saves(data, 12, 30)
    _cut_save(data / "saves" / "2.json")
    status, out, err = run_cli(["--resume"], "", monkeypatch, capsys)
    assert status == 0
    assert err.count("\n") == 1 and "2.json is cut short" in err
    save = SaveStore(problems=Problems()).load(1)
    assert out.startswith(f"Resuming game 1: Yahtzee, course rules, round 2 of 13; "
                          f"Player {save.snapshot.seat + 1} to play.\n"
                          f"*** Player {save.snapshot.seat + 1}: ***\n")


def test_resuming_a_damaged_save_by_id_exits_2(data: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``--resume ID`` of a damaged save: the damage line only, status 2, the file kept aside."""
    _saves(data, 12)
    _newer(data / "saves" / "1.json")
    status, out, err = run_cli(["--resume", "1"], "", monkeypatch, capsys)
    assert (status, out) == (2, "")
    assert re.fullmatch(r"yahtzee: the save .*1\.json was written by a newer version of "
                        rf"yahtzee; it was moved aside to 1\.json{ASIDE}\n", err)


def test_a_file_where_the_saves_folder_should_be(data: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A file named like the saves folder is moved aside and a new game saves normally."""
    data.mkdir()
    (data / "saves").write_text("in the way\n")
    status, out, err = run_cli(["--seed", "2"], "roll\n", monkeypatch, capsys)
    assert status == 0 and out.endswith("--resume 1\n")
    assert re.fullmatch(r"yahtzee: the saves folder .*saves is not a file; "
                        rf"it was moved aside to saves{ASIDE}\n", err)
    assert (data / "saves" / "1.json").is_file()


# -- the history database --------------------------------------------------------
def _history(data_folder: Path, games: int = 3) -> Path:
    """Fill the history with ``games`` finished games and return the database's path."""
    path = data_folder / "history.sqlite3"
    history = History(path)
    for number in range(games):
        run = play_through(7, variant_of("course"), script_for(7, "course"))
        history.record(run.game.engine.record(), uid=f"{number:032x}")
    return path


def _newer_schema(path: Path) -> None:
    """Mark the database as laid out by a later version."""
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()


def _foreign(path: Path) -> None:
    """Replace the database with an SQLite database of something else."""
    path.unlink()
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE recipes (name TEXT)")
    connection.close()


HISTORY_DAMAGE: list[tuple[str, Callable[[Path], None], str]] = [
    ("cut short", _cut, "is cut short"),
    ("garbage", _garbage, "is corrupt"),
    ("not SQLite", _not_json, "is corrupt"),
    ("another database", _foreign, "is corrupt"),
    ("newer", _newer_schema, "was written by a newer version of yahtzee"),
    ("a folder", _folder, "is not a file"),
]


@pytest.mark.parametrize(("name", "damage", "message"), HISTORY_DAMAGE,
                         ids=[case[0] for case in HISTORY_DAMAGE])
def test_a_damaged_history_is_reported_once_and_kept_aside(
        name: str, damage: Callable[[Path], None], message: str, data: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``stats`` reports the damaged database, keeps it aside, and finds no games; play goes on."""
    path = _history(data)
    damage(path)
    before = _content(path)
    status, out, err = run_cli(["stats"], "", monkeypatch, capsys)
    assert (status, out) == (0, "No finished games yet.\n")
    assert re.fullmatch(rf"yahtzee: the game history {re.escape(str(path))} {message}; "
                        rf"it was moved aside to history\.sqlite3{ASIDE}\n", err), err
    aside = [p for p in data.iterdir() if p.name.startswith("history.sqlite3.corrupt-")]
    assert len(aside) == 1 and not os.path.lexists(path)
    assert _content(aside[0]) == before

    script = script_for(5, "poker")
    status, out, err = run_cli(["--game", "poker-dice", "--seed", "5"],
                               "".join(s + "\n" for s in script), monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert History(path).game_ids() == [1]


def test_a_damaged_history_found_when_a_game_ends_is_replaced(tmp_path: Path) -> None:
    """A game finishing into a damaged database files itself in a new one, and says so once."""
    path = _history(tmp_path, games=1)
    _garbage(path)
    problems = Problems()
    saver = Autosave(SaveStore(tmp_path / "saves", problems=problems),
                     History(path, problems=problems))
    run = play_through(5, variant_of("poker"), script_for(5, "poker"), observers=[saver])
    assert run.game.engine.is_over()
    assert [(what, damage) for what, _, damage, _ in problems.damaged] == [
        (StoredFile.HISTORY, Damage.CORRUPT)]
    assert problems.unsaved == []
    assert History(path).game_ids() == [1]


def test_a_history_that_cannot_be_written_warns_once(tmp_path: Path) -> None:
    """When the database cannot be written, the game still ends, with one warning.

    The save stays, the game over but not filed; resuming it later files it.
    """
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder\n")
    problems = Problems()
    store = SaveStore(tmp_path / "saves", problems=problems)
    saver = Autosave(store, History(blocker / "history.sqlite3", problems=problems))
    run = play_through(5, variant_of("poker"), script_for(5, "poker"), observers=[saver])
    assert run.game.engine.is_over()
    assert len(problems.unsaved) == 1 and problems.damaged == []
    save = store.unfinished()[0]
    assert save.snapshot.round == POKER_DICE.rounds

    history = History(tmp_path / "history.sqlite3", problems=problems)
    out = io.StringIO()
    game = resume_game(save, Console(io.StringIO(), out),
                       observers=[Autosave(store, history, resumed=save)])
    game.play_game()
    assert out.getvalue() == final_screen(run.out)
    assert history.game_ids() == [1] and store.saved_ids() == []


def test_a_locked_history_is_not_taken_for_damage(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """While another program holds the database locked, ``stats`` says so and moves nothing."""
    path = _history(data, games=1)
    monkeypatch.setattr(History, "timeout", 0.05)
    holder = sqlite3.connect(path)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        status, out, err = run_cli(["stats"], "", monkeypatch, capsys)
    finally:
        holder.close()
    assert (status, out) == (1, "")
    assert err == ("yahtzee: the game history cannot be read now (database is locked); "
                   "try again later\n")
    assert sorted(os.listdir(data)) == ["history.sqlite3"]
    assert History(path).game_ids() == [1]


def test_a_damaged_history_that_cannot_be_moved_is_reported_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the damaged database cannot be renamed, it is left alone and reported once."""
    path = _history(tmp_path, games=1)
    _garbage(path)
    before = path.read_bytes()

    def refuse(source: object, target: object) -> None:
        """Fail as a read-only folder does."""
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "rename", refuse)
    problems = Problems()
    history = History(path, problems=problems)
    assert history.game_ids() == []
    assert problems.damaged == [(StoredFile.HISTORY, path, Damage.CORRUPT, None)]
    saver = Autosave(SaveStore(tmp_path / "saves", problems=problems), history)
    play_through(5, variant_of("poker"), script_for(5, "poker"), observers=[saver])
    assert len(problems.damaged) == 2 and len(problems.unsaved) == 1
    assert path.read_bytes() == before


@pytest.mark.parametrize(("name", "damage", "message"), HISTORY_DAMAGE[:5],
                         ids=[case[0] for case in HISTORY_DAMAGE[:5]])
def test_a_history_changed_since_it_was_checked_is_checked_again(
        name: str, damage: Callable[[Path], None], message: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The database is checked once while only this process writes it, again once it changed.

    The check reads the whole file, so a file this process found sound or wrote itself
    is not checked again; any other change to the file (damage here) is checked, found
    and reported.
    """
    checks: list[Path] = []
    check = History._check

    def counted(history: History, connection: sqlite3.Connection) -> int | None:
        """Count the check, then make it."""
        checks.append(history.path)
        return check(history, connection)

    monkeypatch.setattr(History, "_check", counted)
    path = _history(tmp_path, games=3)
    assert History(path).game_ids() == [1, 2, 3] and History(path).games()
    assert checks == [path]  # made when the first game was filed (no file before)
    damage(path)
    problems = Problems()
    assert History(path, problems=problems).game_ids() == []
    assert [(what, where) for what, where, _, _ in problems.damaged] == [
        (StoredFile.HISTORY, path)] and checks == [path, path]
