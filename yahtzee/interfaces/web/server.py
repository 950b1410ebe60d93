"""The browser table's server: a Starlette application, run by uvicorn on a socket it binds itself.

Routes (JSON in and out under ``/api``; errors are ``{"error": message}``
with a 4xx status, and change nothing):

- ``GET /`` and ``GET /game/<id>``: the page (``static/index.html``);
  ``/static/...``: its script and style sheet;
- ``GET /api/options``: the game kinds, rule sets and player kinds the form offers;
- ``POST /api/games``: a new game; the answer holds each seat's secret, once;
- ``GET /api/games/<id>?after=N``: the game's state, as soon as its version
  passes ``N`` (a long poll: how moves reach every browser at once);
- ``POST /api/games/<id>/moves``: a move for the seat whose secret the
  ``X-Seat-Secret`` header holds;
- ``POST /api/games/<id>/start``: the host starts a game before every
  person has joined (a game of two or more people waits for them: a seat
  joins when its secret is first used, to ask for the state or to move);
- ``POST /api/games/<id>/links``: the host's links again, for a browser
  that lost them: new secrets for the seats not joined yet (their old
  links stop working).

- ``GET /api/openapi.json``: the API's OpenAPI description (``schemas``).

Any other address is a 404 in the table's words (``unserved``): the API's
error under ``/api/``, elsewhere a small page leading back to the table.

Before any route, ``guards`` answers only the server's own host names and
takes a state-changing request only as JSON from the table's own origin;
``limits`` bounds what one client may ask (new games, games of computers
alone, long polls) and ``connections`` how long it may take to ask.

Secrets travel in the link's fragment (``/game/<id>#<secret>``), which
browsers never send to a server, and in a header, never in a URL.
Computer seats are played by the server, a turn at once, and the pages are
told once per turn: a page plays the turn's re-rolls back ``delay`` seconds
apart (the state's ``steps``), so that people can follow them, and the next
computer waits until it has.  A move is made on the event loop's own thread
when nothing in it can wait
(``BrowserGame.computer_step_at_once``, ``act_at_once``; its save then
goes to a pool of threads of its own), else in the worker threads of
``threads``, handed off from the event loop, as are the history's pages.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from importlib import resources
from typing import Any, TextIO

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from yahtzee.app.browser import (DEFAULT_CAPACITY, LEASE_SECONDS, BrowserGame,
                                 BrowserGames, Denial, GameRequestError, Settings)
from yahtzee.app.session import Solvers, SolverUnavailableError
from yahtzee.domain.card import Variant
from yahtzee.domain.games import GAMES, YAHTZEE, UnknownGameError, every_variant, get_variant
from yahtzee.domain.rules import OFFICIAL, RULES
from yahtzee.engine.engine import MAX_NAME, MAX_PLAYERS, MAX_SEED
from yahtzee.engine.moves import Move, MoveKind
from yahtzee.interfaces.reporting import Reporter
from yahtzee.interfaces.web.connections import most_connections, open_files_for, server_config
from yahtzee.interfaces.web.guards import HostGuard, NoStore, SameOrigin, allowed_hosts
from yahtzee.interfaces.web.guards import lan_address as lan_address
from yahtzee.interfaces.web.limits import MINUTE, Limits, Slots, Throttle, retry_after
from yahtzee.interfaces.web.schemas import (FIELD_MESSAGES, RULES_MESSAGE,
                                            SEED_MESSAGE, BodyError, LinksRequest, MoveRequest,
                                            NewGame, Seat, StartRequest, decode, encode, openapi,
                                            reason)
from yahtzee.interfaces.web.pages import history_number, not_found_page, page_routes
from yahtzee.interfaces.web.threads import in_thread, keep_saved, use_worker_threads
from yahtzee.interfaces.web.views import refusal, state_json
from yahtzee.interfaces.web.workers import run_workers
from yahtzee.interfaces.wording import (GAME_NAMES, GAME_WORDS, KIND_WORDS, NUMPY_NEEDED,
                                        RULES_WORDS)
from yahtzee.players.kinds import COMPUTER, HUMAN, KINDS, PlayerKind, default_names, find_kind
from yahtzee.storage.port import Storage
from yahtzee.storage.problems import StorageError

MAX_BODY = 4096
"""The largest request body taken, in bytes (a new game's form is a few hundred)."""
LONG_POLL = 25.0
"""How long, in seconds, a request for the state waits for the game to change."""
COLLECT_CHECK = 1.0
"""Seconds between two looks at how many objects a server made since the collector's last pass."""
OBJECTS_PER_GAME = 1500
"""Objects the collector follows that one live game holds, rounded up: about 430 halfway
through a game of a person against the computer, 820 at its end (a finished game stays
live until room is needed), played in one process; a server adds its connection and its
share of the strategies' caches (a server holding 1,400 such games passed 1.4 million).
A server growing by what its games explain is not a sign of garbage, so the collector's
pass waits for more (``WebTable.collect``)."""
DEFAULT_DELAY = 0.5
"""Seconds between two of a computer's moves (a re-roll with its keep, a box) as pages play a
turn back, so people can follow."""
SECRET_HEADER = "x-seat-secret"
STATIC = resources.files("yahtzee.interfaces.web") / "static"


GONE = frozenset({Denial.UNKNOWN_GAME, Denial.GAME_OVER, Denial.IN_USE})
"""Why a game's computers stop without a report: its save is gone, the game played to its
end and filed (in a shared database, by another process, whose copy was newer), or a
console plays it meanwhile (they start again at the game's next look)."""


def state_answer(state: dict[str, Any]) -> Response:
    """Return a table's state as the JSON answer (encoded by ``schemas.encode``)."""
    return Response(encode(state), media_type="application/json")


class BadRequest(Exception):
    """A request the server cannot take: its status and the message said to the browser."""

    def __init__(self, status: int, message: str, retry: float | None = None) -> None:
        """Refuse with ``status`` and ``message``; ``retry``: seconds to wait (429, 503)."""
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry = retry


async def unserved(request: Request, error: Exception) -> Response:
    """Answer an address or a method the table does not serve (404, 405) in its own words.

    Under ``/api/`` the answer is the API's ``{"error": ...}``; elsewhere a
    person followed a link or typed the address, and gets a small page that
    leads back to the table (instead of a bare "Not Found").  A 405 keeps
    its ``Allow`` header.
    """
    status = error.status_code if isinstance(error, HTTPException) else 404
    headers = dict(error.headers or {}) if isinstance(error, HTTPException) else {}
    if status == 405:
        answer: Response = _error(405, f"This address does not take a {request.method} request.")
    elif request.url.path.startswith("/api/"):
        answer = _error(404, NO_SUCH_ADDRESS)
    else:
        answer = not_found_page(NO_SUCH_PAGE)
    answer.headers.update(headers)
    return answer


def _error(status: int, message: str, retry: float | None = None) -> JSONResponse:
    """Return an error answer: ``{"error": message}`` with ``status`` (and ``Retry-After``)."""
    headers = None if retry is None else {"Retry-After": retry_after(retry)}
    return JSONResponse({"error": message}, status_code=status, headers=headers)


TOO_SLOW = "The request came too slowly."
NO_SUCH_ADDRESS = "Nothing is served at this address."
NO_SUCH_PAGE = "There is no page at this address. Start a new game, or look at the finished ones."
TOO_MANY_GAMES = "Too many new games from here: wait a little before the next one."
TOO_MANY_ROBOTS = "You have as many games of computers alone going as one may: let one end first."
ROBOTS_FULL = "The server plays as many games of computers alone as it takes; try again later."
TOO_MANY_POLLS = "Too many pages follow games from here at once."


def client_of(request: Request) -> str:
    """Return the address of the client (behind a trusted proxy: the one the proxy gives)."""
    return request.client.host if request.client is not None else ""


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """Return the request's body; ``BadRequest`` (413) if it is larger than ``limit`` bytes."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise BadRequest(413, f"A request may hold at most {limit} bytes.")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BadRequest(413, f"A request may hold at most {limit} bytes.")
    return bytes(body)


def _seat(seat: Seat) -> tuple[PlayerKind, str]:
    """Return one seat of a new game's form: its kind and the name given (blank: none)."""
    kind = find_kind(seat.kind)
    if kind is None:
        raise BadRequest(400, FIELD_MESSAGES[(NewGame, "players[].kind")])
    name = (seat.name or "").strip()
    if not name.isprintable() or len(name) > MAX_NAME:
        raise BadRequest(400, f"Names are plain text of at most {MAX_NAME} characters.")
    return kind, name


def _seats(form: NewGame) -> tuple[tuple[PlayerKind, ...], tuple[str, ...]]:
    """Return the players' kinds and names (default names where none was given)."""
    chosen = [_seat(seat) for seat in form.players]
    kinds = tuple(kind for kind, _ in chosen)
    names = tuple(name or default for (_, name), default in zip(chosen, default_names(kinds)))
    twice = next((name for n, name in enumerate(names) if name in names[:n]), None)
    if twice is not None:
        blank = any(not given and name == twice for (_, given), name in zip(chosen, names))
        raise BadRequest(400, f"Player names must differ: two players are called {twice}"
                              + (" (a name left blank is the player's default name)." if blank
                                 else "."))
    return kinds, names


def _variant(form: NewGame) -> Variant:
    """Return the game and rules the form asks for (Yahtzee under its default rules if none)."""
    if form.game not in GAMES:
        raise BadRequest(400, FIELD_MESSAGES[(NewGame, "game")])
    try:
        return get_variant(form.game, form.rules if form.game == YAHTZEE and form.rules
                           else None)
    except UnknownGameError:
        raise BadRequest(400, RULES_MESSAGE) from None


def _seed(form: NewGame, kinds: tuple[PlayerKind, ...]) -> int | None:
    """Return the seed the form asks for (None: none; text of digits is taken too).

    A chosen seed is refused in a game of two or more people on their own
    screens: its creator could foresee every roll, and the others could not.
    """
    seed = form.seed
    if isinstance(seed, str):
        text = seed.strip()
        seed = None if not text else int(text) if text.isascii() and text.isdigit() else -1
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise BadRequest(400, SEED_MESSAGE)
    people = sum(not kind.is_computer for kind in kinds)
    if seed is not None and people > 1 and not form.hot_seat:
        raise BadRequest(400, SEED_REFUSED)
    return seed


SEED_REFUSED = ("A chosen seed is for a game of one person (or of one screen): "
                "between people on their own screens, whoever chose it could foresee every "
                "roll.")


def parse_settings(body: bytes) -> Settings:
    """Return the new game a form asks for; ``BadRequest`` (400) saying what is wrong."""
    try:
        form: NewGame = decode(NewGame, body)
    except BodyError as error:
        raise BadRequest(400, reason(NewGame, error)) from None
    kinds, names = _seats(form)
    return Settings(_variant(form), kinds, names, _seed(form, kinds), form.coach,
                    form.hot_seat)


def parse_move(body: bytes, variant: Variant) -> tuple[Move, int | None]:
    """Return the move a request asks for in a game of ``variant``, and the version it was
    drawn at (None if not given); ``BadRequest`` (400) saying what is wrong."""
    def numbered(field: str) -> str | None:
        """Return the reason for a wrong ``die`` or ``box`` (None for another field)."""
        for name, count in NUMBERED.values():
            if name == field:
                return f"'{field}' must be a number from 1 to {count(variant)}."
        return None

    try:
        request: MoveRequest = decode(MoveRequest, body)
    except BodyError as error:
        raise BadRequest(400, reason(MoveRequest, error, numbered)) from None
    kinds = {kind.value: kind for kind in WEB_MOVES}
    kind = kinds.get(request.action)
    if kind is None:
        raise BadRequest(400, FIELD_MESSAGES[(MoveRequest, "action")])
    number = 0
    if kind in NUMBERED:
        field, count = NUMBERED[kind]
        given = getattr(request, field)
        if given is None or not 1 <= given <= count(variant):
            raise BadRequest(400, numbered(field) or "")
        number = given
    return Move(kind, number), request.version


WEB_MOVES = (MoveKind.TOGGLE, MoveKind.ROLL, MoveKind.SCORE, MoveKind.BOX)
"""The moves a page sends (a keep of faces is the console's notation; the page toggles dice)."""
NUMBERED: dict[MoveKind, tuple[str, Callable[[Variant], int]]] = {
    MoveKind.TOGGLE: ("die", lambda variant: variant.dice),
    MoveKind.BOX: ("box", lambda variant: variant.boxes)}
"""The moves that carry a number: its field and its largest value in a game."""


class SecurityHeaders:
    """ASGI middleware: every answer forbids framing, sniffing, referrers and foreign scripts."""

    HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
               (b"x-frame-options", b"DENY"),
               (b"content-security-policy",
                b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")]

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Add the headers to every HTTP answer of the wrapped application."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            """Add the headers to the start of the answer."""
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + self.HEADERS
            await send(message)

        await self.app(scope, receive, sending)


class WebTable:
    """The server's state: the live games, who waits for their changes, the computers' pace."""

    def __init__(self, games: BrowserGames, *, delay: float = DEFAULT_DELAY,
                 address: str | None = None, limits: Limits | None = None,
                 reporter: Reporter | None = None) -> None:
        """Serve ``games``; pages play computers' moves back ``delay`` seconds apart.

        ``address`` is the origin others reach the server at (for seat links);
        ``reporter`` is told of the failures of work no request waits for
        (a computer's move, the sweep of abandoned games; default: standard error).
        """
        self.games = games
        self.reporter = reporter if reporter is not None else Reporter()
        self.delay = delay
        self.address = address
        self.limits = limits if limits is not None else Limits()
        self.throttle = Throttle(self.limits.creations_burst, self.limits.creations_per_minute)
        self.polls = Slots(self.limits.polls_per_client, self.limits)
        self.computer_games: dict[str, str] = {}
        """The computer-only games going on, and the client that started each."""
        self.starting: list[str] = []
        """The client of each computer-only game being made (counted against the limits
        while it is made in a thread, so that requests at once cannot all pass them)."""
        self.changes: dict[str, asyncio.Event] = {}
        self.driving: set[str] = set()
        self.turns: set[str] = set()
        """The games whose computer's turn is being played: a look at one waits for its end."""
        self.tasks: set[asyncio.Task[None]] = set()

    # -- helpers -----------------------------------------------------------
    def notify(self, game_id: str) -> None:
        """Answer every request waiting for a change of ``game_id``."""
        event = self.changes.pop(game_id, None)
        if event is not None:
            event.set()

    async def table(self, game_id: str) -> BrowserGame:
        """Return the live game ``game_id`` (from its save if need be), its computers moving."""
        table = self.games.live.get(game_id)
        if table is None:
            table = await in_thread(self.games.get, game_id)
        self.drive(table)
        return table

    def drive(self, table: BrowserGame) -> None:
        """Start playing the computers' turns of ``table`` if one is to play and none is playing."""
        if table.game_id in self.driving or not table.computer_to_play():
            return
        self.driving.add(table.game_id)
        task = asyncio.get_running_loop().create_task(self._drive(table))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _drive(self, table: BrowserGame) -> None:
        """Play the computers' turns until a person is to play or the game ends.

        A turn is played at once, its moves one after another, and the pages
        waiting are told once, at its end: they play its moves back ``delay``
        seconds apart (each re-roll's dice, then the state with the box), as
        a person would have seen them made.  The first turn waits ``delay``
        seconds; each next one comes ``delay`` after the pages have drawn the
        last (``delay`` per move they show), so that people follow every
        turn at the same pace.  A move that fails (its save, the database)
        changes nothing; it is reported, and tried again when the game is
        next asked for (``table``).
        Cancelled (the server stops), it ends between two moves: a move in
        a worker thread is finished, and saved, first.
        """
        try:
            pause = self.delay
            while table.computer_to_play():
                await asyncio.sleep(pause)
                shown = await self._computer_turn(table)
                if not shown:
                    break
                pause = self.delay * shown
        except GameRequestError as error:
            if error.denial not in GONE:  # ended and filed by another process: nothing failed
                self.failed(f"a computer's move in game {table.game_id}", error)
        except Exception as error:  # no request waits for it: told, not raised
            self.failed(f"a computer's move in game {table.game_id}", error)
        finally:
            self.driving.discard(table.game_id)

    async def _computer_turn(self, table: BrowserGame) -> int:
        """Play the turn of the computer to play, move after move; return how many moves a page
        shows of it (each that adds a line to the moves' list: not a stop before the box).

        Each move is made here, on the loop's thread, when it can be made at
        once, else in a worker thread (``BrowserGame.computer_step_at_once``).
        Meanwhile a look at the game waits for the turn's end (``state``),
        and the pages waiting are told at its end, even when a move fails.
        """
        turn = table.computer_turn()
        shown = 0
        self.turns.add(table.game_id)
        try:
            while turn is not None and table.computer_turn() == turn:
                made = table.last_made()
                stepped = table.computer_step_at_once()
                if stepped is None:
                    step = asyncio.ensure_future(in_thread(table.computer_step))
                    try:
                        stepped = await asyncio.shield(step)
                    except asyncio.CancelledError:
                        await step
                        raise
                if not stepped:
                    break
                shown += table.last_made() != made
        finally:
            self.turns.discard(table.game_id)
            self.notify(table.game_id)
        return shown

    def failed(self, what: str, error: Exception) -> None:
        """Report that ``what``, work no request waits for, failed with ``error``; it goes on."""
        self.reporter.error(f"{what} failed ({type(error).__name__}: {error}); "
                            "the server goes on")

    async def body(self, request: Request) -> bytes:
        """Return the request's body; ``BadRequest`` if too large (413) or too slow (408)."""
        try:
            return await asyncio.wait_for(read_body(request), self.limits.body_timeout)
        except asyncio.TimeoutError:
            raise BadRequest(408, TOO_SLOW) from None

    def admit(self, client: str, settings: Settings) -> None:
        """Refuse (429, 503) a new game past the client's or the server's limits."""
        exempt = self.limits.exempt(client)
        if all(kind.is_computer for kind in settings.kinds):
            live = self.games.live
            going = {game_id: owner for game_id, owner in self.computer_games.items()
                     if (table := live.get(game_id)) is not None and not table.is_over()}
            self.computer_games = going
            owners = [*going.values(), *self.starting]
            if len(owners) >= self.limits.computer_games:
                raise BadRequest(503, ROBOTS_FULL, retry=MINUTE)
            mine = owners.count(client)
            if not exempt and mine >= self.limits.computer_games_per_client:
                raise BadRequest(429, TOO_MANY_ROBOTS, retry=MINUTE)
        wait = 0.0 if exempt else self.throttle.take(client)
        if wait:
            raise BadRequest(429, TOO_MANY_GAMES, retry=wait)

    async def sweep(self) -> None:
        """Delete abandoned games every ``Limits.sweep_every`` seconds (``BrowserGames.expire``)."""
        while True:
            await asyncio.sleep(self.limits.sweep_every)
            try:
                gone = await in_thread(self.games.expire, self.limits.fresh_for,
                                       self.limits.idle_for)
            except Exception as error:  # tried again at the next sweep
                self.failed("the sweep of abandoned games", error)
                continue
            for game_id in gone:
                self.notify(game_id)

    async def collect(self) -> None:
        """Pass the garbage collector over the server's objects once many more are live.

        Every ``COLLECT_CHECK`` seconds, while its own passes are off
        (``collect_rarely``): once the objects made, less those freed, since
        the last pass reach ``Limits.collect_after``, or what the games the
        server may hold explain if more (``OBJECTS_PER_GAME`` each; CPython's
        count, which never goes below none: it measures growth above its
        lowest point), one pass over every object but those of the start
        frees any garbage in cycles.  A server of constant size does not get
        there (a finished game frees what it made); one that grows past its
        games passes now and then.  The pass holds every request, about a
        second at a million objects: a server filling up to 1,000 games grew
        past a fixed million as it started and paused once (docs/scaling.md).
        A pass that fails is reported, and tried again at the next look.
        """
        bound = max(self.limits.collect_after, OBJECTS_PER_GAME * self.games.capacity)
        while True:
            await asyncio.sleep(COLLECT_CHECK)
            if gc.isenabled() or gc.get_count()[0] < bound:
                continue
            try:
                gc.collect()
            except Exception as error:  # a finalizer's; the server goes on
                self.failed("a pass of the garbage collector", error)

    async def take_up_lapsed(self) -> None:
        """Play on the computers of games whose server process stopped (a shared database).

        Every ``LEASE_SECONDS / 2`` seconds the database is asked for games
        with a computer to play and no live lease; this process takes them up
        (``drive`` claims the lease; another process may win it, and then
        this one lets the game be).
        """
        while True:
            await asyncio.sleep(LEASE_SECONDS / 2)
            try:
                lapsed = await in_thread(self.games.store.lapsed_computer_games)
            except StorageError:
                continue
            for game_id in lapsed:
                try:
                    table: BrowserGame = await in_thread(self.games.get, game_id)
                    await in_thread(table.refresh)  # this copy may be behind
                except (GameRequestError, StorageError):
                    continue
                except Exception as error:  # another process may take the game up
                    self.failed(f"taking up game {game_id}", error)
                    continue
                self.drive(table)

    # -- routes ------------------------------------------------------------
    async def page(self, request: Request) -> Response:
        """Answer with the page (the same for the form and for a game).

        ``/game/<number>`` is sent on to that finished game's review: the
        history names games by number, and no game in play has a number for
        an address (theirs are 32 hexadecimal digits).
        """
        number = history_number(request.path_params.get("game_id", ""))
        if number is not None:
            return RedirectResponse(f"/game/{number}/review", status_code=303)
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))

    async def options(self, request: Request) -> Response:
        """Answer with what the new-game form offers, its defaults, and the address to share.

        ``address`` is the origin other people reach the server at
        (``http://192.168.1.20:8000``), or None when the server does not know
        its socket (the page then uses its own origin).
        """
        return JSONResponse({
            "games": [{"name": g, "label": GAME_NAMES[g], "description": GAME_WORDS[g]}
                      for g in GAMES],
            "rules": sorted(RULES), "default_rules": OFFICIAL.name,
            "rule_sets": [{"name": name, "label": label, "description": description}
                          for name, (label, description) in RULES_WORDS.items()],
            "kinds": [{"name": k.name, "label": k.label, "computer": k.is_computer,
                       "shown": KIND_WORDS[k][0], "description": KIND_WORDS[k][1]}
                      for k in KINDS],
            "max_players": MAX_PLAYERS, "max_name": MAX_NAME,
            "default_players": [HUMAN.name, COMPUTER.name], "address": self.address})

    async def description(self, request: Request) -> Response:
        """Answer with the API's OpenAPI description."""
        return JSONResponse(openapi())

    async def create(self, request: Request) -> Response:
        """Start a new game; answer with its ID and each seat's secret (given only here)."""
        settings = parse_settings(await self.body(request))
        client = client_of(request)
        self.admit(client, settings)
        robots = all(kind.is_computer for kind in settings.kinds)
        if robots:
            self.starting.append(client)
        try:
            made = await in_thread(self.games.create, settings)
        finally:
            if robots:
                self.starting.remove(client)
        table = made.table
        if robots:  # a game with a person starts at its first look (``table``), so that
            # its page sees the computers' first turn played back
            self.computer_games[table.game_id] = client
            self.drive(table)
        return JSONResponse({
            "game": table.game_id, "url": f"/game/{table.game_id}",
            "links": [{"seats": [s + 1 for s in seats], "secret": secret}
                      for secret, seats in made.secrets]}, status_code=201)

    async def state(self, request: Request) -> Response:
        """Answer with the game's state once its version passes ``after`` (or after a while).

        A game finished and filed in the history (its save gone) is answered
        as its pages saw its end (``finished``).
        """
        game_id = request.path_params["game_id"]
        secret = request.headers.get(SECRET_HEADER)
        after = request.query_params.get("after", "")
        since = int(after) if after.isascii() and after.isdigit() and len(after) < 12 else None
        try:
            table = await self.table(game_id)
        except GameRequestError as error:
            if error.denial is not Denial.UNKNOWN_GAME:
                raise
            return await self.finished(request, game_id, since)
        try:
            await self.join(table, secret)
            if since is not None:
                if table.shared is not None:
                    await in_thread(table.refresh)
                if table.version <= since or table.game_id in self.turns:
                    await self.wait_change(table.game_id, client_of(request))
            seats = table.seats_of(secret)
            drawn = table.drawn_view()  # most polls: no thread needed
            view = drawn if drawn is not None else await in_thread(table.view)
        except GameRequestError as error:
            # a game shared with other server processes may have ended there meanwhile
            if error.denial is not Denial.UNKNOWN_GAME:
                raise
            await in_thread(self.games.forget, game_id)   # letting go may ask the database
            view, seats = await in_thread(self.games.finished, game_id, secret)
        return state_answer(state_json(view, seats, self.delay))

    async def finished(self, request: Request, game_id: str, since: int | None) -> Response:
        """Answer with a game finished and filed in the history, as its pages saw its end.

        A page that has its last state already (``since``) waits as a long
        poll does, so that following a finished game does not become a
        request after request: it will never change.
        """
        secret = request.headers.get(SECRET_HEADER)
        view, seats = await in_thread(self.games.finished, game_id, secret)
        if since is not None and view.version <= since:
            await self.wait_change(None, client_of(request))
        return state_answer(state_json(view, seats, self.delay))

    async def wait_change(self, game_id: str | None, client: str) -> None:
        """Wait for ``game_id`` to change (at most ``LONG_POLL`` seconds); 429 past the cap.

        A finished game (None) never changes: the request waits the whole
        time, and leaves nothing behind to be told of a change.
        """
        if not self.polls.take(client):
            raise BadRequest(429, TOO_MANY_POLLS, retry=5)
        try:
            if game_id is None:
                await asyncio.sleep(LONG_POLL)
            else:
                event = self.changes.setdefault(game_id, asyncio.Event())
                await asyncio.wait_for(event.wait(), LONG_POLL)
        except asyncio.TimeoutError:
            pass
        finally:
            self.polls.give_back(client)

    async def move(self, request: Request) -> Response:
        """Carry out a move for the seat whose secret the request holds; answer with the state."""
        table = await self.table(request.path_params["game_id"])
        move, version = parse_move(await self.body(request), table.live.variant)
        secret = request.headers.get(SECRET_HEADER)
        view = table.act_at_once(secret, move, version)
        if view is None:
            view = await in_thread(table.act, secret, move, version)
        else:
            await keep_saved(table)  # the save on the disk before the answer
        self.notify(table.game_id)
        self.drive(table)
        return state_answer(state_json(view, table.seats_of(secret), self.delay))

    async def join(self, table: BrowserGame, secret: str | None) -> None:
        """Note that the seats of ``secret`` joined; tell the waiting pages, start the computers."""
        if not secret or table.seats_of(secret) <= set(table.seats.joined):
            return  # the usual case, answered without a thread: nothing to note
        joined: bool = await in_thread(table.join, secret)
        if joined:
            self.notify(table.game_id)
            self.drive(table)

    async def start(self, request: Request) -> Response:
        """Start a game before everyone joined, for its host; answer with the state."""
        table = await self.table(request.path_params["game_id"])
        try:
            decode(StartRequest, await self.body(request))
        except BodyError as error:
            raise BadRequest(400, reason(StartRequest, error)) from None
        secret = request.headers.get(SECRET_HEADER)
        view = await in_thread(table.start, secret)
        self.notify(table.game_id)
        self.drive(table)
        return state_answer(state_json(view, table.seats_of(secret), self.delay))

    async def links(self, request: Request) -> Response:
        """Give the host new links for the seats not joined yet; answer with the host's links.

        The host's own link comes first (the secret the request holds), then
        one per seat whose link was never used; see ``BrowserGame.reissue_links``.
        """
        table = await self.table(request.path_params["game_id"])
        try:
            decode(LinksRequest, await self.body(request))
        except BodyError as error:
            raise BadRequest(400, reason(LinksRequest, error)) from None
        given = await in_thread(table.reissue_links, request.headers.get(SECRET_HEADER))
        return JSONResponse({"game": table.game_id,
                             "links": [{"seats": [s + 1 for s in seats], "secret": secret}
                                       for secret, seats in given]})

    def app(self, hosts: Iterable[str] | None = None) -> Starlette:
        """Return the ASGI application serving the page and the API.

        Only requests for ``hosts`` are answered (None: any host); see ``guards``.
        """
        def guarded(handler: Callable[[Request], Awaitable[Response]]
                    ) -> Callable[[Request], Awaitable[Response]]:
            """Turn refusals into their 4xx answers."""
            async def answer(request: Request) -> Response:
                """Run ``handler``; a refusal is answered with its status and message."""
                try:
                    return await handler(request)
                except BadRequest as error:
                    return _error(error.status, error.message, error.retry)
                except ClientDisconnect:
                    return Response(status_code=400)  # nobody is left to read it
                except GameRequestError as error:
                    return _error(*refusal(error))
                except SolverUnavailableError:  # a game with a computer or the coach
                    return _error(503, NUMPY_NEEDED)
            return answer

        routes = [  # a game's state and moves first: nearly every request, matched in turn
            Route("/api/games/{game_id}", guarded(self.state)),
            Route("/api/games/{game_id}/moves", guarded(self.move), methods=["POST"]),
            Route("/", self.page), Route("/game/{game_id}", self.page),
            Route("/api/options", guarded(self.options)),
            Route("/api/openapi.json", self.description),
            Route("/api/games", guarded(self.create), methods=["POST"]),
            Route("/api/games/{game_id}/start", guarded(self.start), methods=["POST"]),
            Route("/api/games/{game_id}/links", guarded(self.links), methods=["POST"]),
            *page_routes(self.games.setup, self.games.problems, self.games.storage),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ]

        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            """Allow enough worker threads for saves; at the end, stop the computers (each
            between two moves) and let go of every game's save."""
            loop = asyncio.get_running_loop()
            use_worker_threads(loop)
            sweeping = [loop.create_task(self.sweep()), loop.create_task(self.collect())]

            def heard(game_id: str) -> None:
                """Wake the requests waiting for ``game_id``, moved by another server process."""
                loop.call_soon_threadsafe(self.notify, game_id)

            listener = self.games.store.listen(heard)
            if self.games.shared is not None:
                sweeping.append(loop.create_task(self.take_up_lapsed()))
            yield
            driving = [task for task in self.tasks if task.get_loop() is loop]
            for task in sweeping + driving:
                task.cancel()
            await asyncio.gather(*sweeping, *driving, return_exceptions=True)
            listener.close()
            self.games.close()

        middleware = [Middleware(SecurityHeaders), Middleware(HostGuard, hosts=hosts),
                      Middleware(SameOrigin), Middleware(NoStore)]
        app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan,
                        exception_handlers={404: unserved, 405: unserved})
        app.state.web = self
        return app


def make_app(*, delay: float = DEFAULT_DELAY, capacity: int = DEFAULT_CAPACITY,
             reporter: Reporter | None = None, address: str | None = None,
             hosts: Iterable[str] | None = None, limits: Limits | None = None,
             storage: Storage | None = None, solvers: Solvers | None = None) -> Starlette:
    """Return the browser table's application, its games saved in the data folder.

    ``reporter`` is told of storage problems and of the solver's builds
    (by default they go to standard error); ``address`` is the origin
    others reach the server at (see ``reachable``).  Only requests whose
    ``Host`` is one of ``hosts`` are answered (None: any; ``serve`` always
    names them); ``limits`` bound what clients may ask (default: ``Limits()``);
    ``storage`` keeps the games (default: the data folder's files);
    ``solvers`` makes the computers and coaches (default: a new ``Solvers``,
    loading tables as games need them).
    """
    report = reporter if reporter is not None else Reporter()
    if solvers is None:
        solvers = Solvers(report=report.solver_event)
    games = BrowserGames(solvers, report, capacity=capacity, storage=storage)
    if limits is None:
        limits = Limits(computer_games=min(Limits.computer_games, max(1, capacity // 2)))
    return WebTable(games, delay=delay, address=address, limits=limits,
                    reporter=report).app(hosts)


def bind(host: str, port: int, *, shared_port: bool = False,
         listen: bool = True) -> socket.socket:
    """Return a listening socket on ``host`` and ``port`` (0: any free port).

    The socket names TCP as its protocol: asyncio turns Nagle's algorithm off
    only on connections of such sockets, and with it on, the body of an
    answer (written after its head) waited for the browser's delayed
    acknowledgement, 40 ms, on every request but the first of a connection.
    ``shared_port`` lets the workers of ``serve_workers`` each listen on the
    same port (``SO_REUSEPORT``: the system spreads the connections among
    them); without ``listen`` the socket only holds the address, which must
    be free: ``OSError`` (address in use) where another server listens.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    if shared_port and not listen and port:
        # the address for workers to share: free of any other server first, since
        # SO_REUSEPORT would let this one share a port another's workers listen on
        with socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    if listen:
        sock.listen(128)
    sock.set_inheritable(True)
    return sock


def address(sock: socket.socket) -> str:
    """Return the page's address for a bound socket: ``http://127.0.0.1:8000/``.

    A socket bound to every interface is opened on this machine at its loopback
    address (``0.0.0.0`` names no host a browser should ask for; the server
    refuses it as a host name).
    """
    host, port = sock.getsockname()[:2]
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def reachable(sock: socket.socket) -> str:
    """Return the origin others reach a bound socket at: ``http://192.168.1.20:8000``.

    A socket bound to every interface (``0.0.0.0`` or ``::``) is reached at
    the machine's network address (this machine's own, 127.0.0.1, if it has
    none); any other at the address it is bound to.
    """
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = lan_address() or "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def serve(host: str, port: int, *, delay: float = DEFAULT_DELAY,
          capacity: int = DEFAULT_CAPACITY, out: TextIO | None = None,
          extra_hosts: Iterable[str] = (), proxy: str | None = None,
          storage: Storage | None = None, worker: bool = False,
          solvers: Solvers | None = None) -> int:
    """Serve the browser table on ``host``:``port`` until stopped; return the exit status.

    It answers to the names of its address (see ``guards.allowed_hosts``)
    and to ``extra_hosts``.  ``X-Forwarded-For`` and ``X-Forwarded-Proto``
    are believed only from the address ``proxy`` (a TLS reverse proxy);
    without one, never.  ``storage`` keeps the games (default: the data folder's files).
    A ``worker`` of ``serve_workers`` listens on the port beside the other
    workers and prints nothing; its ``solvers`` are the ones preloaded
    before it was forked (see ``make_app``).
    """
    reporter = Reporter()
    stream = out if out is not None else sys.stdout
    sock = _listen(host, port, reporter, shared_port=worker)
    if sock is None:
        return 1
    if not worker:
        announce(sock, stream)
    app = make_app(delay=delay, capacity=capacity, reporter=reporter, address=reachable(sock),
                   hosts=allowed_hosts(host, extra_hosts), storage=storage, solvers=solvers)
    wanted = most_connections(capacity)
    allowed = open_files_for(wanted)
    if allowed < wanted:
        reporter.error(f"this process may open too few files for {wanted} connections; "
                       f"{allowed} are served at once (raise its limit: ulimit -n)")
    config = uvicorn.Config(**server_config(
        app, Limits(), allowed, proxy_headers=proxy is not None, forwarded_allow_ips=proxy or ""))
    collect_rarely()
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def collect_rarely() -> None:
    """Turn the garbage collector's own passes off in a server, after one over what its start made.

    Reference counts free what a server lets go of: playing games through
    it, and bad, slow, dropped and waiting requests, left no garbage in
    reference cycles (measured: docs/scaling.md, "The collector switched
    off"), so the collector's passes freed nothing and held every request
    while they looked over the objects since the last one, about 1.6 µs
    each here, most of them live games'.  What the start made (the
    modules, the application) is then frozen out of every later pass
    (``gc.freeze``): a cycle of those is never freed, and they live as long
    as the server anyway.  ``WebTable.collect`` still passes once
    ``Limits.collect_after`` more objects are live, so garbage in cycles
    made by a path not measured is bounded.
    """
    gc.collect()
    gc.freeze()
    gc.disable()


def _listen(host: str, port: int, reporter: Reporter, *, shared_port: bool = False,
            listen: bool = True) -> socket.socket | None:
    """Return the socket of ``host``:``port`` (see ``bind``), or None after saying why not."""
    try:
        return bind(host, port, shared_port=shared_port, listen=listen)
    except OSError as error:
        reporter.error(f"cannot listen on {host}:{port}: {error.strerror or error}")
        return None


PLAIN_HTTP = "(plain HTTP: for a network you trust; see docs/browser.md for a TLS proxy)"
"""What ``announce`` says under the address others on the network open: the manual's page
with the paragraph "Behind a TLS reverse proxy"."""


def announce(sock: socket.socket, stream: TextIO) -> None:
    """Print where the table is served (and where others on the network reach it)."""
    shared = reachable(sock)
    stream.write(f"Yahtzee is served at {address(sock)}  (open it in a browser)\n")
    if f"{shared}/" != address(sock):
        stream.write(f"Others on your network open {shared}/\n  {PLAIN_HTTP}\n")
    stream.write("Ctrl-C stops the server; its games go on after a restart.\n")
    stream.flush()


def serve_workers(host: str, port: int, workers: int, worker: Callable[[int, Solvers], int],
                  *, out: TextIO | None = None) -> int:
    """Serve the table on ``host``:``port`` with ``workers`` processes; return the exit status.

    This process holds the address, makes every game's solver tables and
    players (``Solvers.preload``: read from the cache folder, or built
    once, the build reported here), then forks the workers, each running
    ``worker(port, solvers)`` (``serve`` on the port, with its own
    database connections): they share the tables' memory with this process
    instead of each loading its own copy.  See ``workers.run_workers``.
    """
    reporter = Reporter()
    sock = _listen(host, port, reporter, shared_port=True, listen=False)
    if sock is None:
        return 1
    with sock:  # holds the port (0: a free one) for the workers, taking no connection itself
        solvers = Solvers(report=reporter.solver_event)
        try:
            solvers.preload(every_variant())
        except SolverUnavailableError:
            pass  # without numpy, nothing to share: each worker answers as ``serve`` does
        chosen = sock.getsockname()[1]
        return run_workers(workers, lambda: worker(chosen, solvers),
                           lambda: announce(sock, out if out is not None else sys.stdout),
                           host=host, port=chosen, inherited=[sock.fileno()])
