"""Browser-table load benchmark: many games at once through a live server, on loopback.

Run from the project root (the web extra installed)::

    python benchmarks/bench_web.py                 # 100 games, text summary
    python benchmarks/bench_web.py --games 20 --json

It starts ``python -m yahtzee serve`` on a free port of 127.0.0.1 with a
fresh data folder (a computer's turn played back ``--delay`` seconds a move), then plays
``--games`` games at the same time, each a person against the computer with
the coach on (``--coach half``: every other game, as the first measure of
the table's cost was taken; ``none``: no game), under course rules (the
API's defaults), by scripted clients (``benchmarks/web_load.py``: plain
HTTP/1.1, one keep-alive connection per game, in one asyncio process): on
each of its turns a client saves die 1, rolls, scores, and takes the box
worth most, waiting ``--think`` seconds before each move (0 sends the next
move as soon as the last is answered, which measures throughput rather than
what a person waits).  Every move is timed from sending it to its answer
(the answer carries the whole new state, the coach's advice included, and
comes once the move's save is on disk).  It prints the games, the moves, the
errors (any answer other than 200, a broken connection), the median, p90,
p99 and longest answer time, the server's processor time (user + system,
from ``/proc/<pid>/stat``) in all and during the load alone (once a first
game's coach had its tables: their loading is left out; that game is left
unplayed), the latter per move of the person (``server_cpu_ms_per_move``:
the computer's commands and the pages' long polls are part of what each move
costs), the server's peak resident memory (``server_peak_memory_mb``), then
the processor time of one request (``request_cpu_ms``:
``/api/options``, and a look at a table drawn already, each 1,000 times on
one connection), and what was lost: every game must finish and be filed once
in the history, with no save left over. The solver's tables must be in the
cache folder already (any game with the coach builds them once).
``--source`` serves another copy of the project to the same clients, to
compare two versions.  ``--steady SECONDS`` keeps ``--games`` games going
that long instead, each client starting a new game when its game ends, and
times only the moves made once every client has started (``RAMP``): games
started together also end together, and a game's last move (its filing)
costs the most, so that the tail of a run of games started at once is
their ends.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.web_load import (answer_times, keep_playing, lost,  # noqa: E402
                                 peak_memory_mb, play_games, request_cost, server_cpu,
                                 start_server, warm_up)


RAMP = 60.0
"""Seconds over which ``--steady`` starts its clients (a game lasts some 75 s at one move a
second); the moves sent before are not timed, nor is the rate counted over them."""

FIRST_ERRORS = 5
"""How many of the clients' failures the figures quote word for word (the rest are counted)."""

COACH_EVERY = {"all": 1, "half": 2, "none": 0}
"""How ``--coach`` chooses the coached games: every n-th game (0: none)."""


def run(games: int, think: float, delay: float, source: Path = ROOT,
        coach: str = "all", jitter: float = 0.0, steady: float | None = None
        ) -> dict[str, Any]:
    """Start a server, play ``games`` games at once through it, and return the figures.

    The server runs the code of the project folder ``source``; ``coach``
    (a key of ``COACH_EVERY``) says which games have the coach; ``jitter``
    spreads the think times (``web_load.play_one``).  With ``steady``
    (seconds), ``games`` games are kept going that long, started over the
    first ``RAMP`` seconds (``web_load.keep_playing``), and the answer
    times are those of the moves sent from then until ``steady``.
    """
    with tempfile.TemporaryDirectory(prefix="yahtzee-bench-web-") as folder:
        data = Path(folder) / "data"
        process, url = start_server(data, capacity=max(games, 1) * 2, delay=delay,
                                    source=source)
        try:
            warm = asyncio.run(warm_up(url))
            cpu_before = server_cpu(process.pid)
            started, client_started = time.perf_counter(), time.process_time()
            every = COACH_EVERY[coach]
            if steady is None:
                load = asyncio.run(play_games(url, games, think=think, coach=every > 0,
                                              coach_every=max(every, 1), jitter=jitter))
            else:
                load = asyncio.run(keep_playing(url, games, steady, think=think,
                                                coach_every=every, jitter=jitter, ramp=RAMP))
            seconds = time.perf_counter() - started
            client = time.process_time() - client_started
            cpu = server_cpu(process.pid)
            memory = peak_memory_mb(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=60)
        problems = lost(data, load, games if steady is None else len(load.secrets),
                        left=(warm,))
        process, url = start_server(Path(folder) / "requests", capacity=4, delay=delay,
                                    source=source)  # a server of its own: its game stays
        try:
            requests = asyncio.run(request_cost(url, process.pid))
        finally:
            process.terminate()
            process.wait(timeout=60)
    during = cpu - cpu_before
    window = (started + RAMP, started + steady) if steady is not None else (started, math.inf)
    times = [t for t, sent in zip(load.times, load.sent) if window[0] <= sent < window[1]]
    return {"games": games, "coach": coach, "think_seconds": think, "jitter": jitter,
            "computer_delay": delay, "steady_seconds": steady,
            "games_played": len(load.secrets), "moves_timed": len(times),
            "moves": len(load.times), "seconds": round(seconds, 2),
            "moves_per_second": round(len(load.times) / seconds if steady is None
                                      else len(times) / (steady - RAMP), 1),
            **answer_times(times), "errors": len(load.failures),
            "first_errors": load.failures[:FIRST_ERRORS],
            "server_cpu_seconds": round(cpu, 1),
            "server_cpu_load_seconds": round(during, 2),
            "server_cpu_ms_per_move": round(during / max(len(load.times), 1) * 1000, 2),
            "client_cpu_seconds": round(client, 1),
            "server_peak_memory_mb": round(memory, 1),
            "request_cpu_ms": requests,
            "load_average": round(os.getloadavg()[0], 2), "lost": problems}


def main() -> int:
    """Run the benchmark and print its figures; status 1 if anything was lost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games at once (default 100)")
    parser.add_argument("--think", type=float, default=1.0,
                        help="seconds each client waits before a move (default 1; 0 floods "
                             "the server to measure its throughput)")
    parser.add_argument("--delay", type=float, default=0.5,
                        help="the pace of a computer's moves (default 0.5, as served: the "
                             "server plays a turn at once, and the clients wait as long as a "
                             "page plays it back; 0 plays the turns as fast as it can)")
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="serve the code of another copy of the project (to compare two "
                             "versions with the same clients; default: this one)")
    parser.add_argument("--coach", choices=tuple(COACH_EVERY), default="all",
                        help="which games have the coach: all (default), half (every other "
                             "one) or none")
    parser.add_argument("--jitter", type=float, default=0.0,
                        help="spread each think time evenly over THINK times 1 - JITTER to "
                             "1 + JITTER (0 to 1; default 0: every client waits exactly THINK, "
                             "so games started together move in step)")
    parser.add_argument("--steady", type=float, default=None, metavar="SECONDS",
                        help=f"keep GAMES games going for SECONDS (over {RAMP:.0f}): each "
                             "client starts a new game when its ends, the clients start "
                             f"over the first {RAMP:.0f} s, and only the moves after that are "
                             "timed (default: GAMES games started at once, timed to their end)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not 0 <= args.jitter <= 1:
        parser.error("--jitter must be between 0 and 1")
    if args.steady is not None and args.steady <= RAMP:
        parser.error(f"--steady must be more than {RAMP:.0f} seconds")
    figures = run(args.games, args.think, args.delay, args.source.resolve(), args.coach,
                  args.jitter, args.steady)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        spread = f" \u00b1 {args.jitter:.0%}" if args.jitter else ""
        print(f"{figures['games']} games at once (coach: {args.coach}), {args.think} s{spread} "
              f"before each move, computer "
              f"moves {args.delay} s apart, "
              f"{figures['moves']} moves in "
              f"{figures['seconds']} s ({figures['moves_per_second']} moves/s), "
              f"{figures['errors']} errors")
        if args.steady is not None:
            print(f"kept going for {args.steady:.0f} s: {figures['games_played']} games played, "
                  f"the {figures['moves_timed']} moves sent after the first {RAMP:.0f} s timed")
        print(f"answer time per move: median {figures['median_ms']} ms, p90 "
              f"{figures['p90_ms']} ms, p99 {figures['p99_ms']} ms, max {figures['max_ms']} ms")
        print(f"processor time: server {figures['server_cpu_seconds']} s, clients "
              f"{figures['client_cpu_seconds']} s; load average "
              f"{figures['load_average']}")
        print(f"server processor time per move of the person: "
              f"{figures['server_cpu_ms_per_move']} ms ({figures['server_cpu_load_seconds']} s "
              f"during the load / {figures['moves']} moves)")
        print(f"server's peak resident memory: {figures['server_peak_memory_mb']} MB")
        print(f"server processor time of one request: {figures['request_cpu_ms']['options']} "
              f"ms (/api/options), {figures['request_cpu_ms']['look']} ms (a look at a drawn "
              f"table)")
        for error in figures["first_errors"]:
            print(f"error: {error}")
        print("nothing lost" if not figures["lost"] else "LOST: " + "; ".join(figures["lost"]))
    return 1 if figures["lost"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
