"""Processor time of a person's move played in one process, without HTTP, on PostgreSQL.

Run by ``benchmarks/bench_shared_tables.py`` (as a script, so that the
``yahtzee`` package it measures is the one ``PYTHONPATH`` names: this
project's or an older copy's)::

    python benchmarks/move_cpu.py URL own --games 6
    python benchmarks/move_cpu.py URL forked --games 6

In a fresh process it makes browser games through the server's own
registry (``BrowserGames``, its games kept in the PostgreSQL database
``URL``), each a person against the computer with the coach on, half
under each rule set, and plays them to their end as the scripted clients
of ``benchmarks/web_load.py`` do (save die 1, roll, score, take the box
worth most).  One game of each rule set is played first and not counted,
so that the tables are loaded and the imports done; then the process's
processor time (user + system) over ``--games`` more games is divided by
the person's moves: the computer's moves, the coach's advice and the
drawing of each state are part of what a move costs, as in a server.

``own``: this process loads the solver's tables itself, as each worker of
``serve --workers N`` did.  ``forked``: this process loads every table
first (``Solvers.preload``), then forks, and the child plays: its tables
are the parent's pages, as a worker's are now.  It prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

from yahtzee.app.browser import BrowserGames, GameView, Settings
from yahtzee.app.session import Solvers
from yahtzee.domain.games import get_variant
from yahtzee.engine.engine import Phase
from yahtzee.engine.moves import Move
from yahtzee.players.kinds import COMPUTER, HUMAN
from yahtzee.storage.port import open_storage
from yahtzee.storage.problems import SilentProblems

RULES = ("course", "official")


def next_move(view: GameView) -> Move:
    """Return the scripted person's move: save die 1, roll, score, take the box worth most."""
    if view.phase is Phase.SCORING:
        best = max(view.offers, key=lambda item: (item.points, -item.number))
        return Move.box(best.number)
    if view.rolls_left == 2 and not view.saved[0]:
        return Move.toggle(1)
    return Move.roll() if view.rolls_left == 2 else Move.score()


def play(games: BrowserGames, seed: int, rules: str) -> int:
    """Play one coached game of a person against the computer to its end; return the moves."""
    made = games.create(Settings(get_variant("yahtzee", rules), (HUMAN, COMPUTER),
                                 ("Ann", "Computer"), seed))
    table, secret = made.table, made.secrets[0][0]
    moves = 0
    view: GameView | None = table.view()
    while not table.is_over():
        if table.computer_to_play():
            table.computer_step()
            view = None
            continue
        if view is None:
            view = table.view()  # as the page's poll draws it after the computer's turn
        view = table.act(secret, next_move(view))
        moves += 1
    games.forget(table.game_id)
    return moves


def measure(url: str, solvers: Solvers, count: int) -> dict[str, Any]:
    """Play the warm-up games, then ``count`` games; return their moves and processor time."""
    storage = open_storage(url, SilentProblems())
    games = BrowserGames(solvers, SilentProblems(), capacity=count + 10, storage=storage)
    try:
        for seed, rules in enumerate(RULES):
            play(games, 1000 + seed, rules)
        started = time.process_time()
        moves = sum(play(games, seed, RULES[seed % len(RULES)]) for seed in range(count))
        seconds = time.process_time() - started
    finally:
        games.close()
        storage.close()
    return {"games": count, "moves": moves,
            "cpu_ms_per_move": round(seconds / max(moves, 1) * 1000, 2)}


def forked(url: str, count: int) -> dict[str, Any]:
    """Load every table here, then measure in a forked child that inherits them."""
    if not hasattr(Solvers, "preload"):
        return {"skipped": "this copy of the project has no Solvers.preload"}
    from yahtzee.domain.games import every_variant
    solvers = Solvers()
    solvers.preload(every_variant())
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(read)
            os.write(write, json.dumps(measure(url, solvers, count)).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        figures: dict[str, Any] = json.loads(answer.read() or b"{}")
    os.waitpid(pid, 0)
    return figures


def main() -> int:
    """Measure as the command line says and print the figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="a PostgreSQL database to keep the games in")
    parser.add_argument("mode", choices=("own", "forked"))
    parser.add_argument("--games", type=int, default=6, help="games measured (default 6)")
    args = parser.parse_args()
    os.environ["YAHTZEE_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-move-cpu-")
    figures = (measure(args.url, Solvers(), args.games) if args.mode == "own"
               else forked(args.url, args.games))
    print(json.dumps({"mode": args.mode, **figures}))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
