"""The default storage back end: save files and the SQLite history in the data folder.

Standard library only, so that two people play on a bare Python.  The
stores are ``saves.SaveStore`` and ``history.History``, as they always
were; this only makes them for the storage port (``port.Storage``).
"""

from __future__ import annotations

from pathlib import Path

from yahtzee.storage.history import HISTORY_FILE, History
from yahtzee.storage.paths import data_dir
from yahtzee.storage.problems import StorageProblems
from yahtzee.storage.saves import SaveStore


class FileStorage:
    """The saves and history in one data folder (default: ``YAHTZEE_DATA_DIR`` or the platform's).

    The folder is read when the storage is made; nothing is created until a
    game is saved or filed.
    """

    shared = False
    """One process plays the games of a data folder (each game's file lock says which)."""

    def __init__(self, folder: Path | None = None, *, problems: StorageProblems) -> None:
        """Keep the saves and history in ``folder``, reporting damaged files to ``problems``."""
        self.folder = folder if folder is not None else data_dir()
        self.problems = problems

    def saves(self) -> SaveStore:
        """Return a new store of the save files, holding file locks of its own."""
        return SaveStore(self.folder / "saves", problems=self.problems)

    def history(self) -> History:
        """Return the SQLite history of the data folder."""
        return History(self.folder / HISTORY_FILE, problems=self.problems)

    def close(self) -> None:
        """Nothing is held open between calls."""
