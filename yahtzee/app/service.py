"""The game service: one game in play, whoever plays it (the console or the browser table).

A ``LiveGame`` is a game's engine with its seated players, its autosave and,
when asked for, the coach.  Front ends ask it what the game waits for
(``prompt``), hand it a person's typed move (``play``) or let it make the
computer's next move (``computer_move``), and ask for the coach's word
(``coaching``).  Everything that changes the game goes through ``play``,
which the engine checks; the autosave (an engine observer) writes every
change and files the finished game, so that there is one path that saves.

``new_game`` and ``resume_game`` make live games; the console plays one at
a time, the browser table (``app.browser``) many side by side, each with
its own dice (no generator is shared between games) and its own lock.
Nothing here prints: refusals come back as the engine's ``Outcome`` and
reports go to the callbacks the interface supplies.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from yahtzee.app.session import Autosave, Solvers, resume_engine
from yahtzee.domain.card import Variant
from yahtzee.engine.engine import Engine, Outcome, Phase, Prompt
from yahtzee.engine.moves import Move
from yahtzee.players.kinds import PlayerKind
from yahtzee.players.players import ComputerPlayer, Player

if TYPE_CHECKING:
    from yahtzee.solver.coach import (BoxAdvice, Coach, Keep, KeepAdvice, Option,
                                      PlayerAnalysis, Position, ScoreBox)
    from yahtzee.storage.saves import SaveFile


class StrategyError(RuntimeError):
    """A computer's strategy made a move the engine refused: a fault of the program."""


@dataclass(frozen=True)
class Coaching:
    """The coach's word on the position of the seat to play.

    ``advice`` is the best move (None on a computer's turn: the coach
    speaks to people only); ``options`` the best options with their outcome
    profiles (empty without profiles, or on a computer's turn); ``chances``
    each seat's chance to finish first (None alone or without profiles).
    """

    advice: KeepAdvice | BoxAdvice | None
    options: tuple[Option, ...]
    chances: tuple[float, ...] | None
    box_now: BoxAdvice | None = None
    """When the advice is to stop rolling and score now: the box to score (and its value)."""


@dataclass(frozen=True)
class _Outlook:
    """The coach's view of one roll: the position weighed, the options shown, the chances."""

    key: tuple[object, ...]
    position: Position
    options: tuple[Option, ...]
    chances: tuple[float, ...] | None


class LiveGame:
    """One game in play: the engine, the seated players, the coach and the autosave.

    ``coach`` None plays without advice; ``coach_later`` gives the coach once
    its tables are ready (None before), for a game that starts while they
    are still being built.  ``autosave`` None keeps nothing (a game in
    memory only); otherwise it is among the engine's observers.
    """

    def __init__(self, engine: Engine, players: Sequence[Player], *,
                 coach: Coach | None = None, autosave: Autosave | None = None,
                 resumed: bool = False,
                 coach_later: Callable[[], Coach | None] | None = None) -> None:
        """Play ``engine``'s game, whose seats are ``players``; ``resumed``: from a save."""
        self.engine = engine
        self.resumed = resumed
        self.players = list(players)
        for player in self.players:
            if isinstance(player, ComputerPlayer):
                player.draw_from(engine.rng)  # a level's choices: from the game's own dice
        self._coach = coach
        self._coach_later = coach_later if coach is None else None
        self.autosave = autosave
        self._outlook: _Outlook | None = None

    @property
    def coach(self) -> Coach | None:
        """The coach (None without one, or while its tables are still being built)."""
        if self._coach is None and self._coach_later is not None:
            self._coach = self._coach_later()
            if self._coach is not None:
                self._coach_later = None
        return self._coach

    @property
    def coach_pending(self) -> bool:
        """Whether the game has a coach whose tables are still being built."""
        return self.coach is None and self._coach_later is not None

    @property
    def variant(self) -> Variant:
        """The game played (Yahtzee under its rules, or Poker Dice)."""
        return self.engine.variant

    def prompt(self) -> Prompt:
        """Return what the game waits for (a query: it never rolls, saves or notifies)."""
        return self.engine.prompt()

    def is_over(self) -> bool:
        """Return whether every round has been played."""
        return self.engine.is_over()

    def player_to_move(self) -> Player:
        """Return the player whose turn it is (the last to play once the game is over)."""
        return self.players[self.engine.current_seat()]

    def computer_to_play(self) -> bool:
        """Return whether a computer is to play (and the game goes on)."""
        return not self.is_over() and isinstance(self.player_to_move(), ComputerPlayer)

    def has_computer(self) -> bool:
        """Return whether any seat is a computer's."""
        return any(isinstance(player, ComputerPlayer) for player in self.players)

    # -- moves -------------------------------------------------------------
    def play(self, move: Move) -> Outcome:
        """Apply ``move`` for the seat to play; the autosave writes the change.

        A refused move changes nothing.  The move that ends a turn also throws
        the next turn's first roll; the one that ends the game files it.
        """
        return self.engine.apply(move)

    def computer_move(self, *, whole_keeps: bool = False) -> tuple[Move, Outcome]:
        """Make the next move of the computer to play: one toggle, roll or box.

        With ``whole_keeps`` a roll's keep is one move (``ComputerPlayer.move``):
        about half the steps of a turn, with the same dice and the same log.
        ``ValueError`` when no computer is to play; ``StrategyError`` if its
        strategy's move is refused (the game is unchanged).
        """
        player = self.player_to_move()
        if self.is_over() or not isinstance(player, ComputerPlayer):
            raise ValueError("no computer is to play")
        prompt = self.prompt()
        move = player.move(prompt.view, prompt.phase is Phase.SCORING, whole_keeps=whole_keeps)
        with contextlib.nullcontext() if self.autosave is None else self.autosave.replaying():
            outcome = self.play(move)
        if not outcome.accepted:
            raise StrategyError(f"{player.name}'s strategy made a refused move "
                                f"{move!r} ({outcome.refusal})")
        return move, outcome

    def finish(self) -> None:
        """File a game restored after its end (its filing had failed); nothing otherwise."""
        self.engine.finish()

    # -- the coach -----------------------------------------------------------
    def coaching(self) -> Coaching | None:
        """Return the coach's word on the position now (None without a coach or at the end).

        The options and chances depend only on the cards, the dice and the
        rolls left, not on which dice are saved: they are worked out once per
        roll and a toggle reads them again from memory, as it reads the
        values of the moves the advice is drawn from (``Coach.position``).
        """
        coach = self.coach
        if coach is None or self.is_over():
            return None
        prompt = self.prompt()
        if self.computer_to_play():
            return Coaching(None, (), self._outlook_of(prompt, options=False).chances)
        view = prompt.view
        outlook = self._outlook_of(prompt)
        position = outlook.position
        advice: KeepAdvice | BoxAdvice
        box_now = None
        if prompt.phase is Phase.ROLLING:
            advice = position.roll_advice(view.saved)
            if advice.keep.scores_now:
                box_now = position.category_advice()
        else:
            advice = position.category_advice()
        return Coaching(advice, outlook.options, outlook.chances, box_now)

    def _outlook_of(self, prompt: Prompt, *, options: bool = True) -> _Outlook:
        """Return the position of the seat to play, its best options and each seat's win chance.

        Without ``options`` (a computer's turn, where no option is shown)
        only the best move is worked out, for the chances, not the options'
        profiles.
        """
        assert self.coach is not None
        view = prompt.view
        scoring = prompt.phase is not Phase.ROLLING
        key = (view.round, view.seat, prompt.phase, tuple(view.dice), view.rolls_left, options)
        if self._outlook is None or self._outlook.key != key:
            position = self.coach.position(view.card, view.dice,
                                           0 if scoring else view.rolls_left)
            shown: tuple[Option, ...] = ()
            best: Keep | ScoreBox | None
            if not options:
                best = position.best_move(scoring)
            else:
                shown = tuple(position.box_options() if scoring else position.keep_options())
                best = shown[0][0] if shown else None
            chances = self.coach.win_chances([p.card for p in self.players], view.seat,
                                             view.dice, view.rolls_left, best,
                                             self.strategies())
            self._outlook = _Outlook(key, position, shown,
                                     None if chances is None else tuple(chances))
        return self._outlook

    def strategies(self) -> list[str | None]:
        """Return the strategy each seat plays (None for a person), for the win chances."""
        return [player.kind.strategy for player in self.players]

    def analyses(self) -> list[PlayerAnalysis]:
        """Return each player's expected score, luck and decisions' cost (needs the coach).

        The chances at each turn's start are those filed with the game, when it was filed
        with them: they are not worked out twice.
        """
        assert self.coach is not None
        filed = None if self.autosave is None else self.autosave.filed_chances
        return self.coach.analyze([p.name for p in self.players], self.engine.log,
                                  filed or None, self.strategies())


def new_game(setup: Solvers, variant: Variant, kinds: Sequence[PlayerKind],
             names: Sequence[str] | None = None, *, seed: int | None = None,
             coach: bool = False, autosave: Autosave | None = None,
             coach_in_background: bool = False) -> LiveGame:
    """Return a new game of ``variant`` for players of ``kinds`` (default names where none).

    Its dice are seeded with ``seed`` (None: unpredictable); ``coach`` loads
    the coach with its profiles now (with ``coach_in_background``, the game
    starts at once and the coach joins once its tables are built);
    ``autosave`` saves it (as its policy says, from the first roll or from
    the first move).  Computers' tables start loading in the background.
    ``SolverUnavailableError`` without numpy when a computer or the coach
    needs it.
    """
    players = setup.players(kinds, names, variant)
    return _live(setup, Engine(variant, players, seed=seed, observers=_observers(autosave)),
                 players, coach, autosave, resumed=False, background=coach_in_background)


def resume_game(setup: Solvers, save: SaveFile, *, coach: bool = False,
                autosave: Autosave | None = None,
                coach_in_background: bool = False) -> LiveGame:
    """Return the game ``save`` holds, where it stood, its players seated with their cards.

    ``coach`` and ``coach_in_background`` as for ``new_game``.  ``SnapshotError``
    if its players cannot be seated (an unknown kind).
    """
    engine, players = resume_engine(save, setup, observers=_observers(autosave))
    return _live(setup, engine, players, coach, autosave, resumed=True,
                 background=coach_in_background)


def _observers(autosave: Autosave | None) -> list[Autosave]:
    """Return the engine observers of a game saved by ``autosave`` (none without one)."""
    return [] if autosave is None else [autosave]


def _live(setup: Solvers, engine: Engine, players: list[Player], coach: bool,
          autosave: Autosave | None, *, resumed: bool, background: bool) -> LiveGame:
    """Return the live game, its computers' tables loading and the coach ready if asked for.

    With ``background`` the coach's tables load in the background and the
    coach joins the game once they are ready (at once if they were).
    """
    variant = engine.variant
    if background and coach or any(isinstance(player, ComputerPlayer) for player in players):
        setup.load_in_background(variant)
    if not coach:
        return LiveGame(engine, players, autosave=autosave, resumed=resumed)
    if not background:
        return LiveGame(engine, players, coach=setup.coach(variant, profiles=True),
                        autosave=autosave, resumed=resumed)

    def later() -> Coach | None:
        """Return the coach once its tables are built (None before)."""
        return setup.coach(variant, profiles=True) if setup.tables_ready(variant) else None

    return LiveGame(engine, players, autosave=autosave, resumed=resumed, coach_later=later)
