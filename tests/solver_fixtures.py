"""Shared fixtures of the solver tests: one private cache folder and each table built once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from yahtzee.domain.rules import COURSE, OFFICIAL
from yahtzee.solver.cache import Solution, forget_loaded, load_or_build, load_or_build_moments
from yahtzee.solver.moments import Moments
from yahtzee.storage.solver_files import SolverFiles


@pytest.fixture(scope="session")
def solver_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point ``YAHTZEE_CACHE_DIR`` at a fresh folder for the whole session."""
    folder = tmp_path_factory.mktemp("solver-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("YAHTZEE_CACHE_DIR", str(folder))
        forget_loaded()
        yield folder
    forget_loaded()


@pytest.fixture(scope="session")
def official(solver_cache: Path) -> Solution:
    """The solved table of the official rules (built once per session)."""
    return load_or_build(OFFICIAL, SolverFiles(solver_cache))


@pytest.fixture(scope="session")
def course(solver_cache: Path) -> Solution:
    """The solved table of the course rules (built once per session)."""
    return load_or_build(COURSE, SolverFiles(solver_cache))


@pytest.fixture(scope="session")
def official_moments(solver_cache: Path, official: Solution) -> Moments:
    """The spreads and chances of the official rules, stored beside their table (built once)."""
    return load_or_build_moments(OFFICIAL, official, SolverFiles(solver_cache))


@pytest.fixture(scope="session")
def course_moments(solver_cache: Path, course: Solution) -> Moments:
    """The spreads and chances of the course rules, stored beside their table (built once)."""
    return load_or_build_moments(COURSE, course, SolverFiles(solver_cache))
