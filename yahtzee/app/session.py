"""The application: start a new game or resume a saved one, with autosave, players and the coach.

This layer composes the others: it seats players of the kinds asked for
(computer players get their strategies from the solver, whose tables are
kept by persistence), wires the ``Autosave`` to the engine, and finds the
save to resume.  It prints nothing: failures are exceptions and reports go
to the callbacks the interface supplies.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar, cast

from yahtzee.app.background import TableLoader
from yahtzee.domain.card import Card, Variant
from yahtzee.domain.games import rules_of
from yahtzee.engine.engine import Engine, EngineObserver
from yahtzee.engine.moves import Notation
from yahtzee.engine.records import GameRecord, TurnChances
from yahtzee.players.kinds import (EXPECTED, KINDS, PlayerKind, default_names, find_kind,
                                   strategies_of)
from yahtzee.players.players import ComputerPlayer, HumanPlayer, Player, Strategy
from yahtzee.storage.port import HistoryStorage, SaveStorage, Storage, open_storage
from yahtzee.storage.problems import SaveNotFoundError, StorageError, StorageProblems
from yahtzee.storage.saves import BrowserSeats, PendingAppend, SaveFile, SaveStore, now
from yahtzee.storage.snapshot import SnapshotError, make_card, record_variant
from yahtzee.storage.solver_files import SolverFiles

if TYPE_CHECKING:
    from yahtzee.domain.rules import Rules
    from yahtzee.solver.cache import Solution, TableSource
    from yahtzee.solver.events import Report
    from yahtzee.solver.coach import Coach
    from yahtzee.solver.factory import MomentsSource
    from yahtzee.solver.moments import Moments

T = TypeVar("T")
"""What ``Solvers`` keeps once per process: a strategy or a coach."""

LATEST = "latest"
"""What ``--resume`` given without an ID stands for: the most recently played unfinished game."""


class SolverUnavailableError(RuntimeError):
    """The solver cannot run here: numpy is not installed."""


class NoUnfinishedGameError(LookupError):
    """``--resume`` found no unfinished game."""


class UnknownSaveError(LookupError):
    """No unfinished game has the requested ID (the message is the ID as asked)."""


def solver_tables(report: Report | None = None) -> TableSource:
    """Return the source of solved tables: the cache folder, building what is missing.

    ``report`` (the interface's) is told of damaged files and of the build's
    progress.  ``SolverUnavailableError`` without numpy.
    """
    with _numpy_needed():
        from yahtzee.solver.cache import load_or_build

    def tables(rules: Rules) -> Solution:
        """Return the table of ``rules`` from memory, the cache folder, or a new build."""
        return load_or_build(rules, cache_folder_store(), report)

    return tables


def cache_folder_store() -> SolverFiles:
    """Return the solver's store in the cache folder, where the exact rows go too.

    The rows of the exact outlooks made from now on are kept in a file there
    (``play_to_win.keep_rows_in``), for every process of the machine, rather
    than in each process's memory.  Needs numpy.
    """
    from yahtzee.solver.play_to_win import keep_rows_in
    store = SolverFiles.in_cache_folder()
    keep_rows_in(store.folder)
    return store


@contextlib.contextmanager
def _numpy_needed() -> Iterator[None]:
    """Turn a missing numpy inside the block into ``SolverUnavailableError``."""
    try:
        yield
    except ModuleNotFoundError as error:
        if error.name != "numpy":
            raise
        raise SolverUnavailableError(str(error)) from None


def strategy_loader(kind: PlayerKind, variant: Variant, tables: Callable[[], TableSource],
                    moments: Callable[[], MomentsSource]) -> Callable[[], Strategy]:
    """Return a function giving the strategy that plays ``kind`` in ``variant``, loaded on call."""
    def load() -> Strategy:
        """Import the solver and return the strategy (its tables built the first time)."""
        assert kind.strategy is not None
        with _numpy_needed():
            from yahtzee.solver.factory import get_strategy
            return get_strategy(kind.strategy, variant, tables(), moments())
    return load


@dataclass
class Solvers:
    """Makes the solver's players and coaches: strategies for computer players, coaches for people.

    Both read the solver's solved tables (``solutions()``: one source of them,
    made when first needed, kept in the cache folder).

    ``load_in_background`` starts making a game's table while the game goes
    on; whatever needs it then waits for it.  ``close()`` stops what is left.
    ``preload`` makes everything now instead, for a server that then forks
    its worker processes: they share what it made.

    Strategies and coaches are made once per process and shared by every
    game (a server's many games among them): what they remember is about
    positions of the game, never about one game, and each can serve several
    threads at once.
    """

    report: Report | None = None
    _tables: TableSource | None = None
    _loaders: dict[str, TableLoader] = field(default_factory=dict)
    _shared: dict[tuple[object, ...], object] = field(default_factory=dict)
    _shared_lock: threading.Lock = field(default_factory=threading.Lock)
    _making: dict[tuple[object, ...], threading.Lock] = field(default_factory=dict)
    """One lock per key of ``_shared``, held while its object is made (``_once``)."""
    _loading: dict[str, threading.Lock] = field(default_factory=dict)
    """One lock per rule set, held while its background load is looked for and started
    (``load_in_background``): a server makes games in several threads, and two first games
    of one rule set at once start one loader (a second would be left running, uncancelled);
    a first game of another rule set meanwhile does not wait."""
    _preloaded: set[str] = field(default_factory=set)
    """The rule sets whose tables ``preload`` made: ready, no background load needed."""
    _closed: bool = False
    """Set by ``close``: no background load starts after it (none would be cancelled)."""

    def _once(self, key: tuple[object, ...], make: Callable[[], T]) -> T:
        """Return the object kept under ``key``, made by ``make()`` the first time.

        Threads asking for one key at once wait for one ``make()``; a thread
        asking for another key meanwhile does not wait for it (a coach whose
        tables are being built holds up no other rule set's games, nor the
        computers already made).
        """
        found = self._shared.get(key)
        if found is not None:
            return cast(T, found)
        with self._shared_lock:
            making = self._making.setdefault(key, threading.Lock())
        with making:
            if key not in self._shared:
                self._shared[key] = make()
            return cast(T, self._shared[key])

    def solutions(self) -> TableSource:
        """Return the source of the solved tables, one per rule set.

        ``SolverUnavailableError`` without numpy.
        """
        if self._tables is None:
            now = solver_tables(self.report)

            def tables(rules: Rules) -> Solution:
                """Return the table of ``rules``, waiting for its background build if any."""
                loader = self._loaders.get(rules.name)
                return loader.result() if loader is not None else now(rules)

            self._tables = tables
        return self._tables

    def load_in_background(self, variant: Variant) -> None:
        """Start loading, or building, ``variant``'s rule set's tables in the background.

        The solved table, then the spreads and chances of optimal play.
        Returns once a build has started, or once tables found in the cache
        folder are read (a few seconds); at once for a rule set started
        already, or with no such table (Poker Dice).  A thread asking for the
        same rule set meanwhile waits for that start.  The table's build is
        reported only once something waits for it.  ``SolverUnavailableError``
        without numpy.
        """
        rules = rules_of(variant)
        if (rules is None or rules.name in self._preloaded or rules.name in self._loaders
                or self._closed):
            return
        with self._shared_lock:
            starting = self._loading.setdefault(rules.name, threading.Lock())
        with starting:
            if rules.name not in self._loaders and not self._closed:
                loader = self._loaders[rules.name] = self._loader(rules)
                if self._closed:  # closed meanwhile, perhaps before ``close`` saw this loader
                    loader.cancel()
                    self._loaders.pop(rules.name, None)

    def _loader(self, rules: Rules) -> TableLoader:
        """Start loading, or building, the tables of ``rules`` in a thread; called with the
        rule set's lock held (``load_in_background``)."""
        with _numpy_needed():
            from yahtzee.solver.cache import load_or_build, load_or_build_moments
        store = cache_folder_store()

        def load(rules: Rules, report: Report) -> Solution:
            """Return the table of ``rules`` from the cache folder, or build it.

            The spread-and-chances table follows (the computer that plays to
            win and the win chances filed with the game read it).
            """
            solution = load_or_build(rules, store, report)
            load_or_build_moments(rules, solution, store, report)
            return solution

        return TableLoader(rules, load, self.report)

    def tables_ready(self, variant: Variant) -> bool:
        """Return whether ``variant``'s tables are ready to use without waiting.

        True for a game with no such tables (Poker Dice) and for a rule set
        whose background load has finished; False while it goes on, or when
        none was started.
        """
        rules = rules_of(variant)
        if rules is None or rules.name in self._preloaded:
            return True
        loader = self._loaders.get(rules.name)
        return loader is not None and loader.done()

    def preload(self, variants: Sequence[Variant]) -> None:
        """Make now, in this thread, all that games of ``variants`` need from the solver.

        For each: its rule set's solved table and the spreads and chances of
        optimal play (from the cache folder, or built and stored, reported
        as usual), the coach with outcome profiles and its play-to-win
        strategy (the win chances), and the strategy of every computer kind.
        It returns when all is made, leaving no thread or helper process
        behind, so that a server may fork its workers next: theirs are then
        these objects, and the tables' memory this process's pages, shared
        as long as nobody writes to them (the tables are read-only).  What
        the strategies remember of positions they meet later stays each
        process's own.  ``SolverUnavailableError`` without numpy.
        """
        for variant in variants:
            rules = rules_of(variant)
            if rules is not None and rules.name not in self._preloaded:
                self.moments()(rules)  # the solved table first, then its moments and shape
                self._preloaded.add(rules.name)
            coach = self.coach(variant, profiles=True)
            if rules is not None:
                coach.play_to_win()  # the win chances' strategy, shared by the workers too
            for kind in KINDS:
                if kind.is_computer:
                    self.strategy(kind, variant)

    def close(self) -> None:
        """Stop every background build still under way (its table is not wanted any more).

        No background load starts after it: a game made later waits for its
        tables in its own thread (``solutions``), as without a loader.
        """
        self._closed = True
        for name, loader in list(self._loaders.items()):  # a copy: another thread may add one
            loader.cancel()
            self._loaders.pop(name, None)  # a cancelled build is done, but has no table

    def player(self, kind: PlayerKind, name: str, variant: Variant,
               card: Card | None = None) -> Player:
        """Return a player of ``kind`` called ``name``, with ``card`` or a new one."""
        seat_card = variant.new_card() if card is None else card
        if not kind.is_computer:
            return HumanPlayer(name, seat_card)
        return ComputerPlayer(name, seat_card, lambda: self.strategy(kind, variant), kind)

    def strategy(self, kind: PlayerKind, variant: Variant) -> Strategy:
        """Return the strategy that plays the computer ``kind`` in ``variant`` (one per process).

        Its tables are loaded (or built) the first time; ``SolverUnavailableError``
        without numpy.
        """
        return self._once(("strategy", kind.name, variant.name, variant.rules_name),
                          strategy_loader(kind, variant, self.solutions, self.moments))

    def players(self, kinds: Sequence[PlayerKind], names: Sequence[str] | None,
                variant: Variant) -> list[Player]:
        """Seat the players of ``kinds`` with ``names`` (default names where none is given)."""
        defaults = default_names(kinds)
        chosen = list(names or [])
        return [self.player(kind, chosen[seat] if seat < len(chosen) else defaults[seat],
                            variant)
                for seat, kind in enumerate(kinds)]

    def coach(self, variant: Variant, *, profiles: bool = False) -> Coach:
        """Return the coach for ``variant`` (one per process), its table loaded now.

        With ``profiles`` the coach also gives outcome profiles and win
        chances, and their table is loaded (or built) now too.
        """
        return self._once(("coach", variant.name, variant.rules_name, profiles),
                          lambda: self._new_coach(variant, profiles))

    def _new_coach(self, variant: Variant, profiles: bool) -> Coach:
        """Return a new coach for ``variant`` (with outcome profiles if asked), loaded."""
        with _numpy_needed():
            from yahtzee.solver.coach import Coach, ValueStrategy
            from yahtzee.solver.factory import get_profiler, get_strategy
            from yahtzee.solver.profiles import Profiler

        def load() -> ValueStrategy:
            """Return the optimal strategy of ``variant``."""
            assert EXPECTED.strategy is not None
            return cast(ValueStrategy, get_strategy(EXPECTED.strategy, variant, self.solutions()))

        def profiler() -> Profiler:
            """Return the outcome profiler of ``variant`` (its tables built the first time)."""
            return get_profiler(variant, self.solutions(), self.moments())

        return Coach(variant, load, profiler if profiles else None).load()

    def moments(self) -> MomentsSource:
        """Return the source of the spread-and-chances tables, kept in the cache folder."""
        with _numpy_needed():
            from yahtzee.solver.cache import load_or_build_moments
        tables = self.solutions()

        def moments(rules: Rules) -> Moments:
            """Return the moments of ``rules`` from memory, the cache folder, or a new build."""
            return load_or_build_moments(rules, tables(rules), cache_folder_store(),
                                         self.report)

        return moments


def computer_to_play(engine: Engine, record: GameRecord) -> bool:
    """Return whether a computer is to move in the game ``record`` of ``engine`` (not over)."""
    if engine.is_over():
        return False
    kind = find_kind(record.players[engine.current_seat()].kind)
    return kind is not None and kind.is_computer


FILING = threading.Lock()
"""Held while a finished game is filed: one filing at a time in a process.

A filing is some milliseconds of Python (the win chances at each turn's
start, the rows checked by replaying the game, the history's transaction).
Games that end together, filed in several of the browser table's worker
threads at once, would each take the interpreter's lock from its event
loop in turn, and the answers of every other game wait meanwhile; one at
a time, the loop waits for one of them at most.  A history in one SQLite
file takes one writer at a time anyway.
"""


class Autosave:
    """An engine observer that saves the whole game after every change.

    A new game is first saved at its first accepted move (so a console game
    stopped before any leaves no save), or, for a game played in the browser
    (``browser`` given), as soon as it is made: its links are out by then.
    Its ID stays locked by the store
    until the store releases it.  When the game ends it goes into the
    history and its save is removed.  If saving fails, the problem is
    reported once and the game plays on.

    A game of two or more players in which the solver takes part (a
    computer player, or the coach) is filed with every player's win chances
    at each turn's start, from ``setup``'s tables; a game of people alone
    without the coach is filed without them (and needs no numpy), as is any
    game when numpy is missing: ``analyze`` works them out from the log.
    """

    def __init__(self, store: SaveStorage, history: HistoryStorage | None = None, *,
                 resumed: SaveFile | None = None, uid: str | None = None,
                 setup: Solvers | None = None, coached: bool = False,
                 browser: BrowserSeats | None = None,
                 keep_by: Notation = Notation.POSITIONS) -> None:
        """Save into ``store`` and file finished games in ``history``.

        ``resumed`` is the save a resumed game came from; its ID is kept.
        ``uid`` is a new game's unique ID (by default, a random one at its first save).
        ``setup`` gives the solver for the win chances filed with the game;
        ``coached`` says that the coach is on (the solver is used anyway).
        ``browser`` is a new browser game's seats, saved with it from the start.
        ``keep_by`` is how the console's people type a keep, saved with every
        write (a resumed game's save takes it at its next write).
        """
        self.uid = resumed.uid if resumed is not None else uid
        self.store = store
        self.history = history
        self.setup = setup
        self.coached = coached
        self.save = resumed
        self.browser = browser
        self.keep_by = keep_by
        self.up_to_date = resumed is not None
        """Whether the save on disk holds the game as it stands now."""
        self.warned = False
        self.filed = False
        """Whether the finished game is in the history."""
        self.game_number: int | None = None
        """The finished game's number in the history, once filed (what ``analyze`` takes)."""
        self.replayable = False
        """Whether the changes being written are a computer's moves (``replaying``)."""
        self.holding = False
        """Whether changes are kept in memory for ``flush`` rather than written (``held``)."""
        self.pending: tuple[Engine, bool] | None = None
        """The engine whose change ``held`` kept (recorded when written), and whether that
        change was replayable."""
        self.appending: tuple[Engine, bool] | None = None
        """The change whose line ``flush_later`` handed to its caller, until it is on the disk
        (held again by ``append_failed``)."""
        self.filed_chances: tuple[TurnChances, ...] = ()
        """The win chances filed with the finished game (none before, or none filed)."""

    @property
    def save_id(self) -> int | None:
        """The ID of this game's save (None before the first successful save)."""
        return None if self.save is None else self.save.save_id

    def resume_id(self) -> int | None:
        """Return the ID to resume this game with, if its latest state is saved."""
        return self.save_id if self.up_to_date else None

    def _cannot_save(self, error: Exception) -> None:
        """Note that saving failed; report it the first time only."""
        self.up_to_date = False
        if not self.warned:
            self.warned = True
            self.store.problems.cannot_save(error)

    def changed(self, engine: Engine) -> None:
        """Write the game as it now stands (a new console game once it has an accepted move)."""
        if self.save is None and not engine.log and self.browser is None:
            return
        if self.holding:  # replayable only if every change held since the last write is
            replayable = self.replayable and (self.pending is None or self.pending[1])
            self.pending, self.up_to_date = (engine, replayable), False
            return
        self.pending = None  # written whole now: a change held before is in it
        record = engine.record()
        self.write(record, computer_to_play=computer_to_play(engine, record))

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Keep the changes made inside the block in memory; ``flush`` writes them.

        So that a move can be made on one thread and its save written, and
        waited for on the disk, on another; or that a computer's moves are
        written once, at its turn's end.  Only the engine is kept, and the game
        is recorded from it when written: the engine must not change between
        the block and ``flush`` other than by changes that are held too (the
        game's lock held throughout).  A change that ``changed`` writes
        meanwhile (outside such a block) holds the game whole, and drops the
        one held.
        """
        self.holding = True
        try:
            yield
        finally:
            self.holding = False

    def flush(self) -> None:
        """Write the change ``held`` kept, as any other change is written (nothing if none).

        Changes all made inside ``replaying`` are written as a replayable one,
        not waited for on the disk, even when flushed after that block.
        """
        pending, self.pending = self.pending, None
        if pending is None:
            return
        engine, replayable = pending
        record = engine.record()
        replaying, self.replayable = self.replayable, replayable
        try:
            self.write(record, computer_to_play=computer_to_play(engine, record))
        finally:
            self.replayable = replaying

    def flush_later(self) -> PendingAppend | None:
        """``flush``, but leave the write of the change to the caller where it is one line to
        append to a save file: return that line; None, nothing done, when ``flush`` must write it.

        So that the line is made on one thread and written, and waited for
        on the disk, elsewhere (``yahtzee.storage.appends``).  None when no
        change is held, when it is replayable (not waited for), when the
        game is not kept in a folder of files or has no save yet, and when
        its save is due to be written whole.  The caller that cannot append
        the line calls ``append_failed``, then ``flush``; the one that did,
        ``appended``.
        """
        if self.pending is None or self.save is None or not isinstance(self.store, SaveStore):
            return None
        engine, replayable = self.pending
        if replayable or self.replayable:
            return None
        save = replace(self.save, updated=now(), snapshot=engine.record())
        try:
            line = self.store.append_later(save)
        except StorageError:  # no longer this process's to write: ``flush`` reports it
            return None
        if line is not None:
            self.appending, self.pending = self.pending, None
            self.save, self.up_to_date = save, True
        return line

    def appended(self) -> None:
        """Note that the line of ``flush_later`` is on the disk (the change it held let go of)."""
        self.appending = None

    def append_failed(self) -> None:
        """Note that the line of ``flush_later`` could not be appended: hold the change again, so
        that ``flush`` writes the save whole."""
        if self.save is not None and isinstance(self.store, SaveStore):
            self.store.append_failed(self.save.save_id)
        self.pending, self.appending, self.up_to_date = self.appending, None, False

    @contextlib.contextmanager
    def replaying(self) -> Iterator[None]:
        """Write the changes made inside the block as replayable ones: a computer's moves.

        The game makes them again, exactly, from the save before them (its
        dice's generator travels with the save), so their writes need to
        survive the end of the process but are not waited for on the disk.
        """
        self.replayable = True
        try:
            yield
        finally:
            self.replayable = False

    def write(self, record: GameRecord, *, computer_to_play: bool = False) -> None:
        """Write ``record``, the game as it now stands (``changed`` without the engine).

        ``computer_to_play`` is kept with it by a database shared by several
        server processes, so that another one takes the game up if this one stops.
        """
        try:
            if self.save is None:
                self.save = self.store.create(record, uid=self.uid, browser=self.browser,
                                              keep_by=self.keep_by)
            else:
                save = replace(self.save, updated=now(), snapshot=record, keep_by=self.keep_by)
                self.store.write(save, computer_to_play=computer_to_play,
                                 replayable=self.replayable)
                self.save = save
            self.up_to_date = True
        except (OSError, StorageError, SnapshotError) as error:
            self._cannot_save(error)

    def keep_seats(self, seats: BrowserSeats) -> None:
        """Write a browser game's seats (who joined, whether it started) into its save."""
        self.browser = seats
        if self.save is None:
            return  # its first save will hold them
        try:
            save = replace(self.save, browser=seats)
            self.store.write(save)
            self.save = save
        except (OSError, StorageError, SnapshotError) as error:
            self._cannot_save(error)

    def finished(self, engine: Engine) -> None:
        """File the finished game in the history, then remove its save.

        If the history cannot be written, the save stays as it is (the game
        over, not yet filed; ``resume_id`` still names it): ``--resume``
        shows the end and files it then.
        Without a history, the save is kept, marked finished.  A change
        ``held`` is dropped: the filing holds the game's end.
        """
        self.pending = None
        self.file(engine.record())

    def file(self, record: GameRecord) -> None:
        """File ``record``, the finished game (``finished`` without the engine).

        Its win chances (``chances``) and a browser game's seats go with it.
        A game the history refuses (``ValueError``: chances or seats not the
        game's) is reported as one that cannot be saved, and its save kept.
        """
        uid = self.save.uid if self.save is not None else (self.uid or uuid.uuid4().hex)
        with FILING:
            self._file(record, uid)

    def _file(self, record: GameRecord, uid: str) -> None:
        """File ``record`` as ``file`` says, its game's unique ID ``uid``; ``FILING`` held."""
        try:
            if self.history is not None:
                turns = self.chances(record)
                self.filed_chances = tuple(turns)
                seats = self.save.browser if self.save is not None else self.browser
                self.game_number = self.history.record(record, uid=uid, chances=turns,
                                                       browser=seats)
                self.filed = True
                self.up_to_date = False
                if self.save is not None:
                    self.store.remove(self.save.save_id)
            elif self.save is not None:
                self.store.write(replace(self.save, updated=now(), finished=True,
                                         snapshot=record))
                self.up_to_date = False
        except (OSError, StorageError, SnapshotError, sqlite3.Error, ValueError) as error:
            saved = self.up_to_date
            self._cannot_save(error)
            self.up_to_date = saved

    def chances(self, record: GameRecord) -> list[TurnChances]:
        """Return every player's win chance at each turn's start of ``record``, a finished game.

        None (an empty list) unless the game has two or more players and the
        solver takes part in it (a computer player, or ``coached``) and is
        available; the spread-and-chances table is loaded (built, the first
        time, with progress reported to ``setup``) for it.
        """
        if self.setup is None or len(record.players) < 2:
            return []
        kinds = [find_kind(player.kind) for player in record.players]
        if not self.coached and not any(kind is not None and kind.is_computer for kind in kinds):
            return []
        try:
            coach = self.setup.coach(record_variant(record), profiles=True)
        except SolverUnavailableError:
            return []
        return coach.turn_chances(len(record.players), record.log,
                                  strategies_of([player.kind for player in record.players]))


def autosave_for(problems: StorageProblems, resumed: SaveFile | None = None, *,
                 store: SaveStorage | None = None, setup: Solvers | None = None,
                 coached: bool = False, storage: Storage | None = None,
                 keep_by: Notation = Notation.POSITIONS) -> Autosave:
    """Return an observer that saves a game in ``storage`` and files it when finished.

    ``storage`` defaults to the data folder's files.  ``store`` is its saves,
    holding the lock of ``resumed`` (``find_save`` takes it); by default a
    new store.  ``setup`` and ``coached`` are for the win chances filed with
    the game, ``keep_by`` is saved with it (``Autosave``).
    """
    where = storage if storage is not None else open_storage(None, problems)
    saves = store if store is not None else where.saves()
    return Autosave(saves, where.history(), resumed=resumed, setup=setup, coached=coached,
                    keep_by=keep_by)


def latest_to_resume(store: SaveStorage) -> SaveFile | None:
    """Return the game ``--resume`` alone goes on with: the newest unfinished game played at
    the console, else the newest of all (None: there is none).

    A game played in the browser belongs to its server, which holds it while
    it runs: a newer browser game must not hide the console game its player
    means.  It is still resumed by its ID (``saves`` lists it).
    """
    saves = store.unfinished()
    return next((save for save in saves if save.browser is None), saves[0] if saves else None)


def find_save(requested: str, store: SaveStorage) -> SaveFile:
    """Return the unfinished game to resume (``LATEST``: see ``latest_to_resume``; or that
    ID), locked in ``store``.

    The save is locked before it is read.  ``NoUnfinishedGameError`` or
    ``UnknownSaveError`` when there is none; ``SaveInUseError`` when it is
    open in another process; ``DamagedFileError`` (already reported to the
    store's problems) for a damaged save.  Nothing is left locked after an error.
    """
    while True:
        if requested == LATEST:
            newest = latest_to_resume(store)
            if newest is None:
                raise NoUnfinishedGameError()
            save_id = newest.save_id
        else:
            text = requested.strip()
            if not text.isdigit() or not text.isascii() or len(text) > 9:
                raise UnknownSaveError(requested)
            save_id = int(text)
            if not store.exists(save_id):
                raise UnknownSaveError(requested)
        store.lock(save_id)
        try:
            save = store.load(save_id)
        except SaveNotFoundError:
            store.release(save_id, remove=True)
            if requested == LATEST:
                continue  # deleted meanwhile: look for the newest again
            raise UnknownSaveError(requested) from None
        except BaseException:
            store.release(save_id)
            raise
        if save.finished:
            store.release(save_id)
            if requested == LATEST:
                continue  # finished meanwhile (by a process that could not file it)
            raise UnknownSaveError(requested)
        return save


def resume_engine(save: SaveFile, setup: Solvers, *,
                  observers: Sequence[EngineObserver] = ()) -> tuple[Engine, list[Player]]:
    """Return the saved game, its players seated with their cards, its dice' generator restored."""
    record = save.snapshot
    variant = record_variant(record)
    players = []
    for player in record.players:
        kind = find_kind(player.kind)
        if kind is None:
            raise SnapshotError(f"unknown player kind {player.kind!r}")
        players.append(setup.player(kind, player.name, variant, make_card(variant, player)))
    return Engine.restore(record, variant, players, observers=observers), players
