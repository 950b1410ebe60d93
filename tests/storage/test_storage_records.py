"""What a save or the history may hold is checked when read; the history is never half made.

Impossible but well-formed values (a box no roll can fill, a command no
player can give, text where a number belongs) are damage: a save holding
them is set aside, a game of the history holding them is left out and
reported, the other games kept.  The history's tables appear all at once.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (Problems, listed_ids, play_through, run_cli, save_data,
                           script_for, variant_of)
from tests.storage.test_storage_damage import _history, _saves
from yahtzee.app.session import Autosave
from yahtzee.domain.games import POKER_DICE
from yahtzee.storage.history import TABLES, History
from yahtzee.storage.saves import SaveStore


# -- saves holding impossible values -------------------------------------------------
def _filled(data: dict[str, Any]) -> list[int | None]:
    """Return the first player's boxes."""
    scores: list[int | None] = data["game"]["players"][0]["scores"]
    return scores


def _huge_box(data: dict[str, Any]) -> None:
    """Put 10**30 points in a filled box."""
    scores = _filled(data)
    scores[next(i for i, v in enumerate(scores) if v is not None)] = 10**30


def _ones_63(data: dict[str, Any]) -> None:
    """Move a filled box's turn to Ones, holding 63."""
    scores = _filled(data)
    scores[next(i for i, v in enumerate(scores) if v is not None)] = None
    scores[0] = 63


def _computer_command(data: dict[str, Any]) -> None:
    """Log a command no player can give."""
    first = next(d for d in data["game"]["log"] if d["command"] == "roll")
    first["command"] = "computer"


def _other_box_logged(data: dict[str, Any]) -> None:
    """Log a scoring choice of a box other than the one the points were for."""
    first = next(d for d in data["game"]["log"] if d["label"] is not None)
    first["command"] = "13" if first["command"] != "13" else "1"


SAVE_CASES: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("huge box", _huge_box), ("Ones 63", _ones_63), ("command computer", _computer_command),
    ("other box logged", _other_box_logged)]


@pytest.mark.parametrize(("name", "change"), SAVE_CASES, ids=[c[0] for c in SAVE_CASES])
def test_a_save_with_impossible_values_is_set_aside(
        name: str, change: Callable[[dict[str, Any]], None], data: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A save holding what no game can is reported as corrupt and moved aside, the rest kept."""
    _saves(data, 12, 40)
    bad = data / "saves" / "2.json"
    content = save_data(bad)
    change(content)
    bad.write_text(json.dumps(content))
    status, out, err = run_cli(["saves"], "", monkeypatch, capsys)
    assert status == 0
    assert err.startswith(f"yahtzee: the save {bad} is corrupt; it was moved aside to 2.json")
    assert err.count("\n") == 1
    assert listed_ids(out) == ["1"]
    assert run_cli(["--resume", "2"], "", monkeypatch, capsys)[0] == 2


# -- the history: rows that no game can have -------------------------------------------
def _set(path: Path, statement: str) -> None:
    """Run one statement on the database at ``path``."""
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(statement)
    connection.close()


def test_a_game_with_text_for_a_total_is_left_out_of_the_stats(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``stats`` reports the damaged game in one line and counts the others; nothing moves."""
    path = _history(data, games=3)
    _set(path, "UPDATE players SET total = 'abc' WHERE game_id = 2 AND seat = 0")
    status, out, err = run_cli(["stats", "--json"], "", monkeypatch, capsys)
    assert status == 0
    assert json.loads(out)["games"] == 2
    assert err == (f"yahtzee: game 2 in the game history {path} is damaged "
                   "(a total is 'abc'); it is left out\n")
    assert sorted(os.listdir(data)) == ["history.sqlite3"]
    assert run_cli(["analyze", "2"], "", monkeypatch, capsys)[0] == 1


@pytest.mark.parametrize("change", [
    "UPDATE decisions SET dice = 'x y' WHERE game_id = 1 AND seq = 3",
    "UPDATE decisions SET command = 'zz' WHERE game_id = 1 AND seq = 3",
    "UPDATE decisions SET command = 'computer' WHERE game_id = 1 AND seq = 0",
    "UPDATE card_rows SET value = 63 WHERE game_id = 1 AND position = 0",
])
def test_analyze_of_a_damaged_game_says_so_in_one_line(
        change: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Impossible rows make ``analyze`` report the game in one line (no traceback), status 1."""
    path = _history(data, games=1)
    _set(path, change)
    status, out, err = run_cli(["analyze", "1"], "", monkeypatch, capsys)
    assert (status, out) == (1, "")
    assert err.startswith(f"yahtzee: game 1 in the game history {path} is damaged (")
    assert err.endswith("); it is left out\n") and err.count("\n") == 1
    assert sorted(os.listdir(data)) == ["history.sqlite3"]


def test_a_history_missing_a_column_is_set_aside_and_games_are_filed_again(
        tmp_path: Path) -> None:
    """A table without one of its columns is damage: moved aside, the next game filed anew."""
    path = _history(tmp_path, games=1)
    _set(path, "ALTER TABLE players DROP COLUMN winner")
    problems = Problems()
    store = SaveStore(tmp_path / "saves", problems=problems)
    saver = Autosave(store, History(path, problems=problems))
    play_through(5, POKER_DICE, script_for(5, "poker"), observers=[saver])
    assert [str(damage.value) for _, _, damage, _ in problems.damaged] == ["corrupt"]
    assert problems.unsaved == [] and store.saved_ids() == []
    assert History(path).game_ids() == [1]
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("history.sqlite3.corrupt-")]
    assert len(aside) == 1


# -- the history's tables, made all at once --------------------------------------------
def test_a_history_whose_creation_was_cut_short_is_completed_not_set_aside(
        tmp_path: Path) -> None:
    """Some of the tables, empty, with no version: a creation killed halfway; it is finished."""
    path = tmp_path / "history.sqlite3"
    _set(path, "CREATE TABLE games (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, "
               "finished_at TEXT NOT NULL, variant TEXT NOT NULL, rules TEXT NOT NULL, "
               "rounds INTEGER NOT NULL)")
    problems = Problems()
    saver = Autosave(SaveStore(tmp_path / "saves", problems=problems),
                     History(path, problems=problems))
    play_through(5, POKER_DICE, script_for(5, "poker"), observers=[saver])
    assert (problems.damaged, problems.unsaved) == ([], [])
    assert History(path).game_ids() == [1]
    assert sorted(os.listdir(tmp_path)) == ["history.sqlite3", "saves"]


def test_a_sound_history_with_version_0_keeps_its_games(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Every table in place but ``user_version`` 0: the games are read, nothing moves."""
    path = _history(data, games=2)
    _set(path, "PRAGMA user_version = 0")
    status, out, err = run_cli(["stats", "--json"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert json.loads(out)["games"] == 2
    assert sorted(os.listdir(data)) == ["history.sqlite3"]


def test_a_history_is_created_in_one_transaction(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """While the first program creates the tables, another sees none of them, then all."""
    path = tmp_path / "history.sqlite3"
    seen: list[set[str]] = []
    real_execute = sqlite3.Connection.execute

    class Watched(sqlite3.Connection):
        """A connection that, after each table made, looks at the file from outside."""

        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            """Run ``sql``; after a ``CREATE TABLE``, list the tables another program sees."""
            cursor = real_execute(self, sql, *args)
            if "CREATE TABLE" in sql:
                other = sqlite3.connect(path, timeout=0)
                seen.append({row[0] for row in other.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")})
                other.close()
            return cursor

    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real_connect(
        *a, **{**k, "factory": Watched}))
    record = play_through(5, POKER_DICE, script_for(5, "poker")).game.engine.record()
    assert History(path).record(record, uid="b" * 32) == 1
    assert seen == [set()] * len(TABLES)


# -- the same game finished twice --------------------------------------------------------
def test_the_same_game_filed_twice_is_said_and_kept_once(tmp_path: Path) -> None:
    """The identical game again: reported, not filed twice."""
    problems = Problems()
    history = History(tmp_path / "history.sqlite3", problems=problems)
    record = play_through(5, POKER_DICE, script_for(5, "poker")).game.engine.record()
    assert history.record(record, uid="a" * 32) == 1
    assert history.record(record, uid="a" * 32) == 1
    assert problems.twice == [(1, None)] and history.game_ids() == [1]


def test_a_different_game_with_the_same_id_is_filed_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two programs finished the same save differently: both games are kept, and it is said."""
    problems = Problems()
    history = History(tmp_path / "history.sqlite3", problems=problems)
    first = play_through(5, variant_of("course"), script_for(5, "course")).game.engine.record()
    second = play_through(7, variant_of("course"), script_for(7, "course")).game.engine.record()
    assert history.record(first, uid="c" * 32) == 1
    assert history.record(second, uid="c" * 32) == 2
    assert problems.twice == [(1, 2)]
    assert [history.load_game(n)[1] for n in (1, 2)] == [list(first.log), list(second.log)]


# -- permissions are not damage ----------------------------------------------------------
def _refuse(monkeypatch: pytest.MonkeyPatch, target: object, name: str, path: Path) -> None:
    """Make ``target.name`` fail with "Permission denied" for ``path`` (as chmod 0 does)."""
    real = getattr(target, name)

    def refused(first: Any, *args: Any, **kwargs: Any) -> Any:
        """Refuse ``path``; pass anything else on."""
        if Path(first) == path:
            raise PermissionError(13, "Permission denied", str(path))
        return real(first, *args, **kwargs)

    monkeypatch.setattr(target, name, refused)


def test_an_unreadable_saves_folder_is_reported_and_left_where_it_is(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``saves`` says the folder cannot be read; every save is there once it can be again."""
    _saves(data, 12, 30)
    folder = data / "saves"
    with monkeypatch.context() as patch:
        _refuse(patch, os, "listdir", folder)
        status, out, err = run_cli(["saves"], "", monkeypatch, capsys)
    assert (status, out) == (0, "No unfinished games.\n")
    assert err == f"yahtzee: the saves folder {folder} cannot be read; it is left where it is\n"
    assert sorted(n for n in os.listdir(folder) if n.endswith(".json")) == ["1.json", "2.json"]
    assert listed_ids(run_cli(["saves"], "", monkeypatch, capsys)[1]) == ["2", "1"]


def test_an_unreadable_save_is_reported_and_left_where_it_is(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A save that cannot be read is not moved: it resumes once it can be read."""
    _saves(data, 12, 30)
    bad = data / "saves" / "2.json"
    with monkeypatch.context() as patch:
        _refuse(patch, Path, "read_bytes", bad)
        status, out, err = run_cli(["--resume", "2"], "", monkeypatch, capsys)
    assert (status, out) == (2, "")
    assert err == f"yahtzee: the save {bad} cannot be read; it is left where it is\n"
    assert SaveStore(problems=Problems()).load(2).save_id == 2


def test_an_unreadable_history_is_reported_and_left_where_it_is(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``stats`` says the history cannot be read and moves nothing; its games stay."""
    path = _history(data, games=2)

    def access(target: Any, mode: int) -> bool:
        """Deny reading the history."""
        return Path(target) != path

    with monkeypatch.context() as patch:
        patch.setattr(os, "access", access)
        status, out, err = run_cli(["stats"], "", monkeypatch, capsys)
    assert (status, out) == (0, "No finished games yet.\n")
    assert err == f"yahtzee: the game history {path} cannot be read; it is left where it is\n"
    assert sorted(os.listdir(data)) == ["history.sqlite3"] and History(path).game_ids() == [1, 2]
