"""Milliseconds per storage operation: the save files and SQLite against a PostgreSQL database.

Run from the project root::

    python benchmarks/bench_storage.py                          # the files of a fresh folder
    python benchmarks/bench_storage.py --database postgresql://user@127.0.0.1:5432/bench

With a database, both back ends are measured (the database should be empty
or a scratch one: saves and games are added to it).  Each operation runs
``--repeat`` times on a mid-game save of a seeded two-person game: ``write``
(what every accepted move costs), ``load``, a ``transaction`` that locks the
save, writes it and commits (a move answered only once committed), and
``record`` (filing the finished game in the history).  It prints the mean
and the median, in milliseconds.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from yahtzee.domain.games import get_variant  # noqa: E402
from yahtzee.engine.records import GameRecord  # noqa: E402
from yahtzee.interfaces.console import Console  # noqa: E402
from yahtzee.interfaces.console_game import Game  # noqa: E402
from yahtzee.players.players import HumanPlayer  # noqa: E402
from yahtzee.storage.files import FileStorage  # noqa: E402
from yahtzee.storage.port import Storage, open_storage  # noqa: E402
from yahtzee.storage.problems import SilentProblems  # noqa: E402
from yahtzee.storage.saves import now  # noqa: E402

VARIANT = get_variant("yahtzee", "course")
SCRIPT = ["score", "1", "score", "2", "score", "3", "score", "4", "score", "5", "score", "6",
          "score", "7", "score", "8", "score", "9", "score", "10", "score", "11", "score",
          "12", "score", "13"]
"""Each player scores at once, boxes 1 to 13 in order: a finished game of 26 decisions."""


def finished_game(seed: int) -> GameRecord:
    """Return the record of a finished two-person game with ``seed`` (each scores at once)."""
    players = [HumanPlayer(f"Player {n}", VARIANT.new_card()) for n in (1, 2)]
    lines = "".join(f"{line}\n" for pair in zip(SCRIPT[0::2], SCRIPT[1::2])
                    for line in (pair[0], pair[1], pair[0], pair[1]))
    game = Game(players, variant=VARIANT, console=Console(io.StringIO(lines), io.StringIO()),
                seed=seed)
    game.play_game()
    return game.engine.record()


def timed(action: Callable[[], object], repeat: int) -> dict[str, float]:
    """Return the mean and median milliseconds of ``repeat`` runs of ``action``."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return {"mean_ms": round(statistics.fmean(times), 3),
            "median_ms": round(statistics.median(times), 3)}


def measure(storage: Storage, repeat: int) -> dict[str, dict[str, float]]:
    """Return the timings of each operation on ``storage``."""
    finished = finished_game(3)
    store, history = storage.saves(), storage.history()
    save = store.create(finished, uid=uuid.uuid4().hex)
    figures = {"write": timed(lambda: store.write(replace(save, updated=now())), repeat),
               "load": timed(lambda: store.load(save.save_id), repeat)}

    def moved() -> None:
        """Lock the save, write it and commit."""
        with store.transaction(save.save_id):
            store.write(replace(save, updated=now()))

    figures["transaction"] = timed(moved, repeat)
    figures["record"] = timed(lambda: history.record(finished, uid=uuid.uuid4().hex), repeat)
    store.remove(save.save_id)
    store.release()
    return figures


def main() -> int:
    """Measure the back ends and print their timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="a PostgreSQL URL to measure as well")
    parser.add_argument("--repeat", type=int, default=200, help="runs of each operation")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        results["files"] = measure(FileStorage(Path(folder), problems=SilentProblems()),
                                   args.repeat)
    if args.database:
        database = open_storage(args.database, SilentProblems())
        try:
            results["postgres"] = measure(database, args.repeat)
        finally:
            database.close()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for back_end, figures in results.items():
        print(f"{back_end}: " + ", ".join(f"{name} {f['mean_ms']:.2f} ms (median "
                                          f"{f['median_ms']:.2f})"
                                          for name, f in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
