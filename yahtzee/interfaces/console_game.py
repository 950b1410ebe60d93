"""The UML's ``Game``: the console front end that plays an ``Engine`` game to its end.

``Game().play_game()`` plays the course's two-human game at the terminal,
as the specification's sample runs show it.  The game itself (turns,
checking commands, scoring) is the engine's; this class asks the engine
what it waits for, gets the command from the console (a person) or from
the player (a computer, whose command it shows as if typed), hands it to
the engine, and prints what happened.
"""

from __future__ import annotations

from collections.abc import Sequence

from yahtzee.domain.card import Variant
from yahtzee.domain.games import yahtzee_variant
from yahtzee.engine.engine import (MAX_PLAYERS, Engine, EngineObserver, Outcome, Phase, Prompt,
                                   Refusal, Rolled, Scored)
from yahtzee.engine.records import Decision
from yahtzee.interfaces.console import Console, box_advice_text, keep_advice_text
from yahtzee.players.kinds import HUMAN, default_names
from yahtzee.players.players import ComputerPlayer, HumanPlayer, Player
from yahtzee.solver.coach import Coach


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
        for player in self.players:
            if isinstance(player, ComputerPlayer):
                player.prepare()
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
        self.console.turn_header(player.name)
        if resumed and prompt.phase is Phase.SCORING:
            self.console.dice(self.variant, prompt.view.dice)
        while prompt.phase is Phase.ROLLING:
            view = prompt.view
            self.console.card(player.card)
            self.console.dice(self.variant, view.dice, view.saved)
            if self.advisor is not None and isinstance(player, HumanPlayer):
                advice = self.advisor.roll_advice(player.card, view.dice, view.saved,
                                                  view.rolls_left)
                self.console.advice(keep_advice_text(advice, self.variant))
            command = player.command(view)
            if command is None:
                command = self.console.ask_die_command()
            else:
                self.console.show_die_command(command)
            self._show_die_outcome(self.engine.submit(command))
            prompt = self.engine.prompt()
        self._score(player, prompt)

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
            if self.advisor is not None and isinstance(player, HumanPlayer):
                advice = self.advisor.category_advice(player.card, prompt.view.dice)
                self.console.advice(box_advice_text(advice))
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
