"""The storage port: what the application asks of saves and history, whichever back end keeps them.

Two back ends implement it:

- the files (the default; standard library only): one JSON file per
  unfinished game (``saves.SaveStore``) and the SQLite history
  (``history.History``) in the data folder;
- PostgreSQL (``postgres``, the ``postgres`` extra: psycopg 3), chosen by a
  ``postgresql://`` URL, for several server processes sharing one set of games.

``open_storage(database, problems)`` returns the ``Storage`` of a database
(None or empty: the files); a ``Storage`` is made once per process and
database, and makes the stores.  Each saves store holds its own locks, as
``SaveStore`` does: a game open in one store is refused to another, in this
process or any other.

The primitives for several processes sharing games (``transaction``,
``version_of``, ``claim``, ``notify``, ``listen``...) have trivial
single-process versions in the files back end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit, urlunsplit

from yahtzee.engine.moves import Notation
from yahtzee.engine.records import Decision, GameRecord, TurnChances
from yahtzee.storage.history import HistoryGame, PlayerResult
from yahtzee.storage.problems import BadDatabaseError, StorageProblems
from yahtzee.storage.saves import BrowserSeats, SaveFile

__all__ = ["BadDatabaseError", "Closeable", "HistoryStorage", "SaveStorage", "Storage",
           "open_storage"]

DATABASE_VARIABLE = "YAHTZEE_DATABASE"
"""The environment variable naming the database when ``--database`` is not given."""
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
"""How a PostgreSQL URL begins."""


def without_password(url: str) -> str:
    """Return the database URL ``url`` with no password in it (in its user part or its
    query), to be shown: the password comes from ``PGPASSWORD`` or ``~/.pgpass``."""
    parts = urlsplit(url)
    if parts.password is None and "password" not in parse_qs(parts.query):
        return url
    host = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}@" if parts.username else ""
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k != "password"])
    return urlunsplit((parts.scheme, user + host, parts.path, query, parts.fragment))


class Closeable(Protocol):
    """Something running that stops when closed (a listener's thread)."""

    def close(self) -> None:
        """Stop it and let go of what it holds; closing twice does nothing."""
        ...


class SaveStorage(Protocol):
    """The saves of unfinished games, and the locks this store holds on some of them."""

    problems: StorageProblems

    def create(self, snapshot: GameRecord, *, uid: str | None = None,
               when: datetime | None = None, browser: BrowserSeats | None = None,
               keep_by: Notation = Notation.POSITIONS) -> SaveFile:
        """Save ``snapshot`` under a new ID, held locked by this store; return the save.

        ``browser`` and ``keep_by`` are the save's parts beside the game (``SaveFile``).
        """
        ...

    def write(self, save: SaveFile, *, computer_to_play: bool = False,
              replayable: bool = False) -> None:
        """Replace the save ``save.save_id`` (held by this store); ``SaveInUseError`` if not held.

        ``computer_to_play`` says that a computer is to move (kept by a database, so that
        another process takes the game up when this one is gone).  ``replayable`` says
        that everything since the last write can be made again exactly (a computer's
        moves, from the dice's generator in the save): the write must survive the
        process, not a crash of the machine, and is not waited for on the disk.
        """
        ...

    def remove(self, save_id: int) -> None:
        """Delete a finished game's save, and let go of its lock; no error if it is gone."""
        ...

    def delete(self, save_id: int) -> SaveFile:
        """Delete the unfinished game ``save_id`` and return it (refused if open elsewhere)."""
        ...

    def load(self, save_id: int) -> SaveFile:
        """Return the save ``save_id``; ``SaveNotFoundError`` if there is none."""
        ...

    def exists(self, save_id: int) -> bool:
        """Return whether there is a save ``save_id`` (finished or not)."""
        ...

    def saved_ids(self) -> list[int]:
        """Return the IDs of every save, in increasing order."""
        ...

    def unfinished(self) -> list[SaveFile]:
        """Return the unfinished games' saves, the most recently played first."""
        ...

    def lock(self, save_id: int) -> None:
        """Hold ``save_id`` for this store; ``SaveInUseError`` if it is open elsewhere."""
        ...

    def lock_shared(self, save_id: int) -> None:
        """Hold ``save_id`` alongside the other server processes that play it (a database's).

        No store may ``lock`` it meanwhile, so that a console neither resumes
        nor deletes a game a server plays; a lock this store holds becomes
        this hold.  Files, played by one process, hold it as ``lock`` does.
        ``SaveInUseError`` if it is locked elsewhere.
        """
        ...

    def is_open_elsewhere(self, save_id: int) -> bool:
        """Return whether another store (of this process or another) holds ``save_id``."""
        ...

    def release(self, save_id: int | None = None, *, remove: bool = False) -> None:
        """Let go of the lock on ``save_id`` (None: every lock of this store)."""
        ...

    def changed_at(self, save_id: int) -> float:
        """Return when the save was last written, in seconds since the epoch.

        ``OSError`` or ``StorageError`` if there is no such save.
        """
        ...

    def find_uid(self, uid: str) -> int | None:
        """Return the ID of the save of the game ``uid`` (None: none)."""
        ...

    def transaction(self, save_id: int) -> AbstractContextManager[SaveFile]:
        """Hold the save ``save_id`` against every other writer while the block runs.

        Yields its latest save.  A database puts every ``write``/``remove``
        of this store and ``record`` of its history made in the same thread
        within the block into one transaction: committed on a normal exit,
        undone on an exception.  ``SaveNotFoundError`` if there is no such save.
        """
        ...

    def hold(self, save_id: int) -> AbstractContextManager[int]:
        """``transaction`` that yields the save's version instead of the save (nothing read).

        For a caller that keeps a copy of the game and reads the save only
        when its version moved.
        """
        ...

    def version_of(self, save_id: int) -> int | None:
        """Return how many times the save was written (None: no such save), to spot a stale copy."""
        ...

    def claim(self, save_id: int, owner: str, seconds: float) -> bool:
        """Take or renew the lease on ``save_id`` for ``owner``; False if another holds it."""
        ...

    def release_claim(self, save_id: int, owner: str) -> None:
        """Give up ``owner``'s lease on ``save_id`` (nothing if it holds none)."""
        ...

    def lapsed_computer_games(self) -> list[str]:
        """Return the uids of unfinished games with a computer to play and no live lease."""
        ...

    def idle_games(self, before: float) -> list[tuple[str, int]]:
        """Return (uid, save ID) of the unfinished games last written by ``before``.

        ``before`` is in seconds since the epoch; games with a computer to
        play are left out.  A database answers for every process; files
        answer none (the one process that plays them knows its games).
        """
        ...

    def notify(self, uid: str) -> None:
        """Tell every listener that the game ``uid`` moved (at commit, inside a transaction)."""
        ...

    def listen(self, callback: Callable[[str], None]) -> Closeable:
        """Call ``callback(uid)`` for each game moved by any process, until closed."""
        ...


class HistoryStorage(Protocol):
    """The finished games, each filed once with its players, cards, decisions and win chances."""

    def record(self, game: GameRecord, *, uid: str, finished_at: datetime | None = None,
               chances: Sequence[TurnChances] = (), browser: BrowserSeats | None = None) -> int:
        """File the finished ``game`` under ``uid`` (with a browser game's seats); return its
        ID in the history."""
        ...

    def games(self) -> list[HistoryGame]:
        """Return every sound finished game's metadata, oldest first."""
        ...

    def game_ids(self) -> list[int]:
        """Return the IDs of the finished games, oldest first."""
        ...

    def id_of(self, uid: str) -> int | None:
        """Return the ID of the finished game ``uid`` (None: not filed)."""
        ...

    def load_game(self, game_id: int) -> tuple[HistoryGame, list[Decision]]:
        """Return a finished game's metadata and decisions; ``LookupError`` if unknown."""
        ...

    def results(self) -> list[PlayerResult]:
        """Return every player's result in every sound finished game."""
        ...


class Storage(Protocol):
    """One database (or the data folder) for one process: it makes the stores."""

    problems: StorageProblems
    shared: bool
    """Whether other server processes may play the same games at the same time (a database:
    each change then holds the game's row in a transaction; files: one process plays them)."""

    def saves(self) -> SaveStorage:
        """Return a new saves store, holding locks of its own."""
        ...

    def history(self) -> HistoryStorage:
        """Return the history of finished games."""
        ...

    def close(self) -> None:
        """Let go of every connection (nothing for the files)."""
        ...


def open_storage(database: str | None, problems: StorageProblems) -> Storage:
    """Return the storage ``database`` names: None or "" the files, a PostgreSQL URL a database.

    ``BadDatabaseError`` (one line, never a password) for anything else, or
    for a database that cannot be reached or is of a newer schema version.
    """
    if not database:
        from yahtzee.storage.files import FileStorage
        return FileStorage(problems=problems)
    if database.startswith(POSTGRES_SCHEMES):
        try:
            from yahtzee.storage.postgres import PostgresStorage
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] not in ("psycopg", "psycopg_binary"):
                raise
            raise BadDatabaseError(
                "a PostgreSQL database needs psycopg: pip install 'yahtzee[postgres]'") from None
        return PostgresStorage(database, problems=problems)
    raise BadDatabaseError(
        f"--database (or {DATABASE_VARIABLE}) takes a PostgreSQL URL "
        "(postgresql://user@host:port/database)")
