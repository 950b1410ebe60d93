"""Helpers of the browser table's tests: the game at the console, to compare with the browser's.

The person's seat plays by a fixed rule that needs no solver (score at
once, in the box worth most now, the lowest number of equals:
``benchmarks.web_load.best_box``), so that the same seed and the same
commands can be played again at the console and the totals compared.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from yahtzee.app.session import Solvers
from yahtzee.domain.games import get_variant
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.console_game import Game
from yahtzee.players.kinds import find_kind


def console_totals(kinds: Sequence[str], seed: int, lines: Sequence[str],
                   rules: str = "course") -> list[int]:
    """Return every player's total after playing the seeded game at the console, fed ``lines``."""
    variant = get_variant("yahtzee", rules)
    seats = []
    for name in kinds:
        kind = find_kind(name)
        assert kind is not None
        seats.append(kind)
    players = Solvers().players(seats, None, variant)
    text = "".join(line + "\n" for line in lines)
    game = Game(players, variant=variant, console=Console(io.StringIO(text), io.StringIO()),
                seed=seed)
    game.play_game()
    return [p.card.score() for p in players]
