"""The page's JSON of a table (``views.state_json``) as the game moves on, without a server.

Games of people alone without the coach need no solver.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.helpers import Problems
from yahtzee.app.browser import BrowserGames, Settings
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
    lines = ["Ann rolled 4 5 4 4 5", "Ann kept 4 and rolled: 4 5 2 2 5",
             "Ann scored 18 points in Chance (total 18)", "Bo rolled 4 6 5 2 1",
             "Bo rolled all five again: 4 3 2 1 5"]
    assert [state_json(view, frozenset())["moves"] for view in seen] == [
        lines[:1], lines[:1], lines[:2], lines[:2], lines[:4], lines]
    assert len(views._lines_kept) <= 2
    renamed = replace(seen[-1], seats=tuple(replace(seat, name=seat.name + "ie")
                                            for seat in seen[-1].seats))
    assert state_json(renamed, frozenset())["moves"][-1] == "Boie rolled all five again: 4 3 2 1 5"
