"""A rule set's solved table loaded, or built, in a background thread while people play.

A person in the first seat needs no table to type their first commands, so
a console game with a computer starts at once and the table is made
meanwhile (numpy's array work and the compiled kernel run without the
interpreter lock).  Whoever needs the table (a computer about to move, the
coach, the end-of-game analysis) calls ``result()``, which waits for it.
Nothing is reported while nobody waits, so that a person's prompt is never
interrupted: the build's messages are held back, and shown from where the
build stands once somebody waits; a build finished unseen shows only its
problems (a damaged file, a store that cannot be written).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from yahtzee.solver.events import (BuildFinished, BuildProgress, BuildStarted, Report,
                                   SolverEvent)

if TYPE_CHECKING:
    from yahtzee.domain.rules import Rules
    from yahtzee.solver.cache import Solution

Loader = Callable[["Rules", "Report"], "Solution"]
"""Loads or builds the table of a rule set, telling the report (``load_or_build``)."""


class _Cancelled(Exception):
    """Raised inside the build, through its report, to stop it (the result is not wanted)."""


class TableLoader:
    """One rule set's table, made by ``load`` in a background thread; ``result()`` waits for it."""

    def __init__(self, rules: Rules, load: Loader, report: Report | None = None) -> None:
        """Start making the table of ``rules`` with ``load``, telling ``report`` once waited for.

        Returns once the build has started its helper process (if it makes
        one), so that no process is forked while the main thread reads a line.
        """
        self.rules = rules
        self._load = load
        self._report = report
        self._lock = threading.Lock()
        self._held: list[SolverEvent] = []
        self._live = False
        self._cancelled = False
        self._solution: Solution | None = None
        self._error: BaseException | None = None
        self._under_way = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"table-{rules.name}",
                                        daemon=True)
        self._thread.start()
        try:
            self._under_way.wait()
        except BaseException:
            self.cancel()
            raise

    def _run(self) -> None:
        """Make the table; keep it or the error that stopped it."""
        try:
            self._solution = self._load(self.rules, self._event)
        except _Cancelled:
            pass
        except BaseException as error:  # handed to whoever waits, in their thread
            self._error = error
        finally:
            self._done.set()
            self._under_way.set()

    def _event(self, event: SolverEvent) -> None:
        """Pass ``event`` on if somebody waits, else hold it back (the latest progress only)."""
        with self._lock:
            if self._cancelled:
                raise _Cancelled()
            if isinstance(event, BuildProgress):
                self._under_way.set()
            if self._live:
                if self._report is not None:
                    self._report(event)
                return
            if isinstance(event, BuildProgress) and self._held and isinstance(
                    self._held[-1], BuildProgress):
                self._held[-1] = event
            else:
                self._held.append(event)

    def done(self) -> bool:
        """Return whether the table is ready (or its making failed)."""
        return self._done.is_set()

    def result(self) -> Solution:
        """Return the table, waiting for it with the build's messages shown from where it stands.

        A build that ended before anybody waited shows only its problems.  An
        error of the build is raised here.
        """
        with self._lock:
            if not self._live:
                finished = self._done.is_set()
                for event in self._held:
                    quiet = isinstance(event, (BuildStarted, BuildProgress, BuildFinished))
                    if self._report is not None and not (finished and quiet):
                        self._report(event)
                self._held.clear()
                self._live = True
        self._done.wait()
        if self._error is not None:
            raise self._error
        if self._solution is None:
            raise RuntimeError(f"the {self.rules.name} table was cancelled")
        return self._solution

    def cancel(self) -> None:
        """Stop the build (at its next report) and wait for the thread to end."""
        with self._lock:
            self._cancelled = True
        self._thread.join()
