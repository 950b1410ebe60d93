"""Outcome profiles: for a position and each option, what optimal play from there leads to.

A profile is the expected final score, its standard deviation, and the
chances that the card ends with the upper-section bonus and with 50 in the
Yahtzee box (Yahtzee only).  The numbers come from the state values and the
``Moments`` tables, and from a turn's inside worked out for the card's state
(``turn_moments``); they are exact, not sampled.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from math import sqrt
from typing import Any, Protocol

import numpy as np

from yahtzee.solver import accel
from yahtzee.solver.dynamic import (States, TurnValues, flat_index, single_turn_values,
                                    step_one, table_specials)
from yahtzee.solver.keeps import KEEPS, NUM_KEEPS, NUM_ROLLS, FloatArray, roll_number
from yahtzee.solver.model import ScoringModel
from yahtzee.solver.moments import Moments, leaf_moments, turn_moments
from yahtzee.solver.strategy import distinct_sub_keeps

_REMEMBERED = 1024
"""Turns' insides kept for reuse (a turn asks for the same state several times, and a
server has a turn in play per game: 1,024 serve about 500 games, 29 MB at most)."""


@dataclass(frozen=True)
class Profile:
    """Where an option leads under optimal play from then on.

    ``bonus`` and ``yahtzee`` are None in a game without that goal (Poker Dice).
    """

    mean: float
    """The expected final score."""
    sd: float
    """The standard deviation of the final score."""
    bonus: float | None
    """The chance that the card ends with the upper-section bonus."""
    yahtzee: float | None
    """The chance that the card ends with 50 in the Yahtzee box."""


class BoxMover(Protocol):
    """What a profile needs of a strategy: its tables, states and the legal boxes."""

    model: ScoringModel
    values: FloatArray

    def state_key(self, card: Any) -> tuple[int, int, int]:
        """Return the card's solver state (flag state, filled mask, capped upper total)."""
        ...

    def turn(self, card: Any) -> TurnValues:
        """Return the values inside a turn for the card's state, the boxes chosen."""
        ...

    def box_moves(self, card: Any, dice: Sequence[int]) -> list[tuple[Any, int, int, int]]:
        """Return the legal boxes as (box, slot, box points, bonus points)."""
        ...


@dataclass(frozen=True)
class Inside:
    """The numbers inside a turn that profiles read: ``moments.TurnMoments`` but its start."""

    leaf: FloatArray
    """(252, 3, 1): after the last roll."""
    one_left: FloatArray
    """(462, 3, 1): each keep with one roll left."""
    two_left: FloatArray
    """(462, 3, 1): each keep with two rolls left."""


def moments_inside(model: ScoringModel, values: FloatArray, tables: Sequence[FloatArray],
                   state: tuple[int, int, int], turn: TurnValues) -> Inside | None:
    """Return ``moments.turn_moments`` of one state (but its start), from the compiled kernel.

    ``turn`` holds the state's values inside the turn with the boxes chosen.
    Where each final roll leads (``accel.leaf_steps``) and the means over
    the keeps (``accel.turn_ends``) come from the kernel, in numpy's order
    of operations: the numbers are ``turn_moments``' own.  None without the
    kernel.
    """
    assert turn.choice is not None
    steps = accel.leaf_steps(model, *state, turn.choice)
    if steps is None:
        return None
    reward, following = (part[:, None] for part in steps)
    leaf = leaf_moments(values, tables, reward, following)
    carried = accel.turn_ends(turn.keep1, leaf.reshape(NUM_ROLLS, -1))
    if carried is None:
        return None
    one_left, two_left = (table.reshape(NUM_KEEPS, leaf.shape[1], 1) for table in carried)
    return Inside(leaf, one_left, two_left)


class Profiler:
    """Outcome profiles of a game's positions, from a strategy and its ``Moments``."""

    def __init__(self, strategy: BoxMover, moments: Moments, *, goals: bool = True) -> None:
        """Profile ``strategy``'s game; ``goals``: the game has the upper bonus and Yahtzee box."""
        self.strategy = strategy
        self.model = strategy.model
        self.values = strategy.values.ravel()
        self.moments = moments
        self.flats = [table.ravel() for table in moments.tables()]
        self.goals = goals
        self._inside: OrderedDict[tuple[int, int, int], Inside] = OrderedDict()

    def _profile(self, now: float, mean: float, second: float, bonus: float,
                 yahtzee: float) -> Profile:
        """Return a profile from the points scored ``now`` and the moments of what is to come."""
        variance = max(second - mean * mean, 0.0)
        return Profile(now + mean, sqrt(variance), bonus if self.goals else None,
                       yahtzee if self.goals else None)

    def _at_state(self, now: float, flag: int, mask: int, upper: int) -> Profile:
        """Return the profile of a card between turns in the given state."""
        index = flat_index(self.model, flag, mask, upper)
        second, bonus, yahtzee = (float(flat[index]) for flat in self.flats)
        return self._profile(now, float(self.values[index]), second, bonus, yahtzee)

    def between_turns(self, card: Any) -> Profile:
        """Return the profile of a card at the start of its next turn (or its end)."""
        return self._at_state(float(card.score()), *self.strategy.state_key(card))

    def _turn_inside(self, card: Any) -> tuple[TurnValues, Inside]:
        """Return the values and the moments inside a turn from the card's state."""
        key = self.strategy.state_key(card)
        turn = self.strategy.turn(card)
        inside = self._inside.get(key)
        if inside is None:
            flag, mask, upper = key
            states = States(np.array([flag]), np.array([mask]), np.array([upper]))
            values = self.values.reshape(self.model.shape)
            chosen = turn
            if chosen.choice is None:  # the strategy's turns leave out the boxes chosen
                chosen = single_turn_values(self.model, values, flag, mask, upper,
                                            table_specials(self.model, states))
            tables = self.moments.tables()
            inside = moments_inside(self.model, values, tables, key, chosen)
            if inside is None:
                slow = turn_moments(self.model, values, tables, states, chosen)
                inside = Inside(slow.leaf, slow.one_left, slow.two_left)
            self._inside[key] = inside
            if len(self._inside) > _REMEMBERED:
                self._inside.popitem(last=False)
        return turn, inside

    def keeps(self, card: Any, dice: Sequence[int], rolls_left: int,
              only: Collection[tuple[int, ...]] | None = None
              ) -> dict[tuple[int, ...], Profile]:
        """Return the profile of each keep of these dice; keeping all five is scoring now.

        With ``only`` (keeps, as sorted dice values), just those keeps of
        these dice are profiled: the options shown, rather than every keep.
        """
        if rolls_left not in (1, 2):
            raise ValueError(f"rolls_left must be 1 or 2, not {rolls_left}")
        turn, inside = self._turn_inside(card)
        now = float(card.score())
        roll = roll_number(list(dice))
        means = turn.keep1 if rolls_left == 1 else turn.keep2
        numbers = inside.one_left if rolls_left == 1 else inside.two_left
        keeps = distinct_sub_keeps(roll)
        if only is not None:
            wanted = set(only)
            own = [keeps[0]] if KEEPS[keeps[0]] in wanted else []
            others = [keep for keep in keeps[1:] if KEEPS[keep] in wanted]
            keeps = own + others
        else:
            own, others = keeps[:1], keeps[1:]
        mean_of = [float(turn.leaf[roll, 0])] * len(own) + means[others, 0].tolist()
        rows = [inside.leaf[roll, :, 0].tolist()] * len(own) + numbers[others, :, 0].tolist()
        return {KEEPS[keep]: self._profile(now, mean, *row)
                for keep, mean, row in zip(keeps, mean_of, rows)}

    def boxes(self, card: Any, dice: Sequence[int],
              only: Collection[int] | None = None) -> dict[Any, Profile]:
        """Return the profile of each box these dice may be scored in (``only`` those numbers)."""
        flag, mask, upper = self.strategy.state_key(card)
        now = float(card.score())
        result = {}
        for box, slot, points, bonus in self.strategy.box_moves(card, dice):
            if only is not None and box.number not in only:
                continue
            after = step_one(self.model, flag, mask, upper, slot, points, bonus)
            result[box] = self._at_state(now + after[3], *after[:3])
        return result
