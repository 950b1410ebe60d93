"""The history's layout versions: a version 1 or 2 file keeps working and is brought to 3.

A version 1 file (four tables, no win chances) is made here exactly as the
program of that version made it: its tables' statements are the ones below,
copied from that version.  Reading it changes nothing; the first game filed
adds the ``win_chances`` and ``browser_games`` tables and raises the
version, in one transaction, and every row already there stays as it was.
Win chances, and browser seats, that do not fit their game are left out,
and the game is kept.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import Problems, play_through, run_cli, script_for, variant_of
from yahtzee.engine.records import GameRecord, TurnChances
from yahtzee.storage.history import SCHEMA_VERSION, History, predictions
from yahtzee.storage.saves import BrowserSeats
from yahtzee.storage.stats import compute_stats, load_stats

VERSION_1_TABLES = {
    "games": """CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    finished_at TEXT NOT NULL,
    variant TEXT NOT NULL,
    rules TEXT NOT NULL,
    rounds INTEGER NOT NULL
)""",
    "players": """CREATE TABLE players (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    total INTEGER NOT NULL,
    upper_bonus INTEGER,
    yahtzee_bonuses INTEGER,
    winner INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
)""",
    "card_rows": """CREATE TABLE card_rows (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    position INTEGER NOT NULL,
    label TEXT NOT NULL,
    value INTEGER NOT NULL,
    dice TEXT,
    PRIMARY KEY (game_id, seat, position)
)""",
    "decisions": """CREATE TABLE decisions (
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
)""",
}
"""The tables of a version 1 history, as that version created them."""


def game(seed: int, rules: str = "course") -> GameRecord:
    """Return the record of a seeded two-person game played to its end."""
    return play_through(seed, variant_of(rules), script_for(seed, rules)).game.engine.record()


def even_chances(record: GameRecord) -> list[TurnChances]:
    """Return chances for every turn of ``record``: the first player's 0.25, the other's 0.75."""
    rounds = variant_of(record.rules).rounds
    return [TurnChances(number, seat, (0.25, 0.75)) for number in range(1, rounds + 1)
            for seat in range(len(record.players))]


def schema(path: Path) -> dict[str, str]:
    """Return each table's statement as the database holds it."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
        tables = {str(name): str(sql) for name, sql in rows}
    connection.close()
    return tables


def rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Return every row of every table, in the order of its primary key."""
    with sqlite3.connect(path) as connection:
        result = {name: sorted(connection.execute(f"SELECT * FROM {name}"),
                               key=lambda row: row[:3])
                  for name in schema(path)}
    connection.close()
    return result


def user_version(path: Path) -> int:
    """Return the layout version the file says it has."""
    with sqlite3.connect(path) as connection:
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    connection.close()
    return version


def version_1(path: Path, *records: GameRecord, version: int = 1) -> None:
    """Write a version 1 history at ``path`` holding ``records``, as that version wrote it.

    The games are filed by this version, then its ``win_chances`` table is
    dropped and the version set back: what is left is, statement for
    statement, a version 1 file.
    """
    history = History(path)
    for number, record in enumerate(records):
        history.record(record, uid=f"{number:032x}")
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE win_chances")
        connection.execute("DROP TABLE browser_games")
        connection.execute(f"PRAGMA user_version = {version}")
    connection.close()
    assert schema(path) == VERSION_1_TABLES


@pytest.mark.parametrize("version", [1, 0])
def test_a_version_1_history_is_read_as_it_is_and_migrated_when_written(
        version: int, tmp_path: Path) -> None:
    """Reading changes nothing; filing a game adds the table, raises the version, loses nothing."""
    path = tmp_path / "history.sqlite3"
    old_games = [game(7), game(12, "official")]
    version_1(path, *old_games, version=version)
    before = path.read_bytes()
    problems = Problems()
    history = History(path, problems=problems)
    games = history.games()
    assert [g.game_id for g in games] == [1, 2] and all(g.chances == () for g in games)
    assert [history.load_game(n)[1] for n in (1, 2)] == [list(r.log) for r in old_games]
    assert load_stats(history).chance_games == 0
    assert path.read_bytes() == before

    old_rows = rows(path)
    new_game = game(21)
    assert history.record(new_game, uid="f" * 32, chances=even_chances(new_game)) == 3
    assert user_version(path) == SCHEMA_VERSION
    assert set(schema(path)) == {*VERSION_1_TABLES, "win_chances", "browser_games"}
    now = rows(path)
    assert all([row for row in now[table] if row[0] != 3] == old_rows[table]
               for table in VERSION_1_TABLES)
    assert len(now["win_chances"]) == 13 * 2 * 2
    games = history.games()
    assert [g.chances for g in games[:2]] == [(), ()]
    assert list(games[2].chances) == even_chances(new_game)
    assert problems.damaged == [] and problems.bad_games == []


def test_a_version_1_history_stays_usable_from_the_command_line(
        data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``stats`` reads it untouched; a game played then is filed after the older one."""
    data.mkdir(parents=True)
    path = data / "history.sqlite3"
    version_1(path, game(7))
    before = path.read_bytes()
    status, out, err = run_cli(["stats", "--json"], "", monkeypatch, capsys)
    assert (status, err) == (0, "") and json.loads(out)["games"] == 1
    assert path.read_bytes() == before
    script = "".join(f"{line}\n" for line in script_for(12, "official"))
    assert run_cli(["--seed", "12", "--rules", "official"], script, monkeypatch, capsys)[0] == 0
    assert user_version(path) == SCHEMA_VERSION
    assert History(path).game_ids() == [1, 2]


def test_chances_that_do_not_fit_their_game_are_left_out_and_the_game_kept(
        tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    problems = Problems()
    history = History(path, problems=problems)
    records = [game(7), game(12, "official"), game(21)]
    for number, record in enumerate(records):
        history.record(record, uid=f"{number:032x}", chances=even_chances(record))
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE win_chances SET chance = 1.5 WHERE game_id = 1 AND round = 2")
        connection.execute("DELETE FROM win_chances WHERE game_id = 2 AND round = 13")
    connection.close()
    games = history.games()
    assert [g.game_id for g in games] == [1, 2, 3]
    assert [bool(g.chances) for g in games] == [False, False, True]
    assert [bool(history.load_game(n)[0].chances) for n in (1, 2, 3)] == [False, False, True]
    assert problems.bad_games == []


def test_chances_that_are_not_one_per_player_at_each_turn_are_refused(tmp_path: Path) -> None:
    history = History(tmp_path / "history.sqlite3")
    record = game(7)
    turns = even_chances(record)
    for wrong in (turns[:-1], [TurnChances(1, 0, (0.25, 0.75, 0.0)), *turns[1:]],
                  [TurnChances(1, 0, (0.5, 0.6)), *turns[1:]]):
        with pytest.raises(ValueError):
            history.record(record, uid="a" * 32, chances=wrong)
    assert history.game_ids() == []


def test_stats_set_the_filed_chances_against_the_outcomes(tmp_path: Path) -> None:
    """Each turn's prediction for the player about to roll, per tenth, against the result."""
    history = History(tmp_path / "history.sqlite3")
    first, second = game(7), game(21)
    history.record(first, uid="a" * 32, chances=even_chances(first))
    history.record(second, uid="b" * 32)
    games = history.games()
    winner = [p.winner for p in games[0].players]
    assert winner in ([True, False], [False, True])
    pairs = predictions(games)
    assert pairs == [(0.25, float(winner[0])), (0.75, float(winner[1]))] * 13
    stats = compute_stats([], pairs, 1)
    assert [(b.low, b.predicted, b.observed, b.count) for b in stats.calibration] == [
        (0.2, 0.25, float(winner[0]), 13), (0.7, 0.75, float(winner[1]), 13)]
    assert load_stats(history).to_json()["win_chances"] == {
        "games": 1,
        "calibration": [{"predicted": 0.25, "observed": float(winner[0]), "count": 13},
                        {"predicted": 0.75, "observed": float(winner[1]), "count": 13}]}


def test_a_version_2_history_gets_the_browser_seats_and_keeps_its_games(tmp_path: Path) -> None:
    """A game filed before version 3 has no seats; one filed after has them; bad seats are
    left out, and their game kept."""
    path = tmp_path / "history.sqlite3"
    old = game(7)
    History(path).record(old, uid="0" * 32, chances=even_chances(old))
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE browser_games")
        connection.execute("PRAGMA user_version = 2")
    connection.close()
    before = path.read_bytes()
    problems = Problems()
    history = History(path, problems=problems)
    assert history.load_game(1)[0].browser is None and path.read_bytes() == before
    seats = BrowserSeats(7, True, True, (("c" * 64, (0, 1)),), (0, 1))
    assert history.record(game(12, "official"), uid="1" * 32, browser=seats) == 2
    assert user_version(path) == SCHEMA_VERSION == 3
    assert [history.load_game(n)[0].browser for n in (1, 2)] == [None, seats]
    assert list(history.load_game(1)[0].chances) == even_chances(old)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE browser_games SET seats = '{\"seed\": 1}'")
    connection.close()
    assert history.load_game(2)[0].browser is None and history.game_ids() == [1, 2]
    assert problems.damaged == [] and problems.bad_games == []
