"""Scripted clients of the browser table: a live server, games played at once, what was lost.

Used by the benchmark (``benchmarks/bench_web.py``) and by the tests that
drive a live server (``tests/interfaces/test_web_load.py``, the browser
tests).  Each client plays one game as its person against the computer
(the API's default players; the rules are the API's default, course, unless
``rules`` is given), as a page does: it waits for its turn with
long polls, then on each turn saves die 1, rolls, scores, and takes the box
worth most, timing every move from sending it to its answer.

The clients speak plain HTTP/1.1 over one keep-alive connection per game,
with asyncio's streams: each request is one write, each answer is read by
its ``Content-Length`` and parsed as JSON.  A general client (httpx) spends
a few milliseconds of processor time per request, on the same two cores
as the server it measures, and its own queueing would be counted in the
answer times; this one spends a small fraction of that.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import os
import random
import re
import select
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parent.parent
SEAT_HEADER = "X-Seat-Secret"


@dataclass
class Load:
    """What the clients saw: each move's answer time (seconds) and every failure."""

    times: list[float] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)
    """When each timed move was sent (``time.perf_counter``), in the order of ``times``."""
    failures: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    """The IDs of the games played to their end."""
    secrets: dict[str, str] = field(default_factory=dict)
    """Each game's seat secret, by game ID."""
    seen: dict[str, int] = field(default_factory=dict)
    """The latest version of each game that the server showed (in an answer or a poll)."""


class HttpError(Exception):
    """An answer the client cannot read (the connection closed, no length, not JSON)."""


def best_box(state: dict[str, Any]) -> int:
    """Return the menu number of the box worth most now for the seat to play (lowest of equals)."""
    boxes = state["players"][state["turn"] - 1]["boxes"]
    offered = [(box["now"], -box["number"]) for box in boxes if box["now"] is not None]
    return int(-max(offered)[1])


def next_move(state: dict[str, Any]) -> dict[str, Any]:
    """Return the scripted person's next move: save die 1, roll, score, take the best box.

    The move follows from the state alone, so that a game taken up again in
    the middle of a turn goes on the same way.
    """
    if state["phase"] == "scoring":
        return {"action": "box", "box": best_box(state)}
    if state["rolls_left"] == 2 and not state["saved"][0]:
        return {"action": "toggle", "die": 1}
    if state["rolls_left"] == 2:
        return {"action": "roll"}
    return {"action": "score"}


class Client(Protocol):
    """What a scripted client sends its requests through (``Connection``, or the application
    itself in ``bench_app.py``)."""

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """Send one request (``body`` as JSON); return the answer's status and JSON."""
        ...

    async def close(self) -> None:
        """Let go of what the requests held (the next request starts afresh)."""
        ...


class Connection:
    """One keep-alive HTTP/1.1 connection to the server, one request at a time."""

    def __init__(self, url: str) -> None:
        """Connect (at the first request) to the server at ``url`` (``http://host:port``)."""
        found = re.fullmatch(r"http://([^:/]+):(\d+)/?", url)
        if found is None:
            raise ValueError(f"not a server address: {url!r}")
        self.host, self.port = found.group(1), int(found.group(2))
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """Send one request (``body`` as JSON); return the answer's status and JSON.

        A GET is sent again, once, on a new connection if the server had
        closed the old one; ``HttpError`` for an answer that cannot be read.
        """
        payload = b"" if body is None else json.dumps(body).encode("utf-8")
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 f"Content-Length: {len(payload)}"]
        if body is not None:
            lines.append("Content-Type: application/json")
        lines.extend(f"{name}: {value}" for name, value in (headers or {}).items())
        message = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload
        retry = method == "GET" and self.writer is not None
        try:
            return await self._exchange(message)
        except (HttpError, OSError):
            await self.close()
            if not retry:
                raise
        return await self._exchange(message)

    async def _exchange(self, message: bytes) -> tuple[int, Any]:
        """Write ``message`` and read its answer, connecting first if need be."""
        if self.writer is None or self.reader is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(message)
        status_line = await self.reader.readline()
        parts = status_line.split(b" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise HttpError(f"no answer ({status_line!r})")
        length: int | None = None
        closing = False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value.strip())
            elif name == "connection":
                closing = value.strip().lower() == "close"
        if length is None:
            raise HttpError("an answer without Content-Length")
        try:
            raw = await self.reader.readexactly(length)
        except asyncio.IncompleteReadError:
            raise HttpError("the answer was cut short") from None
        if closing:
            await self.close()
        try:
            return int(parts[1]), json.loads(raw) if raw else None
        except ValueError:
            raise HttpError(f"an answer that is not JSON: {raw[:80]!r}") from None

    async def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        writer, self.reader, self.writer = self.writer, None, None
        if writer is not None:
            writer.close()
            try:
                await writer.wait_closed()
            except OSError:
                pass


def start_server(data: Path, *, capacity: int = 200, delay: float = 0.0,
                 cache: Path | None = None, port: int = 0, source: Path = ROOT,
                 database: str | None = None,
                 workers: int = 1) -> tuple[subprocess.Popen[str], str]:
    """Start the server with the data folder ``data``; return it and its address.

    ``cache`` is the solver tables' folder (default: the usual one); ``port``
    0 takes a free one; ``source`` is the project folder whose code is served;
    ``database`` a PostgreSQL URL to keep the games in (handed over in
    ``YAHTZEE_DATABASE``), served by ``workers`` processes (see ``worker_pids``).
    """
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(data), PYTHONPATH=str(source))
    env.pop("YAHTZEE_DATABASE", None)
    if database is not None:
        env["YAHTZEE_DATABASE"] = database
    if cache is not None:
        env["YAHTZEE_CACHE_DIR"] = str(cache)
    process = subprocess.Popen(
        [sys.executable, "-m", "yahtzee", "serve", "--port", str(port), "--delay", str(delay),
         "--max-games", str(capacity), "--workers", str(workers)],
        cwd=source, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 60)
    line = process.stdout.readline() if ready else ""
    found = re.search(r"http://127\.0\.0\.1:\d+", line)
    if found is None:
        process.kill()
        raise RuntimeError(f"the server printed no address: {line!r}")
    return process, found.group(0)


def worker_pids(pid: int) -> list[int]:
    """Return the worker processes of the server ``pid`` (``--workers``; Linux), else ``[pid]``."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [int(child) for child in children] or [pid]


def tcp_sockets(pid: int, port: int, state: str) -> int:
    """Return how many TCP sockets of process ``pid`` on local ``port`` are in ``state``.

    ``state`` is the kernel's code (``"0A"``: listening, ``"01"``: a
    connection established); Linux's ``/proc``, 0 elsewhere.
    """
    try:
        owned = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    except OSError:
        return 0
    found = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if (fields[3] == state and int(fields[1].rsplit(":", 1)[1], 16) == port
                    and f"socket:[{fields[9]}]" in owned):
                found += 1
    return found


def peak_memory_mb(pid: int) -> float:
    """Return the most resident memory process ``pid`` has held so far, in MB (``VmHWM``).

    Linux's ``/proc``; 0 elsewhere, or once the process is gone (read it before stopping it).
    """
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0
    for line in lines:
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def answer_times(times: Sequence[float], digits: int = 2) -> dict[str, float]:
    """Return the median, p90, p99 and longest of ``times`` (seconds) in milliseconds.

    The percentiles are interpolated between the answers measured
    (``statistics.quantiles``' inclusive method), so none exceeds the
    longest, however few the answers; no answers give NaN throughout.
    Each is rounded to ``digits`` decimals.
    """
    ordered = sorted(times) or [math.nan]
    cuts = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 \
        else ordered * 99
    return {"median_ms": round(statistics.median(ordered) * 1000, digits),
            "p90_ms": round(cuts[89] * 1000, digits), "p99_ms": round(cuts[98] * 1000, digits),
            "max_ms": round(ordered[-1] * 1000, digits)}


def server_cpu(pid: int) -> float:
    """Return the processor time the server has used so far, in seconds (Linux; else 0)."""
    return stat_cpu(Path(f"/proc/{pid}/stat")) or 0.0


def stat_cpu(path: Path) -> float | None:
    """Return the processor time (user + system, s) in a process's or thread's ``stat`` file
    (``/proc/<pid>/stat``, ``/proc/self/task/<tid>/stat``); None if it cannot be read."""
    try:
        fields = path.read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def play_one(url: str, load: Load, seed: int, think: float, coach: bool,
                   game: str | None = None, rules: str | None = None,
                   jitter: float = 0.0, connect: Callable[[str], Client] = Connection) -> None:
    """Play one game as its person, through the API, timing every move.

    The client waits ``think`` seconds before each move, as a (very fast)
    person would; with ``jitter`` (0 to 1) each wait is drawn evenly from
    ``think`` times 1 - ``jitter`` to 1 + ``jitter`` (the same mean; seeded
    by the game), so that games started together do not move in step.
    With ``game`` (an ID in ``load.secrets``) it goes on with that game
    instead of starting one with ``seed`` and ``coach`` (under ``rules``;
    None: the API's default).  ``connect`` makes the client for ``url``.
    """
    connection = connect(url)
    form: dict[str, Any] = {"seed": seed, "coach": coach}
    if rules is not None:
        form["rules"] = rules
    try:
        if game is None:
            status, made = await connection.request("POST", "/api/games", form)
            if status != 201:
                load.failures.append(f"new game: {status} {made}")
                return
            game = str(made["game"])
            load.secrets[game] = made["links"][0]["secret"]
        await _play(connection, load, game, think, jitter)
    except (HttpError, OSError) as error:
        load.failures.append(f"{game or seed}: {type(error).__name__}: {error}")
    finally:
        await connection.close()


def _note(load: Load, game: str, state: dict[str, Any]) -> dict[str, Any]:
    """Note the version of ``state`` as seen; return it."""
    load.seen[game] = max(load.seen.get(game, 0), int(state["version"]))
    return state


async def _play(connection: Client, load: Load, game: str, think: float,
                jitter: float = 0.0) -> None:
    """Play ``game`` to its end on ``connection``, as ``play_one`` says."""
    headers = {SEAT_HEADER: load.secrets[game]}
    pace = random.Random(game)

    async def send(**body: Any) -> dict[str, Any] | None:
        """Send one move and time it; None (failure noted) if it is not accepted."""
        await asyncio.sleep(think * (1 + jitter * (2 * pace.random() - 1)))
        started = time.perf_counter()
        status, answer = await connection.request("POST", f"/api/games/{game}/moves", body,
                                                  headers)
        load.times.append(time.perf_counter() - started)
        load.sent.append(started)
        if status != 200:
            load.failures.append(f"{game} {body}: {status} {answer}")
            return None
        return _note(load, game, answer)

    async def poll(after: int | None = None) -> dict[str, Any]:
        """Return the game's state (once its version passes ``after``)."""
        query = "" if after is None else f"?after={after}"
        status, answer = await connection.request("GET", f"/api/games/{game}{query}",
                                                  headers=headers)
        if status != 200:
            raise HttpError(f"state: {status} {answer}")
        return _note(load, game, answer)

    state = await poll()
    while True:
        while state["turn"] is not None and state["turn"] not in state["you"]:
            before, state = state, await poll(state["version"])
            await asyncio.sleep(playback_seconds(before, state))
        if state["turn"] is None:
            break
        got = await send(**next_move(state))
        if got is None:
            return
        state = got
    load.finished.append(game)


def playback_seconds(before: dict[str, Any], after: dict[str, Any]) -> float:
    """Return how long a page plays back the computer's moves that ``after`` brings.

    A page draws each move that ``after`` brings but the last, ``pace``
    seconds apart, before it draws ``after``, when those are a computer's re-rolls
    (``app.js``, ``framesOf``): the person can move only then, so a client
    waits as long.
    """
    seen = max((step["made"] for step in before.get("steps", ())), default=-1)
    fresh = [step for step in after.get("steps", ()) if step["made"] > seen]
    moves = sorted({step["made"] for step in fresh})[:-1]
    players = after["players"]
    if len(moves) > MOST_FRAMES or not all(players[step["seat"] - 1]["computer"]
                                           and step["box"] is None
                                           for step in fresh if step["made"] in moves):
        return 0.0
    return float(after.get("pace", 0.0)) * len(moves)


PAGE_SCRIPT = ROOT / "yahtzee" / "interfaces" / "web" / "static" / "app.js"
"""The page's script, as served (``server.STATIC``), in this copy of the project."""


def page_constant(name: str) -> int:
    """Return the whole-number constant ``name`` as the page's script (``app.js``) defines it.

    Read from the script itself, so that the clients play back what pages do
    with no second copy of the number to keep in step.  It is this copy's
    script: with ``bench_web.py --source`` the pages served may run
    another's.  ``LookupError`` if the script defines no such constant.
    """
    script = PAGE_SCRIPT.read_text(encoding="utf-8")
    found = re.search(rf"^\s*const\s+{re.escape(name)}\s*=\s*(\d+)\s*;", script, re.MULTILINE)
    if found is None:
        raise LookupError(f"app.js defines no constant {name}")
    return int(found.group(1))


MOST_FRAMES = page_constant("MOST_FRAMES")
"""The most moves a page plays back before a state (``app.js``'s ``MOST_FRAMES``)."""


async def play_games(url: str, games: int, *, think: float = 0.0, coach: bool = True,
                     first_seed: int = 1, load: Load | None = None,
                     rules: str | None = None, coach_every: int = 1,
                     jitter: float = 0.0, connect: Callable[[str], Client] = Connection
                     ) -> Load:
    """Play ``games`` games at once against the server at ``url``; return what was seen.

    The games are played under ``rules`` (None: the API's default); with
    ``coach``, every ``coach_every``-th game has the coach (2: the first,
    third, ...; the others are played without it); ``jitter`` as for
    ``play_one``.  With
    ``load``, the games of ``load.secrets`` not yet finished are played on
    to their end instead (``games`` and the rest unused), noted in ``load``.
    """
    if load is not None:
        going = [game for game in load.secrets if game not in load.finished]
        await asyncio.gather(*(play_one(url, load, 0, think, coach, game, jitter=jitter,
                                        connect=connect)
                               for game in going))
        return load
    load = Load()
    await asyncio.gather(*(play_one(url, load, first_seed + n, think,
                                    coach and n % coach_every == 0, rules=rules,
                                    jitter=jitter, connect=connect)
                           for n in range(games)))
    return load


async def keep_playing(url: str, games: int, seconds: float, *, think: float,
                       coach_every: int = 0, jitter: float = 0.0,
                       ramp: float = 60.0) -> Load:
    """Keep ``games`` games going for ``seconds``: each client starts a new game when its ends.

    The clients start one after another, evenly over the first ``ramp``
    seconds, so that their games end at different times, as people's do;
    from then on ``games`` games are played at once.  No game is started
    after ``seconds``; those going then are played to their end.  Every
    ``coach_every``-th game has the coach (0: none); seeds are 1, 2, ...
    in the order the games are started.
    """
    load = Load()
    start = time.perf_counter()
    seeds = itertools.count(1)

    async def client(n: int) -> None:
        """Play game after game, from the client's turn in the ramp until ``seconds``."""
        await asyncio.sleep(ramp * n / max(games, 1))
        while time.perf_counter() - start < seconds:
            seed, failed = next(seeds), len(load.failures)
            await play_one(url, load, seed, think,
                           coach_every > 0 and seed % coach_every == 1 % coach_every,
                           jitter=jitter)
            if len(load.failures) > failed:
                return  # told in the figures; no new game after a failure

    await asyncio.gather(*(client(n) for n in range(games)))
    return load


async def play_and_kill(url: str, games: int, after: int, kill: Callable[[], None]) -> Load:
    """Play ``games`` games at once (no pause, no coach); ``kill()`` once every game exists
    and ``after`` more moves were answered; return what the clients saw, to the end."""
    load = Load()
    players = asyncio.gather(*(play_one(url, load, seed, 0.0, False)
                               for seed in range(1, games + 1)))
    while len(load.secrets) < games and not players.done():
        await asyncio.sleep(0.005)
    counted_from = len(load.times)
    while len(load.times) < counted_from + after and not players.done():
        await asyncio.sleep(0.005)
    kill()
    await players
    return load


async def coached_game(connection: Client) -> tuple[str, dict[str, str]]:
    """Make a seeded game of a person against the computer, with the coach; return its ID
    and the headers that act for its person."""
    status, made = await connection.request("POST", "/api/games", {"seed": 1, "coach": True})
    if status != 201:
        raise HttpError(f"new game: {status} {made}")
    return str(made["game"]), {SEAT_HEADER: made["links"][0]["secret"]}


async def warm_up(url: str, seconds: float = 300.0,
                  connect: Callable[[str], Client] = Connection) -> str:
    """Make a game with the coach and wait until its tables are loaded; return its ID.

    So that the server's processor time measured afterwards leaves out the
    loading (or building) of the solver's tables.  The game is left as it is.
    ``connect`` makes the client for ``url``.
    """
    connection = connect(url)
    try:
        game, seat = await coached_game(connection)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            status, state = await connection.request("GET", f"/api/games/{game}", headers=seat)
            if status == 200 and state.get("win_chances") is not None:
                return game
            await asyncio.sleep(0.2)
        raise HttpError("the coach's tables were not ready in time")
    finally:
        await connection.close()


async def request_cost(url: str, pid: int, count: int = 1000) -> dict[str, float]:
    """Return the server's processor time, in ms, of one request of each kind, on one
    keep-alive connection: ``options`` (``/api/options``, almost nothing to do) and
    ``look`` (a page's look at a new coached game, its table drawn already)."""
    connection = Connection(url)
    try:
        game, seat = await coached_game(connection)
        look = f"/api/games/{game}"
        await connection.request("GET", look, headers=seat)
        cost = {}
        for name, path, headers in (("options", "/api/options", {}), ("look", look, seat)):
            before = server_cpu(pid)
            for _ in range(count):
                status, answer = await connection.request("GET", path, headers=headers)
                if status != 200:
                    raise HttpError(f"{path}: {status} {answer}")
            cost[name] = round((server_cpu(pid) - before) / count * 1000, 3)
        return cost
    finally:
        await connection.close()


async def versions(url: str, load: Load) -> dict[str, int]:
    """Return the version the server at ``url`` now shows of each unfinished game of ``load``.

    ``HttpError`` if a game is not answered (after a restart, or by a
    surviving server process, every game must be).
    """
    connection = Connection(url)
    found = {}
    try:
        for game, secret in load.secrets.items():
            if game not in load.finished:
                status, state = await connection.request("GET", f"/api/games/{game}",
                                                         headers={SEAT_HEADER: secret})
                if status != 200:
                    raise HttpError(f"{game}: {status} {state}")
                found[game] = int(state["version"])
    finally:
        await connection.close()
    return found


def lost(data: Path, load: Load, games: int, database: str | None = None,
         left: Sequence[str] = ()) -> list[str]:
    """Return what was lost: games not finished or not filed once, saves left over.

    The games are looked for in ``database`` (a PostgreSQL URL) if given,
    else in the data folder ``data``; the games ``left`` (IDs) were meant to stay.
    """
    from yahtzee.storage.files import FileStorage
    from yahtzee.storage.port import open_storage

    class Quiet:
        """Storage reports, kept."""

        def __init__(self) -> None:
            """Start with none."""
            self.reports: list[str] = []

        def damaged_file(self, *args: Any) -> None:
            """Keep a damaged file's report."""
            self.reports.append(f"damaged {args}")

        def cannot_save(self, error: Exception) -> None:
            """Keep a failure to save."""
            self.reports.append(f"cannot save {error}")

        def damaged_game(self, *args: Any) -> None:
            """Keep a damaged game's report."""
            self.reports.append(f"damaged game {args}")

        def filed_twice(self, *args: Any) -> None:
            """Keep a game filed twice."""
            self.reports.append(f"filed twice {args}")

    quiet = Quiet()
    problems = list(load.failures)
    if len(load.finished) != games:
        problems.append(f"{games - len(load.finished)} games not finished")
    storage = (open_storage(database, quiet) if database is not None
               else FileStorage(data, problems=quiet))
    try:
        filed = sorted(g.uid for g in storage.history().games())
        kept = [save for save in storage.saves().unfinished() if save.uid not in left]
    finally:
        storage.close()
    if filed != sorted(load.finished):
        problems.append(f"{len(filed)} games filed for {len(load.finished)} finished")
    if kept:
        problems.append(f"{len(kept)} saves left over")
    return problems + quiet.reports
