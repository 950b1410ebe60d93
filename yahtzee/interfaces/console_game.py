"""The UML's ``Game``: the console front end that plays an ``Engine`` game to its end.

``Game().play_game()`` plays the course's two-human game at the terminal,
as the specification's sample runs show it.  The game itself (turns,
checking moves, scoring, saving) is the game service's (``LiveGame``);
this class asks it what the game waits for, reads a person's line and
parses it into a move (the only place where typed text becomes a move),
lets the service make a computer's moves, and prints what happened.
A computer's turn is shown in a few lines (each roll, the dice kept, the
box and the new total), and in a game with a computer each person's turn
opens with what the others did since that person's last turn, next to the
dice, so that it stays on an 80x24 screen with the prompt.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from yahtzee.app.service import LiveGame
from yahtzee.domain.card import Variant
from yahtzee.domain.games import yahtzee_variant
from yahtzee.engine.engine import (MAX_PLAYERS, Engine, EngineObserver, Outcome, Phase, Prompt,
                                   Refusal, Rolled, Scored)
from yahtzee.engine.moves import (KEEP_WORD, NONE_WORD, ROLL_WORD, SCORE_WORD, MoveKind, Notation,
                                  parse_box, parse_die_command)
from yahtzee.engine.records import REROLLS, Decision, TurnSummary, turn_summaries
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.wording import (box_advice_text, keep_advice_by_faces,
                                        keep_advice_text, move_text, read_faces)
from yahtzee.players.kinds import HUMAN, default_names
from yahtzee.players.players import ComputerPlayer, HumanPlayer, Player
from yahtzee.solver.coach import BoxAdvice, Coach

if TYPE_CHECKING:
    from yahtzee.app.service import Coaching
    from yahtzee.solver.profiles import Profile


class Game:
    """A game of Yahtzee (or another game of the registry) for one to six players, at the console.

    With no arguments: the course's two-human Yahtzee game on the standard streams.
    """

    MAX_PLAYERS = MAX_PLAYERS

    def __init__(self, players: Sequence[Player] | None = None, *,
                 variant: Variant | None = None, console: Console | None = None,
                 seed: int | None = None, rng: random.Random | None = None,
                 observers: Sequence[EngineObserver] = (),
                 advisor: Coach | None = None, engine: Engine | None = None,
                 live: LiveGame | None = None,
                 notation: Notation = Notation.POSITIONS) -> None:
        """Set up a game; with no arguments, the course's two-human Yahtzee game.

        ``seed`` seeds the game's dice so that the same seed gives the same
        dice; ``advisor`` (the coach) advises people before each decision.
        ``engine``, a game already under way (resumed), is played on from where
        it stands, without the banner; ``players`` must then be its seats.
        ``live``, a game the service made (new or resumed), is played as it
        stands and takes the place of every other argument but ``console``
        and ``notation``.  ``notation`` is how people type a keep.
        """
        if live is None:
            if engine is not None:
                variant = engine.variant
            variant = variant if variant is not None else yahtzee_variant()
            if players is None:
                players = [HumanPlayer(name, variant.new_card())
                           for name in default_names([HUMAN, HUMAN])]
            live = LiveGame(engine if engine is not None else Engine(
                variant, players, seed=seed, rng=rng, observers=observers), players,
                coach=advisor)
            self.started = engine is not None
        else:
            self.started = live.resumed
        self.live = live
        self.variant = live.variant
        self.players = live.players
        self.engine = live.engine
        self.console = console if console is not None else Console()
        self.notation = notation

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
        stands (every accepted move is already with the engine's observers).
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
            self.live.finish()

    def play_turn(self, *, resumed: bool = False) -> None:
        """Play the current player's turn to its end (from where it stands)."""
        prompt = self.live.prompt()
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
            self._coach(prompt)
            self._die_move(player, prompt)
            prompt = self.live.prompt()
        self._score(player, prompt)

    def _die_move(self, player: Player, prompt: Prompt) -> None:
        """Take one die move from ``player`` (a person types it) and show what it did."""
        move = player.move(prompt.view, False)
        if move is not None:
            self.console.show_die_command(str(move))
            self._show_die_outcome(self.live.play(move))
            return
        text = self.console.ask_die_command(self.notation, self.variant.face_labels)
        values = self._as_values(text)
        move = None if values is None else parse_die_command(values, self.notation,
                                                             len(prompt.view.dice))
        if move is None:
            self.console.invalid_die(text.strip())
        else:
            self._show_die_outcome(self.live.play(move))

    def _as_values(self, text: str) -> str | None:
        """Return the faces to keep typed by their labels (Poker Dice's ``K K 10``, ``kk``;
        Yahtzee's ``3 3 6``, ``3,3,6``) as the values the parser reads (``5510``, ``336``);
        ``roll``, ``score`` and ``none`` as typed.

        The faces may follow the word ``keep`` (``keep 3 3 6``, ``keep none``),
        as ``advise`` and the coach's advice write a keep; ``keep roll`` is
        no keep, and is refused.  Where the labels are not the values, a line
        that is neither labels nor a command is None (refused): Poker Dice's
        ``1`` is no face, though the parser would read it as the value that
        the 9 stands for.  With the dice's own digits as labels, such a line
        is returned as typed, for the parser to refuse (or to find a 9 that
        no die shows).
        """
        if self.notation is not Notation.FACES:
            return text
        words = text.split(maxsplit=1)
        keep = len(words) == 2 and words[0].lower() == KEEP_WORD
        typed = words[1] if keep else text
        command = typed.strip().lower()
        if keep and command in (ROLL_WORD, SCORE_WORD):
            return None
        if command in (ROLL_WORD, SCORE_WORD, NONE_WORD):
            return typed
        read = read_faces(typed, self.variant)
        if read.values and not read.unread:   # ``3 3 6`` and ``3,3,6`` as ``336``
            return "".join(str(v) for v in read.values)
        # a digit of no face (a 9) is the parser's to refuse
        return typed if self.variant.faces_are_values else None

    def _coach(self, prompt: Prompt) -> None:
        """Print the coach's advice, its best options and the win chances (with a coach)."""
        coaching = self.live.coaching()
        if coaching is None or coaching.advice is None:
            return
        if isinstance(coaching.advice, BoxAdvice):
            self.console.advice(box_advice_text(coaching.advice))
        elif self.notation is Notation.FACES:
            self.console.advice(keep_advice_by_faces(coaching.advice, self.variant))
        else:
            self.console.advice(keep_advice_text(coaching.advice, self.variant))
        self._coach_options([(move_text(option, self.variant), profile)
                             for option, profile in coaching.options], coaching)

    def _recap(self, seat: int) -> tuple[list[TurnSummary], bool]:
        """Return the other players' turns since ``seat``'s last one, in a game with a computer.

        Also returns whether ``seat`` has not played a turn yet.  A game of
        people only shows none: it prints exactly the specification's texts.
        """
        if not self.live.has_computer():
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
        while True:
            view = self.live.prompt().view
            kept = tuple(v for v, saved in zip(view.dice, view.saved) if saved)
            _, outcome = self.live.computer_move()
            for event in outcome.events:
                if isinstance(event, Rolled):
                    self.console.computer_reroll(name, self.variant, kept, event.dice)
                elif isinstance(event, Scored):
                    self.console.computer_scored(name, event.item, player.card.score())
                    return

    def _coach_options(self, options: list[tuple[str, Profile]], coaching: Coaching) -> None:
        """Print the best options' profiles and, with opponents, everyone's win chances."""
        self.console.options(options)
        if coaching.chances is not None:
            self.console.win_chances(self._names(), coaching.chances)

    def _show_die_outcome(self, outcome: Outcome) -> None:
        """Print what a die move did: refused, or the dice after the last re-roll."""
        if outcome.refusal is Refusal.ALL_SAVED:
            self.console.all_saved(keep=outcome.move.kind is MoveKind.KEEP)
        elif outcome.refusal is Refusal.NOT_SHOWN:
            self.console.faces_not_shown(outcome.move.faces, self.live.prompt().view.dice,
                                         self.variant)
        elif not outcome.accepted:
            self.console.invalid_die(str(outcome.move))
        for event in outcome.events:
            if isinstance(event, Rolled) and event.rolls_left == 0:
                self.console.out_of_rolls()
                self.console.dice(self.variant, event.dice)

    def _score(self, player: Player, prompt: Prompt) -> None:
        """Show the menu until the player names an offered box; say what it scored."""
        while True:
            self.console.menu(prompt.menu)
            self._coach(prompt)
            outcome = self._box_move(player, prompt)
            if outcome is not None and outcome.accepted:
                break
            if outcome is not None and outcome.joker is not None:
                self.console.joker_refused(outcome.joker)
            else:
                self.console.bad_category()
        for event in outcome.events:
            if isinstance(event, Scored):
                self.console.scored(event.item)

    def _box_move(self, player: Player, prompt: Prompt) -> Outcome | None:
        """Return what the box ``player`` names did (None: a typed line names no box)."""
        move = player.move(prompt.view, True)
        if move is not None:
            self.console.show_category(str(move))
        else:
            move = parse_box(self.console.ask_category())
        return None if move is None else self.live.play(move)

    # -- the end ---------------------------------------------------------
    def show_final(self) -> None:
        """Print every final card with the scoring dice, and the winner."""
        self.console.final([(p.name, p.card, self.engine.scoring_dice(seat))
                            for seat, p in enumerate(self.players)],
                           [p.name for p in self.winners()])
