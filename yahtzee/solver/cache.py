"""The stored value tables: one file per rule set in the cache folder, checked before use.

A table file starts with a magic line and a JSON header line (format
version, the rule set's name and settings, each array's name, type and
shape, the payload's length and SHA-256), then the arrays' bytes.  A file
that fails any check (stale version, other rules, truncated, damaged) is
reported in one line on stderr and rebuilt, never trusted.  Files are
written to a temporary name and renamed, so a reader never sees half a
file; if the folder cannot be written the table lives in memory only.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from yahtzee.paths import cache_dir
from yahtzee.rules import Rules
from yahtzee.solver.engine import solve, start_state_value
from yahtzee.solver.keeps import FloatArray
from yahtzee.solver.model import (ScoringModel, SpecialRolls, yahtzee_model,
                                  yahtzee_model_in_step)
from yahtzee.storage.atomic import write_atomic

FORMAT_VERSION = 1
"""Bumped whenever the file layout or the meaning of its numbers changes."""
MAGIC = b"YAHTZEE-SOLVER-TABLE\n"
"""The first line of every table file."""


class DamagedTableError(ValueError):
    """A stored table failed a check; the message says which."""


@dataclass(frozen=True)
class Solution:
    """A rule set's scoring model with its solved table of state values."""

    model: ScoringModel
    values: FloatArray
    seconds: float
    """How long building took (0 when the table was read from disk)."""

    @property
    def expected_score(self) -> float:
        """The expected final score of optimal play from an empty card."""
        return start_state_value(self.model, self.values)


def rules_settings(rules: Rules) -> dict[str, Any]:
    """Return the settings that decide a rule set's table."""
    return {"name": rules.name, "bonus_by_choice": rules.bonus_by_choice,
            "bonus_cap": rules.bonus_cap, "forced_joker": rules.forced_joker,
            "rounds": rules.ROUNDS}


def table_path(rules: Rules, folder: Path | None = None) -> Path:
    """Return where the table of ``rules`` is stored."""
    return (folder or cache_dir()) / f"solver-{rules.name}.table"


def _arrays(solution: Solution) -> dict[str, np.ndarray[Any, Any]]:
    """Return the arrays a table file holds, by name."""
    special = solution.model.special
    assert special is not None
    return {"values": solution.values, "rolls": special.rolls, "allowed": special.allowed,
            "box_points": special.box_points, "bonus_points": special.bonus_points,
            "varies": special.varies}


def encode(rules: Rules, solution: Solution) -> bytes:
    """Return the bytes of a table file for ``solution``."""
    arrays = _arrays(solution)
    payload = b"".join(np.ascontiguousarray(a).tobytes() for a in arrays.values())
    header = {
        "version": FORMAT_VERSION,
        "rules": rules_settings(rules),
        "arrays": [{"name": n, "dtype": a.dtype.str, "shape": list(a.shape)}
                   for n, a in arrays.items()],
        "payload_bytes": len(payload),
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    return MAGIC + json.dumps(header, sort_keys=True).encode("ascii") + b"\n" + payload


def decode(rules: Rules, data: bytes) -> Solution:
    """Return the solution stored in ``data``; ``DamagedTableError`` if any check fails."""
    if not data.startswith(MAGIC):
        raise DamagedTableError("not a solver table")
    end = data.find(b"\n", len(MAGIC))
    if end < 0:
        raise DamagedTableError("truncated header")
    try:
        header = json.loads(data[len(MAGIC):end].decode("ascii"))
        version = header["version"]
        settings = header["rules"]
        specs = header["arrays"]
        size = header["payload_bytes"]
        digest = header["sha256"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
        raise DamagedTableError(f"unreadable header ({error})") from None
    if version != FORMAT_VERSION:
        raise DamagedTableError(f"format version {version}, expected {FORMAT_VERSION}")
    if settings != rules_settings(rules):
        raise DamagedTableError("made for other rules")
    payload = memoryview(data)[end + 1:]
    if len(payload) != size:
        raise DamagedTableError(f"{len(payload)} bytes of data, expected {size}")
    if hashlib.sha256(payload).hexdigest() != digest:
        raise DamagedTableError("checksum mismatch")
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    offset = 0
    try:
        for spec in specs:
            dtype = np.dtype(spec["dtype"])
            shape = tuple(int(n) for n in spec["shape"])
            count = int(np.prod(shape))
            arrays[spec["name"]] = np.frombuffer(payload, dtype=dtype, count=count,
                                                 offset=offset).reshape(shape).copy()
            offset += count * dtype.itemsize
        special = SpecialRolls(arrays["rolls"], arrays["allowed"], arrays["box_points"],
                               arrays["bonus_points"], arrays["varies"])
        model = yahtzee_model(rules, special=special)
        values = arrays["values"]
    except (KeyError, ValueError, TypeError) as error:
        raise DamagedTableError(f"inconsistent arrays ({error})") from None
    if values.shape != model.shape or values.dtype != np.float64 or offset != size:
        raise DamagedTableError("array shapes do not fit the rules")
    return Solution(model, values, 0.0)


def build(rules: Rules, progress: TextIO | None = None) -> Solution:
    """Solve ``rules`` from scratch, reporting progress on ``progress`` if given."""
    started = time.perf_counter()
    if progress is not None:
        progress.write(f"Building the optimal-play table for {rules.name} rules "
                       "(done once, then cached)...\n")
        progress.flush()
    model, asker = yahtzee_model_in_step(rules)

    live = progress is not None and progress.isatty()

    def report(done: int, total: int) -> None:
        """Show how many turns of the table are solved (on a terminal)."""
        if progress is not None and live:
            progress.write(f"\r  solved {done}/{total} turns")
            progress.flush()

    try:
        values = solve(model, report, before_turn=asker.ensure)
        asker.finish()
    finally:
        asker.close()
    if model.upper_points != model.upper_points_now():
        model = yahtzee_model(rules)
        values = solve(model, report)
    seconds = time.perf_counter() - started
    if progress is not None:
        progress.write(f"{chr(13) if live else ''}  solved {model.rounds}/{model.rounds} turns "
                       f"in {seconds:.1f} s\n")
        progress.flush()
    return Solution(model, values, seconds)


_LOADED: dict[str, Solution] = {}


def load_or_build(rules: Rules, err: TextIO | None = None) -> Solution:
    """Return the solution for ``rules``: from memory, from the cache folder, or built and stored.

    Problems with the stored file are reported on ``err`` (stderr by default)
    in one line each; they never stop the table from being available.
    """
    key = json.dumps(rules_settings(rules), sort_keys=True) + str(cache_dir())
    if key in _LOADED:
        return _LOADED[key]
    err = err or sys.stderr
    path = table_path(rules)
    solution: Solution | None = None
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        data = None
    except OSError as error:
        err.write(f"yahtzee: cannot read the solver table {path} ({error.strerror}); "
                  "rebuilding it\n")
        data = None
    if data is not None:
        try:
            solution = decode(rules, data)
        except DamagedTableError as error:
            err.write(f"yahtzee: the solver table {path} is not usable ({error}); "
                      "rebuilding it\n")
    if solution is None:
        solution = build(rules, err)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, encode(rules, solution))
        except OSError as error:
            err.write(f"yahtzee: cannot store the solver table in {path.parent} "
                      f"({error.strerror or error}); keeping it in memory only\n")
    _LOADED[key] = solution
    return solution


def forget_loaded() -> None:
    """Drop the tables held in memory (the next use reads or builds them again)."""
    _LOADED.clear()
