"""Whole games through the real console, fed scripted input with seeded or rigged dice."""

from __future__ import annotations

import io
import os
import random
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import IO
from pathlib import Path

import pytest

from tests.helpers import message_of
from tests.oracle import NAMES, ScriptedRandom, points
from yahtzee import Game, HumanPlayer, ScoreCard
from yahtzee.domain.card import Variant
from yahtzee.domain.games import get_variant, yahtzee_variant
from yahtzee.interfaces.cli import main
from yahtzee.engine.moves import Notation
from yahtzee.interfaces.console import DIE_PROMPT, FACES_PROMPT, Console
from yahtzee.interfaces.wording import keep_advice_by_faces, local_time, time_element
from yahtzee.solver.coach import Keep, KeepAdvice
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules

ROOT = Path(__file__).resolve().parents[2]


def play(script: str, *, players: int = 2, seed: int | None = 1,
         rules: Rules = COURSE, rng: random.Random | None = None) -> tuple[str, Game]:
    """Play a game fed ``script`` (its dice from ``rng`` if given); return the transcript and
    the game."""
    out = io.StringIO()
    variant = yahtzee_variant(rules)
    game = Game([HumanPlayer(f"Player {n}", variant.new_card()) for n in range(1, players + 1)],
                variant=variant, console=Console(io.StringIO(script), out), seed=seed, rng=rng)
    try:
        game.play_game()
    except EOFError:
        pass
    return out.getvalue(), game


def dice_blocks(transcript: str) -> list[list[int]]:
    """Return the dice of every ``Dice:`` block, in order."""
    blocks = []
    for block in transcript.split("Dice:\n")[1:]:
        blocks.append([int(m) for m in re.findall(r"^\d: value (\d)", block, re.M)[:5]])
    return blocks


def first_rolls(seed: int, turns: int) -> list[list[int]]:
    """Return the first roll of each turn when nobody re-rolls, from an independent generator."""
    generator = random.Random(seed)
    return [[generator.randint(1, 6) for _ in range(5)] for _ in range(turns)]


def test_the_game_opens_exactly_as_the_spec_shows() -> None:
    transcript, _ = play("")
    lines = transcript.splitlines()
    assert lines[:4] == ["*" * 31, "       WELCOME TO YAHTZEE", "*" * 31, "*** Player 1: ***"]
    assert lines[4] == "Current Scorecard:"
    assert lines[5:22] == str(ScoreCard()).splitlines()
    assert lines[18] == " Yahtzee bonus:: 0"
    assert lines[22] == "*" * 30
    assert lines[23] == "Dice:"
    assert lines[24:29] == [f"{i}: value {v}" for i, v in enumerate(first_rolls(1, 1)[0], 1)]
    assert lines[29] == DIE_PROMPT


def test_a_whole_two_player_game_scores_what_the_dice_show() -> None:
    script = "".join(f"score\n{box}\n" for box in range(1, 14) for _ in (1, 2))
    transcript, game = play(script, seed=5)
    rolls = first_rolls(5, 26)
    expected = [0, 0]
    for turn, dice in enumerate(rolls):
        box = turn // 2
        expected[turn % 2] += points(box, dice)
        assert f"You scored {points(box, dice)} points in {NAMES[box]}" in transcript
    for seat, player in enumerate(game.players):
        card = player.card
        assert isinstance(card, ScoreCard)
        upper = sum(card.scores()[:6])  # type: ignore[arg-type]
        assert card.score() == expected[seat] + (35 if upper >= 63 else 0)
    assert game.engine.is_over() and transcript.count("*** Player 1: ***") == 13 + 1
    assert "FINAL SCORES" in transcript
    totals = [p.card.score() for p in game.players]
    last = transcript.splitlines()[-1]
    if totals[0] == totals[1]:
        assert last == f"Tie between Player 1 and Player 2 with {totals[0]} points"
    else:
        winner = 1 + totals.index(max(totals))
        assert last == f"Player {winner} wins with {max(totals)} points"


def test_every_menu_shows_the_points_of_the_dice_on_screen() -> None:
    rng = random.Random(3)
    script = ""
    for turn in range(26):
        if turn % 2:
            script += "\n".join(rng.sample(["1", "3", "roll", "2", "5"], 3)) + "\nscore\n"
        else:
            script += "\n".join(rng.sample(["1", "3", "2", "5", "4"], 2)) + "\nroll\nroll\n"
        script += f"{turn // 2 + 1}\n"
    transcript, game = play(script, seed=11)
    assert game.engine.is_over()
    menus = 0
    chunks = transcript.split("Select a category that you have not scored in yet:\n")
    for i, after in enumerate(chunks[1:], start=1):
        dice = dice_blocks("".join(chunks[:i]))[-1]
        for line in re.findall(r"^[ \d]\d: .*$", after.split("You scored", 1)[0], re.M):
            found = re.fullmatch(r"\s*(\d+): (.+), (\d+) points", line)
            assert found is not None
            number, name, shown = found.groups()
            assert name == NAMES[int(number) - 1]
            assert int(shown) == points(int(number) - 1, dice)
        menus += 1
    assert menus == 26


@pytest.mark.parametrize("junk", ["", "0", "6", "-1", "1.5", "adfd", "rol", "scores", "1 2",
                                  "７", "\t", "roll score"])
def test_invalid_commands_are_refused_and_change_nothing(junk: str) -> None:
    transcript, game = play(f"{junk}\n")
    assert f"{junk.strip()} is not a valid die value" in transcript
    blocks = dice_blocks(transcript)
    assert blocks[0] == blocks[1] == first_rolls(1, 1)[0]
    assert "SAVE" not in transcript
    turn = game.engine.progress.turn
    assert turn is not None and turn.rolls_left == 2 and not any(turn.saved)
    assert game.log == []


@pytest.mark.parametrize("digits", [31, 4301])
def test_a_number_too_long_for_a_die_is_refused_like_any_other(digits: int) -> None:
    transcript, game = play("1" * digits + "\n")
    assert re.search(r" 1+(\.\.\. \(\d+ characters\))? is not a valid die value\n", transcript)
    assert game.log == []


def test_commands_ignore_case_and_surrounding_blanks() -> None:
    transcript, game = play(" 3 \nROLL\n 3\nScore\n")
    assert "is not a valid die value" not in transcript
    assert dice_blocks(transcript)[1][2] == first_rolls(1, 1)[0][2]
    assert [d.command for d in game.log] == ["3", "roll", "3", "score"]
    assert "Select a category that you have not scored in yet:" in transcript


def test_saved_dice_stay_and_the_others_are_rolled() -> None:
    transcript, _ = play("1\n5\n")
    assert "1: value {} SAVE".format(first_rolls(1, 1)[0][0]) in transcript
    transcript, _ = play("1\n2\nroll\n", rng=ScriptedRandom([2, 2, 3, 4, 5, 6, 6, 6]))
    assert dice_blocks(transcript)[-1] == [2, 2, 6, 6, 6]
    assert "1: value 2 SAVE\n2: value 2 SAVE\n3: value 6\n" in transcript


def test_after_two_rerolls_the_player_must_score() -> None:
    transcript, game = play("roll\nroll\nroll\n13\n",
                            rng=ScriptedRandom([1, 2, 3, 4, 6] + [5] * 5 + [6] * 5))
    tail = transcript.split("Out of rolls, you must score\n", 1)[1]
    assert tail.startswith("Dice:\n1: value 6\n2: value 6\n3: value 6\n4: value 6\n5: value 6\n"
                           "Select a category that you have not scored in yet:\n")
    assert "roll is not a valid die value" not in transcript
    assert "Please enter a category you have not scored yet" in transcript
    assert "You scored 30 points in Chance" in transcript
    assert game.players[0].card.score() == 30


def test_bad_category_numbers_reprompt_and_used_boxes_are_not_offered() -> None:
    transcript, game = play("score\n13\nscore\n1\nscore\n13\n0\n14\nabc\n1.5\n\n 2 \n")
    assert transcript.count("Please enter a category you have not scored yet") == 6
    last_menu = transcript.rsplit("Select a category that you have not scored in yet:\n", 1)[1]
    assert "13: Chance" not in last_menu and " 1: Ones" in last_menu
    card = game.players[0].card
    assert isinstance(card, ScoreCard)
    assert [i for i, s in enumerate(card.scores()) if s is not None] == [1, 12]


def test_course_bonus_through_the_console_takes_a_turn() -> None:
    yahtzee_dice = [4] * 5
    script = "score\n12\n" * 4 + "".join(f"score\n{box}\n" for box in range(1, 10))
    transcript, game = play(script, players=1, rng=ScriptedRandom(yahtzee_dice * 13))
    assert transcript.count("12: Yahtzee, 100 points") == 3
    assert transcript.count("You scored 100 points in Yahtzee") == 3
    card = game.players[0].card
    assert isinstance(card, ScoreCard)
    assert card.get_yahtzee_bonus() == 3 and game.engine.is_over()
    assert card.scores().count(None) == 3
    assert "Yahtzee bonus:: 300" in transcript
    assert transcript.splitlines()[-1] == f"Player 1 finished with {card.score()} points"


def test_official_rules_offer_only_the_forced_joker_box() -> None:
    transcript, game = play("score\n12\nscore\n6\n", players=1, rng=ScriptedRandom([6] * 10),
                            rules=OFFICIAL)
    second_menu = transcript.split("Select a category that you have not scored in yet:\n")[2]
    assert second_menu.startswith(" 6: Sixes, 130 points\n"
                                  "You scored 30 points in Sixes and a 100-point Yahtzee bonus\n")
    assert game.players[0].card.score() == 50 + 30 + 100


def test_an_open_box_the_joker_forbids_is_refused_with_the_reason_and_the_menu_again() -> None:
    transcript, game = play("score\n12\nscore\n13\n01\n12\n6\nscore\n1\n", players=1,
                            rng=ScriptedRandom([6] * 10 + [2] * 5), rules=OFFICIAL)
    menu = "Select a category that you have not scored in yet:\n 6: Sixes, 130 points\n"
    assert (menu + "The joker rule puts this Yahtzee in Sixes while Sixes is open\n"
            + menu + "Please enter a category you have not scored yet\n"
            + menu + "Please enter a category you have not scored yet\n"
            + menu + "You scored 30 points in Sixes") in transcript
    card = game.players[0].card
    assert isinstance(card, ScoreCard)
    assert card.scores()[5] == 30 and card.scores()[12] is None


def test_the_joker_refusal_names_the_lower_boxes_once_the_upper_box_is_filled() -> None:
    transcript, _ = play("score\n12\nscore\n6\nscore\n1\n7\n", players=1,
                         rng=ScriptedRandom([6] * 5 + [1, 1, 2, 6, 6] + [6] * 5),
                         rules=OFFICIAL)
    assert ("The joker rule puts this Yahtzee in a lower box while one is open\n"
            "Select a category that you have not scored in yet:\n 7: Three of a Kind, 130 points"
            ) in transcript
    assert "You scored 30 points in Three of a Kind and a 100-point Yahtzee bonus" in transcript


def test_roll_with_every_die_saved_says_so_and_keeps_the_rolls() -> None:
    transcript, game = play("1\n2\n3\n4\n5\nroll\n", players=1, seed=3)
    assert ('"roll" or "score": '
            "All five dice are saved: unsave one to roll it, or type score\n"
            "Current Scorecard:\n") in transcript
    assert transcript.count("All five dice are saved: unsave one to roll it, or type score\n") == 1
    assert game.engine.prompt().view.rolls_left == 2
    assert [d.command for d in game.log] == ["1", "2", "3", "4", "5"]


def run_driver(stdin: str, *args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python game_driver.py`` with ``stdin``; return the finished process."""
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(tmp_path), YAHTZEE_CACHE_DIR=str(tmp_path))
    return subprocess.run([sys.executable, "game_driver.py", *args], input=stdin, text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=60)


def test_end_of_input_mid_turn_exits_cleanly(tmp_path: Path) -> None:
    done = run_driver("1\nroll\n", "--seed", "3", tmp_path=tmp_path)
    assert done.returncode == 0
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.startswith("*" * 31 + "\n       WELCOME TO YAHTZEE\n")
    assert done.stdout.splitlines()[-1] == ("Game saved. To continue it, run: "
                                            "python -m yahtzee --resume 1")


def test_a_game_kept_by_faces_is_resumed_kept_by_faces(tmp_path: Path) -> None:
    # the save keeps --keep-by: resumed without it, the 4 typed to keep a 4 would otherwise
    # save die 4, whatever it shows
    done = run_driver("55\n", "--seed", "3", "--keep-by", "faces", tmp_path=tmp_path)
    assert done.returncode == 0
    hint = done.stdout.splitlines()[-1]
    assert hint == "Game saved. To continue it, run: python -m yahtzee --resume 1"
    again = run_driver("44\n", *hint.split("python -m yahtzee ")[1].split(), tmp_path=tmp_path)
    assert again.returncode == 0 and again.stderr == ""
    assert "Type the faces to keep" in again.stdout and "Please select a die #" not in again.stdout
    assert "not a valid die value" not in again.stdout
    assert again.stdout.splitlines()[-1] == hint


def test_keep_by_given_to_a_resumed_game_is_kept_from_its_next_move_on(tmp_path: Path) -> None:
    run_driver("55\n", "--seed", "3", "--keep-by", "faces", tmp_path=tmp_path)
    # stopped before a move: the save still says faces, so the command says positions
    unmoved = run_driver("", "--resume", "1", "--keep-by", "positions", tmp_path=tmp_path)
    assert "Please select a die #" in unmoved.stdout
    assert unmoved.stdout.splitlines()[-1] == ("Game saved. To continue it, run: "
                                               "python -m yahtzee --resume 1 --keep-by positions")
    moved = run_driver("1\n", "--resume", "1", "--keep-by", "positions", tmp_path=tmp_path)
    assert moved.stdout.splitlines()[-1] == ("Game saved. To continue it, run: "
                                             "python -m yahtzee --resume 1")
    later = run_driver("1\n", "--resume", "1", tmp_path=tmp_path)  # dice 5 5 5 4 6, 1 2 3 saved
    assert later.stderr == "" and "Type the faces to keep" not in later.stdout
    assert "1: value 5 SAVE\n2: value 5 SAVE\n" in later.stdout   # then 1 unsaves die 1
    assert "1: value 5\n2: value 5 SAVE\n3: value 5 SAVE\n4: value 4\n" in later.stdout


def test_end_of_input_in_the_menu_exits_cleanly(tmp_path: Path) -> None:
    done = run_driver("score\n", tmp_path=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr
    assert "You scored" not in done.stdout
    assert done.stdout.splitlines()[-1] == ("Game saved. To continue it, run: "
                                            "python -m yahtzee --resume 1")


def test_the_driver_and_the_module_play_the_same_seeded_game(tmp_path: Path) -> None:
    script = "score\n13\n" * 2
    driver = run_driver(script, "--seed", "9", tmp_path=tmp_path)
    module_data = tmp_path / "module"
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(module_data), YAHTZEE_CACHE_DIR=str(tmp_path))
    module = subprocess.run([sys.executable, "-m", "yahtzee", "play", "--seed", "9"],
                            input=script, text=True, capture_output=True, cwd=ROOT, env=env,
                            timeout=60)
    assert driver.stdout == module.stdout
    assert "You scored" in driver.stdout


@pytest.mark.parametrize("args, message", [
    (["--players", "human,robot"], "'robot' is not a player kind"),
    (["--players", ",".join(["human"] * 7)], "1 to 6 players"),
    (["--rules", "house"], "invalid choice"),
    (["--seed", "x"], "'x' is not a seed (a whole number from 0 to 9223372036854775807)"),
    (["--seed", "-1"], "'-1' is not a seed (a whole number from 0 to 9223372036854775807)"),
    (["--seed", str(2 ** 63)], "is not a seed"),
    (["--seed", "1" * 5000], "is not a seed"),  # past what Python reads as a number
    (["serve", "--port", "9" * 5000], "is not a whole number from 0 to 65535"),
    (["simulate", "--seed", "-1"], "'-1' is not a seed"),
    (["simulate", "--seed", "x"], "'x' is not a seed"),
    (["--delay", "-1"], "not a number of seconds from 0 to 5"),
    (["--delay", "1e9"], "'1e9' is not a number of seconds from 0 to 5"),
    (["--delay", "nan"], "'nan' is not a number of seconds from 0 to 5"),
    (["--names", "Ann,Ann"], "player names must differ"),
    (["--names", "A,B,C"], "3 names given for 2 players"),
    (["--names", "Ann"], "1 name given for 2 players"),
    (["--players", "human,computer,human", "--names", "A,B"], "2 names given for 3 players"),
    (["--game", "poker-dice", "--rules", "official"], "Poker Dice has one rule set"),
    (["frobnicate"], "argument COMMAND: invalid choice: 'frobnicate'"),
])
def test_bad_options_get_a_clear_message(args: list[str], message: str, tmp_path: Path) -> None:
    done = run_driver("", *args, tmp_path=tmp_path)
    assert done.returncode == 2 and message in message_of(done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_several_human_players_take_turns_in_order() -> None:
    transcript, game = play("score\n13\n" * 4, players=4)
    headers = re.findall(r"^\*\*\* (Player \d): \*\*\*$", transcript, re.M)
    assert headers[:5] == ["Player 1", "Player 2", "Player 3", "Player 4", "Player 1"]
    assert len(game.players) == 4


def read_until(stream: IO[bytes], done: Callable[[bytes], bool], limit: float = 30.0) -> bytes:
    """Read from ``stream`` until what was read satisfies ``done`` (or ``limit`` seconds pass)."""
    seen = b""
    deadline = time.monotonic() + limit
    while not done(seen) and time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 0.1)
        if ready:
            chunk = os.read(stream.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
    return seen


def wait_reading(pid: int, seconds: float = 10.0) -> None:
    """Wait until the process ``pid`` waits in a read (its prompt printed, its input awaited).

    A signal sent between the prompt's flush and the read, with the input
    closed right after, would meet the end of input first.  Where ``/proc``
    tells nothing, wait a moment instead.
    """
    syscall = Path(f"/proc/{pid}/syscall")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if syscall.read_text().split()[0] in ("0", "63"):  # read(2): x86-64, arm64
                return
        except (OSError, IndexError):
            time.sleep(0.5)
            return
        time.sleep(0.01)


def test_ctrl_c_at_a_prompt_ends_the_game_without_a_traceback(tmp_path: Path) -> None:
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(tmp_path), YAHTZEE_CACHE_DIR=str(tmp_path))
    # A process started with Ctrl-C ignored keeps it ignored (Python then raises no
    # KeyboardInterrupt), and something in a long test session can leave SIGINT and SIGQUIT
    # ignored in this process for a while: start the game as a terminal would.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen([sys.executable, "game_driver.py", "--seed", "2"], cwd=ROOT,
                                   env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"2\n")
    process.stdin.flush()
    prompt = DIE_PROMPT.encode()
    seen = read_until(process.stdout, lambda b: b" SAVE\n" in b and b.endswith(prompt))
    assert b" SAVE\n" in seen and seen.endswith(prompt)
    wait_reading(process.pid)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert b"Traceback" not in out + err and b"KeyboardInterrupt" not in err


@pytest.mark.parametrize("args", [["solve"], ["simulate", "--games", "5"],
                                  ["--players", "human,computer"], ["--coach"]])
def test_without_numpy_the_solver_features_say_how_to_install_it(
        args: list[str], tmp_path: Path) -> None:
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(tmp_path), YAHTZEE_CACHE_DIR=str(tmp_path))
    blocked = ("import sys; sys.modules['numpy'] = None; sys.argv[0] = 'game_driver.py'; "
               "from yahtzee.interfaces.cli import main; raise SystemExit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", blocked, *args], input="", text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().startswith("yahtzee: computer players, the coach and the solver "
                                          "need numpy")
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_resume_says_which_options_it_ignores(tmp_path: Path) -> None:
    first = run_driver("1\n", "--seed", "2", tmp_path=tmp_path)
    assert first.returncode == 0
    again = run_driver("", "--resume", "--seed", "4", "--rules", "official", tmp_path=tmp_path)
    assert again.returncode == 0
    assert ("yahtzee: --rules, --seed ignored: a resumed game keeps its own settings"
            in again.stderr)
    assert "1: value 1 SAVE" in again.stdout


@pytest.mark.parametrize("command", ["play", "solve", "simulate", "saves", "stats", "analyze"])
def test_every_command_help_has_a_description(command: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([command, "--help"])
    assert stopped.value.code == 0
    text = capsys.readouterr().out
    usage, description = text.split("\n\n")[:2]
    assert usage.startswith("usage: ") and not description.startswith(("options:",
                                                                       "positional arguments:"))


def test_serve_help_says_where_the_games_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    """The data folder, its variable and the database's, as docs/saves-and-history.md says."""
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--help"])
    assert stopped.value.code == 0
    description = " ".join(capsys.readouterr().out.split("\n\n")[1].split())
    assert description == (
        "Serve Yahtzee in the browser: open the address it prints. Games are saved like "
        "console games and go on after a restart of the server. They are kept in the data "
        "folder: $YAHTZEE_DATA_DIR when set, otherwise the per-user data folder "
        "(~/.local/share/yahtzee on Linux); with --database or $YAHTZEE_DATABASE, in that "
        "PostgreSQL database instead.")


@pytest.mark.parametrize("argv, usage", [
    (["analyze", "--bogus"], "usage: python -m yahtzee analyze "),
    (["serve", "--port", "8001", "extra"], "usage: python -m yahtzee serve "),
    (["play", "--bogus"], "usage: python -m yahtzee play "),
    (["--bogus"], "usage: python -m yahtzee [options]"),   # no command: the top level's
])
def test_an_unknown_option_is_refused_with_its_commands_usage(
        argv: list[str], usage: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert err.endswith(f"error: unrecognized arguments: {argv[-1]}\n")


def test_an_old_python_is_told_which_python_is_needed() -> None:
    code = ("import sys; sys.version_info = (3, 8, 10, 'final', 0); "
            "sys.path.insert(0, sys.argv[1]); import yahtzee")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "yahtzee needs Python 3.10 or newer; this is Python 3.8.10\n"


def test_times_are_shown_to_people_in_local_time_to_the_minute(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "XYZ+5")
    time.tzset()
    try:
        moment = datetime(2026, 11, 22, 21, 7, 41, tzinfo=timezone.utc)
        assert local_time(moment) == "2026-11-22 16:07"
        assert local_time("2026-11-22T21:07:41+00:00") == "2026-11-22 16:07"
        assert local_time("yesterday") == "yesterday"
        # a page may be read far from the machine that wrote it: it says the zone
        assert local_time(moment, zone=True) == "2026-11-22 16:07 XYZ"
        assert time_element("2026-11-22T21:07:41+00:00") == (
            '<time datetime="2026-11-22T21:07:41+00:00">2026-11-22 16:07 XYZ</time>')
        assert time_element("<yesterday>") == "&lt;yesterday&gt;"   # no time: no element
        monkeypatch.setenv("TZ", "<+0530>-5:30")   # a zone known by its offset alone
        time.tzset()
        assert local_time(moment, zone=True) == "2026-11-23 02:37 +0530"
    finally:
        monkeypatch.undo()
        time.tzset()


def played_by_faces(variant: Variant, lines: str, dice: list[int]) -> tuple[str, Game]:
    """Play one person's game of ``variant`` keeping dice by faces, typing ``lines`` and
    rolling ``dice``, to the end of the input; return the transcript and the game."""
    out = io.StringIO()
    game = Game([HumanPlayer("Player 1", variant.new_card())], variant=variant,
                console=Console(io.StringIO(lines), out), rng=ScriptedRandom(dice),
                notation=Notation.FACES)
    try:
        game.play_game()
    except EOFError:
        pass
    return out.getvalue(), game


@pytest.mark.parametrize("typed", ["K K", "kk", " K  k ", "K,K"])
def test_poker_dice_keeps_are_typed_by_the_faces_shown(typed: str) -> None:
    transcript, game = played_by_faces(get_variant("poker-dice", "poker-dice"),
                                       f"{typed}\nJ\nscore\n9\n", [2, 5, 5, 2, 3, 4, 6, 1])
    assert "not a valid die value" not in transcript
    assert "1: value Q\n2: value K SAVE\n3: value K SAVE\n4: value A\n5: value 9\n" in transcript
    assert "The dice do not show J; type faces the dice show\n" in transcript  # by its label
    assert [d.command for d in game.log][:3] == ["2", "3", "roll"]


@pytest.mark.parametrize("typed", ["1", "78", "9 1"])
def test_poker_dice_refuses_digits_that_are_no_face(typed: str) -> None:
    # "1" is no Poker Dice face; read as a value it would have kept the 9
    transcript, game = played_by_faces(get_variant("poker-dice", "poker-dice"),
                                       f"{typed}\nK\nscore\n9\n", [1, 5, 5, 2, 3, 4, 6, 1])
    assert f"{typed} is not a valid die value\n" in transcript
    # the prompt's example is made of Poker Dice's faces: its Yahtzee one would be refused
    assert "Type the faces to keep (e.g. J J A) to roll the others" in transcript
    assert FACES_PROMPT not in transcript
    assert [d.command for d in game.log][:2] == ["2", "roll"]   # then the K typed kept die 2


def test_a_face_no_die_has_is_refused_by_its_digit() -> None:
    transcript, game = played_by_faces(yahtzee_variant(COURSE), "9\n79\n6\nscore\n13\n",
                                       [6, 1, 6, 2, 3, 4, 5, 6])
    assert "The dice do not show 9; type faces the dice show\n" in transcript
    assert "The dice do not show 7 9; type faces the dice show\n" in transcript
    assert [d.command for d in game.log][:2] == ["1", "roll"]


@pytest.mark.parametrize("typed", ["66", "6 6", "6,6", " 6, 6 "])
def test_yahtzee_keeps_are_typed_with_blanks_or_commas_or_none(typed: str) -> None:
    transcript, game = played_by_faces(yahtzee_variant(COURSE), f"{typed}\nscore\n13\n",
                                       [6, 1, 6, 2, 3, 4, 5, 6])
    assert "not a valid die value" not in transcript
    assert [d.command for d in game.log][:3] == ["1", "3", "roll"]


@pytest.mark.parametrize("typed", ["keep 66", "keep 6 6", "KEEP 6,6", " Keep  66 "])
def test_a_keep_may_be_typed_after_the_word_keep_as_advise_takes_it(typed: str) -> None:
    transcript, game = played_by_faces(yahtzee_variant(COURSE), f"{typed}\nscore\n13\n",
                                       [6, 1, 6, 2, 3, 4, 5, 6])
    assert "not a valid die value" not in transcript
    assert [d.command for d in game.log] == ["1", "3", "roll", "score", "13"]


def test_the_word_keep_goes_only_before_faces_or_none() -> None:
    # dice 6 1 6 2 3: "keep roll", "keep score" and "keep" alone keep nothing; "keep none"
    # after a keep of 6 6 rolls all five (the coach's "keep none and roll")
    transcript, game = played_by_faces(yahtzee_variant(COURSE),
                                       "keep roll\nkeep score\nkeep\n66\nkeep none\n13\n",
                                       [6, 1, 6, 2, 3, 4, 5, 6, 1, 2])
    for refused in ("keep roll", "keep score", "keep"):
        assert f"{refused} is not a valid die value\n" in transcript
    assert [d.command for d in game.log] == ["1", "3", "roll", "1", "3", "roll", "13"]


def test_none_rolls_every_die_kept_by_faces_and_the_coach_says_faces_not_places() -> None:
    # "roll" rolls the dice not saved; after a keep, "none" is how every die rolls again
    transcript, game = played_by_faces(yahtzee_variant(COURSE), "66\nnone\nscore\n13\n",
                                       [6, 1, 6, 2, 3, 4, 5, 6, 1, 2])
    assert [d.command for d in game.log] == ["1", "3", "roll", "1", "3", "roll", "13"]
    assert "not a valid die value" not in transcript
    keep = KeepAdvice(Keep((6, 6), 5), (1, 3), False, False, 240.04)
    variant = yahtzee_variant(COURSE)
    assert keep_advice_by_faces(keep, variant) == "keep 6 6 and roll (expected 240.0)"
    every = KeepAdvice(Keep((), 5), (), False, True, 230.0)
    assert keep_advice_by_faces(every, variant) == "keep none and roll (expected 230.0)"


def test_a_keep_of_five_faces_is_refused_for_what_is_wrong_with_it() -> None:
    # dice 6 1 6 2 3: five faces with a 5 among them are faces not shown, however many;
    # the five shown are a keep that rolls nothing, said without the positions' "unsave"
    transcript, game = played_by_faces(yahtzee_variant(COURSE), "66125\n66123\nscore\n13\n",
                                       [6, 1, 6, 2, 3, 4, 5, 6])
    assert "The dice do not show 5; type faces the dice show\n" in transcript
    assert "A keep of all five dice rolls none: keep fewer, or type score\n" in transcript
    assert "unsave" not in transcript
    assert [d.command for d in game.log] == ["score", "13"]


def test_a_refused_keep_names_only_the_faces_the_dice_lack() -> None:
    # dice 6 1 6 2 3: the 6 6 1 2 typed with a 5 are shown; a third 6 is not
    transcript, game = played_by_faces(yahtzee_variant(COURSE), "6612 5\n666\n6665\n649\n"
                                       "score\n13\n", [6, 1, 6, 2, 3, 4, 5, 6])
    assert re.findall(r"The dice .*", transcript) == [
        "The dice do not show 5; type faces the dice show",
        "The dice show 6 only twice; type faces the dice show",
        "The dice do not show 5 and show 6 only twice; type faces the dice show",
        "The dice do not show 4 9; type faces the dice show"]
    assert [d.command for d in game.log] == ["score", "13"]


def test_a_poker_dice_keep_names_the_faces_missing_by_their_labels() -> None:
    # dice Q K K A 9 (values 4 5 5 6 1): of K K K A 10 the dice lack a K and the 10
    transcript, _ = played_by_faces(get_variant("poker-dice", "poker-dice"), "kkka10\n",
                                    [4, 5, 5, 6, 1])
    assert "The dice do not show 10 and show K only twice; type faces the dice show\n" in transcript


def test_keeps_typed_as_faces_keep_those_dice_and_roll_the_others() -> None:
    transcript, game = played_by_faces(yahtzee_variant(COURSE), "55\n6x\n66\nscore\n13\n",
                                       [6, 1, 6, 2, 3, 4, 5, 6])
    assert transcript.count(FACES_PROMPT) == 5  # the fifth: the next turn's, at end of input
    assert "The dice do not show 5 5; type faces the dice show\n" in transcript
    assert "6x is not a valid die value\n" in transcript
    assert ("1: value 6 SAVE\n2: value 4\n3: value 6 SAVE\n4: value 5\n5: value 6\n"
            in transcript)
    assert [d.command for d in game.log] == ["1", "3", "roll", "score", "13"]
