"""The browser table against flooding: new games per client, games of computers alone,
abandoned games, long polls, and slow or idle connections on a real server.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the test client's notice about httpx's successor
    from starlette.testclient import TestClient  # noqa: E402

from tests.helpers import Problems, collector_off, cycles_of_ours  # noqa: E402
from yahtzee.app.browser import BrowserGames, GameView, Settings  # noqa: E402
from yahtzee.app.session import Solvers  # noqa: E402
from yahtzee.domain.games import get_variant  # noqa: E402
from yahtzee.engine.moves import Move  # noqa: E402
from yahtzee.interfaces.web.connections import (CONNECTIONS_PER_GAME,  # noqa: E402
                                                FILES_BESIDE, most_connections,
                                                open_files_for, server_config)
from yahtzee.interfaces.web.limits import DAY, Limits, Throttle  # noqa: E402
from yahtzee.interfaces.web import server  # noqa: E402
from yahtzee.interfaces.web.server import (BadRequest, WebTable, bind,  # noqa: E402
                                           collect_rarely, make_app)
from yahtzee.interfaces.web.threads import in_save_thread, in_thread  # noqa: E402
from yahtzee.players.kinds import HUMAN  # noqa: E402
from yahtzee.solver.cache import Solution  # noqa: E402
from yahtzee.solver.moments import Moments  # noqa: E402
from yahtzee.storage.saves import SaveStore  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

ALONE = {"players": [{"kind": "human"}], "coach": False}
ROBOTS = {"players": [{"kind": "greedy"}, {"kind": "greedy", "name": "Other"}], "coach": False}


def saves(data: Path) -> list[str]:
    """Return the names of the save files in the data folder."""
    return sorted(p.name for p in data.rglob("*.json")) if data.exists() else []


def test_a_client_starting_game_after_game_is_slowed_down(data: Path) -> None:
    limits = Limits(creations_burst=3, creations_per_minute=2)
    with TestClient(make_app(delay=0, limits=limits)) as client:
        made = [client.post("/api/games", json=ALONE) for _ in range(3)]
        assert [a.status_code for a in made] == [201] * 3
        kept = saves(data)
        refused = client.post("/api/games", json=ALONE)
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["retry-after"]) <= 30
        assert refused.json() == {
            "error": "Too many new games from here: wait a little before the next one."}
        assert saves(data) == kept
    with TestClient(make_app(delay=0, limits=limits), client=("10.0.0.9", 1)) as other:
        assert other.post("/api/games", json=ALONE).status_code == 201


def test_the_throttle_refills_at_its_rate() -> None:
    throttle = Throttle(burst=2, per_minute=6)
    assert [throttle.take("a", now=0) for _ in range(2)] == [0, 0]
    assert throttle.take("a", now=0) == pytest.approx(10)
    assert throttle.take("b", now=0) == 0
    assert throttle.take("a", now=10) == 0
    assert throttle.take("a", now=11) == pytest.approx(9)
    assert Limits().exempt("127.0.0.1") and Limits().exempt("::1")
    assert not Limits().exempt("10.0.0.1") and not Limits(exempt_loopback=False).exempt("::1")


def test_games_of_computers_alone_are_bounded_per_client_and_in_all(data: Path) -> None:
    limits = Limits(computer_games_per_client=1, computer_games=2)
    app = make_app(delay=3600, limits=limits)  # the computers never get to move
    with TestClient(app, client=("10.0.0.1", 1)) as first, \
            TestClient(app, client=("10.0.0.2", 1)) as second, \
            TestClient(app, client=("10.0.0.3", 1)) as third:
        assert first.post("/api/games", json=ROBOTS).status_code == 201
        again = first.post("/api/games", json=ROBOTS)
        assert (again.status_code, again.headers["retry-after"]) == (429, "60")
        assert first.post("/api/games", json=ALONE).status_code == 201  # people may still play
        assert second.post("/api/games", json=ROBOTS).status_code == 201
        full = third.post("/api/games", json=ROBOTS)
        assert full.status_code == 503 and "computers alone" in full.json()["error"]
        assert third.post("/api/games", json=ALONE).status_code == 201


def test_games_of_computers_asked_for_at_once_keep_to_the_limits(data: Path) -> None:
    """Requests that arrive together are counted while their games are being made."""
    limits = Limits(computer_games_per_client=5, computer_games=2)
    app = make_app(delay=3600, limits=limits)

    async def ask(count: int) -> list[int]:
        transport = httpx.ASGITransport(app=app, client=("10.0.0.1", 1))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            answers = await asyncio.gather(*(c.post("/api/games", json=ROBOTS)
                                             for _ in range(count)))
        for task in list(app.state.web.tasks):
            task.cancel()
        return sorted(answer.status_code for answer in answers)

    assert asyncio.run(ask(4)) == [201, 201, 503, 503]
    assert len(app.state.web.computer_games) == 2 and app.state.web.starting == []


def test_the_capacity_keeps_room_for_people(data: Path) -> None:
    web: WebTable = make_app(capacity=3).state.web
    assert web.limits.computer_games == 1
    assert make_app().state.web.limits.computer_games == 4


def play_a_box(client: TestClient, game: str, secret: str) -> None:
    """Score the first box of the seat to play."""
    headers = {"X-Seat-Secret": secret}
    assert client.post(f"/api/games/{game}/moves", json={"action": "score"},
                       headers=headers).status_code == 200
    assert client.post(f"/api/games/{game}/moves", json={"action": "box", "box": 1},
                       headers=headers).status_code == 200


def made(client: TestClient) -> tuple[str, str]:
    """Start a game of one person; return its ID and secret."""
    answer = client.post("/api/games", json=ALONE).json()
    return answer["game"], answer["links"][0]["secret"]


@pytest.mark.parametrize("restarted", [False, True])
def test_abandoned_games_expire_and_their_saves_are_deleted(data: Path, restarted: bool) -> None:
    limits = Limits()
    with TestClient(make_app(delay=0)) as client:
        untouched, _ = made(client)
        played, secret = made(client)
        play_a_box(client, played, secret)
        assert len(saves(data)) == 2
    with TestClient(make_app(delay=0)) as client:
        if not restarted:
            for game in (untouched, played):  # take them up again: live games
                assert client.get(f"/api/games/{game}").status_code == 200
        tables = client.app.state.web.games
        assert tables.expire(limits.fresh_for, limits.idle_for, time.time() + 60) == []
        soon = time.time() + limits.fresh_for + 1
        assert tables.expire(limits.fresh_for, limits.idle_for, soon) == [untouched]
        assert client.get(f"/api/games/{untouched}").status_code == 404
        assert len(saves(data)) == 1
        assert client.get(f"/api/games/{played}").status_code == 200
        assert tables.expire(limits.fresh_for, limits.idle_for, soon + 6 * DAY) == []
        later = time.time() + limits.idle_for + 1
        assert tables.expire(limits.fresh_for, limits.idle_for, later) == [played]
        assert client.get(f"/api/games/{played}").status_code == 404
        assert saves(data) == []


def test_a_client_may_follow_only_so_many_games_at_once(data: Path) -> None:
    with TestClient(make_app(delay=0, limits=Limits(polls_per_client=2))) as client:
        web: WebTable = client.app.state.web

    async def follow() -> list[Any]:
        """Open three long polls from one client and one from another; end them."""
        waits = [asyncio.ensure_future(web.wait_change("g", "10.0.0.1")) for _ in range(3)]
        waits.append(asyncio.ensure_future(web.wait_change("g", "10.0.0.2")))
        await asyncio.sleep(0.05)
        web.notify("g")
        return await asyncio.gather(*waits, return_exceptions=True)

    results = asyncio.run(follow())
    refused = [r for r in results if isinstance(r, BadRequest)]
    assert [r.status for r in refused] == [429]
    assert web.polls.held == {}


# -- a real server: slow and idle connections ------------------------------------------------
class Running:
    """A uvicorn server on a free loopback port, in a thread."""

    def __init__(self, limits: Limits, capacity: int = 0) -> None:
        """Start serving a fresh application within ``limits``, holding ``capacity`` games."""
        self.sock = bind("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        app = make_app(delay=0, limits=limits, hosts=["127.0.0.1"], capacity=max(capacity, 1))
        self.server = uvicorn.Server(uvicorn.Config(**server_config(
            app, limits, most_connections(capacity))))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server."""
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


@pytest.fixture
def running(data: Path) -> Iterator[Running]:
    """A real server: heads and bodies within 2 s, 6 connections a client, loopback included."""
    served = Running(Limits(header_timeout=2, body_timeout=2, connections_per_client=6,
                            exempt_loopback=False))
    yield served
    served.stop()


def open_connection(port: int) -> socket.socket:
    """Return a connection to the server."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    return conn


def closed_within(conn: socket.socket, seconds: float, drip: bytes = b"") -> float | None:
    """Send ``drip`` every 0.5 s until the server closes ``conn``; return when (None: never)."""
    start = time.monotonic()
    conn.settimeout(0.5)
    while time.monotonic() - start < seconds:
        try:
            if drip:
                conn.sendall(drip)
            data = conn.recv(4096)
            if not data or b"HTTP/1.1 408" in data:
                return time.monotonic() - start
        except socket.timeout:
            continue
        except OSError:
            return time.monotonic() - start
    return None


def test_a_server_holding_many_games_answers_past_a_thousand_open_connections(
        data: Path) -> None:
    # one connection a game (a page's long poll) for 1,100 games: a fixed cap of
    # 1,000 connections answered every request 503 once that many were open
    resource = pytest.importorskip("resource")
    capacity, wanted = 300, 1100
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        # both ends of each connection are this process's files
        if open_files_for(2 * wanted + 128) < 2 * wanted + 128:
            pytest.skip("the hard limit of open files is too low for both ends")
        served = Running(Limits(), capacity)
        idle: list[socket.socket] = []
        try:
            idle = [open_connection(served.port) for _ in range(wanted)]
            with httpx.Client(base_url=f"http://127.0.0.1:{served.port}", timeout=20) as client:
                answer = client.get("/api/options")
            assert answer.status_code == 200, answer.text
            assert most_connections(capacity) == CONNECTIONS_PER_GAME * capacity > wanted
        finally:
            for conn in idle:
                conn.close()
            served.stop()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, before)


def test_the_soft_limit_of_open_files_is_raised_for_the_connections_never_lowered() -> None:
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip("the hard limit of open files leaves no room to raise the soft one")
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))
        assert open_files_for(1000) == 1000  # room for every one
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == (1000 + FILES_BESIDE, hard)
        assert open_files_for(100) == 100  # enough already: left as it is
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 1000 + FILES_BESIDE
        if hard != resource.RLIM_INFINITY:  # past the hard limit: the room there is, told
            assert open_files_for(hard + 10) == hard - FILES_BESIDE
            assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_slow_head_is_cut_off_within_seconds_while_others_are_served(
        running: Running) -> None:
    slow = open_connection(running.port)
    slow.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    served: list[int] = []

    def others() -> None:
        """Ask for the options, meanwhile, on fresh connections."""
        url = f"http://127.0.0.1:{running.port}/api/options"
        for _ in range(3):
            with httpx.Client() as client:
                served.append(client.get(url).status_code)
            time.sleep(0.3)

    helper = threading.Thread(target=others)
    helper.start()
    after = closed_within(slow, 8, drip=b"X-Slow: 1\r\n")
    helper.join(10)
    assert after is not None and after < 4, after
    assert served == [200, 200, 200]


def test_the_server_runs_on_uvloop_where_it_is_installed(running: Running) -> None:
    uvloop = pytest.importorskip("uvloop")
    assert running.server.started
    assert isinstance(running.server.servers[0].get_loop(), uvloop.Loop)


def test_an_idle_connection_and_a_slow_body_are_dropped(running: Running) -> None:
    idle = open_connection(running.port)
    after = closed_within(idle, 8)
    assert after is not None and after < 4, after
    slow = open_connection(running.port)
    slow.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{")
    after = closed_within(slow, 8, drip=b" ")
    assert after is not None and after < 4, after


def test_a_client_holds_only_so_many_connections(running: Running) -> None:
    held = [open_connection(running.port) for _ in range(6)]
    time.sleep(0.2)
    extra = open_connection(running.port)
    assert closed_within(extra, 1.5) is not None
    for conn in held:
        conn.close()
    time.sleep(0.3)
    with httpx.Client() as client:
        assert client.get(f"http://127.0.0.1:{running.port}/api/options").status_code == 200


def test_dropped_polls_cut_heads_slow_bodies_and_idle_connections_leave_no_cycles_of_ours(
        data: Path, course: Solution, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server runs with the collector's own passes off (``collect_rarely``): what hostile or
    careless clients leave behind on a real socket must be freed by reference counts alone."""
    monkeypatch.setattr(server, "LONG_POLL", 0.5)
    with collector_off():
        served = Running(Limits(header_timeout=1, body_timeout=1, connections_per_client=12,
                                exempt_loopback=False, collect_after=sys.maxsize))
        try:
            base = f"http://127.0.0.1:{served.port}"
            with httpx.Client() as client:
                made = client.post(f"{base}/api/games", json={"seed": 3, "coach": True}).json()
                game, secret = made["game"], made["links"][0]["secret"]
                version = client.get(f"{base}/api/games/{game}",
                                     headers={"X-Seat-Secret": secret}).json()["version"]
            poll = (f"GET /api/games/{game}?after={version} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"X-Seat-Secret: {secret}\r\n\r\n").encode()
            assert cycles_of_ours() == []  # what the start and the new game left, if anything
            dropped = [open_connection(served.port) for _ in range(3)]
            for conn in dropped:
                conn.sendall(poll)  # the person's page closed while it waited
            kept = open_connection(served.port)
            kept.sendall(poll)  # waited out: answered with the same state
            cut = open_connection(served.port)
            cut.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.")
            idle = open_connection(served.port)
            slow = open_connection(served.port)
            slow.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{")
            time.sleep(0.1)
            for conn in (*dropped, cut):
                conn.close()
            assert b"HTTP/1.1 200" in kept.recv(65536)
            assert closed_within(idle, 4) is not None
            assert closed_within(slow, 4) is not None
            time.sleep(0.6)  # every dropped poll waited out, its answer sent nowhere
            assert cycles_of_ours() == []
            with httpx.Client() as client:  # the server still serves the game
                assert client.get(f"{base}/api/games/{game}", headers={
                    "X-Seat-Secret": secret}).json()["version"] == version
            kept.close()
        finally:
            served.stop()


def test_a_server_turns_the_collector_s_passes_off_and_never_passes_over_what_its_start_made(
) -> None:
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    made_at_start = [{"a container": [1, 2]}]
    gc.disable()
    left = rings(10)  # garbage of the start: freed, not frozen
    try:
        collect_rarely()
        assert not gc.isenabled()
        assert left() is None
        assert gc.get_freeze_count() >= frozen + 3  # the list, the dict and the inner list
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()
        del made_at_start


class Ring:
    """An object that refers to itself: only the garbage collector frees it."""

    def __init__(self) -> None:
        self.me = self


def rings(count: int) -> weakref.ref[Ring]:
    """Let go of ``count`` rings; return a weak reference to the first."""
    made = [Ring() for _ in range(count)]
    first = weakref.ref(made[0])
    del made
    return first


@pytest.fixture
def quick_looks(monkeypatch: pytest.MonkeyPatch) -> float:
    """Let ``WebTable.collect`` look every 50 ms; return that."""
    monkeypatch.setattr(server, "COLLECT_CHECK", 0.05)
    return server.COLLECT_CHECK


@pytest.mark.parametrize("capacity", [1, 200])
def test_a_server_without_the_collector_s_passes_frees_cycles_once_more_objects_pile_up_than_its_games_explain(  # noqa: E501
        data: Path, quick_looks: float, capacity: int) -> None:
    """``WebTable.collect`` passes once ``collect_after`` more objects live than at its last,
    or more than ``OBJECTS_PER_GAME`` for each game the server may hold: 200,000 for 200."""
    assert server.OBJECTS_PER_GAME * 200 > 60_000 > 5_000 > server.OBJECTS_PER_GAME
    with collector_off():
        with TestClient(make_app(delay=0, capacity=capacity,
                                 limits=Limits(collect_after=5_000))) as client:
            gc.collect()  # what the start made is counted no more
            few = rings(100)  # too few for a pass
            time.sleep(5 * quick_looks)
            assert few() is not None
            many = rings(20_000)
            live: list[list[int]] = [[] for _ in range(10_000)]  # over 5,000 after the rings
            deadline = time.monotonic() + (100 if capacity == 1 else 20) * quick_looks
            while many() is not None and time.monotonic() < deadline:
                time.sleep(quick_looks / 5)
            if capacity == 1:
                assert few() is None and many() is None
            else:  # some 50,000 objects more: fewer than 200 games explain
                assert few() is not None and many() is not None
            assert len(live) == 10_000
            assert client.get("/api/options").status_code == 200
        gc.collect()


def test_a_server_with_the_collector_s_passes_on_leaves_them_to_it(
        data: Path, quick_looks: float) -> None:
    """Only a server whose own passes are off (``collect_rarely``) passes by itself."""
    gc.collect()
    before = gc.get_threshold()
    gc.set_threshold(0)  # on, but passing never by itself
    try:
        with TestClient(make_app(delay=0, limits=Limits(collect_after=1_000))):
            left = rings(2_000)
            time.sleep(5 * quick_looks)
            assert left() is not None
    finally:
        gc.set_threshold(*before)
        gc.collect()


def test_a_move_made_on_the_loop_is_saved_while_every_worker_thread_waits_for_its_game(
        data: Path) -> None:
    """The move holds its game until saved; the save must not queue behind those waiting."""
    games = BrowserGames(Solvers(), Problems())
    made = games.create(Settings(get_variant("yahtzee", "official"), (HUMAN,), ("Ann",), 3,
                                 coach=False))
    table, secret = made.table, made.secrets[0][0]
    table.act(secret, Move.toggle(1))  # a first move in a thread: the next may be made at once

    async def scenario() -> tuple[GameView, GameView]:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(1))
        made_now = table.act_at_once(secret, Move.roll())
        assert made_now is not None and table.lock.locked()
        looking = asyncio.ensure_future(in_thread(table.view))
        await asyncio.sleep(0.05)  # the only worker thread now waits for the game
        try:
            await asyncio.wait_for(in_save_thread(table.keep_move), 10)
        finally:
            if table.lock.locked() and not looking.done():
                table.lock.release()  # the save never ran: free the waiting thread
        return made_now, await asyncio.wait_for(looking, 10)

    made_now, seen = asyncio.run(scenario())
    assert seen == made_now and seen.rolls_left == 1
    assert SaveStore(problems=Problems()).load(table.saver.save_id or 0).snapshot == (
        table.live.engine.record())
    games.close()
