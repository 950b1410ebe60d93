"""The changes appended to a save file between two whole writes of it.

A game in play is written at every move.  Writing the whole save each time
(the log of every decision so far, through a temporary file, a rename and
two syncs) costs far more than the move itself, so a save file is one whole
save on its first line followed by one line per later write, each holding
only what changed::

    {"step": 1, "updated": "<UTC ISO time>", "finished": false,
     "game": {"log_at": 12, "log": [<the new decisions>], "players": [...],
              "round": 2, "seat": 1, "turn": {...}, "rng": {...}}}

``log_at`` is how many decisions the log held before this step's (a check
that no step was lost or repeated).  The dice's generator is left out when
it did not change; when only its position in its table of numbers moved
(most rolls), ``rng_at`` gives the new position; otherwise ``rng`` holds it
whole.  After ``STEPS_BEFORE_REWRITE`` steps, or when
anything else changes (the browser seats, the way a keep is typed), the save is
written whole again.

A line is appended with one write; a process killed while writing leaves at
most the last line unfinished (no newline at its end).  That line was never
reported as written, so reading drops it; any other line that cannot be
used makes the whole file damaged, as a damaged first line does.
"""

from __future__ import annotations

import json
from typing import Any

from yahtzee.engine.records import GameRecord
from yahtzee.storage.fields import FieldError, listed, mapping, whole
from yahtzee.storage.snapshot import (SnapshotError, decision_to_dict, position_to_dict,
                                      rng_to_dict)

STEPS_BEFORE_REWRITE = 48
"""How many steps a save file takes before it is written whole again.

About one game of two players between whole writes; a step is a few
hundred bytes (about 7 kB when the generator's table is drawn anew, once
every few dozen rolls).
"""

_COPIED = ("players", "round", "seat", "turn")
"""The parts of a game record a step holds whole (they are small: ``position_to_dict``)."""


def step_of(old: GameRecord, new: GameRecord, number: int, updated: str,
            finished: bool) -> dict[str, Any] | None:
    """Return the step that turns the save of ``old`` into that of ``new``, as JSON-able data.

    None when ``new`` is not ``old`` moved on (another game or rule set, other
    players, or a log that does not begin with ``old``'s): the save must then
    be written whole.  ``number`` counts the file's steps from 1.
    """
    logged = len(old.log)
    if (new.variant != old.variant or new.rules != old.rules
            or len(new.players) != len(old.players) or new.log[:logged] != old.log):
        return None
    game: dict[str, Any] = {"log_at": logged,
                            "log": [decision_to_dict(d) for d in new.log[logged:]],
                            **position_to_dict(new)}
    if new.rng is not old.rng:  # the very same state: ``Engine.record`` while nothing was drawn
        (version, state, gauss), (old_version, old_state, old_gauss) = new.rng, old.rng
        if version != old_version or gauss != old_gauss or state[:-1] != old_state[:-1]:
            game["rng"] = rng_to_dict(new)
        elif state[-1] != old_state[-1]:  # only its position in its table moved
            game["rng_at"] = state[-1]
    return {"step": number, "updated": updated, "finished": finished, "game": game}


def apply_steps(save: dict[str, Any], tail: str) -> dict[str, Any]:
    """Return the save data ``save`` (its first line, parsed) with the steps in ``tail`` applied.

    ``tail`` is the text after the first line.  An unfinished last line is
    dropped; a step that does not parse or does not follow the one before
    raises ``SnapshotError``.  The result is checked as a whole by its reader.
    """
    lines = tail.split("\n")
    lines.pop()  # what follows the last newline: nothing, or a step cut short
    if not lines:
        return save
    game = mapping(save.get("game"), "the game")
    log = list(listed(game.get("log"), "the log"))
    result = dict(save, game=dict(game, log=log))
    for number, line in enumerate(lines, start=1):
        _apply(result, line, number)
    return result


def _apply(save: dict[str, Any], line: str, number: int) -> None:
    """Apply one step, the ``number``-th, to ``save`` in place; ``SnapshotError`` if it is wrong."""
    try:
        step = mapping(json.loads(line), "a step")
    except (json.JSONDecodeError, RecursionError):
        raise SnapshotError(f"step {number} is not JSON") from None
    if whole(step.get("step"), "a step's number", low=1) != number:
        raise SnapshotError(f"step {number} is out of order")
    changes = mapping(step.get("game"), "a step's game")
    game = save["game"]
    if whole(changes.get("log_at"), "a step's log position", low=0) != len(game["log"]):
        raise SnapshotError(f"step {number} does not follow the log")
    game["log"].extend(listed(changes.get("log"), "a step's log"))
    for key in (*_COPIED, "rng"):
        if key in changes:
            game[key] = changes[key]
    if "rng_at" in changes:
        _move_rng(game, changes["rng_at"], number)
    for key in ("updated", "finished"):
        if key not in step:
            raise FieldError(f"step {number} has no {key!r}")
        save[key] = step[key]


def _move_rng(game: dict[str, Any], position: object, number: int) -> None:
    """Set the position of ``game``'s dice generator in its table; ``FieldError`` if it has none."""
    rng = mapping(game.get("rng"), "the dice's generator")
    state = listed(rng.get("state"), "the generator's state")
    if not state:
        raise FieldError(f"step {number} moves a generator that has no state")
    game["rng"] = dict(rng, state=[*state[:-1], position])
