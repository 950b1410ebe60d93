"""The suite's own code checks: mypy --strict, flake8, the import contract, docstrings, complexity.

The import contract (``[importlinter]`` in setup.cfg) says that each layer
imports only the layers below it and that only the solver uses numpy; a
second check finds import cycles anywhere in the package, counting every
import (module level, inside functions, under ``TYPE_CHECKING``).  No
function, method or closure of the package is above cyclomatic complexity 15
(radon's measure, read through its API).
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def test_the_import_contract_is_kept() -> None:
    done = subprocess.run([sys.executable, "-c",
                           "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """Return which of ``modules`` a source file imports, wherever the import statement stands."""
    package = path.relative_to(ROOT).parent.as_posix().replace("/", ".")
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def test_no_module_of_the_package_takes_part_in_an_import_cycle() -> None:
    """Every import counts; the package faces (``__init__``, ``__main__``) only re-export."""
    paths = {p.relative_to(ROOT).with_suffix("").as_posix().replace("/", "."): p
             for p in ROOT.joinpath("yahtzee").rglob("*.py")
             if p.name not in ("__init__.py", "__main__.py")}
    graph = {name: imports_of(path, set(paths)) - {name} for name, path in paths.items()}
    cycles: list[list[str]] = []
    finished: set[str] = set()

    def visit(module: str, chain: list[str]) -> None:
        """Walk the imports from ``module``, recording any chain that comes back to itself."""
        if module in chain:
            cycles.append(chain[chain.index(module):] + [module])
            return
        if module in finished:
            return
        for imported in sorted(graph[module]):
            visit(imported, chain + [module])
        finished.add(module)

    for module in sorted(graph):
        visit(module, [])
    assert sum(len(edges) for edges in graph.values()) > 100
    assert cycles == []


def test_the_web_imports_nothing_from_the_console() -> None:
    """The browser table takes its words from ``wording`` and reports through ``reporting``."""
    web = sorted(ROOT.joinpath("yahtzee", "interfaces", "web").rglob("*.py"))
    assert web
    console = "yahtzee.interfaces.console"
    leaning = [p.name for p in web if imports_of(p, {console})]
    assert leaning == []


def test_the_two_human_game_needs_nothing_outside_the_standard_library() -> None:
    probe = ("import sys; import yahtzee, yahtzee.interfaces.cli, yahtzee.domain.poker_dice; "
             "bad = [m for m in sys.modules "
             "       if m.split('.')[0] in ('numpy', 'starlette', 'uvicorn')]; "
             "print(bad); raise SystemExit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_module_outside_the_domain_assigns_the_shared_die_generator() -> None:
    """Each game's engine owns its dice; ``Die.r`` is the UML classes' default alone."""
    offenders = []
    for path in SOURCES:
        if path.is_relative_to(ROOT / "yahtzee" / "domain"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign))
                       else [])
            for target in targets:
                if (isinstance(target, ast.Attribute) and target.attr == "r"
                        and isinstance(target.value, ast.Name) and target.value.id == "Die"):
                    offenders.append(f"{path.relative_to(ROOT)}:{target.lineno}")
    assert offenders == []


MAX_COMPLEXITY = 15
"""The highest cyclomatic complexity (radon's) a function or method of the package may have."""


def complexities(path: Path) -> dict[tuple[int, str], int]:
    """Return radon's cyclomatic complexity of every function, method and closure in ``path``.

    Keyed by line and full name; a class counts through its methods.
    """
    visit = importlib.import_module("radon.complexity").cc_visit
    found: dict[tuple[int, str], int] = {}

    def walk(blocks: list[Any]) -> None:
        """Note the functions among ``blocks`` and, within them, their closures and classes."""
        for block in blocks:
            if hasattr(block, "methods"):  # a class: its methods, and the classes in it
                walk(block.methods)
                walk(block.inner_classes)
            else:
                found[(block.lineno, block.fullname)] = block.complexity
                walk(block.closures)

    walk(visit(path.read_text(encoding="utf-8")))
    return found


def test_no_function_is_above_the_complexity_limit() -> None:
    offenders = [f"{path.relative_to(ROOT)}:{line} {name} {score}"
                 for path in sorted(ROOT.joinpath("yahtzee").rglob("*.py"))
                 for (line, name), score in sorted(complexities(path).items())
                 if score > MAX_COMPLEXITY]
    assert not offenders, (f"{len(offenders)} above cyclomatic complexity {MAX_COMPLEXITY} "
                           "(radon cc):\n" + "\n".join(offenders))
