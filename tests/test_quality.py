"""The suite's own code checks: mypy --strict, flake8, and the docstrings the course grades."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.joinpath("yahtzee").rglob("*.py"), ROOT / "game_driver.py",
                  *ROOT.joinpath("benchmarks").glob("*.py")])


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    """Run a Python tool module from the project's root and return the finished process."""
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_mypy_strict_is_clean() -> None:
    done = run_tool("mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def test_flake8_is_clean() -> None:
    done = run_tool("flake8", "yahtzee", "tests", "benchmarks", "game_driver.py")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_and_public_definition_has_a_docstring(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{path.name} has no module docstring"
    missing = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            if not ast.get_docstring(node):
                missing.append(node.name)
            for item in node.body:
                if (isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and not item.name.startswith("_") and not ast.get_docstring(item)):
                    missing.append(f"{node.name}.{item.name}")
    for node in tree.body:
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not node.name.startswith("_") and not ast.get_docstring(node)):
            missing.append(node.name)
    assert not missing, f"{path.name}: no docstring on {', '.join(missing)}"


def test_the_game_driver_is_two_lines_of_code() -> None:
    tree = ast.parse((ROOT / "game_driver.py").read_text(encoding="utf-8"))
    code = [node for node in tree.body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    assert len(code) == 2


def test_the_two_human_game_needs_nothing_outside_the_standard_library() -> None:
    probe = ("import sys; import yahtzee.cli, yahtzee.game, yahtzee.poker_dice; "
             "bad = [m for m in sys.modules if m.split('.')[0] in ('numpy',)]; "
             "print(bad); raise SystemExit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
