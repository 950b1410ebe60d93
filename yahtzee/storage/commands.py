"""What the command line does with storage: ``--resume``, ``saves``, ``stats`` and autosaving."""

from __future__ import annotations

import json

from yahtzee.console import Console
from yahtzee.storage.history import History
from yahtzee.storage.problems import DamagedFileError, SaveNotFoundError, StorageError
from yahtzee.storage.saves import Autosaver, SaveFile, SaveStore
from yahtzee.storage.stats import load_stats

PROGRAM = "python -m yahtzee"
"""How the resume hint names the program (it works however the game was started)."""
LATEST = "latest"
"""What ``--resume`` given without an ID stands for: the most recently played unfinished game."""


def autosaver(console: Console, resumed: SaveFile | None = None) -> Autosaver:
    """Return an observer that saves a game in the data folder and files it when finished."""
    return Autosaver(SaveStore(problems=console), History(problems=console), resumed=resumed)


def resume_hint(saver: Autosaver) -> str | None:
    """Return the command that resumes the game ``saver`` saves (None if it is not saved).

    The ID is left out while this game is the most recently saved one, which
    plain ``--resume`` picks, so that a transcript reads the same on every run.
    """
    save_id = saver.resume_id()
    if save_id is None:
        return None
    if saver.store.newest_id() == save_id:
        return f"{PROGRAM} --resume"
    return f"{PROGRAM} --resume {save_id}"


def find_save(requested: str, console: Console) -> SaveFile | None:
    """Return the unfinished game to resume: ``LATEST`` or the one with that ID.

    None (after saying why on standard error) when there is no such game.
    """
    store = SaveStore(problems=console)
    if requested == LATEST:
        save = store.latest()
        if save is None:
            console.no_unfinished_game()
        return save
    text = requested.strip()
    if not text.isdigit() or not text.isascii() or len(text) > 9:
        console.unknown_save(requested)
        return None
    try:
        save = store.load(int(text))
    except SaveNotFoundError:
        console.unknown_save(requested)
        return None
    except DamagedFileError:
        return None
    if save.finished:
        console.unknown_save(requested)
        return None
    return save


def run_saves(console: Console) -> int:
    """List the unfinished games; return the exit status."""
    console.saves_listing(SaveStore(problems=console).unfinished())
    return 0


def run_stats(console: Console, as_json: bool) -> int:
    """Print the statistics of the finished games (as JSON if asked); return the exit status."""
    try:
        stats = load_stats(History(problems=console))
    except StorageError as error:
        console.history_unavailable(error)
        return 1
    if as_json:
        console.say(json.dumps(stats.to_json(), indent=2))
    else:
        console.stats_listing(stats)
    return 0
