"""The browser table's HTTP interface, through Starlette's test client: games, seats, refusals.

A whole seeded game against the computer is played through the API and
ends with the totals of the same game at the console; a refused request
(wrong seat, out of turn, malformed, oversized, unknown game) gets its 4xx
answer and changes nothing; a game comes back after the server restarts.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import io
import json
import re
import socket
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the test client's notice about httpx's successor
    from starlette.testclient import TestClient  # noqa: E402

from benchmarks.web_load import best_box, playback_seconds  # noqa: E402
from yahtzee.app.service import LiveGame  # noqa: E402
from tests.web_helpers import console_totals  # noqa: E402
from yahtzee.domain.games import get_variant  # noqa: E402
from yahtzee.app.browser import BrowserGame, Denial, GameRequestError  # noqa: E402
from yahtzee.app.session import Solvers, SolverUnavailableError  # noqa: E402
from yahtzee.interfaces.reporting import Reporter  # noqa: E402
from yahtzee.interfaces.wording import NUMPY_NEEDED  # noqa: E402
from yahtzee.interfaces.web import server  # noqa: E402
from yahtzee.interfaces.web.guards import allowed_hosts  # noqa: E402
from yahtzee.interfaces.web.limits import Limits  # noqa: E402
from yahtzee.interfaces.web.server import (MAX_BODY, PLAIN_HTTP, announce, bind,  # noqa: E402
                                           lan_address, make_app, reachable)
from yahtzee.domain.card import MenuItem  # noqa: E402
from yahtzee.interfaces.web.views import (STEPS_SENT, box_advice_words,  # noqa: E402
                                          keep_advice_words, scored_line)
from yahtzee.solver.coach import BoxAdvice, KeepAdvice  # noqa: E402
from yahtzee.solver.ranking import Keep, ScoreBox  # noqa: E402
from yahtzee.solver.cache import Solution  # noqa: E402
from yahtzee.solver.moments import Moments  # noqa: E402
from yahtzee.storage.history import History  # noqa: E402
from yahtzee.storage.appends import BackgroundAppends  # noqa: E402
from yahtzee.storage.saves import PendingAppend, SaveFile, SaveStore  # noqa: E402
from tests.helpers import Problems, collector_off, cycles_of_ours  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def client(data: Path) -> Iterator[TestClient]:
    """A test client of a fresh server (computers move at once) on a fresh data folder."""
    with TestClient(make_app(delay=0)) as test_client:
        yield test_client


def new_game(client: TestClient, join: bool = True, **form: Any) -> tuple[str, list[str]]:
    """Start a game; return its ID and its secrets in seat order.

    With ``join``, every seat's link is used at once (so a game of people starts).
    """
    answer = client.post("/api/games", json=form)
    assert answer.status_code == 201, answer.text
    made = answer.json()
    secrets = [link["secret"] for link in made["links"]]
    for secret in secrets[1:] if join else ():
        client.get(f"/api/games/{made['game']}", headers={"X-Seat-Secret": secret})
    return made["game"], secrets


def wait_turn(client: TestClient, game: str, secret: str) -> dict[str, Any]:
    """Return the state once it is a seat of ``secret`` to play, or the game is over."""
    state: dict[str, Any] = client.get(f"/api/games/{game}",
                                       headers={"X-Seat-Secret": secret}).json()
    while state["turn"] is not None and state["turn"] not in state["you"]:
        state = client.get(f"/api/games/{game}?after={state['version']}",
                           headers={"X-Seat-Secret": secret}).json()
    return state


def move(client: TestClient, game: str, secret: str, **body: Any) -> Any:
    """Send a move; return the answer."""
    return client.post(f"/api/games/{game}/moves", json=body, headers={"X-Seat-Secret": secret})


def test_requests_good_and_bad_leave_no_garbage_of_the_table_in_cycles(
        data: Path, course: Solution, course_moments: Moments) -> None:
    """A server turns the collector's own passes off (``server.collect_rarely``): a game played
    through the API, refused moves and bad requests among its own, must be freed by
    reference counts alone."""
    with collector_off():
        frozen = gc.get_freeze_count()
        never = Limits(collect_after=sys.maxsize)  # the server's own pass would hide cycles
        with TestClient(make_app(delay=0, limits=never)) as client:
            game, (secret,) = new_game(client, seed=8)
            state = wait_turn(client, game, secret)
            while state["turn"] is not None:
                assert move(client, game, secret, action="box", box=1).status_code == 409
                assert move(client, game, "not-a-seat", action="roll").status_code == 403
                assert client.post(f"/api/games/{game}/moves", content=b"{roll", headers={
                    "X-Seat-Secret": secret, "Content-Type": "application/json"}).status_code == 400
                assert client.get("/api/games/nothing-here").status_code == 404
                assert move(client, game, secret, action="score").status_code == 200
                answer = move(client, game, secret, action="box", box=best_box(
                    client.get(f"/api/games/{game}", headers={"X-Seat-Secret": secret}).json()))
                assert answer.status_code == 200, answer.text
                state = wait_turn(client, game, secret)
        assert cycles_of_ours() == []
        assert gc.get_freeze_count() == frozen


def newest_made(state: dict[str, Any]) -> int:
    """Return the ``made`` of the newest step a state gives (-1: none)."""
    return max((step["made"] for step in state["steps"]), default=-1)


def test_a_computer_s_turn_comes_in_one_state_that_gives_its_rolls_as_steps(
        data: Path, course: Solution, course_moments: Moments) -> None:
    """The server plays a computer's turn at once: the page waiting hears of it once, and the
    state's steps give each of its rolls, as its lines say them, for the page to play back."""
    pace = 0.2
    with TestClient(make_app(delay=pace)) as client:
        game, (secret,) = new_game(client, seed=8, rules="course")
        state = wait_turn(client, game, secret)
        for _ in range(4):
            move(client, game, secret, action="score")
            before = move(client, game, secret, action="box", box=best_box(state)).json()
            assert before["turn"] == 2 and before["pace"] == pace
            after = client.get(f"/api/games/{game}?after={before['version']}",
                               headers={"X-Seat-Secret": secret}).json()
            assert after["turn"] == 1  # the whole turn, in the first answer
            steps = after["steps"]
            assert len(steps) == min(STEPS_SENT, len(after["moves"]))
            lines = after["moves"][-len(steps):]
            fresh = [(step, line) for step, line in zip(steps, lines)
                     if step["made"] > newest_made(before)]
            *rolls, (box, scored), (first, rolled) = fresh
            assert [step["seat"] for step, _ in fresh] == [2] * (len(fresh) - 1) + [1]
            assert [step["rolls_left"] for step, _ in rolls] == [1, 0][:len(rolls)]
            for step, line in rolls:  # "Computer kept 2 2 and rolled: 2 2 5 1 2"
                faces = line.split(": ")[1].split()
                assert step["dice"] == faces and step["box"] is None
                kept = [face for face, saved in zip(faces, step["saved"]) if saved]
                said = re.fullmatch(r"Computer kept ([0-9 ]+) and rolled: .*", line)
                assert sorted(kept) == sorted(said.group(1).split() if said else [])
            assert scored.startswith("Computer scored") and box["box"] is not None
            assert first["made"] == box["made"] and first["saved"] is None
            assert first["rolls_left"] == 2 and first["dice"] == after["dice"]
            assert rolled == f"Player 1 rolled {' '.join(after['dice'])}"
            made = [step["made"] for step, _ in fresh]
            assert made == sorted(made) and len(set(made)) == len(rolls) + 1
            # a page plays each of the computer's moves but the last back before it
            assert playback_seconds(before, after) == pytest.approx(pace * len(rolls))
            state = after


def test_a_look_in_the_middle_of_a_computer_s_turn_waits_for_its_end(
        data: Path, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A move of the computer's made in a worker thread (a slow one here) leaves the loop free:
    a page that asks for a change meanwhile is answered with the whole turn, not half of it."""
    made = BrowserGame.computer_step

    def slow(table: BrowserGame) -> bool:
        """Make the computer's move in a worker thread, taking a while."""
        time.sleep(0.2)
        return made(table)

    monkeypatch.setattr(BrowserGame, "computer_step", slow)
    monkeypatch.setattr(BrowserGame, "computer_step_at_once", lambda table: None)
    with TestClient(make_app(delay=0)) as client:
        game, (secret,) = new_game(client, seed=8, rules="course")
        state = wait_turn(client, game, secret)
        move(client, game, secret, action="score")
        before = move(client, game, secret, action="box", box=best_box(state)).json()
        deadline = time.monotonic() + 10
        while client.get(f"/api/games/{game}").json()["version"] == before["version"]:
            assert time.monotonic() < deadline
            time.sleep(0.02)  # until the computer's first move is made, the rest to come
        after = client.get(f"/api/games/{game}?after={before['version']}",
                           headers={"X-Seat-Secret": secret}).json()
        assert after["turn"] == 1 and after["version"] > before["version"]


def test_each_computer_s_turn_waits_for_the_pages_to_play_the_last_one_back(
        data: Path, course: Solution, course_moments: Moments) -> None:
    """Two computers in a row: the second plays as long after the first as the pages take to
    play the first back, ``delay`` per move, so people follow each turn at the same pace."""
    pace = 0.3
    with TestClient(make_app(delay=pace)) as client:
        game, (secret,) = new_game(client, seed=4, rules="course", players=[
            {"kind": "human"}, {"kind": "computer"}, {"kind": "computer", "name": "Robo"}])
        state = wait_turn(client, game, secret)
        for _ in range(2):
            move(client, game, secret, action="score")
            state = move(client, game, secret, action="box", box=best_box(state)).json()
            heard = []
            while state["turn"] != 1:
                after = client.get(f"/api/games/{game}?after={state['version']}",
                                   headers={"X-Seat-Secret": secret}).json()
                moves = {step["made"] for step in after["steps"]  # the turn just played
                         if step["made"] > newest_made(state) and step["seat"] == state["turn"]}
                heard.append((time.monotonic(), after["turn"], len(moves)))
                state = after
            assert [turn for _, turn, _ in heard] == [3, 1]  # one answer per turn
            (first_at, _, first_moves), (second_at, _, second_moves) = heard
            assert first_moves >= 1 and second_moves >= 1
            assert second_at - first_at >= pace * first_moves - pace / 2


def test_a_seeded_game_against_the_computer_ends_as_the_same_game_at_the_console(
        client: TestClient, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    made_in: list[str] = []
    computer_move = LiveGame.computer_move

    def noted(live: LiveGame, **how: bool) -> Any:
        """Make the computer's move, noting the thread that makes it."""
        made_in.append(threading.current_thread().name.split("_")[0])
        return computer_move(live, **how)

    monkeypatch.setattr(LiveGame, "computer_move", noted)
    game, (secret,) = new_game(client, seed=8)
    lines: list[str] = []
    state = wait_turn(client, game, secret)
    while state["turn"] is not None:
        chances = state["win_chances"]
        assert [c["seat"] for c in chances] == [1, 2]
        assert 1 <= len(state["options"]) <= 3
        assert all(re.fullmatch(r"(keep [0-9 ]+ and roll|roll all|score now|score [A-Za-z ]+): "
                                r"\d+\.\d ± \d+\.\d(, upper bonus [<>]?\d+%)?"
                                r"(, Yahtzee [<>]?\d+%)?", line) for line in state["options"])
        assert abs(sum(c["chance"] for c in chances) - 1) < 1e-3
        answer = move(client, game, secret, action="score", version=state["version"])
        assert answer.status_code == 200, answer.text
        box = best_box(answer.json())
        answer = move(client, game, secret, action="box", box=box)
        assert answer.status_code == 200, answer.text
        lines += ["score", str(box)]
        state = wait_turn(client, game, secret)
    # The computer's first move and its last box were made in a worker thread, the others
    # on the event loop's thread.
    assert [n for n, name in enumerate(made_in) if name == "yahtzee-move"] == [
        0, len(made_in) - 1]
    totals = [player["total"] for player in state["players"]]
    assert totals == console_totals(["human", "computer"], 8, lines)
    assert state["win_chances"] is None
    assert [line.split(" = ")[0] for line in state["luck"]] == [
        f"Player 1: {totals[0]}", f"Computer: {totals[1]}"]
    # The computer plays to win: it may give up a few expected points, never many.
    cost = re.fullmatch(r"Computer: \d+ = \d+\.\d expected [+-] \d+\.\d luck - (\d+\.\d) decisions",
                        state["luck"][1])
    assert cost is not None and float(cost.group(1)) < 5
    best = max(totals)
    winner = "Player 1" if totals[0] > totals[1] else "Computer"
    assert state["winner"] == f"{winner} wins with {best} points"
    assert state["moves"][-1].startswith(("Computer scored", "Player 1 scored"))
    games = History(problems=Problems()).games()
    assert [g.uid for g in games] == [game]
    assert [(t.round, t.seat) for t in games[0].chances] == [
        (number, seat) for number in range(1, 14) for seat in (0, 1)]
    assert SaveStore(problems=Problems()).unfinished() == []
    # After a restart the game comes from the history, as its page saw its end
    monkeypatch.setattr(server, "LONG_POLL", 0.5)
    with TestClient(make_app(delay=0)) as restarted:
        again = restarted.get(f"/api/games/{game}", headers={"X-Seat-Secret": secret}).json()
        assert again == state
        assert restarted.get(f"/api/games/{game}").json()["you"] == []
        started = time.perf_counter()
        polled = restarted.get(f"/api/games/{game}?after={state['version']}",
                               headers={"X-Seat-Secret": secret}).json()
        assert time.perf_counter() - started >= 0.5 and polled == state
        assert game not in restarted.app.state.web.changes  # nothing kept for a game that ended


def test_a_seeded_game_against_a_level_ends_as_the_same_game_at_the_console(
        client: TestClient, official: Solution) -> None:
    """The level draws its choices from the game's dice generator, whichever front end plays."""
    game, (secret,) = new_game(client, seed=5, rules="official", coach=False,
                               players=[{"kind": "human"}, {"kind": "novice"}])
    lines: list[str] = []
    state = wait_turn(client, game, secret)
    while state["turn"] is not None:
        answer = move(client, game, secret, action="score", version=state["version"])
        assert answer.status_code == 200, answer.text
        box = best_box(answer.json())
        answer = move(client, game, secret, action="box", box=box)
        assert answer.status_code == 200, answer.text
        lines += ["score", str(box)]
        state = wait_turn(client, game, secret)
    totals = [player["total"] for player in state["players"]]
    assert totals == console_totals(["human", "novice"], 5, lines, rules="official")
    assert state["players"][1]["name"] == "Novice"


def test_a_toggle_leaves_the_options_and_the_chances_as_they_were(
        client: TestClient, course: Solution, course_moments: Moments) -> None:
    game, (secret,) = new_game(client, seed=8)
    state = wait_turn(client, game, secret)
    toggled = move(client, game, secret, action="toggle", die=1).json()
    assert toggled["saved"][0] and not state["saved"][0]
    assert (toggled["options"], toggled["win_chances"]) == (state["options"],
                                                            state["win_chances"])
    rolled = move(client, game, secret, action="roll").json()
    assert rolled["options"] != state["options"]


def test_the_coach_names_dice_by_place_and_boxes_by_name_as_the_page_shows_them(
        client: TestClient, course: Solution, course_moments: Moments) -> None:
    game, (secret,) = new_game(client, seed=8)
    state = wait_turn(client, game, secret)
    assert state["dice"] == ["2", "3", "4", "2", "2"]
    assert state["advice"] == ("Coach: keep 2 2 2 (save only the 1st, 4th and 5th dice) and "
                               "roll (expected final score 254.6)")
    assert (state["advice_box"], state["advice_dice"]) == (None, [1, 4, 5])
    scoring = move(client, game, secret, action="score").json()
    assert scoring["advice"] == "Coach: score 6 in Twos (expected final score 245.4)"
    assert (scoring["advice_box"], scoring["advice_dice"]) == (2, [])


def test_the_coach_s_keep_in_the_page_s_words() -> None:
    variant = get_variant("yahtzee", "course")
    keep = Keep((3, 4, 5), 5)
    assert keep_advice_words(KeepAdvice(keep, (1, 2, 4), True, False, 184.46), variant) == (
        "keep 3 4 5 (the saved dice) and roll (expected final score 184.5)")
    assert keep_advice_words(KeepAdvice(Keep((6,), 5), (3,), False, False, 200.0), variant) == (
        "keep 6 (save only the 3rd die) and roll (expected final score 200.0)")
    assert keep_advice_words(KeepAdvice(Keep((4,), 5), (2,), True, False, 200.0), variant) == (
        "keep 4 (the saved die) and roll (expected final score 200.0)")
    assert keep_advice_words(KeepAdvice(Keep((), 5), (), False, True, 200.0), variant) == (
        "unsave every die and roll them all (expected final score 200.0)")
    assert box_advice_words(BoxAdvice(ScoreBox(10, "Small Straight"), 222.54)) == (
        "score Small Straight (expected final score 222.5)")
    assert box_advice_words(BoxAdvice(ScoreBox(10, "Small Straight"), 222.54), 30) == (
        "score 30 in Small Straight (expected final score 222.5)")
    # a box the dice score nothing in is given up: no Yahtzee rolled, none said
    assert box_advice_words(BoxAdvice(ScoreBox(12, "Yahtzee"), 200.0), 0) == (
        "score 0 in Yahtzee, giving it up (expected final score 200.0)")
    # a Yahtzee bonus earned besides is told apart from the box's own points
    assert box_advice_words(BoxAdvice(ScoreBox(6, "Sixes"), 250.0), 30, 100) == (
        "score 30 in Sixes and a 100-point Yahtzee bonus (expected final score 250.0)")
    assert box_advice_words(BoxAdvice(ScoreBox(1, "Ones"), 250.0), 0, 100) == (
        "score 0 in Ones, giving it up, and a 100-point Yahtzee bonus "
        "(expected final score 250.0)")


def test_the_moves_list_says_one_point_as_one_point() -> None:
    assert scored_line("Computer", MenuItem(1, "Ones", 1), 1) == (
        "Computer scored 1 point in Ones (total 1)")
    assert scored_line("Ann", MenuItem(5, "Fives", 15), 45) == (
        "Ann scored 15 points in Fives (total 45)")
    assert scored_line("Ann", MenuItem(6, "Sixes", 130, 100), 230) == (
        "Ann scored 30 points in Sixes and a 100-point Yahtzee bonus (total 230)")
    assert scored_line("Bo", MenuItem(12, "Yahtzee", 100), 150) == (
        "Bo scored 100 points in Yahtzee (total 150)")


def test_each_seat_acts_only_for_itself_and_a_refusal_changes_nothing(
        client: TestClient) -> None:
    game, (first, second) = new_game(client, players=[{"kind": "human", "name": "Ann"},
                                                      {"kind": "human", "name": "Bob"}],
                                     coach=False)  # no chosen seed between people
    before = client.get(f"/api/games/{game}").json()
    assert before["turn"] == 1 and len(before["dice"]) == 5
    refusals = [
        (move(client, game, second, action="roll"), 409, "It is not your turn."),
        (move(client, game, "not-a-secret", action="roll"), 403,
         "This link does not play a seat of this game."),
        (move(client, game, first, action="box", box=3), 409,
         "Stop rolling first, then choose a box."),
        (move(client, game, first, action="toggle", die=6), 400,
         "'die' must be a number from 1 to 5."),
        (move(client, game, first, action="jump"), 400,
         "A move is toggle (with a die), roll, score or box (with a box)."),
        (move(client, game, first, action="roll", version=before["version"] - 1), 409,
         "The game moved on before this move came, so it was not made; "
         "choose again from where the game stands now."),
        (client.post(f"/api/games/{game}/moves", content=b"{roll", headers={
            "X-Seat-Secret": first, **JSON}), 400, "The request is not JSON."),
        (client.post(f"/api/games/{game}/moves", content=b" " * (MAX_BODY + 1), headers={
            "X-Seat-Secret": first, **JSON}), 413,
         f"A request may hold at most {MAX_BODY} bytes."),
        (move(client, "0" * 32, first, action="roll"), 404,
         "No game has this address. Check the link: a game nobody moves in is deleted "
         "after 7 days (15 minutes if it never began)."),
        (move(client, "../../etc/passwd", first, action="roll"), 404, None),
    ]
    for answer, status, message in refusals:
        assert answer.status_code == status, answer.text
        if message is not None:
            assert answer.json() == {"error": message}
    assert client.get(f"/api/games/{game}").json() == before
    [save] = SaveStore(problems=Problems()).unfinished()  # saved as made, its links given out
    assert save.snapshot.log == () and save.snapshot.turn is not None
    assert [str(v) for v in save.snapshot.turn.dice] == before["dice"]

    assert move(client, game, first, action="score").status_code == 200
    assert move(client, game, first, action="box", box=5).json()["turn"] == 2
    answer = move(client, game, first, action="roll")
    assert (answer.status_code, answer.json()) == (409, {"error": "It is not your turn."})
    assert move(client, game, second, action="toggle", die=2).json()["saved"][1] is True
    assert move(client, game, second, action="score").status_code == 200
    # rolling stopped: a die or a roll is refused, saying what is left to do
    for late in ({"action": "roll"}, {"action": "toggle", "die": 1}, {"action": "score"}):
        answer = move(client, game, second, **late)
        assert (answer.status_code, answer.json()) == (
            409, {"error": "No more rolling this turn: choose a box."}), late
    assert move(client, game, second, action="box", box=5).json()["turn"] == 1
    state = client.get(f"/api/games/{game}", headers={"X-Seat-Secret": second}).json()
    assert state["you"] == [2]
    saves = SaveStore(problems=Problems()).unfinished()
    assert [s.uid for s in saves] == [game]
    assert [p.name for p in saves[0].snapshot.players] == ["Ann", "Bob"]


def test_a_box_already_scored_is_refused_by_the_engine(client: TestClient) -> None:
    game, (first, second) = new_game(client, players=[{"kind": "human"}, {"kind": "human"}],
                                     coach=False)
    for secret in (first, second):
        move(client, game, secret, action="score")
        assert move(client, game, secret, action="box", box=1).status_code == 200
    move(client, game, first, action="score")
    before = client.get(f"/api/games/{game}").json()
    answer = move(client, game, first, action="box", box=1)
    assert (answer.status_code, answer.json()) == (
        422, {"error": "Please choose a box you have not scored yet."})
    assert client.get(f"/api/games/{game}").json() == before


@pytest.mark.parametrize("form, message", [
    ({"players": []}, "A game has 1 to 6 players."),
    ({"players": [{"kind": "wizard"}]},
     "Each player is one of: human, computer, expected, skilled, casual, novice, greedy."),
    ({"players": [{"kind": "human", "name": "A"}, {"kind": "human", "name": "A"}]},
     "Player names must differ: two players are called A."),
    ({"players": [{"kind": "human", "name": "Computer"}, {"kind": "computer"}]},
     "Player names must differ: two players are called Computer (a name left blank is the "
     "player's default name)."),
    ({"players": [{"kind": "human", "name": "x" * 25}]},
     "Names are plain text of at most 24 characters."),
    ({"players": [{"kind": "human", "name": "a\nb"}]},
     "Names are plain text of at most 24 characters."),
    ({"rules": "house"}, "The rules are one of: course, official."),
    ({"game": "chess"}, "The game is one of: yahtzee, poker-dice."),
    ({"seed": -1}, "A seed is a whole number from 0 to 9223372036854775807."),
    ({"seed": "abc"}, "A seed is a whole number from 0 to 9223372036854775807."),
    ({"coach": "yes"}, "'coach' must be true or false."),
    ([1, 2], "A new game is described by a JSON object."),
])
def test_a_bad_new_game_form_is_refused_with_what_is_wrong(
        client: TestClient, data: Path, form: Any, message: str) -> None:
    answer = client.post("/api/games", content=json.dumps(form).encode(), headers=JSON)
    assert (answer.status_code, answer.json()) == (400, {"error": message})
    assert not (data / "web").exists()


def test_hot_seat_gives_one_secret_for_every_person(client: TestClient) -> None:
    game, secrets = new_game(client, players=[{"kind": "human"}, {"kind": "human"}],
                             hot_seat=True, coach=False, seed=1)
    assert len(secrets) == 1
    move(client, game, secrets[0], action="score")
    assert move(client, game, secrets[0], action="box", box=13).json()["turn"] == 2
    assert move(client, game, secrets[0], action="score").status_code == 200


def test_a_game_goes_on_where_it_was_after_the_server_restarts(data: Path) -> None:
    with TestClient(make_app(delay=0)) as client:
        game, (first, second) = new_game(client, players=[{"kind": "human"},
                                                          {"kind": "human"}],
                                         coach=False)
        move(client, game, first, action="toggle", die=1)
        move(client, game, first, action="roll")
        before = client.get(f"/api/games/{game}").json()
    with TestClient(make_app(delay=0)) as client:
        after = client.get(f"/api/games/{game}", headers={"X-Seat-Secret": first}).json()
        assert [line.split(" ", 3)[2] for line in before["moves"]] == ["rolled", "kept"]
        for key in ("version", "dice", "saved", "rolls_left", "players", "turn", "moves"):
            assert after[key] == before[key], key
        assert after["you"] == [1]
        assert move(client, game, first, action="roll").status_code == 200
        assert move(client, game, second, action="roll").status_code == 409


def test_a_game_played_at_the_console_meanwhile_is_kept_and_comes_back(data: Path) -> None:
    """Resumed at the console, a browser game is not "no such game" (a page would forget
    its link): 423 with what happens, the same game again once the console lets go."""
    with TestClient(make_app(delay=0)) as client:
        game, (secret,) = new_game(client, coach=False)
        move(client, game, secret, action="toggle", die=1)
        before = client.get(f"/api/games/{game}").json()
    console = SaveStore(problems=Problems())
    save_id = console.find_uid(game)
    assert save_id is not None
    console.lock(save_id)                      # the console resumed it
    with TestClient(make_app(delay=0)) as client:
        for answer in (client.get(f"/api/games/{game}", headers={"X-Seat-Secret": secret}),
                       move(client, game, secret, action="roll")):
            assert answer.status_code == 423
            assert answer.json()["error"] == (
                "This game is being played in another window, at the console; it comes back "
                "here as soon as it is stopped there.")
        console.release(save_id)
        after = client.get(f"/api/games/{game}", headers={"X-Seat-Secret": secret}).json()
        assert (after["version"], after["saved"]) == (before["version"], before["saved"])
        assert move(client, game, secret, action="roll").status_code == 200


class Told(Reporter):
    """Keeps the server's error lines instead of printing them."""

    def __init__(self) -> None:
        """Start with nothing told."""
        self.lines: list[str] = []

    def error(self, message: str) -> None:
        """Keep ``message``."""
        self.lines.append(message)


def test_a_game_ended_elsewhere_stops_its_computers_without_a_report(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a shared database another process may file the game first: its save is gone, which
    is no failure of this server's to report."""
    for denial in (Denial.UNKNOWN_GAME, Denial.GAME_OVER):
        def gone(table: BrowserGame, denial: Denial = denial) -> bool:
            raise GameRequestError(denial)

        monkeypatch.setattr(BrowserGame, "computer_step", gone)
        monkeypatch.setattr(BrowserGame, "computer_step_at_once", lambda table: None)
        told = Told()
        app = make_app(delay=0, reporter=told)
        with TestClient(app) as client:
            game, _ = new_game(client, players=[{"kind": "greedy"}, {"kind": "greedy"}], seed=3)
            for _ in range(200):
                if game not in app.state.web.driving:
                    break
                time.sleep(0.01)
            assert game not in app.state.web.driving
        assert told.lines == []


def test_a_computer_s_failed_move_is_reported_and_the_game_goes_on(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = BrowserGame.computer_step
    failures = [GameRequestError(Denial.NOT_KEPT)]
    failed_at: list[int] = []

    def fails_once(table: BrowserGame) -> bool:
        """Fail the first computer's move as an unsaved one, then move as ever."""
        if failures:
            failed_at.append(table.version)
            raise failures.pop()
        return made(table)

    monkeypatch.setattr(BrowserGame, "computer_step", fails_once)
    told = Told()
    app = make_app(delay=0, reporter=told)
    with TestClient(app) as client:
        game, _ = new_game(client, players=[{"kind": "greedy"}, {"kind": "greedy"}], seed=3)
        for _ in range(200):  # the drive stopped at the failure: no move was made
            if told.lines:
                break
            time.sleep(0.01)
        assert told.lines == [f"a computer's move in game {game} failed (GameRequestError: "
                              f"{Denial.NOT_KEPT.value}); the server goes on"]
        assert app.state.web.games.live[game].version == failed_at[0]  # nothing was made
        assert not app.state.web.driving
        going = client.get(f"/api/games/{game}?after={failed_at[0]}")  # sets them going
        assert going.json()["version"] > failed_at[0]
    assert not failures and len(told.lines) == 1


def test_a_server_stopping_lets_the_computers_finish_the_move_in_hand(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = BrowserGame.computer_step
    versions: list[int] = []

    def slow(table: BrowserGame) -> bool:
        """Make the computer's move in a worker thread, taking a while, and note its version."""
        time.sleep(0.05)
        stepped = made(table)
        versions.append(table.version)
        return stepped

    monkeypatch.setattr(BrowserGame, "computer_step", slow)
    monkeypatch.setattr(BrowserGame, "computer_step_at_once", lambda table: None)
    told = Told()
    with TestClient(make_app(delay=0, reporter=told)) as client:
        game, _ = new_game(client, players=[{"kind": "greedy"}, {"kind": "greedy"}], seed=5,
                           coach=False)
        while len(versions) < 3:
            time.sleep(0.01)
    assert told.lines == []  # no move made after the saves were let go
    with TestClient(make_app(delay=3600)) as client:
        got = client.get(f"/api/games/{game}").json()
        assert got.get("version") == versions[-1], got


def test_a_saved_game_with_a_computer_is_refused_in_one_line_without_numpy(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with TestClient(make_app(delay=3600)) as client:
        game, (secret,) = new_game(client, seed=2, coach=False)
        before = client.get(f"/api/games/{game}", headers={"X-Seat-Secret": secret}).json()

    def no_numpy(solvers: Solvers, variant: object) -> None:
        """Fail as the solver does where numpy is not installed."""
        raise SolverUnavailableError("No module named 'numpy'")

    with monkeypatch.context() as patched:
        patched.setattr(Solvers, "load_in_background", no_numpy)
        with TestClient(make_app(delay=0)) as client:
            for answer in (client.get(f"/api/games/{game}", headers={"X-Seat-Secret": secret}),
                           move(client, game, secret, action="roll")):
                assert answer.status_code == 503
                assert answer.json() == {"error": NUMPY_NEEDED}
    with TestClient(make_app(delay=3600)) as client:
        after = client.get(f"/api/games/{game}", headers={"X-Seat-Secret": secret}).json()
        assert (after["version"], after["dice"]) == (before["version"], before["dice"])


def test_a_finished_game_shows_its_final_cards_and_winner_after_a_restart(data: Path) -> None:
    with TestClient(make_app(delay=0)) as client:
        game, [secret] = new_game(client, players=[{"kind": "human", "name": "Ann"}],
                                  game="poker-dice", seed=4, coach=False)
        state = wait_turn(client, game, secret)
        while state["turn"] is not None:
            move(client, game, secret, action="score")
            box = next(b["number"] for b in state["players"][0]["boxes"] if b["score"] is None)
            state = move(client, game, secret, action="box", box=box).json()
        final = client.get(f"/api/games/{game}").json()
        assert final["winner"] and final["phase"] == "over"
    with TestClient(make_app(delay=0)) as client:
        again = client.get(f"/api/games/{game}").json()
        for key in ("version", "winner", "phase", "players", "round", "moves"):
            assert again[key] == final[key], key
        assert [line.split(" ", 2)[1] for line in final["moves"]] == ["rolled", "scored"] * 9
        assert move(client, game, secret, action="roll").status_code == 404
        assert client.get(f"/api/games/{'0' * 32}").status_code == 404


def test_the_page_and_its_files_are_served_with_the_test_hooks(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert 'data-testid="new-game"' in page.text and 'data-testid="roll"' in page.text
    assert client.get("/game/" + "a" * 32).text == page.text
    assert "die-${index + 1}" in client.get("/static/app.js").text
    assert client.get("/static/../server.py").status_code == 404
    assert page.headers["x-frame-options"] == "DENY"


def test_an_address_not_served_is_answered_in_the_table_s_words(client: TestClient) -> None:
    """A person gets a page leading back to the table, a program the API's error."""
    for path in ("/nonsense", "/static/missing.js", "/game/a/b/c"):
        answer = client.get(path)
        assert answer.status_code == 404
        assert answer.headers["content-type"].startswith("text/html")
        assert "There is no page at this address." in answer.text
        assert 'href="/"' in answer.text and 'href="/history"' in answer.text
        assert answer.headers["x-frame-options"] == "DENY"
    assert client.get("/api/nonsense").json() == {"error": "Nothing is served at this address."}
    assert client.get("/api/nonsense").status_code == 404
    refused = client.put("/api/games", json={})
    assert (refused.status_code, refused.json(), refused.headers["allow"]) == (
        405, {"error": "This address does not take a PUT request."}, "POST")


def test_the_server_caps_its_live_games(data: Path) -> None:
    with TestClient(make_app(delay=0, capacity=2)) as client:
        games = [new_game(client, players=[{"kind": "human"}], coach=False) for _ in range(2)]
        move(client, games[0][0], games[0][1][0], action="score")  # the first is used last
        third, _ = new_game(client, players=[{"kind": "human"}], coach=False)
        assert client.get(f"/api/games/{third}").status_code == 200
        # the second game was let go, and comes back from its file on request
        assert client.get(f"/api/games/{games[1][0]}").status_code == 200


def test_every_connection_sends_its_answers_without_delay() -> None:
    """Nagle's algorithm is off on the server's connections (asyncio turns it off for TCP).

    With it on, the body of an answer written after its head waited for the
    client's delayed acknowledgement: 40 ms for requests that follow each
    other closely on a kept-alive connection.
    """
    listening = bind("127.0.0.1", 0)

    async def accept_one() -> int:
        """Accept one connection; return its TCP_NODELAY setting."""
        seen: list[int] = []

        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            """Note the setting and hang up."""
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP,
                                                                   socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(accepted, sock=listening)
        reader, writer = await asyncio.open_connection(*listening.getsockname()[:2])
        await reader.read()
        writer.close()
        server.close()
        await server.wait_closed()
        return seen[0]

    assert asyncio.run(accept_one()) != 0


def start(client: TestClient, game: str, secret: str) -> Any:
    """Ask to start the game with ``secret``; return the answer."""
    return client.post(f"/api/games/{game}/start", json={}, headers={"X-Seat-Secret": secret})


def test_a_game_of_two_people_takes_no_move_until_the_second_has_joined(
        client: TestClient) -> None:
    game, (ann, bo) = new_game(client, join=False, coach=False,
                               players=[{"kind": "greedy", "name": "Cy"},
                                        {"kind": "human", "name": "Ann"},
                                        {"kind": "human", "name": "Bo"}])
    state = client.get(f"/api/games/{game}", headers={"X-Seat-Secret": ann}).json()
    assert (state["started"], state["waiting"], state["host"]) == (False, [3], True)
    assert state["turn"] == 1 and state["moves"] == []  # the computer waits too
    for body in ({"action": "roll"}, {"action": "toggle", "die": 1}):
        answer = move(client, game, ann, **body)
        assert (answer.status_code, answer.json()) == (409, {
            "error": "Waiting for players to join."})
    assert client.get(f"/api/games/{game}").json() == state | {"host": False, "you": []}
    [save] = SaveStore(problems=Problems()).unfinished()
    assert save.browser is not None and save.browser.joined == (1,)
    assert not save.browser.started
    # Bo opens his link: the game starts, and Ann's page, waiting for a change, hears of it
    joined = client.get(f"/api/games/{game}", headers={"X-Seat-Secret": bo}).json()
    assert (joined["started"], joined["waiting"], joined["host"]) == (True, [], False)
    assert joined["version"] > state["version"]
    waited = client.get(f"/api/games/{game}?after={state['version']}").json()
    assert waited["version"] >= joined["version"]
    assert any(line.startswith("Cy scored") for line in wait_turn(client, game, ann)["moves"])
    assert move(client, game, ann, action="roll").status_code == 200


def test_the_host_starts_anyway_and_no_one_else_may(client: TestClient) -> None:
    game, (ann, bo) = new_game(client, join=False, coach=False,
                               players=[{"kind": "human"}, {"kind": "human"}])
    refusals = [
        (start(client, game, "not-a-secret"), 403,
         "This link does not play a seat of this game."),
        (client.post(f"/api/games/{game}/start", content=b"{", headers={
            "X-Seat-Secret": ann, **JSON}), 400, "The request is not JSON."),
        (client.post(f"/api/games/{game}/start", json=[], headers={
            "X-Seat-Secret": ann}), 400, "A start is a JSON object."),
        (start(client, "0" * 32, ann), 404,
         "No game has this address. Check the link: a game nobody moves in is deleted "
         "after 7 days (15 minutes if it never began)."),
    ]
    for answer, status, message in refusals:
        assert (answer.status_code, answer.json()) == (status, {"error": message})
    assert client.get(f"/api/games/{game}").json()["started"] is False
    started = start(client, game, ann)
    assert started.status_code == 200
    assert (started.json()["started"], started.json()["waiting"]) == (True, [2])
    assert move(client, game, ann, action="roll").status_code == 200
    assert start(client, game, ann).json()["started"] is True


def test_a_guest_may_not_start_the_game(client: TestClient) -> None:
    game, (ann, bo, cy) = new_game(client, join=False, coach=False,
                                   players=[{"kind": "human"}] * 3)
    answer = start(client, game, bo)
    assert (answer.status_code, answer.json()) == (403, {
        "error": "Only the player who made the game can start it before everyone has joined."})
    state = client.get(f"/api/games/{game}").json()
    assert (state["started"], state["waiting"]) == (False, [3])  # Bo has joined by asking


def test_the_waiting_room_survives_a_restart(data: Path) -> None:
    with TestClient(make_app(delay=0)) as client:
        game, (ann, bo) = new_game(client, join=False, coach=False,
                                   players=[{"kind": "human"}, {"kind": "human"}])
        before = client.get(f"/api/games/{game}").json()
    with TestClient(make_app(delay=0)) as client:
        after = client.get(f"/api/games/{game}").json()
        assert after == before and not after["started"]
        assert move(client, game, ann, action="roll").status_code == 409
        assert client.get(f"/api/games/{game}", headers={"X-Seat-Secret": bo}).json()["started"]
        assert move(client, game, ann, action="roll").status_code == 200


def links(client: TestClient, game: str, secret: str | None) -> Any:
    """Ask for the seats' links again with ``secret`` (None: no secret); return the answer."""
    headers = {} if secret is None else {"X-Seat-Secret": secret}
    return client.post(f"/api/games/{game}/links", json={}, headers=headers)


def seat_of(client: TestClient, game: str, secret: str) -> list[int]:
    """Return the seats (from 1) ``secret`` plays in ``game``, as the state says."""
    seats: list[int] = client.get(f"/api/games/{game}",
                                  headers={"X-Seat-Secret": secret}).json()["you"]
    return seats


def saves(data: Path) -> dict[str, bytes]:
    """Return every save of the data folder with its contents (lock files are left alone)."""
    return {path.name: path.read_bytes() for path in sorted((data / "saves").glob("*.json"))}


def test_the_host_gets_new_links_for_the_seats_not_joined_and_the_old_ones_stop_working(
        data: Path) -> None:
    with TestClient(make_app(delay=0)) as client:
        game, (ann, bo, cy) = new_game(client, join=False, coach=False,
                                       players=[{"kind": "human"}] * 3)
        assert seat_of(client, game, cy) == [3]  # Cy joins; Bo has not
        saved = saves(data)
        not_host = "Only the player who made the game can get the seats' links again."
        no_seat = "This link does not play a seat of this game."
        for secret, status, message in ((cy, 403, not_host), (None, 403, no_seat),
                                        ("not-a-secret", 403, no_seat)):
            answer = links(client, game, secret)
            assert (answer.status_code, answer.json()) == (status, {"error": message})
        answer = client.post(f"/api/games/{game}/links", content=b"{", headers={
            "X-Seat-Secret": ann, **JSON})
        assert (answer.status_code, answer.json()) == (400, {"error": "The request is not JSON."})
        assert saves(data) == saved  # every refusal changed nothing
        answer = links(client, game, ann)
        assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
        given = answer.json()
        assert given["game"] == game
        assert [(link["seats"], link["secret"] == ann) for link in given["links"]] == [
            ([1], True), ([2], False)]  # Cy's link, already used, is not given again
        new_bo = given["links"][1]["secret"]
        assert new_bo not in (ann, bo, cy)
        assert seat_of(client, game, bo) == [] and links(client, game, bo).status_code == 403
        assert move(client, game, bo, action="roll").status_code == 403
        assert seat_of(client, game, cy) == [3] and seat_of(client, game, ann) == [1]
        waiting = client.get(f"/api/games/{game}").json()
        assert (waiting["started"], waiting["waiting"]) == (False, [2])
        assert saves(data) != saved
    with TestClient(make_app(delay=0)) as client:  # the new links survive a restart
        assert seat_of(client, game, bo) == []
        assert seat_of(client, game, new_bo) == [2]  # Bo joins with his new link
        state = client.get(f"/api/games/{game}").json()
        assert (state["started"], state["waiting"]) == (True, [])
        again = links(client, game, ann).json()["links"]
        assert again == [{"seats": [1], "secret": ann}]  # everyone joined: nothing new
        assert seat_of(client, game, new_bo) == [2]


def test_the_form_s_options_explain_the_kinds_and_rules(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert options["default_rules"] == "official"
    assert [(k["shown"], k["description"]) for k in options["kinds"]] == [
        ("Person", "someone at this screen or on their own link"),
        ("Computer", "plays to win"), ("Expected", "plays for the highest average score"),
        ("Skilled", "plays like a strong player: about 10 points a game below the best"),
        ("Casual", "plays like a fair player: about 25 points a game below the best"),
        ("Novice", "plays like a beginner: about 45 points a game below the best"),
        ("Greedy", "takes the most points now")]
    assert {r["name"]: (r["label"], r["description"]) for r in options["rule_sets"]} == {
        "official": ("Official (Hasbro)", "after a 50 in Yahtzee, every Yahtzee adds 100 "
                     "points; with the Yahtzee box filled, a Yahtzee goes in another box as a "
                     "joker"),
        "course": ("Course (CS2100)", "after a 50 in Yahtzee, a Yahtzee may be scored there "
                   "again for a 100-point bonus (3 at most), which takes the whole turn; no "
                   "joker")}
    assert [(g["name"], g["label"]) for g in options["games"]] == [
        ("yahtzee", "Yahtzee"), ("poker-dice", "Poker Dice")]
    assert options["games"][1]["description"].endswith(
        "a 9 counts 9, a 10, J, Q or K counts 10 and an A 11")
    assert options["address"] is None  # no socket here: the page uses its own origin


def test_the_address_to_share_is_the_network_s_when_bound_to_every_interface() -> None:
    listening = bind("127.0.0.1", 0)
    port = listening.getsockname()[1]
    assert reachable(listening) == f"http://127.0.0.1:{port}"
    listening.close()
    everywhere = bind("0.0.0.0", 0)
    port = everywhere.getsockname()[1]
    network = lan_address()
    assert reachable(everywhere) == f"http://{network or '127.0.0.1'}:{port}"
    everywhere.close()


@pytest.mark.parametrize("text, paragraph", [
    (PLAIN_HTTP, "**Behind a TLS reverse proxy.**"), (Limits.__doc__ or "", "**On a network.**")])
def test_the_server_points_to_the_manual_s_page_that_says_more(text: str, paragraph: str) -> None:
    """The TLS proxy and the limits are told in docs/browser.md (the README only links it)."""
    pages = re.findall(r"docs/[\w-]+\.md", text)
    assert pages, text
    root = Path(__file__).resolve().parents[2]
    assert all(paragraph in (root / page).read_text(encoding="utf-8") for page in pages)


def test_the_printed_address_on_every_interface_is_one_the_server_answers() -> None:
    """Bound to 0.0.0.0, the first line names 127.0.0.1 (the server refuses the host 0.0.0.0)."""
    everywhere = bind("0.0.0.0", 0)
    port = everywhere.getsockname()[1]
    printed = io.StringIO()
    announce(everywhere, printed)
    first = printed.getvalue().splitlines()[0]
    assert first == f"Yahtzee is served at http://127.0.0.1:{port}/  (open it in a browser)"
    assert max(len(line) for line in printed.getvalue().splitlines()) <= 80  # a terminal's
    assert "0.0.0.0" not in printed.getvalue()
    assert "127.0.0.1" in allowed_hosts("0.0.0.0") and "0.0.0.0" not in allowed_hosts("0.0.0.0")
    everywhere.close()


COMPILED_APPENDS = pytest.mark.skipif(not BackgroundAppends.available(),
                                      reason="the compiled appends were not built")


def _count_whole_writes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count the saves of people's moves written by ``BrowserGame.keep_move`` (a save thread)."""
    whole: list[str] = []
    keep_move = BrowserGame.keep_move

    def counted(table: BrowserGame) -> None:
        whole.append(table.game_id)
        keep_move(table)
    monkeypatch.setattr(BrowserGame, "keep_move", counted)
    return whole


def _moves_then_restart(toggles: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Toggle ``toggles`` dice and roll in a game of two people; return its state as the server
    gave it after the roll and as a server started again on the same folder reads it."""
    keys = ("version", "dice", "saved", "rolls_left", "turn", "moves")
    with TestClient(make_app(delay=0)) as client:
        game, (first, _) = new_game(client, players=[{"kind": "human"}, {"kind": "human"}],
                                    coach=False)
        for die in range(1, toggles + 1):
            assert move(client, game, first, action="toggle", die=die).status_code == 200
        answer = move(client, game, first, action="roll")
        assert answer.status_code == 200
        before = {key: answer.json()[key] for key in keys}
    with TestClient(make_app(delay=0)) as client:
        after = client.get(f"/api/games/{game}").json()
        return before, {key: after[key] for key in keys}


@COMPILED_APPENDS
def test_a_person_s_move_is_appended_on_the_disk_by_the_compiled_threads(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move made on the loop has its save's line appended without a Python thread, and is on
    the disk when answered (a server started again has it)."""
    whole = _count_whole_writes(monkeypatch)
    before, after = _moves_then_restart(3)
    assert after == before and before["rolls_left"] == 1
    assert before["saved"] == [True, True, True, False, False]
    assert whole == []


@COMPILED_APPENDS
def test_a_failed_append_of_a_move_writes_its_save_whole_before_the_answer(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled threads cannot append (the file is not where the line goes): the move is
    answered only once its save is written whole, and nothing is lost."""
    whole = _count_whole_writes(monkeypatch)
    append_later = SaveStore.append_later

    def elsewhere(store: SaveStore, save: SaveFile) -> PendingAppend | None:
        """Make the line, and send it to a file that is not there."""
        line = append_later(store, save)
        return None if line is None else replace(line, path=data / "nowhere" / "1.json")
    monkeypatch.setattr(SaveStore, "append_later", elsewhere)
    before, after = _moves_then_restart(3)
    assert after == before and before["rolls_left"] == 1
    assert before["saved"] == [True, True, True, False, False]
    assert len(whole) == 3  # the moves made on the loop (the first is made in a thread)


@COMPILED_APPENDS
def test_an_append_that_cannot_be_handed_to_the_threads_writes_the_save_whole(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No thread or pipe to be had (``OSError`` at the hand-off): the move's save is written
    whole before the answer, and the game is let go of."""
    whole = _count_whole_writes(monkeypatch)

    def refused(*args: object) -> None:
        """Fail as a process out of threads does."""
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
    monkeypatch.setattr(BackgroundAppends, "submit", refused)
    before, after = _moves_then_restart(3)
    assert after == before and before["rolls_left"] == 1
    assert before["saved"] == [True, True, True, False, False]
    assert len(whole) == 3  # the moves made on the loop (the first is made in a thread)
