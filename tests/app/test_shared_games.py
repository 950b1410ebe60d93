"""Browser games shared by several server processes through one PostgreSQL database.

Each "server" here is a ``BrowserGames`` with its own ``PostgresStorage``
(its own connections, locks and lease owner) on the same database, as two
processes would have.  The dice are seeded and checked against an
independent generator; the games' one record is the database row.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import Problems
from yahtzee.app import browser
from yahtzee.app.browser import BrowserGames, Denial, GameRequestError, Settings
from yahtzee.app.session import Solvers
from yahtzee.domain.games import get_variant
from yahtzee.engine.engine import Phase
from yahtzee.engine.moves import Move
from yahtzee.players.kinds import COMPUTER, HUMAN
from yahtzee.players.players import ComputerPlayer
from yahtzee.solver.cache import Solution
from yahtzee.storage.port import Storage, open_storage
from yahtzee.storage.problems import SaveInUseError

COURSE = get_variant("yahtzee", "course")


@pytest.fixture
def servers(postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
            ) -> Iterator[tuple[BrowserGames, BrowserGames]]:
    """Two servers on one database, each with its own storage; closed at the end."""
    monkeypatch.setenv("YAHTZEE_DATA_DIR", str(tmp_path))
    storages: list[Storage] = [open_storage(postgres_url, Problems()) for _ in range(2)]
    first, second = (BrowserGames(Solvers(), Problems(), storage=s) for s in storages)
    yield first, second
    for games, storage in zip((first, second), storages):
        games.close()
        storage.close()


class Heard:
    """A listener's callback noting the games a server process is told of."""

    def __init__(self) -> None:
        """Start with nothing heard."""
        self.games: list[str] = []
        self.woken = threading.Event()
        """Set once anything is heard."""

    def __call__(self, game_id: str) -> None:
        """Note that ``game_id`` was told of."""
        self.games.append(game_id)
        self.woken.set()


def solo(seed: int) -> Settings:
    """Return the settings of a seeded game of one person without the coach."""
    return Settings(COURSE, (HUMAN,), ("Ann",), seed, coach=False)


def test_a_game_made_on_one_server_is_played_move_by_move_on_both(
        servers: tuple[BrowserGames, BrowserGames]) -> None:
    a, b = servers
    made = a.create(solo(7))
    secret = made.secrets[0][0]
    game = made.table.game_id
    dice = random.Random(7)
    first = tuple(dice.randint(1, 6) for _ in range(5))
    on_b = b.get(game)
    assert on_b.view().dice == first == made.table.view().dice
    on_b.act(secret, Move.toggle(1))          # die 1 saved, on B
    view = made.table.act(secret, Move.roll())  # rolled on A, which catches up first
    rolled = (first[0], *(dice.randint(1, 6) for _ in range(4)))
    assert view.dice == rolled and view.saved[0] and view.rolls_left == 1
    assert on_b.view().dice == rolled and on_b.view().version == view.version
    on_b.act(secret, Move.score())
    after = made.table.act(secret, Move.box(13))  # Chance, on A
    assert after.round == 2 and after.seats[0].total == sum(rolled)
    assert on_b.view().seats[0].total == sum(rolled)


def test_a_page_drawn_before_a_move_elsewhere_is_stale_and_changes_nothing(
        servers: tuple[BrowserGames, BrowserGames]) -> None:
    a, b = servers
    made = a.create(solo(3))
    secret = made.secrets[0][0]
    drawn = made.table.view().version
    b.get(made.table.game_id).act(secret, Move.toggle(2), drawn)
    with pytest.raises(GameRequestError) as refused:
        made.table.act(secret, Move.toggle(3), drawn)
    assert refused.value.denial is Denial.STALE
    assert made.table.view().saved == (False, True, False, False, False)


def test_moves_sent_at_once_to_two_servers_are_serialized_by_the_database(
        servers: tuple[BrowserGames, BrowserGames]) -> None:
    a, b = servers
    made = a.create(solo(5))
    secret, version = made.secrets[0][0], made.table.view().version
    tables = (made.table, b.get(made.table.game_id))
    results: list[str] = []

    def toggle(n: int) -> None:
        try:
            tables[n].act(secret, Move.toggle(n + 1), version)
            results.append("done")
        except GameRequestError as error:
            results.append(error.denial.name)

    threads = [threading.Thread(target=toggle, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["STALE", "done"]
    assert sum(made.table.view().saved) == sum(tables[1].view().saved) == 1


def test_a_finished_game_is_filed_once_and_the_other_server_shows_its_end(
        servers: tuple[BrowserGames, BrowserGames]) -> None:
    a, b = servers
    made = a.create(solo(9))
    secret, game = made.secrets[0][0], made.table.game_id
    on_b = b.get(game)
    for turn in range(13):
        table = made.table if turn % 2 else on_b
        table.act(secret, Move.score())
        view = table.act(secret, Move.box(table.view().offers[0].number))
    assert view.phase is Phase.OVER
    assert table.view().seats[0].total == view.seats[0].total  # its own end stands
    other = on_b if table is made.table else made.table
    with pytest.raises(GameRequestError) as gone:
        other.view()
    assert gone.value.denial is Denial.UNKNOWN_GAME
    final, seats = b.finished(game, secret)
    assert final.phase is Phase.OVER and final.seats[0].total == view.seats[0].total
    assert seats == {0} and b.finished(game, "wrong")[1] == set()
    assert [g.uid for g in a.storage.history().games()] == [game]


def test_a_server_stopping_gives_up_its_computers_leases_at_once(
        servers: tuple[BrowserGames, BrowserGames], course: Solution) -> None:
    a, b = servers
    made = a.create(Settings(COURSE, (COMPUTER, HUMAN), ("Cy", "Ann"), 4, coach=False))
    game = made.table.game_id
    assert made.table.computer_step()            # A holds the lease on the computer's turn
    assert game not in b.store.lapsed_computer_games()
    a.close()
    assert game in b.store.lapsed_computer_games()  # free before it would have lapsed
    on_b = b.get(game)
    assert on_b.computer_step()


def test_one_server_plays_a_computer_until_its_lease_lapses_then_another_takes_over(
        servers: tuple[BrowserGames, BrowserGames], course: Solution,
        monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = servers
    monkeypatch.setattr(browser, "LEASE_SECONDS", 3.0)
    made = a.create(Settings(COURSE, (COMPUTER, HUMAN), ("Cy", "Ann"), 4, coach=False))
    game = made.table.game_id
    on_b = b.get(game)
    for player in on_b.live.players:             # B's computer ready before A's lease starts
        if isinstance(player, ComputerPlayer):
            player.prepare()
    assert made.table.computer_step()            # A plays the computer's first move
    assert not on_b.computer_step()              # B may not while A's lease lives
    assert game not in b.store.lapsed_computer_games()
    version = on_b.view().version
    threading.Event().wait(3.2)                  # A stops: its lease lapses
    assert game in b.store.lapsed_computer_games()
    while on_b.computer_step():                  # B plays the rest of the computer's turn
        pass
    view = on_b.view()
    assert view.version > version and view.seat == 1 and view.round == 1
    assert made.table.view().seats[0].total == view.seats[0].total > 0


def test_a_move_on_one_server_wakes_the_other_within_a_second(
        servers: tuple[BrowserGames, BrowserGames]) -> None:
    a, b = servers
    made = a.create(solo(2))
    hear = Heard()
    listener = a.store.listen(hear)  # returns once it listens
    try:
        b.get(made.table.game_id).act(made.secrets[0][0], Move.toggle(4))
        assert hear.woken.wait(1.0) and hear.games == [made.table.game_id]
    finally:
        listener.close()
    assert made.table.view().saved == (False, False, False, True, False)


def test_the_other_servers_hear_of_a_computer_s_turn_once_at_its_end(
        servers: tuple[BrowserGames, BrowserGames], course: Solution) -> None:
    """A server plays a computer's turn at once and its pages play it back: the others' pages
    must hear of it as a whole too, not of each move as it is made."""
    a, b = servers
    made = a.create(Settings(COURSE, (COMPUTER, HUMAN), ("Cy", "Ann"), 4, coach=False))
    game = made.table.game_id
    hear = Heard()
    listener = b.store.listen(hear)
    try:
        moves = 0
        while made.table.computer_step():
            moves += 1
            if made.table.computer_to_play():
                assert not hear.woken.wait(0.3), "a move in the middle of the turn was told"
        assert moves >= 2 and hear.woken.wait(1.0)
        threading.Event().wait(0.3)
        assert hear.games == [game]
    finally:
        listener.close()
    assert b.get(game).view().seat == 1  # the whole turn is there for the other server


def test_games_abandoned_by_a_server_are_expired_by_another(
        servers: tuple[BrowserGames, BrowserGames]) -> None:
    """Server B expires A's games that nobody plays, whoever holds them; a game moved is kept."""
    a, b = servers
    untouched = a.create(solo(1))
    played = a.create(solo(2))
    secret = played.secrets[0][0]
    played.table.act(secret, Move.toggle(1))
    store = b.store
    made_at = store.changed_at(a.store.find_uid(untouched.table.game_id) or 0)
    moved_at = store.changed_at(a.store.find_uid(played.table.game_id) or 0)
    # An hour for a game never moved, a day for one moved: neither is old enough yet.
    assert b.expire(3600, 86400, now=moved_at + 60) == []
    gone = b.expire(3600, 86400, now=made_at + 3600)
    assert gone == [untouched.table.game_id]
    assert a.store.find_uid(untouched.table.game_id) is None
    assert a.store.find_uid(played.table.game_id) is not None
    with pytest.raises(GameRequestError) as refused:
        untouched.table.view()  # A's copy learns that its game is gone
    assert refused.value.denial is Denial.UNKNOWN_GAME
    assert b.expire(3600, 86400, now=moved_at + 86400) == [played.table.game_id]
    assert b.expire(3600, 86400, now=moved_at + 86400 * 2) == []


def test_a_game_a_server_plays_is_neither_resumed_nor_deleted_at_the_console(
        servers: tuple[BrowserGames, BrowserGames], postgres_url: str) -> None:
    """The servers hold a game they play alongside each other; a console's lock is refused
    until every server let go of it, and while a console holds it no server takes it up."""
    a, b = servers
    made = a.create(solo(6))
    game = made.table.game_id
    b.get(game)                                   # both servers hold it
    save_id = a.store.find_uid(game)
    assert save_id is not None
    console = open_storage(postgres_url, Problems())
    try:
        saves = console.saves()
        assert saves.is_open_elsewhere(save_id)
        with pytest.raises(SaveInUseError):
            saves.lock(save_id)
        with pytest.raises(SaveInUseError):
            saves.delete(save_id)
        a.forget(game)
        assert saves.is_open_elsewhere(save_id)   # B still plays it
        b.forget(game)
        assert not saves.is_open_elsewhere(save_id)
        saves.lock(save_id)                       # resumed at the console
        with pytest.raises(GameRequestError) as refused:
            a.get(game)
        assert refused.value.denial is Denial.IN_USE   # kept, not "unknown"
        made_at = a.store.changed_at(save_id)
        assert a.expire(3600, 86400, now=made_at + 86400 * 2) == []   # nor swept meanwhile
        saves.release(save_id)
        assert a.get(game).view().round == 1     # let go of: the servers play it again
        assert a.store.find_uid(game) == save_id
    finally:
        console.close()


def test_a_server_whose_lock_connection_was_lost_changes_no_game_a_console_took(
        servers: tuple[BrowserGames, BrowserGames], postgres_url: str) -> None:
    """The shared hold lives on one connection; lost, it lets a console in.  Each move's
    transaction holds the game shared too, so the server's next move is refused, not
    written over the console's game."""
    a, _ = servers
    made = a.create(solo(8))
    secret, game = made.secrets[0][0], made.table.game_id
    save_id = a.store.find_uid(game)
    assert save_id is not None
    locks = a.storage._locks._connection     # type: ignore[attr-defined]
    assert locks is not None
    console = open_storage(postgres_url, Problems())
    try:
        console.saves().is_open_elsewhere(save_id)   # its lock connection made
        pid = locks.info.backend_pid
        with console._locks._connection as other:  # type: ignore[attr-defined]
            other.execute("SELECT pg_terminate_backend(%s)", (pid,))
        saves = console.saves()
        saves.lock(save_id)                          # the console takes the game
        before = a.store.version_of(save_id)
        with pytest.raises(GameRequestError) as refused:
            made.table.act(secret, Move.toggle(1))
        assert refused.value.denial is Denial.IN_USE
        assert a.store.version_of(save_id) == before
        saves.release(save_id)
        assert made.table.act(secret, Move.toggle(1)).saved[0]   # let go of: played again
    finally:
        console.close()


def test_a_copy_that_fails_to_catch_up_keeps_its_hold_on_the_game(
        servers: tuple[BrowserGames, BrowserGames], postgres_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = servers
    made = a.create(solo(9))
    secret, game = made.secrets[0][0], made.table.game_id
    b.get(game).act(secret, Move.toggle(2))      # A's copy is now behind
    b.forget(game)

    def broken(*args: object, **kwargs: object) -> None:
        """Fail as a save the program cannot read would."""
        raise ValueError("unreadable")

    monkeypatch.setattr(browser, "resume_game", broken)
    with pytest.raises(ValueError):
        made.table.refresh()
    monkeypatch.undo()
    save_id = a.store.find_uid(game)
    assert save_id is not None
    console = open_storage(postgres_url, Problems())
    try:
        with pytest.raises(SaveInUseError):
            console.saves().lock(save_id)        # A still plays it
    finally:
        console.close()
    assert made.table.act(secret, Move.toggle(3)).saved[:3] == (False, True, True)


def test_a_console_s_move_in_a_browser_game_wakes_the_servers_pages(
        servers: tuple[BrowserGames, BrowserGames], postgres_url: str) -> None:
    """A console that resumed a browser game tells the servers of each move it saves, as they
    tell each other, so that a page's long poll shows it at once."""
    a, _ = servers
    made = a.create(solo(4))
    game = made.table.game_id
    a.forget(game)
    save_id = a.store.find_uid(game)
    assert save_id is not None
    hear = Heard()
    listener = a.store.listen(hear)
    console = open_storage(postgres_url, Problems())
    try:
        saves = console.saves()
        saves.lock(save_id)
        saves.write(saves.load(save_id))
        assert hear.woken.wait(1.0) and hear.games == [game]
    finally:
        listener.close()
        console.close()
