"""The turn engine: rounds, turns and the checking of every command, for one to six seats.

The engine never prints or reads.  A front end (the console, a browser)
asks it what it waits for (``prompt()``: a die move or a box, from which
seat, with what that seat sees; ``legal_moves()``), hands it one typed
``Move`` (``apply()``), and gets back an ``Outcome``: accepted, or refused
with a ``Refusal``, and the events that followed (dice rolled, a die saved,
a box scored, the next turn's first roll, the game over).  Every move is
checked the same way, whoever sent it.

Chance is explicit and owned by the game: each engine rolls its dice with
its own ``random.Random`` (seeded by ``seed``, saved in ``record()``), so a
game goes on identically after a restore in any process.  Asking the
engine anything (``prompt()``, ``legal_moves()``, ``record()``) never rolls
and never notifies: dice are thrown only when a game starts, when a move
rolls them, and when the move that ends a turn has been applied (the next
turn's first roll, made by the engine applying that move).

A turn is a small state machine: the dice, which are saved, the re-rolls
left, and whether the player is choosing a box.  Every accepted move is
logged as a ``Decision``; ``record()`` returns the whole state as plain data.
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from yahtzee.domain.card import Card, JokerBar, MenuItem, Variant
from yahtzee.domain.dice import DiceRoll
from yahtzee.engine.moves import Move, MoveKind, saved_flags
from yahtzee.engine.records import (REROLLS, Decision, GameRecord, PlayerRecord, RngState,
                                    TurnRecord, getstate_of, leaders, rng_state, scoring_dice)

MAX_PLAYERS = 6
"""The most seats a game has."""
MAX_NAME = 24
"""The longest player name, in characters: names head cards, lines of play and listings."""
MAX_SEED = 2 ** 63 - 1
"""The largest seed of a game's dice: seeds are whole numbers from 0 to this, everywhere."""


def new_seed() -> int:
    """Return a seed from 0 to ``MAX_SEED`` drawn from the system's randomness, for a run
    whose seed was not given but must be told (so that it can be played again)."""
    return random.SystemRandom().randrange(MAX_SEED + 1)


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
    """Why a move was refused (it changed nothing)."""

    NOT_A_DIE_COMMAND = "not a die command"
    """A die move while rolling that names no die of the turn."""
    ALL_SAVED = "all five dice are saved"
    """``roll`` while every die is saved (or a keep of every die): it would roll nothing."""
    NOT_SHOWN = "the dice do not show those faces"
    """A keep of faces that the dice do not show."""
    WRONG_PHASE = "the move does not fit the moment"
    """A box while rolling, or a die move while choosing a box."""
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
class FirstRoll:
    """Seat ``seat``'s turn began with the first roll ``dice`` (thrown as the last turn ended)."""

    seat: int
    dice: tuple[int, ...]


@dataclass(frozen=True)
class GameOver:
    """The last turn was scored; ``winners`` are the seats with the highest total."""

    winners: tuple[int, ...]


Event = Rolled | Toggled | ScoringStarted | Scored | TurnOver | FirstRoll | GameOver
"""What can follow an accepted command."""


@dataclass(frozen=True)
class Outcome:
    """What a move did: accepted with its events, or refused (changing nothing) and why.

    ``joker`` goes with a ``Refusal.JOKER``: where the joker rule sends the
    dice instead.
    """

    move: Move
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
        """Called after every accepted move (and once a new game's first roll is thrown)."""
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


_CHANGES = itertools.count(1)
"""Numbers for ``GameRandom.changes``: never the same twice in a process, copies included."""


class GameRandom(random.Random):
    """A game's dice generator: ``random.Random`` that marks every change of its state.

    The same numbers as ``random.Random`` with the same seed or state.  The
    mark lets a game's record reuse the generator's state (624 numbers, and
    a copy made each time it is asked for) while nothing was drawn since.
    """

    changes = 0
    """A number that changes with the state (draws, seeding, restoring), taken from one count
    of the whole process: equal numbers mean one unchanged generator."""

    def seed(self, a: int | float | str | bytes | bytearray | None = None,  # type: ignore[override]
             version: int = 2) -> None:  # (typeshed gives ``_random.Random``'s signature)
        """Seed as ``random.Random.seed`` does, marked."""
        self.changes = next(_CHANGES)
        super().seed(a, version)

    def setstate(self, state: tuple[Any, ...]) -> None:
        """Restore ``state`` as ``random.Random.setstate`` does (a copy does too), marked."""
        self.changes = next(_CHANGES)
        super().setstate(state)

    def random(self) -> float:
        """Draw as ``random.Random.random`` does, marked."""
        self.changes = next(_CHANGES)
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        """Draw ``k`` bits as ``random.Random.getrandbits`` does (every die), marked."""
        self.changes = next(_CHANGES)
        return super().getrandbits(k)

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        """Draw as ``random.Random.gauss`` does, marked: every other call draws nothing but
        uses the number kept from the one before, which is part of the state."""
        self.changes = next(_CHANGES)
        return super().gauss(mu, sigma)


class Engine:
    """One game of a ``Variant`` for one to six seats: the rules of play, with no input or output.

    The dice roll with the game's own generator ``rng``: ``seed`` seeds a new
    one so that the same seed gives the same dice; its state is part of
    ``record()`` and comes back with ``restore``.  A new game's first roll is
    thrown as it is made.
    """

    def __init__(self, variant: Variant, seats: Sequence[Seat], *, seed: int | None = None,
                 rng: random.Random | None = None,
                 observers: Sequence[EngineObserver] = ()) -> None:
        """Seat ``seats`` (their cards empty) for ``variant`` and throw the first roll.

        ``rng`` is the generator the game's dice roll with; by default a new
        one seeded with ``seed`` (None: unpredictable).
        """
        self._seat_players(variant, seats, observers,
                           rng if rng is not None else GameRandom(seed))
        self._start_turn()
        self._changed()

    def _seat_players(self, variant: Variant, seats: Sequence[Seat],
                      observers: Sequence[EngineObserver], rng: random.Random) -> None:
        """Set the game's fixed parts: the variant, the seats, the observers, the generator."""
        if not 1 <= len(seats) <= MAX_PLAYERS:
            raise ValueError(f"a game has 1 to {MAX_PLAYERS} players, not {len(seats)}")
        self.variant = variant
        self.seats = list(seats)
        self.observers = list(observers)
        self.rng = rng
        self._rng_state: tuple[int, RngState] | None = None
        """The generator's state as last recorded, with its ``GameRandom.changes`` then."""
        self.progress = Progress()
        self._prompt: tuple[tuple[int, int, Turn | None], Prompt] | None = None
        """The last prompt, with where the game stood (round, seat, turn): drawn again after
        every change (``_changed``, a new turn), asked for several times between two."""

    @classmethod
    def restore(cls, record: GameRecord, variant: Variant, seats: Sequence[Seat], *,
                observers: Sequence[EngineObserver] = ()) -> Engine:
        """Return the game ``record`` describes, its generator in the saved state.

        ``seats`` must already hold the record's cards (as ``variant.restore_card``
        makes them); ``ValueError`` if they do not fit the record.  A record
        saved between two turns (by an older version) gets the next turn's
        first roll now, from the saved generator: the same dice as before.
        """
        if [(s.name, s.kind_name) for s in seats] != [(p.name, p.kind) for p in record.players]:
            raise ValueError("the seats do not match the saved players")
        rng = GameRandom()
        rng.setstate(getstate_of(record.rng))
        engine = cls.__new__(cls)
        engine._seat_players(variant, seats, observers, rng)
        turn = None
        if record.turn is not None:
            turn = Turn(DiceRoll.showing(record.turn.dice, rng=rng), list(record.turn.saved),
                        record.turn.rolls_left, record.turn.choosing)
        engine.progress = Progress(record.round, record.seat, turn, list(record.log))
        if turn is None and not engine.is_over():
            engine._start_turn()
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

    def prompt(self) -> Prompt:
        """Return what the engine waits for, from which seat, and what that seat sees.

        The same ``Prompt`` is returned until the game changes.
        """
        progress = self.progress
        key = (progress.round, progress.seat, progress.turn)
        last = self._prompt
        if last is None or last[0] != key:
            last = self._prompt = (key, self._draw_prompt())
        return last[1]

    def _draw_prompt(self) -> Prompt:
        """Return what the engine waits for now (``prompt`` without the memo)."""
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
        """Return the turn in progress (there is one whenever the game is not over)."""
        turn = self.progress.turn
        assert turn is not None, "a turn is under way until the game is over"
        return turn

    def _start_turn(self) -> FirstRoll:
        """Throw the current seat's first roll with the game's generator (a chance step)."""
        dice = DiceRoll(rng=self.rng)
        self._prompt = None
        self.progress.turn = Turn(dice, [False] * dice.get_num_dice())
        return FirstRoll(self.progress.seat, self.progress.turn.values())

    def legal_moves(self) -> list[Move]:
        """Return every move the seat to play may make now, in the positions notation.

        While rolling: each die's toggle, ``roll`` unless every die is saved,
        and ``score``; while choosing: each box on the menu.  A keep of faces
        is legal when its faces are shown (``apply`` checks it).
        """
        if self.is_over():
            return []
        turn = self._turn()
        if turn.choosing:
            card = self.seats[self.progress.seat].card
            return [Move.box(item.number) for item in card.menu(turn.dice)]
        moves = [Move.toggle(n) for n in range(1, len(turn.saved) + 1)]
        if not all(turn.saved):
            moves.append(Move.roll())
        return moves + [Move.score()]

    # -- moves -----------------------------------------------------------
    def apply(self, move: Move) -> Outcome:
        """Carry out ``move`` for the seat to play, and return what happened.

        Refused, changing nothing: a move after the end, a box while rolling
        or a die move while choosing, a die the turn has not, ``roll`` while
        every die is saved, a keep of faces not shown, a box not on the menu.
        """
        if self.is_over():
            return Outcome(move, Refusal.GAME_OVER)
        turn = self._turn()
        if move.chooses_box != turn.choosing:
            return Outcome(move, Refusal.WRONG_PHASE)
        if turn.choosing:
            return self._choose(turn, move)
        return self._die_move(turn, move)

    def _die_move(self, turn: Turn, move: Move) -> Outcome:
        """Carry out a toggle, ``roll``, ``score`` or a keep of faces."""
        if move.kind is MoveKind.KEEP:
            return self._keep(turn, move)
        if move.kind is MoveKind.ROLL:
            if all(turn.saved):
                return Outcome(move, Refusal.ALL_SAVED)
            events = self._roll(turn)
        elif move.kind is MoveKind.SCORE:
            self._record(str(move))
            turn.choosing = True
            events = [ScoringStarted(out_of_rolls=False)]
        elif 1 <= move.number <= len(turn.saved):
            events = [self._toggle(turn, move.number)]
        else:
            return Outcome(move, Refusal.NOT_A_DIE_COMMAND)
        self._changed()
        return Outcome(move, None, tuple(events))

    def _keep(self, turn: Turn, move: Move) -> Outcome:
        """Save exactly the dice showing ``move.faces`` and roll the others.

        The log records it as the toggles and the roll it stands for, so that
        every record reads the same whichever notation the player used.
        """
        try:   # faces not shown are the first thing wrong with a keep, however many
            target = saved_flags(turn.values(), turn.saved, move.faces)
        except ValueError:
            return Outcome(move, Refusal.NOT_SHOWN)
        if all(target):
            return Outcome(move, Refusal.ALL_SAVED)
        events: list[Event] = []
        for index, wanted in sorted(enumerate(target), key=lambda pair: pair[1]):
            if turn.saved[index] != wanted:
                events.append(self._toggle(turn, index + 1))
        events += self._roll(turn)
        self._changed()
        return Outcome(move, None, tuple(events))

    def _toggle(self, turn: Turn, die: int) -> Toggled:
        """Save or unsave die ``die`` (from 1), logging the toggle."""
        self._record(str(die))
        turn.saved[die - 1] = not turn.saved[die - 1]
        return Toggled(die, turn.saved[die - 1])

    def _roll(self, turn: Turn) -> list[Event]:
        """Roll the dice not saved, logging the roll; at the last re-roll, start choosing."""
        self._record(str(Move.roll()))
        for die, saved in zip(turn.dice, turn.saved):
            if not saved:
                die.roll()
        turn.rolls_left -= 1
        events: list[Event] = [Rolled(turn.values(), turn.rolls_left)]
        if turn.rolls_left == 0:
            turn.choosing = True
            events.append(ScoringStarted(out_of_rolls=True))
        return events

    def _choose(self, turn: Turn, move: Move) -> Outcome:
        """Score the dice in the box ``move`` names, if it is offered, and end the turn.

        The next turn's first roll is thrown at once (unless the game is over).
        """
        card = self.seats[self.progress.seat].card
        if move.number not in {item.number for item in card.menu(turn.dice)}:
            joker = card.joker_bar(move.number, turn.dice)
            if joker is not None:
                return Outcome(move, Refusal.JOKER, joker=joker)
            return Outcome(move, Refusal.NOT_ON_MENU)
        seat = self.progress.seat
        item = card.choose_number(move.number, turn.dice)
        self._record(str(move), item)
        events: list[Event] = [Scored(seat, item)]
        self.progress.turn = None
        self.progress.seat += 1
        if self.progress.seat == len(self.seats):
            self.progress.seat = 0
            self.progress.round += 1
        events.append(TurnOver(self.progress.seat, self.progress.round + 1))
        if not self.is_over():
            events.append(self._start_turn())
        self._changed()
        if self.is_over():
            events.append(GameOver(tuple(self.winners())))
            for observer in self.observers:
                observer.finished(self)
        return Outcome(move, None, tuple(events))

    def finish(self) -> None:
        """Tell the observers, once more, that the game is over.

        The engine does so itself when the last box is scored; a game restored
        after its end (its filing had failed) needs this to be filed.
        """
        if self.is_over():
            for observer in self.observers:
                observer.finished(self)

    def _record(self, command: str, item: MenuItem | None = None) -> None:
        """Log an accepted move (and the box it scored) with the position it was made in."""
        turn = self._turn()
        self.progress.log.append(Decision(
            self.progress.round + 1, self.progress.seat, turn.values(), tuple(turn.saved),
            turn.rolls_left, command,
            None if item is None else item.points, None if item is None else item.name))

    def _changed(self) -> None:
        """Tell every observer of a change."""
        self._prompt = None
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
        """Return the game as it stands now, with its generator's state, as plain data."""
        players = []
        for seat in self.seats:
            scores, bonus = self.variant.card_contents(seat.card)
            players.append(PlayerRecord(seat.name, seat.kind_name, scores, bonus))
        turn = self.progress.turn
        turn_record = None if turn is None else TurnRecord(
            turn.values(), tuple(turn.saved), turn.rolls_left, turn.choosing)
        return GameRecord(self.variant.name, self.variant.rules_name, tuple(players),
                          self.progress.round, self.progress.seat, turn_record,
                          tuple(self.progress.log), self._rng_now())

    def _rng_now(self) -> RngState:
        """Return the generator's state: the one last recorded if a ``GameRandom`` drew nothing
        since (the same object, which a save's step compares by identity first)."""
        changes = self.rng.changes if isinstance(self.rng, GameRandom) else -1
        if self._rng_state is None or changes < 0 or self._rng_state[0] != changes:
            self._rng_state = (changes, rng_state(self.rng.getstate()))
        return self._rng_state[1]
