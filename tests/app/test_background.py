"""The table made in the background: held-back messages, waiting, problems, errors, cancelling.

And the opposite: every table made at once, in the caller's thread (``Solvers.preload``).
"""

from __future__ import annotations

import threading
import time
from typing import Any, cast

import pytest

from yahtzee.app.background import TableLoader
from yahtzee.app.session import Solvers
from yahtzee.domain.games import YAHTZEE, every_variant, get_variant, yahtzee_variant
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules
from yahtzee.players.kinds import KINDS
from yahtzee.solver.cache import Solution
from yahtzee.solver.moments import Moments
from yahtzee.solver.events import (BuildFinished, BuildProgress, BuildStarted, Report,
                                   SolverEvent, TableNotStored, TableUnusable)

TABLE = cast(Solution, object())
"""What the fake builds return (nothing looks inside it)."""


class _FakeBuild:
    """A build that reports like the real one and goes on only when the test lets it."""

    def __init__(self, fail: BaseException | None = None) -> None:
        """Make a build that raises ``fail`` at its end, if given."""
        self.go_on = threading.Event()
        self.halfway = threading.Event()
        self.fail = fail
        self.calls = 0

    def __call__(self, rules: Rules, report: Report) -> Solution:
        """Report a damaged file, the start and two turns, wait, then finish."""
        self.calls += 1
        report(TableUnusable("/cache/x.table", "checksum mismatch"))
        report(BuildStarted(rules.name))
        report(BuildProgress(1, 3))
        report(BuildProgress(2, 3))
        self.halfway.set()
        self.go_on.wait(10)
        report(BuildProgress(3, 3))
        if self.fail is not None:
            raise self.fail
        report(TableNotStored("/cache", "read-only"))
        report(BuildFinished(3, 1.5))
        return TABLE


def test_nothing_is_shown_until_somebody_waits_then_the_build_from_where_it_stands() -> None:
    shown: list[SolverEvent] = []
    build = _FakeBuild()
    loader = TableLoader(OFFICIAL, build, shown.append)
    assert build.halfway.wait(10)
    assert shown == [] and not loader.done()
    waiter = threading.Thread(target=loader.result)
    waiter.start()
    build.go_on.set()
    waiter.join(10)
    assert loader.result() is TABLE
    assert shown == [TableUnusable("/cache/x.table", "checksum mismatch"),
                     BuildStarted("official"), BuildProgress(2, 3), BuildProgress(3, 3),
                     TableNotStored("/cache", "read-only"), BuildFinished(3, 1.5)]
    assert build.calls == 1


def test_a_build_finished_unseen_shows_only_its_problems() -> None:
    shown: list[SolverEvent] = []
    build = _FakeBuild()
    build.go_on.set()
    loader = TableLoader(COURSE, build, shown.append)
    while not loader.done():
        threading.Event().wait(0.01)
    assert loader.result() is TABLE and loader.result() is TABLE
    assert shown == [TableUnusable("/cache/x.table", "checksum mismatch"),
                     TableNotStored("/cache", "read-only")]


def test_an_error_of_the_build_is_raised_to_whoever_waits() -> None:
    build = _FakeBuild(fail=MemoryError("no room"))
    build.go_on.set()
    loader = TableLoader(OFFICIAL, build)
    with pytest.raises(MemoryError, match="no room"):
        loader.result()


def test_cancelling_stops_the_build_at_its_next_report() -> None:
    shown: list[SolverEvent] = []
    build = _FakeBuild()
    loader = TableLoader(OFFICIAL, build, shown.append)
    assert build.halfway.wait(10)
    threading.Timer(0.05, build.go_on.set).start()
    loader.cancel()
    assert loader.done() and shown == []
    with pytest.raises(RuntimeError, match="cancelled"):
        loader.result()


def test_setup_starts_the_table_and_its_computers_wait_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    build = _FakeBuild()

    def load_or_build(rules: Rules, store: Any, report: Report) -> Solution:
        """Stand in for the cache: the fake build."""
        return build(rules, report)

    moments_of: list[object] = []

    def load_or_build_moments(rules: Rules, solution: Solution, store: Any,
                              report: Report) -> object:
        """Stand in for the spread-and-chances table: made after the table, from it."""
        moments_of.append(solution)
        return object()

    monkeypatch.setattr("yahtzee.solver.cache.load_or_build", load_or_build)
    monkeypatch.setattr("yahtzee.solver.cache.load_or_build_moments", load_or_build_moments)
    shown: list[SolverEvent] = []
    setup = Solvers(report=shown.append)
    setup.load_in_background(yahtzee_variant(COURSE))
    setup.load_in_background(yahtzee_variant(COURSE))
    assert build.halfway.wait(10) and not shown
    threading.Timer(0.05, build.go_on.set).start()
    assert setup.solutions()(COURSE) is TABLE
    assert build.calls == 1 and moments_of == [TABLE]
    assert BuildStarted("course") in shown
    setup.close()


def test_two_threads_asking_at_once_for_a_rule_set_s_tables_start_one_loader_and_another_waits_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server makes games in several threads: two first games of one rule set at once start
    one loader, and a first game of another rule set meanwhile does not wait for it."""
    started: list[Rules] = []
    release = threading.Event()

    class SlowLoader(TableLoader):
        """A loader that returns only once its tables are read, as one from the cache does:
        the course rules' after a moment, the official rules' once the test lets it."""

        def __init__(self, rules: Rules, load: Any, report: Report | None = None) -> None:
            """Note the start, wait, and start nothing."""
            started.append(rules)
            if rules == OFFICIAL:
                release.wait(10)
            else:
                time.sleep(0.2)

        def cancel(self) -> None:
            """Nothing was started."""

    both_asked = threading.Barrier(2)
    monkeypatch.setattr("yahtzee.app.session.TableLoader", SlowLoader)
    setup = Solvers()

    def ask() -> None:
        """Ask for the course rules' tables as a game being made does."""
        try:
            both_asked.wait(5)
        except threading.BrokenBarrierError:
            pass
        setup.load_in_background(yahtzee_variant(COURSE))

    official = threading.Thread(target=setup.load_in_background,
                                args=(yahtzee_variant(OFFICIAL),))
    askers = [threading.Thread(target=ask) for _ in range(2)]
    try:
        official.start()
        for asker in askers:
            asker.start()
        for asker in askers:
            asker.join(5)
        assert not any(asker.is_alive() for asker in askers)  # the official rules still going
        assert started.count(COURSE) == 1
    finally:
        release.set()
        official.join(10)
    assert not official.is_alive()
    assert sorted(rules.name for rules in started) == [COURSE.name, OFFICIAL.name]
    setup.close()


def test_a_coach_being_made_holds_up_no_other_rule_set_s_coach_and_is_made_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's first coached game of a rule set waits for its tables; others go on."""
    inside, release = threading.Event(), threading.Event()
    made: list[str] = []

    def new_coach(self: Solvers, variant: Any, profiles: bool) -> Any:
        """Stand in for a coach's making: the official rules' waits until the test lets it."""
        if variant.rules_name == OFFICIAL.name:
            inside.set()
            release.wait(10)
        made.append(variant.rules_name)
        return variant.rules_name

    monkeypatch.setattr(Solvers, "_new_coach", new_coach)
    setup = Solvers()
    askers = [threading.Thread(target=setup.coach, args=(yahtzee_variant(OFFICIAL),))
              for _ in range(2)]
    quick: list[object] = []
    course = threading.Thread(target=lambda: quick.append(setup.coach(yahtzee_variant(COURSE))))
    try:
        askers[0].start()
        assert inside.wait(10)
        askers[1].start()
        course.start()
        course.join(5)
        assert quick == [COURSE.name] and made == [COURSE.name]  # the official one still going
        assert askers[1].is_alive()  # the second asker waits for the first one's making
    finally:
        release.set()
        for thread in (*askers, course):
            if thread.ident is not None:
                thread.join(10)
    assert not any(thread.is_alive() for thread in (*askers, course))
    assert made == [COURSE.name, OFFICIAL.name]  # asked for twice, made once
    assert cast(object, setup.coach(yahtzee_variant(OFFICIAL))) == OFFICIAL.name


def test_a_game_of_poker_dice_has_no_table_to_make(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def load_or_build(rules: Rules, store: Any, report: Report) -> Solution:
        """Stand in for the cache: note the rule set (checked in the test's own thread)."""
        made.append(rules.name)
        return TABLE

    monkeypatch.setattr("yahtzee.solver.cache.load_or_build", load_or_build)
    monkeypatch.setattr("yahtzee.solver.cache.load_or_build_moments", lambda *args: object())
    setup = Solvers()
    try:
        setup.load_in_background(get_variant("poker-dice"))
    finally:
        setup.close()
    assert made == [], "a table was made for Poker Dice"
    setup = Solvers()
    try:  # the stand-in is the one a game's table would come from
        setup.load_in_background(yahtzee_variant(COURSE))
        assert setup.solutions()(COURSE) is TABLE
    finally:
        setup.close()
    assert made == ["course"]


def test_preload_makes_every_game_s_tables_coaches_and_computers_now_leaving_no_thread(
        official_moments: Moments, course_moments: Moments,
        monkeypatch: pytest.MonkeyPatch) -> None:
    before = set(threading.enumerate())
    setup = Solvers()
    setup.preload(every_variant())
    assert set(threading.enumerate()) - before == set()
    assert all(setup.tables_ready(variant) for variant in every_variant())

    def made_again(*args: object, **kwargs: object) -> None:
        """Fail: everything was to be made by the preload."""
        pytest.fail("made again after the preload")

    monkeypatch.setattr("yahtzee.solver.factory.get_strategy", made_again)
    monkeypatch.setattr("yahtzee.solver.factory.get_profiler", made_again)
    monkeypatch.setattr("yahtzee.solver.play_to_win.PlayToWinStrategy", made_again)
    for variant in every_variant():
        setup.load_in_background(variant)  # ready already: no thread, no loader
        coach = setup.coach(variant, profiles=True)
        if variant.name == YAHTZEE:
            coach.play_to_win()  # the win chances' own strategy, made by the preload too
        for kind in KINDS:
            if kind.is_computer:
                setup.strategy(kind, variant)
    assert set(threading.enumerate()) - before == set()
    assert not setup.solutions()(OFFICIAL).values.flags.writeable
    setup.close()


def test_no_background_load_starts_once_the_solvers_are_closed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game made while a server stops would start a load that nothing cancels: after
    ``close`` none starts, and no table is said to be ready (a cancelled load has none)."""
    started: list[Rules] = []

    class NotedLoader(TableLoader):
        """A loader that notes its start, starts nothing, and is done once cancelled (with no
        table, as a real one)."""

        def __init__(self, rules: Rules, load: Any, report: Report | None = None) -> None:
            """Note the start."""
            started.append(rules)
            self.stopped = False

        def cancel(self) -> None:
            """Nothing was started: note the stop."""
            self.stopped = True

        def done(self) -> bool:
            """Done once cancelled."""
            return self.stopped

    monkeypatch.setattr("yahtzee.app.session.TableLoader", NotedLoader)
    setup = Solvers()
    setup.load_in_background(yahtzee_variant(COURSE))
    assert started == [COURSE]
    setup.close()
    assert not setup.tables_ready(yahtzee_variant(COURSE))  # cancelled: no table to use
    setup.load_in_background(yahtzee_variant(OFFICIAL))
    assert started == [COURSE]
    assert not setup.tables_ready(yahtzee_variant(OFFICIAL))
