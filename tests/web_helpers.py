"""Helpers of the browser table's tests: a policy for the person's seat, the game at the console.

The person plays by a fixed rule that needs no solver (score at once, in
the box worth most now, the lowest number of equals), so that the same
seed and the same commands can be played again at the console and the
totals compared.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from yahtzee.app.session import Setup
from yahtzee.domain.games import get_variant
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.console_game import Game
from yahtzee.players.kinds import find_kind


def best_box(state: dict[str, Any]) -> int:
    """Return the menu number of the box worth most now for the seat to play (lowest of equals)."""
    boxes = state["players"][state["turn"] - 1]["boxes"]
    offered = [(box["now"], -box["number"]) for box in boxes if box["now"] is not None]
    return int(-max(offered)[1])


def console_totals(kinds: Sequence[str], seed: int, lines: Sequence[str],
                   rules: str = "course") -> list[int]:
    """Return every player's total after playing the seeded game at the console, fed ``lines``."""
    variant = get_variant("yahtzee", rules)
    seats = []
    for name in kinds:
        kind = find_kind(name)
        assert kind is not None
        seats.append(kind)
    players = Setup().players(seats, None, variant)
    text = "".join(line + "\n" for line in lines)
    game = Game(players, variant=variant, console=Console(io.StringIO(text), io.StringIO()),
                seed=seed)
    game.play_game()
    return [p.card.score() for p in players]
