"""Players: each has a name and a score card, and supplies the moves of its turns.

A person's moves come from the front end (the console reads them, a browser
sends them); a computer player computes its moves with a strategy and
returns them, and showing them is the front end's job.  The engine checks
every move the same way, whoever made it.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Protocol, cast, runtime_checkable

from yahtzee.domain.card import Card
from yahtzee.engine.engine import TurnView
from yahtzee.engine.moves import Move, toggles_to_keep
from yahtzee.players.kinds import COMPUTER, HUMAN, PlayerKind


class Box(Protocol):
    """A box of a card as a strategy names it: what matters is its menu number."""

    @property
    def number(self) -> int:
        """The box's menu number, from 1."""
        ...


class Strategy(Protocol):
    """How a computer player decides: which dice to keep, which box to score."""

    def keep(self, card: Card, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the dice values to keep and re-roll the rest, or None to score now."""
        ...

    def category(self, card: Card, dice: Sequence[int]) -> Box:
        """Return the box to score these dice in."""
        ...


@runtime_checkable
class Competitor(Protocol):
    """A strategy whose decisions depend on the opponents' cards (it plays to win)."""

    def facing(self, others: Sequence[Card]) -> Strategy:
        """Return the decisions to take against the opponents' cards ``others``."""
        ...


@runtime_checkable
class Drawing(Protocol):
    """A strategy whose decisions are drawn at random (a computer level): the game's dice
    generator draws them, so that a seeded game is played the same way every time."""

    def drawing(self, rng: random.Random) -> Strategy:
        """Return the decisions to take, drawn from the game's generator ``rng``."""
        ...


class Player(ABC):
    """A player (the UML's extra credit): a name, a score card, and a source of commands."""

    def __init__(self, name: str, card: Card, kind: PlayerKind) -> None:
        """Seat a player called ``name`` of ``kind`` with the empty (or restored) ``card``."""
        self.name = name
        self.card = card
        self.kind = kind

    @property
    def kind_name(self) -> str:
        """The player's kind as records and the command line name it."""
        return self.kind.name

    def get_name(self) -> str:
        """Return the player's name (the UML's accessor; also ``.name``)."""
        return self.name

    def get_score_card(self) -> Card:
        """Return the player's score card (the UML's accessor; also ``.card``)."""
        return self.card

    @abstractmethod
    def move(self, view: TurnView, choosing: bool) -> Move | None:
        """Return the next move (a box when ``choosing``), or None when a person must be asked."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, score={self.card.score()})"


class HumanPlayer(Player):
    """A person: the front end reads this player's moves, so ``move`` returns None."""

    def __init__(self, name: str, card: Card) -> None:
        """Seat a person called ``name`` with ``card``."""
        super().__init__(name, card, HUMAN)

    def move(self, view: TurnView, choosing: bool) -> Move | None:
        """Return None: the front end asks the person."""
        return None


class ComputerPlayer(Player):
    """A computer player whose moves come from a strategy.

    ``load_strategy`` returns the strategy; it is called once, when
    ``prepare()`` or the first decision needs it, so that the solver's tables
    are loaded (or built, the first time) only for games that use them.
    """

    def __init__(self, name: str, card: Card, load_strategy: Callable[[], Strategy],
                 kind: PlayerKind = COMPUTER) -> None:
        """Seat a computer player called ``name`` of ``kind``, playing ``load_strategy()``."""
        if not kind.is_computer:
            raise ValueError(f"{kind.name!r} is not a computer kind")
        super().__init__(name, card, kind)
        self._load_strategy = load_strategy
        self._strategy: Strategy | None = None
        self._kinds = (False, False)
        """Whether the strategy draws its decisions, and whether it plays to win: a
        protocol's ``isinstance`` is slow, and the strategy never changes once loaded."""
        self._rng: random.Random | None = None
        self._kept: tuple[tuple[object, ...], tuple[int, ...] | None] | None = None
        """The last keep drawn, and where: round, seat, turns taken, rolls left, dice."""

    def draw_from(self, rng: random.Random) -> None:
        """Draw the random decisions of a computer level from ``rng``, the game's generator.

        Without it, such a player draws from an unseeded generator of its own.
        """
        self._rng = rng

    def prepare(self) -> Strategy:
        """Load the strategy (building its tables the first time) and return it."""
        if self._strategy is None:
            strategy = self._load_strategy()
            self._kinds = (isinstance(strategy, Drawing), isinstance(strategy, Competitor))
            self._strategy = strategy  # last: a strategy seen is one whose kinds are known
        return self._strategy

    def move(self, view: TurnView, choosing: bool, *, whole_keeps: bool = False) -> Move:
        """Return the strategy's next move: a step toward its keep, or its box when ``choosing``.

        While rolling, the move is one toggle or ``roll``, so that a front
        end can show each step; dice are unsaved before others are saved, so
        that no step shows more dice saved than the strategy keeps.  With
        ``whole_keeps`` it is the keep itself (``Move.keep``: the toggles and
        the roll in one move, logged alike), for a front end that shows a
        roll's keep with the roll.  A keep of all five dice is ``score``: the
        engine refuses a roll that rolls nothing.
        """
        if choosing:
            return Move.box(self._deciding(view).category(self.card, view.dice).number)
        keep = self._keep(view)
        if keep is None or len(keep) >= len(view.dice):
            return Move.score()  # keeping every die would roll nothing: the engine refuses that
        if whole_keeps:
            return Move.keep(keep)
        toggles = toggles_to_keep(view.dice, view.saved, keep)
        return Move.toggle(toggles[0]) if toggles else Move.roll()

    def _keep(self, view: TurnView) -> tuple[int, ...] | None:
        """Return the keep of this roll, decided once per roll.

        Each toggle toward the keep asks for it again: a drawn keep drawn
        anew at every step could head for different keeps, and any other
        would be worked out again for nothing.
        """
        position = (view.round, view.seat, self.card.rounds_used(), view.rolls_left,
                    tuple(view.dice))
        if self._kept is None or self._kept[0] != position:
            deciding = self._deciding(view)
            self._kept = (position, deciding.keep(self.card, view.dice, view.rolls_left))
        return self._kept[1]

    def _deciding(self, view: TurnView) -> Strategy:
        """Return the strategy, facing the other cards on the table when it plays to win.

        A strategy whose decisions are drawn draws them from the game's generator.
        """
        strategy = self.prepare()
        drawing, competing = self._kinds
        if drawing:
            if self._rng is None:
                self._rng = random.Random()
            return cast(Drawing, strategy).drawing(self._rng)
        return cast(Competitor, strategy).facing(view.others) if competing else strategy
