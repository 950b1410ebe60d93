"""Head-to-head games of computer players, many at once, with their win chances checked.

Every game seats the same contenders; the seats rotate from game to game
(in game ``g`` seat ``p`` goes to contender ``(p + g) mod n``), so no one
keeps the first seat.  Games are played in batches as numpy arrays, turn
by turn: a contender that plays for the win plans each of its turns with
``play_to_win`` against the other cards of its own game; one that plays
for the expected score (or greedily) reads the same tables as solitaire
simulation, each distinct state worked out once per turn.  The decisions
are those of the strategies that play the same kinds in a console game.

At every turn's start the chance of the player about to roll is predicted
from all cards (each final score as the one outlook of every win chance
gives it, ``outlook``); when the game ends, each prediction meets its
outcome (1 for a win, a tie's share, 0 for a loss), and the pairs are
summed per tenth of chance: the calibration.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from yahtzee.solver.calibration import BINS, Bin
from yahtzee.solver.dynamic import States, state_index
from yahtzee.solver.keeps import FloatArray, IntArray
from yahtzee.solver.levels import shortfall
from yahtzee.solver.model import ScoringModel
from yahtzee.solver.outlook import Field, Outlooks, chance_to_win
from yahtzee.solver.play_to_win import lean_for, lean_of, turn_worth, win_worth
from yahtzee.solver.simulate import play_turn, prepare_turn

DUEL_BATCH = 2048
"""Games played together."""

WIN_BATCH = 256
"""Turns of players who play to win planned together (their tables take memory per game)."""


@dataclass(frozen=True)
class Contender:
    """A computer player of a duel: its model, the state values it reads, and how it decides.

    ``to_win``: it plans each turn for the chance to finish first against the
    other cards of its game; otherwise it plays for the most points by
    ``values`` (the optimal table, or zeros for greedy play).
    """

    model: ScoringModel
    values: FloatArray
    to_win: bool
    temperature: float = 0.0
    """Above 0: a computer level, which draws its keeps and boxes (``levels``)."""
    lean: tuple[float, ...] | None = None
    """When it plays to win: what an expected point weighs in planning, per turns left
    after the one planned (None: ``lean_for`` the model's rules, as the console's computer)."""
    strategy: str | None = None
    """Its strategy's name: the win chances predicted for the duel lower its outlook by
    what that strategy is known to fall short of optimal play (``levels.shortfall``)."""


@dataclass
class Tally:
    """What a duel has counted so far: wins per contender and predictions per tenth."""

    games: int
    wins: FloatArray
    """Per contender: games won, a tie counting as its share."""
    points: FloatArray
    """Per contender: the sum of final scores."""
    counts: IntArray = field(default_factory=lambda: np.zeros(BINS, dtype=np.int64))
    predicted: FloatArray = field(default_factory=lambda: np.zeros(BINS))
    observed: FloatArray = field(default_factory=lambda: np.zeros(BINS))

    def calibration(self) -> list[Bin]:
        """Return the predictions grouped per tenth (empty tenths left out)."""
        return [Bin(i / BINS, float(self.predicted[i] / n), float(self.observed[i] / n), int(n))
                for i, n in enumerate(self.counts) if n]

    def add(self, other: Tally) -> None:
        """Add the games counted by ``other``."""
        self.games += other.games
        for mine, theirs in ((self.wins, other.wins), (self.points, other.points),
                             (self.counts, other.counts), (self.predicted, other.predicted),
                             (self.observed, other.observed)):
            mine += theirs


def _play_to_win(contender: Contender, outlooks: Outlooks, rng: np.random.Generator,
                 states: States, banked: FloatArray, rivals: Field
                 ) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Play one turn of games whose player plays to win; return next states and points."""
    model = contender.model
    count = len(states)
    lean = lean_for(model) if contender.lean is None else contender.lean
    result = tuple(np.empty(count, dtype=np.int64) for _ in range(4))
    for lo in range(0, count, WIN_BATCH):
        part = np.arange(lo, min(count, lo + WIN_BATCH))
        some = States(states.flag[part], states.mask[part], states.upper[part])
        weight = lean_of(model, some, lean)
        turn = turn_worth(model, some, win_worth(outlooks, banked[part], rivals.part(part),
                                                 weight))
        played = play_turn(model, contender.values, rng,
                           (some, turn, np.arange(len(part)), len(part)))
        for out, got in zip(result, played):
            out[part] = got
    return result[0], result[1], result[2], result[3]


def _play_batch(contenders: Sequence[Contender], outlooks: Outlooks, rng: np.random.Generator,
                first: int, games: int) -> Tally:
    """Return the tally of games ``first`` to ``first + games - 1``."""
    model = contenders[0].model
    players = len(contenders)
    flag, mask, upper = (np.zeros((players, games), dtype=np.int64) for _ in range(3))
    total = np.zeros((players, games))
    turns_left = np.full((players, games), model.rounds)
    seat_of_game = np.arange(first, first + games) % players
    predictions = []
    for _round in range(model.rounds):
        for seat in range(players):
            actor = (seat + seat_of_game) % players
            index = state_index(model, flag, mask, upper)
            # each one's outlook lowered by its shortfall still to come
            told = total - np.array([shortfall(model.name, c.strategy, turns_left[i], model.rounds)
                                     for i, c in enumerate(contenders)])
            chances = np.empty(games)
            predictions.append((actor, chances))
            for i, contender in enumerate(contenders):
                cols = np.flatnonzero(actor == i)
                if len(cols) == 0:
                    continue
                others = [j for j in range(players) if j != i]
                rivals = Field.of(outlooks, total[others][:, cols], index[others][:, cols])
                chances[cols] = chance_to_win(
                    told[i, cols], index[i, cols], np.arange(len(cols)),
                    Field.of(outlooks, told[others][:, cols], index[others][:, cols]), outlooks)
                states = States(flag[i, cols], mask[i, cols], upper[i, cols])
                if contender.to_win:
                    played = _play_to_win(contender, outlooks, rng, states, total[i, cols],
                                          rivals)
                else:
                    played = play_turn(contender.model, contender.values, rng,
                                       prepare_turn(contender.model, contender.values, states),
                                       contender.temperature)
                flag[i, cols], mask[i, cols], upper[i, cols] = played[:3]
                total[i, cols] += played[3]
                turns_left[i, cols] -= 1
    best = total.max(axis=0)
    leaders = (total == best).sum(axis=0)
    outcome = np.where(total == best, 1.0 / leaders, 0.0)
    tally = Tally(games, outcome.sum(axis=1), total.sum(axis=1))
    columns = np.arange(games)
    for actor, chances in predictions:
        tenth = np.minimum((chances * BINS).astype(np.int64), BINS - 1)
        tally.counts += np.bincount(tenth, minlength=BINS)
        tally.predicted += np.bincount(tenth, weights=chances, minlength=BINS)
        tally.observed += np.bincount(tenth, weights=outcome[actor, columns], minlength=BINS)
    return tally


_SHARED: dict[str, tuple[Sequence[Contender], Outlooks]] = {}
"""What the worker processes play with (inherited when they start, not sent to them)."""


def _play_numbered(job: tuple[int, int, np.random.SeedSequence]) -> Tally:
    """Play batch ``job`` = (first game, games, seed) with the shared contenders."""
    first, games, seeds = job
    contenders, outlooks = _SHARED["duel"]
    return _play_batch(contenders, outlooks, np.random.default_rng(seeds), first, games)


def duel(contenders: Sequence[Contender], outlooks: Outlooks, games: int, seed: int | None,
         progress: Callable[[int, int], None] | None = None, batch: int = DUEL_BATCH,
         workers: int = 1) -> Tally:
    """Return the tally of ``games`` games between ``contenders`` (two or more).

    ``outlooks`` are the outlooks of optimal play that win chances read.
    Each batch of ``batch`` games has its own dice, drawn from ``seed`` and
    the batch's number, so a seed always gives the same games,
    however many ``workers`` (processes, where the system can fork them)
    share the batches.  ``progress`` is told (games played, games in all)
    after each batch.
    """
    if len(contenders) < 2:
        raise ValueError("a duel needs two contenders or more")
    players = len(contenders)
    starts = list(range(0, games, batch))
    seeds = np.random.SeedSequence(seed).spawn(len(starts))
    jobs = [(first, min(batch, games - first), s) for first, s in zip(starts, seeds)]
    tally = Tally(0, np.zeros(players), np.zeros(players))
    _SHARED["duel"] = (contenders, outlooks)
    try:
        if workers > 1 and len(jobs) > 1 and "fork" in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context("fork")
            with context.Pool(min(workers, len(jobs))) as pool:
                for part in pool.imap(_play_numbered, jobs):
                    _count(tally, part, games, progress)
        else:
            for job in jobs:
                _count(tally, _play_numbered(job), games, progress)
    finally:
        _SHARED.clear()
    return tally


def _count(tally: Tally, part: Tally, games: int,
           progress: Callable[[int, int], None] | None) -> None:
    """Add a batch's ``part`` to ``tally`` and report the progress."""
    tally.add(part)
    if progress is not None:
        progress(tally.games, games)
