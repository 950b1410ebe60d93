"""PostgreSQL saves written a step per move: read back exactly, compacted, damaged safely, migrated.

The database's counterpart of ``tests/storage/test_steps.py``, on the
throw-away cluster of ``tests.postgres_fixtures``; the round trips a
move's transaction takes, counted by its ``Relay`` between the program and
the server; and the lease, renewed inside a move's transaction only once
half of it is spent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from tests.helpers import Problems, play_through, script_for, variant_of
from tests.postgres_fixtures import Cluster, Relay
from yahtzee.app.session import Autosave
from yahtzee.engine.engine import Engine
from yahtzee.engine.moves import Notation
from yahtzee.engine.records import GameRecord
from yahtzee.storage.port import Storage, open_storage
from yahtzee.storage.problems import Damage, DamagedFileError, StoredFile
from yahtzee.storage.saves import SaveFile, now
from yahtzee.storage.steps import STEPS_BEFORE_REWRITE

psycopg = pytest.importorskip("psycopg")


def _steps(url: str, save_id: int = 1) -> list[int]:
    """Return the numbers of the save's steps in the database, in order."""
    with psycopg.connect(url, autocommit=True) as connection:
        return [int(row[0]) for row in connection.execute(
            "SELECT n FROM save_steps WHERE save_id = %s ORDER BY n", (save_id,))]


class _Reader:
    """After each write of the game, reads its save back through another storage."""

    def __init__(self, url: str) -> None:
        """Read the saves of the database ``url``."""
        self.url = url
        self.storage = open_storage(url, Problems())
        self.read: list[tuple[GameRecord, GameRecord, list[int]]] = []
        """Per move: the game as it stood, as read back, and the save's steps."""

    def changed(self, engine: Engine) -> None:
        """Read the save the observer before this one has just written (none before a move)."""
        if engine.log:
            back = self.storage.saves().load(1).snapshot
            self.read.append((engine.record(), back, _steps(self.url)))

    def finished(self, engine: Engine) -> None:
        """Nothing to read: the save is filed and removed."""


@pytest.fixture
def database(postgres_url: str) -> Iterator[Storage]:
    """A storage on a fresh database."""
    storage = open_storage(postgres_url, Problems())
    yield storage
    storage.close()


def _played(storage: Storage, url: str, commands: int, seed: int = 7,
            rules: str = "course") -> tuple[_Reader, SaveFile]:
    """Play ``commands`` commands of a seeded game saved in ``storage``, read back each time."""
    reader = _Reader(url)
    saver = Autosave(storage.saves())
    try:
        play_through(seed, variant_of(rules), script_for(seed, rules)[:commands],
                     observers=[saver, reader])
    finally:
        reader.storage.close()
    assert saver.save is not None
    return reader, saver.save


def test_every_write_reads_back_as_the_game_stood(database: Storage, postgres_url: str) -> None:
    """Each move adds one step, read back exactly elsewhere, until the save is written whole."""
    reader, _ = _played(database, postgres_url, 120, seed=12, rules="official")
    assert [back for _, back, _ in reader.read] == [record for record, _, _ in reader.read]
    counts = [len(steps) for _, _, steps in reader.read]
    assert counts[:3] == [0, 1, 2]  # the first move makes the save, whole
    assert counts[STEPS_BEFORE_REWRITE] == STEPS_BEFORE_REWRITE
    assert counts[STEPS_BEFORE_REWRITE + 1] == 0  # written whole, the steps deleted
    assert counts[-1] == (len(counts) - 1) % (STEPS_BEFORE_REWRITE + 1)
    assert all(steps == list(range(1, len(steps) + 1)) for _, _, steps in reader.read)


def _later(save: SaveFile, commands: int) -> SaveFile:
    """Return ``save`` moved on: the same seeded game after ``commands`` commands."""
    game = play_through(7, variant_of("course"), script_for(7, "course")[:commands]).game
    return replace(save, updated=now(), snapshot=game.engine.record())


def test_writes_in_transactions_add_steps_and_one_undone_is_forgotten(
        database: Storage, postgres_url: str) -> None:
    """A held write adds a step; after one undone, the next write is whole and reads back."""
    store = database.saves()
    save = store.create(_later_base().snapshot)
    with store.hold(save.save_id) as version:
        moved = _later(save, 5)
        store.write(moved)
        assert store.version_of(save.save_id) == version + 1
    assert _steps(postgres_url, save.save_id) == [1]
    with pytest.raises(RuntimeError):
        with store.hold(save.save_id):
            store.write(_later(moved, 6))
            raise RuntimeError("the move failed")
    assert _steps(postgres_url, save.save_id) == [1]
    other = open_storage(postgres_url, Problems())
    assert other.saves().load(save.save_id) == moved
    newer = _later(moved, 7)
    with store.hold(save.save_id):
        store.write(newer)
    assert _steps(postgres_url, save.save_id) == []  # this store's copy was not the stored one
    assert other.saves().load(save.save_id) == newer
    other.close()


def _later_base() -> SaveFile:
    """Return a save of nothing played yet, to move on with ``_later``."""
    game = play_through(7, variant_of("course"), []).game
    moment = now()
    return SaveFile(1, "a" * 32, moment, moment, False, game.engine.record())


def test_a_save_written_by_another_store_is_written_whole(
        database: Storage, postgres_url: str) -> None:
    """Two stores take turns: the first write after the other's is whole, never a step on it."""
    first = database.saves()
    save = first.create(_later(_later_base(), 4).snapshot)
    second = open_storage(postgres_url, Problems())
    other = second.saves()
    first.write(_later(save, 5))
    assert _steps(postgres_url, save.save_id) == [1]
    first.release(save.save_id)
    other.lock(save.save_id)
    taken = _later(save, 6)
    other.write(taken)
    assert _steps(postgres_url, save.save_id) == []
    other.write(_later(save, 7))
    assert _steps(postgres_url, save.save_id) == [1]
    assert database.saves().load(save.save_id).snapshot == _later(save, 7).snapshot
    second.close()


def test_a_change_of_the_way_a_keep_is_typed_is_written_whole(
        database: Storage, postgres_url: str) -> None:
    """``keep_by`` is kept; a write that changes it is whole, the next one a step again."""
    store = database.saves()
    save = store.create(_later(_later_base(), 4).snapshot, keep_by=Notation.FACES)
    moved = _later(save, 5)
    store.write(moved)
    assert _steps(postgres_url, save.save_id) == [1]
    other = open_storage(postgres_url, Problems())
    assert other.saves().load(save.save_id) == moved
    typed = replace(_later(save, 6), keep_by=Notation.POSITIONS)
    store.write(typed)
    assert _steps(postgres_url, save.save_id) == []
    last = _later(typed, 7)
    store.write(last)
    assert _steps(postgres_url, save.save_id) == [1]
    assert other.saves().load(save.save_id) == last
    other.close()


@pytest.mark.parametrize("damage", ["a step lost", "out of order"])
def test_a_damaged_step_is_reported_and_nothing_deleted(
        database: Storage, postgres_url: str, damage: str) -> None:
    """A missing or misplaced step makes the save damaged: reported, its rows left as they are."""
    _played(database, postgres_url, 10)
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        if damage == "a step lost":
            connection.execute("DELETE FROM save_steps WHERE save_id = 1 AND n = 3")
        else:
            connection.execute("UPDATE save_steps SET n = -n WHERE save_id = 1 AND n IN (3, 4)")
            connection.execute("UPDATE save_steps SET n = 7 + n WHERE save_id = 1 AND n < 0")
    before = _steps(postgres_url)
    problems = Problems()
    other = open_storage(postgres_url, problems)
    with pytest.raises(DamagedFileError):
        other.saves().load(1)
    assert other.saves().unfinished() == []
    assert [(what, str(where).rsplit("/", 2)[-2:], how)
            for what, where, how, _ in problems.damaged][:1] == [
        (StoredFile.SAVE, ["saves", "1"], Damage.CORRUPT)]
    assert other.saves().exists(1) and _steps(postgres_url) == before
    other.close()


def test_a_version_1_database_is_migrated_and_its_saves_load(
        postgres_url: str) -> None:
    """A database made by the previous schema gets the steps' table; its saves read and move on."""
    from psycopg.types.json import Jsonb

    from yahtzee.storage.postgres import MIGRATIONS, SCHEMA_VERSION
    save = _later(_later_base(), 9)
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        for statement in MIGRATIONS[0]:
            connection.execute(statement)
        connection.execute("CREATE TABLE schema_version (version integer NOT NULL)")
        connection.execute("INSERT INTO schema_version VALUES (1)")
        connection.execute("INSERT INTO saves (uid, created, updated, data) "
                           "VALUES (%s, %s, %s, %s)",
                           (save.uid, save.created, save.updated, Jsonb(save.to_dict())))
    storage = open_storage(postgres_url, Problems())
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [
            (SCHEMA_VERSION,)] == [(3,)]
        assert connection.execute("SELECT count(*) FROM browser_games").fetchall() == [(0,)]
    store = storage.saves()
    assert store.load(1) == save
    store.lock(1)
    store.write(_later(save, 10))
    store.write(_later(save, 11))
    assert _steps(postgres_url) == [1]  # written whole first: this store had not written it
    reader = open_storage(postgres_url, Problems())
    assert reader.saves().load(1).snapshot == _later(save, 11).snapshot
    reader.close()
    storage.close()


def test_a_move_in_a_held_transaction_takes_two_round_trips(
        postgres_url: str, postgres_cluster: Cluster) -> None:
    """Lock and read the version; write, renew the lease, notify, commit: two trips in all."""
    relay = Relay(postgres_cluster.port)
    url = postgres_url.replace(f":{postgres_cluster.port}/", f":{relay.port}/")
    storage = open_storage(url, Problems())
    try:
        store = storage.saves()
        save = store.create(_later(_later_base(), 4).snapshot)
        store.write(_later(save, 5))
        counts: list[tuple[Any, ...]] = []
        for commands in (6, 7, 8):
            before = relay.trips
            with store.hold(save.save_id) as version:
                claimed = store.claim(save.save_id, "me", 60)
                store.write(_later(save, commands), computer_to_play=True, replayable=True)
                now_at = store.version_of(save.save_id)
                store.notify(save.uid)
            counts.append((relay.trips - before, claimed, now_at == version + 1))
        assert counts == [(2, True, True)] * 3
        assert _steps(url, save.save_id) == [1, 2, 3, 4]
        other = open_storage(postgres_url, Problems())
        assert not other.saves().claim(save.save_id, "you", 60)  # the lease was taken
        other.close()
    finally:
        storage.close()
        relay.close()


def _lease(url: str, save_id: int) -> tuple[str | None, float | None]:
    """Return the save's lease: its owner and the seconds it has left."""
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute(
            "SELECT lease_owner, extract(epoch FROM lease_until - clock_timestamp()) "
            "FROM saves WHERE id = %s", (save_id,)).fetchone()
    assert row is not None
    return row[0], None if row[1] is None else float(row[1])


def _set_lease(url: str, save_id: int, seconds: float) -> None:
    """Make the save's lease end ``seconds`` from now (in the past if negative)."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("UPDATE saves SET lease_until = clock_timestamp() + "
                           "make_interval(secs => %s) WHERE id = %s", (seconds, save_id))


def test_a_held_claim_renews_the_lease_only_once_half_of_it_is_spent(
        database: Storage, postgres_url: str) -> None:
    """Inside the row's hold: granted to its owner, renewed below half; others wait for a lapse."""
    store = database.saves()
    save = store.create(_later_base().snapshot)

    def claim(owner: str) -> bool:
        """Claim the lease for 60 seconds inside the row's hold."""
        with store.hold(save.save_id):
            return store.claim(save.save_id, owner, 60)

    assert claim("one")
    owner, left = _lease(postgres_url, save.save_id)
    assert owner == "one" and left is not None and 55 < left <= 60
    _set_lease(postgres_url, save.save_id, 40)
    assert claim("one") and not claim("two")
    owner, left = _lease(postgres_url, save.save_id)
    assert owner == "one" and left is not None and 35 < left <= 40  # more than half left: kept
    _set_lease(postgres_url, save.save_id, 20)
    assert claim("one")
    owner, left = _lease(postgres_url, save.save_id)
    assert owner == "one" and left is not None and 55 < left <= 60  # renewed
    _set_lease(postgres_url, save.save_id, -1)
    assert claim("two")
    assert _lease(postgres_url, save.save_id)[0] == "two"
