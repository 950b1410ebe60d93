"""The kinds of damage a stored file can have, the errors raised for them, and moving files aside.

A damaged file is never overwritten or deleted: it is renamed to
``<name>.corrupt-<UTC time>`` beside the original (one that merely cannot
be read, for its permissions, is left where it is), and reported through a
``StorageProblems`` object (the console, in the program), whose wording
lives with every other player-facing text.
"""

from __future__ import annotations

import enum
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol


class Damage(enum.Enum):
    """Why a stored file cannot be used."""

    TRUNCATED = "truncated"
    CORRUPT = "corrupt"
    NEWER = "newer"
    UNREADABLE = "unreadable"
    NOT_A_FILE = "not a file"


class StoredFile(enum.Enum):
    """Which kind of stored file a report is about."""

    SAVE = "save"
    HISTORY = "history"
    SAVES_FOLDER = "saves folder"
    WEB_GAME = "web game"
    """A browser game's file of settings and seat secrets."""


class StorageProblems(Protocol):
    """Told of damaged files and of saving that fails, to tell the player."""

    def damaged_file(self, what: StoredFile, path: Path, damage: Damage,
                     moved_to: Path | None) -> None:
        """Report that ``path`` is damaged and was moved to ``moved_to`` (None: could not be)."""
        ...

    def cannot_save(self, error: Exception) -> None:
        """Report that the game cannot be saved (the folder is full or read-only, say)."""
        ...

    def damaged_game(self, path: Path, game_id: int, reason: str) -> None:
        """Report that the history ``path`` holds an impossible game, which is left out."""
        ...

    def filed_twice(self, first_id: int, new_id: int | None) -> None:
        """Report that a game was already in the history as ``first_id``.

        ``new_id`` None: the same game, not filed again; otherwise the copy
        differed and was filed as ``new_id``.
        """
        ...


class StorageError(Exception):
    """A stored file could not be used."""


class BadDatabaseError(StorageError):
    """The database named cannot be used (not a URL of one, unreachable, of a newer schema).

    Its message is one line naming the database, never its password.
    """


class DamagedFileError(StorageError):
    """A stored file is damaged; it has been reported and moved aside if possible."""

    def __init__(self, what: StoredFile, path: Path, damage: Damage,
                 moved_to: Path | None) -> None:
        """Describe the damaged file ``path`` and where it went."""
        super().__init__(f"{what.value} {path} is {damage.value}")
        self.what = what
        self.path = path
        self.damage = damage
        self.moved_to = moved_to


class SaveNotFoundError(StorageError, LookupError):
    """No unfinished game has the requested ID."""


class SaveInUseError(StorageError):
    """The save is open in another process (its lock is held there)."""

    def __init__(self, save_id: int) -> None:
        """Name the save ``save_id``, open elsewhere."""
        super().__init__(f"save {save_id} is open in another process")
        self.save_id = save_id


def aside_name(path: Path, when: datetime | None = None) -> Path:
    """Return a name beside ``path`` for keeping it aside, one that does not exist yet."""
    moment = when if when is not None else datetime.now(timezone.utc)
    stamp = moment.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    candidate = path.with_name(f"{path.name}.corrupt-{stamp}")
    number = 1
    while os.path.lexists(candidate):
        number += 1
        candidate = path.with_name(f"{path.name}.corrupt-{stamp}-{number}")
    return candidate


def move_aside(path: Path) -> Path | None:
    """Rename ``path`` to a fresh ``.corrupt-<time>`` name; return it, or None if that failed."""
    target = aside_name(path)
    try:
        os.rename(path, target)
    except OSError:
        return None
    return target


def set_aside(what: StoredFile, path: Path, damage: Damage,
              problems: StorageProblems) -> DamagedFileError:
    """Move the damaged ``path`` aside, report it, and return the error describing it."""
    moved_to = move_aside(path)
    problems.damaged_file(what, path, damage, moved_to)
    return DamagedFileError(what, path, damage, moved_to)


def left_in_place(what: StoredFile, path: Path, problems: StorageProblems) -> DamagedFileError:
    """Report that ``path`` cannot be read, and return the error; the file stays where it is.

    Permissions are not damage: only content proven bad is moved aside.
    """
    problems.damaged_file(what, path, Damage.UNREADABLE, None)
    return DamagedFileError(what, path, Damage.UNREADABLE, None)


class SilentProblems:
    """A ``StorageProblems`` that reports nothing: for callers that only read, or measure."""

    def damaged_file(self, what: StoredFile, path: Path, damage: Damage,
                     moved_to: Path | None) -> None:
        """Ignore the report."""

    def cannot_save(self, error: Exception) -> None:
        """Ignore the report."""

    def damaged_game(self, path: Path, game_id: int, reason: str) -> None:
        """Ignore the report."""

    def filed_twice(self, first_id: int, new_id: int | None) -> None:
        """Ignore the report."""
