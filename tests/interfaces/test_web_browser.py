"""The browser table in a real browser: Playwright drives Debian's Chromium against a live server.

Each test starts ``python -m yahtzee serve`` on a free port of 127.0.0.1
(computers a few milliseconds apart), with its own data folder and the
session's solver tables, and plays through the page's test hooks
(``data-testid``).  Screenshots of the main screens go to the folder
``YAHTZEE_SCREENS_DIR`` names, or else to a temporary one.

Without Chromium at ``/usr/bin/chromium`` or without Playwright these tests
are skipped, unless ``YAHTZEE_REQUIRE_BROWSER`` is set (as CI sets it).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from benchmarks import web_load
from tests.browser_fixtures import CHROMIUM
from tests.web_helpers import console_totals
from yahtzee.solver.cache import Solution
from yahtzee.solver.moments import Moments

ROOT = Path(__file__).resolve().parents[2]
WAIT_MS = 60_000
"""How long a step may take before the test fails (a limit against hanging, not a measure)."""

if not CHROMIUM.exists() or not os.access(CHROMIUM, os.X_OK):
    if os.environ.get("YAHTZEE_REQUIRE_BROWSER"):
        raise RuntimeError(f"the browser tests need Chromium at {CHROMIUM}")
    pytest.skip(f"no Chromium at {CHROMIUM}", allow_module_level=True)
if not os.environ.get("YAHTZEE_REQUIRE_BROWSER"):
    pytest.importorskip("playwright.sync_api")
    pytest.importorskip("starlette")

from playwright.sync_api import Browser, Page  # noqa: E402


@dataclass
class Server:
    """A ``serve`` process: its address and how to stop it."""

    process: subprocess.Popen[str]
    url: str
    port: int

    def kill(self) -> None:
        """Stop the server with SIGKILL, as a crash would."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


def start_server(data: Path, cache: Path, port: int = 0) -> Server:
    """Start ``python -m yahtzee serve`` (computers 0.02 s apart); return it once it is up."""
    process, url = web_load.start_server(data, delay=0.02, cache=cache, port=port)
    return Server(process, url + "/", int(url.rsplit(":", 1)[1]))


@pytest.fixture(scope="module")
def screens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the screenshots go to."""
    named = os.environ.get("YAHTZEE_SCREENS_DIR")
    if named:
        Path(named).mkdir(parents=True, exist_ok=True)
        return Path(named)
    return tmp_path_factory.mktemp("screens")


@pytest.fixture
def server(data: Path, solver_cache: Path, course: Solution,
           course_moments: Moments) -> Iterator[Server]:
    """A live server on a fresh data folder, with the course rules' tables ready."""
    running = start_server(data, solver_cache)
    yield running
    if running.process.poll() is None:
        running.process.terminate()
        running.process.wait(timeout=30)


def hook(page: Page, name: str) -> Any:
    """Return the element of the test hook ``name``."""
    return page.locator(f'[data-testid="{name}"]')


def my_turn_or_end(page: Page) -> None:
    """Wait until the person may roll, or the winner is shown."""
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=roll]').disabled"
        " || !document.querySelector('[data-testid=winner]').hidden", timeout=WAIT_MS)


def turn_passed(page: Page, before: str) -> None:
    """Wait until the person's turn whose status read ``before`` is over.

    The computer may play its whole turn (0.02 s a move here) before the page
    is looked at again, so the roll button's being off for the computer's
    turn may be missed: a new round in the status, or the winner, tells too.
    """
    page.wait_for_function(
        "(round) => document.querySelector('[data-testid=roll]').disabled"
        " || !document.querySelector('#status').textContent.startsWith(round)"
        " || !document.querySelector('[data-testid=winner]').hidden", arg=before,
        timeout=WAIT_MS)


def round_of(page: Page) -> str:
    """Return the status's round, as ``Round 3 of 13:``."""
    return status(page).split(":")[0] + ":"


def best_box_on_page(page: Page) -> int:
    """Return the box worth most now among the page's box buttons (the lowest of equals)."""
    offers = []
    for button in page.locator('[data-testid^="box-"]').all():
        number = int(str(button.get_attribute("data-testid")).split("-")[1])
        text = button.inner_text()
        points = int(text.split("+")[-1])
        offers.append((points, -number))
    return -max(offers)[1]


def status(page: Page) -> str:
    """Return the status line."""
    return str(page.locator("#status").inner_text())


def test_a_seeded_game_against_the_computer_played_by_clicks_ends_as_at_the_console(
        browser: Browser, server: Server, screens: Path) -> None:
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.goto(server.url)
    hook(page, "new-game").wait_for()
    page.select_option("#rules", "course")  # the form's default is official
    page.fill("#seed", "8")
    page.screenshot(path=str(screens / "1-new-game.png"), full_page=True)
    hook(page, "new-game").click()
    lines: list[str] = []
    my_turn_or_end(page)
    # the first turn by clicks and keys: save dice 1 and 2, roll, and score with the keyboard
    hook(page, "die-1").click()
    page.wait_for_selector('[data-testid="die-1"][aria-pressed="true"]')
    page.keyboard.press("2")
    page.wait_for_selector('[data-testid="die-2"][aria-pressed="true"]')
    chances = [hook(page, f"win-chance-{seat}").inner_text() for seat in (1, 2)]
    assert chances[0].startswith("Player 1 ") and chances[1].startswith("Computer ")
    assert sum(int(text.rstrip("%, ").split()[-1]) for text in chances) in (99, 100, 101)
    page.screenshot(path=str(screens / "2-dice-saved-with-coach.png"), full_page=True)
    page.keyboard.press("r")
    page.wait_for_function("() => document.querySelector('#status').textContent"
                           ".includes('1 re-roll left')", timeout=WAIT_MS)
    page.keyboard.press("s")
    page.wait_for_function("() => document.querySelector('#status').textContent"
                           ".includes('choose a box')", timeout=WAIT_MS)
    lines += ["1", "2", "roll", "score"]
    box, before = best_box_on_page(page), round_of(page)
    hook(page, f"box-{box}").click()
    lines.append(str(box))
    turn_passed(page, before)
    page.screenshot(path=str(screens / "3-computer-moving.png"), full_page=True)
    while True:
        my_turn_or_end(page)
        if hook(page, "winner").is_visible():
            break
        box, before = best_box_on_page(page), round_of(page)
        hook(page, f"box-{box}").click()  # arms it: re-rolls are left
        page.wait_for_timeout(400)        # a second press, not a double click's, scores
        hook(page, f"box-{box}").click()  # at once: "score", then the box
        lines += ["score", str(box)]
        turn_passed(page, before)
    totals = [int(hook(page, f"total-{seat}").inner_text()) for seat in (1, 2)]
    assert totals == console_totals(["human", "computer"], 8, lines)
    winner = "Player 1" if totals[0] > totals[1] else "Computer"
    assert hook(page, "winner").inner_text() == f"{winner} wins with {max(totals)} points"
    assert not hook(page, "roll").is_visible() and not hook(page, "die-1").is_visible()
    assert page.locator("#cards td.fresh").count() == 0   # the computer's last box: no outline
    luck = page.locator("#luck li").all_inner_texts()
    assert [line.split(" = ")[0] for line in luck] == [f"Player 1: {totals[0]}",
                                                       f"Computer: {totals[1]}"]
    page.screenshot(path=str(screens / "4-game-over.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screens / "5-game-over-phone.png"), full_page=True)
    page.close()


def test_two_browsers_play_two_seats_and_neither_may_act_for_the_other(
        browser: Browser, server: Server, screens: Path) -> None:
    ann = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    ann.goto(server.url)
    hook(ann, "new-game").wait_for()
    start = hook(ann, "new-game").bounding_box()  # on a phone's first screen, form unscrolled
    assert start is not None and start["y"] + start["height"] <= 844
    ann.select_option(".seat:nth-of-type(2) .kind", "human")
    ann.fill(".seat:nth-of-type(1) .name", "Ann")
    ann.fill(".seat:nth-of-type(2) .name", "Bob")
    ann.uncheck("#coach")
    hook(ann, "new-game").click()
    link = str(hook(ann, "seat-link-2").get_attribute("href"))
    assert hook(ann, "seat-link-1").get_attribute("href") == ann.url  # Ann's own seat
    assert link != ann.url
    bob = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    bob.goto(link)
    my_turn_or_end(ann)
    bob.wait_for_selector("#status:has-text(\"Ann's turn\")")
    assert hook(bob, "roll").is_disabled() and hook(bob, "die-1").is_disabled()
    ann.screenshot(path=str(screens / "6-seat-1-phone.png"), full_page=True)
    bob.screenshot(path=str(screens / "7-seat-2-waiting-phone.png"), full_page=True)

    def forced(page: Page, body: str) -> Any:
        """Send a move from ``page`` with its own secret, bypassing the disabled buttons."""
        return page.evaluate(
            """async (body) => {
                 const game = location.pathname.slice(6);
                 const answer = await fetch(`/api/games/${game}/moves`, {method: "POST",
                   headers: {"Content-Type": "application/json",
                             "X-Seat-Secret": decodeURIComponent(location.hash.slice(1))},
                   body});
                 return [answer.status, await answer.json()];
               }""", body)

    assert forced(bob, '{"action": "roll"}') == [409, {"error": "It is not your turn."}]
    bob.keyboard.press("r")
    dice = [hook(ann, f"die-{n}").get_attribute("aria-label") for n in range(1, 6)]
    hook(ann, "score").click()
    ann.wait_for_selector('[data-testid="box-13"]')
    assert dice == [hook(ann, f"die-{n}").get_attribute("aria-label") for n in range(1, 6)]
    hook(ann, "box-13").click()
    bob.wait_for_selector("#status:has-text('Your turn')", timeout=WAIT_MS)
    assert "Ann scored" in bob.locator("#moves").inner_text()
    assert forced(ann, '{"action": "roll"}') == [409, {"error": "It is not your turn."}]
    hook(bob, "die-3").click()
    bob.wait_for_selector('[data-testid="die-3"][aria-pressed="true"]')
    ann.wait_for_selector('[data-testid="die-3"][aria-pressed="true"]', timeout=WAIT_MS)
    assert hook(ann, "die-3").is_disabled()
    bob.context.close()
    ann.context.close()


def test_a_game_killed_mid_turn_goes_on_where_it_was_when_the_server_starts_again(
        browser: Browser, server: Server, data: Path, solver_cache: Path) -> None:
    page = browser.new_page()
    page.goto(server.url)
    hook(page, "new-game").wait_for()
    page.select_option("#rules", "course")  # the form's default is official
    page.fill("#seed", "11")
    hook(page, "new-game").click()
    my_turn_or_end(page)
    hook(page, "die-4").click()
    page.wait_for_selector('[data-testid="die-4"][aria-pressed="true"]')
    hook(page, "roll").click()
    page.wait_for_function("() => document.querySelector('#status').textContent"
                           ".includes('1 re-roll left')", timeout=WAIT_MS)
    before = [hook(page, f"die-{n}").get_attribute("aria-label") for n in range(1, 6)]
    server.kill()
    again = start_server(data, solver_cache, server.port)
    try:
        page.reload()
        page.wait_for_function("() => document.querySelector('#status').textContent"
                               ".includes('1 re-roll left')", timeout=WAIT_MS)
        assert [hook(page, f"die-{n}").get_attribute("aria-label")
                for n in range(1, 6)] == before
        assert "Die 4" in str(before[3]) and "saved" in str(before[3])
        hook(page, "score").click()
        hook(page, "box-13").click()
        page.wait_for_selector("#moves li:has-text('Player 1 scored')", timeout=WAIT_MS)
        page.wait_for_selector("#moves li:has-text('Computer scored')", timeout=WAIT_MS)
    finally:
        again.process.terminate()
        again.process.wait(timeout=30)
    page.close()


def test_the_form_offers_the_levels_each_with_its_line(browser: Browser, server: Server) -> None:
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.goto(server.url)
    hook(page, "new-game").wait_for()
    page.wait_for_selector("#kinds-help li")
    offered = page.locator("#seats select.kind").first.locator("option").all_inner_texts()
    assert offered[3:6] == ["Skilled", "Casual", "Novice"]
    lines = page.locator("#kinds-help li").all_inner_texts()
    assert "Casual: plays like a fair player: about 25 points a game below the best" in lines
    assert len([line for line in lines if "points a game below the best" in line]) == 3
    page.locator("#seats select.kind").nth(1).select_option("novice")
    hook(page, "new-game").click()
    page.wait_for_selector('[data-testid="total-2"]')
    assert "Novice" in page.locator("body").inner_text()
    page.close()
