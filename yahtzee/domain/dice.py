"""The ``Dice`` container of dice and its rolling specialization ``DiceRoll``."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import ClassVar

from yahtzee.domain.die import Die


class Dice:
    """An initially empty, ordered collection of ``Die`` objects."""

    DEF_CAP: ClassVar[int] = 5

    def __init__(self, num: int = DEF_CAP) -> None:
        """Make an empty collection meant to hold about ``num`` dice."""
        if num < 0:
            raise ValueError(f"a capacity cannot be negative, not {num}")
        self._dice: list[Die] = []

    @staticmethod
    def of(values: Iterable[int]) -> Dice:
        """Return a collection holding dice that show ``values``, in order."""
        dice = Dice()
        dice._dice = [Die(value) for value in values]
        return dice

    def add_die(self, d: Die) -> None:
        """Add ``d`` at the end of the collection."""
        self._dice.append(d)

    def get_num_dice(self) -> int:
        """Return how many dice the collection holds."""
        return len(self._dice)

    def get_die(self, i: int) -> Die:
        """Return the die at index ``i`` (0-based); ``IndexError`` if there is none."""
        if not 0 <= i < len(self._dice):
            raise IndexError(f"no die at index {i}")
        return self._dice[i]

    def remove_die(self, i: int) -> Die:
        """Remove and return the die at index ``i`` (0-based)."""
        if not 0 <= i < len(self._dice):
            raise IndexError(f"no die at index {i}")
        return self._dice.pop(i)

    def count(self, val: int) -> int:
        """Return how many dice show ``val``."""
        return sum(1 for die in self._dice if die.get_value() == val)

    def sum(self) -> int:
        """Return the total of the faces shown."""
        return sum(die.get_value() for die in self._dice)

    def contains(self, val: int) -> bool:
        """Return whether at least one die shows ``val``."""
        return any(die.get_value() == val for die in self._dice)

    def values(self) -> list[int]:
        """Return the faces shown, in order."""
        return [die.get_value() for die in self._dice]

    def counts(self) -> tuple[int, ...]:
        """Return how many dice show each face, from 1 to ``Die.SIDES``."""
        return tuple(self.count(face) for face in range(1, Die.SIDES + 1))

    def __iter__(self) -> Iterator[Die]:
        return iter(self._dice)

    def __len__(self) -> int:
        return len(self._dice)

    def __str__(self) -> str:
        return "\n".join(f"{i}: value {die}" for i, die in enumerate(self._dice, start=1))

    def __repr__(self) -> str:
        return f"{type(self).__name__}.of({self.values()!r})"


class DiceRoll(Dice):
    """A ``Dice`` of ``NUM_DIE`` random dice that can all be tossed at once."""

    NUM_DIE: ClassVar[int] = 5

    def __init__(self, *, rng: random.Random | None = None) -> None:
        """Fill the collection with ``NUM_DIE`` randomly rolled dice.

        ``rng`` is the generator the dice roll with (a game's own); None:
        the shared ``Die.r``.
        """
        super().__init__(DiceRoll.NUM_DIE)
        for _ in range(DiceRoll.NUM_DIE):
            self.add_die(Die(rng=rng))

    @staticmethod
    def showing(values: Iterable[int], *, rng: random.Random | None = None) -> DiceRoll:
        """Return dice showing ``values`` (drawing nothing), to roll with ``rng`` from then on."""
        roll = DiceRoll.__new__(DiceRoll)
        values = list(values)
        Dice.__init__(roll, len(values))
        for value in values:
            roll.add_die(Die(value, rng=rng))
        return roll

    def toss(self) -> None:
        """Roll every die in the collection."""
        for die in self:
            die.roll()
