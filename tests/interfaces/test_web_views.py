"""The page's JSON of a table (``views.state_json``) as the game moves on, without a server.

Games of people alone without the coach need no solver.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Problems
from yahtzee.app.browser import BrowserGames, GameView, Settings
from yahtzee.app.session import Solvers
from yahtzee.domain.games import get_variant
from yahtzee.engine.moves import Move
from yahtzee.interfaces.web import views
from yahtzee.interfaces.web.views import happened_text, state_json
from yahtzee.players.kinds import HUMAN


@pytest.fixture
def games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BrowserGames:
    """Return a server's games with a fresh data folder."""
    monkeypatch.setenv("YAHTZEE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    return BrowserGames(Solvers(), Problems())


def test_the_moves_sent_follow_every_change_and_each_view_keeps_its_own(
        games: BrowserGames, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each move's line is worded once; a later view has the later lines, an earlier view
    still its own, however many lines were forgotten between."""
    monkeypatch.setattr(views, "LINES_KEPT", 2)
    made = games.create(Settings(get_variant("yahtzee", "official"), (HUMAN, HUMAN),
                                 ("Ann", "Bo"), 11, coach=False, hot_seat=True))
    table, secret = made.table, made.secrets[0][0]
    seen = [table.view()]
    for move in (Move.toggle(1), Move.roll(), Move.score(), Move.box(13), Move.roll()):
        table.act(secret, move)
        seen.append(table.view())
    for view in seen + seen[::-1]:
        sent = state_json(view, frozenset({0}))["moves"]
        assert sent == [happened_text(event, view) for event in view.happened]
        sent.clear()  # an answer's list is its own
        assert state_json(view, frozenset({1}))["moves"] == [
            happened_text(event, view) for event in view.happened]
    drawn = random.Random(11)  # the game's dice, drawn independently: 5, 4 again, 5, 5
    throws = [[drawn.randint(1, 6) for _ in range(count)] for count in (5, 4, 5, 5)]
    kept = [throws[0][0], *throws[1]]

    def said(dice: list[int]) -> str:
        return " ".join(map(str, dice))
    lines = [f"Ann rolled {said(throws[0])}", f"Ann kept {throws[0][0]} and rolled: {said(kept)}",
             f"Ann scored {sum(kept)} points in Chance (total {sum(kept)})",
             f"Bo rolled {said(throws[2])}", f"Bo rolled all five again: {said(throws[3])}"]
    assert lines[0] == "Ann rolled 4 5 4 4 5"  # the seed's first throw, as a reader checks it
    assert [state_json(view, frozenset())["moves"] for view in seen] == [
        lines[:1], lines[:1], lines[:2], lines[:2], lines[:4], lines]
    assert len(views._lines_kept) <= 2
    renamed = replace(seen[-1], seats=tuple(replace(seat, name=seat.name + "ie")
                                            for seat in seen[-1].seats))
    assert state_json(renamed, frozenset())["moves"][-1] == "Boie" + lines[-1][2:]


def test_the_lines_of_a_game_still_in_view_stay_worded_while_other_games_come_and_go(
        games: BrowserGames, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lines kept are those sent most lately: a game whose state is sent again keeps its
    lines worded, and those of games not asked for since go first."""
    monkeypatch.setattr(views, "LINES_KEPT", 4)
    worded: list[str] = []
    wording = views._happened_line

    def counted(event: Any, name: str, variant: Any) -> str:
        """Word a line, noting it."""
        line = wording(event, name, variant)
        worded.append(line)
        return line
    monkeypatch.setattr(views, "_happened_line", counted)

    def two_lines(seed: int) -> GameView:
        """Return the view of a new game of two people after its first two lines."""
        made = games.create(Settings(get_variant("yahtzee", "official"), (HUMAN, HUMAN),
                                     ("Ann", "Bo"), seed, coach=False, hot_seat=True))
        made.table.act(made.secrets[0][0], Move.roll())
        view = made.table.view()
        assert len(view.happened) == 2
        return view
    kept_in_view, asked_once, newest = two_lines(1), two_lines(2), two_lines(3)
    for view in (kept_in_view, asked_once, kept_in_view):
        state_json(view, frozenset())
    assert len(worded) == 4  # the third state's lines were kept worded
    state_json(newest, frozenset())  # two more lines: two of the four kept go
    state_json(kept_in_view, frozenset())
    assert len(worded) == 6  # the game in view kept its lines; the game asked once lost its
    state_json(asked_once, frozenset())
    assert len(worded) == 8 and len(views._lines_kept) == 4
