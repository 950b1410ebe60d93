"""Golden transcripts: the program's whole behaviour, recorded once and compared byte for byte.

Each scenario runs the program only through its stable entry points, as a
user would: subprocesses of ``python game_driver.py ...`` and
``python -m yahtzee ...`` started in the repository's root, with standard
input fed from a string and both output streams captured.  Nothing of the
``yahtzee`` package is imported here, so modules may move freely; the solver
tables come from the session fixtures of ``tests/solver_fixtures.py``
(``official``, ``course`` and their moments and shapes) and are shared through
``YAHTZEE_CACHE_DIR``.

A scenario is a few steps run in order in one fresh data folder
(``YAHTZEE_DATA_DIR``), so that a later step sees what an earlier one left: a
saved game to list and resume, finished games for ``stats`` and ``analyze``.
Every step records, under ``tests/golden/<scenario>/``:

- ``NN-step.stdout.txt`` and ``NN-step.stderr.txt``: the output streams;
- ``NN-step.exit.txt``: the command line and the exit status;
- ``NN-step.data.txt`` (steps that ask for it): the data folder afterwards:
  its file names, every save file's JSON, and every row of every table of the
  SQLite history, ordered by primary key.

Only what varies from run to run is replaced, by fixed placeholders: timing
figures (``<SECONDS>``), the saves' ``created``/``updated``/``saved`` times and the
history's ``finished_at``, also shown by ``analyze`` (``<TIME>``), the local time of the ``saves``
listing (``YYYY-MM-DD HH:MM``), game uids (``<UID1>``, ``<UID2>``... in order of
first appearance within a scenario, so that equal uids stay equal), and the
temporary folders (``<DATA>``, ``<CACHE>``).  The history's floats (the
win chances), whose last bits vary between processors, are rounded to 6
decimals.  The dice are seeded.

To record the transcripts again (after a deliberate change of behaviour)::

    YAHTZEE_RECORD_GOLDEN=1 python -m pytest tests/test_golden.py
    python tests/test_golden.py --record        # the same

Recording writes every file, removes the files no scenario produces any more,
and passes; review the change with ``git diff tests/golden``.

The transcripts hold what this machine's Python and numpy print: argparse's
usage and error texts change between Python versions, and ``analyze --json``
shows expected scores to full float precision.  Record on the Python the
project is tested with (3.11 when these were recorded).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
RECORD_VARIABLE = "YAHTZEE_RECORD_GOLDEN"
TIMEOUT = 300
"""Seconds any one subprocess may take."""

FLOAT_DIGITS = 6
"""Decimals of the floats of a history dump (as ``analyze --json`` rounds them)."""

DRIVER = ("game_driver.py",)
MODULE = ("-m", "yahtzee")


def recording() -> bool:
    """Return whether this run writes the golden files instead of comparing with them."""
    return os.environ.get(RECORD_VARIABLE, "") not in ("", "0")


# -- the scenarios -------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One run of the program: its arguments after ``python``, its input, what to record."""

    name: str
    argv: tuple[str, ...]
    stdin: str = ""
    dump_data: bool = False
    """Whether to record the data folder's saves and history after the run."""


@dataclass(frozen=True)
class Scenario:
    """Steps run in order in one fresh data folder."""

    name: str
    steps: tuple[Step, ...]


def lines(*commands: str) -> str:
    """Return ``commands`` as typed input, one line each."""
    return "".join(f"{command}\n" for command in commands)


def humans_script() -> str:
    """Return the input of a whole two-person course game, with bad input of every kind.

    Player 1 scores box N in round N, Player 2 box 14 - N, so that the box
    named is always open; before it come refused numbers (off the menu, not a
    number, a box already used, empty, a leading zero).  The die commands mix toggles, rolls,
    blanks and capitals, and invalid values; two rolls end at the menu unasked.
    """
    die_patterns = [
        ["adfd", "7", "0", "", " ROLL ", "1", "3", "Score"],
        ["2", "roll", "2", "roll"],
        ["score"],
        ["1", "1", "5", "roll", "4", " score "],
        ["roll", "SCORE"],
        ["3", "4", "5", "ROLL", "3", "roll"],
        ["6", "-1", "1.5", "r", "roll", "score"],
    ]
    typed: list[str] = []
    for round_number in range(1, 14):
        for seat in (0, 1):
            box = round_number if seat == 0 else 14 - round_number
            used = box - 1 if seat == 0 else box + 1
            typed += die_patterns[(2 * round_number - 2 + seat) % len(die_patterns)]
            if round_number == 1 and seat == 0:
                typed += ["99", "abc", "", "01", "1"]
            elif round_number == 1:
                typed += ["0", "14", "13"]
            elif round_number % 3 == 0:
                typed += [str(used), "99", "abc", f" {box} "]
            elif round_number % 3 == 1:
                typed += [str(used), str(box)]
            else:
                typed += [str(box)]
    return lines(*typed)


def simple_script(rounds: int, *die_commands: str) -> str:
    """Return input that gives ``die_commands`` then ``score`` and box N in each round N."""
    typed: list[str] = []
    for round_number in range(1, rounds + 1):
        typed += [*die_commands, "score", str(round_number)]
    return lines(*typed)


CUT_SCRIPT = lines("2", "roll", "score", "1",   # round 1 in full
                   "1", "roll")                # round 2: input ends before the second roll
RESUME_SCRIPT = lines("4", "roll", "2") + "".join(
    lines("score", str(n)) for n in range(3, 14))

SCENARIOS = (
    Scenario("history", (
        Step("humans-course", (*DRIVER, "--seed", "7"), humans_script(), dump_data=True),
        Step("human-computer-course",
             (*MODULE, "play", "--players", "human,computer", "--rules", "course",
              "--seed", "21", "--delay", "0"),
             simple_script(13), dump_data=True),
        Step("poker-dice", (*DRIVER, "--game", "poker-dice", "--players", "human,computer",
                            "--seed", "4"),
             simple_script(9, "roll"), dump_data=True),
        Step("coach-official", (*DRIVER, "--coach", "--rules", "official",
                                "--players", "human,computer", "--seed", "11"),
             simple_script(13, "1", "roll"), dump_data=True),
        Step("computers-official", (*MODULE, "--players", "computer,computer,greedy",
                                    "--rules", "official", "--seed", "5"),
             dump_data=True),
        Step("stats", (*MODULE, "stats")),
        Step("stats-json", (*MODULE, "stats", "--json")),
        Step("analyze", (*MODULE, "analyze")),
        Step("analyze-json", (*MODULE, "analyze", "--json")),
        Step("analyze-1", (*MODULE, "analyze", "1")),
        Step("analyze-3-poker-dice", (*MODULE, "analyze", "3")),
        Step("analyze-99", (*MODULE, "analyze", "99")),
        Step("saves-none", (*MODULE, "saves")),
    )),
    Scenario("resume", (
        Step("cut-in-round-2", (*MODULE, "play", "--players", "human,computer",
                                "--names", "Ann,Computer", "--seed", "13"),
             CUT_SCRIPT, dump_data=True),
        Step("saves", (*MODULE, "saves")),
        Step("resume-unknown-id", (*DRIVER, "--resume", "7"), RESUME_SCRIPT),
        Step("resume", (*DRIVER, "--resume"), RESUME_SCRIPT, dump_data=True),
        Step("saves-after", (*MODULE, "saves")),
    )),
    Scenario("saves", (
        Step("stopped-before-any-move", (*MODULE, "--seed", "7"), dump_data=True),
        Step("cut-course", (*MODULE, "--seed", "7"), lines("1", "roll")),
        Step("cut-poker-dice", (*DRIVER, "--game", "poker-dice", "--players", "human",
                                "--names", "Ann", "--seed", "3"), lines("roll")),
        Step("saves-json", (*MODULE, "saves", "--json")),
        Step("delete-unknown", (*MODULE, "saves", "--delete", "1", "9")),
        Step("delete-1", (*MODULE, "saves", "--delete", "1")),
        Step("resume-poker-dice", (*DRIVER, "--resume"), dump_data=True),
        Step("delete-all", (*MODULE, "saves", "--delete", "all"), dump_data=True),
        Step("saves-none", (*MODULE, "saves")),
    )),
    Scenario("solve-official", (Step("solve", (*MODULE, "solve", "--rules", "official")),)),
    Scenario("solve-course-json", (
        Step("solve", (*MODULE, "solve", "--rules", "course", "--json")),)),
    Scenario("simulate-official", (
        Step("simulate", (*MODULE, "simulate", "--rules", "official", "--games", "200",
                          "--seed", "3")),
        Step("simulate-json", (*MODULE, "simulate", "--rules", "official", "--games", "200",
                               "--seed", "3", "--json")),
    )),
    Scenario("simulate-greedy-course-json", (
        Step("simulate", (*MODULE, "simulate", "--strategy", "greedy", "--games", "100",
                          "--seed", "5", "--rules", "course", "--json")),)),
    Scenario("errors", (
        Step("resume-5-no-saves", (*DRIVER, "--resume", "5"), lines("score", "1")),
        Step("play-players-foo", (*MODULE, "play", "--players", "foo")),
        Step("simulate-games-0", (*MODULE, "simulate", "--games", "0")),
        Step("solve-rules-nope", (*MODULE, "solve", "--rules", "nope")),
        Step("unknown-command", (*MODULE, "frobnicate")),
        Step("stats-empty", (*MODULE, "stats")),
        Step("analyze-empty", (*MODULE, "analyze")),
    )),
    Scenario("help", (
        Step("game-driver-help", (*DRIVER, "--help")),
        Step("module-help", (*MODULE, "--help")),
        Step("play-help", (*MODULE, "play", "--help")),
    )),
)
"""Every scenario; the ``errors`` and ``help`` steps each get a fresh data folder too."""

FRESH_FOLDER_PER_STEP = frozenset({"errors", "help"})


# -- running and normalising ---------------------------------------------------

_SECONDS_JSON = re.compile(r'("seconds"\s*:\s*)-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?')
_SECONDS_TEXT = re.compile(r"(?<=\bin )[0-9]+(?:\.[0-9]+)?(?= s\b)")
_ISO_TIME = (r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
             r"(?:Z|[+-][0-9]{2}:[0-9]{2})?")
_SAVE_TIME = re.compile(rf'("(?:created|updated|saved)"\s*:\s*)"{_ISO_TIME}"')
_FINISHED_TIME = re.compile(rf"(?<=\bfinished ){_ISO_TIME}")
_UID = re.compile(r'("uid"\s*:\s*)"([0-9a-f]{32})"')
_LOCAL_MINUTE = re.compile(r"\b[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}\b")


class Normaliser:
    """Replaces what varies between runs; numbers uids in order of first appearance."""

    def __init__(self, data: Path, cache: Path) -> None:
        """Replace the paths ``data`` and ``cache`` by ``<DATA>`` and ``<CACHE>``."""
        self.paths = sorted([(str(data), "<DATA>"), (str(cache), "<CACHE>")],
                            key=lambda pair: -len(pair[0]))
        self.uids: dict[str, str] = {}

    def uid(self, value: str) -> str:
        """Return the placeholder of the uid ``value`` (the same for the same uid)."""
        return self.uids.setdefault(value, f"<UID{len(self.uids) + 1}>")

    def text(self, text: str) -> str:
        """Return ``text`` with timings, times, uids and temporary paths replaced."""
        for path, placeholder in self.paths:
            text = text.replace(path, placeholder)
        text = _SECONDS_JSON.sub(r"\g<1><SECONDS>", text)
        text = _SECONDS_TEXT.sub("<SECONDS>", text)
        text = _SAVE_TIME.sub(r'\g<1>"<TIME>"', text)
        text = _FINISHED_TIME.sub("<TIME>", text)
        text = _UID.sub(lambda m: f'{m.group(1)}"{self.uid(m.group(2))}"', text)
        return _LOCAL_MINUTE.sub("YYYY-MM-DD HH:MM", text)

    def cell(self, column: str, value: object) -> object:
        """Return a history cell with its uid or finish time replaced, a float to 6 decimals.

        The history's floats (the win chances) are sums whose last bits
        depend on the processor, as ``analyze --json`` explains.
        """
        if column == "uid" and isinstance(value, str):
            return self.uid(value)
        if column == "finished_at" and value is not None:
            return "<TIME>"
        if isinstance(value, float):
            return round(value, FLOAT_DIGITS)
        return value


def environment(data: Path, cache: Path) -> dict[str, str]:
    """Return the subprocess environment: no terminal, 80 columns, UTF-8, our folders."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8", "COLUMNS": "80",
           "HOME": str(data.parent), "TZ": "UTC", "PYTHONPATH": str(ROOT),
           "PYTHONDONTWRITEBYTECODE": "1",
           "YAHTZEE_DATA_DIR": str(data), "YAHTZEE_CACHE_DIR": str(cache)}
    if sys.platform == "win32":  # pragma: no cover - the project is tested on Linux
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
    return env


def command_line(argv: Sequence[str]) -> str:
    """Return how a user would type the step's command."""
    return " ".join(["python", *(arg if arg and " " not in arg else repr(arg) for arg in argv)])


def dump_history(path: Path, normaliser: Normaliser) -> list[str]:
    """Return the history's schema and every row of every table, ordered by primary key."""
    if not path.exists():
        return ["(no history)"]
    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        out = [f"PRAGMA user_version = {connection.execute('PRAGMA user_version').fetchone()[0]}"]
        tables = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
        out += [f"{sql.strip()};" for _, sql in tables]
        for (table, _sql) in tables:
            info = connection.execute(f'PRAGMA table_info("{table}")').fetchall()
            columns = [row[1] for row in info]
            keys = [row[1] for row in sorted(info, key=lambda row: row[5]) if row[5] > 0]
            order = ", ".join(f'"{key}"' for key in keys) or "rowid"
            out.append(f"== {table} ({', '.join(columns)}) ==")
            for row in connection.execute(f'SELECT * FROM "{table}" ORDER BY {order}'):
                cells = [normaliser.cell(column, value) for column, value in zip(columns, row)]
                out.append(json.dumps(cells, ensure_ascii=False))
    finally:
        connection.close()
    return out


def dump_data(data: Path, normaliser: Normaliser) -> str:
    """Return the data folder's file names, its save files and its history, normalised."""
    out = ["# files"]
    files = sorted(p for p in data.rglob("*") if p.is_file()) if data.exists() else []
    out += [p.relative_to(data).as_posix() for p in files] or ["(none)"]
    for path in files:
        if path.parent == data / "saves" and path.suffix == ".json":
            out.append(f"# {path.relative_to(data).as_posix()}")
            out.append(normaliser.text(path.read_bytes().decode("utf-8")))
    out.append("# history.sqlite3")
    out += dump_history(data / "history.sqlite3", normaliser)
    return "\n".join(out) + "\n"


def run_step(step: Step, data: Path, cache: Path, normaliser: Normaliser) -> dict[str, str]:
    """Run one step; return its recorded files' contents by file suffix."""
    data.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, *step.argv], cwd=ROOT, env=environment(data, cache),
                          input=step.stdin.encode("utf-8"), capture_output=True,
                          timeout=TIMEOUT, check=False)
    files = {
        "stdout.txt": normaliser.text(done.stdout.decode("utf-8")),
        "stderr.txt": normaliser.text(done.stderr.decode("utf-8")),
        "exit.txt": f"$ {command_line(step.argv)}\nexit status {done.returncode}\n",
    }
    if step.dump_data:
        files["data.txt"] = dump_data(data, normaliser)
    return files


def run_scenario(scenario: Scenario, cache: Path) -> dict[str, str]:
    """Run every step of ``scenario``; return the recorded files' contents by file name."""
    recorded: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="yahtzee-golden-") as base:
        data = Path(base) / "data"
        normaliser = Normaliser(data, cache)
        for number, step in enumerate(scenario.steps, start=1):
            if scenario.name in FRESH_FOLDER_PER_STEP:
                shutil.rmtree(data, ignore_errors=True)
            for suffix, text in run_step(step, data, cache, normaliser).items():
                recorded[f"{number:02d}-{step.name}.{suffix}"] = text
    return recorded


# -- comparing -----------------------------------------------------------------


def differences(expected: str, actual: str, name: str, limit: int = 40) -> str:
    """Return the first lines of a unified diff between the recorded and the new file."""
    diff = list(difflib.unified_diff(expected.splitlines(keepends=True),
                                     actual.splitlines(keepends=True),
                                     f"golden/{name}", f"now/{name}"))
    shown = "".join(diff[:limit])
    return shown + (f"... ({len(diff) - limit} more diff lines)\n" if len(diff) > limit else "")


def write_scenario(folder: Path, recorded: dict[str, str]) -> None:
    """Write the scenario's files, and remove the ones it no longer produces."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.iterdir():
        if stale.name not in recorded:
            stale.unlink()
    for name, text in recorded.items():
        (folder / name).write_bytes(text.encode("utf-8"))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_golden(scenario: Scenario, official: object, course: object,
                official_moments: object, course_moments: object,
                solver_cache: Path, tmp_path: Path) -> None:
    """Replay ``scenario`` and compare every recorded file byte for byte.

    The scenario's cache folder holds the session's tables of both rule
    sets, the optimal-play, the spread-and-chances and the shape ones, and nothing
    else, so that a transcript never shows a table being built, whatever
    other tests left in the session's cache.
    """
    cache = tmp_path / "cache"
    cache.mkdir()
    for table in [*solver_cache.glob("solver-*.table"), *solver_cache.glob("solver-*.moments"),
                  *solver_cache.glob("solver-*.shape")]:
        os.link(table, cache / table.name)
    recorded = run_scenario(scenario, cache)
    folder = GOLDEN / scenario.name
    if recording():
        write_scenario(folder, recorded)
        return
    assert folder.is_dir(), f"no golden files for {scenario.name}: record them ({__doc__})"
    problems = []
    on_disk = {p.name for p in folder.iterdir()}
    for name in sorted(on_disk - recorded.keys()):
        problems.append(f"golden/{scenario.name}/{name} is no longer produced\n")
    for name, text in recorded.items():
        if name not in on_disk:
            problems.append(f"golden/{scenario.name}/{name} is missing\n")
            continue
        expected = (folder / name).read_bytes()
        if expected != text.encode("utf-8"):
            problems.append(differences(expected.decode("utf-8", "replace"), text,
                                        f"{scenario.name}/{name}"))
    if problems:
        pytest.fail("".join(problems), pytrace=False)


def test_every_golden_folder_belongs_to_a_scenario() -> None:
    """No folder of recorded files is left over from a scenario that is gone."""
    names = {s.name for s in SCENARIOS}
    stray = sorted(p.name for p in GOLDEN.iterdir() if p.name not in names) \
        if GOLDEN.is_dir() else []
    if recording():
        for name in stray:
            shutil.rmtree(GOLDEN / name)
        return
    assert not stray, f"golden folders of no scenario: {', '.join(stray)}"


def main(argv: Sequence[str]) -> int:
    """Run this module's tests with pytest; ``--record`` writes the golden files instead."""
    args = list(argv)
    if "--record" in args:
        args.remove("--record")
        os.environ[RECORD_VARIABLE] = "1"
    return int(pytest.main([str(Path(__file__).resolve()), "-q", *args]))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
