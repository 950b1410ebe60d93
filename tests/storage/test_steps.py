"""The changes appended to a save file: read back exactly, rewritten whole in time, torn safely."""

from __future__ import annotations

import errno
import json
import os
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Problems, play_through, script_for, variant_of
from yahtzee.app.session import Autosave
from yahtzee.engine.engine import Engine
from yahtzee.engine.moves import Notation
from yahtzee.engine.records import GameRecord, rng_state
from yahtzee.storage import atomic, saves
from yahtzee.storage.problems import Damage, DamagedFileError, StoredFile
from yahtzee.storage.saves import SaveFile, SaveStore
from yahtzee.storage.steps import STEPS_BEFORE_REWRITE


class _Reader:
    """After each write of the game, reads its save back through another store."""

    def __init__(self, folder: Path) -> None:
        """Read the saves in ``folder``."""
        self.folder = folder
        self.read: list[tuple[GameRecord, GameRecord, list[str]]] = []
        """Per move: the game as it stood, as read back, and the save file's lines."""

    def changed(self, engine: Engine) -> None:
        """Read the save the observer before this one has just written (none before a move)."""
        path = self.folder / "1.json"
        if not engine.log:
            return
        back = SaveStore(self.folder, problems=Problems()).load(1).snapshot
        self.read.append((engine.record(), back, path.read_text().splitlines()))

    def finished(self, engine: Engine) -> None:
        """Nothing to read: the save is filed and removed."""


def _played(folder: Path, commands: int, seed: int = 7,
            rules: str = "course") -> tuple[SaveStore, _Reader, SaveFile]:
    """Play ``commands`` commands of a seeded game, saved in ``folder`` and read back each time.

    Return the store, what was read, and the last save written.
    """
    store = SaveStore(folder, problems=Problems())
    reader = _Reader(folder)
    saver = Autosave(store)
    play_through(seed, variant_of(rules), script_for(seed, rules)[:commands],
                 observers=[saver, reader])
    assert saver.save is not None
    return store, reader, saver.save


def test_every_write_reads_back_as_the_game_stood(tmp_path: Path) -> None:
    """Each move appends one line, read back exactly, until the file is written whole again."""
    _, reader, _ = _played(tmp_path, 120, seed=12, rules="official")
    assert [back for _, back, _ in reader.read] == [record for record, _, _ in reader.read]
    lengths = [len(lines) for _, _, lines in reader.read]
    assert lengths[:3] == [1, 2, 3]
    assert lengths[STEPS_BEFORE_REWRITE] == STEPS_BEFORE_REWRITE + 1
    assert lengths[STEPS_BEFORE_REWRITE + 1] == 1  # written whole
    assert lengths[-1] == (len(lengths) - 1) % (STEPS_BEFORE_REWRITE + 1) + 1
    steps = [json.loads(line)["game"] for _, _, lines in reader.read for line in lines[1:]]
    assert all(step["log_at"] + len(step["log"]) <= 120 for step in steps)
    assert any("rng_at" in step for step in steps)  # a roll that only moved the generator on
    assert not any("rng_at" in step and "rng" in step for step in steps)


def test_the_generator_drawn_anew_is_written_whole(tmp_path: Path) -> None:
    """A roll that refills the generator's table carries the table, and reads back exactly."""
    store, _, save = _played(tmp_path, 10)
    state = rng_state(random.Random(3).getstate())
    assert state[1][:-1] != save.snapshot.rng[1][:-1]
    newer = replace(save, snapshot=replace(save.snapshot, rng=state))
    store.write(newer)
    step = json.loads((tmp_path / "1.json").read_text().splitlines()[-1])["game"]
    assert "rng" in step and "rng_at" not in step and step["log"] == []
    assert SaveStore(tmp_path, problems=Problems()).load(1) == newer


def test_an_unfinished_last_line_is_dropped(tmp_path: Path) -> None:
    """A process killed while appending: the save reads as it stood before that move."""
    _, reader, _ = _played(tmp_path, 10)
    path = tmp_path / "1.json"
    whole = path.read_bytes()
    path.write_bytes(whole[:-40])
    problems = Problems()
    assert SaveStore(tmp_path, problems=problems).load(1).snapshot == reader.read[-2][0]
    assert problems.damaged == []


@pytest.mark.parametrize("damage", ["not JSON", "a step lost", "out of order"])
def test_a_damaged_step_sets_the_save_aside(tmp_path: Path, damage: str) -> None:
    """A whole line that cannot be used, or a step missing, makes the file damaged."""
    _played(tmp_path, 10)
    path = tmp_path / "1.json"
    lines = path.read_text().splitlines(keepends=True)
    if damage == "not JSON":
        lines[3] = "{" + lines[3]
    elif damage == "a step lost":
        step = json.loads(lines[3])
        del lines[3]
        for number, line in enumerate(lines[3:], start=3):
            later = json.loads(line)
            later["step"] = number
            lines[number] = json.dumps(later) + "\n"
        assert step["game"]["log"]
    else:
        lines[3], lines[4] = lines[4], lines[3]
    path.write_text("".join(lines))
    problems = Problems()
    with pytest.raises(DamagedFileError):
        SaveStore(tmp_path, problems=problems).load(1)
    assert [(what, where.name, how) for what, where, how, _ in problems.damaged] == [
        (StoredFile.SAVE, "1.json", Damage.CORRUPT)]


def _later(save: SaveFile, commands: int) -> SaveFile:
    """Return ``save`` moved on: the same seeded game after ``commands`` commands."""
    game = play_through(7, variant_of("course"), script_for(7, "course")[:commands]).game
    return replace(save, snapshot=game.engine.record())


def test_a_failed_append_writes_the_save_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk while appending: the save is written whole instead, and reads back."""
    store, _, save = _played(tmp_path, 10)

    def full(path: Path, data: bytes, *, durable: bool = True) -> None:
        """Fail as a full disk does, after writing part of the line."""
        with open(path, "ab") as stream:
            stream.write(data[:len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(saves, "append", full)
    newer = _later(save, 12)
    store.write(newer)
    assert len((tmp_path / "1.json").read_text().splitlines()) == 1
    assert SaveStore(tmp_path, problems=Problems()).load(1) == newer


def test_the_way_a_keep_is_typed_is_saved_and_its_change_written_whole(tmp_path: Path) -> None:
    """``keep_by`` reads back; a save whose ``keep_by`` changed is written whole, then steps
    follow it as usual."""
    store = SaveStore(tmp_path, problems=Problems())
    record = play_through(7, variant_of("course"), script_for(7, "course")[:8]).game
    save = store.create(record.engine.record(), keep_by=Notation.FACES)
    path = tmp_path / f"{save.save_id}.json"
    assert json.loads(path.read_text())["keep_by"] == "faces"
    store.write(_later(save, 10))
    assert len(path.read_text().splitlines()) == 2
    typed = replace(_later(save, 12), keep_by=Notation.POSITIONS)
    store.write(typed)
    assert len(path.read_text().splitlines()) == 1 and "keep_by" not in path.read_text()
    assert SaveStore(tmp_path, problems=Problems()).load(save.save_id) == typed
    faces = replace(_later(save, 14), keep_by=Notation.FACES)
    store.write(faces)
    store.write(_later(faces, 16))
    assert len(path.read_text().splitlines()) == 2
    assert SaveStore(tmp_path, problems=Problems()).load(save.save_id) == _later(faces, 16)


class _CuttingOs:
    """Stands in for ``os`` in ``yahtzee.storage.atomic``: a write stops halfway, as by Ctrl-C."""

    def __getattr__(self, name: str) -> Any:
        """Return everything else from the real ``os``."""
        return getattr(os, name)

    @staticmethod
    def write(fd: int, data: bytes) -> int:
        """Write half of ``data``, then stop."""
        os.write(fd, data[:len(data) // 2])
        raise KeyboardInterrupt


def test_a_line_cut_by_an_interrupt_leaves_the_move_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the middle of an append: the save reads as before; the next write is whole."""
    store, _, save = _played(tmp_path, 10)
    monkeypatch.setattr(atomic, "os", _CuttingOs())
    with pytest.raises(KeyboardInterrupt):
        store.write(_later(save, 11))
    monkeypatch.undo()
    assert SaveStore(tmp_path, problems=Problems()).load(1) == save
    newer = _later(save, 12)
    store.write(newer)
    assert len((tmp_path / "1.json").read_text().splitlines()) == 1
    assert SaveStore(tmp_path, problems=Problems()).load(1) == newer


def test_a_line_made_for_the_caller_to_append_reads_back_as_the_game(tmp_path: Path) -> None:
    """``append_later`` makes the very line ``write`` would append, and counts it written."""
    store, _, save = _played(tmp_path, 10)
    newer = _later(save, 12)
    pending = store.append_later(newer)
    assert pending is not None and pending.path == tmp_path / "1.json"
    before = pending.path.read_bytes()
    assert SaveStore(tmp_path, problems=Problems()).load(1) == save  # nothing written yet
    atomic.append(pending.path, pending.line)
    assert SaveStore(tmp_path, problems=Problems()).load(1) == newer
    newest = _later(save, 14)
    store.write(newest)  # the next change is appended after the caller's line
    lines = pending.path.read_bytes()[len(before):].splitlines()
    assert len(lines) == 2 and lines[0] + b"\n" == pending.line
    assert SaveStore(tmp_path, problems=Problems()).load(1) == newest


def test_a_line_the_caller_could_not_append_leads_to_a_whole_write(tmp_path: Path) -> None:
    """After ``append_failed`` the save is written whole, with the change the line held."""
    store, _, save = _played(tmp_path, 10)
    newer = _later(save, 12)
    assert store.append_later(newer) is not None
    store.append_failed(1)
    store.write(newer)
    assert len((tmp_path / "1.json").read_text().splitlines()) == 1
    assert SaveStore(tmp_path, problems=Problems()).load(1) == newer


def test_no_line_is_made_for_a_save_due_to_be_written_whole(tmp_path: Path) -> None:
    """A save this store has not written yet must be written whole: no line, nothing changed."""
    _, _, save = _played(tmp_path, 10)
    other = SaveStore(tmp_path, problems=Problems())
    other.lock(1)
    assert other.append_later(_later(save, 12)) is None
    assert other.load(1) == save
