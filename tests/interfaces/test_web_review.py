"""The history and review pages in a real browser: a console game and a browser game, reviewed.

A seeded console game is played in this process and a browser game (two
computers) on a live server sharing its data folder; both must be listed
at ``/history`` and reviewed at ``/game/<id>/review`` with rows that add up
to ``analyze --json``, a chart line per player, no WCAG 2.2 A/AA violation
that axe finds, and nothing the content security policy refuses.
Screenshots at 1280x800 and 390x844 go to the folder ``YAHTZEE_DOCS_SCREENS``
names (``docs/screenshots`` is made so), or else to a temporary one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.interfaces.test_review import assert_rows_add_up, parse, script
from tests.interfaces import test_web_browser
from tests.interfaces.test_web_browser import WAIT_MS, Server, hook

from playwright.sync_api import Browser, Page

server = test_web_browser.server
"""A live server with the course rules' tables ready (the browser tests' own fixture)."""
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
SIZES = {"wide": (1280, 800), "phone": (390, 844)}


@pytest.fixture
def screens(tmp_path: Path) -> Path:
    """The folder the screenshots go to."""
    named = os.environ.get("YAHTZEE_DOCS_SCREENS")
    folder = Path(named) if named else tmp_path / "screens"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def refused(page: Page) -> list[str]:
    """Start collecting what the page's content security policy refuses; return the list."""
    seen: list[str] = []
    page.on("console", lambda message: seen.append(message.text)
            if "Content Security Policy" in message.text else None)
    return seen


def axe_violations(browser: Browser, url: str) -> list[str]:
    """Return axe's WCAG 2.2 A/AA violations on ``url`` at both sizes (skipped without axe)."""
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    found = []
    for width, height in SIZES.values():
        context = browser.new_context(viewport={"width": width, "height": height},
                                      bypass_csp=True)
        page = context.new_page()
        page.goto(url)
        results: Any = axe_module.Axe().run(
            page, options={"runOnly": {"type": "tag", "values": WCAG},
                           "resultTypes": ["violations"]})
        for violation in results.response["violations"]:
            targets = [node["target"] for node in violation["nodes"]]
            found.append(f"{width}px {violation['id']}: {violation['help']} {targets[:3]}")
        context.close()
    return found


def shoot(page: Page, folder: Path, name: str) -> None:
    """Save what the page shows at 1280x800 and at 390x844."""
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(folder / f"{name}-{size}.png"))


def test_a_console_game_and_a_browser_game_are_listed_and_reviewed(
        browser: Browser, server: Server, screens: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["--players", "human,computer", "--names", "Cleo,Computer",
                              "--seed", "5"], script(13), monkeypatch, capsys)
    assert (status, err) == (0, "")

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    blocked = refused(page)
    page.goto(server.url)
    hook(page, "new-game").wait_for()
    page.fill("#seed", "8")
    page.select_option("#rules", "course")  # the rules whose tables are ready: the coach speaks
    hook(page, "new-game").click()                                # a person against the computer
    page.wait_for_function("() => !document.querySelector('[data-testid=roll]').disabled",
                           timeout=WAIT_MS)
    hook(page, "die-2").click()
    page.wait_for_selector('[data-testid="die-2"][aria-pressed="true"]')
    page.wait_for_selector("#advice:has-text('save only the 1st, 4th and 5th dice')",
                           timeout=WAIT_MS)
    shoot(page, screens, "table-playing")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(server.url)
    hook(page, "new-game").wait_for()
    page.select_option(".seat:nth-of-type(1) .kind", "expected")
    page.fill(".seat:nth-of-type(1) .name", "Dana <3")
    page.fill("#seed", "4")
    hook(page, "new-game").click()
    hook(page, "winner").wait_for(state="visible", timeout=WAIT_MS * 3)
    hook(page, "review-link").wait_for(state="visible")
    shoot(page, screens, "table-over")
    page.set_viewport_size({"width": 1280, "height": 800})
    hook(page, "review-link").click()
    hook(page, "win-chart").wait_for()
    assert page.url.endswith("/review") and "Game 2:" in page.locator("h1").inner_text()
    browser_review = page.content()

    page.goto(server.url + "history")
    for number in (1, 2):
        hook(page, f"history-game-{number}").wait_for()
    links = page.locator('[data-testid^="history-game-"]').all()
    assert [link.get_attribute("data-testid") for link in links] == [
        "history-game-2", "history-game-1"]                       # newest first
    assert "Dana &lt;3" in page.content() and "Dana <3" in page.locator("main").inner_text()
    assert page.locator("svg.chart").count() >= 2                 # the stats' histograms
    page.fill("input[name=player]", "cleo")
    page.click("form.filters button")
    page.wait_for_url("**/history?player=cleo*")
    assert page.locator('[data-testid^="history-game-"]').count() == 1
    hook(page, "history-game-1").click()
    hook(page, "win-chart").wait_for()
    console_review = page.content()
    assert blocked == [], blocked

    for number, text in ((1, console_review), (2, browser_review)):
        _, report, _ = run_cli(["analyze", str(number), "--json"], "", monkeypatch, capsys)
        found = parse(text)
        assert found.charts == 1 and found.scripts == 0 and found.styled == 0
        assert len(found.lines) == 2
        assert_rows_add_up(found, json.loads(report))

    page.goto(server.url + "game/99/review")
    assert "No finished game" in page.locator("main").inner_text()
    page.goto(server.url + "history")
    shoot(page, screens, "history")
    boxes = page.eval_on_selector_all(  # a narrow table's frame is as wide as the table
        "div.scroll:has(> table.narrow)", """frames => frames.map((frame) => (
            frame.getBoundingClientRect().width
            - frame.firstChild.getBoundingClientRect().width))""")
    assert boxes and all(0 <= extra < 4 for extra in boxes), boxes
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the figures as cards
    frames = page.eval_on_selector_all(
        "div.scroll", "frames => frames.map((e) => e.scrollWidth - e.clientWidth)")
    assert len(frames) >= 2 and set(frames) == {0}, frames
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(server.url + "game/2/review")
    shoot(page, screens, "review")
    status, _, err = run_cli(["--players", "human", "--names", "Eve Ray", "--seed", "6"],
                             script(13), monkeypatch, capsys)
    assert (status, err) == (0, "")
    for number, cells in ((2, 78), (3, 39)):   # game 3: a name of two words, long better moves
        page.goto(server.url + f"game/{number}/review")
        for width, height in SIZES.values():
            page.set_viewport_size({"width": width, "height": height})
            lines = page.eval_on_selector_all(  # a turn's rolls, a box and its points, a name
                "table.turns :is(td.box, td.rolls, th[scope=row])",
                """cells => cells.map((cell) => {
                    const range = document.createRange();
                    range.selectNodeContents(cell);
                    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
                })""")
            assert len(lines) == cells and set(lines) == {1}, (number, width, lines)
            # a laptop shows the whole table; a phone each turn as a card, its lines labelled
            widths = page.eval_on_selector("div.scroll", "e => [e.scrollWidth, e.clientWidth]")
            assert widths[0] <= widths[1], (number, width, widths)
            label = page.eval_on_selector(
                "table.turns tbody td.box", "e => getComputedStyle(e, '::before').content")
            assert label == ('"Scored: "' if width < 700 else "none"), (width, label)
    page.close()
    problems = (axe_violations(browser, server.url + "history")
                + axe_violations(browser, server.url + "game/2/review"))
    assert problems == [], "\n".join(problems)


def test_a_poker_dice_games_table_of_turns_fits_a_laptops_screen(
        browser: Browser, server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Poker Dice's faces ("10 10 K 10 J") make long rolls: the rows wrap between two rolls of
    a turn rather than push Cost and Luck out of sight at 1280 wide, and a phone's cards of
    turns fit its width with no roll cut in two."""
    status, _, err = run_cli(["--game", "poker-dice", "--players", "computer,greedy",
                              "--seed", "2"], "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server.url + "game/1/review")
    hook(page, "win-chart").wait_for()
    assert "Poker Dice" in page.locator("h1").inner_text()
    for width, _ in SIZES.values():
        page.set_viewport_size({"width": width, "height": 800})
        scroll, room = page.eval_on_selector("div.scroll", "e => [e.scrollWidth, e.clientWidth]")
        assert scroll <= room, (width, scroll, room)
        rolls = page.eval_on_selector_all("table.turns span.roll", """spans => spans.map(
            (span) => span.getClientRects().length)""")
        assert len(rolls) > 36 and set(rolls) == {1}, (width, rolls)  # no roll cut in two
    page.close()


def test_the_histories_score_charts_are_read_at_a_laptops_width_and_fit_a_phone(
        browser: Browser, server: Server, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Five people's histograms: two a row at 1280 wide, so that each chart's words are at
    least 12 px high (four a row drew them at about 8), one a row on a phone, none wider."""
    status, _, err = run_cli(["--players", ",".join(["human"] * 5), "--seed", "7"],
                             script(13) * 5, monkeypatch, capsys)
    assert (status, err) == (0, "")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server.url + "history")
    charts = page.locator(".players svg")
    assert charts.count() == 5
    tops = {round(box["y"]) for box in (charts.nth(n).bounding_box() for n in range(5)) if box}
    assert len(tops) == 3                                # rows of two, two and one
    scale = page.eval_on_selector(  # a chart's drawn width against its drawing's (300)
        ".players svg", "svg => svg.getBoundingClientRect().width / svg.viewBox.baseVal.width")
    assert 9 * scale >= 12, scale                        # the smallest words: 9 in the drawing
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()
