"""The history and review pages over HTTP: listing, paging, filters, escaping, errors, headers."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the test client's notice about httpx's successor
    from starlette.testclient import TestClient  # noqa: E402

from tests.helpers import run_cli  # noqa: E402
from tests.interfaces.test_review import parse, script  # noqa: E402
from yahtzee.interfaces.web.pages import PAGE_SIZE, stats_section  # noqa: E402
from yahtzee.interfaces.web.server import make_app  # noqa: E402
from yahtzee.solver.cache import Solution  # noqa: E402
from yahtzee.solver.moments import Moments  # noqa: E402
from yahtzee.storage.history import History, PlayerResult  # noqa: E402
from yahtzee.storage.stats import compute_stats  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")
LISTED = re.compile(r'data-testid="history-game-(\d+)" href="/game/(\d+)/review"')


@pytest.fixture
def client(data: Path) -> Iterator[TestClient]:
    """A test client of a fresh server on a fresh data folder."""
    with TestClient(make_app(delay=0)) as test_client:
        yield test_client


def play(names: str, seed: int, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str], rules: str = "course") -> None:
    """Play a seeded console game of people who score box N in round N."""
    count = len(names.split(","))
    status, _, err = run_cli(["--players", ",".join(["human"] * count), "--names", names,
                              "--seed", str(seed), "--rules", rules], script(13) * count,
                             monkeypatch, capsys)
    assert (status, err) == (0, "")


def listed(text: str) -> list[int]:
    """Return the game numbers a history page lists, checking that each links to its review."""
    found = LISTED.findall(text)
    assert all(a == b for a, b in found)
    return [int(a) for a, _ in found]


def test_the_history_lists_pages_and_filters_the_finished_games(
        client: TestClient, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    empty = client.get("/history")
    assert empty.status_code == 200 and "No finished games yet" in empty.text
    for seed in range(PAGE_SIZE + 1):
        play("Ann,Bob" if seed % 2 else "Cy", seed, monkeypatch, capsys,
             "official" if seed == 3 else "course")
    first = client.get("/history")
    assert first.status_code == 200
    assert first.headers["content-type"].startswith("text/html")
    assert "content-security-policy" in first.headers
    assert listed(first.text) == list(range(PAGE_SIZE + 1, 1, -1))      # newest first
    assert 'href="/history?page=2"' in first.text and "Page 1 of 2" in first.text
    assert listed(client.get("/history?page=2").text) == [1]
    assert listed(client.get("/history?page=99").text) == [1]          # the last page
    assert listed(client.get("/history?page=x").text)[0] == PAGE_SIZE + 1
    for before_the_first in ("0", "00"):                             # not "No game matches"
        assert listed(client.get(f"/history?page={before_the_first}").text)[0] == PAGE_SIZE + 1
    bob = client.get("/history", params={"player": "BO"}).text
    assert listed(bob) == list(range(PAGE_SIZE, 0, -2))
    assert listed(client.get("/history", params={"game": "yahtzee/official"}).text) == [4]
    assert listed(client.get("/history", params={"player": "cy", "game": "yahtzee/official"}
                             ).text) == []
    assert "<svg" in first.text and "Statistics" in first.text
    # the games are named in words, as the list names them; the filter's value stays the label
    assert '<option value="yahtzee/official">Yahtzee, official rules</option>' in first.text
    assert "<td class=\"game\">Yahtzee, course rules</td>" in first.text
    assert "(Yahtzee, course rules)" in first.text
    assert ">yahtzee/course<" not in first.text and "(yahtzee/course)" not in first.text
    assert parse(first.text).scripts == 0 and parse(first.text).styled == 0


def test_the_statistics_are_those_of_the_games_the_filters_chose(
        client: TestClient, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    play("Ann,Bob", 1, monkeypatch, capsys)
    play("Cy", 2, monkeypatch, capsys, "official")
    every = client.get("/history").text
    assert "<p>2 finished games. A win is" in every
    assert '<th scope="row">Ann</th>' in every and '<th scope="row">Cy</th>' in every
    cy = client.get("/history", params={"player": "cy"}).text
    assert listed(cy) == [2]
    assert "<p>1 finished game matches the filters. A win is" in cy
    assert '<th scope="row">Cy</th>' in cy and '<th scope="row">Ann</th>' not in cy
    course = client.get("/history", params={"game": "yahtzee/course"}).text
    assert "<p>1 finished game matches the filters." in course
    assert '<th scope="row">Ann</th>' in course and '<th scope="row">Cy</th>' not in course
    # a game none was played of: the form shows it chosen, the list and the statistics are empty
    poker = client.get("/history", params={"game": "poker-dice"}).text
    assert listed(poker) == [] and "No finished game matches." in poker
    assert '<option value="poker-dice" selected>Poker Dice</option>' in poker
    assert 'value="" selected' not in poker and "Statistics" not in poker
    # every game is offered, played or not, in the registry's order; a game no one can play
    # (a hand-typed address) is no filter, and is not offered
    offered = re.findall(r'<option value="([^"]*)"', poker)
    assert offered == ["", "yahtzee/course", "yahtzee/official", "poker-dice"]
    typed = client.get("/history", params={"game": "foo"}).text
    assert re.findall(r'<option value="([^"]*)"', typed) == offered
    assert '<option value="" selected>every game</option>' in typed and "foo" not in typed
    assert listed(typed) == listed(every)


def test_names_are_escaped_and_a_review_is_found_by_number_or_browser_id(
        client: TestClient, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    play("<script>x</script>,A&B", 5, monkeypatch, capsys)
    history = client.get("/history", params={"player": "<script>"}).text
    assert "<script>" not in history and "&lt;script&gt;x&lt;/script&gt;" in history
    assert 'value="&lt;script&gt;"' in history
    review = client.get("/game/1/review")
    assert review.status_code == 200 and "<script>" not in review.text
    page = parse(review.text)
    assert page.charts == 1 and len(page.lines) == 2 and len(page.rows) == 26
    assert 'href="/review.css"' in review.text and "<style>" not in review.text
    # the table's bar: the name leads to the start page; the game's own heading is under it
    assert ('<header><p class="brand"><a href="/">Yahtzee</a></p><nav aria-label="Pages">'
            '<a href="/">New game</a><a href="/history">Finished games</a></nav></header>'
            '<main><h1>Game 1: ') in review.text
    css = client.get("/review.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    uid = History().games()[0].uid
    assert re.fullmatch(r"[0-9a-f]{32}", uid)
    assert client.get(f"/game/{uid}/review").text == review.text
    for missing in ("2", "abc", "0" * 32, "9" * 12):
        answer = client.get(f"/game/{missing}/review")
        assert answer.status_code == 404 and "No finished game" in answer.text
        # a browser game's address is no number: the page does not call it one
        assert ("No finished game has this number or address: a game is reviewed once it is "
                "over.") in answer.text
        # a browser game's address leads back to its table (most likely still in play)
        back = f'<a href="/game/{missing}">Back to the game</a>'
        assert (back in answer.text) == (len(missing) == 32)
    # the history names games by number: /game/<number> is that game's review
    moved = client.get("/game/1", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (303, "/game/1/review")
    assert client.get("/game/1").text == review.text
    assert client.get("/game/2").status_code == 404
    table = client.get(f"/game/{'1' * 32}", follow_redirects=False)  # an address, not a number
    assert table.status_code == 200 and 'id="missing"' in table.text
    # the table's bar leads to the same pages as the review's
    assert ('<a href="/" class="wide-only">New game</a> <a href="/history">Finished games</a>'
            in table.text)


def test_the_pages_icon_is_answered_where_browsers_ask_for_it(client: TestClient) -> None:
    # the history and review pages name no icon: a browser asks /favicon.ico, once a page
    answer = client.get("/favicon.ico")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("image/svg+xml")
    assert answer.content == client.get("/static/favicon.svg").content
    assert answer.content.startswith(b"<svg")


def test_the_calibration_is_told_in_words_a_player_follows() -> None:
    """The chances' calibration says what Predicted and Observed are, and over how many games."""
    results = [PlayerResult(1, "yahtzee/course", "Ann", "human", 200, True, 1),
               PlayerResult(1, "yahtzee/course", "Computer", "computer", 180, False, 1)]
    one = stats_section(compute_stats(results, [(0.55, 1.0), (0.45, 0.0)], 1))
    assert ("Over 1 game with win chances: the chance given, as each turn began, to the player "
            "about to roll (Predicted, grouped by tenths) beside how often those players won "
            "(Observed; a tie counts as a share). Chances that hold true lie on the "
            "diagonal.") in one
    assert "<p>1 finished game. A win is" in one
    # a computer is named as the new-game form names its kind, not by its filed strength
    assert ('<tr><th scope="row">Computer</th><td class="game">Yahtzee, course rules</td>' in one
            and "<figcaption>Computer (Yahtzee, course rules): scores of 1 game" in one
            and "Scores of Computer in" in one and ">computer<" not in one)
    two = stats_section(compute_stats(results, [(0.55, 1.0)], 2), filtered=True)
    assert "Over 2 games with win chances" in two
    assert "<p>1 finished game matches the filters. A win is" in two
