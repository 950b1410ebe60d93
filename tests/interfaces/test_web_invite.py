"""Inviting friends, in real Chromium: the waiting room, its links, "start anyway", restarts.

A game of two people made in one browser waits until the second person
opens their link in another (no move is taken before: 409), then plays;
the host may start it anyway; the waiting room survives a restart of the
server; the start page offers to continue the games this browser plays.
The links get a QR code only at an address other devices can open; a host
on another browser gets new links for the seats not joined; the form has
no seed for a game of people on their own screens.
Games of people alone without the coach: no solver table is needed.
Screenshots go where ``test_web_page`` puts its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.interfaces.test_web_browser import WAIT_MS, hook
from tests.interfaces import test_web_page
from tests.interfaces.test_web_page import Server, accessible, form_page, new_page

from playwright.sync_api import Browser, Dialog, Locator, Page  # noqa: E402


screens = test_web_page.screens
"""The folder the screenshots go to, as ``test_web_page`` chooses it."""


@pytest.fixture
def server(data: Path, tmp_path: Path) -> Iterator[Server]:
    """A live server on a fresh data folder (no solver table is needed here)."""
    running = Server(data, tmp_path / "cache")
    yield running
    running.stop()


def make_game(page: Page, server: Server, names: tuple[str, ...] = ("Ann", "Bo")) -> None:
    """Make a game of people named ``names`` (no coach, official rules) from the form."""
    page.goto(server.url)
    hook(page, "new-game").wait_for()
    for seat, name in enumerate(names, start=1):
        if seat > 2:
            page.click("#add-seat")
        page.select_option(f".seat:nth-of-type({seat}) .kind", "human")
        page.fill(f".seat:nth-of-type({seat}) .name", name)
    page.uncheck("#coach")
    hook(page, "new-game").click()
    page.wait_for_url("**/game/**")


def forced(page: Page, path: str = "moves", body: str = '{"action": "roll"}') -> Any:
    """Send a request from ``page`` with its own secret, bypassing the page's buttons."""
    return page.evaluate(
        """async ([path, body]) => {
             const game = location.pathname.slice(6);
             const answer = await fetch(`/api/games/${game}/${path}`, {method: "POST",
               headers: {"Content-Type": "application/json",
                         "X-Seat-Secret": decodeURIComponent(location.hash.slice(1))},
               body});
             return [answer.status, await answer.json()];
           }""", [path, body])


def qr_rows(page: Page, text: str) -> list[str]:
    """Return the QR code of ``text`` as the page's encoder makes it: rows of 0 and 1."""
    rows: list[str] = page.evaluate(
        "(text) => QR.matrix(text).grid.map((row) => row.map((d) => d ? '1' : '0').join(''))",
        text)
    return rows


def drawn_qr(code: Locator) -> list[str]:
    """Return the QR code drawn as the SVG ``code``, read back from its path."""
    size = int(str(code.get_attribute("viewBox")).split()[-1]) - 8
    path = str(code.locator("path").get_attribute("d"))
    dark = {tuple(int(n) - 4 for n in step.split("h")[0].split())
            for step in path.strip("M").split("M")}
    return ["".join("1" if (x, y) in dark else "0" for x in range(size)) for y in range(size)]


def test_the_qr_codes_are_the_standard_s(browser: Browser, server: Server) -> None:
    """The page's QR encoder gives the symbols segno (an independent encoder) gives."""
    segno = pytest.importorskip("segno")
    encoder = pytest.importorskip("segno.encoder")

    def standard_padding(buff: Any, version: int, length: int) -> None:
        """Pad to a codeword boundary only when the bits end inside one (ISO/IEC 18004 7.4.10).

        segno adds a zero codeword when they end on one; both decode alike.
        """
        if length % 8:
            buff.extend([0] * (8 - length % 8))

    page = form_page(browser, server)
    texts = ["A", "hello", "w" * 26, "t" * 45, "v" * 120, "s" * 180, "z" * 213,
             f"http://192.168.1.20:8000/game/{'ab' * 16}#{'x' * 24}"]
    original = encoder.write_padding_bits
    encoder.write_padding_bits = standard_padding
    try:
        for text in texts:
            made = page.evaluate("(text) => { const m = QR.matrix(text); "
                                 "return [m.version, m.mask]; }", text)
            symbol = segno.make(text, error="m", mode="byte", version=made[0], mask=made[1],
                                boost_error=False)
            expected = ["".join(str(b) for b in row) for row in symbol.matrix]
            assert qr_rows(page, text) == expected, text
    finally:
        encoder.write_padding_bits = original
    assert page.evaluate("QR.matrix('q'.repeat(214))") is None  # beyond version 10
    page.context.close()


def waiting_room(page: Page, waiting_for: str) -> None:
    """Wait until ``page`` shows the waiting room, waiting for ``waiting_for``."""
    page.wait_for_selector(f"#lobby-status:has-text('Waiting for {waiting_for} to join')",
                           timeout=WAIT_MS)
    assert page.locator("#lobby-status").inner_text() == f"Waiting for {waiting_for} to join…"
    assert page.locator("#status").is_hidden()
    assert not hook(page, "roll").is_visible() and not hook(page, "die-1").is_visible()


def test_the_game_waits_until_the_second_person_opens_their_link_then_plays(
        browser: Browser, server: Server, screens: Path) -> None:
    ann = form_page(browser, server)
    # the form in plain words: each kind and each rule set explained, official rules first
    assert ann.locator("#rules").input_value() == "official"
    kinds = ann.locator("#kinds-help").inner_text()
    for line in ("Computer: plays to win", "Expected: plays for the highest average score",
                 "Greedy: takes the most points now"):
        assert line in kinds
    rules = ann.locator("#rules-help").inner_text()
    assert "Official (Hasbro): after a 50 in Yahtzee, every Yahtzee adds 100 points" in rules
    assert "Course (CS2100): after a 50 in Yahtzee, a Yahtzee may be scored there again" in rules
    assert ann.locator(".seat:nth-of-type(1) .kind option:checked").inner_text() == "Person"
    accessible(ann, "the form")
    make_game(ann, server)
    waiting_room(ann, "Bo")
    assert ann.title() == "Waiting for players · Yahtzee"
    link = hook(ann, "seat-link-2")
    assert link.is_visible()
    assert ann.locator("#lobby").locator('[data-testid="seat-link-2"]').count() == 1
    assert str(link.get_attribute("href")).startswith(server.url.rstrip("/") + "/game/")
    assert ann.get_by_role("button", name="Copy the link of seat 2 (Bo)").is_visible()
    # the host's own link is there (for another device of theirs) but offers no Copy
    assert hook(ann, "seat-link-1").is_visible()
    assert ann.locator("#links button.copy").count() == 1
    assert "send it to no one" in ann.locator("#links li").first.inner_text()
    # a link breaks anywhere to fit a phone; the words beside it only between words
    assert ann.locator("#links .own-link").evaluate("(e) => getComputedStyle(e).wordBreak") == (
        "normal")
    assert link.evaluate("(e) => getComputedStyle(e).wordBreak") == "break-all"
    # 127.0.0.1 is this machine's own: no phone could open a QR code of it, so none is drawn
    assert ann.locator("#links svg.qr").count() == 0
    assert ann.locator("#address-line").inner_text() == (
        f"This server listens on this computer only ({server.url.rstrip('/')}), so no phone "
        "can open these links: others on your network can join only if the server is started "
        "with --host 0.0.0.0.")
    assert "Joined: Ann." in ann.locator("#lobby-joined").inner_text()
    assert ann.get_by_role("button", name="Start anyway").is_visible()
    assert hook(ann, "get-links").is_hidden()  # this browser holds the links
    accessible(ann, "the waiting room")
    assert forced(ann) == [409, {"error": "Waiting for players to join."}]
    ann.keyboard.press("r")
    # Bo opens his link: both pages show the game, and Ann plays first
    bo = new_page(browser, 390, 844, touch=True)
    bo.goto(str(link.get_attribute("href")))
    ann.wait_for_selector("#status:has-text('Your turn')", timeout=WAIT_MS)
    assert ann.locator("#lobby").is_hidden() and hook(ann, "roll").is_enabled()
    assert "Bo joined" in ann.locator("#announce").inner_text()
    bo.wait_for_selector("#status:has-text(\"Ann's turn\")", timeout=WAIT_MS)
    assert bo.locator("#lobby").is_hidden()
    assert forced(bo) == [409, {"error": "It is not your turn."}]
    hook(ann, "die-1").click()
    bo.wait_for_selector('[data-testid="die-1"][aria-pressed="true"]', timeout=WAIT_MS)
    hook(ann, "roll").click()
    bo.wait_for_selector("#moves li:has-text('Ann kept')", timeout=WAIT_MS)
    bo.context.close()
    ann.context.close()


def test_the_host_starts_anyway_and_the_missing_person_joins_later(
        browser: Browser, server: Server, screens: Path) -> None:
    ann = new_page(browser, 390, 844, touch=True)
    make_game(ann, server, ("Ann", "Bo", "Cy"))
    waiting_room(ann, "Bo and Cy")
    ann.screenshot(path=str(screens / "waiting-room-390x844.png"))
    cy = new_page(browser, 390, 844, touch=True)
    cy.goto(str(hook(ann, "seat-link-3").get_attribute("href")))
    waiting_room(cy, "Bo")
    waiting_room(ann, "Bo")
    assert "Joined: Ann and Cy." in cy.locator("#lobby-joined").inner_text()
    assert cy.get_by_role("button", name="Start anyway").is_hidden()
    assert cy.locator("#lobby-guest").is_visible() and cy.locator("#links-box").is_hidden()
    cy.screenshot(path=str(screens / "waiting-guest-390x844.png"))
    accessible(cy, "a guest's waiting room, 390x844")
    assert forced(cy, "start", "{}") == [403, {
        "error": "Only the player who made the game can start it before everyone has joined."}]
    ann.get_by_role("button", name="Start anyway").click()
    ann.wait_for_selector("#status:has-text('Your turn')", timeout=WAIT_MS)
    cy.wait_for_selector("#status:has-text(\"Ann's turn\")", timeout=WAIT_MS)
    # the links stay at hand, below the game, for the one who has not come yet
    assert ann.locator("#invite").is_visible() and hook(ann, "seat-link-2").is_visible()
    assert "not here yet" in ann.locator("#links li", has=hook(ann, "seat-link-2")).inner_text()
    hook(ann, "score").click()
    ann.wait_for_selector('[data-testid="box-13"]')
    hook(ann, "box-13").click()
    bo = new_page(browser)
    bo.goto(str(hook(ann, "seat-link-2").get_attribute("href")))
    bo.wait_for_selector("#status:has-text('Your turn')", timeout=WAIT_MS)
    ann.wait_for_selector("#links li.joined:has([data-testid='seat-link-2'])", timeout=WAIT_MS)
    for page in (ann, bo, cy):
        page.context.close()


def test_the_waiting_room_survives_a_restart_and_the_start_page_offers_the_game(
        browser: Browser, server: Server, screens: Path) -> None:
    ann = new_page(browser)
    make_game(ann, server)
    waiting_room(ann, "Bo")
    link = str(hook(ann, "seat-link-2").get_attribute("href"))
    game = ann.url.split("/game/")[1].split("#")[0]
    server.kill()
    server.restart()
    ann.reload()
    waiting_room(ann, "Bo")
    assert forced(ann) == [409, {"error": "Waiting for players to join."}]
    # the start page offers to continue it, with its title and players
    ann.goto(server.url)
    offer = hook(ann, f"continue-{game}")
    offer.wait_for(timeout=WAIT_MS)
    line = ann.locator("#continue-list li").first.inner_text()
    assert "Yahtzee, official rules: Ann and Bo, waiting for players" in line
    ann.screenshot(path=str(screens / "start-page-continue-1280x800.png"))
    accessible(ann, "the start page with a game to continue")
    offer.click()
    ann.wait_for_url(f"**/game/{game}#*")
    waiting_room(ann, "Bo")
    bo = new_page(browser)
    bo.goto(link)
    ann.wait_for_selector("#status:has-text('Your turn')", timeout=WAIT_MS)
    bo.context.close()
    ann.goto(server.url)
    hook(ann, f"continue-{game}").wait_for(timeout=WAIT_MS)
    assert "round 1 of 13, your turn" in ann.locator("#continue-list li").first.inner_text()
    ann.context.close()


def test_two_games_of_the_same_players_are_told_apart_on_the_start_page(
        browser: Browser, server: Server) -> None:
    """Each game to continue says when this browser last opened it; on a phone its line comes
    first and its two buttons side by side under it."""
    ann = new_page(browser)
    for _ in range(2):
        make_game(ann, server)
        waiting_room(ann, "Bo")
    ann.evaluate("""() => {
      const games = JSON.parse(localStorage.getItem("games"));
      games[1].at = new Date(2026, 0, 5, 9, 30).getTime();
      localStorage.setItem("games", JSON.stringify(games));
    }""")
    ann.goto(server.url)
    ann.locator("#continue-list li").nth(1).wait_for(timeout=WAIT_MS)
    lines = ann.locator("#continue-list li > span").all_inner_texts()
    said = "Yahtzee, official rules: Ann and Bo, waiting for players; last opened "
    assert lines[0].startswith(said + "today at ")
    day, time = ann.evaluate("""() => [
      new Date(2026, 0, 5).toLocaleDateString([], {day: "numeric", month: "short"}),
      new Date(2026, 0, 5, 9, 30).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"})]""")
    assert lines[1] == f"{said}{day} at {time}"
    link = ann.locator("#continue-list li a").nth(1)
    assert link.get_attribute("aria-label") == f"Continue {lines[1]}"
    # a game is taken off the list only once the player agrees (its link is the seat's key)
    first = ann.locator("#continue-list li a").first.get_attribute("data-testid")
    game = str(first).removeprefix("continue-")
    asked: list[str] = []

    def say_no(dialog: Dialog) -> None:
        """Note the question and answer no."""
        asked.append(dialog.message)
        dialog.dismiss()

    ann.once("dialog", say_no)
    hook(ann, f"drop-{game}").click()
    assert asked and "forgotten" in asked[0]
    assert ann.locator("#continue-list li").count() == 2
    ann.once("dialog", lambda dialog: dialog.accept())  # yes
    hook(ann, f"drop-{game}").click()
    assert ann.locator("#continue-list li > span").all_inner_texts() == [lines[1]]
    assert ann.evaluate("() => document.activeElement.dataset.testid").startswith("continue-")
    kept = ann.evaluate("() => JSON.parse(localStorage.getItem('games')).map((g) => g.game)")
    assert game not in kept and len(kept) == 1
    assert ann.evaluate(f"() => localStorage.getItem('links:{game}')") is None
    ann.goto(server.url)  # gone for good from this browser's list
    ann.locator("#continue-list li").first.wait_for(timeout=WAIT_MS)
    assert ann.locator("#continue-list li > span").all_inner_texts() == [lines[1]]
    # on a phone the line comes first, whole, and its two buttons side by side under it,
    # however long the line (a short one would have the buttons after its words)
    ann.set_viewport_size({"width": 390, "height": 844})
    row = ann.locator("#continue-list li").first
    for words in (lines[1], "Yahtzee: Ann and Bo"):
        row.locator("span").evaluate("(span, words) => { span.textContent = words; }", words)
        text, go, drop = (row.locator(part).bounding_box() for part in ("span", "a", "button"))
        assert text is not None and go is not None and drop is not None
        assert go["y"] >= text["y"] + text["height"] and abs(drop["y"] - go["y"]) < go["height"]
        assert drop["x"] > go["x"] + go["width"] and drop["x"] + drop["width"] <= 390
    ann.context.close()


def test_the_start_page_forgets_a_finished_game_instead_of_asking_for_it_at_every_visit(
        browser: Browser, server: Server) -> None:
    """A game this browser kept that has ended is dropped from its list (and its links)."""
    page = form_page(browser, server)
    ended = page.evaluate(
        """async () => {
             const post = (path, body, secret) => fetch(path, {method: "POST",
               headers: {"Content-Type": "application/json", "X-Seat-Secret": secret || ""},
               body: JSON.stringify(body)}).then((answer) => answer.json());
             const made = await post("/api/games", {players: [{kind: "human"}], seed: 3,
                                                    coach: false});
             const secret = made.links[0].secret;
             let state = null;
             for (let turn = 0; turn < 13; turn++) {
               state = await post(`/api/games/${made.game}/moves`, {action: "score"}, secret);
               const box = state.players[0].boxes.find((b) => b.now !== null);
               state = await post(`/api/games/${made.game}/moves`, {action: "box", box: box.number},
                                  secret);
             }
             localStorage.setItem("games", JSON.stringify([{game: made.game, secret, at: 1}]));
             localStorage.setItem(`links:${made.game}`, JSON.stringify(made.links));
             localStorage.setItem(`settings:${made.game}`, JSON.stringify(
               {players: [{kind: "human", name: "Ann"}], coach: false, seed: ""}));
             return [made.game, state.phase, secret];
           }""")
    assert ended[1] == "over"
    page.goto(server.url)
    hook(page, "new-game").wait_for(timeout=WAIT_MS)
    page.wait_for_function("() => localStorage.getItem('games') === '[]'", timeout=WAIT_MS)
    assert page.evaluate(f"() => localStorage.getItem('links:{ended[0]}')") is None
    assert page.locator("#continue").is_hidden()
    # its settings stay, so that its page's "Play again" starts the same game anew
    assert page.evaluate("() => JSON.parse(localStorage.getItem('ended'))") == [ended[0]]
    page.goto(f"{server.url}game/{ended[0]}#{ended[2]}")
    page.locator("#play-again").click(timeout=WAIT_MS)
    page.wait_for_url(re.compile(r".*/game/(?!" + ended[0] + r")[0-9a-f]{32}#.+"),
                      timeout=WAIT_MS)
    hook(page, "roll").wait_for(timeout=WAIT_MS)
    assert page.locator("th.player").all_inner_texts()[0].startswith("Ann")
    page.context.close()


def test_play_again_on_a_device_that_did_not_make_the_game_starts_the_same_game_anew(
        browser: Browser, server: Server) -> None:
    """A seat's link opened elsewhere has none of the maker's settings: the finished game's
    own players, game, rules and coach start the new one."""
    maker = form_page(browser, server)
    ended = maker.evaluate(
        """async () => {
             const post = (path, body, secret) => fetch(path, {method: "POST",
               headers: {"Content-Type": "application/json", "X-Seat-Secret": secret || ""},
               body: JSON.stringify(body)}).then((answer) => answer.json());
             const made = await post("/api/games", {players: [{kind: "human", name: "Dana"},
               {kind: "novice", name: "Rook"}], rules: "official", coach: false});
             const secret = made.links[0].secret;
             let state = {phase: "rolling"};
             while (state.phase !== "over") {
               state = await fetch(`/api/games/${made.game}?after=${state.version ?? -1}`,
                 {headers: {"X-Seat-Secret": secret}}).then((answer) => answer.json());
               if (state.phase === "over" || state.turn !== 1) continue;
               state = await post(`/api/games/${made.game}/moves`, {action: "score"}, secret);
               const box = state.players[0].boxes.find((b) => b.now !== null);
               state = await post(`/api/games/${made.game}/moves`, {action: "box", box: box.number},
                                  secret);
             }
             return [made.game, secret];
           }""")
    maker.context.close()
    watcher = new_page(browser)
    # watched without a seat's link: no seat to play again, only a game of one's own
    watcher.goto(f"{server.url}game/{ended[0]}")
    hook(watcher, "winner").wait_for(timeout=WAIT_MS)
    assert watcher.locator("#play-again").is_hidden()
    assert watcher.locator("#new-other").inner_text() == "Start a new game"
    watcher.context.close()
    page = new_page(browser)   # another device: nothing of the game in its storage
    page.goto(f"{server.url}game/{ended[0]}#{ended[1]}")
    hook(page, "winner").wait_for(timeout=WAIT_MS)
    assert page.locator("#new-other").inner_text() == "New game with other players"
    page.locator("#play-again").click(timeout=WAIT_MS)
    page.wait_for_url(re.compile(r".*/game/(?!" + ended[0] + r")[0-9a-f]{32}#.+"),
                      timeout=WAIT_MS)
    hook(page, "roll").wait_for(timeout=WAIT_MS)
    state = server.state(page)
    assert [(p["kind"], p["name"]) for p in state["players"]] == [
        ("human", "Dana"), ("novice", "Rook")]
    assert (state["variant"], state["rules"], state["coach"], state["round"]) == (
        "yahtzee", "official", False, 1)
    page.context.close()


def test_at_a_network_address_each_empty_seat_gets_its_qr_code(
        browser: Browser, server: Server, screens: Path) -> None:
    """A server on every address tells the page its network address: the links use it."""
    network = f"http://192.168.1.20:{server.port}"

    def told_network(route: Any) -> None:
        """Answer the form's options as a server started with --host 0.0.0.0 would."""
        answer = route.fetch()
        route.fulfill(response=answer, json={**answer.json(), "address": network})

    ann = new_page(browser)
    ann.route("**/api/options", told_network)
    make_game(ann, server, ("Ann", "Bo", "Cy"))
    waiting_room(ann, "Bo and Cy")
    ann.wait_for_selector("#address-line:has-text('Others reach')", timeout=WAIT_MS)
    assert ann.locator("#address-line").inner_text() == f"Others reach this server at {network}."
    link = hook(ann, "seat-link-2")
    assert str(link.get_attribute("href")).startswith(f"{network}/game/")
    assert ann.get_by_role("img", name="QR code of the link of seat 2 (Bo)").is_visible()
    assert ann.get_by_role("img", name="QR code of the link of seat 3 (Cy)").is_visible()
    assert ann.locator("#links svg.qr").count() == 2  # none for Ann's own seat
    for seat in (2, 3):
        href = str(hook(ann, f"seat-link-{seat}").get_attribute("href"))
        drawn = ann.locator("#links li", has=hook(ann, f"seat-link-{seat}")).locator("svg.qr")
        assert qr_rows(ann, href) == drawn_qr(drawn)
    ann.screenshot(path=str(screens / "waiting-room-1280x800.png"))
    accessible(ann, "the waiting room at a network address")
    ann.context.close()


PLAIN_HTTP = """() => {
  window.realClipboard = navigator.clipboard;
  Object.defineProperty(Navigator.prototype, "clipboard", {get: () => undefined,
                                                           configurable: true});
}"""
"""An init script that hides the Clipboard API, as browsers do on a page at a network address
over plain HTTP (not a secure context); the test reads the clipboard through the saved one."""


def test_copy_puts_the_link_on_the_clipboard_without_the_clipboard_api(
        browser: Browser, server: Server) -> None:
    """At http://<network address> the browser gives no Clipboard API: Copy still copies."""
    ann = new_page(browser)
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    ann.add_init_script(script=f"({PLAIN_HTTP})()")
    make_game(ann, server)
    waiting_room(ann, "Bo")
    assert ann.evaluate("() => navigator.clipboard") is None
    href = str(hook(ann, "seat-link-2").get_attribute("href"))
    copy = ann.get_by_role("button", name="Copy the link of seat 2 (Bo)")
    copy.click()
    ann.wait_for_selector("#links button.copy:has-text('Copied')", timeout=WAIT_MS)
    assert ann.evaluate("() => window.realClipboard.readText()") == href
    assert ann.evaluate("() => document.activeElement.textContent") == "Copied"
    assert ann.locator("textarea").count() == 0  # the hidden field is gone again
    ann.context.close()


def test_the_host_in_another_browser_gets_new_links_for_the_seats_not_joined(
        browser: Browser, server: Server, screens: Path) -> None:
    ann = new_page(browser)
    make_game(ann, server, ("Ann", "Bo", "Cy"))
    waiting_room(ann, "Bo and Cy")
    old_bo = str(hook(ann, "seat-link-2").get_attribute("href"))
    cy = new_page(browser)
    cy.goto(str(hook(ann, "seat-link-3").get_attribute("href")))
    waiting_room(cy, "Bo")
    # the host opens their own link on another device: its browser holds no seat links
    host = new_page(browser, 390, 844, touch=True)
    host.goto(ann.url)
    waiting_room(host, "Bo")
    button = host.get_by_role("button", name="Get the invite links")
    assert button.is_visible() and hook(host, "seat-link-2").count() == 0
    assert cy.get_by_role("button", name="Get the invite links").is_hidden()  # a guest's page
    host.screenshot(path=str(screens / "links-again-390x844.png"))
    accessible(host, "the host's waiting room without the links")
    button.click()
    link = hook(host, "seat-link-2")
    link.wait_for(timeout=WAIT_MS)
    new_bo = str(link.get_attribute("href"))
    assert new_bo != old_bo and new_bo.split("#")[0] == old_bo.split("#")[0]
    assert hook(host, "seat-link-3").count() == 0  # Cy joined: her link is hers alone
    assert button.is_hidden()
    accessible(host, "the host's waiting room with new links")
    # the old link of Bo's seat plays nothing now; the new one joins and the game starts
    stale = new_page(browser)
    stale.goto(old_bo)
    stale.wait_for_selector("#watching", state="visible", timeout=WAIT_MS)
    assert forced(stale) == [403, {"error": "This link does not play a seat of this game."}]
    bo = new_page(browser)
    bo.goto(new_bo)
    host.wait_for_selector("#status:has-text('Your turn')", timeout=WAIT_MS)
    bo.wait_for_selector("#status:has-text(\"Ann's turn\")", timeout=WAIT_MS)
    for page in (ann, cy, host, stale, bo):
        page.context.close()


def test_the_form_offers_a_seed_only_where_the_server_takes_one(
        browser: Browser, server: Server) -> None:
    page = form_page(browser, server)
    seed, hint = page.locator("#seed"), page.locator("#seed-help")
    assert seed.is_enabled()  # a person against the computer
    page.fill("#seed", "7")
    page.select_option(".seat:nth-of-type(2) .kind", "human")
    assert seed.is_disabled()
    assert hint.inner_text().startswith("No seed when two or more people play on their own "
                                        "screens: whoever chose it could foresee every roll.")
    accessible(page, "the form without a seed")
    page.check("#hot-seat")
    assert seed.is_enabled() and hint.inner_text().startswith("Same seed, same dice")
    page.uncheck("#hot-seat")
    page.select_option(".seat:nth-of-type(2) .kind", "greedy")
    assert seed.is_enabled()
    page.click("#add-seat")  # a third seat, a person
    assert seed.is_disabled()
    page.click("#remove-seat")
    assert seed.is_enabled()
    page.click("#add-seat")
    page.uncheck("#coach")
    page.select_option(".seat:nth-of-type(2) .kind", "human")
    hook(page, "new-game").click()  # the seed typed earlier is not sent: no refusal
    page.wait_for_url("**/game/**")
    waiting_room(page, "Player 2 and Player 3")
    page.context.close()


def test_the_seat_buttons_go_off_at_the_fewest_and_the_most_seats(
        browser: Browser, server: Server) -> None:
    """At six seats "Add a player" is off, at one "Remove the last"; the keys' focus moves on."""
    page = form_page(browser, server)
    add, remove = page.locator("#add-seat"), page.locator("#remove-seat")
    seats = page.locator(".seat")
    assert seats.count() == 2 and add.is_enabled() and remove.is_enabled()
    add.focus()
    for _ in range(4):
        page.keyboard.press("Enter")
    assert seats.count() == 6 and add.is_disabled() and remove.is_enabled()
    assert page.evaluate("() => document.activeElement.id") == "remove-seat"
    accessible(page, "the form at six seats")
    for _ in range(5):
        page.keyboard.press("Enter")
    assert seats.count() == 1 and remove.is_disabled() and add.is_enabled()
    assert page.evaluate("() => document.activeElement.id") == "add-seat"
    page.keyboard.press("Enter")
    assert seats.count() == 2 and add.is_enabled() and remove.is_enabled()
    page.context.close()
