"""Win chances filed with finished games: which games get them, and that they are the coach's.

A game of two or more players in which the solver takes part (a computer,
or the coach) is filed with every player's chance at each turn's start;
those numbers are exactly what the coach works out again from the game's
log, and ``analyze`` shows them.  A game of people alone (without the
coach) is filed without them and needs no numpy; ``analyze`` then works
them out, to the same numbers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.helpers import Problems, run_cli, script_for, variant_of
from yahtzee.app.session import Solvers
from yahtzee.domain.card import Variant
from yahtzee.domain.dice import Dice
from yahtzee.engine.records import Decision, TurnChances
from yahtzee.players.kinds import strategies_of
from yahtzee.storage.history import History, HistoryGame

ROOT = Path(__file__).resolve().parents[2]


def scoring_script(rounds: int) -> str:
    """Return input that scores box N at the first roll of round N."""
    return "".join(f"score\n{n}\n" for n in range(1, rounds + 1))


def filed(data: Path) -> list[tuple[HistoryGame, list[Decision]]]:
    """Return every game of the data folder's history with its log."""
    history = History(data / "history.sqlite3", problems=Problems())
    return [history.load_game(game_id) for game_id in history.game_ids()]


def recomputed(variant: Variant, players: int, log: list[Decision],
               kinds: Sequence[str] = ()) -> list[TurnChances]:
    """Return the chances at each turn's start as the coach works them out from ``log``,
    for players of ``kinds`` (none: people, taken to play as well as the game allows)."""
    return Solvers().coach(variant, profiles=True).turn_chances(players, log,
                                                                strategies_of(kinds))


def every_turn(rounds: int, players: int) -> list[tuple[int, int]]:
    """Return (round, seat) of every turn of a finished game, in order."""
    return [(number, seat) for number in range(1, rounds + 1) for seat in range(players)]


@pytest.mark.parametrize(("rules", "players", "seed"), [
    ("official", "human,computer", 8),
    ("course", "computer,human,greedy", 3),
    ("poker", "human,computer", 4),
])
def test_a_game_with_a_computer_is_filed_with_the_coachs_chances(
        rules: str, players: str, seed: int, official_moments: object, course_moments: object,
        data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    variant = variant_of(rules)
    options = ["--game", "poker-dice"] if rules == "poker" else ["--rules", rules]
    seats = players.count(",") + 1
    status, _, err = run_cli(["--players", players, *options, "--seed", str(seed)],
                             scoring_script(variant.rounds), monkeypatch, capsys)
    assert (status, err) == (0, "")
    [(meta, log)] = filed(data)
    assert [(t.round, t.seat) for t in meta.chances] == every_turn(variant.rounds, seats)
    kinds = players.split(",")
    assert list(meta.chances) == recomputed(variant, seats, log, kinds)
    # greedy play is known to score less than best play: its outlook is lowered, and the
    # others share what it leaves them
    first = meta.chances[0].chances
    even = [c for c, kind in zip(first, kinds) if kind != "greedy"]
    assert even == pytest.approx([even[0]] * len(even))
    if "greedy" in kinds:
        assert first[kinds.index("greedy")] < 1 / seats - 0.1
    else:
        assert first == pytest.approx((1 / seats,) * seats)
    winners = [p.winner for p in meta.players]
    assert [c > 0.5 for c in meta.chances[-1].chances] == winners

    status, out, err = run_cli(["analyze", "--json"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    report = json.loads(out)
    assert report["chances_recorded"] is True
    assert report["turn_chances"] == [
        {"round": t.round, "seat": t.seat, "chances": [round(c, 6) for c in t.chances]}
        for t in meta.chances]
    starts = [t for t in meta.chances if t.seat == 0]
    assert [p["win_chances"] for p in report["players"]] == [
        [round(t.chances[seat], 6) for t in starts] for seat in range(seats)]


@pytest.mark.parametrize(("rules", "players", "seed"), [
    ("official", "human,computer", 5),
    ("course", "computer,human,greedy", 6),
])
def test_every_turns_chances_worked_out_at_once_are_each_turns_own(
        rules: str, players: str, seed: int, official_moments: object, course_moments: object,
        data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The filed chances, worked out in one pass, are the coach's chances turn by turn."""
    variant = variant_of(rules)
    seats = players.count(",") + 1
    status, _, err = run_cli(["--players", players, "--rules", rules, "--seed", str(seed)],
                             scoring_script(variant.rounds), monkeypatch, capsys)
    assert (status, err) == (0, "")
    [(meta, log)] = filed(data)
    kinds = players.split(",")
    coach = Solvers().coach(variant, profiles=True)
    cards = [variant.new_card() for _ in range(seats)]
    one_by_one: list[tuple[int, int, list[float]]] = []
    for d in log:
        if not one_by_one or (d.round, d.seat) != one_by_one[-1][:2]:
            chances = coach.win_chances(cards, d.seat, strategies=strategies_of(kinds))
            assert chances is not None
            one_by_one.append((d.round, d.seat, chances))
        if d.label is not None:
            cards[d.seat].choose_number(int(d.command), Dice.of(d.dice))
    assert len(one_by_one) == variant.rounds * seats
    assert [(t.round, t.seat) for t in meta.chances] == [turn[:2] for turn in one_by_one]
    for filed_turn, (_, _, chances) in zip(meta.chances, one_by_one):
        assert list(filed_turn.chances) == pytest.approx(chances, abs=1e-12)
    assert len({t.chances for t in meta.chances}) > variant.rounds  # they move turn by turn


def test_a_game_of_people_is_filed_without_chances_and_analyze_works_them_out(
        official_moments: object, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    script = "".join(f"{line}\n" for line in script_for(12, "official"))
    assert run_cli(["--seed", "12", "--rules", "official"], script, monkeypatch, capsys)[0] == 0
    [(meta, log)] = filed(data)
    assert meta.chances == ()
    status, out, _ = run_cli(["analyze", "--json"], "", monkeypatch, capsys)
    report = json.loads(out)
    assert status == 0 and report["chances_recorded"] is False
    again = recomputed(variant_of("official"), 2, log)
    assert [(t.round, t.seat) for t in again] == every_turn(13, 2)
    assert report["turn_chances"] == [
        {"round": t.round, "seat": t.seat, "chances": [round(c, 6) for c in t.chances]}
        for t in again]


def test_with_the_coach_a_game_of_people_is_filed_with_chances(
        official_moments: object, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    script = "".join(f"{line}\n" for line in script_for(12, "official"))
    status, _, err = run_cli(["--coach", "--seed", "12", "--rules", "official"], script,
                             monkeypatch, capsys)
    assert (status, err) == (0, "")
    [(meta, log)] = filed(data)
    assert list(meta.chances) == recomputed(variant_of("official"), 2, log)
    assert len(meta.chances) == 26


def test_a_game_of_one_player_is_filed_without_chances(
        official: object, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["--players", "computer", "--rules", "official", "--seed", "2"],
                             "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    [(meta, _)] = filed(data)
    assert meta.chances == ()


def test_a_game_of_people_without_numpy_is_filed_without_chances(tmp_path: Path) -> None:
    """With numpy unimportable, two people play a whole game and it is filed, as before."""
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(tmp_path), YAHTZEE_CACHE_DIR=str(tmp_path))
    blocked = ("import sys; sys.modules['numpy'] = None; sys.argv[0] = 'game_driver.py'; "
               "from yahtzee.interfaces.cli import main; raise SystemExit(main(sys.argv[1:]))")
    script = "".join(f"{line}\n" for line in script_for(7, "course"))
    done = subprocess.run([sys.executable, "-c", blocked, "--seed", "7"], input=script,
                          text=True, capture_output=True, cwd=ROOT, env=env, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    [(meta, _)] = filed(tmp_path)
    assert meta.chances == () and [p.kind for p in meta.players] == ["human", "human"]
