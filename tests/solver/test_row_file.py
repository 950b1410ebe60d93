"""Exact rows kept in a row file: the same rows as in memory, read back rather than worked
out again (in this process or another), and never trusted when torn or damaged."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yahtzee.solver import row_file
from yahtzee.solver.cache import Solution
from yahtzee.solver.dynamic import level_states, state_index
from yahtzee.solver.moments import LastTurn, rows_file_name, rows_key
from yahtzee.solver.play_to_win import keep_rows_in, shared_last_turn

FIELDS = ("pmf", "cdf", "width", "points", "chances", "size")
ROOT = Path(__file__).resolve().parents[2]


def some_states(solution: Solution, turns_left: int, count: int, seed: int) -> Any:
    """Return the flat indexes of ``count`` states with ``turns_left`` turns to go (all, if
    there are fewer)."""
    model = solution.model
    states = level_states(model, model.rounds - turns_left)
    pick = np.random.default_rng(seed).choice(len(states), size=min(count, len(states)),
                                              replace=False)
    return state_index(model, states.flag[pick], states.mask[pick], states.upper[pick])


def assert_same_rows(last: LastTurn, alone: LastTurn, index: Any) -> None:
    """Assert that ``last`` and ``alone`` give the states ``index`` the same rows, exactly."""
    rows, mine = last.rows(index), alone.rows(index)
    for name in FIELDS:
        assert np.array_equal(getattr(last, name)[rows], getattr(alone, name)[mine]), name


def solved_here(last: LastTurn) -> list[int]:
    """Make ``last`` note the rows it works out itself (rather than reads); return the list."""
    solved: list[int] = []
    solve = last._solve

    def noting(some: Any) -> None:
        solved.extend(some.tolist())
        solve(some)
    last._solve = noting  # type: ignore[method-assign]
    return solved


def test_rows_kept_in_a_file_are_the_rows_of_memory_and_are_read_back_not_worked_out(
        official: Solution, tmp_path: Path) -> None:
    index = np.concatenate([some_states(official, 2, 12, 1), some_states(official, 1, 12, 2)])
    kept = LastTurn(official.model, official.values, 2, tmp_path)
    assert kept.file is not None
    assert kept.file.path.parent == tmp_path
    assert_same_rows(kept, LastTurn(official.model, official.values, 2), index)
    again = LastTurn(official.model, official.values, 2, tmp_path)
    solved = solved_here(again)
    assert_same_rows(again, kept, index)
    assert solved == []
    ones = some_states(official, 1, 200, 3)
    fresh = ones[~kept._solved[kept.row_of[ones]]][:3]  # rows nobody has worked out yet
    assert len(fresh) == 3
    again.rows(fresh)
    assert sorted(solved) == sorted(set(again.row_of[fresh].tolist()))


def test_a_row_whose_record_does_not_match_its_mark_is_worked_out_again(
        official: Solution, tmp_path: Path) -> None:
    index = some_states(official, 1, 10, 4)
    kept = LastTurn(official.model, official.values, 1, tmp_path)
    rows = kept.rows(index)
    assert kept.file is not None
    torn = int(rows[3])
    where = kept.file._records_at + torn * kept.file.dtype.itemsize + 8 * 7  # in its pmf
    with open(kept.file.path, "r+b") as stream:
        stream.seek(where)
        stream.write(b"\x01" * 8)
    again = LastTurn(official.model, official.values, 1, tmp_path)
    solved = solved_here(again)
    assert_same_rows(again, LastTurn(official.model, official.values, 1), index)
    assert solved == [torn]


def test_a_row_file_with_a_damaged_header_is_made_again(official: Solution,
                                                        tmp_path: Path) -> None:
    path = tmp_path / rows_file_name(official.model, 1, rows_key(official.model,
                                                                 official.values, 1))
    path.write_bytes(b"not a row file\n" * 100)
    kept = LastTurn(official.model, official.values, 1, tmp_path)
    assert kept.file is not None
    assert path.read_bytes().startswith(row_file.MAGIC)
    index = some_states(official, 1, 6, 5)
    assert_same_rows(kept, LastTurn(official.model, official.values, 1), index)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no file made aside


def test_rows_stay_in_memory_once_the_file_cannot_take_them(
        official: Solution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = LastTurn(official.model, official.values, 1)
    kept = LastTurn(official.model, official.values, 1, tmp_path)
    before = some_states(official, 1, 8, 6)
    assert_same_rows(kept, alone, before)

    def full(*_: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "pwrite", full)
    after = some_states(official, 1, 8, 7)
    assert_same_rows(kept, alone, after)
    assert kept.file is None
    assert_same_rows(kept, alone, before)  # the rows read from the file were kept


def test_without_its_folder_rows_stay_in_memory(official: Solution, tmp_path: Path) -> None:
    kept = LastTurn(official.model, official.values, 1, tmp_path / "gone")
    assert kept.file is None
    assert_same_rows(kept, LastTurn(official.model, official.values, 1),
                     some_states(official, 1, 4, 8))
    assert not (tmp_path / "gone").exists()


def test_without_pwrite_rows_stay_in_memory(official: Solution, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "pwrite")  # as on Windows
    kept = LastTurn(official.model, official.values, 1, tmp_path)
    assert kept.file is None
    assert_same_rows(kept, LastTurn(official.model, official.values, 1),
                     some_states(official, 1, 4, 10))
    assert list(tmp_path.iterdir()) == []


def test_rows_another_process_worked_out_are_read_here(
        official: Solution, solver_cache: Path, tmp_path: Path) -> None:
    index = some_states(official, 1, 5, 9)
    script = ("import sys; from pathlib import Path; import numpy as np\n"
              "from yahtzee.domain.rules import OFFICIAL\n"
              "from yahtzee.solver.cache import load_or_build\n"
              "from yahtzee.solver.moments import LastTurn\n"
              "from yahtzee.storage.solver_files import SolverFiles\n"
              "table = load_or_build(OFFICIAL, SolverFiles(Path(sys.argv[1])))\n"
              "last = LastTurn(table.model, table.values, 1, Path(sys.argv[2]))\n"
              "assert last.file is not None\n"
              "last.rows(np.array([int(i) for i in sys.argv[3:]]))\n")
    subprocess.run([sys.executable, "-c", script, str(solver_cache), str(tmp_path),
                    *map(str, index.tolist())], check=True, cwd=ROOT, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    here = LastTurn(official.model, official.values, 1, tmp_path)
    solved = solved_here(here)
    assert_same_rows(here, LastTurn(official.model, official.values, 1), index)
    assert solved == []


def test_the_shared_rows_go_to_the_folder_given(official: Solution, tmp_path: Path) -> None:
    keep_rows_in(tmp_path)
    try:
        values = official.values.copy()  # a table of its own: not one shared already
        last = shared_last_turn(official.model, values, 1)
        assert last.file is not None and last.file.path.parent == tmp_path
        keep_rows_in(None)
        assert shared_last_turn(official.model, values, 1) is last
        assert shared_last_turn(official.model, values.copy(), 1).file is None
    finally:
        keep_rows_in(None)


def test_a_file_made_by_another_process_and_gone_again_is_no_row_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process names its file first (the link is refused), then removes it: the
    open fails as missing, and this process's descriptor is closed once, not twice."""
    closed: list[int] = []
    close = os.close

    def refused(source: Any, target: Any) -> None:
        """Fail as linking to a name another process took does."""
        raise FileExistsError(errno.EEXIST, "taken", str(target))

    def counted(fd: int) -> None:
        """Close ``fd``, noting it."""
        closed.append(fd)
        close(fd)

    monkeypatch.setattr(os, "link", refused)
    monkeypatch.setattr(os, "close", counted)
    path = tmp_path / "rows.bin"
    assert row_file.RowFile.open(path, np.dtype(np.float64), 10, "key") is None
    assert len(closed) == len(set(closed)) == 1
    assert list(tmp_path.iterdir()) == []
