"""The ``Game``: rounds, turns and the checking of every command, for any number of players.

A turn is a small state machine (the dice, which are saved, the rolls left,
and whether the player is choosing a box); every accepted command changes
it and is recorded, so that a game can be saved, resumed and analysed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from yahtzee.console import Console
from yahtzee.dice import DiceRoll
from yahtzee.die import Die
from yahtzee.player import ComputerPlayer, HumanPlayer, Player, TurnView
from yahtzee.rules import COURSE, Rules
from yahtzee.score_card import ScoreCard
from yahtzee.variant import Card, MenuItem, Variant

REROLLS = 2
"""Re-rolls allowed after a turn's first roll."""
TOGGLES = frozenset(str(n) for n in range(1, DiceRoll.NUM_DIE + 1))
_MENU_NUMBER = re.compile(r"[0-9]{1,3}")


def yahtzee_variant(rules: Rules = COURSE) -> Variant:
    """Return the Yahtzee game under ``rules``."""
    return Variant(name="yahtzee", title="WELCOME TO YAHTZEE", rounds=Rules.ROUNDS,
                   rules_name=rules.name, new_card=lambda: ScoreCard(rules))


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


@dataclass(frozen=True)
class Decision:
    """One accepted command, with the position it was given in."""

    round: int
    seat: int
    dice: tuple[int, ...]
    saved: tuple[bool, ...]
    rolls_left: int
    command: str
    points: int | None = None
    """For a scoring choice: the points it added."""
    label: str | None = None
    """For a scoring choice: the name of the box chosen."""


class Advisor(Protocol):
    """Gives a human one line of advice before each decision (the coach)."""

    def roll_advice(self, card: Card, dice: Sequence[int], saved: Sequence[bool],
                    rolls_left: int) -> str:
        """Return advice at the die prompt."""
        ...

    def category_advice(self, card: Card, dice: Sequence[int]) -> str:
        """Return advice at the scoring menu."""
        ...


class GameObserver(Protocol):
    """Told of every change of a game, to save it or to remember it."""

    def changed(self, game: Game) -> None:
        """Called after every accepted command and at every new turn."""
        ...

    def finished(self, game: Game) -> None:
        """Called once when the last turn has been scored."""
        ...


@dataclass
class GameProgress:
    """Where a game stands: the round (0-based), the seat to play, the turn, the log."""

    round: int = 0
    seat: int = 0
    turn: Turn | None = None
    log: list[Decision] = field(default_factory=list)


class Game:
    """A game of Yahtzee (or another ``Variant``) for one to six players."""

    MAX_PLAYERS = 6

    def __init__(self, players: Sequence[Player] | None = None, *,
                 variant: Variant | None = None, console: Console | None = None,
                 seed: int | None = None, observers: Sequence[GameObserver] = (),
                 advisor: Advisor | None = None) -> None:
        """Set up a game; with no arguments, the course's two-human Yahtzee game.

        ``seed`` seeds the dice (``Die.r``) so that the same seed gives the same dice;
        ``advisor`` (the coach) gives humans a line of advice before each decision.
        """
        self.variant = variant if variant is not None else yahtzee_variant()
        if players is None:
            players = [HumanPlayer(f"Player {n}", self.variant.new_card()) for n in (1, 2)]
        if not 1 <= len(players) <= self.MAX_PLAYERS:
            raise ValueError(f"a game has 1 to {self.MAX_PLAYERS} players, not {len(players)}")
        self.players = list(players)
        self.console = console if console is not None else Console()
        self.observers = list(observers)
        self.advisor = advisor
        self.progress = GameProgress()
        self.started = False
        if seed is not None:
            Die.r.seed(seed)

    # -- state -----------------------------------------------------------
    def is_over(self) -> bool:
        """Return whether every round has been played."""
        return self.progress.round >= self.variant.rounds

    def current_player(self) -> Player:
        """Return the player whose turn it is."""
        return self.players[self.progress.seat]

    def view(self) -> TurnView:
        """Return what the current player sees."""
        turn = self._turn()
        return TurnView(round=self.progress.round + 1, dice=turn.values(),
                        saved=tuple(turn.saved), rolls_left=turn.rolls_left,
                        card=self.current_player().card, variant=self.variant)

    def _turn(self) -> Turn:
        """Return the turn in progress, starting one (first roll) if there is none."""
        if self.progress.turn is None:
            self.progress.turn = Turn(DiceRoll(), [False] * DiceRoll.NUM_DIE)
            self._notify(lambda o: o.changed(self))
        return self.progress.turn

    # -- play ------------------------------------------------------------
    def play_game(self) -> None:
        """Play every remaining round, then show the final cards and the winner."""
        for player in self.players:
            if isinstance(player, ComputerPlayer):
                player.prepare()
        if not self.started:
            self.console.banner(self.variant)
            self.started = True
            resumed = False
        else:
            resumed = True
        while not self.is_over():
            self.play_turn(resumed=resumed)
            resumed = False
        self.show_final()
        self._notify(lambda o: o.finished(self))

    def play_turn(self, *, resumed: bool = False) -> None:
        """Play the current player's turn to its end (from where it stands)."""
        player = self.current_player()
        turn = self._turn()
        self.console.turn_header(player.name)
        if resumed and turn.choosing:
            self.console.dice(self.variant, turn.values())
        while not turn.choosing:
            self.console.card(player.card)
            self.console.dice(self.variant, turn.values(), turn.saved)
            if self.advisor is not None and isinstance(player, HumanPlayer):
                self.console.advice(self.advisor.roll_advice(player.card, turn.values(),
                                                             turn.saved, turn.rolls_left))
            self.apply_command(player.command(self.view(), self.console))
        self._score(player, turn)

    def apply_command(self, raw: str) -> bool:
        """Carry out one die-prompt command; return whether it was accepted.

        Accepted: ``roll``, ``score`` (any case, blanks around ignored) or a
        die number 1 to 5.  Anything else is refused with a message and
        changes nothing.
        """
        turn = self._turn()
        text = raw.strip()
        command = text.lower()
        if command == "roll" and turn.rolls_left > 0:
            self._record(command)
            for die, saved in zip(turn.dice, turn.saved):
                if not saved:
                    die.roll()
            turn.rolls_left -= 1
            if turn.rolls_left == 0:
                turn.choosing = True
                self.console.out_of_rolls()
                self.console.dice(self.variant, turn.values())
        elif command == "score":
            self._record(command)
            turn.choosing = True
        elif command in TOGGLES:
            self._record(command)
            index = int(command) - 1
            turn.saved[index] = not turn.saved[index]
        else:
            self.console.invalid_die(text)
            return False
        self._notify(lambda o: o.changed(self))
        return True

    def _score(self, player: Player, turn: Turn) -> None:
        """Show the menu until the player names an offered box, score it, end the turn."""
        items = player.card.menu(turn.dice)
        while True:
            self.console.menu(items)
            if self.advisor is not None and isinstance(player, HumanPlayer):
                self.console.advice(self.advisor.category_advice(player.card, turn.values()))
            choice = self.choose_category(player.category(self.view(), self.console))
            if choice is not None:
                break
            self.console.bad_category()
        self.console.scored(choice)

    def choose_category(self, raw: str) -> MenuItem | None:
        """Score the dice in the box numbered ``raw``; None, changing nothing, if not offered."""
        text = raw.strip()
        turn = self._turn()
        card = self.current_player().card
        if not _MENU_NUMBER.fullmatch(text):
            return None
        number = int(text)
        if number not in {item.number for item in card.menu(turn.dice)}:
            return None
        item = card.choose_number(number, turn.dice)
        self._record(text, item)
        self._end_turn()
        return item

    def _record(self, command: str, item: MenuItem | None = None) -> None:
        """Log an accepted command (and the box it scored) with the position it was given in."""
        turn = self._turn()
        self.progress.log.append(Decision(
            self.progress.round + 1, self.progress.seat, turn.values(), tuple(turn.saved),
            turn.rolls_left, command,
            None if item is None else item.points, None if item is None else item.name))

    def _end_turn(self) -> None:
        """Pass the dice to the next player (and to the next round after the last)."""
        self.progress.turn = None
        self.progress.seat += 1
        if self.progress.seat == len(self.players):
            self.progress.seat = 0
            self.progress.round += 1
        self._notify(lambda o: o.changed(self))

    def _notify(self, event: Callable[[GameObserver], None]) -> None:
        """Tell every observer of a change."""
        for observer in self.observers:
            event(observer)

    # -- the end ---------------------------------------------------------
    def scoring_dice(self, seat: int) -> dict[str, str]:
        """Return, for one player, the dice that scored each box, by the box's printed label."""
        shown: dict[str, list[str]] = {}
        for decision in self.progress.log:
            if decision.seat == seat and decision.label is not None:
                faces = " ".join(self.variant.face(v) for v in decision.dice)
                label = decision.label
                if label in shown:
                    label = "Yahtzee bonus:"
                shown.setdefault(label, []).append(f"[{faces}]")
        return {label: " ".join(dice) for label, dice in shown.items()}

    def show_final(self) -> None:
        """Print every final card with the scoring dice, and the winner."""
        self.console.final([(p.name, p.card, self.scoring_dice(seat))
                            for seat, p in enumerate(self.players)],
                           [p.name for p in self.winners()])

    def winners(self) -> list[Player]:
        """Return the players with the highest total (more than one on a tie)."""
        best = max(p.card.score() for p in self.players)
        return [p for p in self.players if p.card.score() == best]
