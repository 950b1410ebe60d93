"""Game tables for a server: many games at once, each an engine with its players, saves and seats.

A ``GameTable`` is one game: the engine, its players, the coach, the
autosaver, and the seats' secrets (a browser acts for the seats whose
secret it holds).  ``Tables`` holds the live ones, creates new games,
takes saved browser games up again after a restart, and caps how many are
live.  Every move goes through the engine, checked exactly as at the console.

Games run side by side in threads: each game's dice come from its own
generator, put in ``Die.r`` (the dice's one shared generator) only while
that game's engine works, under one lock; the slow part of a move, writing
its save, happens outside that lock.  Nothing here prints: refusals are
``TableError`` with a ``Denial``, and views are plain data.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import hmac
import random
import secrets
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from yahtzee.domain.card import MenuItem, Variant
from yahtzee.domain.dice import Dice
from yahtzee.domain.die import Die
from yahtzee.domain.games import get_variant
from yahtzee.engine.engine import Engine, Outcome, Phase, Prompt, Rolled, Scored
from yahtzee.engine.records import GameRecord
from yahtzee.players.kinds import PlayerKind, find_kind
from yahtzee.players.players import ComputerPlayer, Player
from yahtzee.app.session import Autosaver, Setup, find_save, resume_engine
from yahtzee.storage.history import History
from yahtzee.storage.problems import StorageError, StorageProblems
from yahtzee.storage.saves import SaveStore
from yahtzee.storage.snapshot import SnapshotError
from yahtzee.storage.web_games import GAME_ID, WebGame, WebGameStore

if TYPE_CHECKING:
    from yahtzee.solver.coach import BoxAdvice, Coach, Keep, KeepAdvice, PlayerAnalysis, ScoreBox
    from yahtzee.solver.profiles import Profile

MAX_SEED = 2 ** 63 - 1
"""The largest seed a game takes (as on the command line)."""
RECENT = 40
"""How many of the latest moves a table remembers for its view."""
DEFAULT_CAPACITY = 200
"""How many games a server keeps live at most, by default."""

_ENGINE_LOCK = threading.RLock()
"""Held while any game's engine or the solver works: ``Die.r`` is one generator for all."""
_LOAD_LOCK = threading.Lock()
"""Held while the solver's tables load, so that no table is built twice at once.

Also held while a finished game's win chances are worked out for the
history, which may load the spread-and-chances table.
"""


@contextlib.contextmanager
def _dice_from(generator: random.Random) -> Iterator[None]:
    """Run the block, under the engine lock, with ``Die.r`` set to ``generator``."""
    with _ENGINE_LOCK:
        shared = Die.r
        Die.r = generator
        try:
            yield
        finally:
            Die.r = shared


class Denial(enum.Enum):
    """Why a table refused a request before the engine saw it (it changed nothing)."""

    UNKNOWN_GAME = "unknown game"
    NOT_YOUR_SEAT = "the secret acts for no seat of this game"
    NOT_YOUR_TURN = "another seat is to play"
    COMPUTER_TURN = "a computer is to play"
    WRONG_PHASE = "the move does not fit the moment (rolling or choosing a box)"
    STALE = "the game has moved on since the page was drawn"
    GAME_OVER = "the game is over"
    FULL = "the server has as many live games as it takes"
    REFUSED = "the engine refused the command"
    """The engine's own refusal: ``TableError.outcome`` holds it."""


class TableError(Exception):
    """A request a table refused, and why; nothing changed."""

    def __init__(self, denial: Denial, outcome: Outcome | None = None) -> None:
        """Refuse for ``denial``; ``outcome`` is the engine's refusal, for ``Denial.REFUSED``."""
        super().__init__(denial.value)
        self.denial = denial
        self.outcome = outcome


class MoveKind(enum.Enum):
    """What a browser asks for: the die prompt's commands or a box of the menu."""

    TOGGLE = "toggle"
    ROLL = "roll"
    SCORE = "score"
    BOX = "box"


@dataclass(frozen=True)
class Move:
    """A move a seat asks for: ``number`` is the die (1-5) to toggle or the box's menu number."""

    kind: MoveKind
    number: int = 0

    def command(self) -> str:
        """Return the engine command of this move."""
        if self.kind in (MoveKind.TOGGLE, MoveKind.BOX):
            return str(self.number)
        return str(self.kind.value)


@dataclass(frozen=True)
class Settings:
    """A new game as its creator asked for it; ``seed`` None draws one (kept, for restarts)."""

    variant: Variant
    kinds: tuple[PlayerKind, ...]
    names: tuple[str, ...]
    seed: int | None = None
    coach: bool = True
    hot_seat: bool = False


@dataclass(frozen=True)
class Happened:
    """One line of what happened at the table: a seat's roll, re-roll or box."""

    seat: int
    dice: tuple[int, ...]
    kept: tuple[int, ...] | None = None
    """The dice kept for a re-roll (None: the turn's first roll)."""
    item: MenuItem | None = None
    """The box scored (then ``dice`` are the dice scored)."""
    total: int = 0
    """The seat's total after the box."""


@dataclass(frozen=True)
class SeatView:
    """One seat as everyone sees it: its boxes (None: open), printed rows and total."""

    name: str
    kind: str
    computer: bool
    boxes: tuple[tuple[int, str, int | None], ...]
    """(menu number, name, points or None while open) for every box."""
    rows: tuple[tuple[str, int], ...]
    """The card's printed rows after the boxes (bonus and totals)."""
    total: int


@dataclass(frozen=True)
class TableView:
    """A table as it stands after ``version`` changes: everything a page draws."""

    game_id: str
    version: int
    variant: Variant
    phase: Phase
    round: int
    seat: int
    dice: tuple[int, ...]
    saved: tuple[bool, ...]
    rolls_left: int
    seats: tuple[SeatView, ...]
    offers: tuple[MenuItem, ...]
    """What each box on the menu would give the seat to play now (its dice as they stand)."""
    advice: KeepAdvice | BoxAdvice | None
    options: tuple[tuple[Keep | ScoreBox, Profile], ...]
    """With the coach, on a person's turn: the best options with their outcome profiles."""
    chances: tuple[float, ...] | None
    """Each seat's chance to finish first (with the coach and two or more players)."""
    analyses: tuple[PlayerAnalysis, ...]
    """At the end, with the coach: each player's expected score, luck and decisions' cost."""
    winners: tuple[int, ...]
    happened: tuple[Happened, ...]
    hot_seat: bool
    coach: bool


def hash_secret(secret: str) -> str:
    """Return the SHA-256 (hex) of a seat secret, as the game's file keeps it."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


@dataclass
class _Pending:
    """An engine observer that notes the records to save, for writing after the engine lock."""

    keep: GameRecord | None = None
    file: GameRecord | None = None
    saved_once: bool = False

    def changed(self, engine: Engine) -> None:
        """Note the game as it now stands (a new game only once it has an accepted command)."""
        if self.saved_once or engine.log:
            self.keep = engine.record()

    def finished(self, engine: Engine) -> None:
        """Note the finished game, to file in the history."""
        self.file = engine.record()


@dataclass
class GameTable:
    """One game at a server: engine, players, coach, saves and the seats' secrets."""

    web: WebGame
    engine: Engine
    players: list[Player]
    saver: Autosaver
    games: WebGameStore
    generator: random.Random
    pending: _Pending
    coach: Coach | None = None
    happened: list[Happened] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    touched: float = field(default_factory=time.monotonic)
    """When the table was last asked for anything (``time.monotonic``)."""
    _view: TableView | None = None
    _outlook: tuple[tuple[object, ...], tuple[tuple[Keep | ScoreBox, Profile], ...],
                    tuple[float, ...] | None] | None = None
    """The options and win chances last worked out, with the turn, dice and rolls left they
    are for (``_outlook_of``)."""

    @property
    def version(self) -> int:
        """How far the game has gone: it grows with every roll and accepted command.

        It follows from the saved game alone (twice the accepted commands, one
        more while a turn is under way), so it survives a restart of the server.
        """
        return 2 * len(self.engine.log) + (1 if self.engine.turn_started() else 0)

    @property
    def game_id(self) -> str:
        """The game's ID: in its link, its save and its history entry."""
        return self.web.game_id

    def seats_of(self, secret: str | None) -> frozenset[int]:
        """Return the seats (from 0) that ``secret`` acts for (none for a wrong or no secret)."""
        if not secret:
            return frozenset()
        digest = hash_secret(secret)
        found: set[int] = set()
        for known, seats in self.web.secrets:
            if hmac.compare_digest(known, digest):
                found.update(seats)
        return frozenset(found)

    def is_over(self) -> bool:
        """Return whether every round has been played."""
        return self.engine.is_over()

    def computer_to_play(self) -> bool:
        """Return whether the seat to play is a computer's (and the game goes on)."""
        return (not self.engine.is_over()
                and isinstance(self.players[self.engine.current_seat()], ComputerPlayer))

    # -- moves -------------------------------------------------------------
    def act(self, secret: str | None, move: Move, version: int | None = None) -> TableView:
        """Carry out ``move`` for the seat to play, if ``secret`` acts for it; return the view.

        ``TableError`` (nothing changed) for a wrong seat, out of turn, a move
        that does not fit the phase, a ``version`` other than the table's,
        or a command the engine refuses.
        """
        seats = self.seats_of(secret)
        with self.lock:
            self.touched = time.monotonic()
            if not seats:
                raise TableError(Denial.NOT_YOUR_SEAT)
            if self.engine.is_over():
                raise TableError(Denial.GAME_OVER)
            if version is not None and version != self.version:
                raise TableError(Denial.STALE)
            seat = self.engine.current_seat()
            if seat not in seats:
                raise TableError(Denial.COMPUTER_TURN if self.computer_to_play()
                                 else Denial.NOT_YOUR_TURN)
            prompt = self._prompt()
            scoring = move.kind is MoveKind.BOX
            if scoring != (prompt.phase is Phase.SCORING):
                raise TableError(Denial.WRONG_PHASE)
            outcome = self._submit(prompt, move.command())
            if not outcome.accepted:
                raise TableError(Denial.REFUSED, outcome)
            return self._view_now()

    def computer_step(self) -> bool:
        """Make one command of the computer to play (a toggle, a roll or its box).

        Return False when no computer is to play.
        """
        with self.lock:
            if not self.computer_to_play():
                return False
            player = self.players[self.engine.current_seat()]
            assert isinstance(player, ComputerPlayer)
            prompt = self._prompt()
            with _ENGINE_LOCK:
                command = (player.command(prompt.view) if prompt.phase is Phase.ROLLING
                           else player.category(prompt.view))
            outcome = self._submit(prompt, command)
            if not outcome.accepted:
                raise RuntimeError(f"{player.name}'s strategy sent a refused command "
                                   f"{command!r} ({outcome.refusal})")
            return True

    def _prompt(self) -> Prompt:
        """Return the engine's prompt (a new turn's first roll is made, and noted, here)."""
        started = self.engine.turn_started()
        with _dice_from(self.generator):
            prompt = self.engine.prompt()
        if not started and prompt.phase is not Phase.OVER:
            self.happened.append(Happened(prompt.seat, prompt.view.dice))
        self._save()
        return prompt

    def _submit(self, prompt: Prompt, command: str) -> Outcome:
        """Hand ``command`` to the engine, note what it did, and save the game."""
        kept = tuple(v for v, s in zip(prompt.view.dice, prompt.view.saved) if s)
        with _dice_from(self.generator):
            outcome = self.engine.submit(command)
        if outcome.accepted:
            for event in outcome.events:
                if isinstance(event, Rolled):
                    self.happened.append(Happened(prompt.seat, event.dice, kept))
                elif isinstance(event, Scored):
                    total = self.players[event.seat].card.score()
                    self.happened.append(Happened(event.seat, prompt.view.dice,
                                                  item=event.item, total=total))
            del self.happened[:-RECENT]
        self._save()
        return outcome

    def _save(self) -> None:
        """Write what the engine noted: the save, then (at the end) the history."""
        keep, final = self.pending.keep, self.pending.file
        self.pending.keep = self.pending.file = None
        if keep is not None:
            self.saver.keep(keep)
            self.pending.saved_once = self.saver.save is not None
            save_id = self.saver.save_id
            if save_id is not None and self.web.save_id != save_id:
                self.web = self.web.with_save(save_id)
                try:
                    self.games.write(self.web)
                except OSError as error:
                    self.saver.store.problems.cannot_save(error)
        if final is not None:
            with _LOAD_LOCK:
                chances = self.saver.chances(final)
            self.saver.file(final, chances)
            if self.saver.filed:
                self.games.remove(self.game_id)

    # -- views -------------------------------------------------------------
    def view(self) -> TableView:
        """Return the table as it stands (drawn once per change)."""
        with self.lock:
            self.touched = time.monotonic()
            return self._view_now()

    def _view_now(self) -> TableView:
        """Return the view of the current state (the lock held); a new turn's first roll first."""
        prompt = self._prompt()
        if self._view is not None and self._view.version == self.version:
            return self._view
        variant = self.engine.variant
        view = prompt.view
        seats = []
        for player in self.players:
            scores, _ = variant.card_contents(player.card)
            rows = player.card.rows()
            boxes = tuple((n, rows[n - 1][0], points)
                          for n, points in enumerate(scores, start=1))
            seats.append(SeatView(player.name, player.kind_name, player.kind.is_computer, boxes,
                                  tuple(rows[len(scores):]), player.card.score()))
        offers: tuple[MenuItem, ...] = ()
        advice: KeepAdvice | BoxAdvice | None = None
        over = prompt.phase is Phase.OVER
        chances: tuple[float, ...] | None = None
        analyses: tuple[PlayerAnalysis, ...] = ()
        options: tuple[tuple[Keep | ScoreBox, Profile], ...] = ()
        if not over:
            offers = tuple(view.card.menu(Dice.of(view.dice)))
            if self.coach is not None:
                with _ENGINE_LOCK:
                    options, chances = self._outlook_of(prompt)
                    if not self.computer_to_play():
                        if prompt.phase is Phase.ROLLING:
                            advice = self.coach.roll_advice(view.card, view.dice, view.saved,
                                                            view.rolls_left)
                        else:
                            advice = self.coach.category_advice(view.card, view.dice)
                    else:
                        options = ()
        elif self.coach is not None:
            with _ENGINE_LOCK:
                analyses = tuple(self.coach.analyze([p.name for p in self.players],
                                                    self.engine.log))
        self._view = TableView(
            self.game_id, self.version, variant, prompt.phase, view.round, view.seat,
            () if over else view.dice, () if over else view.saved, view.rolls_left,
            tuple(seats), offers, advice, options, chances, analyses,
            tuple(self.engine.winners()) if over else (), tuple(self.happened),
            self.web.hot_seat, self.coach is not None)
        return self._view

    def _outlook_of(self, prompt: Prompt) -> tuple[
            tuple[tuple[Keep | ScoreBox, Profile], ...], tuple[float, ...] | None]:
        """Return the best options of the seat to play and each seat's win chance.

        Neither depends on which dice are saved, only on the cards, the dice
        and the rolls left: they are worked out once per roll, and a toggle
        of a die draws them again from memory.
        """
        view = prompt.view
        key = (view.round, view.seat, prompt.phase, tuple(view.dice), view.rolls_left)
        if self._outlook is None or self._outlook[0] != key:
            options = self._options(prompt)
            self._outlook = (key, options,
                             self._chances(prompt, options[0][1] if options else None))
        return self._outlook[1], self._outlook[2]

    def _options(self, prompt: Prompt) -> tuple[tuple[Keep | ScoreBox, Profile], ...]:
        """Return the best options of the seat to play with their outcome profiles."""
        assert self.coach is not None
        view = prompt.view
        if prompt.phase is Phase.ROLLING:
            return tuple(self.coach.keep_options(view.card, view.dice, view.rolls_left))
        return tuple(self.coach.box_options(view.card, view.dice))

    def _chances(self, prompt: Prompt, best: Profile | None) -> tuple[float, ...] | None:
        """Return each seat's win chance now, the seat to play at its best option's profile."""
        assert self.coach is not None
        chances = self.coach.win_chances([player.card for player in self.players],
                                         prompt.view.seat, best)
        return None if chances is None else tuple(chances)

    def release(self) -> None:
        """Let go of the game's save (its lock), so that another process may take it up."""
        self.saver.store.release()


@dataclass(frozen=True)
class NewTable:
    """A game just created, with its seats' secrets (given once, never stored)."""

    table: GameTable
    secrets: tuple[tuple[str, tuple[int, ...]], ...]
    """Each secret with the seats (from 0) it acts for."""


class Tables:
    """The live games of a server, by ID, at most ``capacity`` of them.

    Browser games saved by an earlier run (listed once, at the start) come
    back on the first request for their ID.  When the tables are full, a
    finished game, then the game idle longest, is let go (its save stays,
    to be taken up again); if every table is busy, a new game is refused.
    """

    def __init__(self, setup: Setup, problems: StorageProblems, *,
                 capacity: int = DEFAULT_CAPACITY, games: WebGameStore | None = None) -> None:
        """Serve games with ``setup``'s solver, reporting storage problems to ``problems``."""
        self.setup = setup
        self.problems = problems
        self.capacity = capacity
        self.games = games if games is not None else WebGameStore(problems=problems)
        self.known = self.games.load_all()
        """Browser games of earlier runs not yet taken up, by ID."""
        self.live: dict[str, GameTable] = {}
        self.lock = threading.Lock()

    # -- creating and finding games ----------------------------------------
    def create(self, settings: Settings) -> NewTable:
        """Start a new game as ``settings`` say; ``TableError(Denial.FULL)`` if no room is left.

        The solver's tables (for computers and the coach) load before the
        game starts; ``SolverUnavailableError`` without numpy.
        """
        seed = settings.seed if settings.seed is not None else random.SystemRandom().randrange(
            MAX_SEED + 1)
        humans = tuple(seat for seat, kind in enumerate(settings.kinds) if not kind.is_computer)
        given: list[tuple[str, tuple[int, ...]]] = []
        if settings.hot_seat and humans:
            given.append((secrets.token_urlsafe(18), humans))
        else:
            given.extend((secrets.token_urlsafe(18), (seat,)) for seat in humans)
        web = WebGame(uuid.uuid4().hex, settings.variant.name, settings.variant.rules_name,
                      tuple(k.name for k in settings.kinds), settings.names, seed,
                      settings.coach, settings.hot_seat,
                      tuple((hash_secret(secret), seats) for secret, seats in given))
        with self.lock:
            self._make_room()
            table = self._seat(web)
            self.games.write(web)
            self.live[web.game_id] = table
        return NewTable(table, tuple(given))

    def get(self, game_id: str) -> GameTable:
        """Return the live game ``game_id``, taking a saved one up again if need be.

        ``TableError(Denial.UNKNOWN_GAME)`` for an ID no game has (or whose
        save is gone or open in another process).
        """
        if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
            raise TableError(Denial.UNKNOWN_GAME)
        with self.lock:
            table = self.live.get(game_id)
            if table is not None:
                return table
            web = self.known.get(game_id)
            if web is None:
                raise TableError(Denial.UNKNOWN_GAME)
            self._make_room()
            try:
                table = self._seat(web)
            except (StorageError, SnapshotError, ValueError, LookupError):
                self.known.pop(game_id, None)
                raise TableError(Denial.UNKNOWN_GAME) from None
            del self.known[game_id]
            self.live[game_id] = table
            return table

    def _make_room(self) -> None:
        """Let go of a finished game, else the game idle longest, when the tables are full."""
        if len(self.live) < self.capacity:
            return
        idle = [t for t in self.live.values() if not t.computer_to_play()]
        finished = [t for t in idle if t.is_over()]
        pool = finished or idle
        if not pool:
            raise TableError(Denial.FULL)
        oldest = min(pool, key=lambda t: t.touched)
        del self.live[oldest.game_id]
        oldest.release()
        if not oldest.is_over():
            self.known[oldest.game_id] = oldest.web

    def _seat(self, web: WebGame) -> GameTable:
        """Return the table of ``web``: from its save if it has one, else set up anew."""
        variant = get_variant(web.game, web.rules)
        store = SaveStore(problems=self.problems)
        generator = random.Random()
        pending = _Pending()
        coach = None
        try:
            if web.save_id is not None:
                save = find_save(str(web.save_id), store)
                if save.uid != web.game_id:
                    raise LookupError(web.game_id)
                saver = Autosaver(store, History(problems=self.problems), resumed=save,
                                  setup=self.setup, coached=web.coach)
                pending.saved_once = True
                with _dice_from(generator):
                    engine, players = resume_engine(save, self.setup, observers=[pending])
            else:
                kinds = []
                for name in web.kinds:
                    kind = find_kind(name)
                    if kind is None:
                        raise ValueError(f"unknown player kind {name!r}")
                    kinds.append(kind)
                players = self.setup.players(kinds, list(web.names), variant)
                saver = Autosaver(store, History(problems=self.problems), uid=web.game_id,
                                  setup=self.setup, coached=web.coach)
                with _dice_from(generator):
                    engine = Engine(variant, players, seed=web.seed, observers=[pending])
            with _LOAD_LOCK:
                for player in players:
                    if isinstance(player, ComputerPlayer):
                        player.prepare()
                if web.coach:
                    coach = self.setup.coach(variant, profiles=True)
        except BaseException:
            store.release()
            raise
        return GameTable(web, engine, players, saver, self.games, generator, pending, coach)

    def close(self) -> None:
        """Let go of every live game's save."""
        with self.lock:
            for table in self.live.values():
                table.release()
            self.live.clear()
