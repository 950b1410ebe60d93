"""The browser table's page in real Chromium: restarts, a slow link, the layout, the card, the end.

Each test starts ``python -m yahtzee serve --delay 0.05`` on a free port of
127.0.0.1 with its own data folder and the session's solver tables, as
``test_web_browser`` does, and drives the page through its test hooks.
Screenshots of each state at 1280x800 and 390x844 go to the folder
``YAHTZEE_SCREENS_DIR`` names (``docs/screenshots`` when refreshing the
README's), or else to a temporary one.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest

from tests.browser_fixtures import CHROMIUM, LAUNCH_ARGS
from tests.interfaces.test_web_browser import ROOT, WAIT_MS, hook
from yahtzee.solver.cache import Solution
from yahtzee.solver.moments import Moments

from playwright.sync_api import Browser, BrowserContext, Page, Route  # noqa: E402
from yahtzee.app.browser import Denial  # noqa: E402
from yahtzee.interfaces.web.views import DENIALS, MISSING_GAME  # noqa: E402

axe_playwright = pytest.importorskip("axe_playwright_python.sync_playwright")
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
"""The axe-core rules checked: WCAG 2.0 to 2.2, levels A and AA."""


def accessible(page: Page, where: str) -> None:
    """Check that axe-core finds no WCAG 2.2 A or AA violation on the page as it stands."""
    found = axe_playwright.Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG}})
    violations = [(v["id"], [n["target"] for n in v["nodes"]])
                  for v in found.response["violations"]]
    assert violations == [], where


DELAY = "0.05"
"""Seconds between a computer's commands."""
SHOWN_WITHIN = 10.0
"""Seconds a reloaded page may take to draw the game once the server is back."""
SIZES = [(1280, 800, False), (1366, 768, False), (390, 844, True)]
"""The screens every prompt must fit: width, height, and whether it is a touch phone."""
FAILED_WATCH = """() => {
  window.sawFailed = false;
  new MutationObserver(() => {
    const text = document.body ? document.body.innerText : "";
    if (text.includes("Failed to fetch")) window.sawFailed = true;
  }).observe(document, {subtree: true, childList: true, characterData: true});
}"""
"""An init script that notes whether the browser's raw "Failed to fetch" ever shows."""


class Server:
    """A ``serve`` process on a port that stays the same across restarts."""

    def __init__(self, data: Path, cache: Path) -> None:
        """Start the server on a free port, with ``data`` and ``cache`` as its folders."""
        self.data = data
        self.cache = cache
        self.port = 0
        self.process = self.launch()
        self.port = self.ready()

    def launch(self) -> subprocess.Popen[str]:
        """Start ``python -m yahtzee serve`` without waiting for it."""
        env = dict(os.environ, YAHTZEE_DATA_DIR=str(self.data), YAHTZEE_CACHE_DIR=str(self.cache),
                   PYTHONPATH=str(ROOT))
        return subprocess.Popen(
            [sys.executable, "-m", "yahtzee", "serve", "--port", str(self.port), "--delay", DELAY],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def ready(self) -> int:
        """Wait for the line with the address; return the port."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "http://127.0.0.1:" in line, line
        return int(line.split("http://127.0.0.1:")[1].split("/")[0])

    @property
    def url(self) -> str:
        """The start page's address."""
        return f"http://127.0.0.1:{self.port}/"

    def kill(self) -> None:
        """Stop the server with SIGKILL, as a crash would."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def restart(self, wait: bool = True) -> None:
        """Start the server again on the same port; with ``wait``, until it says it listens.

        Without it, only until the port takes connections (the server may still be starting).
        """
        self.process = self.launch()
        if wait:
            self.ready()
            return
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.05).close()
                return
            except OSError:
                time.sleep(0.005)
        raise AssertionError("the server never listened again")

    def stop(self) -> None:
        """Stop the server if it runs."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def state(self, page: Page) -> Any:
        """Return the game's state as the API answers it to the seat of ``page``."""
        game = page.url.split("/game/")[1].split("#")[0]
        secret = unquote(page.url.split("#", 1)[1])
        request = urllib.request.Request(f"{self.url}api/games/{game}",
                                         headers={"X-Seat-Secret": secret})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)


@pytest.fixture
def server(data: Path, solver_cache: Path, course: Solution,
           course_moments: Moments) -> Iterator[Server]:
    """A live server on a fresh data folder, with the course rules' tables ready."""
    running = Server(data, solver_cache)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def screens() -> Path:
    """The folder the screenshots go to."""
    named = os.environ.get("YAHTZEE_SCREENS_DIR")
    folder = Path(named) if named else Path(os.environ["YAHTZEE_DATA_DIR"]).parent / "screens"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def new_page(browser: Browser, width: int = 1280, height: int = 800,
             touch: bool = False) -> Page:
    """Return a page in a fresh context of that size, watching for "Failed to fetch"."""
    context: BrowserContext = browser.new_context(viewport={"width": width, "height": height},
                                                  has_touch=touch, is_mobile=touch)
    page = context.new_page()
    page.add_init_script(script=f"({FAILED_WATCH})()")
    return page


def form_page(browser: Browser, server: Server, width: int = 1280, height: int = 800,
              touch: bool = False) -> Page:
    """Return a new page (as ``new_page``) at the start page, its new-game form shown."""
    page = new_page(browser, width, height, touch)
    page.goto(server.url)
    hook(page, "new-game").wait_for(timeout=WAIT_MS)
    return page


def start_game(page: Page, server: Server, seed: int, coach: bool = True,
               screens: Path | None = None) -> None:
    """Start a game of a person against the computer (the form's screenshot in ``screens``)."""
    page.goto(server.url)
    hook(page, "new-game").wait_for()
    if screens is not None:
        size = page.viewport_size
        assert size is not None
        page.screenshot(path=str(screens / f"form-{size['width']}x{size['height']}.png"))
        accessible(page, "the form")
    page.select_option("#rules", "course")  # the session's tables are the course rules'
    page.fill("#seed", str(seed))
    if not coach:
        page.uncheck("#coach")
    hook(page, "new-game").click()
    page.wait_for_url("**/game/**")


def my_turn_or_end(page: Page) -> None:
    """Wait until the person may roll (nothing queued), or the winner is shown."""
    page.wait_for_function(
        "() => (!document.querySelector('[data-testid=roll]').disabled"
        "       && document.querySelector('#table').dataset.pending === '0')"
        " || !document.querySelector('[data-testid=winner]').hidden", timeout=WAIT_MS)


def settled(page: Page) -> None:
    """Wait until no move of the page waits for its answer."""
    page.wait_for_function("() => document.querySelector('#table').dataset.pending === '0'",
                           timeout=WAIT_MS)


def dice_labels(page: Page) -> list[str]:
    """Return the dice as the page says them: ``Die 1: 5, saved``."""
    return [str(hook(page, f"die-{n}").get_attribute("aria-label")) for n in range(1, 6)]


def api_labels(state: Any) -> list[str]:
    """Return the dice of an API state as the page says them."""
    return [f"Die {n}: {face}{', saved' if saved else ''}"
            for n, (face, saved) in enumerate(zip(state["dice"], state["saved"]), 1)]


def best_box(page: Page) -> int:
    """Return the box worth most now among the page's box buttons (the lowest of equals)."""
    offers = []
    for button in page.locator('[data-testid^="box-"]:visible').all():
        number = int(str(button.get_attribute("data-testid")).split("-")[1])
        offers.append((int(button.inner_text().split("+")[-1]), -number))
    return -max(offers)[1]


def version(page: Page) -> int:
    """Return the version of the state the page draws."""
    return int(str(page.locator("#table").get_attribute("data-version")))


def shows_the_game(page: Page, at_least: int) -> float:
    """Wait until the page draws the game at ``at_least`` or later; return the seconds it took."""
    began = time.monotonic()
    page.wait_for_function(
        """(least) => {
             const table = document.querySelector('#table');
             return !table.hidden && Number(table.dataset.version) >= least
               && document.querySelector('#status').textContent.startsWith('Round')
               && document.querySelectorAll('#cards tbody th').length >= 13
               && document.querySelector('[data-testid=offline]').hidden;
           }""", arg=at_least, timeout=WAIT_MS)
    return time.monotonic() - began


def test_every_reload_while_the_server_restarts_shows_the_game_where_it_stood(
        browser: Browser, server: Server) -> None:
    page = new_page(browser)
    start_game(page, server, seed=21, coach=False)  # the coach's tables would load at each start
    moments = ["after a move", "during the computer's turn", "while the server starts"] * 3
    moments.append("after a move")
    reloads = 0
    for moment in moments:
        my_turn_or_end(page)
        assert not hook(page, "winner").is_visible(), "the game ended before the reloads did"
        if moment == "during the computer's turn":
            box = hook(page, f"box-{best_box(page)}")
            box.click()   # arms it: re-rolls are left
            page.wait_for_timeout(400)
            with page.expect_response("**/moves") as answer:
                box.click()
            answer.value.finished()
            settled(page)
            time.sleep(0.08)  # the computer has started its turn, 0.05 s a command
        else:
            with page.expect_response("**/moves") as answer:
                hook(page, "die-2").click()
            answer.value.finished()
        seen = version(page)
        server.kill()
        server.restart(wait=moment != "while the server starts")
        page.reload()
        reloads += 1
        took = shows_the_game(page, seen)
        assert took < SHOWN_WITHIN, f"{moment}: the game showed after {took:.1f} s"
        my_turn_or_end(page)
        settled(page)
        stood = server.state(page)
        assert stood["version"] >= seen, moment
        assert dice_labels(page) == api_labels(stood), moment
        for player in stood["players"]:
            assert hook(page, f"total-{player['seat']}").inner_text() == str(player["total"])
        assert not page.evaluate("window.sawFailed"), moment
    assert reloads >= 10
    # the page left open while the server is down says so, and recovers by itself
    my_turn_or_end(page)
    seen = version(page)
    third = dice_labels(page)[2]
    server.kill()
    hook(page, "offline").wait_for(state="visible", timeout=5000)
    assert "Failed to fetch" not in page.locator("body").inner_text()
    hook(page, "die-3").click()  # queued while the server is away, sent once it is back
    server.restart()
    hook(page, "offline").wait_for(state="hidden", timeout=8000)
    settled(page)
    assert version(page) > seen
    assert ("saved" in dice_labels(page)[2]) != ("saved" in third)
    assert not page.evaluate("window.sawFailed")
    page.context.close()


def test_clicks_over_a_slow_link_are_queued_and_sent_in_order(
        browser: Browser, server: Server) -> None:
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    settled(page)
    before = [label.split(": ")[1] for label in dice_labels(page)]
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 300, "downloadThroughput": -1, "uploadThroughput": -1})
    hook(page, "die-1").click()
    page.wait_for_timeout(150)
    hook(page, "die-2").click()
    page.wait_for_timeout(150)
    hook(page, "roll").click()
    page.wait_for_function("() => document.querySelector('#status').textContent"
                           ".includes('1 re-roll left')", timeout=WAIT_MS)
    settled(page)
    after = dice_labels(page)
    assert after[:2] == [f"Die 1: {before[0]}, saved", f"Die 2: {before[1]}, saved"]
    stood = server.state(page)
    assert stood["saved"][:2] == [True, True] and stood["rolls_left"] == 1
    assert stood["dice"][:2] == before[:2]
    page.context.close()


@pytest.mark.parametrize("touch", [False, True])
def test_a_double_click_or_tap_on_roll_rolls_once(
        browser: Browser, server: Server, touch: bool) -> None:
    """A second Roll a moment after the first would throw away dice the player has not seen:
    it is dropped; a Roll half a second later rolls."""
    page = new_page(browser, *((390, 844) if touch else (1280, 800)), touch)
    start_game(page, server, seed=7, coach=False)
    my_turn_or_end(page)
    settled(page)
    roll = hook(page, "roll")
    if touch:
        roll.tap()
        roll.tap()
    else:
        roll.dblclick()
    settled(page)
    page.wait_for_timeout(200)   # a second roll, had it been queued, would be answered by now
    settled(page)
    assert server.state(page)["rolls_left"] == 1
    assert "1 re-roll left" in page.locator("#status").inner_text()
    page.wait_for_timeout(500)
    roll.click()
    page.wait_for_function("() => document.querySelector('#status').textContent"
                           ".includes('choose a box')", timeout=WAIT_MS)
    assert server.state(page)["rolls_left"] == 0
    page.context.close()


LANDINGS = """() => {
  window.landings = [];
  new MutationObserver((changes) => changes.forEach((change) => {
    const die = change.target;
    if (die.classList.contains("landed")) window.landings.push(die.dataset.testid);
  })).observe(document.getElementById("dice"), {subtree: true, attributeFilter: ["class"]});
}"""
"""Start noting, in ``window.landings``, each die whose face is drawn landing."""


def test_the_dice_rolled_land_and_the_dice_saved_do_not(browser: Browser, server: Server) -> None:
    """A roll's answer draws each die it rolled landing, even one that shows the face it showed
    before (else a re-roll to the same face looks like no roll); a saved die, a die saved or
    a Stop rolling draws none."""
    page = new_page(browser)
    start_game(page, server, seed=7, coach=False)
    my_turn_or_end(page)
    settled(page)
    page.evaluate(LANDINGS)
    hook(page, "die-1").click()
    hook(page, "die-3").click()
    settled(page)
    assert page.evaluate("() => window.landings") == []
    hook(page, "roll").click()
    settled(page)
    page.wait_for_function("() => window.landings.length > 0", timeout=WAIT_MS)
    assert sorted(set(page.evaluate("() => window.landings"))) == ["die-2", "die-4", "die-5"]
    page.evaluate("() => { window.landings = []; }")
    hook(page, "score").click()
    settled(page)
    assert page.evaluate("() => window.landings") == []
    page.context.close()


@pytest.mark.parametrize("touch", [False, True])
def test_a_box_pressed_with_re_rolls_left_scores_only_when_pressed_again(
        browser: Browser, server: Server, touch: bool) -> None:
    """Scoring ends the turn for good, so a box pressed while the player may still roll is
    armed first: it reads "score N?"; a double click or tap leaves it armed; a second
    press scores it.  Any other move disarms it; after Stop rolling one press scores (and no
    die is marked saved, as after the last roll; a computer's last keep played back, and a last
    roll on its way, stay marked)."""
    page = new_page(browser, *((390, 844) if touch else (1280, 800)), touch)
    start_game(page, server, seed=7, coach=False)
    my_turn_or_end(page)
    settled(page)
    before = server.state(page)
    chance = next(box for box in before["players"][0]["boxes"] if box["name"] == "Chance")
    box = hook(page, f"box-{chance['number']}")
    if touch:
        box.tap()
        box.tap()
    else:
        box.dblclick()
    page.wait_for_timeout(300)   # a move, had one been sent, would be answered by now
    settled(page)
    assert server.state(page)["version"] == before["version"]
    assert "armed" in str(box.get_attribute("class"))
    assert box.get_attribute("aria-label") == (
        f"Press again to end your turn: Score {chance['now']} in Chance")
    assert box.evaluate("(b) => getComputedStyle(b, '::before').content") == '"score "'
    hook(page, "die-1").click()   # another move disarms the box
    settled(page)
    assert "armed" not in str(box.get_attribute("class"))
    box.click()
    page.wait_for_timeout(400)
    box.click()
    page.wait_for_selector(f"#moves li:has-text('Player 1 scored {chance['now']} points in "
                           "Chance')", timeout=WAIT_MS)
    my_turn_or_end(page)
    settled(page)
    hook(page, "die-2").click()
    settled(page)
    assert dice_labels(page)[1].endswith(", saved")
    hook(page, "score").click()
    settled(page)
    # the dice are final now: none is marked saved (the server still holds which were)
    assert server.state(page)["saved"][1]
    assert not any(label.endswith(", saved") for label in dice_labels(page))
    assert "saved" not in str(hook(page, "die-2").get_attribute("class"))
    marked = page.evaluate("""() => {   // a computer's keep played back, a last roll on its way
      const labels = () => dice.map((d) => d.button.getAttribute("aria-label"));
      const now = view;
      view = {...now, rolls_left: 0, computer_turn: true};
      drawDice();
      const computer = labels();
      view = {...now, rolls_left: 0, rolling: true};
      drawDice();
      const rolling = labels();
      view = now;
      drawDice();
      return [computer, rolling];
    }""")
    assert [sum(label.endswith(", saved") for label in seen) for seen in marked] == [1, 1]
    number = best_box(page)
    hook(page, f"box-{number}").click()   # no re-roll to give up: one press scores
    page.wait_for_function("(n) => document.querySelectorAll('#moves li').length > n",
                           arg=page.locator("#moves li").count(), timeout=WAIT_MS)
    assert server.state(page)["players"][0]["boxes"][number - 1]["score"] is not None
    # after the last roll, as after Stop, no die is marked saved
    my_turn_or_end(page)
    settled(page)
    hook(page, "die-2").click()
    for _ in range(2):
        hook(page, "roll").click()
        settled(page)
        page.wait_for_timeout(600)   # two presses within half a second roll once
    last = server.state(page)
    assert (last["phase"], last["rolls_left"], last["saved"][1]) == ("scoring", 0, True)
    assert not any(label.endswith(", saved") for label in dice_labels(page))
    page.context.close()


def test_an_armed_box_stays_armed_when_a_die_saved_before_it_is_answered(
        browser: Browser, server: Server) -> None:
    """Over a slow link the answer to a die saved just before a box's first press comes
    between the two presses: it changes the state's version, not the dice, so the box stays
    armed and the second press scores (no third press needed)."""
    page = new_page(browser)
    start_game(page, server, seed=7, coach=False)
    my_turn_or_end(page)
    settled(page)
    before = server.state(page)
    chance = next(box for box in before["players"][0]["boxes"] if box["name"] == "Chance")
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1})
    # both presses before any answer, as a player's on a slow link come
    page.evaluate("""(n) => {
      document.querySelector('[data-testid=die-1]').click();
      document.querySelector(`[data-testid=box-${n}]`).click();
    }""", chance["number"])
    settled(page)   # the save is answered: a new version of the same dice
    assert server.state(page)["version"] > before["version"]
    box = hook(page, f"box-{chance['number']}")
    assert "armed" in str(box.get_attribute("class"))
    box.click()
    page.wait_for_selector(f"#moves li:has-text('Player 1 scored {chance['now']} points in "
                           "Chance')", timeout=WAIT_MS)
    page.context.close()


PLACES = """() => ['[data-testid=die-1]', '#cards tbody tr:first-child',
                    '#cards tbody.totals tr.total'].map(
  (selector) => Math.round(document.querySelector(selector).getBoundingClientRect().top))
  .concat([...document.querySelectorAll('#cards thead th')].map(
    (th) => Math.round(th.getBoundingClientRect().left)))"""
"""Where the first die, the card's first row and its Total stand on the page, and where each
of the card's columns begins."""


@pytest.mark.parametrize("width, height, touch", [(1280, 800, False), (390, 844, True),
                                                  (375, 667, True), (360, 740, True)])
def test_beside_the_dice_a_new_player_is_told_how_to_save_one(
        browser: Browser, server: Server, width: int, height: int, touch: bool) -> None:
    """In a person's first rounds the room beside the dice says how to save a die ("Tap" on a
    touch screen), whole and beside them, until one is saved (then not again on that page);
    later rounds say nothing there,
    a Yahtzee is cheered for (not while the dice roll), the coach's roll of every die is said
    there (it stars no die), and another seat's scoring is said as
    "choosing a box", not as an order.  A phone narrower than 368 px has no room for it: the
    dice's row stays as high as a die."""
    page = new_page(browser, width, height, touch)
    start_game(page, server, seed=9, coach=False)
    my_turn_or_end(page)
    settled(page)
    hint = page.locator("#dice-hint")
    row = page.locator("#dice").bounding_box()
    die = hook(page, "die-1").bounding_box()
    assert row is not None and die is not None and row["height"] <= die["height"] + 1
    assert hint.text_content() == f"{'Tap' if touch else 'Click'} a die to save it"
    assert hint.is_visible() == (width >= 368)
    for said in ("Tap a die to save it", "Yahtzee!", "Coach: roll\u00a0all",   # whole, or unseen
                 "All saved: unsave one to roll"):
        page.evaluate("(said) => { const h = document.getElementById('dice-hint');"
                      " h.textContent = said; h.classList.toggle('cheer', said === 'Yahtzee!'); }",
                      said)
        box = hint.bounding_box()
        if box is None:
            continue
        assert row["y"] <= box["y"] and box["y"] + box["height"] <= row["y"] + row["height"]
        assert box["x"] + box["width"] <= width
        assert hint.evaluate("(h) => h.scrollWidth <= h.clientWidth"
                             " && h.scrollHeight <= h.clientHeight"), f"{said} is cut"
    page.evaluate("() => drawDice()")
    if touch:
        hook(page, "die-1").tap()
    else:
        hook(page, "die-1").click()
    settled(page)
    assert hint.text_content() == ""
    said = page.evaluate("""() => {
      const five = (face) => Array(5).fill(String(face));
      const unsaved = [false, false, false, false, false];
      const other = view.you[0] === 1 ? 2 : 1;
      const mineNow = view;
      view = {...mineNow, phase: "scoring", turn: other, turn_name: view.players[other - 1].name};
      const theirs = statusText();
      view = mineNow;
      return [diceHint({...view, saved: unsaved}, false), diceHint({...view, saved: unsaved,
              round: HINT_ROUNDS + 1}, true), diceHint({...view, dice: five(4)}, false),
              diceHint({...view, dice: five(4), rolling: true}, false), theirs,
              diceHint({...view, advice_roll_all: true}, false),
              diceHint({...view, advice_roll_all: true, rolling: true}, false),
              diceHint({...view, advice_roll_all: true, dice: five(4)}, false),
              diceHint({...view, saved: Array(5).fill(true)}, false),
              diceHint({...view, saved: Array(5).fill(true), rolling: true}, false),
              diceHint({...view, saved: Array(5).fill(true), dice: five(4)}, false)];
    }""")
    # once a die of theirs was saved the person knows how: no hint, even with none saved now
    assert said[:4] == ["", "", "Yahtzee!", ""]
    assert page.evaluate("() => { savedOne = false; return diceHint("
                         "{...view, saved: [false, false, false, false, false]}, false); }"
                         ) == "Click a die to save it"
    assert said[4].endswith("Computer's turn (choosing a box)")
    # the coach's roll of every die, which stars none, is said there (not for dice rolling)
    assert said[5:8] == ["Coach: roll\u00a0all", "", "Yahtzee!"]
    # every die saved: said before Roll is pressed in vain (not while dice roll; a Yahtzee cheers)
    assert said[8:] == ["All saved: unsave one to roll", "", "Yahtzee!"]
    page.context.close()


@pytest.mark.parametrize("width, height, touch", [(1280, 800, False), (390, 844, True)])
def test_the_dice_and_the_card_stay_put_as_the_turn_passes(
        browser: Browser, server: Server, width: int, height: int, touch: bool) -> None:
    """Nothing above the dice or the card changes height as the turn passes (the status line
    keeps to one line on a phone, whole: "Round 1/13: Computer's turn (2 re-rolls left)"; the
    card's hint keeps its room, saying what another player's turn shows; a row is as high
    with a box's button as without), and no column of the card moves sideways (every name
    keeps the room of the turn's marker), so that a click or tap aimed as the turn passes
    lands where it was aimed."""
    page = new_page(browser, width, height, touch)
    start_game(page, server, seed=9, coach=False)
    my_turn_or_end(page)
    settled(page)
    mine = page.evaluate(PLACES)
    hook(page, "score").click()
    settled(page)
    page.locator("#cards button.box:not([disabled])").first.click()
    page.wait_for_selector("#status:has-text(\"Computer's turn\")", timeout=WAIT_MS)
    theirs = page.evaluate(PLACES)   # to a pixel (a row under a thick rule may take half one)
    assert all(abs(a - b) <= 1 for a, b in zip(mine, theirs)), (mine, theirs)
    hint = page.locator("#card-hint")   # in its room, the other text (a phone has neither)
    if touch:
        assert hint.is_hidden()
        # a phone's names on one line, with no marker (the turn is in the status line)
        head = page.locator("#cards thead tr").bounding_box()
        assert head is not None and head["height"] < 34, head
        assert page.evaluate("() => [...document.querySelectorAll('#cards th.player')].every("
                             "(th) => getComputedStyle(th, '::before').content === 'none')")
    else:
        assert hint.inner_text().startswith("Another player's turn: "), hint.inner_text()
        assert "unseen" in str(page.locator("#hint-mine").get_attribute("class"))
    status = page.locator("#status")
    assert status.inner_text().startswith("Round 1/13: " if touch else "Round 1 of 13: ")
    assert status.evaluate("(s) => s.scrollWidth <= s.clientWidth"), "the line's end is cut"
    # the moves' list, scrolled to its newest line, shows whole lines: none cut at its top
    cut = page.evaluate("""() => {
      const list = document.getElementById('moves');
      for (let i = 0; i < 30; i += 1) list.append(Object.assign(document.createElement('li'),
                                                                {textContent: `line ${i}`}));
      list.scrollTop = list.scrollHeight;
      const top = list.getBoundingClientRect().top + list.clientTop;
      const first = [...list.children].find((li) => li.getBoundingClientRect().bottom > top + 0.5);
      return first.getBoundingClientRect().top - top;
    }""")
    assert abs(cut) < 0.5, cut
    page.context.close()


FRAMES = """() => {
  window.frames_seen = [];
  if (window.frames_watched) return;
  window.frames_watched = true;
  new MutationObserver(() => {
    const moves = [...document.querySelectorAll('#moves li')].map((li) => li.textContent);
    const dice = [1, 2, 3, 4, 5].map(
      (n) => document.querySelector(`[data-testid="die-${n}"]`).getAttribute('aria-label'));
    window.frames_seen.push({at: performance.now(), last: moves[moves.length - 1], dice,
                             status: document.querySelector('#status').textContent,
                             version: Number(document.querySelector('#table').dataset.version)});
  }).observe(document.getElementById('moves'), {childList: true});
}"""
"""An observer noting, at each change of the moves' list, its last line, the dice, the status
and the version the table shows."""


def test_the_page_plays_a_computer_s_turn_back_roll_by_roll(
        browser: Browser, server: Server) -> None:
    """The server sends a computer's turn in one state; the page plays each of its re-rolls back
    from it, the dice as the line says them, ``--delay`` apart, before the turn passes to the
    person (the table showing the version of the state before the turn meanwhile)."""
    page = new_page(browser)
    start_game(page, server, seed=9, coach=False)
    rerolls: list[Any] = []
    for _ in range(3):  # until a turn of the computer's that re-rolls
        my_turn_or_end(page)
        settled(page)
        page.evaluate(FRAMES)
        hook(page, "score").click()
        settled(page)
        hook(page, f"box-{best_box(page)}").click()
        my_turn_or_end(page)
        seen = page.evaluate("window.frames_seen")
        rerolls = [f for f in seen if re.match(r"Computer (kept .+ and rolled|rolled all five "
                                               r"again): ", f["last"] or "")]
        if rerolls:
            break
    assert rerolls, "no roll of the computer's was shown before the turn passed"
    for shown in rerolls:
        faces = shown["last"].split(": ")[1].split()
        assert [label.split(": ")[1].split(",")[0] for label in shown["dice"]] == faces
        assert "Computer's turn" in shown["status"]
        kept = re.match(r"Computer kept ([0-9 ]+) and", shown["last"])
        assert sorted(label.split(": ")[1].split(",")[0] for label in shown["dice"]
                      if label.endswith(", saved")) == sorted(kept.group(1).split() if kept
                                                              else [])
    final = seen[-1]
    assert final["last"].startswith("Player 1 rolled") and "Your turn" in final["status"]
    boxed = next(f for f in seen if f["last"].startswith("Computer rolled"))  # the box's answer
    assert [f["version"] for f in rerolls] == [boxed["version"]] * len(rerolls)
    assert final["version"] > boxed["version"]
    assert final["at"] - rerolls[0]["at"] >= 1000 * float(DELAY) * len(rerolls) - 5
    page.context.close()


IN_VIEW = """() => {
  const ids = ['die-1', 'die-2', 'die-3', 'die-4', 'die-5', 'roll'];
  const boxes = [...document.querySelectorAll('[data-testid^="box-"]')]
    .filter((b) => !b.hidden && b.offsetParent !== null);
  const out = [];
  const hooks = ids.map((id) => document.querySelector(`[data-testid="${id}"]`));
  for (const node of [...hooks, ...boxes]) {
    const r = node.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth || !r.height) {
      out.push(node.dataset.testid);
    }
  }
  const total = document.querySelector('[data-testid="total-1"]').getBoundingClientRect();
  if (total.top < 0 || total.bottom > innerHeight) out.push('total-1');
  const under = boxes.filter((b) => b.getBoundingClientRect().bottom > total.top)
    .map((b) => b.dataset.testid);
  return {outside: out, boxes: boxes.length, under,
          lowest: Math.min(...boxes.map((b) => b.getBoundingClientRect().height))};
}"""
"""What of the dice, Roll, the open boxes and the first seat's total lies outside the
viewport; how many boxes; which reach below the total's top (covered by it, where it stays at
the screen's foot); the least box height."""


def prompt_in_view(page: Page, where: str, touch: bool) -> None:
    """Check that the dice, Roll, every open box of the person and the totals are in view
    without scrolling, no box under the totals."""
    seen = page.evaluate(IN_VIEW)
    assert seen["outside"] == [], where
    assert seen["under"] == [], where
    assert seen["boxes"] >= 1, where
    if touch:
        assert seen["lowest"] >= 44, where


def open_boxes(state: Any) -> int:
    """Return how many boxes of the first seat are open."""
    return sum(box["score"] is None for box in state["players"][0]["boxes"])


@pytest.mark.parametrize("width, height, touch", SIZES)
def test_the_dice_roll_and_every_open_box_are_on_one_screen_at_every_prompt(
        browser: Browser, server: Server, screens: Path,
        width: int, height: int, touch: bool) -> None:
    page = new_page(browser, width, height, touch)
    start_game(page, server, seed=30 + width, screens=screens)
    turns = 13 if touch else 3
    for turn in range(turns):
        my_turn_or_end(page)
        settled(page)
        where = f"{width}x{height}, turn {turn + 1}"
        assert page.evaluate("scrollY") == 0 or touch, where
        prompt_in_view(page, where + ", first roll", touch)
        assert page.locator('[data-testid^="box-"]:visible').count() == open_boxes(
            server.state(page))
        if turn == 0:
            page.screenshot(path=str(screens / f"your-turn-{width}x{height}.png"))
            accessible(page, where + ", your turn")
        hook(page, "die-1").click()
        hook(page, "roll").click()
        settled(page)
        prompt_in_view(page, where + ", after a roll", touch)
        hook(page, "score").click()
        settled(page)
        prompt_in_view(page, where + ", choosing a box", touch)
        page.mouse.wheel(0, 600)  # a player who scrolled down to the card
        with page.expect_response("**/moves"):
            hook(page, f"box-{best_box(page)}").click()
        assert hook(page, "die-1").evaluate("(d) => d.getBoundingClientRect().top >= 0")
        if turn == 0:
            page.wait_for_function(
                "() => document.querySelector('#status').textContent.includes('Computer')")
            page.screenshot(path=str(screens / f"computer-turn-{width}x{height}.png"))
            accessible(page, where + ", the computer's turn")
    if touch:
        hook(page, "winner").wait_for(state="visible", timeout=WAIT_MS)
        ended(page, screens, f"{width}x{height}")
        server.kill()  # the finished game is filed: after a restart it comes from the history
        server.restart()
        wide = new_page(browser)
        wide.goto(page.url)
        hook(wide, "winner").wait_for(state="visible", timeout=WAIT_MS)
        ended(wide, screens, "1280x800")
        wide.context.close()
    page.context.close()


def ended(page: Page, screens: Path, size: str) -> None:
    """Check the end of the game: the winner in view, announced, with totals and Play again."""
    winner = hook(page, "winner")
    box = winner.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= page.viewport_size[
        "height"]  # type: ignore[index]
    assert page.locator("#end").get_attribute("aria-labelledby") == "end-title"
    assert winner.inner_text() in page.locator("#announce").inner_text()
    assert page.get_by_role("button", name="Play again").is_visible()
    for seat in (1, 2):
        assert hook(page, f"total-{seat}").inner_text().isdigit()
    page.screenshot(path=str(screens / f"end-{size}.png"))
    accessible(page, f"the end, {size}")


def test_the_card_the_legend_the_keys_and_the_announcements(
        browser: Browser, server: Server) -> None:
    page = new_page(browser)
    start_game(page, server, seed=44)
    my_turn_or_end(page)
    settled(page)
    # the card: box names as row headers, the bonus's progress to 63, totals in the usual order
    names = page.locator('#cards tbody th[scope="row"]').all_inner_texts()
    assert names[0] == "Ones" and "Chance" in names and "Bonus at 63" in names
    assert page.locator("#cards tbody.totals th").all_inner_texts() == [
        "Upper section", "Upper bonus", "Lower section", "Yahtzee bonus", "Total"]
    for seat in (1, 2):
        assert "63" in hook(page, f"upper-bonus-{seat}").inner_text()
    # previews only for the player to move, marked as previews, a zero marked as a zero
    state = server.state(page)
    previews = page.locator("#cards button.box:visible")
    assert previews.count() == 13
    for box in state["players"][0]["boxes"]:
        button = hook(page, f"box-{box['number']}")
        assert ("zero" in str(button.get_attribute("class"))) == (box["now"] == 0)
        assert f"Score {box['now']} in {box['name']}" in str(button.get_attribute("aria-label"))
    others = page.locator("#cards tbody:not(.totals) tr:not(.bonus-progress) td:nth-child(3)")
    assert others.all_inner_texts() == [""] * 13
    assert "preview" in page.locator("#card-hint").inner_text()
    # what the coach's numbers are is said in a line each, without opening the legend
    assert page.locator("#options-note").inner_text().startswith(
        "Your best moves: the final score each leads to on average, ± its usual spread, "
        "and its chances of the upper bonus and a Yahtzee.")
    assert page.locator("#chances-note").is_visible()
    # the legend opens with a tap or a click
    legend = page.locator("details.legend")
    legend.locator("summary").click()
    assert legend.locator("dd").first.is_visible()
    assert "±" in legend.inner_text() and "Win chances" in legend.inner_text()
    assert legend.get_by_text("upper bonus %, Yahtzee %").is_visible()
    assert page.title().startswith("Your turn")
    # keyboard focus stays on the control used
    hook(page, "die-1").focus()
    page.keyboard.press("Enter")
    settled(page)
    assert hook(page, "die-1").get_attribute("aria-pressed") == "true"
    assert page.evaluate("document.activeElement.dataset.testid") == "die-1"
    ring = hook(page, "die-1").evaluate("(d) => getComputedStyle(d).outlineColor")
    saved = hook(page, "die-1").evaluate("(d) => getComputedStyle(d).backgroundColor")
    assert ring != saved and ring == "rgb(20, 71, 230)"
    hook(page, "roll").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#status').textContent"
                           ".includes('1 re-roll left')", timeout=WAIT_MS)
    assert page.evaluate("document.activeElement.dataset.testid") == "roll"
    # the shortcuts are shown, and can be switched off (and stay off)
    assert hook(page, "roll").locator("kbd").is_visible()
    page.keyboard.press("2")
    page.wait_for_selector('[data-testid="die-2"][aria-pressed="true"]')
    settled(page)
    page.uncheck("#shortcuts")
    assert not hook(page, "roll").locator("kbd").is_visible()
    page.keyboard.press("2")
    page.keyboard.press("s")
    page.wait_for_timeout(300)
    assert hook(page, "die-2").get_attribute("aria-pressed") == "true"
    assert str(page.locator("#table").get_attribute("data-pending")) == "0"
    page.reload()
    my_turn_or_end(page)
    assert not page.locator("#shortcuts").is_checked()
    # the computer's moves are said once, in a polite live region
    hook(page, "score").click()
    hook(page, f"box-{best_box(page)}").click()
    page.wait_for_function("() => document.querySelector('#announce').textContent"
                           ".includes('Computer scored')", timeout=WAIT_MS)
    announce = page.locator("#announce")
    assert announce.get_attribute("aria-live") == "polite"
    my_turn_or_end(page)
    assert "Your turn" in announce.inner_text()
    assert page.locator("#status").get_attribute("aria-live") is None
    # and seen under the buttons: the other player's newest move, not the player's own roll
    moves = server.state(page)["moves"]
    assert moves[-1].startswith("Player 1 rolled")
    newest = [line for line in moves if line.startswith("Computer ")][-1]
    assert newest.startswith("Computer scored")
    assert page.locator("#last-move").inner_text() == f"Last: {newest}"
    assert page.locator("#last-move").get_attribute("aria-hidden") == "true"
    # and marked on the card, where the computer's number appeared, until the next score
    box_name = newest.split(" in ")[1].split(" (")[0]
    assert page.locator("#cards td.fresh").count() == 1
    fresh = page.locator("#cards tbody tr", has=page.locator("th", has_text=box_name)).first
    assert "fresh" in str(fresh.locator("td").nth(1).get_attribute("class"))
    hook(page, "score").click()
    hook(page, f"box-{best_box(page)}").click()
    page.wait_for_function("() => !document.querySelector('#cards td.fresh')"
                           " || document.querySelector('#cards td.fresh').cellIndex === 2",
                           timeout=WAIT_MS)
    assert page.locator("#cards td.fresh").count() <= 1  # the computer's next box, if scored
    page.context.close()


def test_on_a_phone_the_computer_s_newest_move_is_where_the_idle_buttons_were(
        browser: Browser, server: Server) -> None:
    """A phone has no room for the "Last:" line; while another plays it takes the buttons'
    place, and nothing on the screen moves (the computer's turn faked: it is over in a blink)."""
    page = new_page(browser, 390, 844, touch=True)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    settled(page)
    mine = page.locator("#cards").bounding_box()
    assert not page.locator("#last-move").is_visible()
    assert page.evaluate("getComputedStyle(document.querySelector('#controls'), '::after')"
                         ".content") == "none"
    theirs = server.state(page)
    line = "Computer kept 5 5 and rolled: 5 5 1 5 3"
    theirs.update(turn=2, turn_name="Computer", moves=theirs["moves"] + [line],
                  version=theirs["version"] + 100)
    page.route("**/api/games/*", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(theirs)))
    page.reload()
    page.wait_for_function("() => document.querySelector('#status').textContent"
                           ".includes(\"Computer's turn\")", timeout=WAIT_MS)
    written = page.evaluate(
        "getComputedStyle(document.querySelector('#controls'), '::after').content")
    assert written == f'"Last: {line}"'
    assert not hook(page, "roll").is_visible() and not page.locator("#last-move").is_visible()
    moved = page.locator("#cards").bounding_box()
    assert mine is not None and moved is not None
    assert (moved["x"], moved["y"]) == (mine["x"], mine["y"])
    page.context.close()


def coached_first_turn(browser: Browser, server: Server) -> Page:
    """Return a page on the person's first turn of a coached game whose dice show 2 3 4 2 2
    (seed 8; the coach saves the 1st, 4th and 5th dice, then scores Twos)."""
    page = new_page(browser)
    start_game(page, server, seed=8)
    my_turn_or_end(page)
    settled(page)
    return page


def test_the_coach_s_box_is_starred_on_the_card_and_named_as_the_card_names_it(
        browser: Browser, server: Server) -> None:
    page = coached_first_turn(browser, server)
    assert "save only the 1st, 4th and 5th dice" in page.locator("#advice").inner_text()
    assert page.locator("#cards button.box.coach-pick").count() == 0
    starred = [n for n in range(1, 6)
               if "coach-pick" in str(hook(page, f"die-{n}").get_attribute("class"))]
    assert starred == [1, 4, 5]  # marked where they are: on a phone the advice is under the card
    assert "the coach would save it" in str(hook(page, "die-4").get_attribute("aria-label"))
    hook(page, "score").click()
    settled(page)
    page.wait_for_selector("#cards button.box.coach-pick")
    assert page.locator("#advice").inner_text() == (
        "Coach: score 6 in Twos (expected final score 245.4)")
    assert page.locator("#cards button.box.coach-pick").get_attribute("data-testid") == "box-2"
    assert page.locator("#dice .coach-pick").count() == 0
    heads = page.locator("#cards thead th.player").all_inner_texts()
    assert heads == ["Player 1 (you)", "Computer"]
    page.context.close()


def roll_on_its_way(page: Page) -> Callable[[], None]:
    """Press Roll and hold its request before it leaves the page (the server has not got it,
    so no look brings the new dice either); return what lets it go on.

    A link slowed by the browser's own emulation delays the answers, not the requests: the
    server would make the roll at once and the page's long poll bring it first.
    """
    held: list[Route] = []

    def hold(route: Route) -> None:
        """Keep the request from leaving until ``let_go``."""
        held.append(route)
    page.route("**/api/games/*/moves", hold)
    hook(page, "roll").click()
    page.wait_for_selector("#table[data-pending='1']", state="attached")
    page.wait_for_function("() => true")   # the route's handler runs as the page is asked
    assert len(held) == 1

    def let_go() -> None:
        held[0].continue_()
        page.unroute("**/api/games/*/moves")
    return let_go


def test_the_coach_s_stars_and_line_go_while_a_roll_is_on_its_way(
        browser: Browser, server: Server) -> None:
    page = coached_first_turn(browser, server)
    assert page.locator("#dice .coach-pick").count() == 3
    let_go = roll_on_its_way(page)
    # the advice was for the dice now rolling: it says nothing until the new dice are in
    assert page.locator("#dice .coach-pick").count() == 0
    assert page.locator("#advice").is_hidden()
    let_go()
    settled(page)
    page.wait_for_selector("#advice:not([hidden])", timeout=WAIT_MS)
    page.context.close()


def test_no_box_is_offered_while_a_roll_is_on_its_way(browser: Browser, server: Server) -> None:
    """A box's preview is for the dice shown: while a roll changes them, no box can be scored
    at points the new dice may not give."""
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    settled(page)
    assert page.locator("#cards button.box:visible").count() == 13
    let_go = roll_on_its_way(page)
    assert page.locator("#cards button.box:visible").count() == 0
    assert page.locator('[data-testid^="box-"]').count() == 0
    let_go()
    settled(page)
    page.wait_for_selector("#cards button.box:visible", timeout=WAIT_MS)
    assert page.locator("#cards button.box:visible").count() == 13
    stood = server.state(page)
    assert stood["rolls_left"] == 1 and stood["phase"] == "rolling"   # the roll alone was sent
    page.context.close()


def test_a_move_on_its_way_shows_once_when_a_look_brings_it_before_its_answer(
        browser: Browser, server: Server) -> None:
    """Over a slow link the page's long poll, asked long before, brings the state with a die
    saved before the move's own answer comes: the die shows saved, not saved again on top of
    that state (which would show it free until the answer came)."""
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    settled(page)
    drawn = int(str(page.locator("#table").get_attribute("data-version")))
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1})
    hook(page, "die-1").click()
    page.wait_for_function(  # the look's answer is in, the move's not yet
        f"() => Number(document.querySelector('#table').dataset.version) > {drawn}"
        " && document.querySelector('#table').dataset.pending === '1'", timeout=WAIT_MS)
    assert dice_labels(page)[0].endswith(", saved")
    settled(page)
    assert dice_labels(page)[0].endswith(", saved") and server.state(page)["saved"][0]
    page.context.close()


def test_the_longest_status_line_fits_a_small_phone(browser: Browser, server: Server) -> None:
    """On a 375 px phone the status line keeps to one line, whole, even at its longest with
    the computer's own name: "Round 13/13: Computer's turn (choosing a box)"."""
    page = new_page(browser, 375, 667, True)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    settled(page)
    status = page.locator("#status")
    status.evaluate("(s) => { s.textContent = \"Round 13/13: Computer's turn (choosing a box)\"; }")
    assert status.evaluate("(s) => s.scrollWidth <= s.clientWidth"), "the line's end is cut"
    page.context.close()


def test_a_die_is_not_saved_while_a_roll_is_on_its_way(browser: Browser, server: Server) -> None:
    """A die pressed while a roll is on its way would be saved at a face not seen yet: the
    press (or its key) does nothing, and the roll's dice come in with none saved."""
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    settled(page)
    let_go = roll_on_its_way(page)
    assert "rolling" in str(hook(page, "die-3").get_attribute("class"))
    hook(page, "die-3").click(force=True)   # a die shaking is not "stable" to Playwright
    page.keyboard.press("4")
    assert page.locator("#table").get_attribute("data-pending") == "1"   # the roll alone
    let_go()
    settled(page)
    stood = server.state(page)
    assert (stood["rolls_left"], stood["saved"]) == (1, [False] * 5)
    assert dice_labels(page) == api_labels(stood)
    page.context.close()


def test_the_coach_says_nothing_in_the_waiting_room_where_no_dice_are_shown(
        browser: Browser, server: Server) -> None:
    host = form_page(browser, server)
    host.select_option("#rules", "course")
    host.select_option(".seat:nth-of-type(2) .kind", "human")
    hook(host, "new-game").click()
    host.wait_for_selector("#lobby:not([hidden])", timeout=WAIT_MS)
    assert not hook(host, "die-1").is_visible()
    assert host.locator("#coach-panel").is_hidden()
    guest = new_page(browser)
    guest.goto(str(hook(host, "seat-link-2").get_attribute("href")))
    host.wait_for_selector("#status:has-text('Your turn')", timeout=WAIT_MS)
    host.wait_for_selector("#coach-panel:not([hidden])", timeout=WAIT_MS)
    guest.context.close()
    host.context.close()


SMALL_TARGETS = """() => [...document.querySelectorAll(
    'header a, button, summary, select, input:not(label input)')]
  .filter((e) => e.offsetParent !== null)
  .map((e) => [e.textContent.trim() || e.id, e.getBoundingClientRect()])
  .filter(([, r]) => r.width < 24 || r.height < 24).map(([name]) => name)"""
"""The controls a finger may miss: less than 24 CSS pixels either way (a link inside a
sentence, or a box inside its label, is exempt, as WCAG 2.2's target size has it)."""


def test_on_a_phone_every_control_is_a_finger_s_target(browser: Browser, server: Server) -> None:
    page = form_page(browser, server, 390, 844, touch=True)
    assert page.evaluate(SMALL_TARGETS) == [], "the start page"
    start_game(page, server, seed=3)
    my_turn_or_end(page)
    settled(page)
    assert page.evaluate(SMALL_TARGETS) == [], "a turn"
    page.goto(f"{server.url}history")
    assert page.evaluate(SMALL_TARGETS) == [], "the finished games"
    page.context.close()


def phone_hot_seat(browser: Browser, server: Server, people: int, second: str,
                   first: str = "") -> Page:
    """Start, from the form on a phone, a game of ``people`` seats on one screen, the second a
    person called ``second`` (the first called ``first``, if given); return the page."""
    page = form_page(browser, server, 390, 844, touch=True)
    for _ in range(people - 2):
        page.click("#add-seat")
    page.select_option(".seat:nth-of-type(2) .kind", "human")
    if first:
        page.fill(".seat:nth-of-type(1) .name", first)
    page.fill(".seat:nth-of-type(2) .name", second)
    page.uncheck("#coach")
    page.check("#hot-seat")
    hook(page, "new-game").click()
    my_turn_or_end(page)
    return page


def test_on_one_screen_for_all_the_last_line_is_the_move_before_not_the_roll_to_play(
        browser: Browser, server: Server) -> None:
    """In a game on one screen every seat is "you": the line under the buttons shows the move
    of the one who played before, not the roll of the one to play (their dice are above it)."""
    page = form_page(browser, server)
    page.select_option(".seat:nth-of-type(2) .kind", "human")
    page.fill(".seat:nth-of-type(1) .name", "Ann")
    page.fill(".seat:nth-of-type(2) .name", "Bob")
    page.uncheck("#coach")
    page.check("#hot-seat")
    hook(page, "new-game").click()
    my_turn_or_end(page)
    settled(page)
    assert server.state(page)["moves"][-1].startswith("Ann rolled")
    assert page.locator("#last-move").inner_text() == ""   # nobody played before Ann
    hook(page, "score").click()
    hook(page, "box-13").click()
    page.wait_for_function("() => document.querySelector('#last-move').textContent"
                           ".startsWith('Last: Ann')", timeout=WAIT_MS)
    moves = server.state(page)["moves"]
    assert moves[-1].startswith("Bob rolled")
    assert page.locator("#last-move").inner_text() == f"Last: {moves[-2]}"
    assert moves[-2].startswith("Ann scored")
    page.context.close()


def test_the_bar_leads_to_a_new_game_and_the_finished_games_as_two_links(
        browser: Browser, server: Server) -> None:
    """On a laptop the table's bar has both links, apart, as the history's has; a phone, short
    of room, leaves "New game" to the name "Yahtzee", which leads there too."""
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    links = page.locator("header.top .nav a")
    assert links.all_inner_texts() == ["New game", "Finished games"]
    assert [links.nth(n).get_attribute("href") for n in range(2)] == ["/", "/history"]
    first, second = (links.nth(n).bounding_box() for n in range(2))
    assert first is not None and second is not None
    assert second["x"] - (first["x"] + first["width"]) >= 12   # not read as one phrase
    page.set_viewport_size({"width": 390, "height": 844})
    assert links.nth(0).is_hidden() and links.nth(1).is_visible()
    assert page.locator("header.top h1 a").get_attribute("href") == "/"
    page.context.close()


def test_on_a_phone_a_card_wider_than_the_screen_scrolls_sideways(
        browser: Browser, server: Server) -> None:
    """Two long names make a card of two players wider than a phone: it scrolls sideways, so
    that the second column can be reached (the Total row then stays under the card)."""
    page = phone_hot_seat(browser, server, 2, "Bartholomew Maximiliana",
                          "Maximiliana Bartholomew")
    cards = page.locator(".cards")
    assert cards.evaluate("(c) => c.scrollWidth > c.clientWidth")
    assert cards.evaluate("(c) => getComputedStyle(c).overflowX") == "auto"
    hook(page, "total-2").scroll_into_view_if_needed()
    box = hook(page, "total-2").bounding_box()
    assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= 390
    page.context.close()


@pytest.mark.parametrize("people", [3, 6])
def test_on_a_phone_every_player_s_card_is_on_screen_without_scrolling_sideways(
        browser: Browser, server: Server, people: int) -> None:
    page = phone_hot_seat(browser, server, people, "Bartholomew Long")
    cards = page.locator(".cards")
    assert cards.evaluate("(c) => c.scrollWidth <= c.clientWidth"), "the card scrolls sideways"
    right = cards.evaluate("(c) => c.getBoundingClientRect().right")
    for seat in range(1, people + 1):
        box = hook(page, f"total-{seat}").bounding_box()
        assert box is not None and box["x"] + box["width"] <= right
    assert page.locator("#cards button.box:visible").count() == 13
    assert page.locator("#cards thead .you").count() == 0  # on one screen everyone is "you"
    # a line parts each name from the one before: two short names do not read as one
    lines = page.eval_on_selector_all("#cards thead th.player", """heads => heads.map(
        (h) => getComputedStyle(h).borderLeftStyle)""")
    assert lines == ["none"] + ["solid"] * (people - 1)
    page.context.close()


LAYOUT_SHIFT = """() => new Promise((done) => {
  let shift = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) shift += entry.value;
  }).observe({type: "layout-shift", buffered: true});
  setTimeout(() => done(shift), 1000);
})"""
"""The page's cumulative layout shift so far (Chromium's measure of content jumping)."""


def test_the_table_does_not_move_sideways_when_the_page_grows_a_scroll_bar(
        browser: Browser, server: Server) -> None:
    """A game's first rounds fit the screen; a longer list of moves brings a scroll bar, which
    must not push the dice and the card aside.  Playwright hides scroll bars by default; this
    browser shows them, as a desktop's does."""
    desktop = browser.browser_type.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS,
                                          ignore_default_args=["--hide-scrollbars"])
    page = new_page(desktop)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    where = ("() => [document.documentElement.scrollHeight > innerHeight, Math.round("
             "document.querySelector('[data-testid=die-1]').getBoundingClientRect().left)]")
    short, left = page.evaluate(where)
    page.evaluate("() => { document.body.style.minHeight = '3000px'; }")  # as a long game's
    long, left_now = page.evaluate(where)
    assert (short, long) == (False, True) and left_now == left
    desktop.close()


def test_a_watcher_is_offered_no_controls(browser: Browser, server: Server) -> None:
    """A link of no seat watches: the dice and cards, but no Roll, Stop or keys to press."""
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    assert hook(page, "roll").is_visible() and page.locator("#shortcuts").is_visible()
    watcher = new_page(browser)
    watcher.goto(page.url.split("#")[0])
    watcher.wait_for_selector("#watching", state="visible", timeout=WAIT_MS)
    assert hook(watcher, "die-1").is_visible() and hook(watcher, "total-1").is_visible()
    assert hook(watcher, "roll").is_hidden() and hook(watcher, "score").is_hidden()
    assert watcher.locator("#shortcuts").is_hidden()
    assert watcher.locator("#watching-yours").is_hidden()
    # the maker's browser at the plain address is told that its seat's link is below
    own = page.context.new_page()
    own.goto(page.url.split("#")[0])
    own.wait_for_selector("#watching-yours", state="visible", timeout=WAIT_MS)
    assert hook(own, "seat-link-1").is_visible()
    # and that link opened in the same tab (only the hash changes) plays the seat at once
    own.goto(page.url)
    hook(own, "roll").wait_for(state="visible", timeout=WAIT_MS)
    assert own.locator("#watching").is_hidden()
    page.context.close()
    watcher.context.close()


def test_the_rule_sets_are_explained_only_for_the_game_they_belong_to(
        browser: Browser, server: Server) -> None:
    page = form_page(browser, server)
    assert page.locator("#rules-help li").count() == 2 and page.locator("#rules-help").is_visible()
    # the chosen game's line alone explains it: what a Poker Dice face counts is no guess
    game_help = page.locator("#game-help li:visible")
    assert game_help.all_inner_texts() == [
        "Yahtzee: five dice, 13 rounds, 13 boxes: Ones to Sixes, then Three of a Kind to Chance"]
    page.select_option("#game", "poker-dice")
    assert page.locator("#rules").is_disabled() and page.locator("#rules-help").is_hidden()
    assert game_help.all_inner_texts() == [
        "Poker Dice: five dice of faces 9, 10, J, Q, K and A, 9 rounds, 9 boxes (One Pair to "
        "Chance); a 9 counts 9, a 10, J, Q or K counts 10 and an A 11"]
    assert page.locator("#game").get_attribute("aria-describedby") == "game-help"
    accessible(page, "the form for Poker Dice")
    page.select_option("#game", "yahtzee")
    assert page.locator("#rules").is_enabled() and page.locator("#rules-help").is_visible()
    assert game_help.count() == 1 and game_help.inner_text().startswith("Yahtzee: ")
    page.context.close()


def test_the_coach_s_legend_for_poker_dice_tells_no_upper_bonus_nor_yahtzee(
        browser: Browser, server: Server) -> None:
    """Poker Dice has no upper bonus and no Yahtzee: the legend and the line over the coach's
    moves leave out their chances."""
    page = form_page(browser, server)
    page.click("#remove-seat")  # a person alone, with the coach
    page.select_option("#game", "poker-dice")
    page.fill("#seed", "3")
    hook(page, "new-game").click()
    page.wait_for_url("**/game/**")
    my_turn_or_end(page)
    page.wait_for_selector("#options li", timeout=WAIT_MS)
    assert "upper bonus" not in page.locator("#options").inner_text()
    assert page.locator("#options-note").inner_text().startswith(
        "Your best moves: the final score each leads to on average, ± its usual spread. ")
    legend = page.locator("details.legend")
    legend.locator("summary").click()
    assert legend.get_by_text("The average final score").is_visible()
    assert "upper bonus" not in legend.inner_text() and "Yahtzee" not in legend.inner_text()
    accessible(page, "the coach's legend for Poker Dice")
    page.context.close()


@pytest.mark.parametrize("width, height, touch", SIZES)
def test_the_page_does_not_jump_as_it_loads(browser: Browser, server: Server,
                                            width: int, height: int, touch: bool) -> None:
    page = form_page(browser, server, width, height, touch)
    assert page.evaluate(LAYOUT_SHIFT) < 0.1, "the form jumped"
    hook(page, "new-game").click()
    hook(page, "die-1").wait_for()
    game = new_page(browser, width, height, touch)
    game.goto(page.url)
    hook(game, "die-1").wait_for()
    assert game.evaluate(LAYOUT_SHIFT) < 0.1, "the table jumped"
    page.context.close()
    game.context.close()


def test_a_box_left_open_at_the_end_is_marked_and_explained(browser: Browser,
                                                            server: Server) -> None:
    """Under course rules a Yahtzee bonus takes a turn: a box can end open, and the card says why.

    The game's state is the server's own, turned into a finished game whose
    Chance was never filled (as two Yahtzee bonuses would leave it).
    """
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    hook(page, "die-1").wait_for()
    finished = server.state(page)
    for player in finished["players"]:
        for box in player["boxes"]:
            box["score"], box["now"] = (None if box["name"] == "Chance" else 5), None
    finished.update(phase="over", turn=None, turn_name=None, dice=[], saved=[],
                    winner="Player 1 wins with 60 points", version=finished["version"] + 100)
    page.route("**/api/games/*", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(finished)))
    page.reload()
    hook(page, "winner").wait_for(state="visible", timeout=WAIT_MS)
    note = page.locator("#open-note")
    assert note.is_visible() and "Yahtzee bonus takes a whole turn" in note.inner_text()
    chance = page.locator("#cards tr", has_text="Chance").first
    assert "\u2014" in chance.inner_text()
    page.context.close()


@pytest.mark.parametrize("seats, computer_note, chances_named", [
    (("human", "computer"), True, True),      # the computer plays to win: its note shows
    (("human", "expected"), False, True),     # no computer plays to win: no note about one
    (("human",), False, False),               # alone: no win chances, no computer
])
def test_the_end_explains_only_what_the_game_had(browser: Browser, server: Server,
                                                 seats: tuple[str, ...], computer_note: bool,
                                                 chances_named: bool) -> None:
    """The end's notes speak of a computer playing to win and of win chances only if the game
    had them (a game alone has neither; the game's state is the server's own, faked finished)."""
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    hook(page, "die-1").wait_for()
    finished = server.state(page)
    players = [dict(finished["players"][0], seat=n + 1, kind=kind, name=f"P{n + 1}",
                    computer=kind != "human") for n, kind in enumerate(seats)]
    finished.update(players=players, phase="over", turn=None, turn_name=None, dice=[],
                    saved=[], winner="P1 wins with 60 points", you=[1],
                    luck=[f"P{n + 1}: 0 = 254.6 expected - 254.6 luck - 0.0 decisions"
                          for n in range(len(seats))],
                    win_chances=[], version=finished["version"] + 100)
    page.route("**/api/games/*", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(finished)))
    page.reload()
    hook(page, "winner").wait_for(state="visible", timeout=WAIT_MS)
    # "Game over" is said once, by the end's heading; the status line says what ended
    assert page.locator("#status").inner_text() == f"All {finished['rounds']} rounds played"
    assert page.locator("main").inner_text().count("Game over") == 1
    assert page.locator("#luck li").count() == len(seats)
    assert not page.locator("#shortcuts").is_visible()  # no key plays anything any more
    note = page.locator("#luck-box").inner_text()
    assert ("The computer plays to win" in note) == computer_note
    link = hook(page, "review-link").inner_text()
    assert link.startswith("Review this game:") and "every turn" in link
    assert ("win chances" in link) == chances_named
    page.context.close()


def test_the_end_s_standings_give_equal_totals_one_place(browser: Browser,
                                                         server: Server) -> None:
    """A tie is one place shared: "1. Ann 265, 1. Bo 265, 3. Cy 200", as the winner's line calls
    it a tie (the game's state is the server's own, faked finished)."""
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    hook(page, "die-1").wait_for()
    finished = server.state(page)
    players = [dict(finished["players"][0], seat=n + 1, name=name, total=total)
               for n, (name, total) in enumerate((("Cy", 200), ("Ann", 265), ("Bo", 265)))]
    finished.update(players=players, phase="over", turn=None, turn_name=None, dice=[],
                    saved=[], winner="Tie between Ann and Bo with 265 points", you=[1],
                    luck=None, win_chances=[], version=finished["version"] + 100)
    page.route("**/api/games/*", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(finished)))
    page.reload()
    hook(page, "winner").wait_for(state="visible", timeout=WAIT_MS)
    places = page.locator("#standings li").evaluate_all(
        "(items) => items.map((li) => [li.value, li.textContent])")
    assert places == [[1, "Ann: 265 points"], [1, "Bo: 265 points"], [3, "Cy: 200 points"]]
    page.context.close()


LINE_TOPS = """(items) => items.map((item) => {
  const tops = [];   // [place in the text, top of its line] for each character but blanks
  let text = "";
  const walker = document.createTreeWalker(item, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i += 1) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const top = Math.round(range.getBoundingClientRect().top);
      if (node.data[i].trim()) tops.push([text.length, top]);
      text += node.data[i];
    }
  }
  const start = text.indexOf(": ") + 2;   // the formula: what follows the name
  return [text, new Set(tops.map((t) => t[1])).size,
          new Set(tops.filter((t) => t[0] >= start).map((t) => t[1])).size,
          item.scrollWidth <= item.clientWidth];
})"""
"""For each item: its text, how many lines it takes, how many the formula after the name takes,
and whether it is inside its box."""


def test_the_end_s_luck_lines_break_between_the_name_and_the_formula_if_at_all(
        browser: Browser, server: Server, screens: Path) -> None:
    """Each line splitting a score is one line on a laptop; on a phone the name may stand on
    its own line, but the formula is not cut, except before the luck on the narrowest phones;
    nothing runs out of the box (the game's state is the server's own, faked finished)."""
    lines = ["Player 1: 231 = 254.6 expected + 12.3 luck - 35.9 decisions",
             "Computer: 262 = 254.6 expected + 7.4 luck - 0.0 decisions"]
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    hook(page, "die-1").wait_for()
    finished = server.state(page)
    finished.update(phase="over", turn=None, turn_name=None, dice=[], saved=[],
                    winner="Computer wins with 262 points", luck=lines,
                    version=finished["version"] + 100)
    page.route("**/api/games/*", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(finished)))
    page.reload()
    hook(page, "winner").wait_for(state="visible", timeout=WAIT_MS)
    for width, height, most, cut in ((1280, 800, 1, 1), (390, 844, 2, 1), (320, 640, 3, 2)):
        page.set_viewport_size({"width": width, "height": height})
        page.locator("#luck").scroll_into_view_if_needed()
        page.screenshot(path=str(screens / f"end-luck-{width}x{height}.png"))
        shown = page.eval_on_selector_all("#luck li", LINE_TOPS)
        assert [text for text, _, _, _ in shown] == lines
        assert all(count <= most and formula <= cut and inside
                   for _, count, formula, inside in shown), (width, shown)
    page.context.close()


def test_a_game_played_at_the_console_meanwhile_is_waited_for_and_kept(
        browser: Browser, server: Server) -> None:
    """A 423 (the game resumed at the console) is said on the page, which keeps asking, and
    the game stays in the start page's list: a 404 would have dropped it for good."""
    page = new_page(browser)
    start_game(page, server, seed=5, coach=False)
    hook(page, "die-1").wait_for()
    game = page.url.split("/game/")[1].split("#")[0]
    words = DENIALS[Denial.IN_USE][1]
    held = [True]

    def answer(route: Route) -> None:
        """Answer as a server does while a console has the game; once let go, pass it on."""
        if held[0]:
            route.fulfill(status=423, content_type="application/json",
                          body=json.dumps({"error": words}))
        else:
            route.continue_()

    page.route("**/api/games/*", answer)
    page.reload()
    page.wait_for_selector("#missing", state="visible", timeout=WAIT_MS)
    assert page.locator("#missing-text").inner_text() == words
    page.goto(server.url)                         # the start page asks after its games
    page.wait_for_timeout(1000)
    kept = "() => JSON.parse(localStorage.getItem('games') || '[]').map((g) => g.game)"
    assert game in page.evaluate(kept)
    page.go_back()
    page.wait_for_selector("#missing", state="visible", timeout=WAIT_MS)
    held[0] = False                               # the console let go of it
    hook(page, "die-1").wait_for(timeout=WAIT_MS)
    assert page.locator("#missing").is_hidden() and page.locator("#table").is_visible()
    page.context.close()


def test_an_address_of_no_game_says_the_server_s_words_for_it(
        browser: Browser, server: Server) -> None:
    page = new_page(browser)
    page.goto(f"{server.url}game/{'0' * 32}")
    page.wait_for_selector("#missing", state="visible", timeout=WAIT_MS)
    assert page.locator("#missing-text").inner_text() == MISSING_GAME
    assert page.locator("#table").is_hidden()
    accessible(page, "the page of an address of no game")
    page.context.close()


def api(server: Server, path: str, body: dict[str, Any] | None = None, secret: str = "") -> Any:
    """Ask the server's API as a script does (a POST of ``body``, else a GET); return its JSON."""
    headers = {"Content-Type": "application/json", **({"X-Seat-Secret": secret} if secret else {})}
    request = urllib.request.Request(
        f"{server.url}api/{path}", data=None if body is None else json.dumps(body).encode(),
        headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def chase_yahtzees(state: Any) -> dict[str, Any] | None:
    """Return the next move of a person alone who chases Yahtzees; None at a Yahtzee that earns
    a bonus (the Yahtzee box holds 50).

    Rolling, the dice of the most common face are saved (the highest face of equals) and the
    others rolled, and a Yahtzee stops; a Yahtzee goes in its box while it is open, any other
    dice in the open box worth most now (the lowest of equals) but the Yahtzee box.
    """
    faces = [int(face) for face in state["dice"]]
    yahtzee = len(set(faces)) == 1
    if state["phase"] == "rolling":
        if yahtzee:
            return {"action": "score"}
        most = max(set(faces), key=lambda face: (faces.count(face), face))
        for die, (face, saved) in enumerate(zip(faces, state["saved"]), 1):
            if (face == most) != saved:
                return {"action": "toggle", "die": die}
        return {"action": "roll"}
    boxes = state["players"][0]["boxes"]
    if yahtzee and boxes[11]["score"] == 50:
        return None
    offered = [box for box in boxes if box["now"] is not None]
    if yahtzee and boxes[11]["score"] is None:
        return {"action": "box", "box": 12}
    rest = [box for box in offered if box["number"] != 12] or offered
    return {"action": "box", "box": max(rest, key=lambda box: (box["now"], -box["number"]))[
        "number"]}


def test_a_yahtzee_bonus_is_shown_apart_from_the_box_s_points_on_its_button(
        browser: Browser, server: Server) -> None:
    """A second Yahtzee under official rules (five sixes in round 2 of seed 24, the first
    Yahtzee scored 50): the joker's one box, Sixes, reads "30 + 100 bonus", not "130", and
    its label and tooltip say it in the coach's words; the move's line says the same."""
    made = api(server, "games", {"players": [{"kind": "human", "name": "Ann"}],
                                 "rules": "official", "seed": 24, "coach": False})
    game, secret = made["game"], made["links"][0]["secret"]
    state = api(server, f"games/{game}", secret=secret)
    while (move := chase_yahtzees(state)) is not None:
        state = api(server, f"games/{game}/moves", move, secret)
    assert (state["round"], state["dice"], state["phase"]) == (2, ["6"] * 5, "scoring")
    assert state["players"][0]["boxes"][11]["score"] == 50
    said = "Score 30 in Sixes and a 100-point Yahtzee bonus"
    for width, height, touch in ((375, 667, True), (1280, 800, False)):   # the last one scores
        page = new_page(browser, width, height, touch)
        page.goto(f"{server.url}game/{game}#{quote(secret)}")
        box = hook(page, "box-6")
        box.wait_for(timeout=WAIT_MS)
        where = f"{width}x{height}"
        assert page.locator('[data-testid^="box-"]:visible').count() == 1, where  # the joker's
        assert box.inner_text() == "30 + 100 bonus", where
        assert (box.get_attribute("aria-label"), box.get_attribute("title")) == (said, said), where
        assert box.evaluate("(b) => b.scrollWidth <= b.clientWidth"), where   # nothing cut off
        if touch:
            page.context.close()
            continue
        box.click()   # no re-roll left: one press scores
        page.wait_for_selector("#moves li:has-text('Ann scored 30 points in Sixes and a "
                               "100-point Yahtzee bonus')", timeout=WAIT_MS)
        assert hook(page, "box-6").count() == 0
        page.context.close()


ONE_LINE = """() => {
  const rows = [...document.querySelectorAll('#cards tr.bonus-progress, #cards tbody.totals tr')];
  const lines = (cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  };
  return rows.map((row) => [row.firstChild.textContent, row.classList.contains('total'),
                            Math.round(row.getBoundingClientRect().height),
                            Math.max(...[...row.cells].map(lines))]);
}"""
"""Each of the card's progress and total rows: its label, whether it is the Total row, its
height and the most lines of text one of its cells holds."""


@pytest.mark.parametrize("width, height", [(375, 667), (390, 844)])
def test_on_a_phone_with_three_players_every_total_s_row_is_one_line(
        browser: Browser, server: Server, width: int, height: int) -> None:
    """A person and two computers on a phone: "Bonus at 63", the section totals, the bonuses
    and the Total each keep to one line, the totals' rows as high as the bonus's progress."""
    page = form_page(browser, server, width, height, touch=True)
    page.click("#add-seat")
    page.select_option(".seat:nth-of-type(3) .kind", "computer")
    page.select_option("#rules", "course")
    page.fill("#seed", "4")
    page.uncheck("#coach")
    hook(page, "new-game").click()
    my_turn_or_end(page)
    settled(page)
    rows = page.evaluate(ONE_LINE)
    assert [label for label, *_ in rows] == [
        "Bonus at 63", "Upper section", "Upper bonus", "Lower section", "Yahtzee bonus", "Total"]
    assert [(label, lines) for label, _, _, lines in rows if lines != 1] == []
    progress = rows[0][2]
    assert [(label, high) for label, total, high, _ in rows if not total and high != progress] == []
    assert hook(page, "total-3").is_visible()
    page.context.close()


REACHED = """(id) => {
  window.scrollTo(0, 0);
  const box = document.querySelector(`[data-testid="${id}"]`);
  const total = document.querySelector('[data-testid="total-1"]').getBoundingClientRect();
  const below = box.getBoundingClientRect().bottom - total.top;
  if (below > 0) window.scrollBy(0, below + 2);
  const seen = (node) => {
    const r = node.getBoundingClientRect();
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return r.top >= 0 && r.bottom <= innerHeight && hit !== null && node.contains(hit);
  };
  const ids = ['die-1', 'die-2', 'die-3', 'die-4', 'die-5', 'roll', 'score', id];
  return [scrollY, ids.filter((i) => !seen(document.querySelector(`[data-testid="${i}"]`)))];
}"""
"""Scroll the page, as a player does, until the box ``id`` is above the Total row at the
screen's foot (not at all if it is already); return how far the page is scrolled and which of
the dice, Roll, Stop and that box are then out of the screen or covered at their middle."""


def test_on_a_short_phone_the_dice_and_buttons_stay_in_view_beside_every_box(
        browser: Browser, server: Server) -> None:
    """At 375x667 the card of two players is taller than the screen below the dice: scrolled to
    its last boxes, the dice, Roll and Stop are still on screen, uncovered, while rolling and
    while choosing a box; a box pressed brings the page back to its top."""
    page = new_page(browser, 375, 667, touch=True)
    start_game(page, server, seed=5, coach=False)
    my_turn_or_end(page)
    settled(page)
    for stage in ("rolling", "choosing a box"):
        reached = {number: page.evaluate(REACHED, f"box-{number}") for number in range(1, 14)}
        assert {number: hidden for number, (_, hidden) in reached.items() if hidden} == {}, stage
        assert reached[13][0] > 0, stage   # the last box was below the screen: scrolled to
        if stage == "rolling":
            page.evaluate("window.scrollTo(0, 0)")
            hook(page, "score").click()
            settled(page)
    with page.expect_response("**/moves"):
        hook(page, "box-13").click()
    assert page.evaluate("scrollY") == 0
    page.context.close()
