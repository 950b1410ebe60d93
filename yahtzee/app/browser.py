"""The browser table's games: many games at once, each a live game with its seats' secrets.

A ``BrowserGame`` is one game at a server: a ``LiveGame`` of the game
service (engine, players, coach, autosave) and the seats' secrets (a
browser acts for the seats whose secret it holds), with the recent moves
and the view a page draws.  ``BrowserGames`` holds the live ones, creates
new games, takes saved browser games up again after a restart, and caps how
many are held in memory.  Every move goes through the game service,
checked exactly as at the console.

Games run side by side in threads, each under its own lock and rolling
its own dice: no generator and no lock is shared between games.

With a database shared by several server processes (``Storage.shared``),
a game lives in the database, not in any process: every change runs in a
transaction that holds the game's row (``SaveStorage.transaction``), first
bringing this process's copy up to date when another process moved the
game (its stored version differs from the one last seen here), and is
committed before it is answered; the other processes hear of it
(``notify``), of a computer's turn once it is over.  A computer's turn is
played by the one process holding the game's lease (``claim``), renewed at
each of its moves; a game whose process is gone is taken up by another
once the lease lapses.  The solver's tables load under one lock (so that
no table is built twice at once).  Nothing here prints: refusals are ``GameRequestError`` with a
``Denial``, and views are plain data.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import hashlib
import hmac
import os
import secrets
import socket
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from yahtzee.app.service import Coaching, LiveGame, new_game, resume_game
from yahtzee.app.session import Autosave, Solvers, SolverUnavailableError, find_save
from yahtzee.domain.card import Card, MenuItem, Variant
from yahtzee.domain.dice import Dice
from yahtzee.domain.games import get_variant
from yahtzee.engine.engine import (FirstRoll, Outcome, Phase, Rolled, Scored, Toggled, TurnView,
                                   new_seed)
from yahtzee.engine.moves import Move, MoveKind
from yahtzee.engine.records import REROLLS, Decision, replayed_cards
from yahtzee.players.kinds import HUMAN, PlayerKind, find_kind, strategies_of
from yahtzee.players.players import ComputerPlayer
from yahtzee.storage.fields import GAME_ID
from yahtzee.storage.history import HistoryGame
from yahtzee.storage.port import SaveStorage, Storage, open_storage
from yahtzee.storage.problems import (SaveInUseError, SaveNotFoundError, StorageError,
                                      StorageProblems)
from yahtzee.storage.saves import BrowserSeats, PendingAppend, SaveFile
from yahtzee.storage.snapshot import SnapshotError
from yahtzee.storage.web_games import WebGame, forget_legacy_game, load_legacy_games

if TYPE_CHECKING:
    from yahtzee.solver.coach import BoxAdvice, KeepAdvice, Option, PlayerAnalysis

RECENT = 40
"""How many of the latest moves a table remembers for its view."""
FINISHED_KEPT = 64
"""How many finished games' last views ``BrowserGames.finished`` keeps (the latest asked for)."""
DEFAULT_CAPACITY = 200
"""How many games a server keeps live at most, by default."""
LEASE_SECONDS = 5.0
"""How long a process's claim to play a game's computer lasts, in seconds (each move renews it)."""

NO_COACHING = Coaching(None, (), None)
"""The coach's word in a game without one (or at the end)."""
_SOLVER_LOAD_LOCK = threading.Lock()
"""Held while a game's solver tables load, so that no table is built twice at once."""


class Denial(enum.Enum):
    """Why a table refused a request before the engine saw it (it changed nothing)."""

    UNKNOWN_GAME = "unknown game"
    IN_USE = "the game is open in another window"
    """Resumed at the console (with files: or served by another process): it is kept, and
    comes back once that window lets go of it."""
    NOT_YOUR_SEAT = "the secret acts for no seat of this game"
    NOT_YOUR_TURN = "another seat is to play"
    COMPUTER_TURN = "a computer is to play"
    STILL_ROLLING = "a box was chosen before rolling stopped"
    DONE_ROLLING = "a die, roll or score came after rolling stopped"
    STALE = "the game has moved on since the page was drawn"
    GAME_OVER = "the game is over"
    WAITING = "the game waits for its people to join"
    NOT_HOST = "only the game's host may start it before everyone has joined"
    NOT_HOST_LINKS = "only the game's host may ask for the seats' links again"
    FULL = "the server has as many live games as it takes"
    NOT_KEPT = "the database could not keep the move, so it was undone"
    REFUSED = "the engine refused the command"
    """The engine's own refusal: ``GameRequestError.outcome`` holds it."""


class GameRequestError(Exception):
    """A request a table refused, and why; nothing changed."""

    def __init__(self, denial: Denial, outcome: Outcome | None = None) -> None:
        """Refuse for ``denial``; ``outcome`` is the engine's refusal, for ``Denial.REFUSED``."""
        super().__init__(denial.value)
        self.denial = denial
        self.outcome = outcome


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
    """One line of what happened at the table: a seat's roll, re-roll or box.

    A page plays a computer's turn back from these lines, the dice as each
    roll left them, so they say where each roll left the turn too.
    """

    seat: int
    dice: tuple[int, ...]
    kept: tuple[int, ...] | None = None
    """The dice kept for a re-roll (None: the turn's first roll)."""
    item: MenuItem | None = None
    """The box scored (then ``dice`` are the dice scored)."""
    total: int = 0
    """The seat's total after the box."""
    made: int = 0
    """How many commands the game's log held once this happened: lines of one move share it
    (a box and the next turn's first roll), and it grows from move to move."""
    saved: tuple[bool, ...] | None = None
    """For a re-roll: which dice, by place, were kept (saved) for it."""
    rolls_left: int = 0
    """For a roll: the re-rolls left after it."""


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
class GameView:
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
    box_now: BoxAdvice | None
    """With keep advice to score now: the box to score."""
    options: tuple[Option, ...]
    """With the coach, on a person's turn: the best options with their outcome profiles."""
    chances: tuple[float, ...] | None
    """Each seat's chance to finish first (with the coach and two or more players)."""
    analyses: tuple[PlayerAnalysis, ...]
    """At the end, with the coach: each player's expected score, luck and decisions' cost."""
    winners: tuple[int, ...]
    happened: tuple[Happened, ...]
    hot_seat: bool
    coach: bool
    started: bool = True
    """Whether the game has left its waiting room (no move is taken before)."""
    waiting: tuple[int, ...] = ()
    """The people's seats (from 0) whose link has not been used yet."""
    host: tuple[int, ...] = ()
    """The seats (from 0) of the game's host, who may start it before everyone joins."""
    coach_pending: bool = False
    """Whether the coach's tables are still being built (the coach speaks once they are)."""


def lobby_steps(kinds: Sequence[PlayerKind]) -> int:
    """Return how far a game of ``kinds``'s version counts before its first move.

    A game of two or more people (whether it waits for them or not) counts
    one step a person and one more; its version counts on from there once
    it starts, so that a waiting room's joins keep the version growing.
    """
    people = sum(not kind.is_computer for kind in kinds)
    return people + 1 if people > 1 else 0


def waiting_seats(seats: BrowserSeats) -> tuple[int, ...]:
    """Return the seats (from 0) of ``seats``'s links that have not been used yet."""
    return tuple(sorted({seat for _, held in seats.secrets for seat in held}
                        - set(seats.joined)))


MAX_SECRET = 64
"""The longest seat secret taken (a table makes them 24 characters long): a longer one acts
for no seat, and is neither hashed nor remembered."""


@functools.lru_cache(maxsize=4096)
def hash_secret(secret: str) -> str:
    """Return the SHA-256 (hex) of a seat secret, as the game's file keeps it.

    Remembered for the latest few thousand secrets (at most ``MAX_SECRET``
    characters each, as ``seats_of`` takes them): every request of a page
    hashes its secret again, and a hash object costs more to make than the
    hashing of a few dozen bytes.
    """
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def seats_of(seats: BrowserSeats | None, secret: str | None) -> frozenset[int]:
    """Return the seats (from 0) that ``secret`` acts for in a game of ``seats`` (none for a
    wrong or no secret, or a game not played in the browser)."""
    if not secret or seats is None or len(secret) > MAX_SECRET:
        return frozenset()
    digest = hash_secret(secret)
    found: set[int] = set()
    for known, numbers in seats.secrets:
        if hmac.compare_digest(known, digest):
            found.update(numbers)
    return frozenset(found)


@dataclass
class Hold:
    """A change being made to a game held (``BrowserGame._held``)."""

    tell: bool = True
    """Whether the other server processes are told of it once it is committed: a computer's
    turn is told once, at its end, so that their pages play it back as a whole too (a turn
    left halfway by a process that stopped is told when another plays it on, once the
    lease lapses, or at the pages' next look)."""


@dataclass(frozen=True)
class Shared:
    """What a game shared through a database with other server processes needs of its server."""

    owner: str
    """This process's name in the games' leases (host, process ID and a random part)."""
    restore: Callable[[str, SaveFile, SaveStorage], BrowserGame]
    """Make the table of a game from its stored save (to catch up with other processes)."""


def process_owner() -> str:
    """Return a name for this process in leases, unique across machines and restarts."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class BrowserGame:
    """One game at a server: the live game, its autosave, and its seats' secrets and settings."""

    game_id: str
    """The game's ID: in its link, its save and its history entry."""
    seats: BrowserSeats
    live: LiveGame
    saver: Autosave
    happened: list[Happened] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    touched: float = field(default_factory=time.monotonic)
    """When the table was last asked for anything (``time.monotonic``)."""
    _view: GameView | None = None
    shared: Shared | None = None
    """The database the game is shared through with other server processes (None: files)."""
    seen: int | None = None
    """The stored version of the game this copy holds (``SaveStorage.version_of``)."""
    _seat_views: dict[int, tuple[object, SeatView]] = field(default_factory=dict)
    """Each seat's last view, with the card contents it was drawn from."""
    _steps_at_once: bool = False
    """Whether a computer's move may be made by ``computer_step_at_once``: set once a move made
    by ``computer_step`` has loaded what the computers and the coach need."""
    _acts_at_once: bool = False
    """Whether a person's move may be made by ``act_at_once``: set once a move made by ``act``
    or ``computer_step`` has loaded what the coach needs."""

    @property
    def version(self) -> int:
        """How far the game has gone: it grows with every join and every accepted move.

        It follows from the saved game alone (in the waiting room, one more
        than the seats joined; then twice the accepted moves, one more while
        the game goes on, after ``lobby_steps``), so it survives a restart of
        the server.
        """
        steps = lobby_steps([player.kind for player in self.live.players])
        if not self.seats.started:
            return 1 + min(len(self.seats.joined), max(steps - 2, 0))
        return 2 * len(self.live.engine.log) + (0 if self.live.is_over() else 1) + steps

    @property
    def host(self) -> tuple[int, ...]:
        """The host's seats (from 0): those of the first secret, the maker's."""
        return self.seats.secrets[0][1] if self.seats.secrets else ()

    def waiting(self) -> tuple[int, ...]:
        """Return the people's seats (from 0) whose link has not been used yet."""
        return waiting_seats(self.seats)

    def seats_of(self, secret: str | None) -> frozenset[int]:
        """Return the seats (from 0) that ``secret`` acts for (none for a wrong or no secret)."""
        return seats_of(self.seats, secret)

    def is_over(self) -> bool:
        """Return whether every round has been played."""
        return self.live.is_over()

    def computer_to_play(self) -> bool:
        """Return whether the seat to play is a computer's (the game started and going on)."""
        return self.seats.started and self.live.computer_to_play()

    # -- the waiting room --------------------------------------------------
    def join(self, secret: str | None) -> bool:
        """Note that the seats of ``secret`` have joined; return whether anything changed.

        The game starts once every person's seat has joined.  A change is
        written into the game's save at once.
        """
        seats = self.seats_of(secret)
        with self._held():
            return self._join(seats)

    def _join(self, seats: frozenset[int]) -> bool:
        """Note that ``seats`` joined (the lock held); return whether anything changed."""
        if not seats or seats <= set(self.seats.joined) or self.live.is_over():
            return False
        joined = replace(self.seats, joined=tuple(sorted(set(self.seats.joined) | seats)))
        self._keep(replace(joined, started=joined.started or not waiting_seats(joined)))
        return True

    def start(self, secret: str | None) -> GameView:
        """Start the game before every person has joined, for the host; return the view.

        ``GameRequestError`` for a secret of no seat (``NOT_YOUR_SEAT``) or of
        another seat than the host's (``NOT_HOST``); a game already started
        is left as it is.
        """
        seats = self.seats_of(secret)
        with self._held():
            self.touched = time.monotonic()
            if not seats:
                raise GameRequestError(Denial.NOT_YOUR_SEAT)
            self._join(seats)
            if not self.seats.started:
                if not seats & set(self.host):
                    raise GameRequestError(Denial.NOT_HOST)
                self._keep(replace(self.seats, started=True))
            return self._view_now()

    def reissue_links(self, secret: str | None) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Give the host new secrets for the links not used yet; return the host's links.

        For a host whose browser lost the links it was given (another
        device, storage cleared): the answer starts with the host's own link
        (``secret``, unchanged), then a new secret for each link none of
        whose seats has joined; that link's old secret stops working at
        once, and the new hashes are written into the game's save.  A link
        already used keeps its secret (its player holds it) and is left
        out.  ``GameRequestError``, nothing changed, for a secret of no seat
        (``NOT_YOUR_SEAT``), of a guest (``NOT_HOST_LINKS``), or a game over.
        """
        seats = self.seats_of(secret)
        with self._held():
            self.touched = time.monotonic()
            if not seats or secret is None:
                raise GameRequestError(Denial.NOT_YOUR_SEAT)
            if not seats & set(self.host):
                raise GameRequestError(Denial.NOT_HOST_LINKS)
            if self.live.is_over():
                raise GameRequestError(Denial.GAME_OVER)
            given = [(secret, self.host)]
            kept: list[tuple[str, tuple[int, ...]]] = []
            for index, (digest, held) in enumerate(self.seats.secrets):
                if index == 0 or set(held) & set(self.seats.joined):
                    kept.append((digest, held))
                    continue
                fresh = secrets.token_urlsafe(18)
                kept.append((hash_secret(fresh), held))
                given.append((fresh, held))
            if len(given) > 1:
                self._keep(replace(self.seats, secrets=tuple(kept)))
            return tuple(given)

    def _keep(self, seats: BrowserSeats) -> None:
        """Take ``seats`` as the game's seats and write them into its save."""
        self.seats = seats
        self.saver.keep_seats(seats)

    # -- moves -------------------------------------------------------------
    def act(self, secret: str | None, move: Move, version: int | None = None) -> GameView:
        """Carry out ``move`` for the seat to play, if ``secret`` acts for it; return the view.

        ``GameRequestError`` (nothing changed) for a wrong seat, out of turn, a move
        that does not fit the phase, a ``version`` other than the table's,
        or a move the engine refuses.
        """
        seats = self.seats_of(secret)
        with self._held():
            view = self._act(seats, move, version)
        self._acts_at_once = self.shared is None and not self.live.coach_pending
        return view

    def act_at_once(self, secret: str | None, move: Move,
                    version: int | None = None) -> GameView | None:
        """Carry out ``move`` as ``act`` does, on the caller's thread, if nothing in it can wait.

        A server calls it on its event loop's own thread, and then
        ``keep_move`` in another thread: the move is made and its view
        drawn here; its save is written and waited for on the disk there.
        Until then the game stays held, so no one sees the move before it is
        saved.  None, nothing done, when the move must go to ``act`` in a
        thread instead: the game is shared through a database, no move was
        made by ``act`` or ``computer_step`` yet (the coach's tables may be
        loading), the coach is still waiting for its tables, the seat has
        not joined (joining writes the seats), another thread holds the
        game, or the move is a seat's last box (it may end the game, whose
        filing writes the history).  Refusals are raised as by ``act``.
        """
        seats = self.seats_of(secret)
        if (not self._acts_at_once or self.live.coach_pending or self.saver.save is None
                or not seats or not seats <= set(self.seats.joined)):
            return None
        if not self.lock.acquire(blocking=False):
            return None
        made = False
        try:
            if move.chooses_box and self._one_box_left():
                return None  # the seat's last box may be the game's last move
            with self.saver.held():
                view = self._act(seats, move, version)
            made = True
            return view
        finally:
            if not made:
                try:
                    self.saver.flush()  # a change made before a failure is not lost
                finally:
                    self.lock.release()

    def keep_move_later(self) -> PendingAppend | None:
        """Return the save of the move ``act_at_once`` made as one line for the caller to append
        and wait for on the disk, then to call ``kept``; None when ``keep_move`` must write it.

        So that only the line is made on the caller's thread, and no Python
        thread waits for the disk (``yahtzee.storage.appends``).  None, as
        ``Autosave.flush_later`` says, for a save due to be written whole
        and for a game not kept in a folder of files.
        """
        return self.saver.flush_later()

    def kept(self, error: OSError | None) -> bool:
        """After the caller's append of ``keep_move_later``'s line: let go of the game and return
        True; or, the append failed (``error``), hold the move's change again and return False,
        and the caller calls ``keep_move``, which writes the save whole and lets go."""
        if error is not None:
            self.saver.append_failed()
            return False
        self.saver.appended()
        self.lock.release()
        return True

    def keep_move(self) -> None:
        """Write the save of the move ``act_at_once`` made, on the disk; then let go of the game."""
        try:
            self.saver.flush()
        finally:
            self.lock.release()

    def _act(self, seats: frozenset[int], move: Move, version: int | None) -> GameView:
        """Carry out ``move`` for ``seats`` (the game held); return the view (``act``)."""
        self.touched = time.monotonic()
        self._join(seats)
        self._check_turn(seats, version)
        prompt = self.live.prompt()
        if move.chooses_box != (prompt.phase is Phase.SCORING):
            raise GameRequestError(Denial.STILL_ROLLING if move.chooses_box
                                   else Denial.DONE_ROLLING)
        outcome = self.live.play(move)
        if not outcome.accepted:
            raise GameRequestError(Denial.REFUSED, outcome)
        self._note(prompt.seat, prompt.view, outcome)
        return self._view_now()

    def _check_turn(self, seats: frozenset[int], version: int | None) -> None:
        """Refuse (``GameRequestError``) a move by no seat, out of turn, at the end or stale."""
        if not seats:
            raise GameRequestError(Denial.NOT_YOUR_SEAT)
        if self.live.is_over():
            raise GameRequestError(Denial.GAME_OVER)
        if not self.seats.started:
            raise GameRequestError(Denial.WAITING)
        if version is not None and version != self.version:
            raise GameRequestError(Denial.STALE)
        if self.live.engine.current_seat() not in seats:
            raise GameRequestError(Denial.COMPUTER_TURN if self.computer_to_play()
                                   else Denial.NOT_YOUR_TURN)

    def computer_step(self) -> bool:
        """Make one move of the computer to play (a re-roll with the dice it keeps, or its box).

        Return False when no computer is to play.  The computer's tables are
        waited for before the game's lock is taken, so that the game can be
        looked at while they are still being built.  In a shared database
        the other server processes are told of the turn once it is over.
        """
        for player in self.live.players:
            if isinstance(player, ComputerPlayer):
                player.prepare()
        with self._held() as hold:
            turn = self.computer_turn()
            stepped = self._computer_step()
            hold.tell = self.computer_turn() != turn  # the other processes hear of whole turns
        if stepped:  # a call with no computer to play loaded nothing, and leaves them be
            self._steps_at_once = self.shared is None and not self.live.coach_pending
            self._acts_at_once = self._acts_at_once or self._steps_at_once
        return stepped

    def computer_step_at_once(self) -> bool | None:
        """Make the computer's next move as ``computer_step`` does, if nothing in it can wait.

        A server calls it on its event loop's own thread, where a move costs
        no hand-off to a worker thread and back: a computer's move is about a
        millisecond of processor time, and is not waited for on the disk.
        The turn's moves are written to the save once, at its end: until
        then the save holds the turn's start, from which the game makes them
        again, exactly, if the process stops (its dice's generator travels
        with the save).  The pages waiting are told at the turn's end; a
        look in the middle of it (a page loaded then) may show moves not
        yet saved, which a restart makes the same.  A move made by
        ``computer_step`` meanwhile writes the game whole.
        None, nothing done, when the move must go to ``computer_step`` in a
        thread instead: the game is shared through a database (its round
        trips), no computer's move was made by ``computer_step`` yet (the
        computers' and the coach's tables may still be loading), the coach
        is still waiting for its tables, another thread holds the game, or
        the move may end the game (whose filing writes the history and waits
        for the disk).
        """
        if not self._steps_at_once or self.live.coach_pending:
            return None
        if not self.lock.acquire(blocking=False):
            return None
        try:
            if self.live.prompt().phase is Phase.SCORING and self._one_box_left():
                return None  # the seat's last box may be the game's last move
            turn = self.computer_turn()
            try:
                with self.saver.held():
                    return self._computer_step()
            finally:
                if self.computer_turn() != turn:
                    self.saver.flush()
        finally:
            self.lock.release()

    def _one_box_left(self) -> bool:
        """Return whether the seat to play has one open box left (the lock held)."""
        return self.live.prompt().view.card.rounds_used() >= self.live.variant.rounds - 1

    def _computer_step(self) -> bool:
        """Make the computer's next move, the game held; return False when none is to play.

        The view is drawn, for the pages waiting, once the turn is over: a
        server plays a computer's turn at once and pages play it back.
        """
        if not self.computer_to_play() or not self._claim():
            return False
        turn = self.computer_turn()
        view = self.live.prompt().view
        _, outcome = self.live.computer_move(whole_keeps=True)  # a roll's keep in one step
        self._note(view.seat, view, outcome)
        if self.computer_turn() != turn:
            self._view_now()  # drawn here, by the mover, for the pages waiting
        return True

    def last_made(self) -> int:
        """Return the ``made`` of the newest line of what happened (-1: none yet)."""
        happened = self.happened
        return happened[-1].made if happened else -1

    def computer_turn(self) -> tuple[int, int] | None:
        """Return the round and the seat (from 0) of the computer to play (None: none is).

        A server plays a computer's moves while this stays the same: one turn.
        """
        if not self.computer_to_play():
            return None
        progress = self.live.engine.progress
        return progress.round, progress.seat

    def _note(self, seat: int, view: TurnView, outcome: Outcome) -> None:
        """Remember the rolls and the box of an accepted move for the moves' list.

        ``view`` is the turn as the move found it (its dice, the dice saved, the
        re-rolls left): a keep (``Move.keep``) saves dice on its way.
        """
        now = list(view.saved)
        made = len(self.live.engine.log)
        for event in outcome.events:
            if isinstance(event, Toggled):
                now[event.die - 1] = event.saved
            elif isinstance(event, Rolled):
                kept = tuple(v for v, s in zip(view.dice, now) if s)
                self.happened.append(Happened(seat, event.dice, kept, made=made, saved=tuple(now),
                                              rolls_left=view.rolls_left - 1))
            elif isinstance(event, Scored):
                total = self.live.players[event.seat].card.score()
                self.happened.append(Happened(event.seat, view.dice, item=event.item,
                                              total=total, made=made))
            elif isinstance(event, FirstRoll):
                self.happened.append(Happened(event.seat, event.dice, made=made,
                                              rolls_left=REROLLS))
        del self.happened[:-RECENT]

    # -- views -------------------------------------------------------------
    def view(self) -> GameView:
        """Return the table as it stands (drawn once per change; a query: nothing changes).

        In a shared database the copy is first brought up to date
        (``GameRequestError(UNKNOWN_GAME)`` once the game's save is gone:
        finished and filed, or abandoned).
        """
        with self.lock:
            self.touched = time.monotonic()
            self._catch_up()
            return self._view_now()

    def drawn_view(self) -> GameView | None:
        """Return the view if it is drawn already for the game as it stands, else None.

        Answered at once, never waiting for the game's lock (None while a
        move is being made) and never reading a database (None when shared):
        a server asks it before handing ``view`` to a thread.
        """
        if self.shared is not None or not self.lock.acquire(blocking=False):
            return None
        try:
            view = self._drawn()
            if view is not None:
                self.touched = time.monotonic()
            return view
        finally:
            self.lock.release()

    def refresh(self) -> None:
        """Bring this copy up to date if another server process moved the game (shared only)."""
        with self.lock:
            self._catch_up()

    # -- sharing through a database ------------------------------------------
    @contextlib.contextmanager
    def _held(self) -> Iterator[Hold]:
        """Hold the game for a change: its lock, and in a shared database its row.

        In a shared database the copy is brought up to date first, and the
        change is committed (the other processes told, unless the block set
        the ``Hold``'s ``tell`` to False) when the block ends;
        an exception undoes it, and the copy is read again at the next
        request.  ``GameRequestError``: ``UNKNOWN_GAME`` when the game's save
        is gone (``GAME_OVER`` if this copy played its end), ``NOT_KEPT`` when
        the database could not keep the change.
        """
        with self.lock:
            shared = self.shared
            hold = Hold()
            if shared is None:
                yield hold
                return
            store, save_id = self.saver.store, self.saver.save_id
            if save_id is None:
                raise GameRequestError(Denial.UNKNOWN_GAME)
            try:
                with store.hold(save_id) as version:
                    self._catch_up(version)
                    yield hold
                    self.seen = store.version_of(save_id)
                    if hold.tell:
                        store.notify(self.game_id)
            except SaveNotFoundError:
                over = self.live.is_over()
                raise GameRequestError(Denial.GAME_OVER if over else Denial.UNKNOWN_GAME) from None
            except SaveInUseError:  # a console took it (this process's hold was lost)
                self.seen = None
                raise GameRequestError(Denial.IN_USE) from None
            except StorageError:
                self.seen = None  # the copy may hold what was undone: take the stored game
                raise GameRequestError(Denial.NOT_KEPT) from None
            except GameRequestError:
                self.seen = None
                raise

    def _catch_up(self, version: int | None = None) -> None:
        """Take the stored game if its ``version`` (else asked for) is not this copy's.

        The game's lock is held (and, with ``version``, its row).
        """
        shared = self.shared
        save_id = self.saver.save_id
        if shared is None or save_id is None:
            return
        store = self.saver.store
        if version is None:
            version = store.version_of(save_id)
        if version is None:
            if self.live.is_over():
                return  # this copy played the last move: its end (with the coach's word) stands
            raise GameRequestError(Denial.UNKNOWN_GAME)
        if version == self.seen:
            return
        try:
            fresh = shared.restore(self.game_id, store.load(save_id), store)
        except SaveNotFoundError:
            raise GameRequestError(Denial.UNKNOWN_GAME) from None
        self.seats, self.live, self.saver = fresh.seats, fresh.live, fresh.saver
        self.happened, self._view, self.seen = fresh.happened, None, version

    def _claim(self) -> bool:
        """Take or renew this process's lease on the game's computer turns (always, with files)."""
        shared, save_id = self.shared, self.saver.save_id
        if shared is None or save_id is None:
            return True
        return self.saver.store.claim(save_id, shared.owner, LEASE_SECONDS)

    def _view_now(self) -> GameView:
        """Return the view of the current state (the lock held), drawn once per change."""
        view = self._drawn()
        if view is None:
            view = self._view = self._draw(self.waiting())
        return view

    def _drawn(self) -> GameView | None:
        """Return the view last drawn if it shows the game as it stands (the lock held)."""
        view = self._view
        if (view is None or view.version != self.version or view.waiting != self.waiting()
                or view.coach_pending != self.live.coach_pending):
            return None
        return view

    def _draw(self, waiting: tuple[int, ...]) -> GameView:
        """Return the view of the current state, the seats ``waiting`` not joined yet."""
        live = self.live
        prompt = live.prompt()
        view = prompt.view
        over = prompt.phase is Phase.OVER
        coaching = live.coaching() or NO_COACHING
        return GameView(
            self.game_id, self.version, live.variant, prompt.phase, view.round, view.seat,
            () if over else view.dice, () if over else view.saved, view.rolls_left,
            tuple(self._seat_view(n) for n in range(len(live.players))),
            () if over else tuple(view.card.menu(Dice.of(view.dice))),
            coaching.advice, coaching.box_now, coaching.options, coaching.chances,
            tuple(live.analyses()) if over and live.coach is not None else (),
            tuple(live.engine.winners()) if over else (),
            tuple(self.happened) if self.seats.started else (),  # no roll shown before the start
            self.seats.hot_seat, live.coach is not None or live.coach_pending,
            self.seats.started, waiting, self.host, live.coach_pending)

    def _seat_view(self, seat: int) -> SeatView:
        """Return one seat as everyone sees it (drawn again only once its card changed)."""
        player = self.live.players[seat]
        variant = self.live.variant
        key = (player.name, player.kind, variant.card_contents(player.card))
        kept = self._seat_views.get(seat)
        if kept is not None and kept[0] == key:
            return kept[1]
        view = seat_view(player.name, player.kind, player.card, variant)
        self._seat_views[seat] = (key, view)
        return view

    def release(self) -> None:
        """Let go of the game's save (its lock), so that another process may take it up.

        In a shared database the lease on its computers' turns goes too, so
        that another process plays them on at once rather than once it lapses.
        """
        shared, save_id = self.shared, self.saver.save_id
        if shared is not None and save_id is not None:
            try:
                self.saver.store.release_claim(save_id, shared.owner)
            except StorageError:
                pass  # the lease lapses by itself
        self.saver.store.release()


def recent_moves(live: LiveGame) -> list[Happened]:
    """Return the latest ``RECENT`` lines of what happened, rebuilt from the game's log.

    They read as the list read when the moves were made (``BrowserGame._note``),
    so a game taken up again after a restart shows the same recent moves.
    """
    view = live.prompt().view
    return logged_moves(live.engine.log, live.variant, len(live.players), view.dice,
                        view.seat)[-RECENT:]


def logged_moves(log: Sequence[Decision], variant: Variant, players: int,
                 now: tuple[int, ...], seat_now: int) -> list[Happened]:
    """Return the lines of what happened in a game of ``players`` whose commands are ``log``.

    The game's opening roll comes first, then each roll with the dice kept
    for it, each box with the seat's total after it, and the first roll of
    the turn after each box.  The dice a roll gave are those the next logged
    command saw (for the last, the dice ``now``: none once the game is over);
    ``seat_now`` is the seat to play, which made the opening roll of a game
    without a command yet.
    """
    cards = [variant.new_card() for _ in range(players)]
    opening = log[0].dice if log else now
    lines = ([Happened(log[0].seat if log else seat_now, opening, rolls_left=REROLLS)]
             if opening else [])
    for index, decision in enumerate(log):
        after = log[index + 1].dice if index + 1 < len(log) else now
        made = index + 1
        if decision.label is not None:
            card = cards[decision.seat]
            item = card.choose_number(int(decision.command), Dice.of(decision.dice))
            lines.append(Happened(decision.seat, decision.dice, item=item, total=card.score(),
                                  made=made))
            if after:
                lines.append(Happened((decision.seat + 1) % len(cards), after, made=made,
                                      rolls_left=REROLLS))
        elif decision.move.kind is MoveKind.ROLL:
            kept = tuple(v for v, s in zip(decision.dice, decision.saved) if s)
            lines.append(Happened(decision.seat, after, kept, made=made, saved=decision.saved,
                                  rolls_left=decision.rolls_left - 1))
    return lines


def seat_view(name: str, kind: PlayerKind, card: Card, variant: Variant) -> SeatView:
    """Return a seat as everyone sees it: its boxes, its printed rows after them, its total."""
    scores, _ = variant.card_contents(card)
    rows = card.rows()
    boxes = tuple((n, rows[n - 1][0], points) for n, points in enumerate(scores, start=1))
    return SeatView(name, kind.name, kind.is_computer, boxes, tuple(rows[len(scores):]),
                    card.score())


def final_view(game: HistoryGame, log: Sequence[Decision],
               analyses: Sequence[PlayerAnalysis] = ()) -> GameView:
    """Return the last view of a finished game, from its entry in the history.

    Its cards and its last moves come from replaying the log; kinds the
    program no longer knows show as people.  A browser game's settings (the
    coach, one screen) come from its seats as filed; ``analyses`` are the
    coach's word on each player, shown at the end of a coached game.
    """
    variant = get_variant(game.variant, game.rules)
    cards = replayed_cards(log, variant, len(game.players))
    seats = tuple(seat_view(p.name, find_kind(p.kind) or HUMAN, card, variant)
                  for p, card in zip(game.players, cards))
    winners = tuple(p.seat for p in game.players if p.winner)
    steps = lobby_steps([find_kind(p.kind) or HUMAN for p in game.players])
    moves = tuple(logged_moves(log, variant, len(game.players), (), 0)[-RECENT:])
    browser = game.browser
    return GameView(game.uid, 2 * len(log) + steps, variant, Phase.OVER, variant.rounds, 0, (),
                    (), 0, seats, (), None, None, (), None, tuple(analyses), winners, moves,
                    browser is not None and browser.hot_seat,
                    browser is not None and browser.coach,
                    host=browser.secrets[0][1] if browser is not None and browser.secrets
                    else ())


@dataclass(frozen=True)
class NewGame:
    """A game just created, with its seats' secrets (given once, never stored)."""

    table: BrowserGame
    secrets: tuple[tuple[str, tuple[int, ...]], ...]
    """Each secret with the seats (from 0) it acts for."""


class BrowserGames:
    """The games of a server by ID, at most ``capacity`` of them held in memory.

    A browser game's one record is its save (``SaveFile.browser`` holds its
    seats' secrets and settings); the saves of browser games are listed once,
    at the start, and come back on the first request for their ID.  When the
    tables are full, a finished game, then the game idle longest, is let go
    (its save stays, to be taken up again); if every table is busy, a new
    game is refused.  Records an earlier version kept beside the saves
    (``<data folder>/web/<id>.json``) are folded into the saves at the start.
    """

    def __init__(self, setup: Solvers, problems: StorageProblems, *,
                 capacity: int = DEFAULT_CAPACITY, storage: Storage | None = None) -> None:
        """Serve games with ``setup``'s solver, reporting storage problems to ``problems``.

        ``storage`` keeps the games (default: the files of the data folder).
        """
        self.setup = setup
        self.problems = problems
        self.capacity = capacity
        self.storage = storage if storage is not None else open_storage(None, problems)
        self.store = self.storage.saves()
        self.shared = (Shared(process_owner(), self._restore) if self.storage.shared
                       else None)
        """How the games are shared with other server processes (None: they are not)."""
        self.known = {} if self.shared else {
            save.uid: save.save_id for save in self.store.unfinished()
            if save.browser is not None}
        """Browser games saved by earlier runs, not yet taken up: save IDs by game ID
        (a shared database is asked for a game when it is first asked for instead)."""
        self.live: dict[str, BrowserGame] = {}
        self._finished: OrderedDict[str, tuple[GameView, BrowserSeats | None]] = OrderedDict()
        """The last views of the finished games asked for lately (``finished``), oldest first."""
        self.lock = threading.Lock()
        for legacy in load_legacy_games(problems):
            self._adopt(legacy)

    # -- creating and finding games ----------------------------------------
    def create(self, settings: Settings) -> NewGame:
        """Start a new game as ``settings`` say; ``GameRequestError(Denial.FULL)`` if no room.

        The game is saved at once, with its seats' secrets (as hashes).  The
        solver's tables (for computers and the coach) load before the game
        starts; ``SolverUnavailableError`` without numpy.
        """
        seed = settings.seed if settings.seed is not None else new_seed()
        humans = tuple(seat for seat, kind in enumerate(settings.kinds) if not kind.is_computer)
        given: list[tuple[str, tuple[int, ...]]] = []
        if settings.hot_seat and humans:
            given.append((secrets.token_urlsafe(18), humans))
        else:
            given.extend((secrets.token_urlsafe(18), (seat,)) for seat in humans)
        host = given[0][1] if given else ()
        seats = BrowserSeats(seed, settings.coach, settings.hot_seat,
                             tuple((hash_secret(secret), held) for secret, held in given),
                             joined=host, started=len(given) < 2)
        with self.lock:
            self._make_room()
            table = self._new(uuid.uuid4().hex, seats, settings.variant, settings.kinds,
                              settings.names)
            self.live[table.game_id] = table
        return NewGame(table, tuple(given))

    def get(self, game_id: str) -> BrowserGame:
        """Return the live game ``game_id``, taking a saved one up again if need be.

        ``GameRequestError(Denial.UNKNOWN_GAME)`` for an ID no game has (or whose
        save is gone or cannot be read), ``IN_USE`` for a game open in another
        process (resumed at the console): it is kept, and comes back once let go of.
        """
        if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
            raise GameRequestError(Denial.UNKNOWN_GAME)
        with self.lock:
            table = self.live.get(game_id)
            if table is not None:
                return table
            save_id = self.known.get(game_id)
            if save_id is None and self.shared is not None:
                save_id = self._stored_id(game_id)
            if save_id is None:
                raise GameRequestError(Denial.UNKNOWN_GAME)
            self._make_room()
            try:
                table = self._resume(game_id, save_id)
            except SaveInUseError:
                raise GameRequestError(Denial.IN_USE) from None   # kept: it comes back
            except (StorageError, SnapshotError, ValueError, LookupError):
                self.known.pop(game_id, None)
                raise GameRequestError(Denial.UNKNOWN_GAME) from None
            self.known.pop(game_id, None)
            self.live[game_id] = table
            return table

    def forget(self, game_id: str) -> None:
        """Let go of the live game ``game_id`` (ended or gone through another server process)."""
        with self.lock:
            table = self.live.pop(game_id, None)
            self.known.pop(game_id, None)
        if table is not None:
            table.release()

    def _stored_id(self, game_id: str) -> int | None:
        """Return the save ID of the game ``game_id`` in the shared database (None: none)."""
        try:
            return self.store.find_uid(game_id)
        except StorageError:
            return None

    def finished(self, game_id: str,
                 secret: str | None = None) -> tuple[GameView, frozenset[int]]:
        """Return the last view of the game ``game_id``, finished and filed in the history,
        and the seats (from 0) that ``secret`` acted for in it.

        So a finished game looks the same when it comes back from the history
        (after a restart, or let go of to make room) as at its end: each page
        sees its own seats, and a coached game the coach's luck lines.  The
        views of the last ``FINISHED_KEPT`` games asked for are kept (a filed
        game never changes).  ``GameRequestError(Denial.UNKNOWN_GAME)`` when
        no such game is filed.
        """
        if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
            raise GameRequestError(Denial.UNKNOWN_GAME)
        with self.lock:
            kept = self._finished.get(game_id)
        if kept is None:
            kept = self._final_view(game_id)
            with self.lock:
                self._finished[game_id] = kept
                while len(self._finished) > FINISHED_KEPT:
                    self._finished.popitem(last=False)
        view, seats = kept
        return view, seats_of(seats, secret)

    def _final_view(self, game_id: str) -> tuple[GameView, BrowserSeats | None]:
        """Return the filed game ``game_id``'s last view and browser seats (see ``finished``)."""
        history = self.storage.history()
        number = history.id_of(game_id)
        try:
            if number is None:
                raise LookupError(game_id)
            game, log = history.load_game(number)
            analyses: list[PlayerAnalysis] = []
            if game.browser is not None and game.browser.coach:
                variant = get_variant(game.variant, game.rules)
                with contextlib.suppress(SolverUnavailableError):
                    coach = self.setup.coach(variant, profiles=True)
                    analyses = coach.analyze([p.name for p in game.players], log,
                                             game.chances or None,
                                             strategies_of([p.kind for p in game.players]))
            return final_view(game, log, analyses), game.browser
        except (LookupError, StorageError, ValueError):
            raise GameRequestError(Denial.UNKNOWN_GAME) from None

    def _make_room(self) -> None:
        """Let go of a finished game, else the game idle longest, when the tables are full.

        On the data folder's files, a finished game whose filing failed goes
        last, only when no other game can: held, it is filed by the next sweep
        (``expire``); let go of, it stays saved, and is held and filed again
        once a page asks for it.
        """
        if len(self.live) < self.capacity:
            return
        pool = self._let_go_first()
        if not pool:
            raise GameRequestError(Denial.FULL)
        oldest = min(pool, key=lambda t: t.touched)
        unfiled = self._to_file_again(oldest)
        del self.live[oldest.game_id]
        oldest.release()
        save_id = oldest.saver.save_id
        if (not oldest.is_over() or unfiled) and save_id is not None:
            self.known[oldest.game_id] = save_id  # taken up again when asked for

    def _let_go_first(self) -> list[BrowserGame]:
        """Return the games ``_make_room`` chooses among: the finished and filed ones, else
        the idle filed ones, else the idle ones (none: no computer's turn may be cut short).

        The finished games are looked for first, each game looked at once: at
        a full table of thousands of games this runs at every game made, on a
        worker thread that holds the interpreter's lock meanwhile.
        """
        finished = [t for t in self.live.values()
                    if t.is_over() and not t.computer_to_play() and not self._to_file_again(t)]
        if finished:
            return finished
        idle = [t for t in self.live.values() if not t.computer_to_play()]
        return [t for t in idle if not self._to_file_again(t)] or idle

    def _new(self, game_id: str, seats: BrowserSeats, variant: Variant,
             kinds: Sequence[PlayerKind], names: Sequence[str]) -> BrowserGame:
        """Return a new game's table, saved at once under ``game_id``."""
        store = self.storage.saves()
        saver = Autosave(store, self.storage.history(), uid=game_id,
                         setup=self.setup, coached=seats.coach, browser=seats)
        try:
            table = self._seat(game_id, seats, store, saver, lambda: new_game(
                self.setup, variant, kinds, names, seed=seats.seed, coach=seats.coach,
                autosave=saver, coach_in_background=True))
            save_id = saver.save_id
            if self.shared is not None and save_id is not None:
                # held alongside the other server processes (its row's transactions
                # serialize its changes), so that no console resumes or deletes it meanwhile
                store.lock_shared(save_id)
                table.shared, table.seen = self.shared, store.version_of(save_id)
        except BaseException:
            store.release()   # nothing of a table not made stays held
            raise
        return table

    def _resume(self, game_id: str, save_id: int) -> BrowserGame:
        """Return the table of the browser game saved as ``save_id``.

        A game of a shared database is held alongside the other server
        processes (``lock_shared``): any of them plays it, no console meanwhile.
        """
        store = self.storage.saves()
        if self.shared is not None:
            try:
                store.lock_shared(save_id)
                version = store.version_of(save_id)
                table = self._restore(game_id, store.load(save_id), store)
            except BaseException:
                store.release()
                raise
            table.seen = version
            return table
        try:
            save = find_save(str(save_id), store)
            if save.uid != game_id or save.browser is None:
                raise LookupError(game_id)
            return self._restore(game_id, save, store)
        except BaseException:
            store.release()
            raise

    def _restore(self, game_id: str, save: SaveFile, store: SaveStorage) -> BrowserGame:
        """Return the table of the browser game ``save``, saved through ``store``.

        ``LookupError`` if the save is not the browser game ``game_id``'s.
        """
        seats = save.browser
        if save.uid != game_id or seats is None:
            raise LookupError(game_id)
        saver = Autosave(store, self.storage.history(), resumed=save,
                         setup=self.setup, coached=seats.coach)
        table = self._seat(game_id, seats, store, saver, lambda: resume_game(
            self.setup, save, coach=seats.coach, autosave=saver, coach_in_background=True))
        table.shared = self.shared
        return table

    def _seat(self, game_id: str, seats: BrowserSeats, store: SaveStorage, saver: Autosave,
              make: Callable[[], LiveGame]) -> BrowserGame:
        """Return the table of the game ``make()`` gives; its solver tables load in the background.

        The game starts at once: a computer waits for its tables when it is
        to play (``computer_step``), and the coach joins once they are built.
        """
        with _SOLVER_LOAD_LOCK:   # on failure the caller lets go of ``store``, if it is its own
            live = make()
        return BrowserGame(game_id, seats, live, saver, happened=recent_moves(live))

    def _adopt(self, legacy: WebGame) -> None:
        """Fold a browser game kept by an earlier version into the saves, then drop its file.

        A game with a save gets its seats written into it; a game stopped
        before its first move is made again from its settings (same seed,
        same dice) and saved.  A game that cannot be taken over is left as
        it is (it is reported when asked for).
        """
        seats = BrowserSeats(legacy.seed, legacy.coach, legacy.hot_seat, legacy.secrets)
        try:
            if legacy.save_id is not None:
                save = find_save(str(legacy.save_id), self.store)
                try:
                    if save.uid != legacy.game_id:
                        raise LookupError(legacy.game_id)
                    self.store.write(replace(save, browser=seats))
                finally:
                    self.store.release(save.save_id)  # taken up by its ID when asked for
                self.known[legacy.game_id] = save.save_id
            else:
                kinds = [find_kind(name) for name in legacy.kinds]
                if None in kinds:
                    raise LookupError(legacy.game_id)
                table = self._new(legacy.game_id, seats,
                                  get_variant(legacy.game, legacy.rules),
                                  [kind for kind in kinds if kind is not None], legacy.names)
                self.live[legacy.game_id] = table
        except (StorageError, SnapshotError, ValueError, LookupError, OSError):
            return
        forget_legacy_game(legacy.game_id)

    def expire(self, fresh_for: float, idle_for: float, now: float | None = None) -> list[str]:
        """Delete the saves of abandoned games; return their IDs.

        A game that never got a move is abandoned ``fresh_for`` seconds after
        it was made, any other unfinished game ``idle_for`` seconds after its
        last move (as its save's time of change says).  A game being played
        at this moment (its lock held, or a computer to play) is left alone.
        A finished game whose filing failed (the history was busy or full) is
        filed now, or at a later sweep: it is not let go of unfiled.
        """
        now = time.time() if now is None else now
        gone: list[str] = []
        with self.lock:
            held = list(self.live.values())
        for table in held:  # outside the registry's lock: a busy history may take seconds
            self._file_again(table)
        with self.lock:
            for game_id, table in list(self.live.items()):
                save_id = table.saver.save_id
                if (save_id is None or table.is_over() or table.computer_to_play()
                        or not table.lock.acquire(blocking=False)):
                    continue
                try:
                    age = now - table.saver.store.changed_at(save_id)
                    if age >= (idle_for if table.live.engine.log else fresh_for):
                        del self.live[game_id]
                        table.saver.store.remove(save_id)
                        gone.append(game_id)
                except (OSError, StorageError):
                    pass
                finally:
                    table.lock.release()
            for game_id, save_id in list(self.known.items()):
                if self._abandoned(save_id, fresh_for, idle_for, now):
                    del self.known[game_id]
                    gone.append(game_id)
            if self.shared is not None:
                gone += self._expire_shared(fresh_for, idle_for, now)
        return gone

    def _file_again(self, table: BrowserGame) -> None:
        """File ``table``'s finished game if its filing failed; nothing if it is in play.

        On the data folder's files only: a shared database's games are filed
        by the process that plays their last move, inside its hold.
        """
        if not self._to_file_again(table) or not table.lock.acquire(blocking=False):
            return
        try:
            table.live.finish()
        finally:
            table.lock.release()

    def _to_file_again(self, table: BrowserGame) -> bool:
        """Return whether ``table`` is a finished game of the data folder's files, not filed."""
        saver = table.saver
        return (self.shared is None and table.is_over() and not saver.filed
                and saver.history is not None and saver.save_id is not None)

    def _expire_shared(self, fresh_for: float, idle_for: float, now: float) -> list[str]:
        """Delete the abandoned games of a shared database that this process does not hold.

        Whichever process made or last played them: one that stopped leaves
        its games to the others.  Each is checked again with its row locked,
        so that a move made meanwhile by another process keeps it.
        """
        gone = []
        try:
            idle = self.store.idle_games(now - fresh_for)
        except StorageError:
            return []
        for game_id, save_id in idle:
            if game_id in self.live:
                continue  # held here: the loop over the live games judged it
            try:
                self.store.lock_shared(save_id)   # refused while a console plays it
                with self.store.hold(save_id):
                    if not self._is_abandoned(save_id, fresh_for, idle_for, now):
                        continue
                    self.store.remove(save_id)
                    self.store.notify(game_id)
            except (StorageError, SnapshotError):
                continue
            finally:
                self.store.release(save_id)
            gone.append(game_id)
        return gone

    def _abandoned(self, save_id: int, fresh_for: float, idle_for: float, now: float) -> bool:
        """Delete the save ``save_id`` if its game is abandoned; return whether it was."""
        try:
            if not self._is_abandoned(save_id, fresh_for, idle_for, now):
                return False
            self.store.delete(save_id)
        except (OSError, StorageError, SnapshotError):
            return False
        return True

    def _is_abandoned(self, save_id: int, fresh_for: float, idle_for: float,
                      now: float) -> bool:
        """Return whether the save's game is abandoned: untouched ``fresh_for`` seconds
        since it was made without a move, or ``idle_for`` since its last move."""
        age = now - self.store.changed_at(save_id)
        if age < fresh_for:
            return False
        save = self.store.load(save_id)
        return not save.finished and (age >= idle_for or save.updated <= save.created)

    def close(self) -> None:
        """Let go of every live game's save."""
        with self.lock:
            for table in self.live.values():
                table.release()
            self.live.clear()
