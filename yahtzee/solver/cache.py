"""The stored value tables: one file per rule set in the cache folder, checked before use.

A table file starts with a magic line and a JSON header line (format
version, the rule set's name and settings, each array's name, type and
shape, the payload's length and SHA-256), then the arrays' bytes.  A file
that fails any check (stale version, other rules, truncated, damaged) is
reported and rebuilt, never trusted.  Where the bytes live is a
``TableStore`` that the application supplies (persistence keeps them in the
cache folder, written atomically); without one, tables live in memory only.
What happens along the way (a damaged file, the build's progress, a store
that cannot be written) reaches the player through a ``Report`` callback that
the interface supplies, as ``SolverEvent`` records.  The tables handed out
are read-only (``read_only``): nothing writes to them once made, so
processes forked after loading them share their memory.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np

from yahtzee.domain.rules import Rules
from yahtzee.solver.events import (BuildFinished, BuildProgress, BuildStarted, Report,
                                   SolverEvent, TableNotStored, TableStore, TableUnusable)
from yahtzee.solver.dynamic import solve, start_state_value
from yahtzee.solver.keeps import FloatArray
from yahtzee.solver.moments import QUANTITIES, SHAPE, Moments, Shape, solve_moments, solve_shape
from yahtzee.solver.model import (ScoringModel, SpecialRolls, yahtzee_model,
                                  yahtzee_model_in_step)

FORMAT_VERSION = 1
"""Bumped whenever the file layout or the meaning of its numbers changes."""
MAGIC = b"YAHTZEE-SOLVER-TABLE\n"
"""The first line of every table file."""
MAX_TABLE_BYTES = 128 * 1024 * 1024
"""No table file is larger (the course table, the largest, is about 38 MB): a larger file is
not read at all."""


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


TableSource = Callable[[Rules], "Solution"]
"""Gives the solved table of a rule set (``load_or_build`` with the application's store)."""


def table_name(rules: Rules) -> str:
    """Return the name under which the table of ``rules`` is stored."""
    return f"solver-{rules.name}.table"


def _arrays(solution: Solution) -> dict[str, np.ndarray[Any, Any]]:
    """Return the arrays a table file holds, by name."""
    special = solution.model.special
    assert special is not None
    return {"values": solution.values, "rolls": special.rolls, "allowed": special.allowed,
            "box_points": special.box_points, "bonus_points": special.bonus_points,
            "varies": special.varies}


def encode(rules: Rules, solution: Solution) -> bytes:
    """Return the bytes of a table file for ``solution``."""
    return encode_arrays(rules, _arrays(solution))


def encode_arrays(rules: Rules, arrays: dict[str, np.ndarray[Any, Any]]) -> bytes:
    """Return the bytes of a table file holding ``arrays`` for ``rules``, checksummed."""
    parts = [np.ascontiguousarray(a).reshape(-1).view(np.uint8).data for a in arrays.values()]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    header = {
        "version": FORMAT_VERSION,
        "rules": rules_settings(rules),
        "arrays": [{"name": n, "dtype": a.dtype.str, "shape": list(a.shape)}
                   for n, a in arrays.items()],
        "payload_bytes": sum(len(part) for part in parts),
        "sha256": digest.hexdigest(),
    }
    head = MAGIC + json.dumps(header, sort_keys=True).encode("ascii") + b"\n"
    return b"".join([head, *parts])


def read_only(*arrays: np.ndarray[Any, Any]) -> None:
    """Forbid writing into ``arrays`` (numpy raises ``ValueError`` at any attempt).

    A loaded table is never written: this makes sure of it, so that server
    processes forked after loading keep sharing its memory (a page written
    by one of them would become that process's own copy).
    """
    for array in arrays:
        array.flags.writeable = False


def decode_arrays(rules: Rules, data: bytes) -> dict[str, np.ndarray[Any, Any]]:
    """Return the arrays of a table file for ``rules``; ``DamagedTableError`` if a check fails."""
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
            array = np.frombuffer(payload, dtype=dtype, count=count,
                                  offset=offset).reshape(shape).copy()
            read_only(array)
            arrays[spec["name"]] = array
            offset += count * dtype.itemsize
    except (KeyError, ValueError, TypeError) as error:
        raise DamagedTableError(f"inconsistent arrays ({error})") from None
    if offset != size:
        raise DamagedTableError("array sizes do not add up to the data")
    return arrays


def decode(rules: Rules, data: bytes) -> Solution:
    """Return the solution stored in ``data``; ``DamagedTableError`` if any check fails."""
    arrays = decode_arrays(rules, data)
    try:
        special = SpecialRolls(arrays["rolls"], arrays["allowed"], arrays["box_points"],
                               arrays["bonus_points"], arrays["varies"])
        model = yahtzee_model(rules, special=special)
        values = arrays["values"]
    except (KeyError, ValueError, TypeError) as error:
        raise DamagedTableError(f"inconsistent arrays ({error})") from None
    if values.shape != model.shape or values.dtype != np.float64:
        raise DamagedTableError("array shapes do not fit the rules")
    return Solution(model, values, 0.0)


def build(rules: Rules, report: Report | None = None) -> Solution:
    """Solve ``rules`` from scratch, telling ``report`` (if given) how far it is."""
    started = time.perf_counter()
    if report is not None:
        report(BuildStarted(rules.name))
    model, asker = yahtzee_model_in_step(rules)

    def progress(done: int, total: int) -> None:
        """Pass on how many turns of the table are solved."""
        if report is not None:
            report(BuildProgress(done, total))

    try:
        values = solve(model, progress, before_turn=asker.ensure)
        asker.finish()
    finally:
        asker.close()
    if model.upper_points != model.upper_points_now():
        model = yahtzee_model(rules)
        values = solve(model, progress)
    seconds = time.perf_counter() - started
    if report is not None:
        report(BuildFinished(model.rounds, seconds))
    return Solution(model, values, seconds)


_LOADED: dict[tuple[str, TableStore | None], Solution] = {}
_MOMENTS: dict[tuple[str, TableStore | None], Moments] = {}
_SHAPES: dict[tuple[str, TableStore | None], Shape] = {}
_Table = TypeVar("_Table")
_LOADING: dict[tuple[str, tuple[str, TableStore | None]], threading.Lock] = {}
"""A lock per table and store, held while that table is read, or built and stored: threads
that ask for it meanwhile wait for the one copy rather than each reading or building their
own."""
_LOADING_LOCK = threading.Lock()


def _loading(name: str, key: tuple[str, TableStore | None]) -> threading.Lock:
    """Return the lock of the table ``name`` kept under ``key`` (``_LOADING``)."""
    with _LOADING_LOCK:
        return _LOADING.setdefault((name, key), threading.Lock())


def load_or_build(rules: Rules, store: TableStore | None = None,
                  report: Report | None = None) -> Solution:
    """Return the solution for ``rules``: from memory, from ``store``, or built (and stored).

    A stored table that cannot be used is reported and rebuilt; a store that
    cannot be written is reported and the table kept in memory.  Nothing of
    this stops the table from being available.  Loaded tables stay in memory,
    once per rule set and store, until ``forget_loaded()``; their arrays are
    read-only (see ``read_only``), as are those of ``load_or_build_moments``.
    """
    solution = _load_or_make(_LOADED, rules, table_name(rules), store, report,
                             lambda data: decode(rules, data), lambda: build(rules, report),
                             lambda solution: encode(rules, solution))
    read_only(solution.values)
    return solution


def moments_name(rules: Rules) -> str:
    """Return the name under which the moments of ``rules`` are stored."""
    return f"solver-{rules.name}.moments"


def load_or_build_moments(rules: Rules, solution: Solution, store: TableStore | None = None,
                          report: Report | None = None) -> Moments:
    """Return the ``Moments`` of ``rules``, with their ``Shape``: from memory, ``store``, or made.

    Each of the two is stored, checked and kept in memory like the
    solution's table (see ``load_or_build``), in a file of its own, and
    built only when asked for: advice with outcome profiles and win chances
    need them, play does not.  Built moments come with their shape (one
    pass); a shape is built alone only beside stored moments.
    """
    moments = _load_or_make(
        _MOMENTS, rules, moments_name(rules), store, report,
        lambda data: decode_moments(rules, solution.model, data),
        lambda: build_moments(rules, solution, report, with_shape=True),
        lambda made: encode_arrays(rules, dict(zip(QUANTITIES, made.tables()))))
    key = _memo_key(rules, store)
    if moments.shape is not None:
        with _loading(shape_name(rules), key):  # stored once, whoever else waited
            if key not in _SHAPES:
                _SHAPES[key] = moments.shape
                _store(store, shape_name(rules), report,
                       lambda: encode_arrays(rules, dict(zip(SHAPE, moments.shape_tables()))))
        read_only(*moments.tables(), *moments.shape_tables())
        return moments
    shape = _load_or_make(
        _SHAPES, rules, shape_name(rules), store, report,
        lambda data: decode_shape(rules, solution.model, data),
        lambda: build_shape(rules, solution, moments, report),
        lambda made: encode_arrays(rules, dict(zip(SHAPE, made.tables()))))
    with_shape = replace(moments, shape=shape)
    _MOMENTS[key] = with_shape
    read_only(*with_shape.tables(), *shape.tables())
    return with_shape


def shape_name(rules: Rules) -> str:
    """Return the name under which the higher cumulants of ``rules`` are stored."""
    return f"solver-{rules.name}.shape"


def decode_shape(rules: Rules, model: ScoringModel, data: bytes) -> Shape:
    """Return the higher cumulants stored in ``data``; ``DamagedTableError`` if a check fails."""
    arrays = decode_arrays(rules, data)
    if any(q not in arrays for q in SHAPE):
        raise DamagedTableError("not a table of cumulants")
    tables = [arrays[q] for q in SHAPE]
    if any(t.shape != model.shape or t.dtype != np.float32 for t in tables):
        raise DamagedTableError("array shapes do not fit the rules")
    return Shape(tables[0], tables[1])


def build_shape(rules: Rules, solution: Solution, moments: Moments,
                report: Report | None = None) -> Shape:
    """Work out the higher cumulants of ``rules``, telling ``report`` how far it is."""
    started = time.perf_counter()
    _tell(report, BuildStarted(rules.name, shape=True))

    def progress(done: int, total: int) -> None:
        """Pass on how many turns are worked out."""
        _tell(report, BuildProgress(done, total))

    shape = solve_shape(solution.model, solution.values, moments.second, progress)
    _tell(report, BuildFinished(solution.model.rounds, time.perf_counter() - started))
    return shape


def decode_moments(rules: Rules, model: ScoringModel, data: bytes) -> Moments:
    """Return the moments stored in ``data``; ``DamagedTableError`` if any check fails."""
    arrays = decode_arrays(rules, data)
    if any(q not in arrays for q in QUANTITIES):
        raise DamagedTableError("not a table of moments")
    tables = [arrays[q] for q in QUANTITIES]
    if any(t.shape != model.shape or t.dtype != np.float64 for t in tables):
        raise DamagedTableError("array shapes do not fit the rules")
    return Moments(tables[0], tables[1], tables[2])


def build_moments(rules: Rules, solution: Solution, report: Report | None = None,
                  with_shape: bool = False) -> Moments:
    """Work out the moments of ``rules`` from its solution, telling ``report`` how far it is.

    ``with_shape``: with their ``Shape``, worked out in the same pass.
    """
    started = time.perf_counter()
    _tell(report, BuildStarted(rules.name, moments=True))

    def progress(done: int, total: int) -> None:
        """Pass on how many turns are worked out."""
        _tell(report, BuildProgress(done, total))

    moments = solve_moments(solution.model, solution.values, progress, with_shape=with_shape)
    _tell(report, BuildFinished(solution.model.rounds, time.perf_counter() - started))
    return moments


def _load_or_make(memo: dict[tuple[str, TableStore | None], _Table], rules: Rules, name: str,
                  store: TableStore | None, report: Report | None,
                  read: Callable[[bytes], _Table], make: Callable[[], _Table],
                  write: Callable[[_Table], bytes]) -> _Table:
    """Return a table of ``rules``: from ``memo``, read from ``store`` as ``name``, or made.

    What cannot be read or used is reported and made again; a made table is
    written to ``store`` (a failure there is reported, the table still used).
    """
    key = _memo_key(rules, store)
    kept = memo.get(key)
    if kept is not None:
        return kept
    with _loading(name, key):
        kept = memo.get(key)  # made meanwhile by the thread that held the lock?
        if kept is not None:
            return kept
        return _read_or_make(memo, key, name, store, report, read, make, write)


def _read_or_make(memo: dict[tuple[str, TableStore | None], _Table],
                  key: tuple[str, TableStore | None], name: str,
                  store: TableStore | None, report: Report | None,
                  read: Callable[[bytes], _Table], make: Callable[[], _Table],
                  write: Callable[[_Table], bytes]) -> _Table:
    """Return the table ``name`` read from ``store``, or made and stored; kept in ``memo``.

    Called by ``_load_or_make`` with the table's lock held.
    """
    table: _Table | None = None
    data: bytes | None = None
    if store is not None:
        try:
            data = store.read(name, MAX_TABLE_BYTES)
        except OSError as error:
            _tell(report, TableUnusable(store.where(name), error.strerror or str(error),
                                        unreadable=True))
    if data is not None and store is not None:
        try:
            table = read(data)
        except DamagedTableError as error:
            _tell(report, TableUnusable(store.where(name), str(error)))
    if table is None:
        made = table = make()
        _store(store, name, report, lambda: write(made))
    memo[key] = table
    return table


def _store(store: TableStore | None, name: str, report: Report | None,
           data: Callable[[], bytes]) -> None:
    """Write ``data()`` to ``store`` as ``name``, if there is a store; a failure is reported."""
    if store is not None:
        try:
            store.write(name, data())
        except OSError as error:
            _tell(report, TableNotStored(store.where(name), error.strerror or str(error)))


def _memo_key(rules: Rules, store: TableStore | None) -> tuple[str, TableStore | None]:
    """Return the key of a rule set's table in memory, per store."""
    return json.dumps(rules_settings(rules), sort_keys=True), store


def _tell(report: Report | None, event: SolverEvent) -> None:
    """Pass ``event`` to ``report``, if there is one."""
    if report is not None:
        report(event)


def forget_loaded() -> None:
    """Drop the tables held in memory (the next use reads or builds them again)."""
    _LOADED.clear()
    _MOMENTS.clear()
    _SHAPES.clear()
