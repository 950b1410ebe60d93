"""The storage port: the files and PostgreSQL back ends behave alike; PostgreSQL's own duties.

The tests of the ``storage`` fixture run against both back ends; the
PostgreSQL ones use the throw-away cluster of ``tests.postgres_fixtures``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.helpers import Problems, message_of, play_through, run_cli, script_for, variant_of
from tests.postgres_fixtures import Cluster, free_port
from yahtzee.app.browser import BrowserGames, Settings
from yahtzee.app.session import Solvers
from yahtzee.domain.games import get_variant
from yahtzee.engine.moves import Move
from yahtzee.engine.records import GameRecord
from yahtzee.interfaces.reporting import fit_error
from yahtzee.players.kinds import HUMAN
from yahtzee.storage.files import FileStorage
from yahtzee.storage.history import History
from yahtzee.storage.port import BadDatabaseError, Storage, open_storage, without_password
from yahtzee.storage.problems import SaveInUseError, SaveNotFoundError
from yahtzee.storage.saves import BrowserSeats, SaveStore, now
from yahtzee.storage.stats import load_stats

MOMENT = datetime(2026, 5, 1, 12, 30, tzinfo=timezone.utc)


def _record(seed: int, rules: str, moves: int | None = None) -> GameRecord:
    """Return the record of the policy players' seeded game (its first ``moves`` only)."""
    script = script_for(seed, rules)
    run = play_through(seed, variant_of(rules), script[:moves] if moves is not None else script)
    return run.game.engine.record()


@pytest.fixture(params=["files", "postgres"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    """Each back end in turn, empty: the files of a fresh folder, then a fresh database."""
    problems = Problems()
    if request.param == "files":
        made: Storage = FileStorage(tmp_path / "data", problems=problems)
    else:
        made = open_storage(request.getfixturevalue("postgres_url"), problems)
    yield made
    made.close()


def test_saves_are_created_written_listed_and_deleted(storage: Storage) -> None:
    """A save comes back as written; the newest unfinished is the latest; deleting removes it."""
    store = storage.saves()
    first = store.create(_record(3, "course", 5), uid="a" * 32, when=MOMENT)
    second = store.create(_record(4, "course", 8), uid="b" * 32, when=MOMENT)
    assert (first.save_id, second.save_id) == (1, 2)
    assert store.load(1) == first and store.exists(2) and not store.exists(3)
    later = replace(first, updated=now(), snapshot=_record(3, "course", 9))
    store.write(later)
    assert store.load(1) == later
    assert [s.save_id for s in store.unfinished()] == [1, 2]
    assert store.unfinished()[0] == later
    assert store.find_uid("b" * 32) == 2 and store.find_uid("c" * 32) is None
    assert store.changed_at(1) > 0
    assert store.saved_ids() == [1, 2]
    assert store.delete(2) == second
    assert store.saved_ids() == [1]
    with pytest.raises(SaveNotFoundError):
        store.load(2)
    store.remove(1)
    assert store.unfinished() == []
    store.release()


def _named(record: GameRecord) -> GameRecord:
    """Return ``record`` with names of letters beyond ASCII and a control code."""
    names = ("Zoë 🎲", "Ann\n\x1b[2J")
    return replace(record, players=tuple(replace(player, name=name)
                                         for player, name in zip(record.players, names)))


def test_names_beyond_ascii_come_back_as_written(storage: Storage) -> None:
    """Every letter of a name reads back the same, written whole or as a later change."""
    store = storage.saves()
    first = store.create(_named(_record(3, "course", 5)), uid="d" * 32, when=MOMENT)
    assert store.load(1) == first
    later = replace(first, updated=now(), snapshot=_named(_record(3, "course", 9)))
    store.write(later)
    assert store.load(1) == later
    assert [player.name for player in store.load(1).snapshot.players] == ["Zoë 🎲",
                                                                          "Ann\n\x1b[2J"]
    store.release()


def test_a_browser_game_is_filed_with_its_seats_and_others_without(storage: Storage) -> None:
    """The seats come back as filed; seats that do not fit the game are refused when filed."""
    history = storage.history()
    seats = BrowserSeats(4, True, False, (("a" * 64, (0,)), ("b" * 64, (1,))), (0, 1))
    browser_game, other = history.record(_record(7, "course"), uid="1" * 32, browser=seats), \
        history.record(_record(12, "official"), uid="2" * 32)
    assert history.load_game(browser_game)[0].browser == seats
    assert history.load_game(other)[0].browser is None
    assert [game.browser for game in history.games()] == [None, None]  # only load_game reads them
    wrong = BrowserSeats(4, True, False, (("a" * 64, (0, 2)),))
    with pytest.raises(ValueError):
        history.record(_record(21, "course"), uid="3" * 32, browser=wrong)
    assert history.game_ids() == [browser_game, other]


def test_a_save_held_by_one_store_is_refused_to_another(storage: Storage) -> None:
    """The second store may neither lock, write nor delete it until the first lets go."""
    holder, other = storage.saves(), storage.saves()
    save = holder.create(_record(3, "course", 5), when=MOMENT)
    assert other.is_open_elsewhere(save.save_id) and not holder.is_open_elsewhere(save.save_id)
    with pytest.raises(SaveInUseError):
        other.lock(save.save_id)
    with pytest.raises(SaveInUseError):
        other.write(replace(save, updated=now()))
    with pytest.raises(SaveInUseError):
        other.delete(save.save_id)
    assert holder.load(save.save_id) == save
    holder.release()
    assert not other.is_open_elsewhere(save.save_id)
    other.lock(save.save_id)
    assert holder.is_open_elsewhere(save.save_id)
    other.release()


def test_versions_count_the_writes(storage: Storage) -> None:
    """``version_of`` grows with every write; None for a save that is not there."""
    store = storage.saves()
    save = store.create(_record(3, "course", 5), when=MOMENT)
    before = store.version_of(save.save_id)
    assert before is not None
    store.write(replace(save, updated=now()))
    store.write(replace(save, updated=now()))
    assert store.version_of(save.save_id) == before + 2
    assert store.version_of(99) is None
    store.release()


def test_a_server_s_file_saves_keep_nothing_of_the_games_removed(tmp_path: Path) -> None:
    """The counts of writes and the locks a long-running server keeps for its saves go with
    each save removed: memory follows the games there are, not all there ever were."""
    store = FileStorage(tmp_path, problems=Problems()).saves()
    made = [store.create(_record(seed, "course", 5), when=MOMENT) for seed in range(1, 6)]
    for save in made:
        store.write(replace(save, updated=now()))
        with store.hold(save.save_id):
            pass
    kept = SaveStore._versions.copy(), SaveStore._block_locks.copy()
    for save in made[:4]:
        store.remove(save.save_id)
    gone = {(str(store.directory), save.save_id) for save in made[:4]}
    assert set(kept[0]) - set(SaveStore._versions) == gone
    assert set(kept[1]) - set(SaveStore._block_locks) == gone
    last = made[4].save_id
    assert store.version_of(last) == kept[0][(str(store.directory), last)]
    store.release()


@pytest.fixture
def filled(postgres_url: str, tmp_path: Path) -> tuple[Storage, History]:
    """A database and an SQLite history holding the same three finished games."""
    database = open_storage(postgres_url, Problems())
    sqlite = History(tmp_path / "history.sqlite3", problems=Problems())
    for number, (seed, rules) in enumerate([(7, "course"), (8, "official"), (9, "poker")]):
        record = _record(seed, rules)
        uid = f"{number:032x}"
        assert database.history().record(record, uid=uid, finished_at=MOMENT) == number + 1
        assert sqlite.record(record, uid=uid, finished_at=MOMENT) == number + 1
    return database, sqlite


def test_the_database_history_reads_as_the_sqlite_one(filled: tuple[Storage, History]) -> None:
    """The same games give the same metadata, decisions, results and statistics."""
    database, sqlite = filled
    history = database.history()
    assert history.game_ids() == sqlite.game_ids() == [1, 2, 3]
    assert history.games() == sqlite.games()
    assert [g.finished_at for g in history.games()] == ["2026-05-01T12:30:00+00:00"] * 3
    for game_id in (1, 2, 3):
        assert history.load_game(game_id) == sqlite.load_game(game_id)
    assert history.id_of(f"{1:032x}") == 2 and history.id_of("f" * 32) is None
    assert history.results() == sqlite.results()
    assert load_stats(history).to_json() == load_stats(sqlite).to_json()
    with pytest.raises(LookupError):
        history.load_game(4)
    database.close()


def test_a_game_is_filed_once(postgres_url: str) -> None:
    """Filing the same game again under its uid gives its first ID and is reported."""
    problems = Problems()
    database = open_storage(postgres_url, problems)
    record = _record(7, "course")
    history = database.history()
    assert history.record(record, uid="a" * 32) == 1
    assert history.record(record, uid="a" * 32) == 1
    assert problems.twice == [(1, None)]
    other = _record(8, "course")
    assert history.record(other, uid="a" * 32) == 2
    assert problems.twice == [(1, None), (1, 2)]
    assert history.game_ids() == [1, 2]
    database.close()


def test_an_empty_database_gets_the_schema_and_a_newer_one_is_refused(
        postgres_url: str, postgres_cluster: Cluster) -> None:
    """The tables appear with version 1; a database of version 99 is refused, left as it is."""
    import psycopg
    open_storage(postgres_url, Problems()).close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [(3,)]
        tables = {row[0] for row in connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert tables == {"schema_version", "saves", "games", "players", "card_rows",
                          "decisions", "win_chances", "save_steps", "browser_games"}
        connection.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(BadDatabaseError) as refused:
        open_storage(postgres_url, Problems())
    assert str(refused.value).startswith("cannot use the database ")  # its name, host, port
    assert " at 127.0.0.1:" in str(refused.value)
    assert "schema version 99, newer than this program's 3" in str(refused.value)
    assert "\n" not in str(refused.value)
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [(99,)]


def test_a_database_with_another_program_s_schema_version_is_refused_in_one_line(
        postgres_url: str) -> None:
    """A ``schema_version`` table whose version is no number is another program's: refused,
    named, and left as it is (no traceback)."""
    import psycopg
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE schema_version (version text)")
        connection.execute("INSERT INTO schema_version VALUES ('2023.1')")
    with pytest.raises(BadDatabaseError) as refused:
        open_storage(postgres_url, Problems())
    assert str(refused.value).startswith("cannot use the database ")
    assert str(refused.value).endswith(
        "its table schema_version is another program's (a version '2023.1'): give this "
        "program a database of its own")
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [
            ("2023.1",)]
        assert connection.execute("SELECT to_regclass('saves')").fetchone() == (None,)


def test_two_processes_starting_at_once_make_the_schema_once(postgres_url: str) -> None:
    """Storages opened together on an empty database all start; the schema is made once."""
    import psycopg
    errors: list[BaseException] = []

    def start() -> None:
        """Open and close a storage, keeping any error."""
        try:
            open_storage(postgres_url, Problems()).close()
        except BaseException as error:  # noqa: BLE001 - the test reports it
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [(3,)]


def test_a_lock_excludes_another_process(postgres_url: str) -> None:
    """A save locked through one storage (one session) is refused through another until let go."""
    first, second = open_storage(postgres_url, Problems()), open_storage(postgres_url, Problems())
    save = first.saves().create(_record(3, "course", 5))
    other = second.saves()
    assert other.is_open_elsewhere(save.save_id)
    with pytest.raises(SaveInUseError):
        other.lock(save.save_id)
    first.close()  # as when its process ends: the session's locks go with it
    for _ in range(200):  # once the server has ended that session (it does so on its own time)
        if not other.is_open_elsewhere(save.save_id):
            break
        time.sleep(0.025)
    other.lock(save.save_id)
    assert other.load(save.save_id) == save
    second.close()


def test_a_transaction_that_fails_leaves_the_row_as_it_was(postgres_url: str) -> None:
    """A write inside a block that raises is undone; one in a block that ends is kept."""
    database = open_storage(postgres_url, Problems())
    store = database.saves()
    save = store.create(_record(3, "course", 5), when=MOMENT)
    version = store.version_of(save.save_id)
    moved = replace(save, updated=now(), snapshot=_record(3, "course", 6))
    with pytest.raises(RuntimeError):
        with store.transaction(save.save_id) as latest:
            assert latest == save
            store.write(moved)
            raise RuntimeError("the move failed")
    assert store.load(save.save_id) == save and store.version_of(save.save_id) == version
    with store.transaction(save.save_id):
        store.write(moved)
    assert store.load(save.save_id) == moved
    assert store.version_of(save.save_id) == (version or 0) + 1
    database.close()


def test_a_finished_game_is_filed_and_its_save_removed_together(postgres_url: str) -> None:
    """Inside one transaction: the history row and the removal commit together, or neither."""
    database = open_storage(postgres_url, Problems())
    store, history = database.saves(), database.history()
    save = store.create(_record(7, "course", 5), uid="d" * 32)
    finished = _record(7, "course")
    with pytest.raises(RuntimeError):
        with store.transaction(save.save_id):
            history.record(finished, uid=save.uid)
            store.remove(save.save_id)
            raise RuntimeError("lost before the answer")
    assert history.game_ids() == [] and store.exists(save.save_id)
    assert store.is_open_elsewhere(save.save_id) is False  # still held by this store
    with store.transaction(save.save_id):
        history.record(finished, uid=save.uid)
        store.remove(save.save_id)
    assert [history.id_of("d" * 32)] == history.game_ids() and not store.exists(save.save_id)
    database.close()


def test_a_lease_is_kept_by_its_owner_until_it_lapses(postgres_url: str) -> None:
    """Another owner gets the lease only once it lapsed or was released."""
    database = open_storage(postgres_url, Problems())
    store = database.saves()
    save = store.create(_record(3, "course", 5))
    store.write(save, computer_to_play=True)
    assert store.lapsed_computer_games() == [save.uid]
    assert store.claim(save.save_id, "one", 60)
    assert store.lapsed_computer_games() == []
    assert not store.claim(save.save_id, "two", 60)
    assert store.claim(save.save_id, "one", 60)
    store.release_claim(save.save_id, "two")  # not the owner: nothing happens
    assert not store.claim(save.save_id, "two", 60)
    store.release_claim(save.save_id, "one")
    assert store.claim(save.save_id, "two", -1)  # taken, and lapsed at once
    assert store.lapsed_computer_games() == [save.uid]
    assert store.claim(save.save_id, "one", 60)
    store.write(save, computer_to_play=False)
    store.release_claim(save.save_id, "one")
    assert store.lapsed_computer_games() == []
    database.close()


def test_a_notice_reaches_a_listener_and_waits_for_the_commit(postgres_url: str) -> None:
    """``notify`` outside a block is heard; inside one, only once it commits, never if undone."""
    database = open_storage(postgres_url, Problems())
    store = database.saves()
    save = store.create(_record(3, "course", 5), uid="e" * 32)
    heard: list[str] = []
    arrived = threading.Event()

    def hear(uid: str) -> None:
        """Keep the uid heard."""
        heard.append(uid)
        arrived.set()

    listener = store.listen(hear)
    try:
        store.notify("f" * 32)
        assert arrived.wait(5)
        arrived.clear()
        with pytest.raises(RuntimeError):
            with store.transaction(save.save_id):
                store.notify("0" * 32)
                raise RuntimeError("undone")
        with store.transaction(save.save_id):
            store.notify(save.uid)
        assert arrived.wait(5)
        assert heard == ["f" * 32, save.uid]
    finally:
        listener.close()
    database.close()


def test_a_lost_connection_is_replaced_and_the_write_goes_through(
        postgres_url: str, postgres_cluster: Cluster) -> None:
    """The server ends every session of the test's database: the next write still lands."""
    database = open_storage(postgres_url, Problems())
    store = database.saves()
    save = store.create(_record(3, "course", 5))
    name = postgres_url.rsplit("/", 1)[1]
    postgres_cluster.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             f"WHERE datname = '{name}' AND pid <> pg_backend_pid()")
    moved = replace(save, updated=now(), snapshot=_record(3, "course", 6))
    store.write(moved)
    assert store.load(save.save_id) == moved
    database.close()


def test_a_database_that_cannot_be_reached_is_named_without_its_password() -> None:
    """One line with the database, host and port; the password never."""
    port = free_port()
    with pytest.raises(BadDatabaseError) as refused:
        open_storage(f"postgresql://player:s3cret-word@127.0.0.1:{port}/games", Problems())
    message = str(refused.value)
    assert f"games at 127.0.0.1:{port}" in message
    assert "s3cret-word" not in message and "\n" not in message
    with pytest.raises(BadDatabaseError) as refused:   # no host: libpq's Unix socket
        open_storage(f"postgresql://player:s3cret-word@/games?port={port}", Problems())
    assert str(refused.value).startswith(
        f"cannot use the database games at the local socket (port {port}): ")


@pytest.mark.parametrize("url", ["mysql://player:s3cret-word@host/games", "games.sqlite3",
                                 "postgresql://player:s3cret-word@[::1/games?x"])
def test_a_url_of_no_postgresql_database_is_refused(url: str) -> None:
    """Another scheme or a malformed URL: one line, and it does not echo the URL; the hint
    is written one way, without a password (one is better given elsewhere)."""
    with pytest.raises(BadDatabaseError) as refused:
        open_storage(url, Problems())
    assert "s3cret-word" not in str(refused.value) and "\n" not in str(refused.value)
    assert str(refused.value).endswith(" (postgresql://user@host:port/database)")


def test_a_bad_url_in_the_environment_is_named_as_such(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A URL from YAHTZEE_DATABASE, not from an option, is refused naming both places."""
    monkeypatch.setenv("YAHTZEE_DATABASE", "mysql://player:s3cret-word@host/games")
    status, out, err = run_cli(["stats"], "", monkeypatch, capsys)
    assert (status, out) == (2, "")
    assert message_of(err) == ("yahtzee: --database (or YAHTZEE_DATABASE) takes a PostgreSQL "
                               "URL (postgresql://user@host:port/database)")


def test_play_and_stats_use_the_database(
        postgres_url: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A console game played with ``--database`` is filed there, printed as with the files."""
    script = script_for(7, "course")
    reference = play_through(7, variant_of("course"), script)
    status, out, err = run_cli(["--database", postgres_url, "--seed", "7"],
                               "".join(s + "\n" for s in script), monkeypatch, capsys)
    assert (status, err, out) == (0, "", reference.out)
    assert not data.exists()
    monkeypatch.setenv("YAHTZEE_DATABASE", postgres_url)
    status, out, err = run_cli(["stats", "--json"], "", monkeypatch, capsys)
    assert status == 0 and err == ""
    assert '"games": 1' in out
    status, out, err = run_cli(["saves"], "", monkeypatch, capsys)
    assert status == 0 and not data.exists()


def test_a_game_stopped_on_a_database_says_how_to_resume_it_there(
        postgres_url: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The command a stopped game prints names the ``--database`` it was given (never its
    password); a database from YAHTZEE_DATABASE is found there again."""
    script = "".join(s + "\n" for s in script_for(7, "course")[:1])
    status, out, _ = run_cli(["--database", postgres_url, "--seed", "7"], script,
                             monkeypatch, capsys)
    assert status == 0 and out.endswith(
        f"Game saved. To continue it, run: python -m yahtzee --database {postgres_url} "
        "--resume 1\n")
    monkeypatch.setenv("YAHTZEE_DATABASE", postgres_url)
    status, out, _ = run_cli(["--resume", "1"], "", monkeypatch, capsys)
    assert status == 0 and out.endswith(
        "Game saved. To continue it, run: python -m yahtzee --resume 1\n")


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://ann:s3cret@db.example:5433/games", "postgresql://ann@db.example:5433/games"),
    ("postgres://ann@[::1]/games?sslmode=require&password=s3cret",
     "postgres://ann@[::1]/games?sslmode=require"),
    ("postgresql:///games", "postgresql:///games"),
])
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert without_password(url) == shown


def test_a_reader_on_a_read_only_connection_sees_the_games_of_a_current_database(
        postgres_url: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``stats`` and ``saves`` (like ``analyze``) change nothing in a database of the current
    schema, so a read-only replica or role serves them; a database not made yet is refused."""
    read_only = postgres_url + "?options=-c%20default_transaction_read_only%3Don"
    status, out, err = run_cli(["stats", "--database", read_only], "", monkeypatch, capsys)
    assert (status, out) == (2, "") and "read-only transaction" in message_of(err)
    assert err == fit_error(message_of(err)) + "\n"  # one message, within 80 columns
    assert err.startswith("yahtzee: cannot use the database test_")
    script = script_for(7, "course")
    assert run_cli(["--database", postgres_url, "--seed", "7"],
                   "".join(s + "\n" for s in script), monkeypatch, capsys)[0] == 0
    status, out, err = run_cli(["stats", "--json", "--database", read_only], "", monkeypatch,
                               capsys)
    assert (status, err) == (0, "") and '"games": 1' in out
    status, out, err = run_cli(["saves", "--database", read_only], "", monkeypatch, capsys)
    assert (status, out, err) == (0, "No unfinished games.\n", "")


def test_a_bad_database_option_is_one_message_and_writes_nothing(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Each command refuses it with status 2 and one message on standard error, within 80
    columns."""
    port = free_port()
    url = f"postgresql://player:s3cret-word@127.0.0.1:{port}/games"
    for argv in (["--database", url], ["stats", "--database", url], ["saves", "--database", url],
                 ["analyze", "--database", url], ["play", "--database", "games.db"]):
        status, out, err = run_cli(argv, "", monkeypatch, capsys)
        assert (status, out) == (2, "") and err.startswith("yahtzee: ")
        assert err == fit_error(message_of(err)) + "\n"
        assert "s3cret-word" not in err
    monkeypatch.setenv("YAHTZEE_DATABASE", url)
    status, out, err = run_cli([], "", monkeypatch, capsys)
    assert (status, out) == (2, "") and f"games at 127.0.0.1:{port}" in message_of(err)
    assert not data.exists()


def test_the_program_plays_into_the_database_end_to_end(postgres_url: str, tmp_path: Path) -> None:
    """``python -m yahtzee play --database URL`` finishes a game; ``stats`` then shows it."""
    script = "".join(s + "\n" for s in script_for(3, "course"))
    env = {**os.environ, "YAHTZEE_DATA_DIR": str(tmp_path / "data")}
    played = subprocess.run([sys.executable, "-m", "yahtzee", "play", "--database", postgres_url,
                             "--seed", "3"], input=script, capture_output=True, text=True,
                            env=env, timeout=300)
    assert played.returncode == 0 and played.stderr == ""
    shown = subprocess.run([sys.executable, "-m", "yahtzee", "stats", "--database", postgres_url],
                           capture_output=True, text=True, env=env, timeout=300)
    assert shown.returncode == 0 and "Player 1" in shown.stdout
    assert not (tmp_path / "data").exists()


def test_a_browser_game_in_the_database_is_served_by_any_process_and_outlives_them(
        postgres_url: str, data: Path) -> None:
    """A second server takes up a game open in the first at once; it outlives both."""
    settings = Settings(get_variant("yahtzee", "official"), (HUMAN, HUMAN), ("Ann", "Bo"), 11,
                        coach=False)
    storages = [open_storage(postgres_url, Problems()) for _ in range(3)]
    tables = BrowserGames(Solvers(), Problems(), storage=storages[0])
    made = tables.create(settings)
    ann, bo = (secret for secret, _ in made.secrets)
    assert made.table.join(bo)
    made.table.act(ann, Move.toggle(1))
    before = made.table.view()
    second = BrowserGames(Solvers(), Problems(), storage=storages[1])
    assert second.get(made.table.game_id).view().saved == before.saved
    tables.close()
    second.close()
    again = BrowserGames(Solvers(), Problems(), storage=storages[2]).get(made.table.game_id)
    view = again.view()
    assert (view.version, view.dice, view.saved) == (before.version, before.dice, before.saved)
    assert again.seats_of(ann) == {0} and again.seats_of(bo) == {1}
    assert not data.exists()
    for storage in storages:
        storage.close()


def test_a_game_stopped_in_the_database_is_listed_and_resumed(
        postgres_url: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Stopped half way, the game is in ``saves``; ``--resume`` finishes it and files it."""
    script = script_for(7, "course")
    half = len(script) // 2
    status, out, err = run_cli(["--database", postgres_url, "--seed", "7"],
                               "".join(s + "\n" for s in script[:half]), monkeypatch, capsys)
    assert status == 0 and "--resume 1" in out
    status, out, err = run_cli(["saves", "--json", "--database", postgres_url], "", monkeypatch,
                               capsys)
    assert status == 0 and '"id": 1' in out and '"open": false' in out
    status, out, err = run_cli(["--database", postgres_url, "--resume", "1"],
                               "".join(s + "\n" for s in script[half:]), monkeypatch, capsys)
    assert (status, err) == (0, "") and "Resuming game 1" in out
    database = open_storage(postgres_url, Problems())
    assert database.saves().saved_ids() == [] and database.history().game_ids() == [1]
    [game] = database.history().games()
    reference = play_through(7, variant_of("course"), script)
    assert [p.total for p in game.players] == [p.card.score() for p in reference.game.players]
    database.close()
    assert not data.exists()


def test_a_killed_process_leaves_its_game_free(postgres_url: str, tmp_path: Path) -> None:
    """A process holding a game is killed: the game can be locked elsewhere at once after."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from tests.helpers import Problems\n"
         "from tests.storage.test_storage_port import _record\n"
         "from yahtzee.storage.port import open_storage\n"
         "store = open_storage(sys.argv[1], Problems()).saves()\n"
         "print(store.create(_record(3, 'course', 5)).save_id, flush=True)\n"
         "time.sleep(300)\n", postgres_url],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "YAHTZEE_DATA_DIR": str(tmp_path / "data")})
    try:
        assert holder.stdout is not None
        save_id = int(holder.stdout.readline())
        database = open_storage(postgres_url, Problems())
        store = database.saves()
        with pytest.raises(SaveInUseError):
            store.lock(save_id)
    finally:
        holder.kill()
        holder.wait()
    for _ in range(100):  # the server notices the closed connection within moments
        if not store.is_open_elsewhere(save_id):
            break
        threading.Event().wait(0.05)
    store.lock(save_id)
    assert store.load(save_id).save_id == save_id
    database.close()
