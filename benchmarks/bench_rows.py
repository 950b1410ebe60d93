"""Memory and processor time of the exact last-turn rows, kept in memory or in the row file.

Run from the project root (the solver's tables in the cache folder, or built
the first time)::

    python benchmarks/bench_rows.py                      # course rules, 30 games, 3 rounds
    python benchmarks/bench_rows.py --rules official --games 20 --json

The exact distributions of the last two turns (``moments.LastTurn``) are
worked out row by row as games reach their states.  The program keeps them
in a file in the cache folder that every process maps (``row_file``); they
used to be each process's own memory.  This copies the rule set's table
files into a fresh cache folder (so the row file starts empty), then plays,
``--rounds`` times in turn, one process of each kind: ``memory`` (the rows
in the process's memory, as before) and ``file`` (the row file; the first
such process fills it, the later ones find the rows their predecessors
wrote).  Each process plays ``--games`` games as ``bench_move_cost.py``
does (a person against the play-to-win computer, the coach on), after one
game to load the tables, and reports the processor time per move of the
person, the rows it worked out itself, its major page faults and its
resident memory from ``/proc/self/status``: ``RssAnon`` (its own) and
``RssFile`` (pages of files, which processes share).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODES = ("memory", "file")


def kilobytes(field: str) -> int:
    """Return the value of ``field`` (``RssAnon``...) of this process's status, in kB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def play_here(mode: str, rules: str, games: int) -> dict[str, Any]:
    """Play the games in this process with the rows kept as ``mode`` says; return the figures."""
    import resource
    import time

    import yahtzee.solver.play_to_win as play_to_win
    from yahtzee.solver.moments import LastTurn
    if mode == "memory":  # the application's cache folder is not handed to the solver
        setattr(play_to_win, "keep_rows_in", lambda folder: None)
    worked: list[int] = []
    solve = LastTurn._solve

    def counted(self: LastTurn, some: Any) -> None:
        worked.append(len(some))
        solve(self, some)
    setattr(LastTurn, "_solve", counted)

    from benchmarks.bench_move_cost import play
    from yahtzee.app.browser import BrowserGames
    from yahtzee.app.session import Solvers
    from yahtzee.storage.problems import SilentProblems
    table = BrowserGames(Solvers(), SilentProblems(), capacity=games + 10)
    spent = {"person": 0.0, "computer": 0.0, "looks": 0.0}
    play(table, rules, 10_000, True, spent)
    worked.clear()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
    started = time.process_time()
    moves = sum(play(table, rules, 100 + seed, True, spent) for seed in range(games))
    return {"mode": mode, "cpu_ms_per_person_move":
            round((time.process_time() - started) / moves * 1000, 3),
            "rows_worked_out": sum(worked),
            "major_faults": resource.getrusage(resource.RUSAGE_SELF).ru_majflt - faults,
            "rss_anon_mb": round(kilobytes("RssAnon") / 1024, 1),
            "rss_file_mb": round(kilobytes("RssFile") / 1024, 1)}


def fresh_cache(rules: str) -> Path:
    """Return a new cache folder holding only ``rules``' table files from the cache folder."""
    from yahtzee.storage.paths import cache_dir
    folder = Path(tempfile.mkdtemp(prefix="bench-rows-"))
    for path in cache_dir().glob(f"solver-{rules}.*"):
        shutil.copyfile(path, folder / path.name)
    return folder


def main() -> int:
    """Run the processes in turn and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="course", choices=("official", "course"))
    parser.add_argument("--games", type=int, default=30, help="games per process")
    parser.add_argument("--rounds", type=int, default=3, help="processes of each kind")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(play_here(args.worker, args.rules, args.games)))
        return 0
    cache = fresh_cache(args.rules)
    environment = {**os.environ, "YAHTZEE_CACHE_DIR": str(cache),
                   "YAHTZEE_DATA_DIR": tempfile.mkdtemp(prefix="bench-rows-data-")}
    runs = []
    try:
        for _ in range(args.rounds):
            for mode in MODES:
                done = subprocess.run(
                    [sys.executable, __file__, "--worker", mode, "--rules", args.rules,
                     "--games", str(args.games)], env=environment, check=True,
                    capture_output=True, text=True)
                runs.append(json.loads(done.stdout.splitlines()[-1]))
        on_disk = sum(path.stat().st_blocks * 512 for path in cache.glob("exact-rows-*"))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    figures = {"rules": args.rules, "games": args.games, "runs": runs,
               "row_file_on_disk_mb": round(on_disk / 2 ** 20, 1),
               "load_average": round(os.getloadavg()[0], 2)}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    for run in runs:
        print(f"{run['mode']:>6}: {run['cpu_ms_per_person_move']:.2f} ms per move of the "
              f"person, {run['rows_worked_out']} rows worked out, "
              f"{run['major_faults']} major faults, RssAnon {run['rss_anon_mb']} MB, "
              f"RssFile {run['rss_file_mb']} MB")
    print(f"row file on disk: {figures['row_file_on_disk_mb']} MB "
          f"({args.rules} rules, {args.games} games a process, "
          f"load average {figures['load_average']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
