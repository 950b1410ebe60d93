"""Two ways to keep a PostgreSQL save's steps, compared: a table of steps, or a jsonb array.

Run from the project root (the postgres extra installed, Debian's
``postgresql`` package present)::

    python benchmarks/bench_pg_steps.py --saves 50 --json

It starts a throw-away PostgreSQL cluster (``tests/postgres_fixtures.py``,
its durable defaults) and, for each way, makes ``--saves`` rows holding a
mid-game save (the seeded game of the tests after 60 commands), then adds
``STEPS_BEFORE_REWRITE`` steps of that game to each (the step the save
files append, about the size of a real one), each in its own transaction
that raises the row's version as a move does, with ``synchronous_commit``
off (the disk's flush is the same for both; the work is not).

- ``table``: ``INSERT INTO save_steps`` and ``UPDATE saves SET version``
  in one statement (what the program does);
- ``array``: ``UPDATE saves SET steps = steps || <step>, version`` (the
  row's array copied whole at each step).

It prints, per step: the time from sending to the commit's answer (the
client's share is the same for both), the bytes the server wrote to its
write-ahead log, and the server's processor time (from
``/proc/<backend>/stat``, the server's process serving the connection),
then the tables' size on disk after the steps.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers import play_through, script_for, variant_of  # noqa: E402
from tests.postgres_fixtures import running_cluster  # noqa: E402
from yahtzee.storage.saves import SaveFile, encode_json, now  # noqa: E402
from yahtzee.storage.steps import STEPS_BEFORE_REWRITE, step_of  # noqa: E402

_SCHEMA = {
    "table": ("CREATE TABLE saves (id integer PRIMARY KEY, data jsonb NOT NULL, "
              "version bigint NOT NULL DEFAULT 1)",
              "CREATE TABLE save_steps (save_id integer NOT NULL, n integer NOT NULL, "
              "step jsonb NOT NULL, PRIMARY KEY (save_id, n))"),
    "array": ("CREATE TABLE saves (id integer PRIMARY KEY, data jsonb NOT NULL, "
              "version bigint NOT NULL DEFAULT 1, steps jsonb NOT NULL DEFAULT '[]')",),
}
_APPEND = {
    "table": ("WITH step AS (INSERT INTO save_steps VALUES (%(id)s, %(n)s, %(step)s)) "
              "UPDATE saves SET version = version + 1 WHERE id = %(id)s"),
    "array": ("UPDATE saves SET steps = steps || jsonb_build_array(%(step)s::jsonb), "
              "version = version + 1 WHERE id = %(id)s"),
}


def _cpu_seconds(pid: int) -> float:
    """Return the processor time (user + system) of the process ``pid``, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _game(commands: int) -> SaveFile:
    """Return the save of the tests' seeded game after ``commands`` commands."""
    game = play_through(7, variant_of("course"), script_for(7, "course")[:commands]).game
    moment = now()
    return SaveFile(1, "a" * 32, moment, moment, False, game.engine.record())


def _steps() -> tuple[SaveFile, list[dict[str, Any]]]:
    """Return the mid-game save and the steps of the moves after it."""
    saves = [_game(60 + n) for n in range(STEPS_BEFORE_REWRITE + 1)]
    steps = []
    for number, (before, after) in enumerate(zip(saves, saves[1:]), start=1):
        step = step_of(before.snapshot, after.snapshot, number,
                       after.updated.isoformat(timespec="microseconds"), False)
        assert step is not None
        steps.append(step)
    return saves[0], steps


def measure(url: str, way: str, count: int) -> dict[str, Any]:
    """Make ``count`` saves and add every step to each, the ``way`` given; return the costs."""
    import psycopg
    from psycopg.types.json import Jsonb

    save, steps = _steps()
    with psycopg.connect(url, autocommit=True) as connection:
        for statement in _SCHEMA[way]:
            connection.execute(statement)
        with connection.cursor() as cursor:
            cursor.executemany("INSERT INTO saves (id, data) VALUES (%s, %s)",
                               [(n, Jsonb(save.to_dict(), dumps=encode_json))
                                for n in range(1, count + 1)])
        backend = connection.info.backend_pid
        wal = connection.execute("SELECT pg_current_wal_lsn()").fetchone()
        cpu, started = _cpu_seconds(backend), time.perf_counter()
        for number, step in enumerate(steps, start=1):
            for save_id in range(1, count + 1):
                with connection.pipeline():
                    connection.execute("BEGIN")
                    connection.execute("SET LOCAL synchronous_commit TO OFF")
                    connection.execute(_APPEND[way], {"id": save_id, "n": number,
                                                      "step": Jsonb(step, dumps=encode_json)})
                    connection.execute("COMMIT")
        seconds, cpu = time.perf_counter() - started, _cpu_seconds(backend) - cpu
        row = connection.execute("SELECT pg_current_wal_lsn() - %s::pg_lsn, "
                                 "pg_total_relation_size('saves') + coalesce("
                                 "pg_total_relation_size(to_regclass('save_steps')), 0)",
                                 (wal[0] if wal else "0/0",)).fetchone()
        assert row is not None
    written = len(steps) * count
    return {"way": way, "steps": written,
            "ms_per_step": round(seconds / written * 1000, 3),
            "server_cpu_ms_per_step": round(cpu / written * 1000, 3),
            "wal_bytes_per_step": round(int(row[0]) / written),
            "step_bytes": round(sum(len(encode_json(step)) for step in steps) / len(steps)),
            "save_bytes": len(encode_json(save.to_dict())),
            "tables_mb": round(int(row[1]) / 2**20, 2)}


def main() -> int:
    """Measure both ways and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=50, help="saves per way (default 50)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with running_cluster(durable=True) as cluster:
        figures = []
        for way in ("table", "array"):
            cluster.execute(f"CREATE DATABASE steps_{way}")
            figures.append(measure(cluster.url(f"steps_{way}"), way, args.saves))
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for row in figures:
            print(", ".join(f"{key} {value}" for key, value in row.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
