"""The ``Die`` class: one six-sided die sharing a single random generator."""

from __future__ import annotations

import random
from typing import ClassVar


class Die:
    """One die showing a value from 1 to ``SIDES``.

    Every die rolls with the class-wide generator ``Die.r``; seeding it
    (``Die.r.seed(n)``) makes a whole game's dice reproducible.
    """

    SIDES: ClassVar[int] = 6
    r: ClassVar[random.Random] = random.Random()

    def __init__(self, value: int | None = None) -> None:
        """Make a die showing ``value``, or a random face when ``value`` is None."""
        if value is None:
            self._value = Die.r.randint(1, Die.SIDES)
        else:
            self._value = Die._checked(value)

    @staticmethod
    def _checked(value: int) -> int:
        """Return ``value`` if it is a face of the die; raise ``ValueError`` otherwise."""
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= Die.SIDES:
            raise ValueError(f"a die shows 1 to {Die.SIDES}, not {value!r}")
        return value

    def roll(self) -> None:
        """Change the die to a random face from 1 to ``SIDES``."""
        self._value = Die.r.randint(1, Die.SIDES)

    def get_value(self) -> int:
        """Return the face the die shows."""
        return self._value

    def __str__(self) -> str:
        return str(self._value)

    def __repr__(self) -> str:
        return f"Die({self._value})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Die):
            return NotImplemented
        return self._value == other._value

    def __hash__(self) -> int:
        return hash(self._value)
