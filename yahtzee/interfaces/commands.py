"""What each subcommand does: ``play``, ``solve``, ``simulate``, ``duel``, ``saves``, ``stats``,
``analyze``.

``advise`` (advice for real dice) lives in ``yahtzee.interfaces.advise``.

Each handler takes the options argparse has already checked and returns
the exit status.  Results go to standard output (a readable text, or JSON);
one-line errors to standard error.  numpy is imported only by the commands
that need the solver, when they run.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yahtzee.app.service import new_game, resume_game
from yahtzee.app.session import (Autosave, NoUnfinishedGameError, Solvers,
                                 SolverUnavailableError, UnknownSaveError, autosave_for, find_save)
from yahtzee.domain.card import Variant
from yahtzee.domain.games import YAHTZEE, get_variant, rules_of
from yahtzee.engine.engine import new_seed
from yahtzee.engine.moves import Notation
from yahtzee.interfaces.advise import run_advise
from yahtzee.interfaces.console import Console, saves_json
from yahtzee.interfaces.console_game import Game
from yahtzee.interfaces.review import Review, chart_lines, make_review, review_json
from yahtzee.interfaces.review_html import review_document
from yahtzee.interfaces.streams import quoted
from yahtzee.interfaces.wording import (NUMPY_NEEDED, PROGRAM_NAME, WEB_NEEDED,
                                        WORKERS_NEED_DATABASE, game_name_and_rules, game_words,
                                        local_time)
from yahtzee.players.kinds import (COMPUTER, EXPECTED, HUMAN, PlayerKind, numbered,
                                   solo_strategy)
from yahtzee.players.players import ComputerPlayer
from yahtzee.storage.atomic import write_atomic
from yahtzee.storage.fields import GAME_ID
from yahtzee.storage.history import DamagedGameError
from yahtzee.storage.port import (DATABASE_VARIABLE, BadDatabaseError, HistoryStorage,
                                  SaveStorage, Storage, open_storage, without_password)
from yahtzee.storage.problems import (DamagedFileError, SaveInUseError, SaveNotFoundError,
                                      StorageError)
from yahtzee.storage.saves import SaveFile
from yahtzee.storage.stats import histogram, load_stats

if TYPE_CHECKING:
    from yahtzee.solver.cache import TableSource
    from yahtzee.solver.coach import Coach
    from yahtzee.solver.duel import Tally

DEFAULT_DELAY = 0.6
"""Seconds before each computer command on a terminal (0 when the output is not one)."""
SIMULATE_BAR = 50
"""Characters of the longest bar of ``simulate``'s histogram."""
SIMULATE_BIN = 20
"""Points per row of ``simulate``'s histogram."""
DEFAULT_PLAYERS = [HUMAN, HUMAN]
"""The players of a game when ``--players`` is not given: the course's two people."""
NOTHING_THERE = 1
"""The exit status when there is no game at all to work on: no finished game to analyze, no
unfinished game to resume or delete (``stats`` and ``saves`` list none with 0)."""
USAGE_ERROR = 2
"""The exit status of a command line that is wrong: an option or a value refused, or an ID
or number that names none of the games there are."""


def is_game_number(text: str) -> bool:
    """Return whether ``text`` is written as a game's number or a save's ID: 1 to 9 digits."""
    return text.isascii() and text.isdigit() and len(text) < 10


def resume_hint(saver: Autosave, database: str | None = None) -> str | None:
    """Return the command that resumes the game ``saver`` saves (None if it is not saved).

    It always names the game's own ID: plain ``--resume`` takes the game
    saved last, which may be another window's game saved a moment later.
    A ``database`` given as ``--database`` is named again (without its
    password); one from ``YAHTZEE_DATABASE`` is found there again.  The
    way of typing a keep (``--keep-by``) is in the save, so the game
    resumes with it; only a game resumed with another one and stopped
    before its save took it (no move since) names it.
    """
    save_id = saver.resume_id()
    if save_id is None:
        return None
    where = "" if database is None else f" --database {shlex.quote(without_password(database))}"
    saved = saver.save.keep_by if saver.save is not None else Notation.POSITIONS
    typing = "" if saver.keep_by is saved else f" --keep-by {saver.keep_by.value}"
    return f"{PROGRAM_NAME}{where} --resume {save_id}{typing}"


def open_database(args: argparse.Namespace, console: Console) -> Storage | None:
    """Return the storage ``--database`` (or ``YAHTZEE_DATABASE``) names: the files by default.

    None after one line saying why it cannot be used (the command then exits with status 2,
    having written nothing).
    """
    database = getattr(args, "database", None)
    if database is None:
        database = os.environ.get(DATABASE_VARIABLE)
    try:
        return open_storage(database, console)
    except BadDatabaseError as error:
        console.refuse(str(error))
        return None


def _find_save(requested: str, console: Console, store: SaveStorage) -> SaveFile | int:
    """Return the save to resume, locked in ``store``, or the exit status after saying why
    there is none: ``NOTHING_THERE`` when there is no unfinished game at all (whatever ID
    was asked for, if written as one), else ``USAGE_ERROR`` (an ID of none of them, a game
    open elsewhere, a damaged save)."""
    try:
        return find_save(requested, store)
    except NoUnfinishedGameError:
        console.no_unfinished_game()
        return NOTHING_THERE
    except UnknownSaveError:
        if is_game_number(requested.strip()) and not store.unfinished():
            console.no_unfinished_game()
            return NOTHING_THERE
        console.unknown_save(requested)
    except SaveInUseError as error:
        console.save_in_use(error.save_id)
    except DamagedFileError:
        pass
    return USAGE_ERROR


def run_play(args: argparse.Namespace) -> int:
    """Play a game as the options say (a new one, or ``--resume``); return the exit status.

    The game's save stays locked until the game ends, so that no other
    process resumes or deletes it meanwhile.
    """
    delay = args.delay if args.delay is not None else (
        DEFAULT_DELAY if sys.stdout.isatty() else 0.0)
    console = Console(delay=delay)
    storage = open_database(args, console)
    if storage is None:
        return 2
    store = storage.saves()
    setup = Solvers(report=console.solver_event)
    try:
        return _play(args, console, (storage, store), setup)
    finally:
        setup.close()
        store.release()
        storage.close()


def _play(args: argparse.Namespace, console: Console, where: tuple[Storage, SaveStorage],
          setup: Solvers) -> int:
    """Play the game of ``run_play``, saving it in ``store``; return the exit status.

    The computers' table is made in the background while the game starts: a
    person in the first seat plays at once, and a computer waits for it.
    """
    storage, store = where
    resumed: SaveFile | None = None
    if args.resume is not None:
        found = _find_save(args.resume, console, store)
        if isinstance(found, int):
            return found
        resumed = found
        _ignored_on_resume(args, console)
    keep_by = args.keep_by or (resumed.keep_by if resumed is not None else Notation.POSITIONS)
    # a browser game set up with the coach goes on with it; a console game's is --coach's
    coach = args.coach or (resumed is not None and resumed.browser is not None
                           and resumed.browser.coach)
    saver = autosave_for(console, resumed, store=store, setup=setup, coached=coach,
                         storage=storage, keep_by=keep_by)
    try:
        live = (resume_game(setup, resumed, coach=coach, autosave=saver)
                if resumed is not None else
                new_game(setup, get_variant(args.game, args.rules),
                         args.players or DEFAULT_PLAYERS, args.names, seed=args.seed,
                         coach=coach, autosave=saver))
    except SolverUnavailableError:
        console.refuse(NUMPY_NEEDED)
        return 1
    except KeyboardInterrupt:
        console.say()
        console.stopped_before_start(resumed is not None)
        return 130
    if resumed is not None:
        console.resuming(resumed)
    return _play_to_the_end(Game(live=live, console=console, notation=keep_by), setup,
                            saver, getattr(args, "database", None))


def _ignored_on_resume(args: argparse.Namespace, console: Console) -> None:
    """Say which of the options given a resumed game ignores (it keeps its own settings)."""
    ignored = [option for option, given in (
        ("--players", args.players not in (None, DEFAULT_PLAYERS)), ("--names", args.names),
        ("--rules", args.rules), ("--game", args.game != YAHTZEE),
        ("--seed", args.seed is not None)) if given]
    if ignored:
        console.refuse(f"{', '.join(ignored)} ignored: a resumed game keeps its own settings")


def _play_to_the_end(game: Game, setup: Solvers, saver: Autosave,
                     database: str | None = None) -> int:
    """Play ``game`` to its end (or until stopped) and close it; return the exit status.

    ``database`` is the ``--database`` given, for the command that resumes the game.
    """
    console = game.console
    try:
        game.play_game()
    except EOFError:
        _stopped(console, saver, game, database)
        return 0
    except KeyboardInterrupt:
        console.say()
        _stopped(console, saver, game, database)
        return 130
    try:
        _end_of_game(game, game.live.coach, setup, console, saver.game_number)
    except KeyboardInterrupt:
        console.say()
        console.stopped_after_end(saver.filed, resume_hint(saver, database))
        return 130
    return 0


def _end_of_game(game: Game, coach: Coach | None, setup: Solvers, console: Console,
                 game_number: int | None = None) -> None:
    """Print each player's score as expected score plus luck minus decisions' cost, then
    the number ``analyze`` takes for the game (``game_number``, once it is in the history).

    With ``--coach`` they head each player's part of the coach's analysis.
    Without it they are printed only when a computer played, whose solver is
    loaded anyway: a game of humans only ends as the specification's
    transcript does and needs no numpy.  Without numpy nothing is added.
    """
    names = [p.name for p in game.players]
    strategies = game.live.strategies()
    if coach is not None:
        console.analysis(coach.analyze(names, game.log, strategies=strategies), game.variant)
    elif any(isinstance(p, ComputerPlayer) for p in game.players):
        try:
            judge = setup.coach(game.variant)
        except SolverUnavailableError:
            return
        console.luck_lines(judge.analyze(names, game.log, strategies=strategies))
    else:
        return
    if game_number is not None:
        console.filed_as(game_number)


def _stopped(console: Console, saver: Autosave, game: Game, database: str | None) -> None:
    """Say that the game stopped: how to resume it (in ``database``, as ``--database``
    gave it), or why nothing was saved."""
    if saver.save is None and not game.log:
        console.stopped_before_any_move()
    elif game.engine.is_over():
        console.stopped_after_end(saver.filed, resume_hint(saver, database))
    else:
        console.interrupted(resume_hint(saver, database))


def _solver_setup(args: argparse.Namespace) -> tuple[Variant, Console, TableSource]:
    """Return the game named on the command line, a console, and the solver's table source."""
    variant = get_variant(args.game, args.rules)
    console = Console()
    return variant, console, Solvers(report=console.solver_event).solutions()


def run_solve(args: argparse.Namespace) -> int:
    """Print optimal play's expected final score of ``--game`` under ``--rules``."""
    variant, console, tables = _solver_setup(args)
    from yahtzee.solver.factory import expected_score
    started = time.perf_counter()
    expected = expected_score(variant, tables)
    seconds = time.perf_counter() - started
    if args.json:
        console.say(json.dumps({"game": variant.name, "rules": variant.rules_name,
                                "expected_score": round(expected, 6),
                                "seconds": round(seconds, 3)}))
    else:
        console.say(f"Optimal play {game_words(variant, 'under', 'of')}: expected final score "
                    f"{expected:.4f} (table ready in {seconds:.2f} s)")
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    """Play ``--games`` solitaire games with ``--strategy`` and print their statistics."""
    variant, console, tables = _solver_setup(args)
    from yahtzee.solver.factory import simulate_games
    games = args.games
    seed = args.seed if args.seed is not None else new_seed()  # told, so the run can be repeated
    started = time.perf_counter()
    strategy = solo_strategy(args.strategy) or args.strategy
    scores = [int(s) for s in simulate_games(variant, strategy, games, seed, tables)]
    seconds = time.perf_counter() - started
    mean = statistics.fmean(scores)
    stdev = statistics.stdev(scores) if games > 1 else 0.0
    report = {"game": variant.name, "rules": variant.rules_name, "strategy": args.strategy,
              "games": games, "seed": seed, "mean": round(mean, 4), "stdev": round(stdev, 4),
              "min": min(scores), "max": max(scores), "seconds": round(seconds, 3)}
    if args.json:
        console.say(json.dumps(report))
        return 0
    noun = "game" if games == 1 else "games"
    console.say(f"{games} {noun} {game_words(variant, 'of', 'of')} played by the "
                f"{args.strategy} strategy, seed {seed}, in {seconds:.2f} s")
    console.say(f"mean {mean:.2f}  stdev {stdev:.2f}  min {min(scores)}  max {max(scores)}")
    console.say("scores:")
    console.simulate_histogram(histogram(scores, SIMULATE_BIN), SIMULATE_BAR)
    return 0


WIN_INTERVAL_Z = 2.5758
"""Standard errors either side of a win rate in its 99% interval."""


def run_duel(args: argparse.Namespace) -> int:
    """Play ``--games`` computer-only games between ``--players`` and print the wins."""
    kinds = args.players or [COMPUTER, EXPECTED]
    variant = get_variant(YAHTZEE, args.rules)
    console = Console()
    setup = Solvers(report=console.solver_event)
    tables, moments = setup.solutions(), setup.moments()
    from yahtzee.solver.factory import duel_games
    strategies = [kind.strategy or "" for kind in kinds]
    rules = rules_of(variant)
    assert rules is not None
    tables(rules)
    moments(rules)
    seed = args.seed if args.seed is not None else new_seed()  # told, so the run can be repeated
    started = time.perf_counter()
    tally = duel_games(strategies, variant, args.games, seed, tables, moments)
    seconds = time.perf_counter() - started
    if args.json:
        console.say(json.dumps(_duel_json(kinds, variant, tally, seconds, seed)))
    else:
        _show_duel(console, kinds, variant, tally, seconds, seed)
    return 0


def _win_rates(tally: Tally) -> tuple[list[float], list[tuple[float, float]]]:
    """Return each contender's share of the games won and its 99% interval (low, high).

    Wilson's score interval: unlike the rate plus or minus its standard
    errors, it stays within 0 to 1 and has a width even when every game, or
    none, was won (a few games make both likely).
    """
    n, z2 = tally.games, WIN_INTERVAL_Z ** 2
    rates = [float(w) / n for w in tally.wins]
    intervals = []
    for r in rates:
        centre = (r + z2 / (2 * n)) / (1 + z2 / n)
        half = WIN_INTERVAL_Z / (1 + z2 / n) * (r * (1 - r) / n + z2 / (4 * n * n)) ** 0.5
        intervals.append((max(0.0, centre - half), min(1.0, centre + half)))
    return rates, intervals


def _duel_json(kinds: Sequence[PlayerKind], variant: Variant, tally: Tally,
               seconds: float, seed: int) -> dict[str, Any]:
    """Return ``duel --json``: the wins, win rates with their 99% intervals, and calibration."""
    games = tally.games
    rates, intervals = _win_rates(tally)
    return {
        "rules": variant.rules_name, "players": [k.name for k in kinds], "games": games,
        "seed": seed,
        "wins": [round(float(w), 1) for w in tally.wins],
        "win_rate": [round(r, 6) for r in rates],
        "interval_99": [[round(low, 6), round(high, 6)] for low, high in intervals],
        "mean_score": [round(float(p) / games, 4) for p in tally.points],
        "seconds": round(seconds, 3),
        "calibration": [{"predicted": round(b.predicted, 6), "observed": round(b.observed, 6),
                         "count": b.count} for b in tally.calibration()]}


def _show_duel(console: Console, kinds: Sequence[PlayerKind], variant: Variant, tally: Tally,
               seconds: float, seed: int) -> None:
    """Print the duel's games, each contender's wins, and the win chances' calibration."""
    games = tally.games
    rates, intervals = _win_rates(tally)
    noun = "game" if games == 1 else "games"
    console.say(f"{games} {noun} {game_words(variant, 'under', 'of')}, seats rotating, "
                f"seed {seed}, in {seconds:.2f} s ({games / max(seconds, 1e-9):.0f} games/s)")
    names = numbered([kind.name for kind in kinds])  # computer 1, computer 2: two alike
    width = max(len(name) for name in names)
    for name, wins, rate, (low, high), points in zip(names, tally.wins, rates, intervals,
                                                     tally.points):
        console.say(f"  {name:<{width}}  won {float(wins):g}  ({100 * rate:.2f}%, 99% "
                    f"interval {100 * low:.2f}-{100 * high:.2f}%)  "
                    f"mean score {float(points) / games:.2f}")
    console.say("Win chances at each turn's start, against how the games ended:")
    console.say("  predicted  observed   count")
    for b in tally.calibration():
        console.say(f"  {b.predicted:9.3f}  {b.observed:8.3f}  {b.count:6d}")


DELETE_ALL = "all"
"""What ``saves --delete`` takes for every unfinished game."""


def run_saves(args: argparse.Namespace) -> int:
    """List the unfinished games (as JSON if asked), or delete some; return the exit status."""
    console = Console()
    storage = open_database(args, console)
    if storage is None:
        return 2
    store = storage.saves()
    try:
        if args.delete:
            return _delete_saves(args.delete, console, store)
        saves = store.unfinished()
        opened = {save.save_id for save in saves if store.is_open_elsewhere(save.save_id)}
        if args.json:
            console.say(json.dumps(saves_json(saves, opened), indent=2))
        else:
            console.saves_listing(saves, opened)
        return 0
    finally:
        store.release()
        storage.close()


def _delete_saves(requested: list[str], console: Console, store: SaveStorage) -> int:
    """Delete the unfinished games ``requested`` (IDs, or ``all``); return the exit status.

    Every ID is checked first: one that names no unfinished game deletes
    nothing (``USAGE_ERROR``; ``NOTHING_THERE`` when there is none at all
    and every ID is written as one).  A game open in another process is kept
    (status 1).
    """
    words = [text.strip() for text in requested]
    if DELETE_ALL in (word.lower() for word in words):
        if len(words) > 1:
            console.refuse(f"saves --delete takes save IDs or '{DELETE_ALL}', not both")
            return 2
        targets = [save.save_id for save in store.unfinished()]
        if not targets:
            console.saves_listing([])
            return 0
    elif all(is_game_number(word) for word in words) and not store.unfinished():
        console.no_unfinished_game("delete")
        return NOTHING_THERE
    else:
        named = _named_saves(requested, console, store)
        if named is None:
            return USAGE_ERROR
        targets = named
    return max([_delete_save(save_id, console, store) for save_id in targets], default=0)


def _named_saves(requested: list[str], console: Console,
                 store: SaveStorage) -> list[int] | None:
    """Return the IDs ``requested``, each once; None after naming one of no unfinished game."""
    targets: list[int] = []
    for text in requested:
        save_id = _unfinished_id(text.strip(), store)
        if save_id is None:
            console.nothing_deleted(text)
            return None
        if save_id not in targets:
            targets.append(save_id)
    return targets


def _unfinished_id(word: str, store: SaveStorage) -> int | None:
    """Return the ID ``word`` if it names an unfinished game of ``store``, else None."""
    save_id = int(word) if is_game_number(word) else 0
    try:
        known = save_id > 0 and not store.load(save_id).finished
    except StorageError:
        known = False
    return save_id if known else None


def _delete_save(save_id: int, console: Console, store: SaveStorage) -> int:
    """Delete the unfinished game ``save_id``; return 1 if it was kept (open elsewhere, damaged)."""
    try:
        console.deleted(store.delete(save_id))
    except SaveInUseError:
        console.not_deleted_in_use(save_id)
        return 1
    except SaveNotFoundError:
        pass  # deleted or finished meanwhile, by another process
    except DamagedFileError:
        return 1
    return 0


def run_stats(args: argparse.Namespace) -> int:
    """Print the statistics of the finished games (as JSON if asked); return the exit status."""
    console = Console()
    storage = open_database(args, console)
    if storage is None:
        return 2
    try:
        stats = load_stats(storage.history())
    except StorageError as error:
        console.history_unavailable(error)
        return 1
    finally:
        storage.close()
    if args.json:
        console.say(json.dumps(stats.to_json(), indent=2))
    else:
        console.stats_listing(stats)
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    """Analyze a finished game of the history (the latest when no number is given).

    The win chances are those filed with the game; a game filed without
    them has them worked out from its decisions (the same numbers).

    Exit status ``USAGE_ERROR`` for a game's number or ID that names none of
    the finished games, ``NOTHING_THERE`` when there is none at all (whatever
    was asked), 1 when the history cannot be read.
    """
    console = Console()
    game_id: str | None = args.game_id
    storage = open_database(args, console)
    if storage is None:
        return 2
    try:
        return _analyze(args, console, game_id, storage)
    finally:
        storage.close()


def _analyze(args: argparse.Namespace, console: Console, game_id: str | None,
             storage: Storage) -> int:
    """Analyze the finished game ``game_id`` (None: the latest) of ``storage``'s history."""
    history = storage.history()
    written = game_id is None or is_game_number(game_id) or bool(GAME_ID.fullmatch(game_id))
    try:
        ids = history.game_ids() if written else []
        if written and not ids:
            console.refuse("no finished games yet: there is nothing to analyze")
            return NOTHING_THERE
        number = _finished_number(game_id, ids, history) if written else None
        if number is None:
            console.refuse(f"{quoted(game_id or '')} is not a finished game's number "
                           "(they count from 1 in the order the games ended) "
                           "nor the ID of a finished browser game")
            return USAGE_ERROR
        meta, log = history.load_game(number)
    except DamagedGameError:
        return 1
    except LookupError:
        console.refuse(f"no finished game has the number {game_id} "
                       f"(finished games: 1 to {ids[-1]})")
        return USAGE_ERROR
    except StorageError as error:
        console.error(f"the history cannot be read: {error}")
        return 1
    review = make_review(meta, log, Solvers(report=console.solver_event))
    if args.json:
        console.say(json.dumps(review_json(review), indent=2))
        return 0
    if args.html is not None:
        return _write_review(review, args.html, console)
    console.say(f"Game {meta.game_id}, finished {local_time(meta.finished_at)}, "
                f"{game_name_and_rules(meta.variant, meta.rules)}")
    console.analysis(review.analyses, review.variant)
    for line in chart_lines(review):
        console.say(line)
    return 0


def _finished_number(game_id: str | None, ids: Sequence[int],
                     history: HistoryStorage) -> int | None:
    """Return the number of the finished game ``game_id`` names: the latest of ``ids`` for
    None, a number as written, or the game a browser game's ID (as its review's address has
    it) names in ``history``; None when it names none."""
    if game_id is None:
        return ids[-1]
    if is_game_number(game_id):
        return int(game_id)
    return history.id_of(game_id)


def _write_review(review: Review, path: str, console: Console) -> int:
    """Write the review as one self-contained HTML file; exit status 1 if it cannot be written.

    All or nothing: a file already at ``path`` is kept as it was when the
    new one cannot be written whole.
    """
    try:
        write_atomic(Path(path), review_document(review).encode("utf-8"), mode=0o666)
    except OSError as error:
        console.error(f"cannot write {path}: {error.strerror or error}")
        return 1
    console.say(f"The review of game {review.game.game_id} is in {path}")
    return 0


WEB_PACKAGES = ("starlette", "uvicorn", "anyio", "h11", "msgspec")
"""The packages of the web extra: ``serve`` names the extra when one is missing."""


def run_serve(args: argparse.Namespace) -> int:
    """Serve the browser table on ``--host`` and ``--port`` until stopped."""
    try:
        from yahtzee.interfaces.web.server import serve
        from yahtzee.interfaces.web.workers import limit_malloc_arenas
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in WEB_PACKAGES:
            raise
        Console().refuse(WEB_NEEDED)
        return 1
    storage = open_database(args, Console())
    if storage is None:
        return 2
    limit_malloc_arenas()  # before any thread of the server
    if args.workers > 1:
        return _serve_workers(args, storage)
    try:
        return serve(args.host, args.port, delay=args.delay, capacity=args.max_games,
                     extra_hosts=args.allowed_hosts, proxy=args.proxy, storage=storage)
    finally:
        storage.close()


def _serve_workers(args: argparse.Namespace, storage: Storage) -> int:
    """Serve with ``--workers`` processes sharing the database (checked, then let go here)."""
    from yahtzee.interfaces.web.server import serve, serve_workers
    shared = storage.shared
    storage.close()  # each worker connects on its own
    if not shared:
        Console().refuse(WORKERS_NEED_DATABASE)
        return 2

    def worker(port: int, solvers: Solvers) -> int:
        """Serve on ``port`` beside the other workers, with ``solvers`` made before the fork."""
        own = open_database(args, Console())
        if own is None:
            return 2
        try:
            return serve(args.host, port, delay=args.delay, capacity=args.max_games,
                         extra_hosts=args.allowed_hosts, proxy=args.proxy, storage=own,
                         worker=True, solvers=solvers)
        finally:
            own.close()

    return serve_workers(args.host, args.port, args.workers, worker)


COMMANDS = {"play": run_play, "solve": run_solve, "simulate": run_simulate, "duel": run_duel,
            "saves": run_saves,
            "stats": run_stats, "analyze": run_analyze, "advise": run_advise,
            "serve": run_serve}
"""Every subcommand's handler, by name (``play`` is the default)."""


def run(args: argparse.Namespace) -> int:
    """Run the parsed command line; a missing numpy, a storage failure or Ctrl-C ends it with
    one line."""
    try:
        return COMMANDS[args.command or "play"](args)
    except SolverUnavailableError:
        Console().refuse(NUMPY_NEEDED)
        return 1
    except ModuleNotFoundError as error:
        if error.name != "numpy":
            raise
        Console().refuse(NUMPY_NEEDED)
        return 1
    except StorageError as error:  # the saves or the history failed (a database lost)
        Console().error(str(error))
        return 1
    except KeyboardInterrupt:
        # A play command handles Ctrl-C itself; any other command just stops.
        Console().error("stopped")
        return 130
