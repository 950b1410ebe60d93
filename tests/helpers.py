"""Helpers shared by the test modules: scripted players and games, the command line in process.

- ``Problems`` records what storage reports, instead of printing it;
- ``PolicyPlayer`` plays by a fixed rule, so that a seed gives a varied but
  reproducible game; ``script_for`` returns (and remembers) such a game's commands;
- ``play_through`` plays a new game of people fed scripted lines;
- ``resume_game`` seats a saved game at a console, as ``--resume`` does;
- ``run_cli`` runs the command line in this process with scripted input, and
  ``message_of`` reads back the error it ended with;
- ``collector_off`` and ``cycles_of_ours``: a block run as a server runs (the
  garbage collector's own passes off), and the project's garbage in cycles.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import random
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from yahtzee.app.session import Solvers, resume_engine
from yahtzee.domain.card import Variant
from yahtzee.domain.dice import Dice
from yahtzee.domain.die import Die
from yahtzee.domain.games import POKER_DICE, yahtzee_variant
from yahtzee.domain.rules import COURSE, OFFICIAL
from yahtzee.engine.engine import EngineObserver, TurnView
from yahtzee.engine.moves import Move
from yahtzee.interfaces.cli import main
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.console_game import Game
from yahtzee.players.players import HumanPlayer, Player
from yahtzee.storage.problems import Damage, StoredFile
from yahtzee.storage.saves import SaveFile, SaveStore
from yahtzee.storage.steps import apply_steps

FINAL_BANNER = "*" * 31 + "\n          FINAL SCORES\n"


class Problems:
    """Records what storage reports, instead of printing it."""

    def __init__(self) -> None:
        """Start with nothing reported."""
        self.damaged: list[tuple[StoredFile, Path, Damage, Path | None]] = []
        self.unsaved: list[Exception] = []
        self.bad_games: list[tuple[Path, int, str]] = []
        self.twice: list[tuple[int, int | None]] = []

    def damaged_file(self, what: StoredFile, path: Path, damage: Damage,
                     moved_to: Path | None) -> None:
        """Record a damaged file."""
        self.damaged.append((what, path, damage, moved_to))

    def cannot_save(self, error: Exception) -> None:
        """Record a failure to save."""
        self.unsaved.append(error)

    def damaged_game(self, path: Path, game_id: int, reason: str) -> None:
        """Record a game of the history that was left out."""
        self.bad_games.append((path, game_id, reason))

    def filed_twice(self, first_id: int, new_id: int | None) -> None:
        """Record a game found already filed."""
        self.twice.append((first_id, new_id))


class PolicyPlayer(HumanPlayer):
    """Plays by a fixed rule, so that a seed gives a varied but reproducible game.

    It keeps the most common face, sometimes scores early (and always once all
    five dice are alike), and takes the box worth most.
    """

    def move(self, view: TurnView, choosing: bool) -> Move:
        """Return the box worth most when ``choosing`` (the first of equals); otherwise the
        next toggle toward the wanted dice, ``score`` early now and then, or ``roll``."""
        if choosing:
            items = view.card.menu(_dice_of(view.dice))
            return Move.box(max(items, key=lambda item: item.points).number)
        if view.rolls_left == 1 and view.round % 4 == 1:
            return Move.score()
        counts = Counter(view.dice)
        face = max(counts, key=lambda f: (counts[f], f))
        for index, (value, saved) in enumerate(zip(view.dice, view.saved)):
            if (value == face) != saved:
                return Move.toggle(index + 1)
        return Move.score() if all(view.saved) else Move.roll()


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
    return [decision.command for decision in game.log]


def feed(lines: Sequence[str]) -> io.StringIO:
    """Return an input stream holding ``lines``."""
    return io.StringIO("".join(line + "\n" for line in lines))


@dataclass
class Run:
    """A game played from scripted input: its transcript and the game."""

    out: str
    game: Game


def play_through(seed: int, variant: Variant, lines: Sequence[str], players: int = 2,
                 observers: Sequence[EngineObserver] = ()) -> Run:
    """Play a new game fed ``lines``; stop quietly at the end of input."""
    out = io.StringIO()
    game = Game(humans(variant, players), variant=variant,
                console=Console(feed(lines), out), seed=seed, observers=observers)
    try:
        game.play_game()
    except EOFError:
        pass
    return Run(out.getvalue(), game)


def resume_game(save: SaveFile, console: Console,
                observers: Sequence[EngineObserver] = ()) -> Game:
    """Return the saved game seated at ``console``, as ``--resume`` does (its dice' state restored).

    ``play_game()`` on the result goes on from the current turn, without the banner.
    """
    engine, players = resume_engine(save, Solvers(), observers=observers)
    return Game(players, console=console, engine=engine)


def final_screen(transcript: str) -> str:
    """Return the transcript from the final scores' banner on."""
    index = transcript.index(FINAL_BANNER)
    return transcript[index:]


def card_state(game: Game) -> list[tuple[str, list[tuple[str, int]]]]:
    """Return every player's name and printed card rows."""
    return [(p.name, p.card.rows()) for p in game.players]


def run_cli(argv: Sequence[str], text: str, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the command line in this process with ``text`` as input; return status, out, err.

    Each run stands for a new process: it counts save IDs from the folder afresh.
    """
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    monkeypatch.setattr(SaveStore, "_next_ids", {})
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def message_of(err: str) -> str:
    """Return the error message that ends ``err`` as one line: its first line (the last that
    starts with no blank, after any usage) with the lines that go on from it joined back (a
    message longer than 80 columns goes on to indented lines)."""
    lines = err.splitlines()
    start = max(index for index, line in enumerate(lines) if not line.startswith(" "))
    return " ".join(line.strip() for line in lines[start:])


def listed_ids(listing: str) -> list[str]:
    """Return the IDs of the games of a ``saves`` listing, in its order (not the lines of
    details under each game, which start with a word)."""
    return [line.split()[0] for line in listing.splitlines()[1:]
            if line.split()[0].isdigit()]


SCRIPTS: dict[tuple[int, str], list[str]] = {}


def script_for(seed: int, rules: str) -> list[str]:
    """Return (and remember) the policy script of a seeded game."""
    key = (seed, rules)
    if key not in SCRIPTS:
        SCRIPTS[key] = make_script(seed, variant_of(rules))
        Die.r = random.Random()
    return SCRIPTS[key]


def save_data(path: Path) -> dict[str, Any]:
    """Return what the save file at ``path`` holds as one JSON object, its appended steps applied.

    Written back with ``json.dumps`` it is a save file of one line, as a
    save is when written whole.
    """
    first, _, tail = path.read_text(encoding="utf-8").partition("\n")
    return apply_steps(json.loads(first), tail)


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """Run the block with the garbage collector's own passes off, as a server runs
    (``server.collect_rarely``); its state before is restored afterwards."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


PACKAGE = os.sep + "yahtzee" + os.sep


def cycles_of_ours() -> list[str]:
    """Collect, and return the names of the project's objects that were garbage in cycles.

    An object is the project's if its class is (``yahtzee.``), or if it is
    a function, frame or coroutine of the project's code (an exception's
    traceback keeps its frames: the likeliest cycle).  The garbage is let
    go of afterwards; the collector's debugging flags are restored.
    """
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        names = [_name_if_ours(thing) for thing in gc.garbage]
    finally:
        gc.garbage.clear()
        gc.set_debug(flags)
        gc.collect()  # the garbage kept for the look, freed
    return [name for name in names if name is not None]


def _name_if_ours(thing: object) -> str | None:
    """Return a name for ``thing`` if the project made it (``cycles_of_ours``), else None."""
    kind = type(thing)
    if kind.__module__.startswith("yahtzee"):
        return kind.__qualname__
    code = getattr(thing, "f_code", None) or getattr(thing, "__code__", None) or getattr(
        thing, "cr_code", None)
    filename = getattr(code, "co_filename", "")
    if isinstance(filename, str) and PACKAGE in filename:
        return f"{kind.__name__} {getattr(code, 'co_qualname', '?')}"
    return None
