"""Scripted clients of the browser table: a live server, games played at once, what was lost.

Shared by the load test (``tests/interfaces/test_web_load.py``) and the
benchmark (``benchmarks/bench_web.py``).  Each client plays one game as its
person against the optimal computer: on each of its turns it saves die 1,
rolls, scores, and takes the box worth most, timing every move from sending
it to its answer.
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.web_helpers import best_box

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Load:
    """What the clients saw: each move's answer time (seconds) and every failure."""

    times: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    """The IDs of the games played to their end."""


def start_server(data: Path, *, capacity: int = 200, delay: float = 0.0,
                 cache: Path | None = None, port: int = 0) -> tuple[subprocess.Popen[str], str]:
    """Start the server with the data folder ``data``; return it and its address.

    ``cache`` is the solver tables' folder (default: the usual one); ``port``
    0 takes a free one.
    """
    env = dict(os.environ, YAHTZEE_DATA_DIR=str(data), PYTHONPATH=str(ROOT))
    if cache is not None:
        env["YAHTZEE_CACHE_DIR"] = str(cache)
    process = subprocess.Popen(
        [sys.executable, "-m", "yahtzee", "serve", "--port", str(port), "--delay", str(delay),
         "--max-games", str(capacity)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 60)
    line = process.stdout.readline() if ready else ""
    found = re.search(r"http://127\.0\.0\.1:\d+", line)
    if found is None:
        process.kill()
        raise RuntimeError(f"the server printed no address: {line!r}")
    return process, found.group(0)


def server_cpu(pid: int) -> float:
    """Return the processor time the server has used so far, in seconds (Linux; else 0)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def play_one(client: Any, load: Load, seed: int, think: float, coach: bool) -> None:
    """Play one game as its person, through the API, timing every move.

    The client waits ``think`` seconds before each move, as a (very fast) person would.
    """
    made = await client.post("/api/games", json={"seed": seed, "coach": coach})
    if made.status_code != 201:
        load.failures.append(f"new game: {made.status_code} {made.text}")
        return
    game, secret = made.json()["game"], made.json()["links"][0]["secret"]
    headers = {"X-Seat-Secret": secret}

    async def send(**body: Any) -> dict[str, Any] | None:
        """Send one move and time it; None (failure noted) if it is not accepted."""
        await asyncio.sleep(think)
        started = time.perf_counter()
        answer = await client.post(f"/api/games/{game}/moves", json=body, headers=headers)
        load.times.append(time.perf_counter() - started)
        if answer.status_code != 200:
            load.failures.append(f"{game} {body}: {answer.status_code} {answer.text}")
            return None
        state: dict[str, Any] = answer.json()
        return state

    state: dict[str, Any] = (await client.get(f"/api/games/{game}", headers=headers)).json()
    while True:
        while state["turn"] is not None and state["turn"] not in state["you"]:
            polled = await client.get(f"/api/games/{game}?after={state['version']}",
                                      headers=headers)
            state = polled.json()
        if state["turn"] is None:
            break
        for body in ({"action": "toggle", "die": 1}, {"action": "roll"}, {"action": "score"}):
            got = await send(**body)
            if got is None:
                return
            state = got
            if state["phase"] == "scoring":
                break
        got = await send(action="box", box=best_box(state))
        if got is None:
            return
        state = got
    load.finished.append(game)


async def play_games(url: str, games: int, *, think: float = 0.0, coach: bool = True,
                     first_seed: int = 1) -> Load:
    """Play ``games`` games at once against the server at ``url``; return what was seen."""
    import httpx
    load = Load()
    limits = httpx.Limits(max_connections=games * 2, max_keepalive_connections=games * 2)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        await asyncio.gather(*(play_one(client, load, first_seed + n, think, coach)
                               for n in range(games)))
    return load


def lost(data: Path, load: Load, games: int) -> list[str]:
    """Return what was lost: games not finished or not filed once, saves left over."""
    from yahtzee.storage.history import HISTORY_FILE, History
    from yahtzee.storage.saves import SaveStore

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
    filed = sorted(g.uid for g in History(data / HISTORY_FILE, problems=quiet).games())
    if filed != sorted(load.finished):
        problems.append(f"{len(filed)} games filed for {len(load.finished)} finished")
    left = SaveStore(data / "saves", problems=quiet).unfinished()
    if left:
        problems.append(f"{len(left)} saves left over")
    return problems + quiet.reports
