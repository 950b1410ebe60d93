"""Moves as typed values: what a player may do at a prompt, with a parser and a formatter.

A move is one of: toggle a die between saved and not (by its position),
roll the dice not saved, stop rolling to choose a box, keep the dice
showing some faces and roll the rest, or score a box (by its menu number).
The engine lists the legal moves of a position and applies one; front ends
build moves from clicks (the browser) or parse them from typed text (the
console), once, at their edge.

A keep has two notations, as a chess move has two: the specification's
*positions* (``3`` toggles the third die; ``roll`` then rolls the dice not
saved) and the *faces* kept (``336`` keeps a 3, a 3 and a 6 and rolls the
other dice).  ``str(move)`` writes a move in the positions notation, which
is also how the game's log records every accepted move.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

ROLL_WORD = "roll"
SCORE_WORD = "score"
NONE_WORD = "none"
"""The faces notation's keep of no die: every die rolls, the saved ones too."""
KEEP_WORD = "keep"
"""The word that may come before the faces of a keep (``keep 3 3 6``), as the coach says it."""
_MENU_NUMBER = re.compile(r"[1-9][0-9]?")
"""A box number as the menu prints it: ASCII digits, no leading zero (``01`` is refused)."""
_FACES = re.compile(r"[1-9]{1,5}")
"""Faces to keep, in the faces notation: one to five ASCII digits."""


class MoveKind(enum.Enum):
    """What a move does; the value is how the browser's requests name it."""

    TOGGLE = "toggle"
    """Save or unsave one die (``Move.number``: its position, from 1)."""
    ROLL = "roll"
    """Roll the dice not saved."""
    SCORE = "score"
    """Stop rolling and choose a box (the re-rolls left are given up)."""
    KEEP = "keep"
    """Keep the dice showing ``Move.faces`` and roll the others (the faces notation's move)."""
    BOX = "box"
    """Score the dice in the box numbered ``Move.number`` (the menu's number, from 1)."""


class Notation(enum.Enum):
    """How a person writes which dice to keep at the die prompt."""

    POSITIONS = "positions"
    """The specification's: a die's position toggles it, ``roll`` rolls the others."""
    FACES = "faces"
    """The faces kept: ``336`` keeps a 3, a 3 and a 6 and rolls the rest."""


@dataclass(frozen=True)
class Move:
    """One move: its kind, a die's position or a box's number, and the faces of a keep.

    Build moves with the class methods (``Move.toggle(2)``, ``Move.box(13)``);
    ``str(move)`` is the positions notation (``2``, ``roll``, ``13``).
    """

    kind: MoveKind
    number: int = 0
    faces: tuple[int, ...] = ()

    @classmethod
    def toggle(cls, die: int) -> Move:
        """Return the move that saves or unsaves die ``die`` (its position, from 1)."""
        return cls(MoveKind.TOGGLE, die)

    @classmethod
    def roll(cls) -> Move:
        """Return the move that rolls the dice not saved."""
        return cls(MoveKind.ROLL)

    @classmethod
    def score(cls) -> Move:
        """Return the move that stops rolling, to choose a box."""
        return cls(MoveKind.SCORE)

    @classmethod
    def keep(cls, faces: Sequence[int]) -> Move:
        """Return the move that keeps dice showing ``faces`` (sorted here) and rolls the rest."""
        return cls(MoveKind.KEEP, faces=tuple(sorted(faces)))

    @classmethod
    def box(cls, number: int) -> Move:
        """Return the move that scores the box numbered ``number`` on the menu."""
        return cls(MoveKind.BOX, number)

    @property
    def chooses_box(self) -> bool:
        """Whether the move is made while choosing a box (the others are made while rolling)."""
        return self.kind is MoveKind.BOX

    def __str__(self) -> str:
        if self.kind in (MoveKind.TOGGLE, MoveKind.BOX):
            return str(self.number)
        if self.kind is MoveKind.KEEP:
            return "".join(str(face) for face in self.faces)
        return str(self.kind.value)

    def __repr__(self) -> str:
        if self.kind is MoveKind.KEEP:
            return f"Move.keep({list(self.faces)!r})"
        if self.kind in (MoveKind.TOGGLE, MoveKind.BOX):
            return f"Move.{self.kind.value}({self.number})"
        return f"Move.{self.kind.value}()"


WHOLE_NUMBER_DIGITS = 30
"""The most significant digits ``whole_number`` reads: more than any count the program takes."""


def whole_number(text: str) -> int | None:
    """Return the whole number ``text`` spells in ASCII digits (blanks around it ignored).

    None for anything else, and for a number of more than
    ``WHOLE_NUMBER_DIGITS`` significant digits: it is out of every range
    anyway, and Python refuses to read one of more than 4,300 digits.
    """
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()):
        return None
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= WHOLE_NUMBER_DIGITS else None


def parse_die_command(text: str, notation: Notation = Notation.POSITIONS,
                      dice: int = 5) -> Move | None:
    """Return the move a line typed at the die prompt names, or None if it names none.

    ``roll`` and ``score`` in any case, blanks around ignored, in either
    notation; then a die's position (1 to ``dice``) or the faces to keep
    (``none``: no die kept, all five rolled).
    """
    command = text.strip().lower()
    if command == ROLL_WORD:
        return Move.roll()
    if command == SCORE_WORD:
        return Move.score()
    if notation is Notation.FACES:
        if command == NONE_WORD:   # ``roll`` rolls the dice not saved; this rolls all five
            return Move.keep([])
        return Move.keep([int(c) for c in command]) if _FACES.fullmatch(command) else None
    number = whole_number(command)
    if number is not None and str(number) == command and 1 <= number <= dice:
        return Move.toggle(number)
    return None


def parse_box(text: str) -> Move | None:
    """Return the box a line typed at the menu names (its number, as printed), or None."""
    command = text.strip()
    return Move.box(int(command)) if _MENU_NUMBER.fullmatch(command) else None


def saved_flags(dice: Sequence[int], saved: Sequence[bool], keep: Sequence[int]) -> list[bool]:
    """Return which dice to save so that the saved values are the multiset ``keep``.

    Dice already saved are preferred, so that as few toggles as possible are
    needed; ``ValueError`` if the dice do not hold ``keep``.
    """
    wanted = Counter(keep)
    flags = [False] * len(dice)
    for prefer_saved in (True, False):
        for i, value in enumerate(dice):
            if not flags[i] and saved[i] == prefer_saved and wanted[value] > 0:
                flags[i] = True
                wanted[value] -= 1
    if +wanted:
        raise ValueError(f"cannot keep {sorted(keep)} from the dice {list(dice)}")
    return flags


def toggles_to_keep(dice: Sequence[int], saved: Sequence[bool],
                    keep: Sequence[int]) -> list[int]:
    """Return the positions (from 1) to toggle so that exactly ``keep`` is saved.

    Dice to unsave come first, so that a front end showing each step never
    shows more dice saved than are kept.  ``ValueError`` if the dice do not
    show ``keep``.
    """
    target = saved_flags(dice, saved, keep)
    changes = [i for i, (now, wanted) in enumerate(zip(saved, target)) if now != wanted]
    changes.sort(key=lambda i: not saved[i])
    return [i + 1 for i in changes]
