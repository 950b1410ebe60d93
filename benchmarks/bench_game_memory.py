"""Resident memory per live browser game: how much a server's memory grows with each game.

Run from the project root (the solver's tables in the cache folder, or built
the first time)::

    python benchmarks/bench_game_memory.py                 # both kinds of game, 20 each
    python benchmarks/bench_game_memory.py --games 50 --json

In one process, with a fresh data folder, it makes browser games through the
server's own registry (``BrowserGames``) and plays each a little: a person
against the computer with the coach on (the person scores a box, then the
computer plays its turn, and the coach's word is drawn twice), and six
computers alone (sixty of their moves).  Two games of each kind are played
first, so that the solver's tables are loaded; then ``--games`` more, and it
prints how much the resident memory (``VmRSS``) grew per game.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from yahtzee.app.browser import BrowserGames, Settings  # noqa: E402
from yahtzee.app.session import Solvers  # noqa: E402
from yahtzee.domain.games import get_variant  # noqa: E402
from yahtzee.engine.moves import Move  # noqa: E402
from yahtzee.players.kinds import COMPUTER, HUMAN  # noqa: E402
from yahtzee.storage.problems import SilentProblems  # noqa: E402

VARIANT = get_variant("yahtzee", "course")


def resident_mb() -> float:
    """Return this process's resident memory in MB (``VmRSS``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS: this benchmark reads Linux's /proc")


def person_and_computer(games: BrowserGames, seed: int) -> None:
    """Play a person's box and the computer's turn of a new coached game."""
    made = games.create(Settings(VARIANT, (HUMAN, COMPUTER), ("Ann", "Computer"), seed))
    table, secret = made.table, made.secrets[0][0]
    table.view()
    table.act(secret, Move.score())
    table.act(secret, Move.box(table.live.prompt().menu[0].number))
    while table.computer_step():
        pass
    table.view()


def six_computers(games: BrowserGames, seed: int) -> None:
    """Play sixty moves of a new game of six computers."""
    made = games.create(Settings(VARIANT, (COMPUTER,) * 6, tuple(f"C{n}" for n in range(6)),
                                 seed, coach=False))
    for _ in range(60):
        made.table.computer_step()


def per_game(play: Callable[[BrowserGames, int], None], count: int) -> float:
    """Return the growth of resident memory, in MB, per game of ``play`` after two first."""
    games = BrowserGames(Solvers(), SilentProblems(), capacity=count + 10)
    for seed in range(2):
        play(games, seed)
    before = resident_mb()
    for seed in range(2, count + 2):
        play(games, seed)
    grown = resident_mb() - before
    games.close()
    return grown / count


def main() -> int:
    """Measure both kinds of game and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games measured of each kind")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    os.environ["YAHTZEE_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-memory-")
    figures = {"games": args.games,
               "person_and_computer_mb_per_game": round(per_game(person_and_computer,
                                                                 args.games), 3),
               "six_computers_mb_per_game": round(per_game(six_computers, args.games), 3),
               "resident_mb": round(resident_mb(), 1)}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{args.games} games of each kind, resident memory per live game: "
              f"{figures['person_and_computer_mb_per_game']} MB (a person against the "
              f"computer, coach on), {figures['six_computers_mb_per_game']} MB (six "
              f"computers); the process holds {figures['resident_mb']} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
