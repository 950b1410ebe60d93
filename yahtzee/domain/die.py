"""The ``Die`` class: one six-sided die, rolled by its game's generator or the shared default."""

from __future__ import annotations

import random
from typing import ClassVar


class Die:
    """One die showing a value from 1 to ``SIDES``.

    A die rolls with the generator it is given (a game's engine hands each of
    its dice the game's own ``random.Random``, saved with the game); a die
    given none uses the class-wide ``Die.r``, as the UML's dice do, so that
    seeding it (``Die.r.seed(n)``) makes code that uses the classes alone
    reproducible.
    """

    SIDES: ClassVar[int] = 6
    r: ClassVar[random.Random] = random.Random()
    __slots__ = ("_rng", "_value")

    def __init__(self, value: int | None = None, *, rng: random.Random | None = None) -> None:
        """Make a die showing ``value``, or a random face when ``value`` is None.

        ``rng`` is the generator the die rolls with; None: the shared ``Die.r``
        (looked up at each roll, so that replacing ``Die.r`` takes effect).
        """
        self._rng = rng
        if value is None:
            self._value = self._generator().randint(1, Die.SIDES)
        elif type(value) is int and 1 <= value <= Die.SIDES:  # the usual case, checked quickly
            self._value = value
        else:
            self._value = Die._checked(value)

    @staticmethod
    def _checked(value: int) -> int:
        """Return ``value`` if it is a face of the die; raise ``ValueError`` otherwise."""
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= Die.SIDES:
            raise ValueError(f"a die shows 1 to {Die.SIDES}, not {value!r}")
        return value

    def _generator(self) -> random.Random:
        """Return the generator this die rolls with."""
        return Die.r if self._rng is None else self._rng

    def roll(self) -> None:
        """Change the die to a random face from 1 to ``SIDES``."""
        self._value = self._generator().randint(1, Die.SIDES)

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
