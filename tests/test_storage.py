"""Autosave and resume: seeded games stopped at many points and resumed end exactly the same.

Also: atomic writes, the save listing, ``--resume`` errors, Ctrl-C and a real SIGKILL.
The helpers here (policy players, scripted runs) are shared by the other storage tests.
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
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import pytest

from yahtzee.cli import main
from yahtzee.console import DIE_PROMPT, Console
from yahtzee.dice import Dice
from yahtzee.die import Die
from yahtzee.game import Game, yahtzee_variant
from yahtzee.player import HumanPlayer, Player, TurnView
from yahtzee.poker_dice import POKER_DICE
from yahtzee.rules import COURSE, OFFICIAL
from yahtzee.storage import atomic
from yahtzee.storage.commands import resume_hint
from yahtzee.storage.history import History
from yahtzee.storage.problems import Damage, StoredFile
from yahtzee.storage.saves import Autosaver, SaveFile, SaveStore
from yahtzee.storage.snapshot import Snapshot
from yahtzee.variant import Variant

ROOT = Path(__file__).resolve().parent.parent
FINAL_BANNER = "*" * 31 + "\n          FINAL SCORES\n"


# -- shared helpers ------------------------------------------------------------
class Problems:
    """Records what storage reports, instead of printing it."""

    def __init__(self) -> None:
        """Start with nothing reported."""
        self.damaged: list[tuple[StoredFile, Path, Damage, Path | None]] = []
        self.unsaved: list[Exception] = []

    def damaged_file(self, what: StoredFile, path: Path, damage: Damage,
                     moved_to: Path | None) -> None:
        """Record a damaged file."""
        self.damaged.append((what, path, damage, moved_to))

    def cannot_save(self, error: Exception) -> None:
        """Record a failure to save."""
        self.unsaved.append(error)


class PolicyPlayer(HumanPlayer):
    """Plays by a fixed rule, so that a seed gives a varied but reproducible game.

    It keeps the most common face, sometimes scores early, and takes the box worth most.
    """

    def command(self, view: TurnView, console: Console) -> str:
        """Return the next toggle toward the wanted dice, ``score`` early now and then, or roll."""
        if view.rolls_left == 1 and view.round % 4 == 1:
            return "score"
        counts = Counter(view.dice)
        face = max(counts, key=lambda f: (counts[f], f))
        for index, (value, saved) in enumerate(zip(view.dice, view.saved)):
            if (value == face) != saved:
                return str(index + 1)
        return "roll"

    def category(self, view: TurnView, console: Console) -> str:
        """Return the menu number of the box worth most (the first of equals)."""
        items = view.card.menu(_dice_of(view.dice))
        return str(max(items, key=lambda item: item.points).number)


def _dice_of(values: Sequence[int]) -> Dice:
    """Return a ``Dice`` showing ``values``."""
    return Dice.of(values)


def variant_of(name: str) -> Variant:
    """Return the dice game used by a test: ``course``, ``official`` or ``poker``."""
    if name == "poker":
        return POKER_DICE
    return yahtzee_variant(OFFICIAL if name == "official" else COURSE)


def humans(variant: Variant, count: int = 2) -> list[Player]:
    """Return ``count`` human players with fresh cards."""
    return [HumanPlayer(f"Player {n}", variant.new_card()) for n in range(1, count + 1)]


def make_script(seed: int, variant: Variant, players: int = 2) -> list[str]:
    """Return the accepted commands of the policy players' game with ``seed``, in order."""
    policy: list[Player] = [PolicyPlayer(f"Player {n}", variant.new_card())
                            for n in range(1, players + 1)]
    game = Game(policy, variant=variant, console=Console(io.StringIO(), io.StringIO()),
                seed=seed)
    game.play_game()
    return [decision.command for decision in game.progress.log]


def feed(lines: Sequence[str]) -> io.StringIO:
    """Return an input stream holding ``lines``."""
    return io.StringIO("".join(line + "\n" for line in lines))


@dataclass
class Run:
    """A game played from scripted input: its transcript and the game."""

    out: str
    game: Game


def play_through(seed: int, variant: Variant, lines: Sequence[str], players: int = 2,
                 observers: Sequence[Autosaver] = ()) -> Run:
    """Play a new game fed ``lines``; stop quietly at the end of input."""
    out = io.StringIO()
    game = Game(humans(variant, players), variant=variant,
                console=Console(feed(lines), out), seed=seed, observers=observers)
    try:
        game.play_game()
    except EOFError:
        pass
    return Run(out.getvalue(), game)


def final_screen(transcript: str) -> str:
    """Return the transcript from the final scores' banner on."""
    index = transcript.index(FINAL_BANNER)
    return transcript[index:]


def card_state(game: Game) -> list[tuple[str, list[tuple[str, int]]]]:
    """Return every player's name and printed card rows."""
    return [(p.name, p.card.rows()) for p in game.players]


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``YAHTZEE_DATA_DIR`` at a fresh folder and return it."""
    folder = tmp_path / "data"
    monkeypatch.setenv("YAHTZEE_DATA_DIR", str(folder))
    return folder


def run_cli(argv: Sequence[str], text: str, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the command line in this process with ``text`` as input; return status, out, err."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- resuming in process -------------------------------------------------------
SCRIPTS: dict[tuple[int, str], list[str]] = {}


def script_for(seed: int, rules: str) -> list[str]:
    """Return (and remember) the policy script of a seeded game."""
    key = (seed, rules)
    if key not in SCRIPTS:
        SCRIPTS[key] = make_script(seed, variant_of(rules))
        Die.r = random.Random()
    return SCRIPTS[key]


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
    assert reference.game.is_over()
    points = sorted(set(range(0, len(script), 11)) | {1, 2, 3, len(script) - 1})
    for k in points:
        folder = tmp_path / f"{rules}-{k}"
        problems = Problems()
        store = SaveStore(folder / "saves", problems=problems)
        history = History(folder / "history.sqlite3", problems=problems)
        Die.r = random.Random()
        first = play_through(seed, variant, script[:k], observers=[Autosaver(store, history)])
        assert not first.game.is_over()
        assert reference.out.startswith(first.out[:-1])
        save = store.latest()
        assert save is not None and save.save_id == 1
        assert len(save.snapshot.log) == k

        Die.r = random.Random()
        out = io.StringIO()
        saver = Autosaver(store, history, resumed=save)
        game = save.snapshot.to_game(console=Console(feed(script[k:]), out), observers=[saver])
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
        assert game.progress.log == reference.game.progress.log
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
    play_through(7, variant, script[:70], observers=[Autosaver(store)])
    save = store.latest()
    assert save is not None
    Die.r = random.Random()
    out = io.StringIO()
    game = save.snapshot.to_game(console=Console(feed(script[70:]), out),
                                 observers=[Autosaver(store)])
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
    play_through(7, variant, script[:20], observers=[Autosaver(store, history)])
    cuts = [20, 57, 58, len(script)]
    game = reference.game
    for start, stop in zip(cuts, cuts[1:]):
        save = store.latest()
        assert save is not None and len(save.snapshot.log) == start
        Die.r = random.Random()
        out = io.StringIO()
        game = save.snapshot.to_game(console=Console(feed(script[start:stop]), out),
                                     observers=[Autosaver(store, history, resumed=save)])
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
                        "python -m yahtzee --resume\n")
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
    assert fresh_out == unsaved + "Game saved. To continue it, run: python -m yahtzee --resume\n"
    first_save = (data / "saves" / "1.json").read_bytes()

    Die.r = random.Random()
    status, out, err = run_cli(["--seed", "7"], "roll\n", monkeypatch, capsys)
    assert (status, err, out) == (0, "", fresh_out)
    assert (data / "saves" / "1.json").read_bytes() == first_save
    assert sorted(os.listdir(data / "saves")) == ["1.json", "2.json"]


def test_the_hint_names_the_game_when_another_was_saved_since(tmp_path: Path) -> None:
    """While another game's save is newer, the hint gives this game's ID."""
    store = SaveStore(tmp_path / "saves", problems=Problems())
    first, second = Autosaver(store), Autosaver(store)
    play_through(7, variant_of("course"), ["roll"], observers=[first])
    play_through(8, variant_of("course"), ["roll"], observers=[second])
    later = os.stat(store.path(2)).st_mtime_ns + 10**9
    os.utime(store.path(1), ns=(later, later))
    assert (resume_hint(first), resume_hint(second)) == (
        "python -m yahtzee --resume", "python -m yahtzee --resume 2")


def test_saves_lists_unfinished_games_newest_first(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``saves`` shows each unfinished game's ID, round, game and players."""
    status, out, _ = run_cli(["saves"], "", monkeypatch, capsys)
    assert (status, out) == (0, "No unfinished games.\n")
    script = script_for(7, "course")
    run_cli(["--seed", "7"], "".join(s + "\n" for s in script[:40]), monkeypatch, capsys)
    run_cli(["--seed", "3", "--rules", "official", "--players", "human", "--names", "Ann"],
            "", monkeypatch, capsys)
    status, out, err = run_cli(["saves"], "", monkeypatch, capsys)
    lines = out.splitlines()
    assert (status, err, len(lines)) == (0, "", 3)
    assert lines[0].split() == ["ID", "Saved", "Round", "Game", "Players"]
    first, second = lines[1].split("  "), lines[2].split("  ")
    assert second[0].strip() == "1" and first[0].strip() == "2"
    assert [part.strip() for part in first[2:] if part] == [
        "1/13", "yahtzee (official)", "Ann (human)"]
    save = SaveStore(problems=Problems()).load(1)
    rounds = f"{save.snapshot.round + 1}/13"
    assert [part.strip() for part in second[2:] if part] == [
        rounds, "yahtzee (course)", "Player 1 (human), Player 2 (human)"]
    status, out, err = run_cli(["--resume"], "", monkeypatch, capsys)
    assert out.startswith("*** Ann: ***\nCurrent Scorecard:\n")


def test_resume_errors_exit_2_and_change_nothing(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing to resume, or an unknown ID: one line on standard error and status 2."""
    assert run_cli(["--resume"], "", monkeypatch, capsys) == (
        2, "", "yahtzee: there is no unfinished game to resume\n")
    assert not data.exists()
    run_cli(["--seed", "1"], "", monkeypatch, capsys)
    before = sorted(os.listdir(data / "saves"))
    for wanted in ("5", "x", "-1"):
        assert run_cli(["--resume", wanted], "", monkeypatch, capsys) == (
            2, "", f"yahtzee: no unfinished game has the ID '{wanted}'; "
                   "the command 'saves' lists them\n")
    assert sorted(os.listdir(data / "saves")) == before


def test_a_game_over_but_not_yet_filed_is_finished_on_resume(tmp_path: Path) -> None:
    """Killed between the last box and the history: resuming shows the end and files the game."""

    class Forgetful(Autosaver):
        """An autosaver that dies before the game's end is filed."""

        def finished(self, game: Game) -> None:
            """Do nothing, as a killed process would."""

    script = script_for(5, "poker")
    store = SaveStore(tmp_path / "saves", problems=Problems())
    history = History(tmp_path / "history.sqlite3")
    reference = play_through(5, POKER_DICE, script, observers=[Forgetful(store, history)])
    save = store.latest()
    assert save is not None and save.snapshot.round == POKER_DICE.rounds
    out = io.StringIO()
    game = save.snapshot.to_game(console=Console(io.StringIO(), out),
                                 observers=[Autosaver(store, history, resumed=save)])
    game.play_game()
    assert out.getvalue() == final_screen(reference.out)
    assert store.saved_ids() == [] and history.game_ids() == [1]


def test_computer_players_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game against a computer player resumes with the same kinds and ends the same."""
    pytest.importorskip("yahtzee.solver.strategy")
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    from yahtzee.player import ComputerPlayer
    variant = variant_of("course")

    def seats(ann: type[HumanPlayer]) -> list[Player]:
        """Return Ann, played by ``ann``, and the greedy computer."""
        return [ann("Ann", variant.new_card()),
                ComputerPlayer("Greedy", variant.new_card(), "greedy")]

    quiet = Console(io.StringIO(), io.StringIO())
    policy = Game(seats(PolicyPlayer), variant=variant, console=quiet, seed=9)
    policy.play_game()
    script = [d.command for d in policy.progress.log if d.seat == 0]

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
                observers=[Autosaver(store, history)])
    with pytest.raises(EOFError):
        game.play_game()
    save = store.latest()
    assert save is not None
    assert [(p.name, p.kind) for p in save.snapshot.players] == [("Ann", "human"),
                                                                 ("Greedy", "greedy")]
    assert len([d for d in save.snapshot.log if d.seat == 0]) == 40

    Die.r = random.Random()
    resumed_out = io.StringIO()
    resumed = save.snapshot.to_game(console=Console(feed(script[40:]), resumed_out),
                                    observers=[Autosaver(store, history, resumed=save)])
    assert isinstance(resumed.players[1], ComputerPlayer)
    resumed.play_game()
    assert card_state(resumed) == card_state(reference)
    assert final_screen(resumed_out.getvalue()) == final_screen(out.getvalue())
    meta, _ = history.load_game(1)
    assert [p.kind for p in meta.players] == ["human", "greedy"]


def test_snapshot_round_trips_through_json() -> None:
    """A snapshot written as JSON and read back is the same snapshot."""
    script = script_for(12, "official")
    run = play_through(12, variant_of("official"), script[:77])
    snapshot = Snapshot.of_game(run.game)
    again = Snapshot.from_dict(json.loads(json.dumps(snapshot.to_dict())))
    assert again == snapshot
    assert again.rng == Die.r.getstate()


# -- atomic writes -------------------------------------------------------------
def _saved_game(tmp_path: Path, commands: int) -> tuple[SaveStore, SaveFile, Game]:
    """Return a store holding the save of a game after ``commands`` commands."""
    store = SaveStore(tmp_path / "saves", problems=Problems())
    saver = Autosaver(store)
    run = play_through(7, variant_of("course"), script_for(7, "course")[:commands],
                       observers=[saver])
    assert saver.save is not None
    return store, saver.save, run.game


def _failing_write(after: int, error: BaseException) -> object:
    """Return a writer that writes ``after`` bytes of the data and then fails with ``error``."""
    def write(stream: BinaryIO, data: bytes) -> None:
        """Write the first part of ``data``, then fail."""
        stream.write(data[:after])
        stream.flush()
        raise error
    return write


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"),
                                   KeyboardInterrupt()])
def test_a_write_that_fails_midway_leaves_the_previous_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    """A crash after part of the new file is written leaves the old save whole and readable."""
    store, save, game = _saved_game(tmp_path, 10)
    before = store.path(1).read_bytes()
    game2 = play_through(7, variant_of("course"), script_for(7, "course")[:30]).game
    newer = SaveFile(1, save.uid, save.created, save.updated, False, Snapshot.of_game(game2))
    monkeypatch.setattr(atomic, "_write", _failing_write(len(newer.to_bytes()) // 2, error))
    with pytest.raises(type(error)):
        store.write(newer)
    assert store.path(1).read_bytes() == before
    assert store.load(1).snapshot == save.snapshot
    assert os.listdir(store.directory) == ["1.json"]


def test_a_temp_file_left_by_a_killed_writer_is_ignored(tmp_path: Path) -> None:
    """A half-written temporary file (the writer was killed) does not hide the real save."""
    store, save, _ = _saved_game(tmp_path, 10)
    partial = store.path(1).read_bytes()[:500]
    (store.directory / ".1.json.99999.tmp").write_bytes(partial)
    assert store.unfinished() == [save]
    assert store.load(1) == save


def test_a_full_disk_warns_once_and_the_game_plays_on(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """With every write failing, the game plays to its end with exactly one warning."""
    script = script_for(7, "course")
    reference = play_through(7, variant_of("course"), script)
    Die.r = random.Random()
    monkeypatch.setattr(atomic, "_write", _failing_write(100, OSError(
        errno.ENOSPC, "No space left on device")))
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
        return len(json.loads(path.read_text())["game"]["log"])
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
            _wait_for(save_path, 0, process)
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
