"""The history of finished games: an SQLite database, ``<data folder>/history.sqlite3``.

Tables (schema version 3, kept in ``PRAGMA user_version``):

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
  and ``label``;
- ``win_chances`` (since version 2): per game, ``round``, ``turn_seat`` (the
  player about to roll) and ``seat``: that player's ``chance`` to finish first
  at the start of that turn, from every card then.  A game of two or more
  players in which the solver took part is filed with a row for every player
  at every turn's start; other games have none.
- ``browser_games`` (since version 3): per game played in the browser, its
  ``seats`` (``saves.BrowserSeats`` as JSON: each seat link's secret as its
  SHA-256, the coach and one-screen settings), so that a finished game shows
  each page its own seats and the coach's luck lines as it did while in play.

``load_history_game(game_id)`` returns a game's metadata (with its win
chances, when filed with them) and its decisions.

A database of an older version (1: before ``win_chances``, 2: before
``browser_games``) is read as it is, its games without the newer tables'
rows, and brought to version 3 (the tables added, the version raised, in
one transaction, nothing else touched) the first time this program writes
to it.

The tables appear all at once: they are created, with the version, in one
transaction, so another program never sees half of them; a file with none
of them (or only some, all empty, as an older program killed while creating
them left it) is one not created yet, and is completed.  A database that is
damaged (a table or column missing, a foreign table) or from a newer version
is reported and renamed aside, and a new one is started; one that cannot be
read is reported and left where it is.  Every game is checked when it is
read (types, the card against the rules, the totals, each decision), and a
game whose rows are impossible is reported and left out, the rest kept.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from yahtzee.domain.card import Card, Variant
from yahtzee.domain.games import UnknownGameError, get_variant
from yahtzee.domain.score_card import ScoreCard
from yahtzee.engine.engine import MAX_PLAYERS
from yahtzee.engine.records import (REROLLS, Decision, GameRecord, TurnChances, leaders,
                                    scoring_dice)
from yahtzee.storage.fields import FieldError, number, optional, text, whole
from yahtzee.storage.paths import data_dir
from yahtzee.storage.problems import (Damage, DamagedFileError, StorageError, StorageProblems,
                                      SilentProblems, StoredFile, left_in_place, set_aside)
from yahtzee.storage.saves import BrowserSeats
from yahtzee.storage.snapshot import KIND_NAMES, check_log, make_card, record_variant

HISTORY_FILE = "history.sqlite3"
SCHEMA_VERSION = 3
"""The version of the database layout this program writes; a higher one is refused."""
TABLES = ("games", "players", "card_rows", "decisions", "win_chances", "browser_games")
SINCE = {"win_chances": 2, "browser_games": 3}
"""The tables added after version 1, with the version that added each (the others: 1)."""
CHANCE_TOLERANCE = 1e-6
"""How far a turn's recorded chances may add up from 1."""
_SQLITE_MAGIC = b"SQLite format 3\x00"
_DAMAGE_CODES = frozenset({11, 26})
"""SQLite's result codes for a damaged file: SQLITE_CORRUPT and SQLITE_NOTADB."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    finished_at TEXT NOT NULL,
    variant TEXT NOT NULL,
    rules TEXT NOT NULL,
    rounds INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
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
CREATE TABLE IF NOT EXISTS card_rows (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    position INTEGER NOT NULL,
    label TEXT NOT NULL,
    value INTEGER NOT NULL,
    dice TEXT,
    PRIMARY KEY (game_id, seat, position)
);
CREATE TABLE IF NOT EXISTS decisions (
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
CREATE TABLE IF NOT EXISTS win_chances (
    game_id INTEGER NOT NULL REFERENCES games(id),
    round INTEGER NOT NULL,
    turn_seat INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    chance REAL NOT NULL,
    PRIMARY KEY (game_id, round, turn_seat, seat)
);
CREATE TABLE IF NOT EXISTS browser_games (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    seats TEXT NOT NULL
);
"""


_CREATE = {table: f"CREATE TABLE IF NOT EXISTS {table} ({body}\n)"
           for table, body in re.findall(r"CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\n\);",
                                         _SCHEMA, re.DOTALL)}
"""Each table's ``CREATE TABLE`` statement."""
COLUMNS = {table: frozenset(re.findall(r"^    (\w+) ", statement, re.MULTILINE)) - {"PRIMARY"}
           for table, statement in _CREATE.items()}
"""Each table's columns, as the schema above declares them."""


def tables_of(version: int) -> frozenset[str]:
    """Return the tables a complete database of layout ``version`` holds (0 counts as 1)."""
    return frozenset(table for table in COLUMNS if SINCE.get(table, 1) <= max(version, 1))


class HistoryUnavailableError(StorageError):
    """The history database cannot be opened or written (not a damaged file)."""


class DamagedGameError(StorageError, LookupError):
    """A game of the history has impossible rows; it has been reported and is left out."""


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
    chances: tuple[TurnChances, ...] = ()
    """Every player's win chance at each turn's start, in order (empty: not recorded)."""
    browser: BrowserSeats | None = None
    """A browser game's seats as filed (None: not played in the browser, filed before
    version 3, or unreadable).  Only ``load_game`` reads them; ``games`` leaves them out."""


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


@lru_cache(maxsize=8192)
def _digits(values: tuple[int | bool, ...]) -> str:
    """Return values as space-separated digits (flags as 0 and 1).

    Kept for each of the few thousand throws and sets of flags: a game files
    two of them for each of its decisions.
    """
    return " ".join(str(int(v)) for v in values)


@dataclass(frozen=True)
class _GameRows:
    """The rows a finished game is filed as, but for the ``games`` and ``card_rows`` tables."""

    players: list[tuple[Any, ...]]
    """``players`` rows without the game's ID: seat, name, kind, total, bonuses, winner."""
    decisions: list[tuple[Any, ...]]
    """``decisions`` rows without the game's ID: seq, round, seat, dice, ... label."""
    chances: list[tuple[int, int, int, float]]
    """``win_chances`` rows without the game's ID: round, turn_seat, seat, chance."""
    seats: str | None = None
    """The ``browser_games`` row's ``seats`` (JSON text; None: no row)."""


def _player_rows(game: GameRecord, cards: Sequence[Card]) -> list[tuple[Any, ...]]:
    """Return the ``players`` rows of a finished game (without its ID), seat by seat."""
    winners = set(leaders(cards))
    return [(seat, player.name, player.kind, card.score(),
             *((card.upper_bonus(), card.get_yahtzee_bonus())
               if isinstance(card, ScoreCard) else (None, None)),
             int(seat in winners))
            for seat, (player, card) in enumerate(zip(game.players, cards))]


def _decision_rows(log: Sequence[Decision]) -> list[tuple[Any, ...]]:
    """Return the ``decisions`` rows of a game's log (without the game's ID), in order."""
    return [(seq, d.round, d.seat, _digits(d.dice), _digits(d.saved), d.rolls_left,
             d.command, d.points, d.label) for seq, d in enumerate(log)]


def filing_rows(game: GameRecord, chances: Sequence[TurnChances],
                browser: BrowserSeats | None = None) -> tuple[list[Card], _GameRows]:
    """Return the final cards and the rows that file ``game`` with its ``chances`` (and the
    seats of a ``browser`` game).

    Every back end files these.

    ``SnapshotError`` if the record does not describe a possible game;
    ``ValueError`` if ``chances`` are not those of its turns, or ``browser``'s seats
    are not its players'.
    """
    variant = record_variant(game)
    check_log(variant, len(game.players), game.log)
    chance_rows = [(t.round, t.seat, seat, chance)
                   for t in chances for seat, chance in enumerate(t.chances)]
    if chance_rows and not _checked_chances(chance_rows, len(game.players), variant.rounds):
        raise ValueError("the win chances are not one per player at each turn's start")
    seats = None
    if browser is not None:
        data = browser.to_dict()
        try:
            BrowserSeats.from_dict(data, len(game.players))
        except FieldError as error:
            raise ValueError(f"the browser seats are not the game's: {error}") from None
        seats = json.dumps(data, separators=(",", ":"))
    cards = [make_card(variant, player) for player in game.players]
    return cards, _GameRows(_player_rows(game, cards), _decision_rows(game.log), chance_rows,
                            seats)


def with_seats(game: HistoryGame, seats: object) -> HistoryGame:
    """Return ``game`` with the browser seats its ``browser_games`` row holds (None: no row).

    ``seats`` is the row's JSON, as text or parsed; seats that cannot be read
    or do not fit the game are left out (the game is kept, as a game played
    elsewhere), as win chances that do not fit are.
    """
    if seats is None:
        return game
    try:
        data = json.loads(seats) if isinstance(seats, str) else seats
        browser = BrowserSeats.from_dict(data, len(game.players))
    except (ValueError, FieldError):
        return game
    return replace(game, browser=browser)


_Stamp = tuple[int, int, int, int]
"""A file as ``os.stat`` finds it: device, inode, size and time of the last change (ns)."""


class History:
    """The history database of finished games.

    A database is checked (``PRAGMA quick_check``, its tables and layout)
    each time it is opened, unless this process already found it sound or
    wrote it and the file has not changed since (the same stamp): the check
    reads the whole file, which grows with every game filed.
    """

    timeout = 10.0
    """Seconds to wait for another program that holds the database locked."""
    _sound: ClassVar[dict[str, tuple[_Stamp, int]]] = {}
    """Per database path: the file's stamp when last found sound or written here, and its
    layout version then."""
    _sound_lock: ClassVar[threading.Lock] = threading.Lock()
    _writers: ClassVar[dict[str, threading.Lock]] = {}
    """Per database path: held by the thread of this process that files a game there.

    SQLite's wait for a lock (``timeout``) is no queue: threads of a busy
    server filing many games at once could each wait out the timeout and
    leave their games unfiled.  In one process they take turns here instead;
    only other programs are waited for with the timeout."""

    def __init__(self, path: Path | None = None, *,
                 problems: StorageProblems | None = None) -> None:
        """Use the database at ``path`` (default: ``history_path()``), reporting to ``problems``.

        Without ``problems`` a damaged database is still moved aside, silently.
        """
        self.path = path if path is not None else history_path()
        self.problems: StorageProblems = problems if problems is not None else SilentProblems()
        self._reported: set[int] = set()

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

    def _check(self, connection: sqlite3.Connection) -> int | None:
        """Return the layout version of a sound database of ours (None: its tables are to make).

        A database with every table of its version (or every table there is)
        is sound; one of an older version is brought up to date when written.
        ``DamagedFileError`` (after moving the file aside) if it is damaged or newer.
        """
        try:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            check = connection.execute("PRAGMA quick_check").fetchone()[0]
            tables = {str(row[0]): {str(column[1]) for column in connection.execute(
                          f"PRAGMA table_info({row[0]})")}
                      for row in connection.execute(
                          "SELECT name FROM sqlite_master WHERE type = 'table' "
                          "AND name NOT LIKE 'sqlite_%'")}
            empty = all(connection.execute(f"SELECT 1 FROM {name} LIMIT 1").fetchone() is None
                        for name in tables if name in COLUMNS)
        except sqlite3.Error as error:
            connection.close()
            if not is_damage(error):
                raise HistoryUnavailableError(str(error)) from error
            raise self._set_aside(self._damage()) from None
        ours = set(tables) <= set(COLUMNS) and all(
            COLUMNS[name] <= columns for name, columns in tables.items())
        damage: Damage | None = None
        if check != "ok":
            damage = self._damage()
        elif version > SCHEMA_VERSION:
            damage = Damage.NEWER
        elif not ours:
            damage = Damage.CORRUPT
        elif set(tables) in (set(COLUMNS), tables_of(version)):
            return int(version)
        elif not empty:
            damage = Damage.CORRUPT
        if damage is not None:
            connection.close()
            raise self._set_aside(damage)
        return None

    def _stamp(self) -> _Stamp | None:
        """Return the database file's stamp (None: it cannot be looked at)."""
        try:
            found = os.stat(self.path)
        except OSError:
            return None
        return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns

    def _checked_version(self, connection: sqlite3.Connection) -> int | None:
        """Return ``_check``'s answer, remembered while the file keeps the stamp it had then."""
        key, stamp = str(self.path), self._stamp()
        with self._sound_lock:
            known = self._sound.get(key)
        if stamp is not None and known is not None and known[0] == stamp:
            return known[1]
        version = self._check(connection)
        if version is not None and stamp is not None:
            with self._sound_lock:
                self._sound[key] = (stamp, version)
        return version

    def _written(self) -> None:
        """Remember the file as sound, at the newest layout: this process just wrote it."""
        stamp = self._stamp()
        with self._sound_lock:
            if stamp is None:
                self._sound.pop(str(self.path), None)
            else:
                self._sound[str(self.path)] = (stamp, SCHEMA_VERSION)

    def _precheck(self) -> bool:
        """Return whether the file exists; a directory or unreadable file is moved aside."""
        if not os.path.lexists(self.path):
            return False
        if not self.path.is_file():
            raise self._set_aside(Damage.NOT_A_FILE)
        if not os.access(self.path, os.R_OK):
            raise left_in_place(StoredFile.HISTORY, self.path, self.problems)
        return True

    def _connect(self, *, write: bool) -> sqlite3.Connection | None:
        """Return a checked connection (None when reading and there is no sound database).

        A damaged database is moved aside: reading then finds none, writing
        starts a new one.  Writing brings an older layout up to date first;
        reading takes it as it is.  ``HistoryUnavailableError`` if writing is
        impossible.
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
                connection = sqlite3.connect(self.path, timeout=self.timeout,
                                             isolation_level=None)
            except (OSError, sqlite3.Error) as error:
                raise HistoryUnavailableError(str(error)) from error
            try:
                version = self._checked_version(connection)
            except DamagedFileError as error:
                if error.moved_to is None:
                    return self._unavailable(write, error)
                continue
            if version is None or (write and version < SCHEMA_VERSION):
                if not write:
                    connection.close()
                    return None
                try:
                    self._create_schema(connection)
                except sqlite3.Error as error:
                    connection.close()
                    raise HistoryUnavailableError(str(error)) from error
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
        """Create the missing tables and set the version, in one transaction: all or nothing.

        This also migrates an older database: the tables added since its
        version are created (empty) and the version raised, the rows already
        there left as they are.  Another program doing the same at the same
        moment waits for this one (or this one for it); the second finds the
        tables made and adds nothing.
        """
        with _transaction(connection):
            for statement in _CREATE.values():
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- writing -------------------------------------------------------------
    def _writer(self) -> threading.Lock:
        """Return the lock that this process's writers of this database take in turn."""
        with self._sound_lock:
            return self._writers.setdefault(os.path.abspath(self.path), threading.Lock())

    def record(self, game: GameRecord, *, uid: str, finished_at: datetime | None = None,
               chances: Sequence[TurnChances] = (), browser: BrowserSeats | None = None) -> int:
        """File the finished game ``game`` under ``uid``; return its ID in the history.

        ``chances``, when given, are every player's win chances at each
        turn's start, every turn of the game in order; ``browser`` a browser
        game's seats (``browser_games``).  A game already filed
        under ``uid`` (another program finished the same save) is reported:
        the same game is not filed twice; one played differently is filed
        too, under a new unique ID, so nothing is lost.
        ``HistoryUnavailableError`` or ``sqlite3.Error`` if it cannot be written;
        ``SnapshotError`` if the record does not describe a possible game;
        ``ValueError`` if ``chances`` are not those of its turns.
        """
        moment = finished_at if finished_at is not None else datetime.now(timezone.utc)
        cards, rows = filing_rows(game, chances, browser)
        with self._writer(), self._open(write=True) as connection:
            assert connection is not None
            with _transaction(connection):
                first, game_id = self._file(connection, game, uid, moment, cards, rows)
            self._written()
        if first is not None:
            self.problems.filed_twice(first, None if game_id == first else game_id)
        return game_id

    def _file(self, connection: sqlite3.Connection, game: GameRecord, uid: str,
              moment: datetime, cards: Sequence[Card], rows: _GameRows) -> tuple[int | None, int]:
        """File a game's rows (inside the caller's transaction) unless they are filed already.

        Return the ID of the game filed earlier under ``uid`` (None if none)
        and the game's ID in the history: the earlier one when it holds the
        same players and decisions, else a new one (under a new unique ID if
        ``uid`` is taken).
        """
        row = connection.execute("SELECT id FROM games WHERE uid = ?", (uid,)).fetchone()
        if row is None:
            first = None
        else:
            first = int(row[0])
            if _game_rows(connection, first) == (rows.players,
                                                 [row[1:] for row in rows.decisions]):
                return first, first
            uid = uuid.uuid4().hex
        game_id = self._insert(connection, game, uid, moment, cards, rows.players,
                               rows.decisions)
        _insert_rows(connection, "win_chances", [(game_id, *row) for row in rows.chances])
        if rows.seats is not None:
            connection.execute("INSERT INTO browser_games VALUES (?, ?)", (game_id, rows.seats))
        return first, game_id

    @staticmethod
    def _insert(connection: sqlite3.Connection, game: GameRecord, uid: str, moment: datetime,
                cards: Sequence[Card], players: Sequence[tuple[Any, ...]],
                decisions: Sequence[tuple[Any, ...]]) -> int:
        """Insert one game's rows (inside the caller's transaction) and return its ID."""
        variant = record_variant(game)
        cursor = connection.execute(
            "INSERT INTO games (uid, finished_at, variant, rules, rounds) VALUES (?, ?, ?, ?, ?)",
            (uid, moment.isoformat(timespec="seconds"), variant.name, variant.rules_name,
             variant.rounds))
        game_id = cursor.lastrowid
        assert game_id is not None
        _insert_rows(connection, "players", [(game_id, *row) for row in players])
        card_rows = []
        for seat, card in enumerate(cards):
            dice = scoring_dice(game.log, seat, variant)
            card_rows += [(game_id, seat, position, label, value, dice.get(label))
                          for position, (label, value) in enumerate(card.rows())]
        _insert_rows(connection, "card_rows", card_rows)
        _insert_rows(connection, "decisions", [(game_id, *row) for row in decisions])
        return game_id

    # -- reading -------------------------------------------------------------
    def _read(self, *queries: str) -> list[list[tuple[Any, ...]]]:
        """Return the rows of each query, read together (none when there is no sound database).

        A query of a table that an older database lacks gives no rows.
        ``HistoryUnavailableError`` if the database cannot be read now (locked, say).
        """
        try:
            with self._open(write=False) as connection:
                if connection is None:
                    return [[] for _ in queries]
                with _transaction(connection, "BEGIN DEFERRED"):
                    present = _table_names(connection)
                    return [list(connection.execute(query)) if _table_of(query) in present
                            else [] for query in queries]
        except sqlite3.Error as error:
            if not is_damage(error):
                raise HistoryUnavailableError(str(error)) from error
            with contextlib.suppress(DamagedFileError):
                raise self._set_aside(self._damage())
            return [[] for _ in queries]
        except DamagedFileError:
            return [[] for _ in queries]

    def _left_out(self, game_id: int, reason: str) -> DamagedGameError:
        """Report the game ``game_id`` as damaged (once per game) and return the error."""
        if game_id not in self._reported:
            self._reported.add(game_id)
            self.problems.damaged_game(self.path, game_id, reason)
        return DamagedGameError(f"game {game_id} of the history is damaged ({reason})")

    def game_ids(self) -> list[int]:
        """Return the IDs of the finished games, oldest first."""
        return [int(row[0]) for row in self._read("SELECT id FROM games ORDER BY id")[0]]

    def games(self) -> list[HistoryGame]:
        """Return every sound finished game's metadata, oldest first (damaged ones reported)."""
        rows, player_rows, card_rows, chance_rows = self._read(
            "SELECT id, uid, finished_at, variant, rules, rounds FROM games ORDER BY id",
            "SELECT game_id, seat, name, kind, total, upper_bonus, yahtzee_bonuses, winner "
            "FROM players ORDER BY game_id, seat",
            "SELECT game_id, seat, label, value, dice FROM card_rows "
            "ORDER BY game_id, seat, position",
            f"{_CHANCES_QUERY} ORDER BY game_id, round, turn_seat, seat")
        players, cards, chances = (_by_game(rows) for rows in (player_rows, card_rows,
                                                               chance_rows))
        games = []
        for row in rows:
            try:
                games.append(_checked_game(row, players.get(row[0], []), cards.get(row[0], []),
                                           chances.get(row[0], [])))
            except FieldError as error:
                self._left_out(row[0], str(error))
        return games

    def id_of(self, uid: str) -> int | None:
        """Return the ID of the finished game whose unique ID is ``uid`` (None: none filed).

        A history that cannot be read now counts as holding no such game (the
        commands that list the history report its damage).
        """
        try:
            with self._open(write=False) as connection:
                if connection is None:
                    return None
                row = connection.execute("SELECT id FROM games WHERE uid = ?",
                                         (uid,)).fetchone()
        except (sqlite3.Error, DamagedFileError):
            return None
        return None if row is None else int(row[0])

    def load_game(self, game_id: int) -> tuple[HistoryGame, list[Decision]]:
        """Return a finished game's metadata and its decisions.

        ``LookupError`` if unknown; ``DamagedGameError`` (a ``LookupError``,
        already reported) if its rows are impossible.
        """
        try:
            with self._open(write=False) as connection:
                if connection is None:
                    raise LookupError(f"no finished game has the ID {game_id}")
                return self._load_game(connection, game_id)
        except sqlite3.Error as error:
            if not is_damage(error):
                raise HistoryUnavailableError(str(error)) from error
            with contextlib.suppress(DamagedFileError):
                raise self._set_aside(self._damage())
            raise LookupError(f"no finished game has the ID {game_id}") from None
        except DamagedFileError:
            raise LookupError(f"no finished game has the ID {game_id}") from None

    def _load_game(self, connection: sqlite3.Connection,
                   game_id: int) -> tuple[HistoryGame, list[Decision]]:
        """Read and check one game's metadata and decisions."""
        game = connection.execute(
            "SELECT id, uid, finished_at, variant, rules, rounds FROM games WHERE id = ?",
            (game_id,)).fetchone()
        if game is None:
            raise LookupError(f"no finished game has the ID {game_id}")
        players, rows = _game_rows(connection, game_id)
        cards = list(connection.execute(
            "SELECT seat, label, value, dice FROM card_rows WHERE game_id = ? "
            "ORDER BY seat, position", (game_id,)))
        chances = [row[1:] for row in connection.execute(
            f"{_CHANCES_QUERY} WHERE game_id = ? ORDER BY round, turn_seat, seat", (game_id,))
            ] if "win_chances" in _table_names(connection) else []
        seats = connection.execute(
            "SELECT seats FROM browser_games WHERE game_id = ?", (game_id,)).fetchone(
            ) if "browser_games" in _table_names(connection) else None
        try:
            meta = _checked_game(game, players, cards, chances)
            decisions = [_decision(row) for row in rows]
            check_log(get_variant(meta.variant, meta.rules), len(meta.players), decisions)
        except FieldError as error:
            raise self._left_out(game_id, str(error)) from None
        return with_seats(meta, None if seats is None else seats[0]), decisions

    def results(self) -> list[PlayerResult]:
        """Return every player's result in every sound finished game."""
        return results_of(self.games())


def results_of(games: Sequence[HistoryGame]) -> list[PlayerResult]:
    """Return every player's result in each of ``games``."""
    return [PlayerResult(game.game_id, game_label(game.variant, game.rules), player.name,
                         player.kind, player.total, player.winner, len(game.players) - 1)
            for game in games for player in game.players]


def predictions(games: Sequence[HistoryGame]) -> list[tuple[float, float]]:
    """Return (predicted chance, outcome) at every turn's start of the games with chances.

    The prediction is the chance filed for the player about to roll; the
    outcome is 1 for a win, the share of a tie (1/2 for two leaders), 0 for
    a loss.
    """
    pairs = []
    for game in games:
        leaders = sum(player.winner for player in game.players)
        outcomes = [1.0 / leaders if player.winner else 0.0 for player in game.players]
        pairs += [(turn.chances[turn.seat], outcomes[turn.seat]) for turn in game.chances]
    return pairs


_CHANCES_QUERY = "SELECT game_id, round, turn_seat, seat, chance FROM win_chances"
_FROM = re.compile(r"\bFROM (\w+)")


def _table_of(query: str) -> str:
    """Return the table a query reads (the one after its ``FROM``)."""
    match = _FROM.search(query)
    assert match is not None, query
    return match.group(1)


def _table_names(connection: sqlite3.Connection) -> set[str]:
    """Return the names of the database's tables."""
    return {str(row[0]) for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}


def _by_game(rows: Sequence[Sequence[Any]]) -> dict[Any, list[tuple[Any, ...]]]:
    """Return rows whose first cell is a game's ID grouped by it, that cell left out."""
    grouped: dict[Any, list[tuple[Any, ...]]] = {}
    for row in rows:
        grouped.setdefault(row[0], []).append(tuple(row[1:]))
    return grouped


MOST_BOUND = 999
"""The most values bound to one statement: SQLite's lowest limit (before version 3.32)."""


def _insert_rows(connection: sqlite3.Connection, table: str,
                 rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert ``rows`` (all of one width) into ``table``, as many in one statement as fit.

    Each statement is one step of SQLite, and each step hands the
    interpreter's lock back and waits to take it again, behind the busy
    threads of a server.  A game's hundred or so rows inserted one step
    each (``executemany``) took a game's filing about 48 ms on average at the
    1,000-game load, in a few statements 27 ms (docs/scaling.md).
    """
    if not rows:
        return
    width = len(rows[0])
    most = max(1, MOST_BOUND // width)
    marks = "(" + ", ".join("?" * width) + ")"
    for start in range(0, len(rows), most):
        part = rows[start:start + most]
        connection.execute(f"INSERT INTO {table} VALUES {', '.join([marks] * len(part))}",
                           [value for row in part for value in row])


@contextlib.contextmanager
def _transaction(connection: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> Iterator[None]:
    """Run the block in one transaction: by default a write transaction, taken at once."""
    connection.execute(begin)
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def _game_rows(connection: sqlite3.Connection,
               game_id: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Return a filed game's rows of ``players`` and of ``decisions``, in order."""
    players = connection.execute(
        "SELECT seat, name, kind, total, upper_bonus, yahtzee_bonuses, winner FROM players "
        "WHERE game_id = ? ORDER BY seat", (game_id,))
    decisions = connection.execute(
        "SELECT round, seat, dice, saved, rolls_left, command, points, label "
        "FROM decisions WHERE game_id = ? ORDER BY seq", (game_id,))
    return [tuple(row) for row in players], [tuple(row) for row in decisions]


def _checked_chances(rows: Sequence[Sequence[Any]], players: int,
                     rounds: int) -> tuple[TurnChances, ...]:
    """Return the win chances that rows of ``(round, turn_seat, seat, chance)`` hold, in order.

    They must give each of the ``players`` a chance from 0 to 1 at the start
    of every turn of a finished game of ``rounds`` rounds, adding up to 1 at
    each; otherwise (or without rows) there are none.
    """
    turns = [(round_, turn_seat) for round_ in range(1, rounds + 1)
             for turn_seat in range(players)]
    if [tuple(row[:3]) for row in rows] != [(*turn, seat) for turn in turns
                                            for seat in range(players)]:
        return ()
    try:
        values = [number(row[3], "a chance", low=0, high=1) for row in rows]
    except FieldError:
        return ()
    result = tuple(TurnChances(round_, turn_seat, tuple(values[i * players:(i + 1) * players]))
                   for i, (round_, turn_seat) in enumerate(turns))
    if any(abs(sum(t.chances) - 1) > CHANCE_TOLERANCE for t in result):
        return ()
    return result


def _checked_game(game: Sequence[Any], players: Sequence[Sequence[Any]],
                  rows: Sequence[Sequence[Any]],
                  chances: Sequence[Sequence[Any]] = ()) -> HistoryGame:
    """Return a game's metadata from its rows, checked against the rules; ``FieldError`` if bad.

    Each card is rebuilt from its boxes and must print the rows stored, its
    total and bonuses must be those stored, and the winners the leaders.
    Win chances that do not fit the game (``_checked_chances``) are left out.
    """
    game_id, uid, finished_at, _variant_name, _rules, rounds = game
    variant = _checked_variant(game)
    if not 1 <= len(players) <= MAX_PLAYERS or [p[0] for p in players] != list(
            range(len(players))):
        raise FieldError("the players' seats are not 0, 1, ...")
    by_seat = _card_rows(rows)
    checked = [_checked_player(variant, player, by_seat.get(player[0], ()))
               for player in players]
    cards = [card for _, card in checked]
    if [p.winner for p, _ in checked] != [seat in leaders(cards) for seat in range(len(cards))]:
        raise FieldError("the winners are not the leaders")
    return HistoryGame(int(game_id), uid, finished_at, variant.name, variant.rules_name,
                       rounds, tuple(p for p, _ in checked),
                       _checked_chances(chances, len(checked), rounds))


def _checked_variant(game: Sequence[Any]) -> Variant:
    """Return the dice game a ``games`` row is of, its other fields checked; else ``FieldError``."""
    _game_id, uid, finished_at, variant_name, rules, rounds = game
    try:
        variant = get_variant(text(variant_name, "the game"), text(rules, "the rules"))
    except UnknownGameError as error:
        raise FieldError(str(error)) from None
    text(uid, "the unique ID")
    text(finished_at, "the time")
    if rounds != variant.rounds:
        raise FieldError(f"the rounds are {rounds!r}")
    return variant


def _card_rows(rows: Sequence[Sequence[Any]]) -> dict[Any, tuple[CardRow, ...]]:
    """Return rows of ``(seat, label, value, dice)`` as each seat's card rows, in order."""
    by_seat: dict[Any, list[CardRow]] = {}
    for seat, label, value, dice in rows:
        if dice is not None:
            text(dice, "a box's dice")
        by_seat.setdefault(seat, []).append(
            CardRow(text(label, "a row's label"), whole(value, "a row's value", low=0, high=10**6),
                    dice))
    return {seat: tuple(card_rows) for seat, card_rows in by_seat.items()}


def _checked_player(variant: Variant, player: Sequence[Any],
                    card_rows: tuple[CardRow, ...]) -> tuple[HistoryPlayer, Card]:
    """Return a ``players`` row as a player, and the card its ``card_rows`` rebuild.

    ``FieldError`` if a field is wrong, or the card does not print those rows
    or have that total and those bonuses.
    """
    seat, name, kind, total, upper, bonuses, winner = player
    if not text(name, "a name") or kind not in KIND_NAMES:
        raise FieldError(f"player {name!r} of kind {kind!r}")
    # A box holding 0 is read as open: a course card may end with open boxes.
    boxes = [row.value or None for row in card_rows[:_box_count(variant)]]
    count = 0 if bonuses is None else whole(bonuses, "the bonuses", low=0, high=variant.rounds)
    try:
        card = variant.restore_card(boxes, count)
    except ValueError as error:
        raise FieldError(str(error)) from None
    if [(row.label, row.value) for row in card_rows] != card.rows():
        raise FieldError(f"the card of {name!r} does not add up")
    if whole(total, "a total", low=0, high=10**6) != card.score() or (
            isinstance(card, ScoreCard)
            and (upper, bonuses) != (card.upper_bonus(), card.get_yahtzee_bonus())):
        raise FieldError(f"the total of {name!r} is not its card's")
    return HistoryPlayer(seat, name, kind, total, upper, bonuses,
                         bool(whole(winner, "a winner flag", low=0, high=1)), card_rows), card


def _box_count(variant: Variant) -> int:
    """Return how many boxes a card of ``variant`` has."""
    return len(variant.card_contents(variant.new_card())[0])


def _decision(row: Sequence[Any]) -> Decision:
    """Return the decision a row of ``decisions`` holds; ``FieldError`` if it cannot be one."""
    round_, seat, dice, saved, rolls_left, command, points, label = row
    faces = text(dice, "a decision's dice").split()
    flags = text(saved, "a decision's saved dice").split()
    if not all(f.isascii() and f.isdigit() and len(f) == 1 for f in faces) or not all(
            f in ("0", "1") for f in flags):
        raise FieldError(f"a decision's dice are {dice!r} and {saved!r}")
    return Decision(whole(round_, "a round", low=1, high=10**6),
                    whole(seat, "a seat", low=0, high=MAX_PLAYERS),
                    tuple(int(f) for f in faces), tuple(f == "1" for f in flags),
                    whole(rolls_left, "the re-rolls left", low=0, high=REROLLS),
                    text(command, "a command"),
                    optional(points, "a decision's points", _points),
                    optional(label, "a decision's box", text))


def _points(value: object, name: str) -> int:
    """Return ``value`` if it is the points a box may hold."""
    return whole(value, name, low=0, high=10**6)


def load_history_game(game_id: int, *, path: Path | None = None
                      ) -> tuple[HistoryGame, list[Decision]]:
    """Return the finished game ``game_id``'s metadata and its decision log.

    ``path`` defaults to the history in the data folder; ``LookupError`` if
    there is no such game.
    """
    return History(path).load_game(game_id)
