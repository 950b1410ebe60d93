"""Processor time of the storage's part of a move on PostgreSQL, alone: its transaction.

Run from the project root (the postgres extra installed, Debian's
``postgresql`` package present)::

    python benchmarks/bench_pg_move.py
    python benchmarks/bench_pg_move.py --source /tmp/older-copy

It starts a throw-away PostgreSQL cluster (``tests/postgres_fixtures.py``,
its durable defaults), saves the tests' seeded two-person game after 40
commands, then writes each of its next 100 states as a computer's move
on a shared table does: ``hold`` the row, ``claim`` the lease, ``write``
(replayable), ``version_of``, ``notify``, commit; the game is then set
back to its 40th command (one whole write) and the 100 moves made again,
``--rounds`` times.  It prints this process's processor time (user +
system) per move, for each of ``--repeat`` runs: psycopg's and the
storage's work, without the game's own (the states are made before).
``--source`` measures another copy of the project's package.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.postgres_fixtures import running_cluster  # noqa: E402


def _states(first: int, count: int) -> list[Any]:
    """Return the seeded game's records after ``first`` .. ``first + count`` commands.

    Taken from one game as it is played, so that each shares its decisions
    with the one before, as a game's successive saves do.
    """
    from tests.helpers import play_through, script_for, variant_of

    class Keep:
        """Keeps the game's record after each accepted command."""

        def __init__(self) -> None:
            """Keep nothing yet."""
            self.records: list[Any] = []

        def changed(self, engine: Any) -> None:
            """Keep the record as it stands."""
            self.records.append(engine.record())

        def finished(self, engine: Any) -> None:
            """Nothing more to keep."""

    keep = Keep()
    play_through(7, variant_of("course"), script_for(7, "course")[:first + count],
                 observers=[keep])
    return keep.records[-count - 1:]


def measure(url: str, rounds: int) -> float:
    """Return the processor time per move's transaction, in ms, over ``rounds`` rounds."""
    from yahtzee.storage.port import open_storage
    from yahtzee.storage.problems import SilentProblems
    from yahtzee.storage.saves import now

    states = _states(40, 100)
    storage = open_storage(url, SilentProblems())
    try:
        store = storage.saves()
        save = store.create(states[0])
        moves = 0
        started = time.process_time()
        for _ in range(rounds):
            for state in states[1:]:
                with store.hold(save.save_id):
                    store.claim(save.save_id, "bench", 5.0)
                    store.write(replace(save, updated=now(), snapshot=state),
                                computer_to_play=True, replayable=True)
                    store.version_of(save.save_id)
                    store.notify(save.uid)
                moves += 1
            with store.hold(save.save_id):
                store.write(replace(save, updated=now(), snapshot=states[0]))
        return (time.process_time() - started) / moves * 1000
    finally:
        storage.close()


def main() -> int:
    """Measure as the command line says and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="rounds of 100 moves (default 4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs (default 3)")
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="the copy of the project to measure (default this one)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    sys.path.insert(0, str(args.source.resolve()))
    with running_cluster(durable=True) as cluster:
        runs = []
        for run in range(args.repeat):
            cluster.execute(f"CREATE DATABASE move_{run}")
            runs.append(round(measure(cluster.url(f"move_{run}"), args.rounds), 3))
    if args.json:
        print(json.dumps({"source": str(args.source), "cpu_ms_per_move": runs}))
    else:
        print(f"{args.source}: {runs} ms of processor time per move's transaction")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
