"""Processor time of a person's move at the browser table, without HTTP, and where it goes.

Run from the project root (the solver's tables in the cache folder, or built
the first time)::

    python benchmarks/bench_move_cost.py                 # 20 games, text
    python benchmarks/bench_move_cost.py --games 40 --json

In one process, with a fresh data folder, it plays games through the
server's own registry (``BrowserGames``), each a person against the
play-to-win computer (every other one with the coach on, or ``--coach
all`` or ``none``), as
``benchmarks/web_load.py``'s scripted person plays them: on each turn it
saves die 1, rolls, scores and takes the box worth most.  After every
move of the person, and after each of the computer's turns, the table is
looked at once, as the person's page does when its long poll wakes (the
server tells the pages of a computer's turn at its end).  One game is
played first, and the coach with its tables and its planner of win chances
is made, so that nothing is loaded while the
games are measured (a process's processor time counts every thread's, the
background loading of the tables too).
It prints the processor time (user + system, ``time.process_time``) per
move of the person, and its parts: the person's moves (each checked,
applied, written to disk and drawn), the computer's moves (its decision,
the write, the drawing of the table with the coach's chances) and the
pages' looks (mostly drawn already).  HTTP is left out; its cost per
request is the other benchmarks' business (``bench_web.py``).  The coach's
share (the processor time inside ``LiveGame.coaching``: the advice, the
options with their profiles and the win chances, drawn with the table) is
counted inside those parts and also given on its own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from yahtzee.app.browser import BrowserGame, BrowserGames, Settings  # noqa: E402
from yahtzee.app.service import Coaching, LiveGame  # noqa: E402
from yahtzee.app.session import Solvers  # noqa: E402
from yahtzee.domain.games import get_variant  # noqa: E402
from yahtzee.engine.engine import Phase  # noqa: E402
from yahtzee.engine.moves import Move  # noqa: E402
from yahtzee.players.kinds import COMPUTER, HUMAN  # noqa: E402
from yahtzee.storage.problems import SilentProblems  # noqa: E402


def scripted_move(table: BrowserGame) -> Move:
    """Return the scripted person's next move: save die 1, roll, score, take the best box."""
    view = table.view()
    if view.phase is Phase.SCORING:
        return Move.box(max(view.offers, key=lambda item: (item.points, -item.number)).number)
    if view.rolls_left == 2 and not view.saved[0]:
        return Move.toggle(1)
    return Move.roll() if view.rolls_left == 2 else Move.score()


def play(games: BrowserGames, rules: str, seed: int, coach: bool, spent: dict[str, float]
         ) -> int:
    """Play one game to its end, adding each part's processor time to ``spent``; return
    the person's moves."""
    made = games.create(Settings(get_variant("yahtzee", rules), (HUMAN, COMPUTER),
                                 ("Ann", "Computer"), seed, coach=coach))
    table, secret = made.table, made.secrets[0][0]
    moves = 0
    while not table.is_over():
        move = None if table.computer_to_play() else scripted_move(table)
        turn = table.computer_turn()
        started = time.process_time()
        if move is None:
            table.computer_step()
            part = "computer"
        else:
            table.act(secret, move)
            moves += 1
            part = "person"
        middle = time.process_time()
        if move is not None or table.computer_turn() != turn:
            table.view()
        spent[part] += middle - started
        spent["looks"] += time.process_time() - middle
    return moves


def count_coaching(spent: dict[str, float]) -> None:
    """Add the processor time of every ``LiveGame.coaching`` call to ``spent["coach"]``."""
    original = LiveGame.coaching

    def coaching(self: LiveGame) -> Coaching | None:
        """Return the coach's word, its processor time counted."""
        started = time.process_time()
        try:
            return original(self)
        finally:
            spent["coach"] += time.process_time() - started

    setattr(LiveGame, "coaching", coaching)


def coached(which: str, seed: int) -> bool:
    """Return whether the game of ``seed`` has the coach on (``which``: half, all, none)."""
    return which == "all" or which == "half" and seed % 2 == 0


def main() -> int:
    """Play the games and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games measured")
    parser.add_argument("--rules", default="official", choices=("official", "course"))
    parser.add_argument("--coach", default="half", choices=("half", "all", "none"),
                        help="which games have the coach on (default: every other one)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    os.environ["YAHTZEE_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-move-cost-")
    games = BrowserGames(Solvers(), SilentProblems(), capacity=args.games + 10)
    coach = {"coach": 0.0}
    count_coaching(coach)
    play(games, args.rules, 10_000, True, {"person": 0.0, "computer": 0.0, "looks": 0.0})
    games.setup.coach(get_variant("yahtzee", args.rules), profiles=True).play_to_win()
    spent = {"person": 0.0, "computer": 0.0, "looks": 0.0}
    coach["coach"] = 0.0
    moves = sum(play(games, args.rules, seed, coached(args.coach, seed), spent)
                for seed in range(args.games))
    games.close()
    load = os.getloadavg()[0]
    per_move = {part: round(seconds / moves * 1000, 3) for part, seconds in spent.items()}
    figures = {"games": args.games, "rules": args.rules, "coach": args.coach,
               "person_moves": moves,
               "cpu_ms_per_person_move": round(sum(spent.values()) / moves * 1000, 3),
               "parts_ms_per_person_move": per_move,
               "coach_ms_per_person_move": round(coach["coach"] / moves * 1000, 3),
               "load_average": round(load, 2)}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{moves} moves of the person in {args.games} games ({args.rules} rules): "
              f"{figures['cpu_ms_per_person_move']} ms of processor time each "
              f"(the person's move {per_move['person']}, the computer's replies "
              f"{per_move['computer']}, the pages' looks {per_move['looks']}; of all these, "
              f"the coach's word {figures['coach_ms_per_person_move']}; "
              f"load average {load:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
