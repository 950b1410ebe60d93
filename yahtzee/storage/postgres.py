"""The PostgreSQL back end of the storage port: saves and history in one database (psycopg 3).

Chosen by a ``postgresql://`` URL (``--database`` or ``YAHTZEE_DATABASE``);
imported only then, so the rest of the program needs no psycopg.

Schema (version ``SCHEMA_VERSION``, kept in the table ``schema_version``):

- ``saves``: one row per unfinished game: ``id`` (from the sequence
  ``save_ids``, at most nine digits), ``uid`` (unique), ``created``,
  ``updated`` (the database's time of the last write), ``finished``,
  ``data`` (the save as JSON, ``SaveFile.to_dict``), ``version`` (raised by
  every write), the lease ``lease_owner`` and ``lease_until``, and
  ``computer_to_play``;
- ``save_steps``: the changes written since a save's ``data`` was last
  written whole, one row per write: ``save_id``, ``n`` (from 1) and ``step``
  (``yahtzee.storage.steps``: what changed, as the save files append it);
  ``data`` is written whole again, and the steps deleted, every
  ``STEPS_BEFORE_REWRITE`` steps, when more than the game changed, and at a
  store's first write of a save;
- ``games``, ``players``, ``card_rows``, ``decisions``, ``win_chances``,
  ``browser_games`` (its ``seats`` as ``jsonb``): the finished games, as the
  SQLite history files them (``history``).

The program creates and migrates the schema itself: ``MIGRATIONS`` is a
list of steps, and the steps a database lacks are applied in one
transaction under an advisory lock, so two processes starting at once do
not race.  A database of a newer version is refused.

A saves store's ``lock`` is a session-level advisory lock held on one
connection per ``PostgresStorage`` (one per process), so a game open in one
process cannot be opened in another, and is free again when its process
ends however it ends; the stores of one process are told apart in memory.
Other work takes a connection from a small pool of the storage's own
(``POOL_SIZE``; no extra package): a server's threads share a few
connections instead of holding one each.  A connection lost outside a
transaction is replaced and the work tried once more; otherwise the error
is a ``DatabaseError`` and, inside a transaction, nothing of it is kept.

A move's transaction takes two round trips to the server: the ``BEGIN``
with the row's ``FOR UPDATE`` read, then the writes, the notice and the
``COMMIT`` together (``PostgresStorage.later``, psycopg's pipeline mode);
what the block asks meanwhile (the version, the lease) is answered from
that read.  A statement on its own outside a transaction is sent alone,
without ``BEGIN`` and ``COMMIT`` round trips.
"""

from __future__ import annotations

import contextlib
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Jsonb

from yahtzee.domain.card import Card
from yahtzee.domain.games import get_variant
from yahtzee.engine.moves import Notation
from yahtzee.engine.records import Decision, GameRecord, TurnChances, scoring_dice
from yahtzee.storage.fields import FieldError, mapping
from yahtzee.storage.history import (DamagedGameError, HistoryGame, PlayerResult,
                                     _checked_game, _decision, _GameRows, filing_rows,
                                     results_of, with_seats)
from yahtzee.storage.problems import (BadDatabaseError, Damage, DamagedFileError, SaveInUseError,
                                      SaveNotFoundError, StorageError, StorageProblems,
                                      StoredFile)
from yahtzee.storage.saves import (MAX_SAVE_ID, BrowserSeats, NewerVersionError, SaveFile,
                                   delete_unfinished, encode_json, now)
from yahtzee.storage.snapshot import SnapshotError, check_log, record_variant
from yahtzee.storage.steps import STEPS_BEFORE_REWRITE, apply_steps, step_of

T = TypeVar("T")

SCHEMA_VERSION = 3
"""The schema version this program makes; a database of a higher one is refused.

Version 2 adds ``save_steps``: a save's changes since its ``data`` was written whole;
version 3 ``browser_games``: a finished browser game's seats."""
NOTIFY_CHANNEL = "yahtzee_moves"
"""The channel ``notify`` sends a moved game's uid on."""
SAVE_LOCKS = 0x59A7
"""The advisory lock space of the saves: a save's lock is (``SAVE_LOCKS``, its ID)."""
SCHEMA_LOCK = 0x59A8
"""The advisory lock space held while the schema is checked and migrated."""
POOL_SIZE = 4
"""Connections a storage keeps for its work (its locks' and listeners' come on top)."""
POOL_WAIT = 30.0
"""Seconds to wait for a free connection of the pool before giving up."""
CONNECT_TIMEOUT = 5
"""Seconds to wait for the server when connecting."""

_HISTORY = (
    """CREATE TABLE games (
        id serial PRIMARY KEY,
        uid text NOT NULL UNIQUE,
        finished_at timestamptz NOT NULL,
        variant text NOT NULL,
        rules text NOT NULL,
        rounds integer NOT NULL)""",
    """CREATE TABLE players (
        game_id integer NOT NULL REFERENCES games(id),
        seat integer NOT NULL,
        name text NOT NULL,
        kind text NOT NULL,
        total integer NOT NULL,
        upper_bonus integer,
        yahtzee_bonuses integer,
        winner integer NOT NULL,
        PRIMARY KEY (game_id, seat))""",
    """CREATE TABLE card_rows (
        game_id integer NOT NULL REFERENCES games(id),
        seat integer NOT NULL,
        position integer NOT NULL,
        label text NOT NULL,
        value integer NOT NULL,
        dice text,
        PRIMARY KEY (game_id, seat, position))""",
    """CREATE TABLE decisions (
        game_id integer NOT NULL REFERENCES games(id),
        seq integer NOT NULL,
        round integer NOT NULL,
        seat integer NOT NULL,
        dice text NOT NULL,
        saved text NOT NULL,
        rolls_left integer NOT NULL,
        command text NOT NULL,
        points integer,
        label text,
        PRIMARY KEY (game_id, seq))""",
    """CREATE TABLE win_chances (
        game_id integer NOT NULL REFERENCES games(id),
        round integer NOT NULL,
        turn_seat integer NOT NULL,
        seat integer NOT NULL,
        chance double precision NOT NULL,
        PRIMARY KEY (game_id, round, turn_seat, seat))""",
)
_SAVES = (
    f"CREATE SEQUENCE save_ids AS integer MINVALUE 1 MAXVALUE {MAX_SAVE_ID}",
    """CREATE TABLE saves (
        id integer PRIMARY KEY DEFAULT nextval('save_ids'),
        uid text NOT NULL UNIQUE,
        created timestamptz NOT NULL,
        updated timestamptz NOT NULL,
        finished boolean NOT NULL DEFAULT false,
        data jsonb NOT NULL,
        version bigint NOT NULL DEFAULT 1,
        lease_owner text,
        lease_until timestamptz,
        computer_to_play boolean NOT NULL DEFAULT false)""",
    "ALTER SEQUENCE save_ids OWNED BY saves.id",
)
_STEPS = (
    """CREATE TABLE save_steps (
        save_id integer NOT NULL,
        n integer NOT NULL,
        step jsonb NOT NULL,
        PRIMARY KEY (save_id, n))""",
)
_BROWSER_GAMES = (
    """CREATE TABLE browser_games (
        game_id integer PRIMARY KEY REFERENCES games(id),
        seats jsonb NOT NULL)""",
)
MIGRATIONS: tuple[tuple[str, ...], ...] = (_SAVES + _HISTORY, _STEPS, _BROWSER_GAMES)
"""The schema's steps: step ``n`` (from 0) brings a database of version ``n`` to ``n + 1``."""


class DatabaseError(StorageError):
    """The database failed a request (lost, refused, full); nothing of the request is kept."""


class NewerSchemaError(BadDatabaseError):
    """The database was made by a newer program: its schema version is higher than ours."""


def _scrub(text: str, secret: str | None) -> str:
    """Return the first line of ``text`` without ``secret`` (a password) in it."""
    line = text.strip().splitlines()[0] if text.strip() else "no reason given"
    line = re.sub(r"^connection failed: ", "", line)
    return line.replace(secret, "***") if secret else line


class _Thread(threading.local):
    """What one thread is doing with the database: its open transaction, if any."""

    def __init__(self) -> None:
        """Start with no transaction."""
        self.connection: psycopg.Connection[Any] | None = None
        self.save_id: int | None = None
        self.after_commit: list[Callable[[], None]] = []
        self.failed = False
        """Whether a statement of the open transaction failed (it can only be undone)."""
        self.queued: list[tuple[str, Sequence[Any] | Mapping[str, Any]]] = []
        """Statements of the open transaction whose answers nobody waits for (writes,
        notices), sent together with the next statement or with the commit."""
        self.version: int | None = None
        """The version of the transaction's save as its writes left it (None: removed)."""
        self.lease: tuple[str | None, float | None] | None = None
        """The lease on the transaction's save: its owner and seconds left (None: unknown)."""


class _Pool:
    """At most ``size`` open connections, handed out one at a time; broken ones are dropped."""

    def __init__(self, connect: Callable[[], psycopg.Connection[Any]], size: int) -> None:
        """Make connections with ``connect`` when none is idle."""
        self._connect = connect
        self._idle: list[psycopg.Connection[Any]] = []
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """Lend a connection for the block; ``DatabaseError`` if none is free in time."""
        if not self._slots.acquire(timeout=POOL_WAIT):
            raise DatabaseError("every connection to the database is busy")
        connection: psycopg.Connection[Any] | None = None
        try:
            with self._lock:
                connection = self._idle.pop() if self._idle else None
            if connection is None:
                connection = self._connect()
            yield connection
        finally:
            if connection is not None:
                self._give_back(connection)
            self._slots.release()

    def _give_back(self, connection: psycopg.Connection[Any]) -> None:
        """Keep a sound, idle connection for the next one; close any other."""
        if (connection.closed or connection.broken
                or connection.info.transaction_status != psycopg.pq.TransactionStatus.IDLE):
            connection.close()
            return
        with self._lock:
            self._idle.append(connection)

    def close(self) -> None:
        """Close every idle connection."""
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


def _lock_call(function: str) -> str:
    """Return the query of the advisory lock ``function`` on a save (its two keys given)."""
    return f"SELECT {function}(%s, %s)"


_LOCK, _UNLOCK = _lock_call("pg_try_advisory_lock"), _lock_call("pg_advisory_unlock")
_SHARE, _UNSHARE = (_lock_call("pg_try_advisory_lock_shared"),
                    _lock_call("pg_advisory_unlock_shared"))
_HELD_ELSEWHERE = ("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
                   "AND granted AND classid = %s AND objid = %s AND objsubid = 2 "
                   "AND pid <> pg_backend_pid())")
"""Whether another session holds a save's advisory lock, alone or shared (two int4 keys:
``objsubid`` 2), asked without taking it."""


class _Locks:
    """The saves' advisory locks this process holds, on one connection, and which store has each."""

    def __init__(self, connect: Callable[[], psycopg.Connection[Any]], describe: str) -> None:
        """Lock on a connection made by ``connect`` when first needed."""
        self._connect = connect
        self._describe = describe
        self._connection: psycopg.Connection[Any] | None = None
        self._held: dict[int, object] = {}
        self._sharing: dict[int, object] = {}
        """The saves held alongside other server processes (``share``), and by which store."""
        self._mutex = threading.Lock()

    def _ask(self, query: str, save_id: int) -> bool:
        """Run a lock query (``_LOCK`` and the others) on the locks' connection; reconnect once
        if it was lost.

        A new connection takes again the locks the lost one held (those
        another process took meanwhile are let go of: their stores may not
        write any more).
        """
        for attempt in range(2):
            try:
                if self._connection is None or self._connection.closed:
                    self._connection = self._connect()
                    for held in list(self._held):
                        if not self._run(self._connection, _LOCK, held):
                            del self._held[held]
                    for held in list(self._sharing):
                        if not self._run(self._connection, _SHARE, held):
                            del self._sharing[held]
                return self._run(self._connection, query, save_id)
            except psycopg.OperationalError as error:
                if self._connection is not None:
                    self._connection.close()
                self._connection = None
                if attempt:
                    raise DatabaseError(f"the database {self._describe} was lost: "
                                        f"{_scrub(str(error), None)}") from None
        raise AssertionError("unreachable")

    @staticmethod
    def _run(connection: psycopg.Connection[Any], query: str, save_id: int) -> bool:
        """Return what ``query`` (``_LOCK`` and the others) answers for the save ``save_id``."""
        row = connection.execute(query, (SAVE_LOCKS, save_id)).fetchone()
        return bool(row and row[0])

    def take(self, save_id: int, holder: object) -> bool:
        """Lock ``save_id`` for ``holder``; False if another store or process holds it."""
        with self._mutex:
            owner = self._held.get(save_id)
            if owner is not None:
                return owner is holder
            if save_id in self._sharing or not self._ask(_LOCK, save_id):
                return False
            self._held[save_id] = holder
            return True

    def share(self, save_id: int, holder: object) -> bool:
        """Hold ``save_id`` for ``holder`` alongside other server processes.

        A lock ``holder`` has on it becomes this shared hold, with no moment
        free between the two.  False if a store of this process other than
        ``holder`` holds it, or another process holds it alone (``take``): a
        game resumed at the console.
        """
        with self._mutex:
            owner = self._held.get(save_id, self._sharing.get(save_id))
            if owner is not None and owner is not holder:
                return False
            if save_id not in self._sharing:
                if not self._ask(_SHARE, save_id):
                    return False
                self._sharing[save_id] = holder
            if self._held.pop(save_id, None) is not None:
                with contextlib.suppress(DatabaseError):
                    self._ask(_UNLOCK, save_id)
            return True

    def holds(self, save_id: int, holder: object) -> bool:
        """Return whether ``holder`` holds ``save_id``."""
        with self._mutex:
            return self._held.get(save_id) is holder

    def elsewhere(self, save_id: int, holder: object) -> bool:
        """Return whether a store other than ``holder`` (here or in another process) holds it.

        Another process is asked after through ``pg_locks``, not by taking the
        lock a moment: a server taking the game up meanwhile would be refused.
        """
        with self._mutex:
            owner = self._held.get(save_id, self._sharing.get(save_id))
            if owner is not None:
                return owner is not holder
            return self._ask(_HELD_ELSEWHERE, save_id)

    def drop(self, save_id: int, holder: object) -> None:
        """Let go of ``holder``'s lock, or shared hold, on ``save_id`` (nothing if it has none)."""
        with self._mutex:
            for held, unlock in ((self._held, _UNLOCK), (self._sharing, _UNSHARE)):
                if held.get(save_id) is holder:
                    del held[save_id]
                    with contextlib.suppress(DatabaseError):
                        self._ask(unlock, save_id)

    def held_by(self, holder: object) -> list[int]:
        """Return the saves ``holder`` holds."""
        with self._mutex:
            return [save_id for held in (self._held, self._sharing)
                    for save_id, owner in held.items() if owner is holder]

    def close(self) -> None:
        """Close the connection: every lock goes with it."""
        with self._mutex:
            self._held.clear()
            self._sharing.clear()
            if self._connection is not None:
                self._connection.close()
                self._connection = None


class PostgresStorage:
    """One PostgreSQL database for this process: its pool, its locks, and the stores it makes.

    Made from a ``postgresql://`` URL; ``BadDatabaseError`` (one line naming the
    database, never the password) if the URL is not one, the server cannot be
    reached, or the schema is newer than this program's.  The schema is
    created or migrated here.
    """

    shared = True
    """Any number of server processes play the same games through one database."""

    def __init__(self, url: str, *, problems: StorageProblems) -> None:
        """Connect to the database ``url``, bring its schema up to date, report to ``problems``."""
        self.problems = problems
        try:
            params = conninfo_to_dict(url)
        except psycopg.Error:
            raise BadDatabaseError("--database is not a valid PostgreSQL URL "
                                   "(postgresql://user@host:port/database)") from None
        self._url = url
        self._password = str(params.get("password") or "") or None
        host, port = params.get("host"), params.get("port") or 5432
        # no host: libpq's Unix socket, not localhost's TCP port
        where = f"{host}:{port}" if host else f"the local socket (port {port})"
        self.describe = f"{params.get('dbname') or params.get('user') or 'postgres'} at {where}"
        """The database as messages name it: its name, host and port (never the password)."""
        self._thread = _Thread()
        self._pool = _Pool(self.connect, POOL_SIZE)
        self._locks = _Locks(self.connect, self.describe)
        try:
            with self._pool.connection() as connection:
                migrate(connection)
        except psycopg.Error as error:
            self.close()
            raise BadDatabaseError(f"cannot use the database {self.describe}: "
                                   f"{_scrub(str(error), self._password)}") from None
        except StorageError as error:
            self.close()
            raise BadDatabaseError(f"cannot use the database {self.describe}: {error}") from None

    def connect(self) -> psycopg.Connection[Any]:
        """Return a new connection in autocommit mode (a block opens a transaction itself)."""
        return psycopg.connect(self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                               application_name="yahtzee")

    def saves(self) -> PostgresSaves:
        """Return a new saves store, holding locks of its own."""
        return PostgresSaves(self)

    def history(self) -> PostgresHistory:
        """Return the history of finished games."""
        return PostgresHistory(self)

    def close(self) -> None:
        """Close every connection; the locks of this process go with them."""
        self._locks.close()
        self._pool.close()

    # -- running work ------------------------------------------------------
    def _failure(self, error: psycopg.Error) -> DatabaseError:
        """Return the one-line error for ``error`` (without the password)."""
        return DatabaseError(f"the database {self.describe} failed: "
                             f"{_scrub(str(error), self._password)}")

    def run(self, work: Callable[[psycopg.Connection[Any]], T], *, single: bool = False) -> T:
        """Return ``work(connection)``, run in this thread's transaction or in one of its own.

        ``single`` says that ``work`` is one statement: outside a transaction
        it then runs on its own (autocommit), without a ``BEGIN`` and a
        ``COMMIT`` costing a round trip each.  Inside a transaction the
        statements queued by ``later`` are sent first.  Outside a
        transaction, a lost connection is replaced and the work run once
        more; ``DatabaseError`` if it fails again, or fails otherwise.
        """
        current = self._thread.connection
        if current is not None:
            try:
                self._send_queued(current)
                return work(current)
            except psycopg.Error as error:
                self._thread.failed = True
                raise self._failure(error) from None
        for attempt in range(2):
            try:
                with self._pool.connection() as connection:
                    if single:
                        return work(connection)
                    with connection.transaction():
                        return work(connection)
            except psycopg.OperationalError as error:
                if attempt:
                    raise self._failure(error) from None
            except psycopg.Error as error:
                raise self._failure(error) from None
        raise AssertionError("unreachable")

    def later(self, query: str, params: Sequence[Any] | Mapping[str, Any]) -> None:
        """Queue a statement of this thread's transaction whose answer is not needed.

        It is sent with the next statement that is waited for, or with the
        commit, in one round trip (psycopg's pipeline); if it fails, the
        transaction fails as a whole.
        """
        self._thread.queued.append((query, params))

    def _send_queued(self, connection: psycopg.Connection[Any], *then: str) -> None:
        """Send the queued statements, then the statements ``then``, in one round trip."""
        queued, self._thread.queued = self._thread.queued, []
        if not queued and not then:
            return
        with connection.pipeline():
            for query, params in queued:
                connection.execute(query, params)
            for query in then:
                connection.execute(query)

    def read(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """Return ``work(connection)`` run in a read-only snapshot: every query sees one moment."""
        def snapshot(connection: psycopg.Connection[Any]) -> T:
            """Fix the snapshot, then read."""
            connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return work(connection)

        if self._thread.connection is not None:
            return self.run(work)
        return self.run(snapshot)

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once this thread's transaction commits (at once outside one)."""
        if self._thread.connection is None:
            action()
        else:
            self._thread.after_commit.append(action)

    @contextlib.contextmanager
    def transaction(self, save_id: int, query: str, read: Callable[[Any], T]) -> Iterator[T]:
        """Hold the row of ``save_id`` in one transaction for the block; yield what it holds.

        ``query`` (one ``%s``: ``save_id``, no other ``%``) reads the row ``FOR
        UPDATE``; ``read(row)`` (None: no such row) makes what the block
        gets.  It is sent with the ``BEGIN`` in one round trip.  Every ``run`` of this
        thread inside joins the transaction; ``later`` statements are sent
        with the ``COMMIT``, in one round trip too.  Committed on a normal
        exit, rolled back on an exception.
        """
        if self._thread.connection is not None:
            raise StorageError("a transaction is already open in this thread")
        thread = self._thread
        with contextlib.ExitStack() as stack:
            try:
                connection = stack.enter_context(self._pool.connection())
                stack.callback(_undo, connection)
                # BEGIN and the read in one simple query (one round trip, lighter than a
                # pipeline); the ID is an integer, written into it
                cursor = connection.execute("BEGIN; " + query % (int(save_id),))
                cursor.nextset()
                save = read(cursor.fetchone())
                thread.connection, thread.save_id = connection, save_id
                thread.failed, thread.queued = False, []
                try:
                    yield save
                    if thread.failed:
                        raise DatabaseError(f"the database {self.describe} refused a change: "
                                            "nothing of this transaction was kept")
                    self._send_queued(connection, "COMMIT")  # the writes and the commit: one trip
                finally:
                    thread.connection, thread.save_id, thread.queued = None, None, []
                    thread.version = thread.lease = None
            except psycopg.Error as error:
                thread.after_commit.clear()
                raise self._failure(error) from None
            except BaseException:
                thread.after_commit.clear()
                raise
        actions, thread.after_commit = thread.after_commit, []
        for action in actions:
            action()

    def in_transaction_of(self, save_id: int) -> bool:
        """Return whether this thread is inside ``transaction(save_id)``."""
        return self._thread.connection is not None and self._thread.save_id == save_id

    def locked_row(self, version: int, lease: tuple[str | None, float | None] | None) -> None:
        """Note what the transaction's ``FOR UPDATE`` read of its save's row found."""
        self._thread.version, self._thread.lease = version, lease

    @property
    def locked(self) -> _Thread:
        """What this thread's transaction knows of its save's row (``version``, ``lease``)."""
        return self._thread

    def listen(self, callback: Callable[[str], None]) -> Listener:
        """Return a running listener calling ``callback(uid)`` for each game moved."""
        return Listener(self.connect, callback)


def _undo(connection: psycopg.Connection[Any]) -> None:
    """Roll back what is left of a transaction on ``connection`` (closed if that fails)."""
    if connection.closed or connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        return
    try:
        connection.execute("ROLLBACK")
    except psycopg.Error:
        connection.close()


def migrate(connection: psycopg.Connection[Any]) -> int:
    """Bring the database's schema up to ``SCHEMA_VERSION`` in one transaction; return the old one.

    A schema already current is only read: no lock, no statement that
    changes anything, so a role that may only read, or a read-only replica,
    serves ``stats`` and ``analyze``.  Otherwise serialised by an advisory
    lock.  ``NewerSchemaError`` for a newer schema (nothing is changed).
    """
    stored = _stored_version(connection)
    if stored is not None and stored >= SCHEMA_VERSION:
        _check_not_newer(stored)
        return stored
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s, 0)", (SCHEMA_LOCK,))
        connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
        row = connection.execute("SELECT max(version) FROM schema_version").fetchone()
        version = _version_read(row)
        _check_not_newer(version)
        for step in MIGRATIONS[version:]:
            for statement in step:
                connection.execute(statement)
        if version < SCHEMA_VERSION:
            connection.execute("DELETE FROM schema_version")
            connection.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION,))
    return version


def _stored_version(connection: psycopg.Connection[Any]) -> int | None:
    """Return the database's schema version, read only (None: it has no version table)."""
    with connection.transaction():
        made = connection.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
        if not made or not made[0]:
            return None
        row = connection.execute("SELECT max(version) FROM schema_version").fetchone()
    return _version_read(row)


def _version_read(row: Sequence[Any] | None) -> int:
    """Return the schema version ``max(version)`` read (0: none stored).

    ``BadDatabaseError`` if it is no whole number: a ``schema_version``
    table of another program, which this one does not touch.
    """
    value = row[0] if row else None
    if value is None:
        return 0
    try:
        return int(value)
    except (TypeError, ValueError):
        raise BadDatabaseError("its table schema_version is another program's (a version "
                               f"{str(value)[:40]!r}): give this program a database of its "
                               "own") from None


def _check_not_newer(version: int) -> None:
    """``NewerSchemaError`` if ``version`` is newer than this program's schema."""
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(
            f"the database has schema version {version}, newer than this program's "
            f"{SCHEMA_VERSION}: use a newer version of the program")


class Listener:
    """A daemon thread with its own connection, listening for moved games until closed.

    After a lost connection it connects again (every second until it can).
    """

    def __init__(self, connect: Callable[[], psycopg.Connection[Any]],
                 callback: Callable[[str], None]) -> None:
        """Start listening; return once the listener is in place (or after a few seconds)."""
        self._connect = connect
        self._callback = callback
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._listen, name="yahtzee-listener",
                                        daemon=True)
        self._thread.start()
        self._ready.wait(CONNECT_TIMEOUT)

    def _listen(self) -> None:
        """Listen, reconnecting after a failure, until stopped."""
        while not self._stop.is_set():
            try:
                with self._connect() as connection:
                    connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self._ready.set()
                    while not self._stop.is_set():
                        for note in connection.notifies(timeout=0.5):
                            self._tell(note.payload)
            except psycopg.Error:
                self._stop.wait(1.0)

    def _tell(self, uid: str) -> None:
        """Call back with ``uid``; a failing callback does not stop the listener."""
        try:
            self._callback(uid)
        except Exception:  # noqa: BLE001 - the listener outlives one bad call
            pass

    def close(self) -> None:
        """Stop listening and wait for the thread (half a second or so)."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)


class PostgresSaves:
    """The saves in the database, and the locks this store holds on some of them."""

    def __init__(self, storage: PostgresStorage) -> None:
        """Use ``storage``'s connections and locks."""
        self.storage = storage
        self.problems = storage.problems
        self._written: dict[int, tuple[SaveFile, int, int]] = {}
        """For the saves this store wrote: the save as it reads now, its steps, its version."""
        self._mutex = threading.Lock()

    # -- locks -------------------------------------------------------------
    def lock(self, save_id: int) -> None:
        """Hold ``save_id`` for this store; ``SaveInUseError`` if it is open elsewhere."""
        if not self.storage._locks.take(save_id, self):
            raise SaveInUseError(save_id)

    def lock_shared(self, save_id: int) -> None:
        """Hold ``save_id`` alongside the other server processes that play it.

        While any holds it, no store may ``lock`` it (a console cannot resume
        or delete a game a server plays), and while a store locks it, none
        may hold it so.  A lock this store holds becomes this hold.
        ``SaveInUseError`` if the save is locked elsewhere.
        """
        with self._mutex:
            self._written.pop(save_id, None)  # other processes write it too
        if not self.storage._locks.share(save_id, self):
            raise SaveInUseError(save_id)

    def is_open_elsewhere(self, save_id: int) -> bool:
        """Return whether another store, of this process or another, holds ``save_id``."""
        return self.storage._locks.elsewhere(save_id, self)

    def release(self, save_id: int | None = None, *, remove: bool = False) -> None:
        """Let go of the lock on ``save_id`` (None: every lock of this store)."""
        held = [save_id] if save_id is not None else self.storage._locks.held_by(self)
        with self._mutex:
            for one in held:
                self._written.pop(one, None)  # another process may write it next
        for one in held:
            self.storage.after_commit(self._dropper(one))

    def _dropper(self, save_id: int) -> Callable[[], None]:
        """Return what lets go of this store's lock on ``save_id``."""
        return lambda: self.storage._locks.drop(save_id, self)

    # -- writing -----------------------------------------------------------
    def create(self, snapshot: GameRecord, *, uid: str | None = None,
               when: datetime | None = None, browser: BrowserSeats | None = None,
               keep_by: Notation = Notation.POSITIONS) -> SaveFile:
        """Save ``snapshot`` under a new ID, held locked by this store; return the save."""
        moment = when if when is not None else now()
        save_id = self.storage.run(lambda c: int(_one(c, "SELECT nextval('save_ids')")),
                                   single=True)
        if not self.storage._locks.take(save_id, self):
            raise SaveInUseError(save_id)
        save = SaveFile(save_id, uid or uuid.uuid4().hex, moment, moment, False, snapshot,
                        browser, keep_by)
        try:
            self.storage.run(lambda c: c.execute(
                "INSERT INTO saves (id, uid, created, updated, finished, data) "
                "VALUES (%s, %s, %s, clock_timestamp(), false, %s)",
                (save_id, save.uid, moment, Jsonb(save.to_dict(), dumps=encode_json))),
                single=True)
        except BaseException:
            self.storage._locks.drop(save_id, self)
            raise
        self._remember(save, 0, 1)
        return save

    def write(self, save: SaveFile, *, computer_to_play: bool = False,
              replayable: bool = False) -> None:
        """Replace the save ``save.save_id``, and raise its version.

        Only a save this store holds locked, or whose ``transaction`` this
        thread is in, is written: ``SaveInUseError`` otherwise, or if it is gone.
        A game that moved on since this store last wrote it, at the version
        it wrote, gets only the change, as a row of ``save_steps``; the save
        is written whole otherwise (module docstring).  Inside the save's
        ``transaction`` the write is sent with the commit.
        A ``replayable`` write's transaction commits without waiting for the
        disk (``synchronous_commit`` off for that transaction alone):
        it is seen by every process at once, and only a crash of the
        database's machine can undo it.
        """
        save_id = save.save_id
        if self.storage.in_transaction_of(save_id):
            self._write_held(save, computer_to_play, replayable)
            return
        if not self.storage._locks.holds(save_id, self):
            raise SaveInUseError(save_id)
        planned = self._plan(save)
        if planned is not None:
            steps, at, step = planned
            version = self._send(_WRITE_STEP_CHECKED, replayable, {
                **_columns(save, computer_to_play), "n": steps, "version": at,
                "step": Jsonb(step, dumps=encode_json)})
            if version is not None:
                self._remember(save, steps, version)
                self._tell_servers(save)
                return
        version = self._send(_WRITE_WHOLE, replayable, {
            **_columns(save, computer_to_play), "data": Jsonb(save.to_dict(), dumps=encode_json)})
        if version is None:
            raise SaveInUseError(save_id)
        self._remember(save, 0, version)
        self._tell_servers(save)

    def _tell_servers(self, save: SaveFile) -> None:
        """Wake the pages following a browser game written outside its servers (at the console
        that resumed it): their long polls would otherwise wait out their time."""
        if save.browser is not None and save.uid:
            self.notify(save.uid)

    def _write_held(self, save: SaveFile, computer_to_play: bool, replayable: bool) -> None:
        """Write ``save`` inside its transaction: queued, sent with the commit (the row is held)."""
        locked = self.storage.locked
        if locked.version is None:  # removed in this transaction
            raise SaveInUseError(save.save_id)
        if replayable:
            self.storage.later("SET LOCAL synchronous_commit TO OFF", ())
        planned = self._plan(save, locked.version)
        if planned is None:
            steps = 0
            self.storage.later(_WRITE_WHOLE, {**_columns(save, computer_to_play),
                                              "data": Jsonb(save.to_dict(), dumps=encode_json)})
        else:
            steps, _, step = planned
            self.storage.later(_WRITE_STEP, {**_columns(save, computer_to_play), "n": steps,
                                             "step": Jsonb(step, dumps=encode_json)})
        locked.version += 1
        self._remember(save, steps, locked.version)

    def _remember(self, save: SaveFile, steps: int, version: int) -> None:
        """Note that the save now reads as ``save``, with ``steps`` steps, at ``version``."""
        with self._mutex:
            self._written[save.save_id] = (save, steps, version)

    def _plan(self, save: SaveFile,
              version: int | None = None) -> tuple[int, int, dict[str, Any]] | None:
        """Return the step that writes ``save``: its number, the version it follows, the step.

        None when the save must be written whole: this store did not write
        it last (at ``version``, if given), it has ``STEPS_BEFORE_REWRITE``
        steps already, or more than the game changed (as ``SaveStore`` decides).
        """
        with self._mutex:
            written = self._written.pop(save.save_id, None)
        if written is None:
            return None
        before, steps, at = written
        if ((version is not None and version != at) or steps >= STEPS_BEFORE_REWRITE
                or not save.same_but_game(before)):
            return None
        step = step_of(before.snapshot, save.snapshot, steps + 1,
                       save.updated.isoformat(timespec="microseconds"), save.finished)
        return None if step is None else (steps + 1, at, step)

    def _send(self, query: str, replayable: bool, params: dict[str, Any]) -> int | None:
        """Run one write outside a transaction; return the version it made (None: no row).

        A ``replayable`` one is its own transaction with ``synchronous_commit``
        off, sent in one round trip.
        """
        def send(connection: psycopg.Connection[Any]) -> int | None:
            """Write on ``connection``."""
            if not replayable or self.storage.locked.connection is not None:
                row = connection.execute(query, params).fetchone()  # inside: as the block goes
            else:
                try:
                    with connection.pipeline():
                        connection.execute("BEGIN")
                        connection.execute("SET LOCAL synchronous_commit TO OFF")
                        cursor = connection.execute(query, params)
                        connection.execute("COMMIT")
                except BaseException:
                    _undo(connection)
                    raise
                row = cursor.fetchone()
            return None if row is None else int(row[0])

        return self.storage.run(send, single=True)

    def remove(self, save_id: int) -> None:
        """Delete a finished game's save and let go of its lock; no error if it is gone."""
        if self.storage.in_transaction_of(save_id):
            self.storage.later(_REMOVE, {"id": save_id})
            self.storage.locked.version = None
        else:
            self.storage.run(lambda c: c.execute(_REMOVE, {"id": save_id}), single=True)
        self.release(save_id)

    def delete(self, save_id: int) -> SaveFile:
        """Delete the unfinished game ``save_id`` and return it.

        ``SaveInUseError`` if it is open elsewhere, ``SaveNotFoundError`` if
        there is no such unfinished game; each deletes nothing.
        """
        return delete_unfinished(self, save_id, held=self.storage._locks.holds(save_id, self))

    # -- reading -----------------------------------------------------------
    def _parse(self, save_id: int, data: object, steps: str | None = None) -> SaveFile:
        """Return the save ``data`` holds with ``steps`` applied (one per line), or report it as
        damaged (it stays where it is, steps and all)."""
        try:
            if steps:
                data = apply_steps(mapping(data, "the save"), steps + "\n")
            save = SaveFile.from_dict(data)
            if save.save_id != save_id:
                raise SnapshotError("the save's ID does not match its row")
            return save
        except NewerVersionError:
            damage = Damage.NEWER
        except (FieldError, ValueError, RecursionError):
            damage = Damage.CORRUPT
        where = Path(f"{self.storage.describe}/saves/{save_id}")
        self.problems.damaged_file(StoredFile.SAVE, where, damage, None)
        raise DamagedFileError(StoredFile.SAVE, where, damage, None)

    def _loaded(self, save_id: int, row: Sequence[Any] | None, lock: bool = False) -> SaveFile:
        """Return the save ``_LOAD`` read in ``row``; with ``lock``, note its version and lease
        for the transaction holding the row."""
        if row is None:
            raise SaveNotFoundError(save_id)
        if lock:
            self.storage.locked_row(int(row[2]),
                                    (row[3], None if row[4] is None else float(row[4])))
        return self._parse(save_id, row[0], row[1])

    def load(self, save_id: int) -> SaveFile:
        """Return the save ``save_id``; ``SaveNotFoundError`` if there is none."""
        return self._loaded(save_id, self.storage.run(
            lambda c: c.execute(_LOAD, (save_id,)).fetchone(), single=True))

    def exists(self, save_id: int) -> bool:
        """Return whether there is a save ``save_id`` (finished or not)."""
        return self.storage.run(lambda c: c.execute(
            "SELECT 1 FROM saves WHERE id = %s", (save_id,)).fetchone() is not None, single=True)

    def saved_ids(self) -> list[int]:
        """Return the IDs of every save, in increasing order."""
        return self.storage.run(lambda c: [int(row[0]) for row in c.execute(
            "SELECT id FROM saves ORDER BY id")], single=True)

    def unfinished(self) -> list[SaveFile]:
        """Return the unfinished games' saves, the most recently played first (damaged left out)."""
        rows = self.storage.run(lambda c: c.execute(
            f"SELECT id, {_SAVE_COLUMNS} FROM saves WHERE NOT finished ORDER BY id").fetchall(),
            single=True)
        saves = []
        for save_id, data, steps in rows:
            try:
                saves.append(self._parse(int(save_id), data, steps))
            except StorageError:
                continue
        return sorted((s for s in saves if not s.finished), key=lambda s: s.sort_key,
                      reverse=True)

    def changed_at(self, save_id: int) -> float:
        """Return the database's time of the save's last write, in seconds since the epoch.

        ``SaveNotFoundError`` if there is no such save.
        """
        row = self.storage.run(lambda c: c.execute(
            "SELECT extract(epoch FROM updated) FROM saves WHERE id = %s", (save_id,)).fetchone(),
            single=True)
        if row is None:
            raise SaveNotFoundError(save_id)
        return float(row[0])

    def find_uid(self, uid: str) -> int | None:
        """Return the ID of the save of the game ``uid`` (None: none)."""
        row = self.storage.run(lambda c: c.execute(
            "SELECT id FROM saves WHERE uid = %s", (uid,)).fetchone(), single=True)
        return None if row is None else int(row[0])

    # -- several processes -------------------------------------------------
    def transaction(self, save_id: int) -> contextlib.AbstractContextManager[SaveFile]:
        """Lock the save's row and yield its latest save; the block's writes commit together.

        ``SaveNotFoundError`` if there is no such save.
        """
        return self.storage.transaction(save_id, _LOAD + " FOR UPDATE",
                                        lambda row: self._loaded(save_id, row, lock=True))

    def hold(self, save_id: int) -> contextlib.AbstractContextManager[int]:
        """Lock the save's row and yield its version (nothing read): ``transaction`` for a
        server's copy of a game, usually up to date.

        The transaction also holds the save shared (``lock_shared``) until it
        ends, whatever became of this process's own shared hold (a lock
        connection lost lets the hold go): while a console has the game, no
        server changes it.  ``SaveNotFoundError`` if there is no such save,
        ``SaveInUseError`` if a console has it.
        """
        # a store holding the save alone (this process's lock) needs no shared hold on top,
        # which its own lock, on another connection, would refuse
        shared = ("TRUE" if self.storage._locks.holds(save_id, self)
                  else f"pg_try_advisory_xact_lock_shared({SAVE_LOCKS}, id::integer)")
        return self.storage.transaction(
            save_id, "SELECT version, lease_owner, extract(epoch FROM lease_until - "
            f"clock_timestamp()), {shared} FROM saves WHERE id = %s FOR UPDATE",
            lambda row: self._version_for_update(save_id, row))

    def _version_for_update(self, save_id: int, row: Sequence[Any] | None) -> int:
        """Return the version in the save's locked row (its lease noted for the transaction)."""
        if row is None:
            raise SaveNotFoundError(save_id)
        if not row[3]:
            raise SaveInUseError(save_id)
        self.storage.locked_row(int(row[0]), (row[1], None if row[2] is None else float(row[2])))
        return int(row[0])

    def version_of(self, save_id: int) -> int | None:
        """Return the save's version, raised by every write (None: no such save).

        Inside the save's ``transaction`` it is known without asking: the
        version read with the row's lock, raised by this transaction's writes.
        """
        if self.storage.in_transaction_of(save_id):
            return self.storage.locked.version
        row = self.storage.run(lambda c: c.execute(
            "SELECT version FROM saves WHERE id = %s", (save_id,)).fetchone(), single=True)
        return None if row is None else int(row[0])

    def claim(self, save_id: int, owner: str, seconds: float) -> bool:
        """Take or renew the lease on ``save_id`` for ``owner`` for ``seconds``.

        Granted when the lease is free, lapsed, or already ``owner``'s;
        False otherwise (or when there is no such save).  Inside the save's
        ``hold`` the lease read with the row's lock answers; a lease of
        ``owner``'s with more than half of ``seconds`` left is not renewed,
        and a renewal is sent with the commit.
        """
        lease = self.storage.locked.lease if self.storage.in_transaction_of(save_id) else None
        if lease is None:
            return self.storage.run(lambda c: c.execute(
                "UPDATE saves SET lease_owner = %s, "
                "lease_until = clock_timestamp() + make_interval(secs => %s) "
                "WHERE id = %s AND (lease_owner IS NULL OR lease_owner = %s "
                "OR lease_until < clock_timestamp())",
                (owner, seconds, save_id, owner)).rowcount == 1, single=True)
        holder, left = lease
        if holder is not None and holder != owner and (left is None or left >= 0):
            return False
        if holder != owner or left is None or left < seconds / 2:
            self.storage.later("UPDATE saves SET lease_owner = %s, lease_until = "
                               "clock_timestamp() + make_interval(secs => %s) WHERE id = %s",
                               (owner, seconds, save_id))
            self.storage.locked.lease = (owner, seconds)
        return True

    def release_claim(self, save_id: int, owner: str) -> None:
        """Give up ``owner``'s lease on ``save_id`` (nothing if it holds none)."""
        self.storage.run(lambda c: c.execute(
            "UPDATE saves SET lease_owner = NULL, lease_until = NULL "
            "WHERE id = %s AND lease_owner = %s", (save_id, owner)), single=True)

    def lapsed_computer_games(self) -> list[str]:
        """Return the uids of unfinished games with a computer to play and no live lease."""
        return self.storage.run(lambda c: [str(row[0]) for row in c.execute(
            "SELECT uid FROM saves WHERE NOT finished AND computer_to_play "
            "AND (lease_owner IS NULL OR lease_until < clock_timestamp()) ORDER BY id")],
            single=True)

    def idle_games(self, before: float) -> list[tuple[str, int]]:
        """Return (uid, save ID) of unfinished games without a computer to play, last
        written by ``before`` (seconds since the epoch), oldest first."""
        return self.storage.run(lambda c: [(str(uid), int(save_id)) for uid, save_id in c.execute(
            "SELECT uid, id FROM saves WHERE NOT finished AND NOT computer_to_play "
            "AND updated <= to_timestamp(%s) ORDER BY updated", (before,))], single=True)

    def notify(self, uid: str) -> None:
        """Tell every listener the game ``uid`` moved; inside a transaction, when it commits."""
        query, params = "SELECT pg_notify(%s, %s)", (NOTIFY_CHANNEL, uid)
        if self.storage.locked.connection is not None:
            self.storage.later(query, params)  # sent with the commit, heard once it commits
        else:
            self.storage.run(lambda c: c.execute(query, params), single=True)

    def listen(self, callback: Callable[[str], None]) -> Listener:
        """Call ``callback(uid)`` (in a thread of its own) for each game moved, until closed."""
        return self.storage.listen(callback)


_SET = ("finished = %(finished)s, computer_to_play = %(computer)s, "
        "updated = clock_timestamp(), version = saves.version + 1")
_WRITE_WHOLE = ("WITH gone AS (DELETE FROM save_steps WHERE save_id = %(id)s) "
                f"UPDATE saves SET data = %(data)s, {_SET} WHERE id = %(id)s RETURNING version")
"""Write a save whole, its steps deleted; return its new version (no row: it is gone)."""
_WRITE_STEP = ("WITH step AS (INSERT INTO save_steps VALUES (%(id)s, %(n)s, %(step)s)) "
               f"UPDATE saves SET {_SET} WHERE id = %(id)s RETURNING version")
"""Add a step to a save whose row this transaction holds; return its new version."""
_WRITE_STEP_CHECKED = (
    "WITH held AS (SELECT id FROM saves WHERE id = %(id)s AND version = %(version)s "
    "FOR UPDATE), step AS (INSERT INTO save_steps SELECT id, %(n)s, %(step)s FROM held) "
    f"UPDATE saves SET {_SET} FROM held WHERE saves.id = held.id RETURNING saves.version")
"""Add a step to a save if it is still at ``version``; return its new version (no row: not)."""
_REMOVE = ("WITH gone AS (DELETE FROM save_steps WHERE save_id = %(id)s) "
           "DELETE FROM saves WHERE id = %(id)s")
_SAVE_COLUMNS = ("data, (SELECT string_agg(step::text, E'\\n' ORDER BY n) FROM save_steps "
                 "WHERE save_id = saves.id)")
"""A save's whole data and its steps, one per line (NULL: none)."""
_LOAD = (f"SELECT {_SAVE_COLUMNS}, version, lease_owner, "
         "extract(epoch FROM lease_until - clock_timestamp()) FROM saves WHERE id = %s")
"""A save with its version and lease."""


def _columns(save: SaveFile, computer_to_play: bool) -> dict[str, Any]:
    """Return the parameters of ``_SET`` for ``save``."""
    return {"id": save.save_id, "finished": save.finished, "computer": computer_to_play}


def _one(connection: psycopg.Connection[Any], query: str) -> Any:
    """Return the one value ``query`` selects."""
    row = connection.execute(query).fetchone()
    assert row is not None
    return row[0]


def _utc_text(moment: object) -> object:
    """Return a time as the SQLite history writes it (UTC ISO, to the second); others unchanged."""
    if isinstance(moment, datetime):
        return moment.astimezone(timezone.utc).isoformat(timespec="seconds")
    return moment


_GAMES_QUERY = "SELECT id, uid, finished_at, variant, rules, rounds FROM games"
_PLAYERS_QUERY = ("SELECT game_id, seat, name, kind, total, upper_bonus, yahtzee_bonuses, "
                  "winner FROM players")
_CARDS_QUERY = "SELECT game_id, seat, label, value, dice FROM card_rows"
_CHANCES_QUERY = "SELECT game_id, round, turn_seat, seat, chance FROM win_chances"
_DECISIONS_QUERY = ("SELECT game_id, round, seat, dice, saved, rolls_left, command, points, "
                    "label FROM decisions")


def _grouped(rows: Sequence[Sequence[Any]]) -> dict[int, list[tuple[Any, ...]]]:
    """Return rows whose first cell is a game's ID grouped by it, that cell left out."""
    grouped: dict[int, list[tuple[Any, ...]]] = {}
    for row in rows:
        grouped.setdefault(int(row[0]), []).append(tuple(row[1:]))
    return grouped


class PostgresHistory:
    """The finished games in the database, filed and checked as the SQLite history does."""

    def __init__(self, storage: PostgresStorage) -> None:
        """Use ``storage``'s connections."""
        self.storage = storage
        self.problems = storage.problems
        self._reported: set[int] = set()

    def _left_out(self, game_id: int, reason: str) -> None:
        """Report the game ``game_id`` as damaged (once per game)."""
        if game_id not in self._reported:
            self._reported.add(game_id)
            self.problems.damaged_game(Path(self.storage.describe), game_id, reason)

    # -- writing -------------------------------------------------------------
    def record(self, game: GameRecord, *, uid: str, finished_at: datetime | None = None,
               chances: Sequence[TurnChances] = (), browser: BrowserSeats | None = None) -> int:
        """File the finished ``game`` under ``uid`` (with a ``browser`` game's seats); return
        its ID in the history.

        As the SQLite history does: a game already filed under ``uid`` is not
        filed twice (reported); one played differently is filed under a new
        unique ID.  The unique ``uid`` column refuses a second filing by
        another process at the same moment, which is then read as filed.
        ``DatabaseError`` if it cannot be written; ``SnapshotError`` or
        ``ValueError`` for a record or chances that are not a possible game.
        """
        moment = finished_at if finished_at is not None else datetime.now(timezone.utc)
        cards, rows = filing_rows(game, chances, browser)
        first, game_id = self.storage.run(
            lambda c: self._file(c, game, uid, moment, cards, rows))
        if first is not None:
            self.problems.filed_twice(first, None if game_id == first else game_id)
        return game_id

    def _file(self, connection: psycopg.Connection[Any], game: GameRecord, uid: str,
              moment: datetime, cards: Sequence[Card], rows: _GameRows) -> tuple[int | None, int]:
        """File the game unless filed already; return (the earlier ID or None, its ID)."""
        for _attempt in range(2):
            row = connection.execute("SELECT id FROM games WHERE uid = %s", (uid,)).fetchone()
            if row is not None:
                first = int(row[0])
                if self._same(connection, first, rows):
                    return first, first
                return first, self._insert(connection, game, uuid.uuid4().hex, moment, cards,
                                           rows)
            try:
                with connection.transaction():
                    return None, self._insert(connection, game, uid, moment, cards, rows)
            except pg_errors.UniqueViolation:
                continue  # filed by another process this moment: read it as filed
        raise DatabaseError(f"the game {uid} could not be filed")

    @staticmethod
    def _same(connection: psycopg.Connection[Any], game_id: int, rows: _GameRows) -> bool:
        """Return whether the filed game ``game_id`` has these players and decisions."""
        players = [tuple(row) for row in connection.execute(
            "SELECT seat, name, kind, total, upper_bonus, yahtzee_bonuses, winner FROM players "
            "WHERE game_id = %s ORDER BY seat", (game_id,))]
        decisions = [tuple(row) for row in connection.execute(
            "SELECT round, seat, dice, saved, rolls_left, command, points, label "
            "FROM decisions WHERE game_id = %s ORDER BY seq", (game_id,))]
        return (players, decisions) == (rows.players, [row[1:] for row in rows.decisions])

    @staticmethod
    def _insert(connection: psycopg.Connection[Any], game: GameRecord, uid: str,
                moment: datetime, cards: Sequence[Card], rows: _GameRows) -> int:
        """Insert one game's rows (inside the caller's transaction) and return its ID."""
        variant = record_variant(game)
        game_id = int(_one_with(connection,
                                "INSERT INTO games (uid, finished_at, variant, rules, rounds) "
                                "VALUES (%s, %s, %s, %s, %s) RETURNING id",
                                (uid, moment, variant.name, variant.rules_name, variant.rounds)))
        dice = [scoring_dice(game.log, seat, variant) for seat in range(len(cards))]
        with connection.cursor() as cursor:
            cursor.executemany("INSERT INTO players VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                               [(game_id, *row) for row in rows.players])
            cursor.executemany(
                "INSERT INTO card_rows VALUES (%s, %s, %s, %s, %s, %s)",
                [(game_id, seat, position, label, value, dice[seat].get(label))
                 for seat, card in enumerate(cards)
                 for position, (label, value) in enumerate(card.rows())])
            cursor.executemany(
                "INSERT INTO decisions VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [(game_id, *row) for row in rows.decisions])
            cursor.executemany("INSERT INTO win_chances VALUES (%s, %s, %s, %s, %s)",
                               [(game_id, *row) for row in rows.chances])
        if rows.seats is not None:
            connection.execute("INSERT INTO browser_games VALUES (%s, %s::jsonb)",
                               (game_id, rows.seats))
        return game_id

    # -- reading -------------------------------------------------------------
    def game_ids(self) -> list[int]:
        """Return the IDs of the finished games, oldest first."""
        return self.storage.read(lambda c: [int(row[0]) for row in c.execute(
            "SELECT id FROM games ORDER BY id")])

    def games(self) -> list[HistoryGame]:
        """Return every sound finished game's metadata, oldest first (damaged ones reported)."""
        def fetch(connection: psycopg.Connection[Any]) -> list[list[tuple[Any, ...]]]:
            """Read the four tables in one snapshot."""
            return [connection.execute(query).fetchall() for query in (
                f"{_GAMES_QUERY} ORDER BY id", f"{_PLAYERS_QUERY} ORDER BY game_id, seat",
                f"{_CARDS_QUERY} ORDER BY game_id, seat, position",
                f"{_CHANCES_QUERY} ORDER BY game_id, round, turn_seat, seat")]

        games_rows, player_rows, card_rows, chance_rows = self.storage.read(fetch)
        players, cards, chances = (_grouped(rows)
                                   for rows in (player_rows, card_rows, chance_rows))
        games = []
        for row in games_rows:
            game_id = int(row[0])
            try:
                games.append(_checked_game((row[0], row[1], _utc_text(row[2]), *row[3:]),
                                           players.get(game_id, []), cards.get(game_id, []),
                                           chances.get(game_id, [])))
            except FieldError as error:
                self._left_out(game_id, str(error))
        return games

    def id_of(self, uid: str) -> int | None:
        """Return the ID of the finished game ``uid`` (None: not filed, or unreadable now)."""
        try:
            row = self.storage.run(lambda c: c.execute(
                "SELECT id FROM games WHERE uid = %s", (uid,)).fetchone())
        except DatabaseError:
            return None
        return None if row is None else int(row[0])

    def load_game(self, game_id: int) -> tuple[HistoryGame, list[Decision]]:
        """Return a finished game's metadata and decisions.

        ``LookupError`` if unknown (or impossible: reported, ``DamagedGameError``).
        """
        def fetch(connection: psycopg.Connection[Any]) -> list[list[tuple[Any, ...]]]:
            """Read the game's rows in one snapshot."""
            where = (game_id,)
            return [connection.execute(query, where).fetchall() for query in (
                f"{_GAMES_QUERY} WHERE id = %s",
                f"{_PLAYERS_QUERY} WHERE game_id = %s ORDER BY seat",
                f"{_CARDS_QUERY} WHERE game_id = %s ORDER BY seat, position",
                f"{_CHANCES_QUERY} WHERE game_id = %s ORDER BY round, turn_seat, seat",
                f"{_DECISIONS_QUERY} WHERE game_id = %s ORDER BY seq",
                "SELECT game_id, seats FROM browser_games WHERE game_id = %s")]

        games, players, cards, chances, decisions, seats = self.storage.read(fetch)
        if not games:
            raise LookupError(f"no finished game has the ID {game_id}")
        row = games[0]
        try:
            meta = _checked_game((row[0], row[1], _utc_text(row[2]), *row[3:]),
                                 [r[1:] for r in players], [r[1:] for r in cards],
                                 [r[1:] for r in chances])
            log = [_decision(r[1:]) for r in decisions]
            check_log(get_variant(meta.variant, meta.rules), len(meta.players), log)
        except FieldError as error:
            self._left_out(game_id, str(error))
            raise DamagedGameError(
                f"game {game_id} of the history is damaged ({error})") from None
        return with_seats(meta, seats[0][1] if seats else None), log

    def results(self) -> list[PlayerResult]:
        """Return every player's result in every sound finished game."""
        return results_of(self.games())


def _one_with(connection: psycopg.Connection[Any], query: str, params: Sequence[Any]) -> Any:
    """Return the one value ``query`` with ``params`` returns."""
    row = connection.execute(query, params).fetchone()
    assert row is not None
    return row[0]
