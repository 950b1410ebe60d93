"""The history of finished games and the ``stats`` drawn from it, with exact expected figures."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (Problems, humans, make_script, play_through, run_cli, script_for,
                           variant_of)
from yahtzee.app.session import Autosave, Solvers
from yahtzee.domain.card import Card, Variant
from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.games import POKER_DICE
from yahtzee.domain.poker_dice import PokerScoreCard
from yahtzee.domain.rules import COURSE
from yahtzee.domain.score_card import ScoreCard
from yahtzee.engine.engine import Engine
from yahtzee.engine.records import GameRecord
from yahtzee.players.kinds import find_kind
from yahtzee.players.players import Player
from yahtzee.storage.history import MOST_BOUND, History, load_history_game
from yahtzee.storage.saves import SaveStore
from yahtzee.storage.stats import Bucket, histogram, load_stats


def test_a_finished_game_is_filed_with_every_box_and_decision(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The history holds the players, every box with its dice, the totals and every decision."""
    script = script_for(7, "course")
    reference = play_through(7, variant_of("course"), script)
    status, out, err = run_cli(["--seed", "7"], "".join(s + "\n" for s in script),
                               monkeypatch, capsys)
    assert (status, err, out) == (0, "", reference.out)
    assert list((data / "saves").iterdir()) == []

    with sqlite3.connect(data / "history.sqlite3") as connection:
        games = connection.execute("SELECT id, variant, rules, rounds FROM games").fetchall()
        players = connection.execute(
            "SELECT seat, name, kind, total, upper_bonus, yahtzee_bonuses, winner "
            "FROM players ORDER BY seat").fetchall()
        rows = connection.execute(
            "SELECT seat, label, value, dice FROM card_rows ORDER BY seat, position").fetchall()
        decisions = connection.execute(
            "SELECT round, seat, dice, saved, rolls_left, command, points, label "
            "FROM decisions ORDER BY seq").fetchall()
    connection.close()
    assert games == [(1, "yahtzee", "course", 13)]
    best = max(p.card.score() for p in reference.game.players)
    expected_players = []
    for seat, player in enumerate(reference.game.players):
        card = player.card
        assert isinstance(card, ScoreCard)
        expected_players.append((seat, player.name, "human", card.score(), card.upper_bonus(),
                                 card.get_yahtzee_bonus(), int(card.score() == best)))
    assert players == expected_players
    expected_rows = [(seat, label, value, reference.game.engine.scoring_dice(seat).get(label))
                     for seat, player in enumerate(reference.game.players)
                     for label, value in player.card.rows()]
    assert rows == expected_rows
    scored = [row for row in rows if row[3] is not None]
    assert sum(row[3].count("[") for row in scored) == 26
    assert all(re.fullmatch(r"\[[1-6]( [1-6]){4}\]( \[[1-6]( [1-6]){4}\])*", row[3])
               for row in scored)
    assert len(decisions) == len(script)
    first = reference.game.log[0]
    assert decisions[0] == (1, 0, " ".join(map(str, first.dice)),
                            " ".join(str(int(f)) for f in first.saved), first.rolls_left,
                            first.command, None, None)

    meta, log = load_history_game(1)
    assert log == reference.game.log
    assert (meta.game_id, meta.variant, meta.rules, meta.rounds) == (1, "yahtzee", "course", 13)
    assert [(p.name, p.kind, p.total, p.winner) for p in meta.players] == [
        (name, kind, total, bool(winner)) for _, name, kind, total, _, _, winner in players]
    assert [(r.label, r.value, r.dice) for r in meta.players[1].rows] == [
        (label, value, dice) for seat, label, value, dice in rows if seat == 1]


def test_a_game_is_filed_once_even_if_reported_twice(tmp_path: Path) -> None:
    """Filing the same game (same unique ID) again changes nothing."""
    history = History(tmp_path / "history.sqlite3")
    record = play_through(5, POKER_DICE, script_for(5, "poker")).game.engine.record()
    assert history.record(record, uid="a" * 32) == 1
    assert history.record(record, uid="a" * 32) == 1
    assert history.game_ids() == [1]
    meta, _ = history.load_game(1)
    assert [(p.upper_bonus, p.yahtzee_bonuses) for p in meta.players] == [(None, None)] * 2
    with pytest.raises(LookupError):
        history.load_game(2)
    with pytest.raises(LookupError):
        load_history_game(1, path=tmp_path / "missing.sqlite3")


def test_a_game_s_rows_are_filed_many_to_a_statement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A four-player game's decisions go in as few statements as SQLite's bound values allow
    (each statement hands the interpreter's lock back), and read back as they were."""
    variant = variant_of("course")
    game = play_through(3, variant, make_script(3, variant, 4), players=4).game
    statements: list[str] = []
    real_connect = sqlite3.connect

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        """Connect, noting every statement the connection runs."""
        connection: sqlite3.Connection = real_connect(*args, **kwargs)
        connection.set_trace_callback(statements.append)
        return connection

    monkeypatch.setattr(sqlite3, "connect", traced)
    history = History(tmp_path / "history.sqlite3")
    assert history.record(game.engine.record(), uid="c" * 32) == 1
    per_statement = MOST_BOUND // 10  # a decisions row holds ten values
    assert len(game.log) > per_statement
    inserts = [sql for sql in statements if sql.startswith("INSERT INTO decisions")]
    assert len(inserts) == -(-len(game.log) // per_statement)
    assert [sql.count("(") for sql in inserts][0] == per_statement
    assert sum(1 for sql in statements if sql.startswith("INSERT INTO card_rows")) == 1
    assert history.load_game(1)[1] == game.log


# -- statistics --------------------------------------------------------------------
def _course_card(total: int) -> ScoreCard:
    """Return a full course card whose total is ``total``, each box holding points it can."""
    scores: list[int | None] = [0] * ScoreCard.NUM_CATS
    left = total
    chance_first = sorted(CategoryValue, key=lambda c: (
        c is not CategoryValue.CHANCE, -max(COURSE.possible_points(c))))
    for cv in chance_first:
        scores[cv.get_value()] = max(p for p in COURSE.possible_points(cv) if p <= left)
        left -= scores[cv.get_value()] or 0
    card = ScoreCard.restore(COURSE, scores, 0)
    assert card.score() == total
    return card


def _over(variant: Variant, seats: Sequence[tuple[str, str, Card]]) -> GameRecord:
    """Return the record of a finished game of ``variant`` with these (name, kind, card) seats."""
    players: list[Player] = []
    for name, kind_name, card in seats:
        kind = find_kind(kind_name)
        assert kind is not None
        players.append(Solvers().player(kind, name, variant, card))
    engine = Engine(variant, players)
    engine.progress.round = variant.rounds
    return engine.record()


def _finished(*seats: tuple[str, str, int]) -> GameRecord:
    """Return the record of a finished Yahtzee game with these (name, kind, total) seats."""
    return _over(variant_of("course"),
                 [(name, kind, _course_card(total)) for name, kind, total in seats])


def _fill(history: History) -> None:
    """File five games with known totals (a tie, a person named Computer), one of Poker Dice."""
    games = [
        _finished(("Alice", "human", 200), ("Computer", "computer", 250)),
        _finished(("Alice", "human", 230), ("Bob", "human", 230)),
        _finished(("Alice", "human", 180)),
        _finished(("Bob", "human", 150), ("Greedy", "greedy", 175)),
        _finished(("Computer", "human", 210), ("Greedy", "greedy", 190)),
    ]
    for number, game in enumerate(games):
        history.record(game, uid=f"{number:032x}")
    poker_card = PokerScoreCard.restore([0, 40] + [0] * 6 + [50])
    poker = _over(POKER_DICE, [("Alice", "human", poker_card)])
    history.record(poker, uid="f" * 32)


def test_stats_of_an_empty_history(data: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """No games: a clear line, and JSON with empty lists; nothing is created."""
    assert run_cli(["stats"], "", monkeypatch, capsys) == (0, "No finished games yet.\n", "")
    status, out, err = run_cli(["stats", "--json"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert json.loads(out) == {"games": 0, "players": [], "computers": [],
                               "win_chances": {"games": 0, "calibration": []}}
    assert not data.exists()


def _figures(label: str, game: str, played: int, wins: int, ties: int, best: int,
             mean: float, bars: list[tuple[int, int, int]],
             key: str = "name") -> dict[str, object]:
    """Return the expected JSON figures of one group."""
    return {key: label, "game": game, "played": played, "wins": wins, "ties": ties,
            "best": best, "mean": mean,
            "histogram": [{"low": low, "high": high, "count": count}
                          for low, high, count in bars]}


def test_stats_of_a_full_history(data: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Exact games, wins and ties (apart; solo games count neither), best, mean, histograms.

    People are grouped by name, computers by strength only: a person named
    Computer is not the computer.
    """
    _fill(History(data / "history.sqlite3"))
    status, out, err = run_cli(["stats", "--json"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    stats = json.loads(out)
    tens = [(180, 189, 1), (190, 199, 0), (200, 209, 1), (210, 219, 0), (220, 229, 0),
            (230, 239, 1)]
    assert stats == {
        "games": 6,
        "players": [
            _figures("Alice", "poker-dice", 1, 0, 0, 90, 90.0, [(90, 99, 1)]),
            _figures("Alice", "yahtzee/course", 3, 0, 1, 230, 610 / 3, tens),
            _figures("Bob", "yahtzee/course", 2, 0, 1, 230, 190.0,
                     [(150 + 10 * i, 159 + 10 * i, int(i in (0, 8))) for i in range(9)]),
            _figures("Computer", "yahtzee/course", 1, 1, 0, 210, 210.0, [(210, 219, 1)]),
        ],
        "computers": [
            _figures("computer", "yahtzee/course", 1, 1, 0, 250, 250.0, [(250, 259, 1)],
                     "strength"),
            _figures("greedy", "yahtzee/course", 2, 1, 0, 190, 182.5,
                     [(170, 179, 1), (180, 189, 0), (190, 199, 1)], "strength"),
        ],
        "win_chances": {"games": 0, "calibration": []},
    }
    status, out, err = run_cli(["stats"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[:5] == ["Finished games: 6", "", "Players",
                         "  Alice (poker-dice): played 1, wins 0, ties 0, best 90, mean 90.0",
                         "    90-99 | # 1"]
    start = lines.index(
        "  Alice (yahtzee/course): played 3, wins 0, ties 1, best 230, mean 203.3")
    assert lines[start + 1:start + 7] == [
        "    180-189 | # 1", "    190-199 | 0", "    200-209 | # 1", "    210-219 | 0",
        "    220-229 | 0", "    230-239 | # 1"]
    computers = lines.index("Computer strengths")
    assert lines[computers - 3:computers - 1] == [
        "  Computer (yahtzee/course): played 1, wins 1, ties 0, best 210, mean 210.0",
        "    210-219 | # 1"]
    assert lines[computers:] == [
        "Computer strengths",
        "  computer (yahtzee/course): played 1, wins 1, ties 0, best 250, mean 250.0",
        "    250-259 | # 1",
        "  greedy (yahtzee/course): played 2, wins 1, ties 0, best 190, mean 182.5",
        "    170-179 | # 1", "    180-189 | 0", "    190-199 | # 1"]


def test_stats_after_real_games(data: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    """Games played through the command line are counted with their true totals."""
    totals = []
    for seed, rules in ((7, "course"), (12, "official")):
        script = script_for(seed, rules)
        reference = play_through(seed, variant_of(rules), script)
        totals.append([p.card.score() for p in reference.game.players])
        run_cli(["--seed", str(seed), "--rules", rules], "".join(s + "\n" for s in script),
                monkeypatch, capsys)
    stats = json.loads(run_cli(["stats", "--json"], "", monkeypatch, capsys)[1])
    assert stats["games"] == 2 and stats["computers"] == []
    entries = {(e["name"], e["game"]): e for e in stats["players"]}
    assert len(entries) == 4
    for game, rules in zip(totals, ("course", "official")):
        for seat, total in enumerate(game):
            entry = entries[(f"Player {seat + 1}", f"yahtzee/{rules}")]
            lead = total == max(game)
            won, tied = int(lead and game.count(total) == 1), int(lead and game.count(total) > 1)
            assert (entry["played"], entry["wins"], entry["ties"], entry["best"],
                    entry["mean"]) == (1, won, tied, total, float(total))
            assert sum(bucket["count"] for bucket in entry["histogram"]) == 1


def test_histogram_widths() -> None:
    """Bars are equal-width, at least 10 points, at most ten bars, the empty ones kept."""
    assert histogram([]) == ()
    assert histogram([7]) == (Bucket(0, 9, 1),)
    assert histogram([54, 54]) == (Bucket(50, 59, 2),)
    assert histogram([100, 104, 109]) == (Bucket(100, 109, 3),)
    assert histogram([95, 194]) == tuple(Bucket(20 * i, 20 * i + 19, int(i in (4, 9)))
                                         for i in range(4, 10))
    assert histogram([0, 375]) == tuple(Bucket(50 * i, 50 * i + 49, int(i in (0, 7)))
                                        for i in range(8))


def test_a_solo_autosaved_game_counts_as_played_not_won(tmp_path: Path) -> None:
    """A one-player game goes into the statistics without a win."""
    problems = Problems()
    history = History(tmp_path / "history.sqlite3", problems=problems)
    saver = Autosave(SaveStore(tmp_path / "saves", problems=problems), history)
    variant = variant_of("course")
    players = humans(variant, 1)
    engine = Engine(variant, players, observers=[saver])
    for player in players:
        player.card = _course_card(99)
    engine.progress.round = variant.rounds
    saver.finished(engine)
    stats = load_stats(history)
    assert [(f.label, f.played, f.wins, f.best) for f in stats.players] == [
        ("Player 1", 1, 0, 99)]
