"""Advice for a game played with real dice: the ranked moves of a position, and the card kept.

People who roll physical dice type what they rolled; ``RealDiceGame`` keeps
their card through the game (with every step remembered, so that a scoring
or a mistyped roll can be taken back) and ``ranked_moves`` answers with the
best moves, each with its outcome profile (the expected final score, its
standard deviation, the chances of the upper bonus and of a Yahtzee), read
from the coach's one ranking of moves (``yahtzee.solver.ranking``).  Given the opponents'
totals, each move also has ``win_chance``: the chance that the final score
it leads to beats them, the totals taken as the opponents' final scores.
Nothing here prints: refusals are the exceptions below, and the interfaces
put them into words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from yahtzee.domain.card import Card, JokerBar, MenuItem, Variant
from yahtzee.domain.dice import Dice
from yahtzee.engine.records import ROLLS
from yahtzee.solver.ranking import Keep, RankedMove

if TYPE_CHECKING:
    from yahtzee.solver.coach import Coach
    from yahtzee.solver.profiles import Profile


class AdviceError(Exception):
    """A step that the position does not allow; the position is unchanged."""


class GameOverError(AdviceError):
    """Every turn of the card has been played."""


class NoRollLeftError(AdviceError):
    """The third roll is done: the turn must be scored."""


class NoDiceError(AdviceError):
    """Nothing can be scored or advised before the turn's first roll is known."""


class NothingToUndoError(AdviceError):
    """No step (or no scoring, for ``undo``) has been taken yet."""


class BoxRefusedError(AdviceError):
    """The box asked for is not on the menu for these dice.

    ``filled`` says it was scored already; ``joker`` is why the forced joker
    sends this Yahtzee elsewhere (None when it does not).
    """

    def __init__(self, number: int, filled: bool, joker: JokerBar | None) -> None:
        """Refuse the box numbered ``number``."""
        super().__init__(number)
        self.number = number
        self.filled = filled
        self.joker = joker


@dataclass(frozen=True)
class Move:
    """One advised move: keep ``keep`` (dice values, sorted) and roll, or score ``box`` now.

    Exactly one of ``keep`` and ``box`` is given; ``expected`` is the expected
    final score with optimal play after the move, ``profile`` where that play
    leads (None from a coach without profiles), ``win_chance`` the chance of
    winning against the opponents' totals (None without them or a profile).
    """

    keep: tuple[int, ...] | None
    box: MenuItem | None
    expected: float
    win_chance: float | None = None
    profile: Profile | None = None


def win_chances(coach: Coach, card: Card, dice: Sequence[int], roll: int,
                moves: Sequence[Move], opponents: Sequence[int]) -> list[float | None]:
    """Return each move's chance to win against ``opponents``' totals, taken as final.

    A box's chance is exact once the card has two turns left or fewer, and
    otherwise takes the rest of the game from the outlook's four cumulants
    of optimal play's points to come; a keep's assumes the rest of the turn is played for the
    win.  Ties are shared.  The totals are right once the opponents have
    played their last turn; while they still have turns to play, the chance
    is higher than the truth.  None for every move without profiles.
    """
    chances = coach.move_chances(card, dice, ROLLS - roll, opponents)
    if chances is None:
        return [None] * len(moves)
    keeps, boxes = chances
    return [boxes[m.box.number] if m.box is not None else keeps[m.keep or ()] for m in moves]


def ranked_moves(coach: Coach, card: Card, dice: Sequence[int], roll: int,
                 opponents: Sequence[int] = ()) -> list[Move]:
    """Return the best moves for ``dice`` (``ranking.TOP_MOVES`` of them), the coach's advice first.

    ``roll`` is the roll the dice come from (1 to ``ROLLS``).  Before the
    last roll the moves are every keep to roll again and every box to score
    now; after it only the boxes.  They come in the coach's one ranking
    (``Coach.rank_moves``: by expected final score, ties to scoring now,
    boxes by number, then keeps of more dice).  Each move carries its
    profile when the coach gives profiles, and with ``opponents`` its
    ``win_chance``.
    """
    if not 1 <= roll <= ROLLS:
        raise ValueError(f"roll must be 1 to {ROLLS}, not {roll}")
    menu = {item.number: item for item in card.menu(Dice.of(dice))}
    moves = [_move(ranked, menu) for ranked in coach.rank_moves(card, dice, ROLLS - roll).top()]
    if not opponents:
        return moves
    chances = win_chances(coach, card, dice, roll, moves, opponents)
    return [replace(m, win_chance=chance) for m, chance in zip(moves, chances)]


def _move(ranked: RankedMove, menu: dict[int, MenuItem]) -> Move:
    """Return a ranked move as advice: its keep's dice, or its box's menu line."""
    if isinstance(ranked.move, Keep):
        return Move(ranked.move.values, None, ranked.expected, profile=ranked.profile)
    return Move(None, menu[ranked.move.number], ranked.expected, profile=ranked.profile)


def box_names(variant: Variant) -> list[str]:
    """Return the printed names of the game's boxes, in menu order (box ``n`` is at ``n - 1``)."""
    card = variant.new_card()
    count = len(variant.card_contents(card)[0])
    return [label for label, _ in card.rows()[:count]]


@dataclass(frozen=True)
class Position:
    """Where a game with real dice stands: the card's contents, the roll reached and its dice.

    ``roll`` is 0 before the turn's first roll is typed; ``dice`` are that roll's.
    """

    scores: tuple[int | None, ...]
    bonus: int
    roll: int = 0
    dice: tuple[int, ...] = ()


@dataclass(frozen=True)
class _Step:
    """A step taken: the position before it, and the box it scored (None for a roll)."""

    before: Position
    scored: MenuItem | None


class RealDiceGame:
    """One person's card through a game played with real dice, every step open to be taken back.

    The person reports each roll (``rolled``) and the box chosen (``score``);
    ``moves`` gives the advice for the dice reported last.
    """

    def __init__(self, variant: Variant, coach: Coach, card: Card | None = None,
                 opponents: Sequence[int] = ()) -> None:
        """Keep ``card`` (a new card by default) through a game of ``variant``."""
        self.variant = variant
        self.coach = coach
        self.opponents: tuple[int, ...] = tuple(opponents)
        scores, bonus = variant.card_contents(variant.new_card() if card is None else card)
        self.position = Position(tuple(scores), bonus)
        self._start = self.position
        self._steps: list[_Step] = []

    @property
    def card(self) -> Card:
        """A new card holding the position's contents (changing it changes nothing here)."""
        return self.variant.restore_card(self.position.scores, self.position.bonus)

    @property
    def round(self) -> int:
        """The round being played, from 1 (one past the last round once the game is over)."""
        return self.card.rounds_used() + 1

    @property
    def roll(self) -> int:
        """The roll whose dice were typed last in this turn (0 before the first)."""
        return self.position.roll

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice of that roll (empty before the first)."""
        return self.position.dice

    def is_over(self) -> bool:
        """Return whether every turn of the card has been played."""
        return self.card.rounds_used() >= self.variant.rounds

    def rolled(self, dice: Sequence[int]) -> None:
        """Take ``dice`` as the turn's next roll (the first, or the dice after a re-roll)."""
        if self.is_over():
            raise GameOverError()
        if self.roll >= ROLLS:
            raise NoRollLeftError()
        values = tuple(Dice.of(dice).values())
        self._take(_Step(self.position, None),
                   Position(self.position.scores, self.position.bonus, self.roll + 1, values))

    def moves(self) -> list[Move]:
        """Return the ranked moves for the dice typed last (``NoDiceError`` before any)."""
        if not self.roll:
            raise NoDiceError()
        return ranked_moves(self.coach, self.card, self.dice, self.roll, self.opponents)

    def best_box(self) -> MenuItem:
        """Return the box optimal play scores with the dice typed last."""
        if not self.roll:
            raise NoDiceError()
        number = self.coach.category_advice(self.card, self.dice).box.number
        return next(i for i in self.card.menu(Dice.of(self.dice)) if i.number == number)

    def score(self, number: int) -> MenuItem:
        """Score the dice typed last in the box numbered ``number``; return its menu line."""
        if not self.roll:
            raise NoDiceError()
        card = self.card
        dice = Dice.of(self.dice)
        if all(item.number != number for item in card.menu(dice)):
            index = number - 1
            filled = 0 <= index < len(self.position.scores) and (
                self.position.scores[index] is not None)
            raise BoxRefusedError(number, filled, card.joker_bar(number, dice))
        item = card.choose_number(number, dice)
        scores, bonus = self.variant.card_contents(card)
        self._take(_Step(self.position, item), Position(tuple(scores), bonus))
        return item

    def undo(self) -> MenuItem:
        """Take back the last scoring (and any roll typed since); return what it had scored."""
        for index in range(len(self._steps) - 1, -1, -1):
            step = self._steps[index]
            if step.scored is not None:
                del self._steps[index:]
                self.position = step.before
                return step.scored
        raise NothingToUndoError()

    def back(self) -> MenuItem | None:
        """Take back the last step: a roll typed (None) or a scoring (its menu line)."""
        if not self._steps:
            raise NothingToUndoError()
        step = self._steps.pop()
        self.position = step.before
        return step.scored

    def start_expected(self) -> float:
        """Return optimal play's expected final score from the card the game started with."""
        start = self.variant.restore_card(self._start.scores, self._start.bonus)
        return self.coach.strategy.expected_final(start)

    def _take(self, step: _Step, position: Position) -> None:
        """Remember ``step`` and move to ``position``."""
        self._steps.append(step)
        self.position = position
