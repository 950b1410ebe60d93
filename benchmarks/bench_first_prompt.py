"""First prompt of a first computer game: seconds from start until a person may type.

Run from the project root::

    python benchmarks/bench_first_prompt.py                      # human,computer and computer,human
    python benchmarks/bench_first_prompt.py --players human,computer --repeat 5 --json

Each run starts ``python game_driver.py --players ...`` on a real pseudo-terminal
(as a person would, so that the progress display and the computer's delay
are a terminal's), with an empty ``YAHTZEE_CACHE_DIR`` and
``YAHTZEE_DATA_DIR``, and times the moment the die prompt first appears.
It then ends the game with Ctrl-D.  With the computer in the first seat the
prompt comes after the computer's first turn (``--delay 0`` there, so that
only the table counts).
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROMPT = b'"roll" or "score": '
"""The end of the die prompt."""
TIMEOUT = 120.0
"""Seconds a run may take before it is given up."""


def first_prompt(players: str, rules: str | None) -> dict[str, Any]:
    """Start a game on a pseudo-terminal with empty folders; return when its prompt appeared."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "YAHTZEE_CACHE_DIR": os.path.join(folder, "cache"),
               "YAHTZEE_DATA_DIR": os.path.join(folder, "data")}
        command = [sys.executable, "game_driver.py", "--players", players, "--seed", "1",
                   "--delay", "0"]
        if rules is not None:
            command += ["--rules", rules]
        main, child = pty.openpty()
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=child, stdout=child,
                                   stderr=child, close_fds=True)
        os.close(child)
        seen = b""
        seconds: float | None = None
        try:
            while time.perf_counter() - started < TIMEOUT:
                ready, _, _ = select.select([main], [], [], 0.05)
                if ready:
                    try:
                        chunk = os.read(main, 65536)
                    except OSError:
                        break
                    if not chunk:
                        break
                    seen += chunk
                    if PROMPT in seen:
                        seconds = time.perf_counter() - started
                        break
            os.write(main, b"\x04")
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.close(main)
    if seconds is None:
        raise RuntimeError(f"no prompt within {TIMEOUT} s; the screen showed:\n"
                           f"{seen.decode(errors='replace')}")
    return {"players": players, "seconds": seconds,
            "built_while_waiting": b"Building" in seen}


def main(argv: list[str] | None = None) -> int:
    """Time the first prompt of each seating ``--repeat`` times; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", action="append",
                        help="a --players list (repeatable; default human,computer and "
                             "computer,human)")
    parser.add_argument("--rules", help="the rules (default: the game's default, course)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (median reported)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"load_average_before": os.getloadavg()[0], "runs": {}}
    for players in args.players or ["human,computer", "computer,human"]:
        runs = [first_prompt(players, args.rules) for _ in range(args.repeat)]
        results["runs"][players] = {
            "median_seconds": statistics.median(r["seconds"] for r in runs),
            "all_seconds": [r["seconds"] for r in runs],
            "built_while_waiting": [r["built_while_waiting"] for r in runs]}
    results["load_average_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for players, figures in results["runs"].items():
        every = ", ".join(f"{s:.2f}" for s in figures["all_seconds"])
        print(f"--players {players}: first prompt after {figures['median_seconds']:.2f} s "
              f"(median; runs {every})")
    print(f"load average (1 min) before and after: {results['load_average_before']:.2f}, "
          f"{results['load_average_after']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
