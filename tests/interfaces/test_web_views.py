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
from yahtzee.app.browser import BrowserGame, BrowserGames, Settings
from yahtzee.app.session import Solvers
from yahtzee.domain.games import get_variant
from yahtzee.engine.engine import Phase
from yahtzee.engine.moves import Move
from yahtzee.interfaces.web import views
from yahtzee.interfaces.web.views import happened_text, state_json
from yahtzee.interfaces.wording import profile_text
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
    monkeypatch.setattr(views, "GAMES_KEPT", 1)
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
    assert len(views._worded) <= 1
    renamed = replace(seen[-1], seats=tuple(replace(seat, name=seat.name + "ie")
                                            for seat in seen[-1].seats))
    assert state_json(renamed, frozenset())["moves"][-1] == "Boie" + lines[-1][2:]


def test_a_game_s_next_state_words_only_its_new_moves_and_the_games_sent_longest_ago_go(
        games: BrowserGames, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each game keeps the lines its last state sent: the next state words only the moves
    that are new to it, however many games are sent between, as long as it is among the
    ``GAMES_KEPT`` games sent most lately."""
    monkeypatch.setattr(views, "GAMES_KEPT", 2)
    worded: list[str] = []
    wording = views._happened_line

    def counted(event: Any, name: str, variant: Any) -> str:
        """Word a line, noting it."""
        line = wording(event, name, variant)
        worded.append(line)
        return line
    monkeypatch.setattr(views, "_happened_line", counted)

    def started(seed: int) -> tuple[BrowserGame, str]:
        """Return a new game of two people, its first roll thrown, and its first seat's secret."""
        made = games.create(Settings(get_variant("yahtzee", "official"), (HUMAN, HUMAN),
                                     ("Ann", "Bo"), seed, coach=False, hot_seat=True))
        return made.table, made.secrets[0][0]
    (kept, secret), (asked_once, _), (newest, _) = started(1), started(2), started(3)
    for table in (kept, asked_once, kept):
        state_json(table.view(), frozenset())
    assert len(worded) == 2  # each game's first roll, once
    kept.act(secret, Move.roll())
    sent = state_json(kept.view(), frozenset())["moves"]
    assert len(worded) == 3 and sent[1] == worded[-1] and sent[0] == worded[0]
    state_json(newest.view(), frozenset())  # a third game: the one sent longest ago goes
    assert len(worded) == 4 and list(views._worded) == [kept.game_id, newest.game_id]
    kept.act(secret, Move.score())
    kept.act(secret, Move.box(13))
    sent = state_json(kept.view(), frozenset())["moves"]
    assert len(worded) == 6 and sent[:2] == [worded[0], worded[2]]  # two new lines
    state_json(asked_once.view(), frozenset())
    assert len(worded) == 7 and len(views._worded) == 2
    over = replace(kept.view(), phase=Phase.OVER)  # a game at its end lets go of its lines
    assert state_json(over, frozenset())["moves"] == sent
    assert list(views._worded) == [asked_once.game_id]


def test_the_coach_s_options_leave_out_a_goal_every_one_of_them_settles(
        games: BrowserGames) -> None:
    """Once the Yahtzee box is filled (every option "Yahtzee 100%") or the bonus is earned or
    out of reach, the page's options leave that chance out; a chance any option leaves open,
    or that options make certain different ways, is told for all of them, and the console's
    words keep both."""
    from yahtzee.solver.profiles import Profile
    from yahtzee.solver.ranking import Keep
    made = games.create(Settings(get_variant("yahtzee", "official"), (HUMAN, HUMAN),
                                 ("Ann", "Bo"), 11, coach=False, hot_seat=True))
    view = made.table.view()
    keep, now = Keep((4, 4), 5), Keep((1, 2, 3, 4, 4), 5)

    def options(*profiles: Profile) -> list[str]:
        offered = replace(view, options=((keep, profiles[0]), (now, profiles[1])))
        return list(state_json(offered, frozenset({0}))["options"])
    assert options(Profile(250.04, 50.0, 1.0, 1.0), Profile(240.0, 48.0, 1.0, 0.25)) == [
        "keep 4 4 and roll: 250.0 ± 50.0, Yahtzee 100%",
        "score now: 240.0 ± 48.0, Yahtzee 25%"]
    assert options(Profile(250.0, 50.0, 0.0, 1.0), Profile(240.0, 48.0, 0.3, 1.0)) == [
        "keep 4 4 and roll: 250.0 ± 50.0, upper bonus 0%",
        "score now: 240.0 ± 48.0, upper bonus 30%"]
    assert options(Profile(250.0, 50.0, 0.0, 1.0), Profile(240.0, 48.0, 0.0, 1.0)) == [
        "keep 4 4 and roll: 250.0 ± 50.0", "score now: 240.0 ± 48.0"]
    assert options(Profile(250.0, 50.0, 1 - 1e-12, 1.0), Profile(240.0, 48.0, 1.0, 1e-12)) == [
        "keep 4 4 and roll: 250.0 ± 50.0, Yahtzee 100%",   # 1e-12 short of 1: settled
        "score now: 240.0 ± 48.0, Yahtzee <1%"]
    assert options(Profile(250.0, 50.0, 1.0, 1.0), Profile(240.0, 48.0, 0.0, 1.0)) == [
        "keep 4 4 and roll: 250.0 ± 50.0, upper bonus 100%",   # certain both ways: open
        "score now: 240.0 ± 48.0, upper bonus 0%"]
    assert options(Profile(250.0, 50.0, 0.999, 0.001), Profile(240.0, 48.0, 0.5, 0.5)) == [
        "keep 4 4 and roll: 250.0 ± 50.0, upper bonus >99%, Yahtzee <1%",
        "score now: 240.0 ± 48.0, upper bonus 50%, Yahtzee 50%"]
    assert profile_text(Profile(250.0, 50.0, 1.0, 1.0)) == (
        "250.0 ± 50.0, upper bonus 100%, Yahtzee 100%")


def test_the_coach_s_roll_of_every_die_is_told_to_the_page_which_stars_no_die(
        games: BrowserGames) -> None:
    """The coach's keep of no die marks none, so the state says it outright (the page says
    "Coach: roll all" beside the dice), for the seat advised alone and only while rolling."""
    from yahtzee.solver.coach import BoxAdvice, KeepAdvice
    from yahtzee.solver.ranking import Keep, ScoreBox
    made = games.create(Settings(get_variant("yahtzee", "official"), (HUMAN, HUMAN),
                                 ("Ann", "Bo"), 11, coach=False, hot_seat=True))
    view = made.table.view()
    assert view.phase is Phase.ROLLING and view.seat == 0

    def told(advice: KeepAdvice, you: frozenset[int] = frozenset({0}),
             phase: Phase = Phase.ROLLING) -> tuple[bool, list[int]]:
        state = state_json(replace(view, advice=advice, phase=phase), you)
        return state["advice_roll_all"], state["advice_dice"]
    assert told(KeepAdvice(Keep((), 5), (), False, False, 200.0)) == (True, [])
    assert told(KeepAdvice(Keep((), 5), (), False, True, 200.0)) == (True, [])  # unsave all
    assert told(KeepAdvice(Keep((4, 4), 5), (1, 2), False, False, 210.0)) == (False, [1, 2])
    assert told(KeepAdvice(Keep((), 5), (), False, False, 200.0), frozenset({1}))[0] is False
    assert told(KeepAdvice(Keep((), 5), (), False, False, 200.0),
                phase=Phase.SCORING)[0] is False
    roll_all = KeepAdvice(Keep((), 5), (), False, False, 200.0)
    pending = state_json(replace(view, advice=roll_all, coach_pending=True), frozenset({0}))
    assert pending["advice_roll_all"] is False   # the coach is getting ready: no advice yet
    now = state_json(replace(view, advice=roll_all,
                             box_now=BoxAdvice(ScoreBox(13, "Chance"), 200.0)), frozenset({0}))
    assert now["advice_roll_all"] is False and now["advice_box"] == 13   # score now instead


def test_the_coach_tells_a_yahtzee_bonus_apart_from_the_box_s_points(
        games: BrowserGames) -> None:
    """A second Yahtzee of sixes under official rules: the coach's box gets 30, the bonus is
    100 apart (as ``advise`` and the moves' lines tell them); under course rules a bonus,
    which is the whole turn, is the Yahtzee box's 100, as ``advise`` says it.  A box's
    ``now`` keeps all the choice adds; its ``bonus``, what the button shows and its label in
    the coach's words tell the bonus apart."""
    from yahtzee.domain.dice import Dice
    from yahtzee.solver.coach import BoxAdvice, KeepAdvice
    from yahtzee.solver.ranking import Keep, ScoreBox
    sixes = Dice.of([6, 6, 6, 6, 6])
    score_now = KeepAdvice(Keep((6, 6, 6, 6, 6), 5), (), False, False, 250.04)

    def coach_says(rules: str, card: list[int | None], box: ScoreBox,
                   phase: Phase = Phase.SCORING) -> tuple[str, dict[int, int]]:
        variant = get_variant("yahtzee", rules)
        made = games.create(Settings(variant, (HUMAN, HUMAN), ("Ann", "Bo"), 11,
                                     coach=False, hot_seat=True))
        offers = tuple(variant.restore_card(card, 0).menu(sixes))
        advice = BoxAdvice(box, 250.04)
        view = replace(made.table.view(), variant=variant, phase=phase, dice=(6,) * 5,
                       offers=offers, box_now=advice,
                       advice=advice if phase is Phase.SCORING else score_now)
        state = state_json(view, frozenset({0}))
        boxes = state["players"][0]["boxes"]
        offers_sent[:] = [box for box in boxes if box["now"] is not None]
        return state["advice"], {box["number"]: box["now"] for box in boxes
                                 if box["now"] is not None}
    offers_sent: list[dict[str, Any]] = []
    yahtzee_scored = [None] * 11 + [50, None]
    said, now = coach_says("official", yahtzee_scored, ScoreBox(6, "Sixes"))
    assert said == ("Coach: score 30 in Sixes and a 100-point Yahtzee bonus "
                    "(expected final score 250.0)")
    assert now == {6: 130}
    assert offers_sent == [{"number": 6, "name": "Sixes", "score": None, "now": 130,
                            "bonus": 100, "now_shown": "30 + 100 bonus",
                            "now_said": "30 in Sixes and a 100-point Yahtzee bonus"}]
    said, _ = coach_says("official", [None] * 5 + [18, 0, 0, 0, 0, 0, 50, 5], ScoreBox(1, "Ones"),
                         Phase.ROLLING)
    assert said == ("Coach: stop rolling and score 0 in Ones, giving it up, and a 100-point "
                    "Yahtzee bonus (expected final score 250.0)")
    assert [(offer["now_shown"], offer["now_said"]) for offer in offers_sent] == [
        ("0 + 100 bonus", "0 in Ones, giving it up, and a 100-point Yahtzee bonus"),
        ("0 + 100 bonus", "0 in Twos, giving it up, and a 100-point Yahtzee bonus"),
        ("0 + 100 bonus", "0 in Threes, giving it up, and a 100-point Yahtzee bonus"),
        ("0 + 100 bonus", "0 in Fours, giving it up, and a 100-point Yahtzee bonus"),
        ("0 + 100 bonus", "0 in Fives, giving it up, and a 100-point Yahtzee bonus")]
    said, now = coach_says("course", yahtzee_scored, ScoreBox(12, "Yahtzee"))
    assert said == "Coach: score 100 in Yahtzee (expected final score 250.0)"
    assert now[12] == 100
    # a course-rules bonus is the whole turn: no box's points to tell it apart from
    # (and an offer without a bonus besides carries no words for one)
    assert [offer for offer in offers_sent if offer["number"] == 12] == [
        {"number": 12, "name": "Yahtzee", "score": None, "now": 100}]
