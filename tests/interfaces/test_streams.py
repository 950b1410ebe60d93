"""Standard streams at their worst: closed, fed bytes that are not UTF-8, names with escapes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import message_of
from yahtzee.interfaces.streams import printable

ROOT = Path(__file__).resolve().parents[2]
DRIVER = str(ROOT / "game_driver.py")


def run(shell: str, data: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ``shell`` (``$DRIVER`` names the game driver) in bash, with a strict UTF-8 locale."""
    env = {**os.environ, "YAHTZEE_DATA_DIR": str(data), "PYTHONIOENCODING": "utf-8",
           "DRIVER": f"{sys.executable} {DRIVER}"}
    return subprocess.run(["bash", "-c", shell], input=stdin, capture_output=True, env=env,
                          cwd=ROOT, timeout=120)


def test_printable_escapes_what_a_terminal_would_act_on() -> None:
    assert printable("roll") == "roll"
    assert printable("Zoë 2") == "Zoë 2"
    assert printable("a\x1b[2Jb\n") == "a\\x1b[2Jb\\n"
    assert printable("\udcff\udcfe") == "\\xff\\xfe"


def test_bytes_that_are_not_utf8_are_refused_like_any_bad_input(tmp_path: Path) -> None:
    done = run("$DRIVER --seed 3", tmp_path, b"1\n\xff\xfe\x1b[2J\n2\n")
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert "\\xff\\xfe\\x1b[2J is not a valid die value\n" in out
    # The line before the bad bytes and the one after were both carried out.
    last_dice = out.split("Dice:\n")[-1].splitlines()[:5]
    assert [line.endswith(" SAVE") for line in last_dice] == [True, True, False, False, False]


@pytest.mark.parametrize("shell", ["$DRIVER <&-", "$DRIVER 2>&- </dev/null"])
def test_a_closed_input_or_error_stream_ends_the_game_like_end_of_input(
        shell: str, tmp_path: Path) -> None:
    done = run(shell, tmp_path)
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr
    assert done.stdout.decode().rstrip().splitlines()[-1].startswith("Game ")


def test_a_closed_output_stream_is_one_clear_line(tmp_path: Path) -> None:
    done = run("$DRIVER >&- </dev/null", tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "yahtzee: standard output is closed: there is nowhere to show anything\n")


@pytest.mark.parametrize("names, problem", [
    ("A\x1b[2Jb,Bob", "'A\\x1b[2Jb' holds a control character; names must be plain text"),
    ("Ann\nBob,Cy", "'Ann\\nBob' holds a control character; names must be plain text"),
    ("A" * 25 + ",Bob", f"'{'A' * 25}' is longer than 24 characters"),
])
def test_names_with_control_characters_or_too_long_are_refused(
        names: str, problem: str, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, DRIVER, "--names", names], input=b"",
                          capture_output=True, cwd=ROOT, timeout=60,
                          env={**os.environ, "YAHTZEE_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2
    assert message_of(done.stderr.decode()).endswith(f"argument --names: {problem}")
    assert done.stdout == b""


def test_a_very_long_refused_line_is_shown_cut_short(tmp_path: Path) -> None:
    done = run("$DRIVER --seed 3", tmp_path, b"x" * 5000 + b"\n")
    assert f"{'x' * 40}... (5000 characters) is not a valid die value\n" in done.stdout.decode()
