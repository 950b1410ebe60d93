"""Save files of unfinished games: one JSON file per game, written atomically.

Each game in progress is one JSON file, ``<data folder>/saves/<id>.json``::

    {"format": "yahtzee-save", "version": 1, "id": 3, "uid": "<32 hex digits>",
     "created": "<UTC ISO time>", "updated": "<UTC ISO time>", "finished": false,
     "game": <record_to_dict(GameRecord)>}

with ``"browser"`` (a game played in the browser: ``BrowserSeats``) and
``"keep_by": "faces"`` (a console game whose keeps are typed as faces)
beside them where they apply.

A new save is written atomically; a later write of the same game by the
same process appends only what changed, one line per write, and the save
is written whole again now and then (``yahtzee.storage.steps``).  A file
whose content cannot be used is
reported and renamed aside (``3.json.corrupt-<time>``); one that cannot be
read (permissions) is reported and left where it is; the other saves
remain usable.

A process playing a game holds the lock ``<id>.lock`` beside its save
(``yahtzee.storage.locks``): a new game's ID is reserved by locking it before
the save is first written, a resumed game's is locked before the save is
read, so that no other process resumes or deletes it meanwhile.  A lock file
is removed only with its save, by the process holding it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from yahtzee.engine.moves import Notation
from yahtzee.engine.records import GameRecord
from yahtzee.storage.paths import data_dir
from yahtzee.storage.atomic import append, write_atomic
from yahtzee.storage.fields import (FieldError, flag, hex_id, listed, mapping, one_of, optional,
                                    refuse, whole, zoned_time)
from yahtzee.storage.locks import FileLock, try_lock
from yahtzee.storage.problems import (Damage, SaveInUseError, SaveNotFoundError, StorageError,
                                      StorageProblems, StoredFile, left_in_place, set_aside)
from yahtzee.storage.snapshot import SnapshotError, record_from_dict, record_to_dict
from yahtzee.storage.steps import STEPS_BEFORE_REWRITE, apply_steps, step_of

_encode_json: Callable[[Any], bytes] | None
try:  # the browser table's extra brings msgspec, whose encoder is several times faster
    import msgspec.json
    _encode_json = msgspec.json.encode
except ImportError:  # the standard library is enough
    _encode_json = None

SAVE_FORMAT = "yahtzee-save"
SAVE_VERSION = 2
"""The newest save format this program reads; a higher one is refused.

Version 2 adds the ``browser`` part of a game played in the browser; a save
without one is still written as version 1, which older programs read.  The
browser part's ``joined`` and ``started`` came later within version 2: a
program that does not know them ignores them, and one that does reads a
save without them as a game already started."""
KEEP_BY = tuple(notation.value for notation in Notation)
"""The values of a save's ``keep_by``: how its people type a keep.  A save without one
(every save of a game kept by positions, and every save before there was one) is kept by
positions; a program that does not know it ignores it."""
SECRET_HASH = re.compile(r"[0-9a-f]{64}")
"""A seat secret's SHA-256, in hex, as a browser game's save keeps it."""
MAX_SAVE_ID = 999_999_999
"""The highest save ID: IDs have at most nine digits, which ``saves`` and ``--resume`` read."""
_SAVE_NAME = re.compile(r"([0-9]{1,9})\.json")
_TAKEN_NAME = re.compile(r"([0-9]{1,9})\.json(\..*)?")


class NewerVersionError(SnapshotError):
    """A file written by a newer version of the program."""


def saves_dir() -> Path:
    """Return the folder of the save files (``saves`` in the data folder)."""
    return data_dir() / "saves"


def now() -> datetime:
    """Return the current time in UTC."""
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class BrowserSeats:
    """What a game played in the browser keeps beside its record: how people reach their seats.

    ``seed`` is the seed the game was made with; ``coach`` and ``hot_seat``
    its settings; ``secrets`` each seat link's secret as its SHA-256 (hex)
    with the seats (from 0) it acts for: the secrets themselves are never stored.
    The first secret is the host's (the game's maker).  ``joined`` are the
    seats whose link has been used; ``started`` says whether the game has
    left its waiting room (every person joined, or the host started it).
    A save written before these two existed holds neither: its game counts
    as started, nobody joined yet.
    """

    seed: int
    coach: bool
    hot_seat: bool
    secrets: tuple[tuple[str, tuple[int, ...]], ...]
    joined: tuple[int, ...] = ()
    started: bool = True

    def to_dict(self) -> dict[str, Any]:
        """Return the seats' part of the save as JSON-able data."""
        return {"seed": self.seed, "coach": self.coach, "hot_seat": self.hot_seat,
                "secrets": [[digest, list(seats)] for digest, seats in self.secrets],
                "joined": list(self.joined), "started": self.started}

    @classmethod
    def from_dict(cls, data: object, players: int) -> BrowserSeats:
        """Return the seats ``data`` describes for a game of ``players``; ``FieldError`` if bad."""
        fields = mapping(data, "the browser part")

        def seat(value: object, name: str) -> int:
            """Return a seat number of this game."""
            return whole(value, name, low=0, high=players - 1)

        def secret(value: object, name: str) -> tuple[str, tuple[int, ...]]:
            """Return one secret's hash with its seats."""
            digest, seats = listed(value, name, length=2)
            if not isinstance(digest, str) or not SECRET_HASH.fullmatch(digest):
                raise refuse(name, digest)
            return digest, tuple(listed(seats, f"{name}'s seats", seat))

        joined = optional(fields.get("joined"), "the seats joined",
                          lambda value, name: listed(value, name, seat))
        started = optional(fields.get("started"), "'started'", flag)
        return cls(whole(fields.get("seed"), "the seed", low=0),
                   flag(fields.get("coach"), "'coach'"),
                   flag(fields.get("hot_seat"), "'hot_seat'"),
                   tuple(listed(fields.get("secrets"), "the secrets", secret)),
                   tuple(sorted(set(joined or ()))), True if started is None else started)


@dataclass(frozen=True)
class SaveFile:
    """One save: its ID, the game's unique ID, when it was created and updated, the game.

    ``browser`` is set for a game played in the browser: its seats' secrets
    and settings, so that the save is the game's one record.  ``keep_by`` is
    how the people at the console type a keep (``--keep-by``), which a
    resumed game goes on with.
    """

    save_id: int
    uid: str
    created: datetime
    updated: datetime
    finished: bool
    snapshot: GameRecord
    browser: BrowserSeats | None = None
    keep_by: Notation = Notation.POSITIONS

    def to_dict(self) -> dict[str, Any]:
        """Return the save as JSON-able data (``keep_by`` only when it is not the default)."""
        data = {"format": SAVE_FORMAT, "version": 1 if self.browser is None else 2,
                "id": self.save_id, "uid": self.uid,
                "created": self.created.isoformat(timespec="microseconds"),
                "updated": self.updated.isoformat(timespec="microseconds"),
                "finished": self.finished, "game": record_to_dict(self.snapshot)}
        if self.browser is not None:
            data["browser"] = self.browser.to_dict()
        if self.keep_by is not Notation.POSITIONS:
            data["keep_by"] = self.keep_by.value
        return data

    def same_but_game(self, before: SaveFile) -> bool:
        """Return whether this save differs from ``before`` in its game alone (and when it was
        updated, and whether it is finished): what a step appended to the save holds
        (``yahtzee.storage.steps``); any other change rewrites the save whole."""
        return ((self.uid, self.created, self.browser, self.keep_by)
                == (before.uid, before.created, before.browser, before.keep_by))

    def to_bytes(self) -> bytes:
        """Return the save file's contents, written whole: one line (``encode_line``)."""
        return encode_line(self.to_dict())

    @classmethod
    def from_dict(cls, data: object) -> SaveFile:
        """Return the save ``data`` describes.

        ``FieldError`` if it is not a save or a field is wrong (``NewerVersionError``
        if a newer program wrote it, ``SnapshotError`` if its game is impossible).
        """
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise SnapshotError("not a yahtzee save")
        version = whole(data.get("version"), "the save's version", low=1)
        if version > SAVE_VERSION:
            raise NewerVersionError(f"save format {version} is newer than {SAVE_VERSION}")
        record = record_from_dict(data.get("game"))
        browser = data.get("browser")
        keep_by = optional(data.get("keep_by"), "'keep_by'",
                           lambda value, name: one_of(value, name, KEEP_BY))
        return cls(whole(data.get("id"), "the save's ID", low=1),
                   hex_id(data.get("uid"), "the save's unique ID"),
                   zoned_time(data.get("created"), "'created'"),
                   zoned_time(data.get("updated"), "'updated'"),
                   flag(data.get("finished"), "'finished'"), record,
                   None if browser is None or version < 2
                   else BrowserSeats.from_dict(browser, len(record.players)),
                   Notation(keep_by or Notation.POSITIONS.value))

    @property
    def sort_key(self) -> tuple[datetime, int]:
        """The order of recency: the last update, then the ID."""
        return self.updated, self.save_id


def encode_json(data: Any) -> bytes:
    """Return JSON-able ``data`` as compact JSON on one line, UTF-8, without a line end.

    Written by msgspec where it is installed (the browser table writes at
    every move), else by the standard library: the same data, read back
    alike (the one difference: msgspec leaves letters beyond ASCII as they
    are, where ``json`` escapes them).
    """
    if _encode_json is not None:
        return _encode_json(data)
    return json.dumps(data, separators=(",", ":")).encode("utf-8")


def encode_line(data: Any) -> bytes:
    """Return JSON-able ``data`` as one line of a file: ``encode_json`` and a line end."""
    return encode_json(data) + b"\n"


def _damage_of_json(text: str, error: json.JSONDecodeError) -> Damage:
    """Return whether a JSON text that does not parse was cut short or is corrupt."""
    if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
        return Damage.TRUNCATED
    return Damage.CORRUPT


def _free_ids(taken: set[int]) -> Iterator[int]:
    """Yield the IDs a new save may take, best first.

    First the IDs after the highest in use, then (past ``MAX_SAVE_ID``) the
    lowest unused ones from 1: IDs are never longer than nine digits.
    """
    start = max(taken, default=0) + 1
    for save_id in itertools.chain(range(start, MAX_SAVE_ID + 1), range(1, start)):
        if save_id not in taken:
            yield save_id


class _NoListener:
    """The listener of the files: no other process moves a game, so nothing is heard."""

    def close(self) -> None:
        """Nothing to stop."""


class _Deletable(Protocol):
    """What ``delete_unfinished`` needs of a store of saves (the files', a database's)."""

    def exists(self, save_id: int) -> bool:
        """Return whether there is a save ``save_id``, finished or not."""
        ...

    def lock(self, save_id: int) -> None:
        """Hold ``save_id``; ``SaveInUseError`` if it is open elsewhere."""
        ...

    def load(self, save_id: int) -> SaveFile:
        """Return the save ``save_id``."""
        ...

    def release(self, save_id: int | None = None, *, remove: bool = False) -> None:
        """Let go of the lock on ``save_id``."""
        ...

    def remove(self, save_id: int) -> None:
        """Delete the save ``save_id`` and let go of its lock."""
        ...


def delete_unfinished(store: _Deletable, save_id: int, *, held: bool) -> SaveFile:
    """Delete the unfinished game ``save_id`` from ``store`` and return what it held.

    ``held`` says whether ``store`` held the save already (then it keeps it
    held if nothing is deleted).  ``SaveNotFoundError`` if there is no such
    unfinished game, ``SaveInUseError`` if it is open elsewhere, or the
    store's error if it cannot be read; each deletes nothing.
    """
    if not store.exists(save_id):
        raise SaveNotFoundError(save_id)
    store.lock(save_id)
    try:
        save = store.load(save_id)
        if save.finished:
            raise SaveNotFoundError(save_id)
    except StorageError:
        if not held:
            store.release(save_id)
        raise
    store.remove(save_id)
    return save


@dataclass(frozen=True)
class PendingAppend:
    """A save's change as the line to append to its file, made but not written
    (``SaveStore.append_later``)."""

    save_id: int
    path: Path
    line: bytes


class SaveStore:
    """The save files in one folder, and the locks this process holds on some of them.

    The primitives for several processes sharing games (``transaction``,
    ``version_of``, ``claim``, ``notify``, ``listen``) are single-process
    here: a save is played by one process at a time, under its file lock.
    """

    _shared_lock = threading.Lock()
    _block_locks: dict[tuple[str, int], threading.RLock] = {}
    """Per folder and save: held by ``transaction``, shared by every store of this process."""
    _versions: dict[tuple[str, int], int] = {}
    """Per folder and save: how many times a store of this process wrote it."""
    _next_ids: dict[str, int] = {}
    """Per folder: the ID the next new save of this process tries first (``_new_ids``)."""

    def __init__(self, directory: Path | None = None, *, problems: StorageProblems) -> None:
        """Use the saves in ``directory`` (default: ``saves_dir()``), reporting to ``problems``."""
        self.directory = directory if directory is not None else saves_dir()
        self.problems = problems
        self._locks: dict[int, FileLock | None] = {}
        """The saves this store holds locked (None: locking failed here, so none is held)."""
        self._written: dict[int, tuple[SaveFile, int]] = {}
        """For the saves this store wrote: the save as its file reads now, and the file's steps."""

    def path(self, save_id: int) -> Path:
        """Return the file of the save ``save_id``."""
        return self.directory / f"{save_id}.json"

    def lock_path(self, save_id: int) -> Path:
        """Return the lock file of the save ``save_id``."""
        return self.directory / f"{save_id}.lock"

    # -- locks -------------------------------------------------------------
    def _try_lock(self, save_id: int) -> bool:
        """Lock ``save_id`` for this store; False if another process (or store) holds it.

        Where the lock file cannot be made (a read-only folder, a file system
        without locks) the lock is granted without locking: saving reports
        any real problem.
        """
        if save_id in self._locks:
            return True
        try:
            lock = try_lock(self.lock_path(save_id))
        except OSError:
            self._locks[save_id] = None
            return True
        if lock is None:
            return False
        self._locks[save_id] = lock
        return True

    def lock(self, save_id: int) -> None:
        """Hold the save ``save_id`` for this store; ``SaveInUseError`` if it is open elsewhere."""
        if not self._try_lock(save_id):
            raise SaveInUseError(save_id)

    def lock_shared(self, save_id: int) -> None:
        """Hold the save as ``lock`` does: one process plays a folder's games."""
        self.lock(save_id)

    def is_open_elsewhere(self, save_id: int) -> bool:
        """Return whether another process (or another store) holds the save ``save_id``."""
        if save_id in self._locks:
            return False
        try:
            lock = try_lock(self.lock_path(save_id))
        except OSError:
            return False
        if lock is None:
            return True
        lock.release()
        return False

    def release(self, save_id: int | None = None, *, remove: bool = False) -> None:
        """Let go of the lock on ``save_id`` (None: on every save this store holds).

        With ``remove``, the lock file is deleted first, while still held.
        """
        for held in ([save_id] if save_id is not None else list(self._locks)):
            self._written.pop(held, None)  # another process may write it next
            lock = self._locks.pop(held, None)
            if lock is not None:
                lock.release(remove=remove)

    # -- writing -----------------------------------------------------------
    def _ensure_folder(self) -> None:
        """Create the saves folder; a file in its way is moved aside first."""
        if os.path.lexists(self.directory) and not self.directory.is_dir():
            set_aside(StoredFile.SAVES_FOLDER, self.directory, Damage.NOT_A_FILE, self.problems)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _taken_ids(self) -> list[int]:
        """Return every ID in use by a save, or by a file kept aside from one."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        return [int(m.group(1)) for m in map(_TAKEN_NAME.fullmatch, names) if m]

    def _new_ids(self) -> Iterator[int]:
        """Yield the IDs a new save may take, best first, each to this caller alone in this process.

        The first comes from this process's count for the folder
        (``_next_ids``), with no look at the folder: a busy table holds
        thousands of files, and listing them took about a millisecond of
        the interpreter's lock for every game made.  The folder is listed
        the first time (per process and folder), when the count runs past
        ``MAX_SAVE_ID``, and once the counted ID turns out to be taken (a
        file or lock of another process, or a file put there by hand); the
        count then goes on after every ID in the folder.
        """
        key = os.path.abspath(self.directory)
        with self._shared_lock:
            counted = key in self._next_ids
        if not counted:
            self._count_after(key, self._taken_ids())
        while True:
            with self._shared_lock:
                save_id = self._next_ids[key]
                self._next_ids[key] = save_id + 1
            if save_id > MAX_SAVE_ID:
                break
            yield save_id
            if counted:  # the count was behind the folder: it goes on after the folder's IDs
                counted = False
                self._count_after(key, self._taken_ids())
        yield from _free_ids(set(self._taken_ids()))

    def _count_after(self, key: str, taken: list[int]) -> None:
        """Move the folder's count (``_next_ids``) past every ID in ``taken``."""
        with self._shared_lock:
            self._next_ids[key] = max(self._next_ids.get(key, 1), max(taken, default=0) + 1)

    def create(self, snapshot: GameRecord, *, uid: str | None = None,
               when: datetime | None = None, browser: BrowserSeats | None = None,
               keep_by: Notation = Notation.POSITIONS) -> SaveFile:
        """Write a new save of ``snapshot`` under a new ID, held locked by this store; return it.

        The ID is the first after every one this process has seen in the
        folder (``_new_ids``: made here, or found in it) that no other
        process has reserved (locked); past ``MAX_SAVE_ID`` it is the lowest
        free one.  An existing file is never replaced, and a removed save's
        ID is not given again while this process runs.
        """
        self._ensure_folder()
        moment = when if when is not None else now()
        for save_id in self._new_ids():
            if save_id in self._locks or not self._try_lock(save_id):
                continue
            save = SaveFile(save_id, uid or uuid.uuid4().hex, moment, moment, False, snapshot,
                            browser, keep_by)
            try:
                write_atomic(self.path(save_id), save.to_bytes(), exclusive=True)
            except FileExistsError:
                self.release(save_id)
                continue
            except BaseException:
                self.release(save_id, remove=True)
                raise
            self._count_write(save_id)
            self._written[save_id] = (save, 0)
            return save
        raise StorageError(f"every save ID up to {MAX_SAVE_ID} is in use")

    def write(self, save: SaveFile, *, computer_to_play: bool = False,
              replayable: bool = False) -> None:
        """Replace the save file of ``save.save_id`` with ``save``, atomically.

        Only a save this store holds (created or locked by it) is written:
        ``SaveInUseError`` otherwise, so that a process never overwrites a
        game that another one has taken over or that has ended meanwhile.
        ``computer_to_play`` matters to a database only: it is not kept here.
        A ``replayable`` write is not waited for on the disk (no ``fsync``).

        A game that moved on since this store last wrote it gets only the
        change, appended to its file (``yahtzee.storage.steps``); the save is
        written whole when it is new to this store, every
        ``STEPS_BEFORE_REWRITE`` steps, when more than the game changed, or
        when appending fails.
        """
        if save.save_id not in self._locks:
            raise SaveInUseError(save.save_id)
        if not self._append(save, durable=not replayable):
            data = save.to_bytes()
            try:
                write_atomic(self.path(save.save_id), data, durable=not replayable)
            except (FileNotFoundError, NotADirectoryError):  # the folder was taken away
                self._ensure_folder()
                write_atomic(self.path(save.save_id), data, durable=not replayable)
            self._written[save.save_id] = (save, 0)
        self._count_write(save.save_id)

    def _append(self, save: SaveFile, *, durable: bool) -> bool:
        """Append what changed since this store's last write of ``save``; return whether done."""
        line = self._line(save)
        written = self._written.pop(save.save_id, None)  # a failed append: a whole write next
        if line is None or written is None:
            return False
        try:
            append(self.path(save.save_id), line, durable=durable)
        except OSError:
            return False
        self._written[save.save_id] = (save, written[1] + 1)
        return True

    def _line(self, save: SaveFile) -> bytes | None:
        """Return the line to append for what changed since this store's last write of ``save``
        (None: it must be written whole); nothing is changed."""
        written = self._written.get(save.save_id)
        if written is None:
            return None
        before, steps = written
        if steps >= STEPS_BEFORE_REWRITE or not save.same_but_game(before):
            return None
        step = step_of(before.snapshot, save.snapshot, steps + 1,
                       save.updated.isoformat(timespec="microseconds"), save.finished)
        return None if step is None else encode_line(step)

    def append_later(self, save: SaveFile) -> PendingAppend | None:
        """Do what ``write`` does, but leave the line's write to the caller: return it, or None
        (nothing done) when the save must be written whole (``write``).

        For a caller that appends and waits for the disk elsewhere
        (``yahtzee.storage.appends``), so that only the making of the line
        is done here.  The store counts the save as written; if the
        caller's append fails, it must call ``append_failed``, then write
        the save (``write``), which then writes it whole.  Only a save this
        store holds: ``SaveInUseError`` otherwise.
        """
        if save.save_id not in self._locks:
            raise SaveInUseError(save.save_id)
        line = self._line(save)
        if line is None:
            return None
        self._written[save.save_id] = (save, self._written[save.save_id][1] + 1)
        self._count_write(save.save_id)
        return PendingAppend(save.save_id, self.path(save.save_id), line)

    def append_failed(self, save_id: int) -> None:
        """Note that the caller's append of ``append_later`` failed: the next write is whole."""
        self._written.pop(save_id, None)

    def remove(self, save_id: int) -> None:
        """Delete the save ``save_id`` (a finished game's); no error if it is gone.

        Its lock, if this store holds it, is let go and its lock file deleted.
        """
        try:
            os.unlink(self.path(save_id))
        except FileNotFoundError:
            pass
        self.release(save_id, remove=True)
        with self._shared_lock:  # a server's registries keep only the saves there are
            self._versions.pop(self._key(save_id), None)
            self._block_locks.pop(self._key(save_id), None)

    def delete(self, save_id: int) -> SaveFile:
        """Delete the unfinished game ``save_id`` and return what it held.

        ``SaveInUseError`` if it is open in another process, ``SaveNotFoundError``
        if there is no such unfinished game, ``DamagedFileError`` (reported
        and moved aside, not deleted) if it cannot be read; each deletes nothing.
        """
        return delete_unfinished(self, save_id, held=save_id in self._locks)

    # -- reading -----------------------------------------------------------
    def load(self, save_id: int) -> SaveFile:
        """Return the save ``save_id``.

        ``SaveNotFoundError`` if there is none; ``DamagedFileError`` (after
        reporting it and moving it aside) if it cannot be used.
        """
        path = self.path(save_id)
        if not os.path.lexists(path):
            raise SaveNotFoundError(save_id)
        if not path.is_file():
            raise set_aside(StoredFile.SAVE, path, Damage.NOT_A_FILE, self.problems)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise SaveNotFoundError(save_id) from None
        except IsADirectoryError:
            raise set_aside(StoredFile.SAVE, path, Damage.NOT_A_FILE, self.problems) from None
        except OSError:
            raise left_in_place(StoredFile.SAVE, path, self.problems) from None
        return self._parse(path, raw, save_id)

    def _parse(self, path: Path, raw: bytes, save_id: int) -> SaveFile:
        """Return the save held in ``raw``, or set the file aside as damaged."""
        damage = Damage.CORRUPT
        try:
            text = raw.decode("utf-8")
            if not text.strip():
                damage = Damage.TRUNCATED
                raise SnapshotError("empty file")
            first, _, tail = text.partition("\n")
            try:
                data = apply_steps(mapping(json.loads(first), "the save"), tail)
            except json.JSONDecodeError:  # not a save with steps: one JSON text, maybe by hand
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as error:
                    damage = _damage_of_json(text, error)
                    raise SnapshotError("not JSON") from None
            damage = Damage.CORRUPT
            save = SaveFile.from_dict(data)
            if save.save_id != save_id:
                raise SnapshotError("the save's ID does not match its name")
        except NewerVersionError:
            raise set_aside(StoredFile.SAVE, path, Damage.NEWER, self.problems) from None
        except (FieldError, ValueError, RecursionError):
            raise set_aside(StoredFile.SAVE, path, damage, self.problems) from None
        return save

    def saved_ids(self) -> list[int]:
        """Return the IDs of the save files in the folder, in increasing order."""
        if not os.path.lexists(self.directory):
            return []
        if not self.directory.is_dir():
            set_aside(StoredFile.SAVES_FOLDER, self.directory, Damage.NOT_A_FILE, self.problems)
            return []
        try:
            names = os.listdir(self.directory)
        except OSError:
            left_in_place(StoredFile.SAVES_FOLDER, self.directory, self.problems)
            return []
        return sorted(int(m.group(1)) for m in map(_SAVE_NAME.fullmatch, names) if m)

    def unfinished(self) -> list[SaveFile]:
        """Return the saves of unfinished games, the most recently played first.

        Damaged files are reported and moved aside; the sound ones are returned.
        """
        saves = []
        for save_id in self.saved_ids():
            try:
                save = self.load(save_id)
            except StorageError:
                continue
            if not save.finished:
                saves.append(save)
        return sorted(saves, key=lambda s: s.sort_key, reverse=True)

    def exists(self, save_id: int) -> bool:
        """Return whether a file of the save ``save_id`` is in the folder (finished or not)."""
        return os.path.lexists(self.path(save_id))

    def changed_at(self, save_id: int) -> float:
        """Return when the save file was last written (epoch seconds); ``OSError`` if none."""
        return os.stat(self.path(save_id)).st_mtime

    def find_uid(self, uid: str) -> int | None:
        """Return the ID of the save of the game ``uid`` (None: none; damaged files are skipped)."""
        for save_id in self.saved_ids():
            try:
                if self.load(save_id).uid == uid:
                    return save_id
            except StorageError:
                continue
        return None

    # -- single-process versions of the primitives for several processes ----
    def _key(self, save_id: int) -> tuple[str, int]:
        """Return the save's key in the registries shared by the stores of this process."""
        return str(self.directory), save_id

    def _count_write(self, save_id: int) -> None:
        """Count one more write of the save ``save_id``."""
        with self._shared_lock:
            key = self._key(save_id)
            self._versions[key] = self._versions.get(key, 0) + 1

    @contextlib.contextmanager
    def transaction(self, save_id: int) -> Iterator[SaveFile]:
        """Hold the save against other threads of this process while the block runs; yield it.

        Writes inside the block happen at once, as everywhere else here.
        """
        with self._shared_lock:
            lock = self._block_locks.setdefault(self._key(save_id), threading.RLock())
        with lock:
            yield self.load(save_id)

    @contextlib.contextmanager
    def hold(self, save_id: int) -> Iterator[int]:
        """Hold the save against other threads of this process while the block runs.

        Yields how many times this process wrote it (``transaction`` without
        reading the file); ``SaveNotFoundError`` if there is no such save.
        """
        with self._shared_lock:
            lock = self._block_locks.setdefault(self._key(save_id), threading.RLock())
        with lock:
            version = self.version_of(save_id)
            if version is None:
                raise SaveNotFoundError(save_id)
            yield version

    def version_of(self, save_id: int) -> int | None:
        """Return how many times this process wrote the save (None: there is no such save)."""
        if not self.exists(save_id):
            return None
        with self._shared_lock:
            return self._versions.get(self._key(save_id), 0)

    def claim(self, save_id: int, owner: str, seconds: float) -> bool:
        """Grant the lease: one process plays every game of its folder, so it is always free."""
        return True

    def release_claim(self, save_id: int, owner: str) -> None:
        """Nothing to give up: leases are not kept in files."""

    def lapsed_computer_games(self) -> list[str]:
        """Return none: no other process left a game whose computer is to play."""
        return []

    def idle_games(self, before: float) -> list[tuple[str, int]]:
        """Return none: the one process that plays these files knows its games."""
        return []

    def notify(self, uid: str) -> None:
        """Tell nobody: no other process watches these files."""

    def listen(self, callback: Callable[[str], None]) -> _NoListener:
        """Return a listener that hears nothing: no other process moves these games."""
        return _NoListener()
