"""One-line reports on standard error: errors, the solver's table cache, damaged stored files.

``Reporter`` is what a front end hands to the layers below to be told of
the solver's events (``Solvers(report=reporter.solver_event)``) and of
storage problems (it is a ``StorageProblems``).  The browser table's
server uses it as it is; the console's ``Console`` is one, so that each
of these sentences is written once, here.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from yahtzee.solver.events import (BuildFinished, BuildProgress, BuildStarted, SolverEvent,
                                   TableNotStored, TableUnusable)
from yahtzee.storage.problems import Damage, StoredFile

STORED_FILES = {"save": "the save", "history": "the game history",
                "saves folder": "the saves folder", "web game": "the browser game's file"}
DAMAGES = {"truncated": "is cut short", "corrupt": "is corrupt",
           "newer": "was written by a newer version of yahtzee",
           "unreadable": "cannot be read", "not a file": "is not a file"}
"""How a damaged stored file is described, by its kind and its ``Damage``."""


ERROR_WIDTH = 80
"""The widest line of an error message, in columns (an 80-column terminal's)."""
ERROR_INDENT = "  "
"""What starts each further line of an error message too long for one."""
COMMAND_GAP = "  "
"""What sets a command apart in an error message, on each side: ``fit_error`` keeps it whole."""
NO_BREAK = "\x00"
"""What stands for a blank within such a command while the message is broken into lines."""


def fit_error(text: str, width: int = ERROR_WIDTH) -> str:
    """Return an error message in lines of at most ``width`` columns.

    Each line of ``text`` that is longer is broken between words (never at
    a hyphen, so ``--keep-by`` and ``poker-dice`` stay whole) and goes on
    to lines indented by ``ERROR_INDENT``.  A command set off by two blanks
    on each side (``run  python -m pip install numpy  to ...``) is kept on
    one line, to be copied whole; a single word longer than a line is cut.
    """
    lines: list[str] = []
    for part in text.split("\n"):
        pieces = part.split(COMMAND_GAP)
        kept = COMMAND_GAP.join(piece.replace(" ", NO_BREAK) if index % 2 else piece
                                for index, piece in enumerate(pieces))
        wrapped = textwrap.wrap(kept, width, subsequent_indent=ERROR_INDENT,
                                break_on_hyphens=False) or [""]
        lines.extend(line.replace(NO_BREAK, " ") for line in wrapped)
    return "\n".join(lines)


class Reporter:
    """Writes errors, the solver's progress and storage problems to standard error, a line each."""

    def error(self, message: str) -> None:
        """Print a one-line error message to standard error."""
        sys.stderr.write(f"yahtzee: {message}\n")

    def refuse(self, message: str) -> None:
        """Print why the command line cannot run as given (an option or a value refused, a
        package missing) to standard error, in lines of ``ERROR_WIDTH`` columns at most.

        ``error``'s reports of what happened while a command ran (a damaged
        file, a lost database) stay on one line each, whole, as logs want.
        """
        sys.stderr.write(fit_error(f"yahtzee: {message}") + "\n")

    def solver_event(self, event: SolverEvent) -> None:
        """Show what the solver's table cache reports, on standard error.

        The build's turn-by-turn progress is shown only on a terminal, on one line.
        """
        err = sys.stderr
        live = err.isatty()
        if isinstance(event, TableUnusable):
            if event.unreadable:
                self.error(f"cannot read the solver table {event.where} ({event.reason}); "
                           "rebuilding it")
            else:
                self.error(f"the solver table {event.where} is not usable ({event.reason}); "
                           "rebuilding it")
        elif isinstance(event, BuildStarted):
            table = ("win-chance" if event.shape else "spread-and-chances" if event.moments
                     else "optimal-play")
            err.write(f"Building the {table} table for {event.rules} rules "
                      "(once, then cached)...\n")
        elif isinstance(event, BuildProgress):
            if live:
                err.write(f"\r  solved {event.done}/{event.total} turns")
        elif isinstance(event, BuildFinished):
            err.write(f"{chr(13) if live else ''}  solved {event.total}/{event.total} turns "
                      f"in {event.seconds:.1f} s\n")
        elif isinstance(event, TableNotStored):
            self.error(f"cannot store the solver table in {Path(event.where).parent} "
                       f"({event.reason}); keeping it in memory only")
        err.flush()

    def damaged_file(self, what: StoredFile, path: Path, damage: Damage,
                     moved_to: Path | None) -> None:
        """Say that a stored file is damaged and where it was put (one line, standard error)."""
        if moved_to is not None:
            kept = f"it was moved aside to {moved_to.name}"
        elif damage is Damage.UNREADABLE:
            kept = "it is left where it is"
        else:
            kept = "it could not be moved aside and is ignored"
        self.error(f"{STORED_FILES[what.value]} {path} {DAMAGES[damage.value]}; {kept}")

    def damaged_game(self, path: Path, game_id: int, reason: str) -> None:
        """Say (standard error) that one game of the history is impossible and is left out."""
        self.error(f"game {game_id} in the game history {path} is damaged ({reason}); "
                   "it is left out")

    def filed_twice(self, first_id: int, new_id: int | None) -> None:
        """Say (standard error) that this game had already been filed in the history."""
        if new_id is None:
            self.error(f"this game was already in the history as game {first_id}; "
                       "it is not filed twice")
        else:
            self.error(f"another copy of this game, played differently, is game {first_id} "
                       f"in the history; this one is filed as game {new_id}")

    def cannot_save(self, error: Exception) -> None:
        """Warn (standard error) that the game cannot be saved, and that play goes on."""
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        self.error(f"warning: the game cannot be saved ({reason}); play goes on without saving")
