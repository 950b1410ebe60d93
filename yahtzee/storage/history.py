"""The history of finished games: an SQLite database, ``<data folder>/history.sqlite3``.

Tables (schema version 1, kept in ``PRAGMA user_version``):

- ``games``: ``id``, ``uid`` (the save's unique ID, so a game is filed once),
  ``finished_at`` (UTC ISO time), ``variant``, ``rules``, ``rounds``;
- ``players``: per game and ``seat``: ``name``, ``kind`` (``human``,
  ``computer`` or ``greedy``), ``total``, ``upper_bonus`` and
  ``yahtzee_bonuses`` (NULL in Poker Dice), ``winner`` (1 for each leader);
- ``card_rows``: per game, seat and ``position``: each printed row of the
  final card, ``label``, ``value`` and the ``dice`` that scored it (or NULL);
- ``decisions``: per game and ``seq``: every accepted command with its
  position: ``round``, ``seat``, ``dice`` and ``saved`` (five space-separated
  digits), ``rolls_left``, ``command``, and for a scoring choice ``points``
  and ``label``.

``load_history_game(game_id)`` returns a game's metadata and its decisions.
A database that is damaged or from a newer version is reported and renamed
aside, and a new one is started.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from yahtzee.domain.score_card import ScoreCard
from yahtzee.engine.records import Decision, GameRecord, leaders, scoring_dice
from yahtzee.storage.paths import data_dir
from yahtzee.storage.problems import (Damage, DamagedFileError, StorageError, StorageProblems,
                                      StoredFile, set_aside)
from yahtzee.storage.snapshot import make_card, record_variant

HISTORY_FILE = "history.sqlite3"
SCHEMA_VERSION = 1
"""The version of the database layout this program writes; a higher one is refused."""
TABLES = ("games", "players", "card_rows", "decisions")
_SQLITE_MAGIC = b"SQLite format 3\x00"
_DAMAGE_CODES = frozenset({11, 26})
"""SQLite's result codes for a damaged file: SQLITE_CORRUPT and SQLITE_NOTADB."""

_SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    finished_at TEXT NOT NULL,
    variant TEXT NOT NULL,
    rules TEXT NOT NULL,
    rounds INTEGER NOT NULL
);
CREATE TABLE players (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    total INTEGER NOT NULL,
    upper_bonus INTEGER,
    yahtzee_bonuses INTEGER,
    winner INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE card_rows (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    position INTEGER NOT NULL,
    label TEXT NOT NULL,
    value INTEGER NOT NULL,
    dice TEXT,
    PRIMARY KEY (game_id, seat, position)
);
CREATE TABLE decisions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    round INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    dice TEXT NOT NULL,
    saved TEXT NOT NULL,
    rolls_left INTEGER NOT NULL,
    command TEXT NOT NULL,
    points INTEGER,
    label TEXT,
    PRIMARY KEY (game_id, seq)
);
"""


class HistoryUnavailableError(StorageError):
    """The history database cannot be opened or written (not a damaged file)."""


@dataclass(frozen=True)
class CardRow:
    """One printed row of a final card: label, value and the dice that scored it, if any."""

    label: str
    value: int
    dice: str | None


@dataclass(frozen=True)
class HistoryPlayer:
    """A player of a finished game, with the final card."""

    seat: int
    name: str
    kind: str
    total: int
    upper_bonus: int | None
    yahtzee_bonuses: int | None
    winner: bool
    rows: tuple[CardRow, ...]


@dataclass(frozen=True)
class HistoryGame:
    """A finished game's metadata: when, which game and rules, and its players."""

    game_id: int
    uid: str
    finished_at: str
    variant: str
    rules: str
    rounds: int
    players: tuple[HistoryPlayer, ...]


@dataclass(frozen=True)
class PlayerResult:
    """One player's result in one finished game, as the statistics need it."""

    game_id: int
    variant: str
    name: str
    kind: str
    total: int
    winner: bool
    opponents: int


def game_label(variant: str, rules: str) -> str:
    """Return how statistics name a game: ``yahtzee/course``, ``yahtzee/official``, ``poker-dice``.

    Scores are only compared within one game and rule set.
    """
    return variant if rules == variant else f"{variant}/{rules}"


def history_path() -> Path:
    """Return the history database's path in the data folder."""
    return data_dir() / HISTORY_FILE


def is_damage(error: sqlite3.Error) -> bool:
    """Return whether an SQLite error says the file is damaged (not busy, locked or the like)."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _DAMAGE_CODES
    text = str(error).lower()
    return "not a database" in text or "malformed" in text


def _digits(values: Sequence[int | bool]) -> str:
    """Return values as space-separated digits (flags as 0 and 1)."""
    return " ".join(str(int(v)) for v in values)


class _SilentProblems:
    """Reports nothing: for callers that only read and have no console."""

    def damaged_file(self, what: StoredFile, path: Path, damage: Damage,
                     moved_to: Path | None) -> None:
        """Ignore the report."""

    def cannot_save(self, error: Exception) -> None:
        """Ignore the report."""


class History:
    """The history database of finished games."""

    timeout = 10.0
    """Seconds to wait for another program that holds the database locked."""

    def __init__(self, path: Path | None = None, *,
                 problems: StorageProblems | None = None) -> None:
        """Use the database at ``path`` (default: ``history_path()``), reporting to ``problems``.

        Without ``problems`` a damaged database is still moved aside, silently.
        """
        self.path = path if path is not None else history_path()
        self.problems: StorageProblems = problems if problems is not None else _SilentProblems()

    # -- opening and checking ----------------------------------------------
    def _damage(self) -> Damage:
        """Return how an SQLite file that fails its checks is damaged."""
        try:
            size = os.path.getsize(self.path)
            with open(self.path, "rb") as stream:
                header = stream.read(100)
        except OSError:
            return Damage.UNREADABLE
        if size == 0:
            return Damage.TRUNCATED
        if not header.startswith(_SQLITE_MAGIC):
            return Damage.TRUNCATED if _SQLITE_MAGIC.startswith(header) else Damage.CORRUPT
        if len(header) < 100:
            return Damage.TRUNCATED
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        return Damage.TRUNCATED if size < pages * page_size else Damage.CORRUPT

    def _set_aside(self, damage: Damage) -> DamagedFileError:
        """Move the damaged database aside and report it."""
        return set_aside(StoredFile.HISTORY, self.path, damage, self.problems)

    def _check(self, connection: sqlite3.Connection) -> bool:
        """Return whether the database is ours and sound (False: empty, needs the schema).

        ``DamagedFileError`` (after moving the file aside) if it is damaged or newer.
        """
        try:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            check = connection.execute("PRAGMA quick_check").fetchone()[0]
            tables = {row[0] for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error as error:
            connection.close()
            if not is_damage(error):
                raise HistoryUnavailableError(str(error)) from error
            raise self._set_aside(self._damage()) from None
        damage: Damage | None = None
        if check != "ok":
            damage = self._damage()
        elif version > SCHEMA_VERSION:
            damage = Damage.NEWER
        elif version == 0 and not tables:
            return False
        elif version != SCHEMA_VERSION or not set(TABLES) <= tables:
            damage = Damage.CORRUPT
        if damage is not None:
            connection.close()
            raise self._set_aside(damage)
        return True

    def _precheck(self) -> bool:
        """Return whether the file exists; a directory or unreadable file is moved aside."""
        if not os.path.lexists(self.path):
            return False
        if not self.path.is_file():
            raise self._set_aside(Damage.NOT_A_FILE)
        if not os.access(self.path, os.R_OK):
            raise self._set_aside(Damage.UNREADABLE)
        return True

    def _connect(self, *, write: bool) -> sqlite3.Connection | None:
        """Return a checked connection (None when reading and there is no sound database).

        A damaged database is moved aside: reading then finds none, writing
        starts a new one.  ``HistoryUnavailableError`` if writing is impossible.
        """
        for _attempt in range(2):
            try:
                exists = self._precheck()
            except DamagedFileError as error:
                if error.moved_to is None:
                    return self._unavailable(write, error)
                exists = False
            if not exists and not write:
                return None
            try:
                if write:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(self.path, timeout=self.timeout)
            except (OSError, sqlite3.Error) as error:
                raise HistoryUnavailableError(str(error)) from error
            try:
                ready = self._check(connection)
            except DamagedFileError as error:
                if error.moved_to is None:
                    return self._unavailable(write, error)
                continue
            if not ready:
                if not write:
                    connection.close()
                    return None
                self._create_schema(connection)
            return connection
        raise HistoryUnavailableError(f"{self.path} could not be replaced")

    @staticmethod
    def _unavailable(write: bool, error: DamagedFileError) -> None:
        """Give up on a damaged database that could not be moved aside (reading finds none)."""
        if write:
            raise HistoryUnavailableError(str(error)) from error

    @contextlib.contextmanager
    def _open(self, *, write: bool) -> Iterator[sqlite3.Connection | None]:
        """Yield a checked connection as ``_connect`` returns it, and close it afterwards."""
        connection = self._connect(write=write)
        try:
            yield connection
        finally:
            if connection is not None:
                connection.close()

    @staticmethod
    def _create_schema(connection: sqlite3.Connection) -> None:
        """Create the tables of an empty database."""
        with connection:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- writing -------------------------------------------------------------
    def record(self, game: GameRecord, *, uid: str, finished_at: datetime | None = None) -> int:
        """File the finished game ``game`` (once per ``uid``); return its ID in the history.

        ``HistoryUnavailableError`` or ``sqlite3.Error`` if it cannot be written;
        ``SnapshotError`` if the record does not describe a game of the registry.
        """
        moment = finished_at if finished_at is not None else datetime.now(timezone.utc)
        variant = record_variant(game)
        cards = [make_card(variant, player) for player in game.players]
        winners = set(leaders(cards))
        with self._open(write=True) as connection:
            assert connection is not None
            with connection:
                row = connection.execute("SELECT id FROM games WHERE uid = ?", (uid,)).fetchone()
                if row is not None:
                    return int(row[0])
                cursor = connection.execute(
                    "INSERT INTO games (uid, finished_at, variant, rules, rounds) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (uid, moment.isoformat(timespec="seconds"), variant.name,
                     variant.rules_name, variant.rounds))
                game_id = cursor.lastrowid
                assert game_id is not None
                for seat, (player, card) in enumerate(zip(game.players, cards)):
                    upper, bonuses = ((card.upper_bonus(), card.get_yahtzee_bonus())
                                      if isinstance(card, ScoreCard) else (None, None))
                    connection.execute(
                        "INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (game_id, seat, player.name, player.kind, card.score(),
                         upper, bonuses, int(seat in winners)))
                    dice = scoring_dice(game.log, seat, variant)
                    connection.executemany(
                        "INSERT INTO card_rows VALUES (?, ?, ?, ?, ?, ?)",
                        [(game_id, seat, position, label, value, dice.get(label))
                         for position, (label, value) in enumerate(card.rows())])
                connection.executemany(
                    "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(game_id, seq, d.round, d.seat, _digits(d.dice), _digits(d.saved),
                      d.rolls_left, d.command, d.points, d.label)
                     for seq, d in enumerate(game.log)])
                return game_id

    # -- reading -------------------------------------------------------------
    def _read(self, query: str, parameters: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """Return the rows of a query (none when there is no sound database).

        ``HistoryUnavailableError`` if the database cannot be read now (locked, say).
        """
        try:
            with self._open(write=False) as connection:
                if connection is None:
                    return []
                return list(connection.execute(query, parameters))
        except sqlite3.Error as error:
            if not is_damage(error):
                raise HistoryUnavailableError(str(error)) from error
            with contextlib.suppress(DamagedFileError):
                raise self._set_aside(self._damage())
            return []

    def game_ids(self) -> list[int]:
        """Return the IDs of the finished games, oldest first."""
        return [int(row[0]) for row in self._read("SELECT id FROM games ORDER BY id")]

    def games(self) -> list[HistoryGame]:
        """Return every finished game's metadata, oldest first."""
        return [self.load_game(game_id)[0] for game_id in self.game_ids()]

    def load_game(self, game_id: int) -> tuple[HistoryGame, list[Decision]]:
        """Return a finished game's metadata and its decisions; ``LookupError`` if unknown."""
        try:
            with self._open(write=False) as connection:
                if connection is None:
                    raise LookupError(f"no finished game has the ID {game_id}")
                return _load_game(connection, game_id)
        except sqlite3.Error as error:
            if not is_damage(error):
                raise HistoryUnavailableError(str(error)) from error
            with contextlib.suppress(DamagedFileError):
                raise self._set_aside(self._damage())
            raise LookupError(f"no finished game has the ID {game_id}") from None

    def results(self) -> list[PlayerResult]:
        """Return every player's result in every finished game."""
        rows = self._read(
            "SELECT p.game_id, g.variant, g.rules, p.name, p.kind, p.total, p.winner, "
            "(SELECT COUNT(*) FROM players q WHERE q.game_id = p.game_id) - 1 "
            "FROM players p JOIN games g ON g.id = p.game_id ORDER BY p.game_id, p.seat")
        return [PlayerResult(int(game_id), game_label(str(variant), str(rules)), str(name),
                             str(kind), int(total), bool(winner), int(opponents))
                for game_id, variant, rules, name, kind, total, winner, opponents in rows]


def _flags(text: str) -> tuple[bool, ...]:
    """Return saved flags stored as space-separated 0s and 1s."""
    return tuple(part == "1" for part in text.split())


def _load_game(connection: sqlite3.Connection,
               game_id: int) -> tuple[HistoryGame, list[Decision]]:
    """Read one game's metadata and decisions."""
    game = connection.execute(
        "SELECT uid, finished_at, variant, rules, rounds FROM games WHERE id = ?",
        (game_id,)).fetchone()
    if game is None:
        raise LookupError(f"no finished game has the ID {game_id}")
    rows: dict[int, list[CardRow]] = {}
    for seat, label, value, dice in connection.execute(
            "SELECT seat, label, value, dice FROM card_rows WHERE game_id = ? "
            "ORDER BY seat, position", (game_id,)):
        rows.setdefault(seat, []).append(CardRow(label, value, dice))
    players = tuple(
        HistoryPlayer(seat, name, kind, total, upper, bonuses, bool(winner),
                      tuple(rows.get(seat, [])))
        for seat, name, kind, total, upper, bonuses, winner in connection.execute(
            "SELECT seat, name, kind, total, upper_bonus, yahtzee_bonuses, winner "
            "FROM players WHERE game_id = ? ORDER BY seat", (game_id,)))
    decisions = [
        Decision(round_, seat, tuple(int(v) for v in dice.split()), _flags(saved), rolls_left,
                 command, points, label)
        for round_, seat, dice, saved, rolls_left, command, points, label in connection.execute(
            "SELECT round, seat, dice, saved, rolls_left, command, points, label "
            "FROM decisions WHERE game_id = ? ORDER BY seq", (game_id,))]
    uid, finished_at, variant, rules, rounds = game
    return HistoryGame(game_id, uid, finished_at, variant, rules, rounds, players), decisions


def load_history_game(game_id: int, *, path: Path | None = None
                      ) -> tuple[HistoryGame, list[Decision]]:
    """Return the finished game ``game_id``'s metadata and its decision log.

    ``path`` defaults to the history in the data folder; ``LookupError`` if
    there is no such game.
    """
    return History(path).load_game(game_id)


def history_games(*, path: Path | None = None) -> list[HistoryGame]:
    """Return every finished game's metadata, oldest first."""
    return History(path).games()
