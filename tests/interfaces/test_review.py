"""The game review: ``analyze``'s figures turn by turn, its text chart and its HTML file."""

from __future__ import annotations

import errno
import io
import json
import os
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers import message_of, run_cli
from yahtzee.app.session import Solvers
from yahtzee.domain.games import POKER_DICE
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.review import make_review
from yahtzee.interfaces.review_html import (_x, _y, calibration_chart, histogram_chart,
                                            results_list, turn_table, win_chart)
from yahtzee.interfaces.wording import cost_text, name_and_kind
from yahtzee.solver.cache import Solution
from yahtzee.solver.coach import Assessment, PlayerAnalysis, ScoreBox
from yahtzee.solver.moments import Moments
from yahtzee.solver.ranking import Keep
from yahtzee.storage.history import History
from yahtzee.storage.stats import Bucket

NAMES = "<Ann & \"Bo\">,Greedy,Comp"
"""Player names with characters HTML must escape."""


def script(rounds: int) -> str:
    """Return input that scores box N at the first roll of round N."""
    return "".join(f"score\n{n}\n" for n in range(1, rounds + 1))


class Page(HTMLParser):
    """Collects what the review's checks look at: the turn rows, the chart's lines, scripts."""

    def __init__(self) -> None:
        """Start with nothing collected."""
        super().__init__()
        self.rows: dict[str, dict[str, str]] = {}
        self.lines: list[dict[str, str]] = []
        self.charts = 0
        self.scripts = 0
        self.styled = 0
        self.landmarks: list[tuple[str, str]] = []
        """Each section or region: ("label", its aria-label) or ("ref", its aria-labelledby)."""
        self.texts: dict[str, str] = {}
        """The text of each element with an ID."""
        self._open: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Note the turn rows, the chart, its lines and any script or style attribute."""
        found = {k: v or "" for k, v in attrs}
        if tag == "section" or found.get("role") == "region":
            self.landmarks.append(("label", found["aria-label"]) if "aria-label" in found
                                  else ("ref", found.get("aria-labelledby", "")))
        if "id" in found:
            self._open.append((tag, found["id"]))
            self.texts[found["id"]] = ""
        testid = found.get("data-testid", "")
        if tag == "tr" and testid.startswith("turn-"):
            self.rows[testid] = found
        if testid == "win-chart":
            self.charts += 1
        if tag == "polyline" and "player-line" in found.get("class", ""):
            self.lines.append(found)
        self.scripts += tag == "script"
        self.styled += "style" in found

    def handle_data(self, data: str) -> None:
        """Add text to the elements with an ID that are open."""
        for _, ident in self._open:
            self.texts[ident] += data

    def handle_endtag(self, tag: str) -> None:
        """Close the element with an ID that ``tag`` ends."""
        if self._open and self._open[-1][0] == tag:
            self._open.pop()

    def landmark_names(self) -> list[str]:
        """Return the names of the sections and regions, as a screen reader lists them."""
        return [value if kind == "label" else self.texts.get(value, "")
                for kind, value in self.landmarks]


def parse(text: str) -> Page:
    """Return the page's collected parts."""
    page = Page()
    page.feed(text)
    return page


def assert_rows_add_up(page: Page, report: dict[str, object]) -> None:
    """Check that each player's rows add up to the analysis's ``total_cost`` and ``luck``."""
    players = report["players"]
    assert isinstance(players, list)
    for seat, player in enumerate(players, 1):
        mine = [row for key, row in page.rows.items() if key.endswith(f"-{seat}")]
        assert len(mine) == 13
        assert sum(float(r["data-cost"]) for r in mine) == pytest.approx(
            player["total_cost"], abs=0.01)
        assert sum(float(r["data-luck"]) for r in mine) == pytest.approx(
            player["luck"], abs=0.01)


@pytest.fixture
def played(official: Solution, official_moments: Moments, data: Path,
           monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """Play a seeded game: a person, a greedy computer and the computer; return the data folder."""
    status, _, err = run_cli(["--players", "human,greedy,computer", "--names", NAMES,
                              "--rules", "official", "--seed", "8"], script(13),
                             monkeypatch, capsys)
    assert (status, err) == (0, "")
    return data


def test_the_turn_rows_add_up_to_the_analysis(
        played: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(["analyze", "--json"], "", monkeypatch, capsys)
    assert status == 0
    for player in json.loads(out)["players"]:
        turns = player["turns"]
        assert [t["round"] for t in turns] == list(range(1, 14))
        assert sum(t["cost"] for t in turns) == pytest.approx(player["total_cost"], abs=1e-4)
        assert sum(t["luck"] for t in turns) == pytest.approx(player["luck"], abs=1e-4)
        assert all(1 <= len(t["rolls"]) <= 3 and len(t["keeps"]) == len(t["rolls"]) - 1
                   for t in turns)
        assert sum(t["points"] for t in turns) <= player["final"]
        costly = [d for d in player["decisions"] if d["cost"] >= 0.05]
        assert sum(len(t["better"]) for t in turns) == len(costly)


def test_a_yahtzee_bonus_is_shown_apart_from_the_box_it_filled(
        official: Solution, official_moments: Moments, data: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # seed 14: the computer's second Yahtzee, all 1s, goes in Ones: 5 points and the bonus
    status, _, err = run_cli(["--players", "computer", "--rules", "official", "--seed", "14"],
                             "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    target = tmp_path / "review.html"
    assert run_cli(["analyze", "--html", str(target)], "", monkeypatch, capsys)[0] == 0
    cells = re.findall(r'data-label="Scored">([^<]*)<', target.read_text(encoding="utf-8"))
    assert len(cells) == 13 and "Ones (5 + 100 Yahtzee bonus)" in cells
    assert [cell for cell in cells if "bonus" in cell] == ["Ones (5 + 100 Yahtzee bonus)"]


def test_analyze_html_writes_one_self_contained_review(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "review.html"
    status, out, err = run_cli(["analyze", "--html", str(target)], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert out == f"The review of game 1 is in {target}\n"
    text = target.read_text(encoding="utf-8")
    page = parse(text)
    assert page.charts == 1 and page.scripts == 0
    assert len(page.lines) == 3
    assert [line["data-seat"] for line in page.lines] == ["1", "2", "3"]
    assert len(page.rows) == 39 and "turn-13-3" in page.rows
    names = page.landmark_names()  # a screen reader's list of regions tells them apart
    assert "How each score came about" in names and len(set(names)) == len(names), names
    assert "http" not in text.replace("http://www.w3.org/2000/svg", "")
    # the column of win chances is not called "Chance", the name of a box in the same rows
    assert '<th scope="col" class="num">Win %</th>' in text and ">Chance</th>" not in text
    assert "<Ann" not in text and "&lt;Ann &amp; &quot;Bo&quot;&gt;" in text
    _, report, _ = run_cli(["analyze", "--json"], "", monkeypatch, capsys)
    start = json.loads(report)["turn_chances"][0]["chances"]
    # the person and the computer that plays to win are taken to play their best; greedy
    # play is known to score less, so the two share more than two thirds at the start
    assert start[0] == pytest.approx(start[2]) and start[1] < 0.2 and start[0] > 0.4
    assert re.search(f"&lt;Ann &amp; &quot;Bo&quot;&gt;: {round(100 * start[0])}% before the game, "
                     r"\d+% at the start of round 13, (lost|won|tied)", text)
    # each player with its kind as the new-game form names it, unless the name says it
    results = re.search(r'<h2 id="results">Final scores</h2><ul>(.*?)</ul>', text)
    assert results is not None
    assert [re.sub(r":.*", "", item) for item in re.findall(r"<li>(.*?)</li>", results[1])] == [
        "&lt;Ann &amp; &quot;Bo&quot;&gt; (person)", "Greedy", "Comp (computer)"]
    assert_rows_add_up(page, json.loads(report))


def test_analyze_html_keeps_the_file_there_when_it_cannot_write_the_new_one_whole(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "review.html"
    status, _, _ = run_cli(["analyze", "--html", str(target)], "", monkeypatch, capsys)
    umask = os.umask(0)
    os.umask(umask)
    assert status == 0 and target.stat().st_mode & 0o777 == 0o666 & ~umask  # as open() makes
    target.write_text("the review kept", encoding="utf-8")

    def disk_full(fd: int) -> None:
        """Fail as a full disk does."""
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", disk_full)
    status, out, err = run_cli(["analyze", "--html", str(target)], "", monkeypatch, capsys)
    assert (status, out) == (1, "")
    assert err == f"yahtzee: cannot write {target}: {os.strerror(errno.ENOSPC)}\n"
    assert target.read_text(encoding="utf-8") == "the review kept"
    assert not [path for path in tmp_path.iterdir() if path.name.endswith(".tmp")]


def test_a_swing_s_ring_sits_inside_the_turn_that_made_it(played: Path) -> None:
    """A ring that the list calls "Round 3, Comp's turn" sits between that turn's start and
    the next turn's, on the line, not on the next round's tick."""
    history = History()
    review = make_review(*history.load_game(history.games()[0].game_id), Solvers())
    rounds = review.variant.rounds
    swings = review.swings()
    rings = [(float(x), float(y)) for x, y in re.findall(
        r'<circle cx="([\d.]+)" cy="([\d.]+)" r="7"', win_chart(review))]
    assert len(rings) == len(swings) >= 2
    ticks = {round(_x(k, rounds), 1) for k in range(rounds + 1)}
    for swing, (x, y) in zip(swings, rings):
        start, end = review.turn_place(swing.turn), review.turn_place(swing.turn + 1)
        assert _x(start, rounds) < x < _x(end, rounds) and x not in ticks, (swing, x)
        low, high = sorted((_y(swing.before), _y(swing.after)))
        assert low <= y <= high, (swing, y)


def test_a_player_is_named_with_its_kind_as_the_form_names_it() -> None:
    assert name_and_kind("Ann", "human") == "Ann (person)"
    assert name_and_kind("Computer", "computer") == "Computer"
    assert name_and_kind("computer 2", "computer") == "computer 2"
    assert name_and_kind("Computers", "computer") == "Computers (computer)"
    assert name_and_kind("Bo", "optimal") == "Bo (expected)"  # an alias: the kind's own label
    assert name_and_kind("Old", "robot") == "Old (robot)"  # a kind no longer known


def test_a_game_alone_is_reviewed_without_win_chances(
        official: Solution, official_moments: Moments, data: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Alone, a player has no chance to win: no chart, no column of dashes, no word of them."""
    status, _, err = run_cli(["--players", "human", "--names", "Solo", "--rules", "official",
                              "--seed", "6"], script(13), monkeypatch, capsys)
    assert (status, err) == (0, "")
    target = tmp_path / "review.html"
    status, _, err = run_cli(["analyze", "--html", str(target)], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    text = target.read_text(encoding="utf-8")
    page = parse(text)
    assert page.charts == 0 and len(page.rows) == 13
    heads = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', text)
    assert heads == ["Round", "Player", "Rolls", "Kept", "Scored", "Better move", "Cost",
                     "Luck"]
    row = re.search(r'<tr data-testid="turn-1-1"[^>]*>(.*?)</tr>', text)
    assert row is not None and row.group(1).count("<td") + row.group(1).count("<th") == 8
    assert "win" not in text.lower().replace("window", "")


def test_the_computers_point_trades_are_not_called_blunders(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The computer playing to win gives up points on purpose: its list of "mistakes" says so,
    and only its list (the greedy computer's and the person's are plain mistakes)."""
    target = tmp_path / "review.html"
    status, _, err = run_cli(["analyze", "--html", str(target)], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    text = target.read_text(encoding="utf-8")
    sections = dict(re.findall(r'<section class="player" aria-label="([^"]*)">(.*?)</section>',
                               text))
    assert list(sections) == ["&lt;Ann &amp; &quot;Bo&quot;&gt;", "Greedy", "Comp"]
    told = ("Comp plays to win, not for the most points: it gave up these points on purpose, "
            "for a better chance to win.")
    assert [told in part for part in sections.values()] == [False, False, True]
    trades = sections["Comp"].split(told)[1]
    assert trades.startswith("</p><ul><li>Round ") and "points more on average" in trades
    # the table of every turn, where its costly rows show too, says it once
    assert text.count("gave up points on purpose") == 1
    assert ('Comp gave up points on purpose, for a better chance to win. <span class="sideways">'
            "The table scrolls" in text)


def test_a_computer_that_gave_up_no_points_is_not_said_to_have_traded_any(
        played: Path) -> None:
    """The note under the table of every turn names the computer playing to win only if it
    gave up points in this game: a game may have needed no trade."""
    history = History()
    review = make_review(*history.load_game(history.games()[0].game_id), Solvers())
    assert "Comp gave up points on purpose" in turn_table(review)
    seat = review.names.index("Comp")
    spotless = replace(review.analyses[seat], decisions=tuple(
        replace(a, expected_choice=a.expected_best) for a in review.analyses[seat].decisions))
    analyses = review.analyses[:seat] + (spotless,) + review.analyses[seat + 1:]
    table = turn_table(replace(review, analyses=analyses))
    assert "on purpose" not in table and "Cost: expected points given up" in table


def test_the_winners_of_a_tie_are_marked_as_a_tie(played: Path) -> None:
    """The results mark one winner "winner", and the winners of a tie "tie" each, as the
    game's last line calls it."""
    history = History()
    review = make_review(*history.load_game(history.games()[0].game_id), Solvers())
    players = review.game.players
    assert results_list(review).count('<span class="won">winner</span>') == 1
    best = max(player.total for player in players)
    tied = tuple(replace(player, total=best, winner=True) if player.seat < 2 else
                 replace(player, winner=False) for player in players)
    text = results_list(replace(review, game=replace(review.game, players=tied)))
    assert text.count('<span class="won">tie</span>') == 2 and "winner" not in text


def test_analyze_draws_the_chances_in_80_columns(
        played: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(["analyze"], "", monkeypatch, capsys)
    assert status == 0
    lines = out.splitlines()
    start = lines.index("Chance to win at each round's start, and at the end the share of "
                        "the win:")
    chart = lines[start:]
    assert max(len(line) for line in chart) <= 80
    assert chart[1].split("   ")[:3] == ['  1 = <Ann & "Bo">', "2 = Greedy", "3 = Comp"]
    assert chart[-1].startswith("Round  1   2   3") and chart[-1].endswith("13  end")
    plot = "\n".join(chart[2:-2])
    for mark in "123":
        assert mark in plot
    _, report, _ = run_cli(["analyze", "--json"], "", monkeypatch, capsys)
    winner = max(json.loads(report)["players"], key=lambda p: p["final"])
    top = chart[2]
    assert top.startswith(" 100% |") and top.rstrip().endswith(
        str(1 + [p["name"] for p in json.loads(report)["players"]].index(winner["name"])))


def test_analyze_fits_80_columns_and_lines_the_chances_up_with_their_headings(
        official: Solution, official_moments: Moments, data: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Names shorter than the heading "Round" and decisions with long words: every line of
    the text fits 80 columns, each decision on two lines, the chances under their rounds."""
    status, _, err = run_cli(["--players", "computer,greedy", "--names", "Al,Bo",
                              "--rules", "official", "--seed", "8"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    status, out, err = run_cli(["analyze"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    start = lines.index("Bo: 46.1 expected points lost against optimal play, 3.55 a turn")
    assert lines[start + 1:start + 7] == [
        "  Round 7, after roll 1, dice 2 6 1 2 2: played keep 6 and roll;",
        "    best was keep 2 2 2 and roll (cost 8.4)",
        "  Round 7, scoring, dice 3 6 2 5 4: played score Sixes;",
        "    best was score Ones (cost 8.3)",
        "  Round 6, scoring, dice 3 1 3 3 3: played score Four of a Kind;",
        "    best was score Threes (cost 6.9)"]
    table = lines.index("Win chances (%) at the start of each round:")
    heading, *rows = lines[table + 1:table + 4]
    assert heading.startswith("Round    1   2   3") and heading.endswith("12  13")
    assert [row[:14] for row in rows] == ["Al      71  72", "Bo      29  28"]
    assert {len(row) for row in rows} == {len(heading)}


def test_the_chances_table_lines_up_with_names_of_every_length() -> None:
    """Rows under their headings whether the names are shorter or longer than "Round"."""
    def table(*names: str) -> list[str]:
        out = io.StringIO()
        Console(io.StringIO(), out).chances_chart(
            [PlayerAnalysis(name, (), chances=(0.5, 0.25 + seat / 2, 1.0))
             for seat, name in enumerate(names)])
        return out.getvalue().splitlines()[1:]

    assert table("A", "Bo") == ["Round    1   2   3", "A       50  25 100", "Bo      50  75 100"]
    assert table("Alexandra", "Bo") == ["Round        1   2   3", "Alexandra   50  25 100",
                                        "Bo          50  75 100"]


def test_each_costly_decision_takes_two_lines_within_80_columns() -> None:
    """The widest words there are: Poker Dice's 10s kept in the last round, a name of 24."""
    tens, kept = (2, 2, 2, 2, 2), Keep((2, 2, 2, 2), 5)
    decision = Assessment(9, 0, 1, tens, kept, Keep((2, 2, 2), 5), 100.0, 413.37)
    scoring = Assessment(9, 0, 0, tens, ScoreBox(3, "Three of a Kind"),
                         ScoreBox(5, "Five of a Kind"), 0.0, 0.04)
    name = "Bartholomew Q. Jonesbury"
    out = io.StringIO()
    Console(io.StringIO(), out).analysis([PlayerAnalysis(name, (decision, scoring))], POKER_DICE)
    lines = out.getvalue().splitlines()
    assert lines[4:] == [
        f"{name}: 313.4 expected points lost against optimal play,",
        "  313.41 a turn",
        "  Round 9, after roll 2, dice 10 10 10 10 10: played keep 10 10 10 10 and roll;",
        "    best was keep 10 10 10 and roll (cost 313.4)",
        "  Round 9, scoring, dice 10 10 10 10 10: played score Three of a Kind;",
        "    best was score Five of a Kind (cost 0.04)"]
    assert max(len(line) for line in lines) == 79


def test_analyze_names_the_game_and_its_rules_as_every_other_page_does(
        official: Solution, official_moments: Moments, data: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Poker Dice was "poker-dice rules", its registry name taken for a Yahtzee rule set
    for game in (["--game", "poker-dice"], ["--rules", "official"]):
        status, _, err = run_cli([*game, "--players", "computer,greedy", "--seed", "4"], "",
                                 monkeypatch, capsys)
        assert (status, err) == (0, "")
    when = r"finished \d{4}-\d\d-\d\d \d\d:\d\d"
    for number, title in ((1, "Poker Dice"), (2, "Yahtzee, official rules")):
        status, out, err = run_cli(["analyze", str(number)], "", monkeypatch, capsys)
        assert (status, err) == (0, "")
        assert re.fullmatch(rf"Game {number}, {when}, {title}", out.splitlines()[0])


def test_analyze_html_refuses_a_folder_it_cannot_write(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "missing" / "review.html"
    status, _, err = run_cli(["analyze", "--html", str(target)], "", monkeypatch, capsys)
    assert status == 1 and err.startswith("yahtzee: cannot write")


def test_analyze_takes_a_game_by_its_id_as_the_review_address_has_it(
        played: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    [game] = History(played / "history.sqlite3").games()
    by_number = run_cli(["analyze", "1"], "", monkeypatch, capsys)
    assert run_cli(["analyze", game.uid], "", monkeypatch, capsys) == by_number
    status, out, err = run_cli(["analyze", "f" * 32], "", monkeypatch, capsys)
    assert (status, out) == (2, "") and message_of(err) == (
        f"yahtzee: {'f' * 32!r} is not a finished game's number (they count from 1 in the "
        "order the games ended) nor the ID of a finished browser game")


def test_a_histogram_of_few_bars_names_each_bars_range() -> None:
    one = histogram_chart([Bucket(30, 39, 1)], "Scores")
    assert ">30\u201339</text>" in one and ">Score</text>" in one and "(from)" not in one
    many = histogram_chart([Bucket(10 * n, 10 * n + 9, n % 3) for n in range(10)], "Scores")
    assert ">90</text>" in many and ">Score (from)</text>" in many and "\u2013" not in many


def test_the_calibration_charts_last_label_is_inside_the_chart() -> None:
    chart = calibration_chart([(0.05, 0.0, 3), (0.95, 1.0, 3)])
    box = re.search(r'viewBox="0 0 (\d+) ', chart)
    assert box is not None
    size = int(box.group(1))
    ticks = re.findall(r'<text x="(\d+)" y="\d+" text-anchor="middle" font-size="10"[^>]*>'
                       r'100%</text>', chart)
    assert len(ticks) == 1 and int(ticks[0]) + 13 <= size   # "100%" is about 24 units wide


@pytest.mark.parametrize("cost, text", [
    (0.0, "0.0"), (0.004, "<0.01"), (0.03, "0.03"), (0.049, "0.05"), (0.05, "0.1"),
    (1.26, "1.3"), (15.8, "15.8")])
def test_a_costly_decision_never_reads_as_costing_nothing(cost: float, text: str) -> None:
    # the play-to-win computer's departures from optimal play cost hundredths of a point
    assert cost_text(cost) == text
