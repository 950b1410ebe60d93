"""Temporary files a killed process left are removed; a live process's are not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from yahtzee.storage import atomic
from yahtzee.storage.atomic import STALE_AFTER, write_atomic


def _dead_pid() -> int:
    """Return the ID of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def test_temporary_files_of_dead_processes_are_removed(tmp_path: Path) -> None:
    """The first write into a folder removes what dead processes left, and nothing else."""
    dead, alive = _dead_pid(), os.getppid()
    names = {"dead": f".1.json.{dead}.k2j3h4.tmp", "alive": f".1.json.{alive}.a8b7c6.tmp",
             "old": ".solver-course.table.x1y2z3.tmp", "fresh": ".2.json.q9w8e7.tmp",
             "not temp": f"1.json.{dead}.tmp"}
    for name in names.values():
        (tmp_path / name).write_bytes(b"partial")
    old = tmp_path / names["old"]
    os.utime(old, (old.stat().st_atime, old.stat().st_mtime - STALE_AFTER - 60))
    atomic._cleaned.discard(str(tmp_path))
    write_atomic(tmp_path / "3.json", b"{}\n")
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["3.json", names["alive"], names["fresh"], names["not temp"]])


def test_a_temporary_name_carries_the_writing_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a write is under way, its temporary file names this process."""
    seen: list[str] = []
    real_replace = os.replace

    def replace(source: str, target: Path) -> None:
        """Note the temporary name, then rename as usual."""
        seen.append(os.path.basename(source))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    write_atomic(tmp_path / "1.json", b"{}\n")
    assert len(seen) == 1 and seen[0].startswith(f".1.json.{os.getpid()}.")
