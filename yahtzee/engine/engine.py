"""The turn engine: rounds, turns and the checking of every command, for one to six seats.

The engine never prints or reads.  A front end (the console, a browser)
asks it what it waits for (``prompt()``: dice commands or a box, from which
seat, with what that seat sees), hands it one command (``submit()``), and
gets back an ``Outcome``: accepted, or refused with a ``Refusal``, and the
events that followed (dice rolled, a die saved, a box scored, the turn or
the game over).  Every command is checked the same way, whoever sent it.

A turn is a small state machine: the dice, which are saved, the re-rolls
left, and whether the player is choosing a box.  Every accepted command is
logged as a ``Decision``; ``record()`` returns the whole state as plain data.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from yahtzee.domain.card import Card, JokerBar, MenuItem, Variant
from yahtzee.domain.dice import DiceRoll
from yahtzee.domain.die import Die
from yahtzee.engine.records import (REROLLS, Decision, GameRecord, PlayerRecord, TurnRecord,
                                    leaders, scoring_dice)

MAX_PLAYERS = 6
"""The most seats a game has."""
DIE_COMMANDS = ("roll", "score")
"""The die prompt's word commands (any case, blanks around ignored); a die number also counts."""
TOGGLES = frozenset(str(n) for n in range(1, DiceRoll.NUM_DIE + 1))
_MENU_NUMBER = re.compile(r"[1-9][0-9]?")
"""A box number as the menu prints it: ASCII digits, no leading zero (``01`` is refused)."""


class Seat(Protocol):
    """What the engine needs of a seated player: a name, a card and the kind it saves."""

    @property
    def name(self) -> str:
        """The player's name, unique at the table."""
        ...

    @property
    def card(self) -> Card:
        """The player's score card, which the engine fills."""
        ...

    @property
    def kind_name(self) -> str:
        """The player's kind as records keep it (a name of the player-kinds table)."""
        ...


class Phase(enum.Enum):
    """What the engine waits for."""

    ROLLING = "rolling"
    """A die command: a die number to save or unsave, ``roll`` or ``score``."""
    SCORING = "scoring"
    """A box's menu number."""
    OVER = "over"
    """Nothing: every round has been played."""


class Refusal(enum.Enum):
    """Why a command was refused (it changed nothing)."""

    NOT_A_DIE_COMMAND = "not a die command"
    ALL_SAVED = "all five dice are saved"
    """``roll`` while every die is saved: it would roll nothing."""
    NOT_ON_MENU = "not on the menu"
    JOKER = "the joker rule requires another box"
    """An open box the forced joker keeps off the menu; ``Outcome.joker`` says where it goes."""
    GAME_OVER = "the game is over"


@dataclass(frozen=True)
class TurnView:
    """What the seat to play sees: the round (from 1), the dice, the card and the rolls left."""

    round: int
    seat: int
    dice: tuple[int, ...]
    saved: tuple[bool, ...]
    rolls_left: int
    card: Card
    variant: Variant
    others: tuple[Card, ...] = ()
    """The other players' cards, in seat order from the next seat on (what the table shows)."""


@dataclass(frozen=True)
class Prompt:
    """What the engine waits for, from which seat, and what that seat sees.

    ``menu`` lists the boxes that may be chosen now (empty unless scoring).
    """

    phase: Phase
    view: TurnView
    menu: tuple[MenuItem, ...] = ()

    @property
    def seat(self) -> int:
        """The seat that must answer, counted from 0."""
        return self.view.seat


@dataclass(frozen=True)
class Rolled:
    """The unsaved dice were rolled; ``rolls_left`` re-rolls remain (0: the player must score)."""

    dice: tuple[int, ...]
    rolls_left: int


@dataclass(frozen=True)
class Toggled:
    """Die ``die`` (from 1) is now saved (``saved``) or not."""

    die: int
    saved: bool


@dataclass(frozen=True)
class ScoringStarted:
    """The player stopped rolling (``score``, or no re-roll left) and must choose a box."""

    out_of_rolls: bool


@dataclass(frozen=True)
class Scored:
    """Seat ``seat`` scored ``item`` (its box, name and the points added)."""

    seat: int
    item: MenuItem


@dataclass(frozen=True)
class TurnOver:
    """A turn ended; ``seat`` plays next (in round ``round``, from 1), unless the game is over."""

    seat: int
    round: int


@dataclass(frozen=True)
class GameOver:
    """The last turn was scored; ``winners`` are the seats with the highest total."""

    winners: tuple[int, ...]


Event = Rolled | Toggled | ScoringStarted | Scored | TurnOver | GameOver
"""What can follow an accepted command."""


@dataclass(frozen=True)
class Outcome:
    """What a command did: accepted with its events, or refused (changing nothing) and why.

    ``command`` is the command as the engine read it: the text without the
    blanks around it.  ``joker`` goes with a ``Refusal.JOKER``: where the
    joker rule sends the dice instead.
    """

    command: str
    refusal: Refusal | None = None
    events: tuple[Event, ...] = ()
    joker: JokerBar | None = None

    @property
    def accepted(self) -> bool:
        """Whether the command was carried out."""
        return self.refusal is None


class EngineObserver(Protocol):
    """Told of every change of a game, to save it or to remember it."""

    def changed(self, engine: Engine) -> None:
        """Called after every accepted command and when a turn's first roll is made."""
        ...

    def finished(self, engine: Engine) -> None:
        """Called once, after the last turn has been scored."""
        ...


@dataclass
class Turn:
    """The turn in progress: the dice, which are saved, the re-rolls left, the phase."""

    dice: DiceRoll
    saved: list[bool]
    rolls_left: int = REROLLS
    choosing: bool = False

    def values(self) -> tuple[int, ...]:
        """Return the faces shown, in order."""
        return tuple(self.dice.values())


@dataclass
class Progress:
    """Where a game stands: the round (from 0), the seat to play, the turn, the log."""

    round: int = 0
    seat: int = 0
    turn: Turn | None = None
    log: list[Decision] = field(default_factory=list)


def _dice_showing(values: Sequence[int]) -> DiceRoll:
    """Return a ``DiceRoll`` showing ``values`` (it draws from ``Die.r``: restore that after)."""
    roll = DiceRoll()
    while roll.get_num_dice():
        roll.remove_die(0)
    for value in values:
        roll.add_die(Die(value))
    return roll


class Engine:
    """One game of a ``Variant`` for one to six seats: the rules of play, with no input or output.

    The dice come from the shared generator ``Die.r``; ``seed`` seeds it so
    that the same seed gives the same dice.
    """

    def __init__(self, variant: Variant, seats: Sequence[Seat], *, seed: int | None = None,
                 observers: Sequence[EngineObserver] = ()) -> None:
        """Seat ``seats`` (their cards empty, or as ``restore`` finds them) for ``variant``."""
        if not 1 <= len(seats) <= MAX_PLAYERS:
            raise ValueError(f"a game has 1 to {MAX_PLAYERS} players, not {len(seats)}")
        self.variant = variant
        self.seats = list(seats)
        self.observers = list(observers)
        self.progress = Progress()
        if seed is not None:
            Die.r.seed(seed)

    @classmethod
    def restore(cls, record: GameRecord, variant: Variant, seats: Sequence[Seat], *,
                observers: Sequence[EngineObserver] = ()) -> Engine:
        """Return the game ``record`` describes, and set ``Die.r`` to its saved state.

        ``seats`` must already hold the record's cards (as ``variant.restore_card``
        makes them); ``ValueError`` if they do not fit the record.
        """
        if [(s.name, s.kind_name) for s in seats] != [(p.name, p.kind) for p in record.players]:
            raise ValueError("the seats do not match the saved players")
        engine = cls(variant, seats, observers=observers)
        turn = None
        if record.turn is not None:
            turn = Turn(_dice_showing(record.turn.dice), list(record.turn.saved),
                        record.turn.rolls_left, record.turn.choosing)
        engine.progress = Progress(record.round, record.seat, turn, list(record.log))
        Die.r.setstate(record.rng)
        return engine

    # -- state -----------------------------------------------------------
    @property
    def log(self) -> list[Decision]:
        """Every accepted command so far, in order."""
        return self.progress.log

    def is_over(self) -> bool:
        """Return whether every round has been played."""
        return self.progress.round >= self.variant.rounds

    def current_seat(self) -> int:
        """Return the seat whose turn it is, counted from 0."""
        return self.progress.seat

    def turn_started(self) -> bool:
        """Return whether the current turn's first roll has been made."""
        return self.progress.turn is not None

    def prompt(self) -> Prompt:
        """Return what the engine waits for; the first call of a turn makes its first roll."""
        if self.is_over():
            seat = self.progress.seat
            return Prompt(Phase.OVER, TurnView(self.variant.rounds, seat, (), (), 0,
                                               self.seats[seat].card, self.variant))
        turn = self._turn()
        seat = self.progress.seat
        others = tuple(self.seats[(seat + k) % len(self.seats)].card
                       for k in range(1, len(self.seats)))
        view = TurnView(self.progress.round + 1, seat, turn.values(), tuple(turn.saved),
                        turn.rolls_left, self.seats[seat].card, self.variant, others)
        if not turn.choosing:
            return Prompt(Phase.ROLLING, view)
        return Prompt(Phase.SCORING, view, tuple(view.card.menu(turn.dice)))

    def _turn(self) -> Turn:
        """Return the turn in progress, starting one (first roll) if there is none."""
        if self.progress.turn is None:
            self.progress.turn = Turn(DiceRoll(), [False] * DiceRoll.NUM_DIE)
            self._changed()
        return self.progress.turn

    # -- commands --------------------------------------------------------
    def submit(self, raw: str) -> Outcome:
        """Carry out one command for the seat to play, and return what happened.

        While rolling: ``roll``, ``score`` (any case, blanks around ignored) or
        a die number 1 to 5; ``roll`` is refused while all five dice are saved.
        While scoring: the menu number of an offered box, written as the menu
        prints it.  Anything else is refused and changes nothing.
        """
        text = raw.strip()
        if self.is_over():
            return Outcome(text, Refusal.GAME_OVER)
        turn = self._turn()
        if turn.choosing:
            return self._choose(turn, text)
        return self._die_command(turn, text)

    def _die_command(self, turn: Turn, text: str) -> Outcome:
        """Carry out ``roll``, ``score`` or a toggle."""
        command = text.lower()
        events: list[Event] = []
        if command == "roll" and all(turn.saved):
            return Outcome(text, Refusal.ALL_SAVED)
        if command == "roll" and turn.rolls_left > 0:
            self._record(command)
            for die, saved in zip(turn.dice, turn.saved):
                if not saved:
                    die.roll()
            turn.rolls_left -= 1
            events.append(Rolled(turn.values(), turn.rolls_left))
            if turn.rolls_left == 0:
                turn.choosing = True
                events.append(ScoringStarted(out_of_rolls=True))
        elif command == "score":
            self._record(command)
            turn.choosing = True
            events.append(ScoringStarted(out_of_rolls=False))
        elif command in TOGGLES:
            self._record(command)
            index = int(command) - 1
            turn.saved[index] = not turn.saved[index]
            events.append(Toggled(index + 1, turn.saved[index]))
        else:
            return Outcome(text, Refusal.NOT_A_DIE_COMMAND)
        self._changed()
        return Outcome(text, None, tuple(events))

    def _choose(self, turn: Turn, text: str) -> Outcome:
        """Score the dice in the box numbered ``text``, if it is offered, and end the turn."""
        card = self.seats[self.progress.seat].card
        if not _MENU_NUMBER.fullmatch(text):
            return Outcome(text, Refusal.NOT_ON_MENU)
        number = int(text)
        if number not in {item.number for item in card.menu(turn.dice)}:
            joker = card.joker_bar(number, turn.dice)
            if joker is not None:
                return Outcome(text, Refusal.JOKER, joker=joker)
            return Outcome(text, Refusal.NOT_ON_MENU)
        seat = self.progress.seat
        item = card.choose_number(number, turn.dice)
        self._record(text, item)
        events: list[Event] = [Scored(seat, item)]
        self.progress.turn = None
        self.progress.seat += 1
        if self.progress.seat == len(self.seats):
            self.progress.seat = 0
            self.progress.round += 1
        events.append(TurnOver(self.progress.seat, self.progress.round + 1))
        self._changed()
        if self.is_over():
            events.append(GameOver(tuple(self.winners())))
            for observer in self.observers:
                observer.finished(self)
        return Outcome(text, None, tuple(events))

    def finish(self) -> None:
        """Tell the observers, once more, that the game is over.

        The engine does so itself when the last box is scored; a game restored
        after its end (its filing had failed) needs this to be filed.
        """
        if self.is_over():
            for observer in self.observers:
                observer.finished(self)

    def _record(self, command: str, item: MenuItem | None = None) -> None:
        """Log an accepted command (and the box it scored) with the position it was given in."""
        turn = self._turn()
        self.progress.log.append(Decision(
            self.progress.round + 1, self.progress.seat, turn.values(), tuple(turn.saved),
            turn.rolls_left, command,
            None if item is None else item.points, None if item is None else item.name))

    def _changed(self) -> None:
        """Tell every observer of a change."""
        for observer in self.observers:
            observer.changed(self)

    # -- results and records -----------------------------------------------
    def winners(self) -> list[int]:
        """Return the seats with the highest total (more than one on a tie)."""
        return leaders([seat.card for seat in self.seats])

    def scoring_dice(self, seat: int) -> dict[str, str]:
        """Return, for one seat, the dice that scored each box, by the box's printed label."""
        return scoring_dice(self.progress.log, seat, self.variant)

    def record(self) -> GameRecord:
        """Return the game as it stands now, with the state of ``Die.r``, as plain data."""
        players = []
        for seat in self.seats:
            scores, bonus = self.variant.card_contents(seat.card)
            players.append(PlayerRecord(seat.name, seat.kind_name, scores, bonus))
        turn = self.progress.turn
        turn_record = None if turn is None else TurnRecord(
            turn.values(), tuple(turn.saved), turn.rolls_left, turn.choosing)
        version, internal, gauss = Die.r.getstate()
        return GameRecord(self.variant.name, self.variant.rules_name, tuple(players),
                          self.progress.round, self.progress.seat, turn_record,
                          tuple(self.progress.log), (version, tuple(internal), gauss))
