"""Plain records of a game: each accepted decision, the turn in progress, the whole game state.

Beside them, ``TurnChances``: the win chances at a turn's start, which the
history files with a finished game.

Records hold only numbers, strings and tuples (and the generator's numbers
in an array), so that persistence can write and read them and an analysis
can replay them without a live game.  A ``GameRecord`` is everything needed
to go on with a game exactly where it stands, the state of the dice
generator included.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from yahtzee.domain.card import Card, MenuItem, Variant
from yahtzee.domain.dice import Dice
from yahtzee.engine.moves import Move, MoveKind, parse_box, parse_die_command

REROLLS = 2
"""Re-rolls allowed after a turn's first roll."""
ROLLS = 1 + REROLLS
"""Rolls in a turn: the first, then at most ``REROLLS`` re-rolls."""

if TYPE_CHECKING:
    RngState = tuple[int, array[int], float | None]
else:  # ``array[int]`` is written only from Python 3.12 on
    RngState = tuple[int, array, float | None]
"""The state of a ``random.Random`` as ``getstate()`` gives it, its 625 numbers in an array.

Held so (``rng_state``), a game's generator takes 2.5 kB rather than the
25 kB of 625 numbers each an object of its own (and the garbage collector's
first pass after a roll has 625 fewer of them to look at).  ``getstate_of``
gives it back as ``setstate`` takes it.  The array is never changed: one
state is shared by every record made until the next roll, and a save's
step (``storage.steps``) takes the same object for the same state.
"""

_WORD = "I" if array("I").itemsize >= 4 else "L"
"""The array's type: the generator's numbers are 32 bits wide."""


def rng_state(state: tuple[int, Sequence[int], float | None]) -> RngState:
    """Return a generator's state (``random.Random.getstate()``) as a record holds it."""
    version, internal, gauss = state
    return version, array(_WORD, internal), gauss


def getstate_of(state: RngState) -> tuple[int, tuple[int, ...], float | None]:
    """Return a record's generator state as ``random.Random.setstate`` takes it."""
    version, internal, gauss = state
    return version, tuple(internal), gauss


@dataclass(frozen=True)
class Decision:
    """One accepted command, with the position it was given in.

    ``round`` counts from 1 and ``seat`` from 0; ``dice`` and ``saved`` are
    the dice shown and saved when the command was given, ``rolls_left`` the
    re-rolls then left.  ``command`` is the command as accepted: ``roll``,
    ``score``, a die number ``1``-``5``, or the menu number typed at scoring.
    """

    round: int
    seat: int
    dice: tuple[int, ...]
    saved: tuple[bool, ...]
    rolls_left: int
    command: str
    points: int | None = None
    """For a scoring choice: the points it added (box points plus any Yahtzee bonus)."""
    label: str | None = None
    """For a scoring choice: the name of the box chosen."""

    @property
    def move(self) -> Move:
        """The accepted move, typed (the log keeps it in the positions notation)."""
        move = parse_box(self.command) if self.label is not None else parse_die_command(
            self.command, dice=len(self.dice))
        if move is None:
            raise ValueError(f"the log holds no move {self.command!r}")
        return move


@dataclass(frozen=True)
class TurnRecord:
    """The turn in progress: the dice shown, which are saved, re-rolls left, choosing or not."""

    dice: tuple[int, ...]
    saved: tuple[bool, ...]
    rolls_left: int
    choosing: bool


@dataclass(frozen=True)
class PlayerRecord:
    """A seated player: name, kind (a name of the player-kinds table) and card contents."""

    name: str
    kind: str
    scores: tuple[int | None, ...]
    yahtzee_bonus: int = 0


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to go on with a game exactly where it stands.

    ``variant`` and ``rules`` are registry names (``yahtzee.domain.games``);
    ``round`` counts from 0 and equals the game's rounds once it is over;
    ``rng`` is the state of the game's own dice generator (``Engine.rng``).
    """

    variant: str
    rules: str
    players: tuple[PlayerRecord, ...]
    round: int
    seat: int
    turn: TurnRecord | None
    log: tuple[Decision, ...]
    rng: RngState

    def __post_init__(self) -> None:
        """Hold the generator's numbers in an array, however they were given (a tuple, say)."""
        numbers = self.rng[1]
        if not isinstance(numbers, array) or numbers.typecode != _WORD:
            object.__setattr__(self, "rng", rng_state(self.rng))


@dataclass(frozen=True)
class TurnChances:
    """Every player's chance to finish first at the start of one turn, from all cards then.

    ``round`` counts from 1 and ``seat`` (from 0) is the player about to
    roll; ``chances`` holds one chance per seat, in seating order (a tie
    counts as a shared win), summing to 1.
    """

    round: int
    seat: int
    chances: tuple[float, ...]


def scoring_dice(log: Sequence[Decision], seat: int, variant: Variant) -> dict[str, str]:
    """Return, for one seat, the dice that scored each box, by the box's printed label.

    A box scored twice (a course-rules Yahtzee bonus) lists its later dice
    under ``Yahtzee bonus:``; dice are printed with the game's face labels.
    """
    shown: dict[str, list[str]] = {}
    for decision in log:
        if decision.seat == seat and decision.label is not None:
            faces = " ".join(variant.face(v) for v in decision.dice)
            label = decision.label
            if label in shown:
                label = "Yahtzee bonus:"
            shown.setdefault(label, []).append(f"[{faces}]")
    return {label: " ".join(dice) for label, dice in shown.items()}


@dataclass(frozen=True)
class TurnSummary:
    """One finished turn in brief: each roll, the dice kept before each re-roll, the box scored.

    ``rolls`` holds the dice after the first roll and after each re-roll (one
    to three rolls); ``kept[i]`` the values that were saved when roll
    ``i + 1`` was made.  ``item`` is the box as the menu offered it (its
    points include any Yahtzee bonus), ``total`` the seat's total afterwards.
    """

    round: int
    seat: int
    rolls: tuple[tuple[int, ...], ...]
    kept: tuple[tuple[int, ...], ...]
    item: MenuItem
    total: int


def turn_summaries(log: Sequence[Decision], variant: Variant, seats: int) -> list[TurnSummary]:
    """Return every finished turn of ``log``, in order, by replaying it on fresh cards.

    The replay gives each box's points exactly as the game scored them and
    every total after a turn; a turn still in progress is left out.
    """
    cards = [variant.new_card() for _ in range(seats)]
    summaries: list[TurnSummary] = []
    rolls: list[tuple[int, ...]] = []
    kept: list[tuple[int, ...]] = []
    turn: tuple[int, int] | None = None
    for decision in log:
        if (decision.round, decision.seat) != turn:
            turn = (decision.round, decision.seat)
            rolls, kept = [decision.dice], []
        elif len(rolls) == len(kept):
            rolls.append(decision.dice)
        if decision.move.kind is MoveKind.ROLL:
            kept.append(tuple(v for v, s in zip(decision.dice, decision.saved) if s))
        elif decision.label is not None:
            card = cards[decision.seat]
            item = card.choose_number(int(decision.command), Dice.of(decision.dice))
            summaries.append(TurnSummary(decision.round, decision.seat, tuple(rolls),
                                         tuple(kept), item, card.score()))
            turn = None
    return summaries


def replayed_cards(log: Sequence[Decision], variant: Variant, seats: int) -> list[Card]:
    """Return every seat's card as ``log`` leaves it, by replaying its boxes on fresh cards."""
    cards = [variant.new_card() for _ in range(seats)]
    for decision in log:
        if decision.label is not None:
            cards[decision.seat].choose_number(int(decision.command), Dice.of(decision.dice))
    return cards


def leaders(cards: Sequence[Card]) -> list[int]:
    """Return the seats with the highest total (more than one on a tie)."""
    best = max(card.score() for card in cards)
    return [seat for seat, card in enumerate(cards) if card.score() == best]
