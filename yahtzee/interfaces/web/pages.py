"""The browser table's server-rendered pages: the finished games (``/history``) and a game's review.

- ``GET /history?player=NAME&game=LABEL&page=N``: the finished games, newest
  first, twenty a page, each a link (``data-testid="history-game-<id>"``) to
  its review; filters by player name (any part of it, any case) and by game
  (``yahtzee/course`` ...); then the figures of ``stats`` for the games the
  filters chose, with a histogram of each group's scores and the calibration
  of the filed win chances.
- ``GET /game/<id>/review``: the review of a finished game, by its number in
  the history or by the browser game's ID (``yahtzee.interfaces.review_html``).
- ``GET /review.css``: both pages' style sheet (the content security policy
  refuses inline styles).
- ``GET /favicon.ico``: the table's icon, which a browser asks for at that
  address on these pages (they name no icon of their own).

The pages are plain HTML with inline SVG, no script; every text that comes
from a player is escaped.  Reading never writes.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from importlib import resources
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from yahtzee.app.session import Solvers, SolverUnavailableError
from yahtzee.domain.games import every_variant
from yahtzee.engine.engine import MAX_NAME
from yahtzee.interfaces.review import Review, make_review
from yahtzee.interfaces.review_html import (REVIEW_CSS, calibration_chart, esc, histogram_chart,
                                            page, review_document)
from yahtzee.interfaces.web.threads import in_thread
from yahtzee.interfaces.wording import (NUMPY_NEEDED, game_name_and_rules, kind_label,
                                        name_and_kind, time_element)
from yahtzee.storage.history import HistoryGame, game_label, predictions, results_of
from yahtzee.storage.port import Storage, open_storage
from yahtzee.storage.problems import StorageError, StorageProblems
from yahtzee.storage.stats import Figures, Stats, compute_stats

PAGE_SIZE = 20
"""Finished games listed per page of ``/history``."""
CACHED_REVIEWS = 32
"""Reviews kept worked out, by game number and ID (a finished game never changes)."""
BROWSER_GAME = re.compile(r"[0-9a-f]{32}")
"""A browser game's ID, as ``/game/<id>`` names it."""
STYLESHEET = "/review.css"
ICON = resources.files("yahtzee.interfaces.web") / "static" / "favicon.svg"
"""The table's icon, answered at ``/favicon.ico`` as well (an SVG: browsers look at the type)."""
LINKS = (("/", "New game"), ("/history", "Finished games"))
"""The pages' navigation: the table's start page and the history."""


def history_number(text: str) -> int | None:
    """Return the history's game number ``text`` spells (``/game/12/review``), or None.

    A browser game's 32 hexadecimal digits are never one, even all digits.
    """
    return int(text) if text.isascii() and text.isdigit() and len(text) < 10 else None


def not_found_page(message: str, status: int = 404,
                   also: tuple[str, str] | None = None) -> HTMLResponse:
    """Return a small page saying what was not found (or could not be shown), with the
    pages' navigation and a link to the finished games; ``also`` (address, words) is a link
    put before that one: where the player more likely wants to go."""
    first = f'<a href="{esc(also[0])}">{esc(also[1])}</a><br>' if also else ""
    content = f'<p>{esc(message)}</p><p>{first}<a href="/history">All finished games</a></p>'
    return HTMLResponse(page("Yahtzee", "Not here", content, stylesheet=STYLESHEET,
                             links=LINKS), status_code=status)


def matches(game: HistoryGame, player: str, label: str) -> bool:
    """Return whether a game passes the filters: a player's name holds ``player``, its game is
    ``label`` (blank filters pass everything)."""
    wanted = player.casefold()
    named = not wanted or any(wanted in p.name.casefold() for p in game.players)
    return named and (not label or game_label(game.variant, game.rules) == label)


def label_words(label: str) -> str:
    """Return a game's statistics label as players read it: ``yahtzee/course`` is ``Yahtzee,
    course rules``, ``poker-dice`` is ``Poker Dice`` (an unknown game keeps its label)."""
    variant, _, rules = label.partition("/")
    return game_name_and_rules(variant, rules or variant)


def game_entry(game: HistoryGame) -> str:
    """Return one finished game of the list: a link to its review and its players' results."""
    players = ", ".join(f"{esc(name_and_kind(p.name, p.kind))} {p.total}"
                        for p in game.players)
    leaders = [p.name for p in game.players if p.winner]
    if len(game.players) < 2:
        result = ""
    elif len(leaders) == 1:
        result = f' \u2014 <span class="won">winner: {esc(leaders[0])}</span>'
    else:
        result = f" \u2014 tie: {esc(', '.join(leaders))}"
    return (f'<li><a data-testid="history-game-{game.game_id}" '
            f'href="/game/{game.game_id}/review">Game {game.game_id}</a>, '
            f"{time_element(game.finished_at)}, "
            f"{esc(game_name_and_rules(game.variant, game.rules))}: {players}{result}</li>")


def filter_form(labels: Sequence[str], player: str, label: str) -> str:
    """Return the filters' form: a player's name and one of ``labels`` (every game)."""
    shown = ["", *labels]
    options = "".join(f'<option value="{esc(v)}"{" selected" if v == label else ""}>'
                      f"{esc(label_words(v) if v else 'every game')}</option>"
                      for v in shown)
    return ('<form class="filters" method="get" action="/history" role="search">'
            f'<label>Player <input name="player" value="{esc(player)}" maxlength="24">'
            f'</label><label>Game <select name="game">{options}</select></label>'
            "<button type=\"submit\">Show</button></form>")


def pager(number: int, pages: int, player: str, label: str) -> str:
    """Return the links to the newer and older pages of the list, filters kept."""
    def link(to: int, text: str) -> str:
        """Return a link to page ``to``."""
        query = urlencode({k: v for k, v in (("player", player), ("game", label),
                                             ("page", str(to))) if v})
        return f'<a href="/history?{esc(query)}">{text}</a>'

    parts = []
    if number > 1:
        parts.append(link(number - 1, "Newer games"))
    parts.append(f"<span>Page {number} of {pages}</span>")
    if number < pages:
        parts.append(link(number + 1, "Older games"))
    return f'<nav class="pages" aria-label="Pages of games">{"".join(parts)}</nav>'


def figures_table(groups: Sequence[Figures], who: str,
                  named: Callable[[str], str] = str) -> str:
    """Return the ``stats`` figures of some groups as a table, each with its histogram.

    ``named`` turns a group's label into words (a computer's strength into its kind's name).
    """
    if not groups:
        return ""
    rows = "".join(f'<tr><th scope="row">{esc(named(f.label))}</th>'
                   f'<td class="game">{esc(label_words(f.game))}</td>'
                   f'<td class="num" data-label="Played">{f.played}</td>'
                   f'<td class="num" data-label="Wins">{f.wins}</td>'
                   f'<td class="num" data-label="Ties">{f.ties}</td>'
                   f'<td class="num" data-label="Best">{f.best}</td>'
                   f'<td class="num" data-label="Mean">{f.mean:.1f}</td></tr>' for f in groups)
    number = ' class="num"'
    head = "".join(f'<th scope="col"{number if n > 1 else ""}>{t}</th>'
                   for n, t in enumerate((who, "Game", "Played", "Wins", "Ties", "Best",
                                          "Mean")))
    charts = "".join(
        f"<figure><figcaption>{esc(named(f.label))} ({esc(label_words(f.game))}): scores of "
        f"{f.played} game{'s' if f.played != 1 else ''}</figcaption>"
        f"{histogram_chart(f.histogram, _histogram_words(f, named))}</figure>" for f in groups)
    return (f'<div class="scroll" tabindex="0" role="region" aria-label="{who} figures">'
            f'<table class="figures labelled"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody>'
            "</table></div>"
            f'<div class="players histograms">{charts}</div>')


def _histogram_words(f: Figures, named: Callable[[str], str] = str) -> str:
    """Return a histogram in words, for a screen reader."""
    bars = ", ".join(f"{b.low} to {b.high}: {b.count}" for b in f.histogram if b.count)
    return f"Scores of {named(f.label)} in {label_words(f.game)}, games per range: {bars}"


def stats_section(stats: Stats, filtered: bool = False) -> str:
    """Return the statistics: per person and per computer kind, and the win chances' calibration.

    ``filtered``: the games are those the list's filters chose, and the page says so.
    """
    if not stats.games:
        return ""
    one = stats.games == 1
    which = (f" match{'es' if one else ''} the filters" if filtered else "")
    parts = ['<section aria-labelledby="stats"><h2 id="stats">Statistics</h2>',
             f"<p>{stats.games} finished game{'' if one else 's'}{which}. A win is a game "
             "of two or more players led alone; a shared lead is a tie.</p>",
             "<h3>Players</h3>" if stats.players else "", figures_table(stats.players, "Player"),
             "<h3>Computers</h3>" if stats.computers else "",
             figures_table(stats.computers, "Computer", kind_label)]
    if stats.calibration:
        bins = [(b.predicted, b.observed, b.count) for b in stats.calibration]
        rows = "".join(f'<tr><td class="num">{p * 100:.0f}%</td><td class="num">{o * 100:.0f}%'
                       f'</td><td class="num">{c}</td></tr>' for p, o, c in bins)
        parts.append(
            "<h3>How the win chances came true</h3>"
            f'<p class="note">Over {plural(stats.chance_games, "game")} with win chances: the '
            "chance given, as each turn began, to the player about to roll (Predicted, grouped "
            "by tenths) beside how often those players won (Observed; a tie counts as a share). "
            "Chances that hold true lie on the diagonal.</p>"
            f"<figure>{calibration_chart(bins)}</figure>"
            '<div class="scroll" tabindex="0" role="region" aria-label="Calibration">'
            '<table class="narrow"><thead><tr><th scope="col" class="num">Predicted</th>'
            '<th scope="col" class="num">Observed</th><th scope="col" class="num">Turns</th>'
            f"</tr></thead><tbody>{rows}</tbody></table></div>")
    parts.append("</section>")
    return "".join(parts)


def plural(count: int, noun: str) -> str:
    """Return ``count noun`` with an s for any count but one: ``1 game``, ``3 games``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _page_number(text: str) -> int:
    """Return the page asked for (1 for anything that is not a small number; the history
    page takes 0 as its first page)."""
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) < 6 else 1


class Pages:
    """The history and review pages, reading the history of the server's data folder."""

    def __init__(self, setup: Solvers, problems: StorageProblems,
                 storage: Storage | None = None) -> None:
        """Read the history with ``problems`` told of damage; analyze with ``setup``'s solver.

        ``storage`` holds the history (default: the data folder's).
        """
        self.setup = setup
        self.problems = problems
        self.storage = storage if storage is not None else open_storage(None, problems)
        self.reviews: OrderedDict[tuple[int, str], Review] = OrderedDict()
        self.lock = threading.Lock()

    def history_page(self, player: str, label: str, number: int) -> str:
        """Return the page of finished games (filtered, newest first) and the statistics of
        the games the filters chose."""
        games = self.storage.history().games()
        labels = list(dict.fromkeys([*(game_label(v.name, v.rules_name) for v in every_variant()),
                                     *sorted({game_label(g.variant, g.rules) for g in games})]))
        label = label if label in labels else ""   # a game no one can play: no filter
        picked = [g for g in games if matches(g, player, label)]
        chosen = picked[::-1]
        pages = max(1, -(-len(chosen) // PAGE_SIZE))
        number = min(max(number, 1), pages)  # page 0 is the first, past the last the last
        shown = chosen[(number - 1) * PAGE_SIZE:number * PAGE_SIZE]
        stats = compute_stats(results_of(picked), predictions(picked),
                              sum(1 for game in picked if game.chances))
        listing = (f'<ul class="games">{"".join(game_entry(g) for g in shown)}</ul>'
                   if shown else "<p>No finished game matches.</p>" if games else
                   "<p>No finished games yet: play one, and it is listed here.</p>")
        content = (f'<section aria-labelledby="games"><h2 id="games">Games</h2>'
                   f"{filter_form(labels, player, label)}"
                   f"<p>{len(chosen)} game{'s' if len(chosen) != 1 else ''}, newest first.</p>"
                   f"{listing}{pager(number, pages, player, label) if pages > 1 else ''}"
                   f"</section>{stats_section(stats, bool(player or label))}")
        return page("Finished games", "Finished games", content, stylesheet=STYLESHEET,
                    links=LINKS)

    def review_of(self, game_id: str) -> Review:
        """Return the review of a finished game (by number or browser ID); ``LookupError``."""
        history = self.storage.history()
        if BROWSER_GAME.fullmatch(game_id):
            found = [g.game_id for g in history.games() if g.uid == game_id]
            if not found:
                raise LookupError(game_id)
            number = found[-1]
        elif (numbered := history_number(game_id)) is not None:
            number = numbered
        else:
            raise LookupError(game_id)
        meta, log = history.load_game(number)
        key = (number, meta.uid)
        with self.lock:
            if key in self.reviews:
                self.reviews.move_to_end(key)
                return self.reviews[key]
        review = make_review(meta, log, self.setup)
        with self.lock:
            self.reviews[key] = review
            while len(self.reviews) > CACHED_REVIEWS:
                self.reviews.popitem(last=False)
        return review

    async def history(self, request: Request) -> Response:
        """Answer ``/history`` with the finished games and the statistics."""
        params = request.query_params
        player = params.get("player", "").strip()[:MAX_NAME]
        label = params.get("game", "").strip()[:40]
        try:
            text = await in_thread(self.history_page, player, label,
                                   _page_number(params.get("page", "1")))
        except StorageError as error:
            return not_found_page(f"The history cannot be read: {error}", 503)
        return HTMLResponse(text)

    async def review(self, request: Request) -> Response:
        """Answer ``/game/<id>/review`` with the review of that finished game."""
        game_id = request.path_params["game_id"]
        try:
            review = await in_thread(self.review_of, game_id)
        except SolverUnavailableError:
            return not_found_page(f"The review needs the solver: {NUMPY_NEEDED}.", 503)
        except LookupError:
            # a browser game's address: most likely a game still in play (or given up)
            table = (f"/game/{game_id}", "Back to the game") if BROWSER_GAME.fullmatch(
                game_id) else None
            return not_found_page("No finished game has this number or address: a game is "
                                  "reviewed once it is over.", also=table)
        except StorageError as error:
            return not_found_page(f"The history cannot be read: {error}", 503)
        return HTMLResponse(review_document(review, stylesheet=STYLESHEET, links=LINKS))

    async def style(self, request: Request) -> Response:
        """Answer with the pages' style sheet."""
        return Response(REVIEW_CSS, media_type="text/css")

    async def icon(self, request: Request) -> Response:
        """Answer with the table's icon (``/favicon.ico``), kept a day by the browser."""
        return Response(ICON.read_bytes(), media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})


def page_routes(setup: Solvers, problems: StorageProblems,
                storage: Storage | None = None) -> list[Route]:
    """Return the routes of the history and review pages (of ``storage``'s history)."""
    pages = Pages(setup, problems, storage)
    return [Route("/history", pages.history), Route("/game/{game_id}/review", pages.review),
            Route(STYLESHEET, pages.style), Route("/favicon.ico", pages.icon)]
