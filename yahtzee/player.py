"""Players: each has a name and a score card, and supplies the commands of its turns.

A human types commands at the console; a computer player computes them
with a strategy from ``yahtzee.solver`` and shows them as if typed.  The
game checks every command the same way, whoever sent it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from yahtzee.console import Console
from yahtzee.variant import Card, Variant

if TYPE_CHECKING:
    from yahtzee.solver.strategy import Strategy


@dataclass(frozen=True)
class TurnView:
    """What a player sees when asked for a command: the dice, the card and the rolls left."""

    round: int
    dice: tuple[int, ...]
    saved: tuple[bool, ...]
    rolls_left: int
    card: Card
    variant: Variant


class Player(ABC):
    """A player: a name, a score card, and a source of commands."""

    kind: ClassVar[str] = "player"

    def __init__(self, name: str, card: Card) -> None:
        """Seat a player called ``name`` with the empty ``card``."""
        self.name = name
        self.card = card

    def get_name(self) -> str:
        """Return the player's name."""
        return self.name

    def get_score_card(self) -> Card:
        """Return the player's score card."""
        return self.card

    @abstractmethod
    def command(self, view: TurnView, console: Console) -> str:
        """Return the next command at the die prompt: a die number, ``roll`` or ``score``."""

    @abstractmethod
    def category(self, view: TurnView, console: Console) -> str:
        """Return the menu number of the box to score."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, score={self.card.score()})"


class HumanPlayer(Player):
    """A person at the keyboard."""

    kind = "human"

    def command(self, view: TurnView, console: Console) -> str:
        """Return the line the person types at the die prompt."""
        return console.ask_die_command()

    def category(self, view: TurnView, console: Console) -> str:
        """Return the line the person types after the menu."""
        return console.ask_category()


class ComputerPlayer(Player):
    """A computer player whose moves come from a strategy: ``optimal`` or ``greedy``."""

    kind = "computer"
    STRATEGIES: ClassVar[tuple[str, ...]] = ("optimal", "greedy")

    def __init__(self, name: str, card: Card, strategy: str = "optimal", *,
                 rules_name: str = "course") -> None:
        """Seat a computer player playing ``strategy`` under the rules called ``rules_name``."""
        if strategy not in self.STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose one of: "
                             + ", ".join(self.STRATEGIES))
        super().__init__(name, card)
        self.strategy_name = strategy
        self.rules_name = rules_name
        self._strategy: Strategy | None = None

    @property
    def kind_label(self) -> str:
        """The player kind as the command line names it: ``computer`` or ``greedy``."""
        return "computer" if self.strategy_name == "optimal" else self.strategy_name

    def prepare(self) -> Strategy:
        """Load (or build, the first time) the strategy's tables and return the strategy."""
        if self._strategy is None:
            self._strategy = load_strategy(self.strategy_name, self.rules_name)
        return self._strategy

    def command(self, view: TurnView, console: Console) -> str:
        """Return the strategy's next command and show it at the die prompt."""
        command = self.next_command(view)
        console.show_die_command(command)
        return command

    def next_command(self, view: TurnView) -> str:
        """Return the command that moves the dice toward the strategy's choice."""
        keep = self.prepare().keep(self.card, view.dice, view.rolls_left)
        if keep is None:
            return "score"
        target = saved_flags(view.dice, view.saved, keep)
        changes = [i for i, (now, wanted) in enumerate(zip(view.saved, target)) if now != wanted]
        # Unsave before saving, so that the screen never shows more dice saved than kept.
        changes.sort(key=lambda i: not view.saved[i])
        return str(changes[0] + 1) if changes else "roll"

    def category(self, view: TurnView, console: Console) -> str:
        """Return the strategy's box, by menu number, and show it after the menu."""
        choice = str(self.prepare().category(self.card, view.dice).number)
        console.show_category(choice)
        return choice


def saved_flags(dice: Sequence[int], saved: Sequence[bool], keep: Sequence[int]) -> list[bool]:
    """Return which dice to save so that the saved values are the multiset ``keep``.

    Dice already saved are preferred, so that as few toggles as possible are needed.
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


NUMPY_NEEDED = ("computer players, the coach and the solver need numpy: "
                "run  python -m pip install -e .  (or  python -m pip install numpy)")
"""What to say when numpy is missing."""


class StrategyUnavailableError(RuntimeError):
    """A computer strategy cannot run here (numpy is not installed)."""


POKER_RULES = "poker-dice"
"""The rules name of Poker Dice, whose strategies have a model of their own."""


def load_strategy(kind: str, rules_name: str) -> Strategy:
    """Return the strategy ``kind`` (``optimal`` or ``greedy``) for the rules ``rules_name``.

    The first use of a rule set builds (or loads) its table.  Without numpy,
    ``StrategyUnavailableError`` says how to install it.
    """
    try:
        if rules_name == POKER_RULES:
            from yahtzee.solver.poker import PokerStrategy
            return cast("Strategy", PokerStrategy(optimal=kind == "optimal"))
        from yahtzee.rules import get_rules
        from yahtzee.solver.strategy import get_strategy
        return get_strategy(kind, get_rules(rules_name))
    except ModuleNotFoundError as error:
        if error.name != "numpy":
            raise
        raise StrategyUnavailableError(NUMPY_NEEDED) from None
