"""Autosave and resume: seeded games stopped at many points and resumed end exactly the same.

Also: atomic writes, the save listing, ``--resume`` errors, Ctrl-C and a real SIGKILL.
The shared helpers (policy players, scripted runs) are in ``tests.helpers``.
"""

from __future__ import annotations

import errno
import io
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import pytest

from tests.helpers import (PolicyPlayer, Problems, card_state, feed, final_screen, play_through,
                           resume_game, run_cli, save_data, script_for, variant_of)
from yahtzee.app.session import Autosave, Solvers
from yahtzee.domain.die import Die
from yahtzee.domain.games import POKER_DICE
from yahtzee.engine.engine import Engine
from yahtzee.engine.records import getstate_of
from yahtzee.interfaces.cli import main
from yahtzee.interfaces.commands import resume_hint
from yahtzee.interfaces.console import DIE_PROMPT, Console
from yahtzee.interfaces.console_game import Game
from yahtzee.players.kinds import GREEDY
from yahtzee.players.players import ComputerPlayer, HumanPlayer, Player
from yahtzee.storage import atomic
from yahtzee.solver.cache import Solution
from yahtzee.storage.history import History
from yahtzee.storage.saves import BrowserSeats, SaveFile, SaveStore
from yahtzee.storage.snapshot import record_from_dict, record_to_dict

ROOT = Path(__file__).resolve().parents[2]


def test_policy_script_covers_every_kind_of_command() -> None:
    """The scripted games toggle, roll, score early and run out of rolls."""
    script = script_for(7, "course")
    assert {"roll", "score"} <= set(script)
    assert any(line in {"1", "2", "3", "4", "5"} for line in script)
    assert 130 <= len(script) <= 200


@pytest.mark.parametrize(("seed", "rules"), [(7, "course"), (12, "official"), (5, "poker")])
def test_resume_after_end_of_input_at_many_points(seed: int, rules: str, tmp_path: Path) -> None:
    """Stopped at end of input after any command and resumed, the game ends as if never stopped."""
    script = script_for(seed, rules)
    variant = variant_of(rules)
    reference = play_through(seed, variant, script)
    assert reference.game.engine.is_over()
    points = sorted(set(range(0, len(script), 11)) | {1, 2, 3, len(script) - 1})
    for k in points:
        folder = tmp_path / f"{rules}-{k}"
        problems = Problems()
        store = SaveStore(folder / "saves", problems=problems)
        history = History(folder / "history.sqlite3", problems=problems)
        Die.r = random.Random()
        first = play_through(seed, variant, script[:k], observers=[Autosave(store, history)])
        assert not first.game.engine.is_over()
        assert reference.out.startswith(first.out[:-1])
        saves = store.unfinished()
        if k == 0:
            assert saves == [] and not store.directory.exists()
            continue
        save = saves[0]
        assert save.save_id == 1
        assert len(save.snapshot.log) == k

        Die.r = random.Random()
        out = io.StringIO()
        saver = Autosave(store, history, resumed=save)
        game = resume_game(save, Console(feed(script[k:]), out), observers=[saver])
        game.play_game()
        resumed = out.getvalue()

        seat = save.snapshot.seat
        assert resumed.startswith(f"*** {game.players[seat].name}: ***\n")
        rest = resumed.split("\n", 1)[1]
        if save.snapshot.turn is not None and save.snapshot.turn.choosing:
            assert rest.startswith("Dice:\n")
            rest = rest.split("\n", 6)[6]
        assert reference.out.endswith(rest), k
        assert final_screen(resumed) == final_screen(reference.out)
        assert card_state(game) == card_state(reference.game)
        assert game.log == reference.game.log
        assert store.unfinished() == []
        assert history.game_ids() == [1]
        assert problems.damaged == [] and problems.unsaved == []


def test_refused_input_around_an_interruption_changes_nothing(tmp_path: Path) -> None:
    """Lines the game refuses, before and after the stop, leave the resumed game the same."""
    script = list(script_for(7, "course"))
    for index in (90, 61, 60, 12, 3):
        script[index:index] = ["hello", "0", "14", ""]
    variant = variant_of("course")
    reference = play_through(7, variant, script)
    assert card_state(reference.game) == card_state(play_through(
        7, variant, script_for(7, "course")).game)
    Die.r = random.Random()
    store = SaveStore(tmp_path / "saves", problems=Problems())
    play_through(7, variant, script[:70], observers=[Autosave(store)])
    save = store.unfinished()[0]
    Die.r = random.Random()
    out = io.StringIO()
    game = resume_game(save, Console(feed(script[70:]), out), observers=[Autosave(store)])
    game.play_game()
    assert card_state(game) == card_state(reference.game)
    assert final_screen(out.getvalue()) == final_screen(reference.out)


def test_resume_twice_in_one_game(tmp_path: Path) -> None:
    """A resumed game stopped again and resumed again still ends the same."""
    script = script_for(7, "course")
    variant = variant_of("course")
    reference = play_through(7, variant, script)
    store = SaveStore(tmp_path / "saves", problems=Problems())
    history = History(tmp_path / "history.sqlite3")
    play_through(7, variant, script[:20], observers=[Autosave(store, history)])
    cuts = [20, 57, 58, len(script)]
    game = reference.game
    for start, stop in zip(cuts, cuts[1:]):
        save = store.unfinished()[0]
        assert len(save.snapshot.log) == start
        Die.r = random.Random()
        out = io.StringIO()
        game = resume_game(save, Console(feed(script[start:stop]), out),
                           observers=[Autosave(store, history, resumed=save)])
        try:
            game.play_game()
        except EOFError:
            pass
    assert card_state(game) == card_state(reference.game)
    assert final_screen(out.getvalue()) == final_screen(reference.out)


def interrupt_after(lines: Sequence[str]) -> io.StringIO:
    """Return input that raises ``KeyboardInterrupt`` (as Ctrl-C does) once ``lines`` are read."""
    stream = feed(lines)

    def readline(size: int = -1, /) -> str:
        """Return the next line, or raise ``KeyboardInterrupt`` when there is none."""
        line = io.StringIO.readline(stream, size)
        if not line:
            raise KeyboardInterrupt
        return line

    setattr(stream, "readline", readline)
    return stream


def test_resume_after_ctrl_c(data: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C exits with 130 and the resume hint; resuming ends like the uninterrupted game."""
    script = script_for(7, "course")
    reference = play_through(7, variant_of("course"), script)
    Die.r = random.Random()
    monkeypatch.setattr(sys, "stdin", interrupt_after(script[:33]))
    assert main(["--seed", "7"]) == 130
    out = capsys.readouterr().out
    assert out.endswith(f"{DIE_PROMPT}\nGame saved. To continue it, run: "
                        "python -m yahtzee --resume 1\n")
    Die.r = random.Random()
    status, out, err = run_cli(["--resume", "1"], "".join(s + "\n" for s in script[33:]),
                               monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert final_screen(out) == final_screen(reference.out)


def test_end_of_input_prints_the_hint_and_a_new_game_keeps_the_old_save(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A new game prints exactly the usual transcript and never touches an unfinished one."""
    unsaved = play_through(7, variant_of("course"), ["roll"]).out
    Die.r = random.Random()
    status, fresh_out, err = run_cli(["--seed", "7"], "roll\n", monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert fresh_out == unsaved + "Game saved. To continue it, run: python -m yahtzee --resume 1\n"
    first_save = (data / "saves" / "1.json").read_bytes()

    Die.r = random.Random()
    status, out, err = run_cli(["--seed", "7"], "roll\n", monkeypatch, capsys)
    assert (status, err, out) == (0, "", fresh_out.replace("--resume 1\n", "--resume 2\n"))
    assert (data / "saves" / "1.json").read_bytes() == first_save
    assert sorted(os.listdir(data / "saves")) == ["1.json", "1.lock", "2.json", "2.lock"]


def test_the_hint_names_the_games_own_id_even_when_it_is_the_newest(tmp_path: Path) -> None:
    """Plain --resume takes the newest save, maybe another window's: the hint names its own."""
    store = SaveStore(tmp_path / "saves", problems=Problems())
    first, second = Autosave(store), Autosave(store)
    play_through(7, variant_of("course"), ["roll"], observers=[first])
    play_through(8, variant_of("course"), ["roll"], observers=[second])
    later = os.stat(store.path(2)).st_mtime_ns + 10**9
    os.utime(store.path(1), ns=(later, later))
    assert (resume_hint(first), resume_hint(second)) == (
        "python -m yahtzee --resume 1", "python -m yahtzee --resume 2")


def test_saves_lists_unfinished_games_newest_first(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``saves`` shows each unfinished game's ID, round, game and players."""
    status, out, _ = run_cli(["saves"], "", monkeypatch, capsys)
    assert (status, out) == (0, "No unfinished games.\n")
    script = script_for(7, "course")
    run_cli(["--seed", "7"], "".join(s + "\n" for s in script[:40]), monkeypatch, capsys)
    run_cli(["--seed", "3", "--rules", "official", "--players", "human", "--names", "Ann"],
            "roll\n", monkeypatch, capsys)
    status, out, err = run_cli(["saves"], "", monkeypatch, capsys)
    lines = out.splitlines()
    assert (status, err, len(lines)) == (0, "", 5)
    assert lines[0].split() == ["ID", "Saved", "Round", "Game"]
    first, second = lines[1].split("  "), lines[3].split("  ")
    assert second[0].strip() == "1" and first[0].strip() == "2"
    assert [part.strip() for part in first[2:] if part] == ["1/13", "yahtzee (official)"]
    assert lines[2] == "    Players: Ann (human)"
    save = SaveStore(problems=Problems()).load(1)
    rounds = f"{save.snapshot.round + 1}/13"
    assert [part.strip() for part in second[2:] if part] == [rounds, "yahtzee (course)"]
    assert lines[4] == "    Players: Player 1 (human), Player 2 (human)"
    status, out, err = run_cli(["--resume"], "", monkeypatch, capsys)
    assert out.startswith("Resuming game 2: Yahtzee, official rules, round 1 of 13; Ann to play.\n"
                          "*** Ann: ***\nCurrent Scorecard:\n")


def test_resume_alone_prefers_the_console_s_game_to_a_newer_browser_game(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A browser game is its server's: listed as such, resumed alone only when no other is left."""
    run_cli(["--seed", "3", "--players", "human", "--names", "Ann"], "roll\n", monkeypatch,
            capsys)
    store = SaveStore(problems=Problems())
    record = play_through(4, variant_of("course"), ["roll"]).game.engine.record()
    browser = store.create(record, browser=BrowserSeats(4, True, False, (("d" * 64, (0, 1)),)))
    store.release(browser.save_id)
    status, out, _ = run_cli(["saves"], "", monkeypatch, capsys)
    newest, older = ([part.strip() for part in line.split("  ") if part]
                     for line in out.splitlines()[1::2])
    assert (newest[0], newest[3], older[0], older[3]) == (
        "2", "yahtzee (course) in the browser", "1", "yahtzee (course)")
    assert run_cli(["--resume"], "", monkeypatch, capsys)[1].startswith(
        "Resuming game 1: Yahtzee, course rules, round 1 of 13; Ann to play.\n")
    assert run_cli(["saves", "--delete", "1"], "", monkeypatch, capsys)[0] == 0
    assert run_cli(["--resume"], "", monkeypatch, capsys)[1].startswith("Resuming game 2: ")


@pytest.mark.parametrize("coached", [True, False])
def test_a_browser_game_goes_on_at_the_console_with_its_coach(
        coached: bool, course: Solution, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A browser game set up with the coach is resumed at the console with it, no --coach
    needed; one set up without it is resumed without it, as a console game is."""
    store = SaveStore(problems=Problems())
    record = play_through(4, variant_of("course"), ["roll"]).game.engine.record()
    made = store.create(record, browser=BrowserSeats(4, coached, False, (("d" * 64, (0, 1)),)))
    store.release(made.save_id)
    status, out, _ = run_cli(["--resume", str(made.save_id)], "", monkeypatch, capsys)
    assert status == 0
    assert out.startswith(f"Resuming game {made.save_id}: ")
    assert ("\nCoach: keep " in out) is coached


def test_resume_errors_exit_1_or_2_and_change_nothing(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing to resume: one line on standard error and status 1; an unknown ID: status 2."""
    assert run_cli(["--resume"], "", monkeypatch, capsys) == (
        1, "", "yahtzee: there is no unfinished game to resume\n")
    assert not data.exists()
    run_cli(["--seed", "1"], "roll\n", monkeypatch, capsys)
    before = sorted(os.listdir(data / "saves"))
    for wanted in ("5", "x", "-1"):
        assert run_cli(["--resume", wanted], "", monkeypatch, capsys) == (
            2, "", f"yahtzee: no unfinished game has the ID '{wanted}'; "
                   "the command 'saves' lists them\n")
    assert sorted(os.listdir(data / "saves")) == before


def test_a_game_over_but_not_yet_filed_is_finished_on_resume(tmp_path: Path) -> None:
    """Killed between the last box and the history: resuming shows the end and files the game."""

    class Forgetful(Autosave):
        """An autosaver that dies before the game's end is filed."""

        def finished(self, engine: Engine) -> None:
            """Do nothing, as a killed process would."""

    script = script_for(5, "poker")
    store = SaveStore(tmp_path / "saves", problems=Problems())
    history = History(tmp_path / "history.sqlite3")
    reference = play_through(5, POKER_DICE, script, observers=[Forgetful(store, history)])
    save = store.unfinished()[0]
    assert save.snapshot.round == POKER_DICE.rounds
    out = io.StringIO()
    game = resume_game(save, Console(io.StringIO(), out),
                       observers=[Autosave(store, history, resumed=save)])
    game.play_game()
    assert out.getvalue() == final_screen(reference.out)
    assert store.saved_ids() == [] and history.game_ids() == [1]


def test_computer_players_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game against a computer player resumes with the same kinds and ends the same."""
    pytest.importorskip("yahtzee.solver.strategy")
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    variant = variant_of("course")

    def seats(ann: type[HumanPlayer]) -> list[Player]:
        """Return Ann, played by ``ann``, and the greedy computer."""
        return [ann("Ann", variant.new_card()), Solvers().player(GREEDY, "Greedy", variant)]

    quiet = Console(io.StringIO(), io.StringIO())
    policy = Game(seats(PolicyPlayer), variant=variant, console=quiet, seed=9)
    policy.play_game()
    script = [d.command for d in policy.log if d.seat == 0]

    Die.r = random.Random()
    out = io.StringIO()
    reference = Game(seats(HumanPlayer), variant=variant, console=Console(feed(script), out),
                     seed=9)
    reference.play_game()
    assert card_state(reference) == card_state(policy)

    Die.r = random.Random()
    store = SaveStore(tmp_path / "saves", problems=Problems())
    history = History(tmp_path / "history.sqlite3")
    game = Game(seats(HumanPlayer), variant=variant,
                console=Console(feed(script[:40]), io.StringIO()), seed=9,
                observers=[Autosave(store, history)])
    with pytest.raises(EOFError):
        game.play_game()
    save = store.unfinished()[0]
    assert [(p.name, p.kind) for p in save.snapshot.players] == [("Ann", "human"),
                                                                 ("Greedy", "greedy")]
    assert len([d for d in save.snapshot.log if d.seat == 0]) == 40

    Die.r = random.Random()
    resumed_out = io.StringIO()
    resumed = resume_game(save, Console(feed(script[40:]), resumed_out),
                          observers=[Autosave(store, history, resumed=save)])
    assert isinstance(resumed.players[1], ComputerPlayer)
    resumed.play_game()
    assert card_state(resumed) == card_state(reference)
    assert final_screen(resumed_out.getvalue()) == final_screen(out.getvalue())
    meta, _ = history.load_game(1)
    assert [p.kind for p in meta.players] == ["human", "greedy"]


def test_snapshot_round_trips_through_json() -> None:
    """A game record written as JSON and read back is the same record."""
    script = script_for(12, "official")
    run = play_through(12, variant_of("official"), script[:77])
    record = run.game.engine.record()
    again = record_from_dict(json.loads(json.dumps(record_to_dict(record))))
    assert again == record
    assert getstate_of(again.rng) == run.game.engine.rng.getstate()


# -- atomic writes -------------------------------------------------------------
def _saved_game(tmp_path: Path, commands: int) -> tuple[SaveStore, SaveFile, Game]:
    """Return a store holding the save of a game after ``commands`` commands.

    The store took the save up as a resumed game, so its next write is whole
    (the atomic write these tests are about), not a change appended.
    """
    store = SaveStore(tmp_path / "saves", problems=Problems())
    saver = Autosave(store)
    run = play_through(7, variant_of("course"), script_for(7, "course")[:commands],
                       observers=[saver])
    assert saver.save is not None
    store.release(saver.save.save_id)
    store.lock(saver.save.save_id)
    return store, saver.save, run.game


class _HalfWritten:
    """A file being written that stops after ``after`` bytes to let ``pause()`` run, then goes on.

    ``pause`` may raise (a full disk, Ctrl-C) or do something else meanwhile
    (another writer); it is called once per file.
    """

    def __init__(self, stream: BinaryIO, after: int, pause: Callable[[], None]) -> None:
        """Write through ``stream``."""
        self.stream = stream
        self.after = after
        self.pause = pause

    def __enter__(self) -> _HalfWritten:
        """Return this file."""
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """Close the file."""
        self.stream.close()

    def write(self, data: bytes) -> int:
        """Write the first ``after`` bytes of ``data``, call ``pause()``, then write the rest."""
        written = self.stream.write(data[:self.after])
        self.stream.flush()
        self.pause()
        return written + self.stream.write(data[self.after:])

    def flush(self) -> None:
        """Flush the file."""
        self.stream.flush()

    def fileno(self) -> int:
        """Return the file's descriptor."""
        return self.stream.fileno()


class _PausingOs:
    """Stands in for ``os`` in ``yahtzee.storage.atomic``: the files it writes pause midway.

    Every file does, or (``once``) only the first one, so that what ``pause``
    writes goes through unhindered.
    """

    def __init__(self, after: int, pause: Callable[[], None], *, once: bool = False) -> None:
        """Pause each file (or the first one) after ``after`` bytes, to call ``pause()``."""
        self.after = after
        self.pause = pause
        self.once = once
        self.files = 0

    def __getattr__(self, name: str) -> Any:
        """Return everything else from the real ``os``."""
        return getattr(os, name)

    def fdopen(self, fd: int, mode: str) -> BinaryIO | _HalfWritten:
        """Open the temporary file ``fd``; it pauses midway unless ``once`` and not the first."""
        stream = os.fdopen(fd, mode)
        assert isinstance(stream, io.BufferedWriter)
        self.files += 1
        if self.once and self.files > 1:
            return stream
        return _HalfWritten(stream, self.after, self.pause)


def _fail_writes(monkeypatch: pytest.MonkeyPatch, after: int, error: BaseException) -> None:
    """Make every atomic write fail with ``error`` after ``after`` bytes of its data."""
    def fail() -> None:
        """Fail, as a full disk or Ctrl-C does."""
        raise error
    monkeypatch.setattr(atomic, "os", _PausingOs(after, fail))


def _temp_files(folder: Path) -> list[str]:
    """Return the names of the temporary files in ``folder``."""
    return sorted(name for name in os.listdir(folder) if atomic.is_temp_name(name))


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"),
                                   KeyboardInterrupt()])
def test_a_write_that_fails_midway_leaves_the_previous_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    """A crash after part of the new file is written leaves the old save whole, no temp file."""
    store, save, game = _saved_game(tmp_path, 10)
    before = store.path(1).read_bytes()
    game2 = play_through(7, variant_of("course"), script_for(7, "course")[:30]).game
    newer = SaveFile(1, save.uid, save.created, save.updated, False, game2.engine.record())
    _fail_writes(monkeypatch, len(newer.to_bytes()) // 2, error)
    with pytest.raises(type(error)):
        store.write(newer)
    assert store.path(1).read_bytes() == before
    assert store.load(1).snapshot == save.snapshot
    assert sorted(os.listdir(store.directory)) == ["1.json", "1.lock"]


@pytest.mark.parametrize("name", [".1.json.99999.tmp", ".1.json.k3j_9x2a.tmp"])
def test_a_temp_file_left_by_a_killed_writer_is_ignored(tmp_path: Path, name: str) -> None:
    """A half-written temporary file (its writer was killed) neither hides nor blocks the save."""
    store, save, _ = _saved_game(tmp_path, 10)
    partial = store.path(1).read_bytes()[:500]
    (store.directory / name).write_bytes(partial)
    assert store.unfinished() == [save]
    assert store.load(1) == save
    game2 = play_through(7, variant_of("course"), script_for(7, "course")[:30]).game
    newer = SaveFile(1, save.uid, save.created, save.updated, False, game2.engine.record())
    store.write(newer)
    assert store.unfinished() == [newer]


class Overlaps:
    """A history's ``record`` that notes how many filings are inside it at once.

    Each filing waits inside (at most ``wait`` seconds) for another to come
    in beside it, so that two filings let run together are seen together.
    """

    def __init__(self, record: Callable[..., int], wait: float) -> None:
        self.record_first = record
        self.wait = wait
        self.inside = 0
        self.most = 0
        self.lock = threading.Lock()
        self.together = threading.Event()

    def record(self, *args: Any, **kwargs: Any) -> int:
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
            if self.inside > 1:
                self.together.set()
        try:
            self.together.wait(self.wait)
            return self.record_first(*args, **kwargs)
        finally:
            with self.lock:
                self.inside -= 1


def test_games_ending_together_are_filed_one_at_a_time_and_each_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Two games, each ending in a thread of its own at the same moment: the second filing
    # starts only once the first is done (session.FILING), and both are in the history.
    variant = variant_of("course")
    engines = [play_through(seed, variant, script_for(seed, "course")).game.engine
               for seed in (7, 8)]
    assert all(engine.is_over() for engine in engines)
    records = [engine.record() for engine in engines]
    problems = Problems()
    store = SaveStore(tmp_path / "saves", problems=problems)
    history = History(tmp_path / "history.sqlite3", problems=problems)
    overlaps = Overlaps(history.record, wait=0.5)
    monkeypatch.setattr(history, "record", overlaps.record)
    savers = [Autosave(store, history) for _ in records]
    threads = [threading.Thread(target=saver.file, args=(record,))
               for saver, record in zip(savers, records)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert overlaps.most == 1 and not overlaps.together.is_set()
    assert history.game_ids() == [1, 2]
    assert sorted(saver.game_number or 0 for saver in savers) == [1, 2]
    assert all(saver.filed for saver in savers) and problems.unsaved == []


def test_two_writers_never_share_a_temp_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write of the same save while another is half done: each file whole, the last one wins."""
    store, save, game = _saved_game(tmp_path, 10)
    game2 = play_through(7, variant_of("course"), script_for(7, "course")[:30]).game
    first = SaveFile(1, save.uid, save.created, save.updated, False, game.engine.record())
    second = SaveFile(1, save.uid, save.created, save.updated, False, game2.engine.record())
    seen: list[list[str]] = []

    def other_writer() -> None:
        """Write the other save in full, meanwhile."""
        seen.append(_temp_files(store.directory))
        store.write(second)
        assert store.load(1) == second
        seen.append(_temp_files(store.directory))

    monkeypatch.setattr(atomic, "os", _PausingOs(len(first.to_bytes()) // 2, other_writer,
                                                 once=True))
    store.write(first)
    assert len(seen) == 2 and len(seen[0]) == 1 and seen[1] == seen[0]
    assert store.load(1) == first
    assert sorted(os.listdir(store.directory)) == ["1.json", "1.lock"]


def test_two_new_saves_at_once_never_take_the_same_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save created while another is half written gets the next ID; both are whole.

    The first one's ID is reserved (locked) before its file is written.
    """
    store, save, game = _saved_game(tmp_path, 10)
    game2 = play_through(7, variant_of("course"), script_for(7, "course")[:30]).game
    others: list[SaveFile] = []

    def other_writer() -> None:
        """Create another game's save, meanwhile."""
        others.append(store.create(game2.engine.record()))

    monkeypatch.setattr(atomic, "os", _PausingOs(200, other_writer, once=True))
    mine = store.create(game.engine.record())
    assert [other.save_id for other in others] == [3]
    assert mine.save_id == 2
    assert [store.load(n) for n in (1, 2, 3)] == [save, mine, others[0]]
    assert sorted(os.listdir(store.directory)) == ["1.json", "1.lock", "2.json", "2.lock",
                                                   "3.json", "3.lock"]


def test_saves_are_created_where_files_cannot_be_hard_linked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system without hard links (as FAT): new saves are still written, never over one."""
    def no_links(source: object, target: object) -> None:
        """Fail as ``link`` does where the file system has no hard links."""
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    store, save, game = _saved_game(tmp_path, 10)
    assert save.save_id == 1 and store.load(1) == save
    with pytest.raises(FileExistsError):
        atomic.write_atomic(store.path(1), b"other\n", exclusive=True)
    assert store.load(1) == save
    again = store.create(game.engine.record())
    assert again.save_id == 2 and store.load(2) == again
    assert sorted(os.listdir(store.directory)) == ["1.json", "1.lock", "2.json", "2.lock"]


def test_a_full_disk_warns_once_and_the_game_plays_on(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """With every write failing, the game plays to its end with exactly one warning."""
    script = script_for(7, "course")
    reference = play_through(7, variant_of("course"), script)
    Die.r = random.Random()
    _fail_writes(monkeypatch, 100, OSError(errno.ENOSPC, "No space left on device"))
    status, out, err = run_cli(["--seed", "7"], "".join(s + "\n" for s in script),
                               monkeypatch, capsys)
    assert status == 0
    assert out == reference.out
    assert err == ("yahtzee: warning: the game cannot be saved (No space left on device); "
                   "play goes on without saving\n")
    assert os.listdir(data / "saves") == []


def test_a_data_folder_that_cannot_be_written_warns_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A data folder that cannot hold files: one warning, the game plays, the hint says so."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv("YAHTZEE_DATA_DIR", str(blocker / "data"))
    status, out, err = run_cli(["--seed", "7"], "roll\nscore\n1\n", monkeypatch, capsys)
    assert status == 0
    assert out.endswith(f"{DIE_PROMPT}\nGame stopped; it could not be saved.\n")
    assert err.count("\n") == 1
    assert err.startswith("yahtzee: warning: the game cannot be saved (")
    assert blocker.read_text() == "not a folder\n"


# -- a real SIGKILL --------------------------------------------------------------
def _log_length(path: Path) -> int:
    """Return how many decisions the save at ``path`` holds (-1 while there is none)."""
    try:
        return len(save_data(path)["game"]["log"])
    except FileNotFoundError:
        return -1


def _wait_for(path: Path, length: int, process: subprocess.Popen[bytes]) -> None:
    """Wait until the save at ``path`` holds ``length`` decisions (fail if the program ends)."""
    deadline = time.monotonic() + 120
    while _log_length(path) < length:
        assert process.poll() is None, "the game ended early"
        assert time.monotonic() < deadline, "the game did not save in time"
        time.sleep(0.01)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize(("seed", "paced", "racing"), [(7, 1, 0), (7, 48, 3), (12, 101, 5)])
def test_resume_after_sigkill(tmp_path: Path, seed: int, paced: int, racing: int) -> None:
    """Killed with SIGKILL mid-game, the program resumes and ends as the uninterrupted game.

    ``paced`` commands are fed one at a time, each waited for in the save; then
    ``racing`` more are sent at once and the process is killed at once, at any moment.
    """
    rules = "course" if seed == 7 else "official"
    script = script_for(seed, rules)
    reference = play_through(seed, variant_of(rules), script)
    env = {**os.environ, "YAHTZEE_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    save_path = tmp_path / "data" / "saves" / "1.json"
    with open(tmp_path / "first.txt", "wb") as first_out:
        process = subprocess.Popen(
            [sys.executable, "-m", "yahtzee", "--seed", str(seed), "--rules", rules],
            stdin=subprocess.PIPE, stdout=first_out, stderr=subprocess.DEVNULL, cwd=ROOT,
            env=env)
        assert process.stdin is not None
        try:
            for count, line in enumerate(script[:paced], start=1):
                process.stdin.write(line.encode() + b"\n")
                process.stdin.flush()
                _wait_for(save_path, count, process)
            process.stdin.write(b"".join(s.encode() + b"\n"
                                         for s in script[paced:paced + racing]))
            process.stdin.flush()
            os.kill(process.pid, signal.SIGKILL)
        finally:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGKILL
    done = _log_length(save_path)
    assert paced <= done <= paced + racing
    resumed = subprocess.run(
        [sys.executable, "-m", "yahtzee", "--resume"],
        input="".join(s + "\n" for s in script[done:]).encode(), capture_output=True,
        cwd=ROOT, env=env, check=False)
    assert (resumed.returncode, resumed.stderr) == (0, b"")
    out = resumed.stdout.decode()
    assert not out.startswith("*" * 31)
    assert final_screen(out) == final_screen(reference.out)
    assert not save_path.exists()
    assert History(tmp_path / "data" / "history.sqlite3").game_ids() == [1]
