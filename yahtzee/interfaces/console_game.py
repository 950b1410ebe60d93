"""The UML's ``Game``: the console front end that plays an ``Engine`` game to its end.

``Game().play_game()`` plays the course's two-human game at the terminal,
as the specification's sample runs show it.  The game itself (turns,
checking commands, scoring) is the engine's; this class asks the engine
what it waits for, gets the command from the console (a person) or from
the player (a computer), hands it to the engine, and prints what happened.
A computer's turn is shown in a few lines (each roll, the dice kept, the
box and the new total), and in a game with a computer each person's turn
opens with what the others did since that person's last turn, next to the
dice, so that it stays on an 80x24 screen with the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from yahtzee.domain.card import Variant
from yahtzee.domain.games import yahtzee_variant
from yahtzee.engine.engine import (MAX_PLAYERS, Engine, EngineObserver, Outcome, Phase, Prompt,
                                   Refusal, Rolled, Scored)
from yahtzee.engine.records import REROLLS, Decision, TurnSummary, turn_summaries
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.wording import box_advice_text, keep_advice_text, keep_text
from yahtzee.players.kinds import HUMAN, default_names
from yahtzee.players.players import ComputerPlayer, HumanPlayer, Player
from yahtzee.solver.coach import Coach

if TYPE_CHECKING:
    from yahtzee.solver.profiles import Profile


class Game:
    """A game of Yahtzee (or another game of the registry) for one to six players, at the console.

    With no arguments: the course's two-human Yahtzee game on the standard streams.
    """

    MAX_PLAYERS = MAX_PLAYERS

    def __init__(self, players: Sequence[Player] | None = None, *,
                 variant: Variant | None = None, console: Console | None = None,
                 seed: int | None = None, observers: Sequence[EngineObserver] = (),
                 advisor: Coach | None = None, engine: Engine | None = None) -> None:
        """Set up a game; with no arguments, the course's two-human Yahtzee game.

        ``seed`` seeds the dice (``Die.r``) so that the same seed gives the same
        dice; ``advisor`` (the coach) advises humans before each decision.
        ``engine``, a game already under way (resumed), is played on from where
        it stands, without the banner; ``players`` must then be its seats.
        """
        if engine is not None:
            variant = engine.variant
        self.variant = variant if variant is not None else yahtzee_variant()
        if players is None:
            players = [HumanPlayer(name, self.variant.new_card())
                       for name in default_names([HUMAN, HUMAN])]
        self.players = list(players)
        self.console = console if console is not None else Console()
        self.advisor = advisor
        self.started = engine is not None
        self.engine = engine if engine is not None else Engine(
            self.variant, self.players, seed=seed, observers=observers)

    @property
    def log(self) -> list[Decision]:
        """Every accepted command so far, in order."""
        return self.engine.log

    def winners(self) -> list[Player]:
        """Return the players with the highest total (more than one on a tie)."""
        return [self.players[seat] for seat in self.engine.winners()]

    # -- play ------------------------------------------------------------
    def play_game(self) -> None:
        """Play every remaining round, then show the final cards and the winner.

        ``EOFError`` or ``KeyboardInterrupt`` from the console stop it where it
        stands (every accepted command is already with the engine's observers).
        """
        resumed = self.started
        if not self.started:
            self.console.banner(self.variant)
            self.started = True
        over_already = self.engine.is_over()
        while not self.engine.is_over():
            self.play_turn(resumed=resumed)
            resumed = False
        self.show_final()
        if over_already:
            self.engine.finish()

    def play_turn(self, *, resumed: bool = False) -> None:
        """Play the current player's turn to its end (from where it stands)."""
        prompt = self.engine.prompt()
        player = self.players[prompt.seat]
        if isinstance(player, ComputerPlayer):
            player.prepare()  # its table may still be in the making: wait here, before its turn
        self.console.turn_header(player.name)
        if isinstance(player, ComputerPlayer):
            self._computer_turn(player, prompt)
            return
        recap, first_turn = self._recap(prompt.seat)
        if resumed and prompt.phase is Phase.SCORING:
            self.console.recap(recap, self._names(), self.variant, first_turn=first_turn)
            self.console.dice(self.variant, prompt.view.dice)
        while prompt.phase is Phase.ROLLING:
            view = prompt.view
            self.console.card(player.card)
            self.console.recap(recap, self._names(), self.variant, first_turn=first_turn)
            self.console.dice(self.variant, view.dice, view.saved)
            if self.advisor is not None:
                advice = self.advisor.roll_advice(player.card, view.dice, view.saved,
                                                  view.rolls_left)
                self.console.advice(keep_advice_text(advice, self.variant))
                keeps = self.advisor.keep_options(player.card, view.dice, view.rolls_left)
                self._coach_options([(keep_text(k, self.variant), p) for k, p in keeps],
                                    prompt.seat)
            command = player.command(view)
            if command is None:
                command = self.console.ask_die_command()
            else:
                self.console.show_die_command(command)
            self._show_die_outcome(self.engine.submit(command))
            prompt = self.engine.prompt()
        self._score(player, prompt)

    def _recap(self, seat: int) -> tuple[list[TurnSummary], bool]:
        """Return the other players' turns since ``seat``'s last one, in a game with a computer.

        Also returns whether ``seat`` has not played a turn yet.  A game of
        people only shows none: it prints exactly the specification's texts.
        """
        if not any(isinstance(p, ComputerPlayer) for p in self.players):
            return [], False
        turns = turn_summaries(self.engine.log, self.variant, len(self.players))
        last = max((i for i, turn in enumerate(turns) if turn.seat == seat), default=-1)
        return turns[last + 1:], last < 0

    def _names(self) -> list[str]:
        """Return the players' names in seating order."""
        return [p.name for p in self.players]

    def _computer_turn(self, player: ComputerPlayer, prompt: Prompt) -> None:
        """Play a computer's turn, shown in one line per roll and one for the box."""
        name = player.name
        view = prompt.view
        first = view.rolls_left == REROLLS and not any(view.saved)
        self.console.computer_roll(name, self.variant, view.dice, None if first else view.saved)
        while prompt.phase is Phase.ROLLING:
            view = prompt.view
            kept = tuple(v for v, saved in zip(view.dice, view.saved) if saved)
            outcome = self._computer_submit(player, player.command(view))
            for event in outcome.events:
                if isinstance(event, Rolled):
                    self.console.computer_reroll(name, self.variant, kept, event.dice)
            prompt = self.engine.prompt()
        outcome = self._computer_submit(player, player.category(prompt.view))
        for event in outcome.events:
            if isinstance(event, Scored):
                self.console.computer_scored(name, event.item, player.card.score())

    def _computer_submit(self, player: ComputerPlayer, command: str) -> Outcome:
        """Hand the engine a computer's command; a refusal is a fault of its strategy."""
        outcome = self.engine.submit(command)
        if not outcome.accepted:
            raise RuntimeError(f"{player.name}'s strategy sent a refused command "
                               f"{command!r} ({outcome.refusal})")
        return outcome

    def _coach_options(self, options: list[tuple[str, Profile]], seat: int) -> None:
        """Print the best options' profiles and, with opponents, everyone's win chances."""
        assert self.advisor is not None
        self.console.options(options)
        chances = self.advisor.win_chances([p.card for p in self.players], seat,
                                           options[0][1] if options else None)
        if chances is not None:
            self.console.win_chances(self._names(), chances)

    def _show_die_outcome(self, outcome: Outcome) -> None:
        """Print what a die command did: refused, or the dice after the last re-roll."""
        if outcome.refusal is Refusal.ALL_SAVED:
            self.console.all_saved()
        elif not outcome.accepted:
            self.console.invalid_die(outcome.command)
        for event in outcome.events:
            if isinstance(event, Rolled) and event.rolls_left == 0:
                self.console.out_of_rolls()
                self.console.dice(self.variant, event.dice)

    def _score(self, player: Player, prompt: Prompt) -> None:
        """Show the menu until the player names an offered box; say what it scored."""
        while True:
            self.console.menu(prompt.menu)
            if self.advisor is not None:
                advice = self.advisor.category_advice(player.card, prompt.view.dice)
                self.console.advice(box_advice_text(advice))
                boxes = self.advisor.box_options(player.card, prompt.view.dice)
                self._coach_options([(f"score {box.name}", p) for box, p in boxes], prompt.seat)
            choice = player.category(prompt.view)
            if choice is None:
                choice = self.console.ask_category()
            else:
                self.console.show_category(choice)
            outcome = self.engine.submit(choice)
            if outcome.accepted:
                break
            if outcome.joker is not None:
                self.console.joker_refused(outcome.joker)
            else:
                self.console.bad_category()
        for event in outcome.events:
            if isinstance(event, Scored):
                self.console.scored(event.item)

    # -- the end ---------------------------------------------------------
    def show_final(self) -> None:
        """Print every final card with the scoring dice, and the winner."""
        self.console.final([(p.name, p.card, self.engine.scoring_dice(seat))
                            for seat, p in enumerate(self.players)],
                           [p.name for p in self.winners()])
