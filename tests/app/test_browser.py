"""The browser table's games: one record per game (the save), restarts, and earlier records.

Games of people alone without the coach need no solver (the coach's
advice to score now is the one test that loads it).  The dice are checked
against an independent generator with the game's seed.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any
from pathlib import Path

import pytest

from tests.helpers import Problems, collector_off, cycles_of_ours
from tests.oracle import ScriptedRandom
from yahtzee.app.browser import (MAX_SECRET, RECENT, BrowserGame, BrowserGames, Denial,
                                 GameRequestError, Settings, hash_secret)
from yahtzee.app.service import LiveGame, new_game
from yahtzee.app.session import Solvers
from yahtzee.domain.games import get_variant
from yahtzee.engine.engine import Engine, Phase
from yahtzee.engine.moves import Move
from yahtzee.players.kinds import COMPUTER, HUMAN
from yahtzee.players.players import ComputerPlayer, HumanPlayer
from yahtzee.interfaces.web.views import COACH_GETTING_READY, state_json
from yahtzee.solver.cache import Solution, forget_loaded
from yahtzee.solver.coach import KeepAdvice
from yahtzee.solver.moments import Moments
from yahtzee.storage.fields import FieldError
from yahtzee.storage.history import History
from yahtzee.storage.saves import BrowserSeats, SaveStore

VARIANT = get_variant("yahtzee", "official")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return a fresh data folder, set for the whole test."""
    monkeypatch.setenv("YAHTZEE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def first_roll(seed: int) -> tuple[int, ...]:
    """Return the first five dice an independent generator seeded ``seed`` throws."""
    generator = random.Random(seed)
    return tuple(generator.randint(1, 6) for _ in range(5))


def two_people(seed: int = 11) -> Settings:
    """Return the settings of a seeded game of two people without the coach."""
    return Settings(VARIANT, (HUMAN, HUMAN), ("Ann", "Bo"), seed, coach=False)


def test_a_new_browser_game_is_saved_at_once_with_its_seats_as_hashes(data: Path) -> None:
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(two_people())
    [save] = SaveStore(problems=Problems()).unfinished()
    assert save.uid == made.table.game_id and save.browser is not None
    assert save.browser.seed == 11 and not save.browser.coach
    assert save.browser.secrets == tuple((hash_secret(secret), seats)
                                         for secret, seats in made.secrets)
    assert save.snapshot.turn is not None and save.snapshot.turn.dice == first_roll(11)
    raw = (data / "saves" / f"{save.save_id}.json").read_text(encoding="utf-8")
    assert all(secret not in raw for secret, _ in made.secrets)
    assert not (data / "web").exists()  # no second file per game
    tables.close()


def test_a_browser_game_goes_on_after_a_restart_with_the_same_seats(data: Path) -> None:
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(two_people())
    ann, bo = (secret for secret, _ in made.secrets)
    assert made.table.join(bo)
    made.table.act(ann, Move.toggle(1))
    before = made.table.view()
    tables.close()
    again = BrowserGames(Solvers(), Problems()).get(made.table.game_id)
    view = again.view()
    assert (view.version, view.dice, view.saved) == (before.version, before.dice, before.saved)
    assert again.seats_of(ann) == {0} and again.seats_of(bo) == {1}
    with pytest.raises(GameRequestError) as refused:
        again.act(bo, Move.roll())
    assert refused.value.denial is Denial.NOT_YOUR_TURN


def test_a_console_save_is_no_browser_game(data: Path) -> None:
    store = SaveStore(problems=Problems())
    players = [HumanPlayer("Ann", VARIANT.new_card()), HumanPlayer("Bo", VARIANT.new_card())]
    console = store.create(Engine(VARIANT, players, seed=3).record())
    store.release(console.save_id)
    tables = BrowserGames(Solvers(), Problems())
    assert tables.known == {}
    for game_id in (console.uid, "0" * 32):
        with pytest.raises(GameRequestError):
            tables.get(game_id)
    assert [save.save_id for save in store.unfinished()] == [console.save_id]


def legacy_file(data: Path, game_id: str, seed: int, secret: str,
                save_id: int | None) -> Path:
    """Write a browser game's file as an earlier version kept it; return its path."""
    folder = data / "web"
    folder.mkdir(exist_ok=True)
    path = folder / f"{game_id}.json"
    path.write_text(json.dumps({
        "format": "yahtzee-web-game", "version": 1, "id": game_id, "game": "yahtzee",
        "rules": "official", "kinds": ["human", "human"], "names": ["Ann", "Bo"],
        "seed": seed, "coach": False, "hot_seat": True, "save_id": save_id,
        "secrets": [[hash_secret(secret), [0, 1]]]}), encoding="utf-8")
    return path


def test_an_earlier_record_of_a_game_without_moves_is_made_again_and_saved(data: Path) -> None:
    game_id = "ab" * 16
    path = legacy_file(data, game_id, 7, "s3cret", None)
    table = BrowserGames(Solvers(), Problems()).get(game_id)
    assert table.view().dice == first_roll(7) and table.seats_of("s3cret") == {0, 1}
    assert not path.exists()
    [save] = SaveStore(problems=Problems()).unfinished()
    assert save.uid == game_id and save.browser is not None and save.browser.hot_seat


def test_an_earlier_record_with_a_save_moves_its_seats_into_the_save(data: Path) -> None:
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(two_people(5))
    secret = made.secrets[0][0]
    made.table.join(made.secrets[1][0])
    made.table.act(secret, Move.roll())
    game_id = made.table.game_id
    tables.close()
    store = SaveStore(problems=Problems())
    [save] = store.unfinished()
    store.lock(save.save_id)
    from dataclasses import replace
    store.write(replace(save, browser=None))  # as an earlier version saved it
    store.release()
    path = legacy_file(data, game_id, 5, "old-secret", save.save_id)
    table = BrowserGames(Solvers(), Problems()).get(game_id)
    assert not path.exists() and table.seats_of("old-secret") == {0, 1}
    assert table.version == made.table.version


def test_an_earlier_record_naming_another_game_s_save_leaves_that_save_free(data: Path) -> None:
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(two_people(5))
    tables.close()
    [save] = SaveStore(problems=Problems()).unfinished()
    path = legacy_file(data, "12" * 16, 5, "old-secret", save.save_id)
    tables = BrowserGames(Solvers(), Problems())
    assert path.exists()  # not taken over: kept as it is
    assert not SaveStore(problems=Problems()).is_open_elsewhere(save.save_id)
    assert tables.get(made.table.game_id).version == made.table.version


def test_a_damaged_earlier_record_is_set_aside_and_the_others_load(data: Path) -> None:
    good = "cd" * 16
    legacy_file(data, good, 3, "fine", None)
    bad = data / "web" / f"{'ef' * 16}.json"
    bad.write_text('{"format": "yahtzee-web-game", "version": 1, "id": 3}', encoding="utf-8")
    problems = Problems()
    tables = BrowserGames(Solvers(), problems)
    assert tables.get(good).seats_of("fine") == {0, 1}
    assert [damaged[1] for damaged in problems.damaged] == [bad] and not bad.exists()


def test_advice_to_score_now_names_the_box(official: Solution, data: Path) -> None:
    players = [HumanPlayer("Ann", VARIANT.new_card())]
    engine = Engine(VARIANT, players, rng=ScriptedRandom([6] * 5))
    live = LiveGame(engine, players, coach=Solvers().coach(VARIANT))
    coaching = live.coaching()
    assert coaching is not None and isinstance(coaching.advice, KeepAdvice)
    assert coaching.advice.keep.scores_now
    assert coaching.box_now is not None and coaching.box_now.box.name == "Yahtzee"
    live.play(Move.toggle(1))
    again = live.coaching()
    assert again is not None and again.box_now == coaching.box_now


def saved_seats() -> BrowserSeats:
    """Return the browser part of the one unfinished game's save."""
    [save] = SaveStore(problems=Problems()).unfinished()
    assert save.browser is not None
    return save.browser


def test_a_game_of_two_people_waits_until_both_joined_and_the_waiting_room_is_saved(
        data: Path) -> None:
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(two_people())
    table = made.table
    ann, bo = (secret for secret, _ in made.secrets)
    assert table.host == (0,) and table.waiting() == (1,)
    view = table.view()
    assert not view.started and view.waiting == (1,) and view.version == 2
    for move in (Move.roll(), Move.toggle(1)):
        with pytest.raises(GameRequestError) as refused:
            table.act(ann, move)
        assert refused.value.denial is Denial.WAITING
    assert saved_seats().joined == (0,) and not saved_seats().started
    tables.close()
    # the waiting room survives a restart; Bo's first request lets the game start
    again = BrowserGames(Solvers(), Problems()).get(table.game_id)
    assert not again.view().started and again.waiting() == (1,)
    assert not again.join("not a secret") and not again.join(ann)
    assert again.join(bo) and not again.join(bo)
    view = again.view()
    assert view.started and view.waiting == () and view.version == 4
    assert saved_seats().joined == (0, 1) and saved_seats().started
    again.act(ann, Move.toggle(1))
    assert again.view().version == 6


def test_the_host_alone_may_start_the_game_before_everyone_joined(data: Path) -> None:
    settings = Settings(VARIANT, (HUMAN, HUMAN, HUMAN), ("Ann", "Bo", "Cy"), 4, coach=False)
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(settings)
    ann, bo, cy = (secret for secret, _ in made.secrets)
    with pytest.raises(GameRequestError) as refused:
        made.table.start(bo)
    assert refused.value.denial is Denial.NOT_HOST
    with pytest.raises(GameRequestError) as refused:
        made.table.start("not a secret")
    assert refused.value.denial is Denial.NOT_YOUR_SEAT
    assert made.table.waiting() == (2,)  # Bo joined by asking
    assert made.table.view().version == 3
    view = made.table.start(ann)
    assert view.started and view.waiting == (2,) and view.version == 5
    assert saved_seats().started and saved_seats().joined == (0, 1)
    made.table.act(ann, Move.roll())
    assert made.table.start(ann).started  # once started, a start changes nothing
    assert made.table.join(cy) and made.table.waiting() == ()
    tables.close()


@pytest.mark.parametrize("settings", [
    Settings(VARIANT, (HUMAN,), ("Ann",), 2, coach=False),
    Settings(VARIANT, (HUMAN, HUMAN), ("Ann", "Bo"), 2, coach=False, hot_seat=True)])
def test_one_person_or_a_hot_seat_starts_at_once(data: Path, settings: Settings) -> None:
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(settings)
    assert made.table.view().started and made.table.waiting() == ()
    made.table.act(made.secrets[0][0], Move.roll())
    tables.close()


def test_a_save_without_joined_seats_counts_as_started(data: Path) -> None:
    seats = BrowserSeats(3, False, False, (("a" * 64, (0,)), ("b" * 64, (1,))), (0,), False)
    stored = seats.to_dict()
    assert stored["joined"] == [0] and stored["started"] is False
    assert BrowserSeats.from_dict(stored, 2) == seats
    del stored["joined"], stored["started"]
    old = BrowserSeats.from_dict(stored, 2)
    assert old.started and old.joined == ()
    for bad in ({"joined": [2]}, {"joined": "0"}, {"started": 1}, {"joined": [True]}):
        with pytest.raises(FieldError):
            BrowserSeats.from_dict({**stored, **bad}, 2)


def test_a_game_with_the_coach_starts_while_its_tables_are_built(data: Path) -> None:
    """On a cold cache the game starts at once; the coach speaks once its tables are built."""
    forget_loaded()  # nothing in memory, nothing in the fresh cache folder
    games = BrowserGames(Solvers(), Problems())
    made = games.create(Settings(VARIANT, (HUMAN,), ("Ann",), 3, coach=True))
    [(secret, _)] = made.secrets
    first = made.table.view()
    assert first.coach and first.coach_pending and first.advice is None
    assert state_json(first, frozenset({0}))["advice"] == COACH_GETTING_READY
    made.table.act(secret, Move.toggle(1))  # a person plays on meanwhile
    deadline = time.monotonic() + 300
    while made.table.live.coach_pending and time.monotonic() < deadline:
        time.sleep(0.2)
    ready = made.table.view()
    assert not ready.coach_pending and ready.advice is not None and ready.options
    assert state_json(ready, frozenset({0}))["advice"].startswith("Coach: ")
    assert state_json(ready, frozenset())["advice"] is None  # only the advised seat hears it
    games.close()


def test_every_game_of_a_server_shares_one_strategy_and_one_coach(
        data: Path, course: Solution, course_moments: Moments) -> None:
    """What the solver remembers is about positions: games share it, so a game costs little."""
    games = BrowserGames(Solvers(), Problems())
    variant = get_variant("yahtzee", "course")
    made = [games.create(Settings(variant, (HUMAN, COMPUTER), ("Ann", "Computer"), seed,
                                  coach=True)).table for seed in (1, 2)]
    computers = [game.live.players[1] for game in made]
    assert all(isinstance(player, ComputerPlayer) for player in computers)
    first, second = (player.prepare() for player in computers
                     if isinstance(player, ComputerPlayer))
    assert first is second
    assert made[0].live.coach is not None and made[0].live.coach is made[1].live.coach
    games.close()


def test_the_recent_moves_come_back_after_a_restart(data: Path) -> None:
    """The moves' list is rebuilt from the saved log: the same lines, the latest ``RECENT``."""
    settings = Settings(VARIANT, (HUMAN, HUMAN, HUMAN), ("Ann", "Bo", "Cy"), 5, coach=False,
                        hot_seat=True)
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(settings)
    table = made.table
    [(secret, _)] = made.secrets
    for turn in range(11):  # every turn: two re-rolls, then a box
        for move in (Move.toggle(1 + turn % 5), Move.roll(), Move.toggle(2), Move.roll()):
            table.act(secret, move)
        table.act(secret, Move.box(table.view().offers[0].number))
    table.act(secret, Move.toggle(3))
    table.act(secret, Move.roll())  # a turn under way
    before = table.view().happened
    assert len(before) == RECENT and len(table.live.engine.log) > RECENT
    assert {line.seat for line in before} == {0, 1, 2}
    assert before[-1].kept == (before[-2].dice[2],) and before[-1].item is None
    assert before[-2].kept is None and before[-3].item is not None  # a first roll after a box
    assert before[-3].total == table.live.players[before[-3].seat].card.score()
    tables.close()
    again = BrowserGames(Solvers(), Problems()).get(table.game_id)
    assert again.view().happened == before
    again.act(secret, Move.roll())
    assert again.view().happened[:-1] == before[1:]
    again.release()


def test_a_computer_s_moves_read_the_same_after_a_restart(
        data: Path, course: Solution, course_moments: Moments) -> None:
    """What a page plays a computer's turn back from (each line's ``made``, the dice kept by
    place, the re-rolls left) is rebuilt from the saved log as it was noted, keeps and stops
    before the box included; each move's lines share a ``made`` that grows move by move."""
    games = BrowserGames(Solvers(), Problems())
    table, secret = against_the_computer(games, coach=False)
    for _ in range(5):
        table.act(secret, Move.roll())  # the person re-rolls all, then scores
        table.act(secret, scripted(table))
        table.act(secret, scripted(table))
        while table.computer_step():
            pass
    before = table.view().happened
    kept = [line for line in before if line.saved is not None]
    assert kept and {line.rolls_left for line in before if line.item is None} == {0, 1, 2}
    assert all(sorted(v for v, s in zip(line.dice, line.saved or ()) if s)
               == sorted(line.kept or ()) for line in kept)
    made = [line.made for line in before]
    assert made == sorted(made) and len(set(made)) < len(made)  # a box and the next roll
    games.close()
    assert BrowserGames(Solvers(), Problems()).get(table.game_id).view().happened == before


def test_a_game_taken_up_before_its_first_move_lists_no_move(data: Path) -> None:
    tables = BrowserGames(Solvers(), Problems())
    made = tables.create(two_people())
    tables.close()
    assert BrowserGames(Solvers(), Problems()).get(made.table.game_id).view().happened == ()


def count_syncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the file syncs of the test's own thread (the solver's tables are stored by
    another); return the list each synced file descriptor is added to."""
    synced: list[int] = []

    def counting(sync: Callable[[int], None]) -> Callable[[int], None]:
        """Return ``sync``, counted."""
        def counted(fd: int) -> None:
            if threading.current_thread() is threading.main_thread():
                synced.append(fd)
            sync(fd)
        return counted

    monkeypatch.setattr(os, "fsync", counting(os.fsync))
    monkeypatch.setattr(os, "fdatasync", counting(os.fdatasync))
    return synced


def against_the_computer(games: BrowserGames, coach: bool) -> tuple[BrowserGame, str]:
    """Make a seeded game (course rules) of a person against the computer; return it and the
    person's secret, once the coach (if any) has its tables."""
    made = games.create(Settings(get_variant("yahtzee", "course"), (HUMAN, COMPUTER),
                                 ("Ann", "Computer"), 5, coach=coach))
    while made.table.live.coach_pending:
        time.sleep(0.01)  # the coach's tables load in the background
    return made.table, made.secrets[0][0]


def test_full_tables_let_go_of_a_finished_game_whose_filing_failed_last(
        data: Path, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Room is made from the other games first; an unfiled game goes only when none other can,
    is taken up again when asked for, and each is filed by the sweep."""
    games = BrowserGames(Solvers(), Problems(), capacity=2)
    first = unfiled_game(games, monkeypatch)
    idle, _ = against_the_computer(games, coach=False)
    second, secret = against_the_computer(games, coach=False)  # tables full: ``idle`` goes
    assert set(games.live) == {first.game_id, second.game_id}
    unfiled_game_of(second, secret, monkeypatch)
    made, _ = against_the_computer(games, coach=False)  # none other: the oldest unfiled goes
    assert set(games.live) == {second.game_id, made.game_id}
    assert first.saver.save_id in SaveStore(problems=Problems()).saved_ids()  # kept, unfiled
    assert games.get(first.game_id).is_over()  # a page asks for it: ``made`` goes
    assert set(games.live) == {first.game_id, second.game_id}
    assert games.expire(fresh_for=3600, idle_for=3600) == []
    assert sorted(g.uid for g in History().games()) == sorted([first.game_id, second.game_id])
    games.close()


def test_a_secret_longer_than_any_table_makes_acts_for_no_seat(data: Path) -> None:
    games = BrowserGames(Solvers(), Problems())
    made = games.create(Settings(get_variant("yahtzee", "course"), (HUMAN, HUMAN),
                                 ("Ann", "Bob"), 5))
    secret, held = made.secrets[0]
    assert made.table.seats_of(secret) == frozenset(held) != frozenset()
    hash_secret.cache_clear()
    assert made.table.seats_of(secret + "=" * MAX_SECRET) == frozenset()
    assert hash_secret.cache_info().currsize == 0  # neither hashed nor remembered
    games.close()


def play_out(table: BrowserGame, secret: str) -> None:
    """Play ``table``'s game to its end: the person's moves as scripted, the computer's own."""
    while not table.is_over():
        assert (table.act(secret, scripted(table)) if not table.computer_to_play()
                else table.computer_step())


def unfiled_game(games: BrowserGames, monkeypatch: pytest.MonkeyPatch) -> BrowserGame:
    """Return a new game of ``games`` played to its end while its history was locked."""
    table, secret = against_the_computer(games, coach=False)
    return unfiled_game_of(table, secret, monkeypatch)


def unfiled_game_of(table: BrowserGame, secret: str,
                    monkeypatch: pytest.MonkeyPatch) -> BrowserGame:
    """Play ``table`` to its end (``secret``: its person's) while its history is locked: it
    stays saved, unfiled."""
    with monkeypatch.context() as busy:
        busy.setattr(History, "record", failing_filing)
        play_out(table, secret)
    assert table.is_over() and not table.saver.filed
    return table


def failing_filing(history: History, *args: Any, **kwargs: Any) -> int:
    """Fail as a database locked by another program would."""
    raise sqlite3.OperationalError("database is locked")


def test_a_computers_moves_are_written_at_once_but_only_a_persons_are_synced(
        data: Path, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A computer's move is replayed exactly from the save before it: its write is not synced."""
    synced = count_syncs(monkeypatch)
    games = BrowserGames(Solvers(), Problems())
    table, secret = against_the_computer(games, coach=False)
    table.act(secret, Move.score())
    synced.clear()
    table.act(secret, Move.box(table.live.prompt().menu[0].number))
    assert len(synced) == 1  # the move appended to the save file, which is synced once
    synced.clear()
    steps = 0
    while table.computer_to_play():
        assert table.computer_step()
        steps += 1
        save_id = table.saver.save_id
        assert save_id is not None
        assert SaveStore(problems=Problems()).load(save_id).snapshot == table.live.engine.record()
    assert steps >= 2 and synced == []
    table.act(secret, Move.toggle(1))
    assert len(synced) == 1
    games.close()


def test_a_computer_s_turn_made_at_once_is_written_once_at_its_end_and_made_again_after_a_stop(
        data: Path, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's loop plays a computer's turn at once and writes it once, unsynced, at its
    end: a server stopped mid-turn makes the very same turn again from the save before it."""
    games = BrowserGames(Solvers(), Problems())
    table, secret = against_the_computer(games, coach=True)
    store = SaveStore(problems=Problems())
    written: list[bool] = []
    write = SaveStore.write

    def counted(saves: SaveStore, save: Any, **options: Any) -> None:
        written.append(bool(options.get("replayable")))
        write(saves, save, **options)

    monkeypatch.setattr(SaveStore, "write", counted)
    checked = mid_turn_checked = False
    while not checked:
        while not table.computer_to_play():
            table.act(secret, scripted(table))
        save_id = table.saver.save_id
        assert save_id is not None
        turn, started = table.computer_turn(), store.path(save_id).read_bytes()
        written.clear()
        if table.computer_step_at_once() is None:
            while table.computer_step():  # the tables' first use goes to a thread
                pass
            continue
        if table.computer_turn() != turn:  # a box at once: that turn had no re-roll
            assert written == [True] and store.load(save_id).snapshot == table.live.engine.record()
            continue
        assert written == [] and store.path(save_id).read_bytes() == started  # held
        if not mid_turn_checked:  # a move in a thread meanwhile writes the game whole
            assert table.computer_step()
            assert written == [True] and table.saver.pending is None
            assert store.load(save_id).snapshot == table.live.engine.record()
            mid_turn_checked = True
            while table.computer_turn() == turn:
                assert table.computer_step()
            continue
        while table.computer_turn() == turn:
            assert table.computer_step_at_once()
        assert written == [True]  # once, not synced: the moves are made again from the start
        assert store.load(save_id).snapshot == table.live.engine.record()
        checked = True
    log = table.live.engine.log
    games.close()
    assert save_id is not None
    store.path(save_id).write_bytes(started)  # as a server stopped mid-turn left it
    again = BrowserGames(Solvers(), Problems()).get(table.game_id)
    while again.computer_turn() == turn:
        assert again.computer_step()
    assert again.live.engine.log == log
    again.release()


def test_a_computer_keeps_in_one_step_and_makes_the_console_s_game(
        data: Path, course: Solution, course_moments: Moments) -> None:
    """Each roll's keep is one step at the table (toggles and roll), logged as the console's."""
    games = BrowserGames(Solvers(), Problems())
    table, secret = against_the_computer(games, coach=False)
    console = new_game(Solvers(), get_variant("yahtzee", "course"), (HUMAN, COMPUTER),
                       ("Ann", "Computer"), seed=5)
    steps: list[int] = []
    while not table.is_over():
        for live, move in ((table.live, scripted(table)), (console, scripted(table))):
            assert live.play(move).accepted
        if not table.computer_to_play():
            continue
        steps.append(0)
        while table.computer_to_play():
            rolls_left = table.live.prompt().view.rolls_left
            assert table.computer_step()
            steps[-1] += 1
            prompt = table.live.prompt()
            if table.computer_to_play() and prompt.phase is Phase.ROLLING:
                assert prompt.view.rolls_left == rolls_left - 1  # every step but the box rolls
            rolled = table.live.engine.log[-1]
            if rolled.command == "roll":  # the moves' list names the dice the keep saved
                assert sorted(table.happened[-1].kept or ()) == sorted(
                    v for v, saved in zip(rolled.dice, rolled.saved) if saved)
        while console.computer_to_play():
            console.computer_move()
        assert table.live.engine.log == console.engine.log
    # a keep is one step, the box another: at most four steps a turn, where a step a toggle
    # took at least one more whenever the computer saved a die
    toggles = sum(d.seat == 1 and d.points is None and d.command.isdigit()
                  for d in console.engine.log)
    rolls = sum(d.seat == 1 and d.command == "roll" for d in console.engine.log)
    assert len(steps) == 13 and max(steps) <= 4 and toggles > 13
    assert sum(steps) == rolls + 13 + sum(d.seat == 1 and d.command == "score"
                                          for d in console.engine.log)
    games.close()


def scripted(table: BrowserGame) -> Move:
    """Return a person's move: score at once, in the first box offered."""
    prompt = table.live.prompt()
    return Move.score() if prompt.phase is Phase.ROLLING else Move.box(prompt.menu[0].number)


def test_a_game_played_to_its_end_and_let_go_of_leaves_no_garbage_in_cycles(
        data: Path, course: Solution, course_moments: Moments) -> None:
    """A server turns the collector's own passes off (``server.collect_rarely``): reference
    counts must free every object a game made, the coach's, the computer's and its views.
    (The solvers, shared by every game, live as long as the server.)"""
    solvers = Solvers()
    games = BrowserGames(solvers, Problems())
    with collector_off():
        table, secret = against_the_computer(games, coach=True)
        play_out(table, secret)
        assert table.view().analyses  # the coach's look back at the game was made too
        finished = weakref.ref(table)
        del table
        games.close()
        del games
        assert finished() is None  # freed by its reference counts alone
        assert cycles_of_ours() == []
    assert solvers.tables_ready(get_variant("yahtzee", "course"))


def test_moves_are_made_at_once_only_when_nothing_in_them_can_wait(
        data: Path, course: Solution, course_moments: Moments) -> None:
    """The server's loop makes moves itself, except those that could block it."""
    games = BrowserGames(Solvers(), Problems())
    made, twin = against_the_computer(games, coach=True), against_the_computer(games, coach=True)
    refused: list[tuple[str, str, int]] = []
    held: list[object] = []
    for (table, secret), at_once in ((made, True), (twin, False)):
        while not table.is_over():
            version, person = table.version, not table.computer_to_play()
            if at_once and len(refused) == 2 and not held:  # the game held by another thread
                with table.lock:
                    held += [table.computer_step_at_once(), table.act_at_once(secret, Move.score())]
            done: object = None
            if at_once:
                done = (table.act_at_once(secret, scripted(table)) if person
                        else table.computer_step_at_once())
            if done is None:
                assert table.version == version  # nothing done
                if at_once:
                    prompt = table.live.prompt()
                    refused.append(("person" if person else "computer", prompt.phase.name,
                                    prompt.view.card.rounds_used()))
                done = table.act(secret, scripted(table)) if person else table.computer_step()
            elif person:
                table.keep_move()
            # a person's command adds one entry to the log; a computer's keep, its toggles too
            grown = 1 if table.is_over() else 2
            assert done and (table.version == version + grown if person
                             else table.version >= version + grown)
    # The first moves wait for the tables; then only the last boxes go to a thread.
    assert refused == [("person", "ROLLING", 0), ("computer", "ROLLING", 0),
                       ("person", "SCORING", 12), ("computer", "SCORING", 12)]
    assert held == [None, None]
    assert made[0].live.engine.log == twin[0].live.engine.log
    assert made[0].view().happened == twin[0].view().happened
    games.close()


def test_a_person_s_move_made_at_once_is_seen_only_once_saved(
        data: Path, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    synced = count_syncs(monkeypatch)
    games = BrowserGames(Solvers(), Problems())
    table, secret = against_the_computer(games, coach=True)
    table.act(secret, Move.toggle(1))
    save_id = table.saver.save_id
    assert save_id is not None
    stored = SaveStore(problems=Problems())
    with pytest.raises(GameRequestError) as refusal:
        table.act_at_once(secret, Move.box(1))  # not the phase for a box: nothing changes
    assert refusal.value.denial is Denial.STILL_ROLLING and not table.lock.locked()
    synced.clear()
    view = table.act_at_once(secret, Move.roll())
    assert view is not None and view.rolls_left == 1
    # Held, and not yet on the disk: no look sees it, and the save is the one before.
    assert table.lock.locked() and table.drawn_view() is None and synced == []
    assert stored.load(save_id).snapshot != table.live.engine.record()
    table.keep_move()
    assert not table.lock.locked() and table.drawn_view() == view and len(synced) == 1
    assert stored.load(save_id).snapshot == table.live.engine.record()
    games.close()


def test_a_game_whose_filing_failed_is_filed_by_the_next_sweep(
        data: Path, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The history busy at the last box: the game stays saved, over, and the sweep files it."""
    games = BrowserGames(Solvers(), Problems())
    table, secret = against_the_computer(games, coach=False)
    record = History.record
    busy = [True]

    def filing(history: History, *args: Any, **kwargs: Any) -> int:
        """Fail as a database locked by another program would, the first time."""
        if busy.pop() if busy else False:
            raise sqlite3.OperationalError("database is locked")
        return record(history, *args, **kwargs)

    monkeypatch.setattr(History, "record", filing)
    play_out(table, secret)
    save_id = table.saver.save_id
    assert save_id is not None and not table.saver.filed and busy == []
    assert History().games() == []  # not filed: its save is kept
    assert games.expire(fresh_for=3600, idle_for=3600) == []
    assert table.saver.filed and [g.uid for g in History().games()] == [table.game_id]
    assert SaveStore(problems=Problems()).saved_ids() == []
    assert games.expire(fresh_for=3600, idle_for=3600) == []
    assert len(History().games()) == 1  # filed once
    games.close()
