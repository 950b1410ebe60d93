"""More than the mean: the spread of the score still to come, and the chances of two goals.

Optimal play fixes every choice by the expected final score (``dynamic``).
Following those same choices, this module works out, for every state
between turns, three more numbers about the points still to come ``R``:

- ``second``: the mean of ``R`` squared, so that the variance is
  ``second - value**2``;
- ``bonus``: the chance that the card ends with the upper-section bonus;
- ``yahtzee``: the chance that the card ends with 50 in the Yahtzee box.

Each is exact, worked back from the last turn like the values: at a final
roll the chosen box gives its points ``r`` and the next state ``s'``, so
``E[(r + R')**2] = r**2 + 2 r V(s') + second(s')``; a keep's number is the
mean over the missing dice, and a roll's is that of the keep optimal play
takes.  The two chances are means of what the card holds at the end.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from yahtzee.solver import accel
from yahtzee.solver.dynamic import (BATCH, THREADS, Progress, States, TurnValues,
                                    level_states, share_equal_totals, state_index, step,
                                    table_specials, turn_values)
from yahtzee.solver.keeps import (NUM_ROLLS, ROLL_PROBABILITY, ROLL_START, SUB_KEEPS,
                                  FloatArray, IntArray, best_sub_keep, expected_over_keeps)
from yahtzee.solver.model import ScoringModel
from yahtzee.solver.row_file import RowFile
from yahtzee.solver.ties import TIE

QUANTITIES = ("second", "bonus", "yahtzee")
"""The tables of ``Moments``, in the order they are stored."""


@dataclass(frozen=True)
class Moments:
    """Per state between turns (shape ``model.shape``): the second moment and two chances."""

    second: FloatArray
    """The mean of the squared points still to come."""
    bonus: FloatArray
    """The chance that the card ends with the upper-section bonus."""
    yahtzee: FloatArray
    """The chance that the card ends with 50 in the Yahtzee box."""
    shape: Shape | None = None
    """The higher cumulants of the points to come (``solve_shape``), when worked out."""

    def tables(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Return the three tables in ``QUANTITIES`` order."""
        return self.second, self.bonus, self.yahtzee

    def shape_tables(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Return the ``shape``'s tables in ``SHAPE`` order; ``ValueError`` without a shape."""
        if self.shape is None:
            raise ValueError("these moments have no shape worked out")
        return self.shape.tables()


def final_tables(model: ScoringModel) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return the three tables as they stand when no turn is left.

    Nothing is still to come (second moment 0); the bonus is earned when the
    upper total reached the threshold, the Yahtzee box holds 50 when the
    flag state says so.
    """
    second = np.zeros(model.shape)
    bonus = np.zeros(model.shape)
    if model.upper_threshold:
        bonus[:, :, model.upper_threshold] = 1.0
    yahtzee = np.zeros(model.shape)
    if model.flag_category is not None:
        yahtzee[1:] = 1.0
    return second, bonus, yahtzee


_FEW_STATES = 4
"""Up to this many states, ``chosen_keeps`` compares each state's keeps in one gather."""


def chosen_keeps(means: FloatArray) -> IntArray:
    """Return, per roll and state (252, B), the keep optimal play takes from that roll.

    ``means`` (462, B) are the keeps' expected scores; the keep taken is the
    first of the roll's keeps (``SUB_KEEPS`` order) within ``TIE`` of the
    best, as the strategies decide.
    """
    if means.shape[1] <= _FEW_STATES:  # a gather per state: the loop's calls would dominate
        rolls = np.arange(NUM_ROLLS)
        few: IntArray = np.empty((NUM_ROLLS, means.shape[1]), dtype=np.int64)
        for state, column in enumerate(means.T):
            worth = column[SUB_KEEPS]
            first = np.argmax(worth >= worth.max(axis=1, keepdims=True) - TIE, axis=1)
            few[:, state] = SUB_KEEPS[rolls, first]
        return few
    best = best_sub_keep(means)[ROLL_START:] - TIE
    chosen = np.empty((NUM_ROLLS, means.shape[1]), dtype=np.int64)
    for j in range(SUB_KEEPS.shape[1] - 1, -1, -1):
        rows = SUB_KEEPS[:, j]
        np.copyto(chosen, rows[:, None], where=means.take(rows, axis=0) >= best)
    return chosen


@cache
def roll_after_keep() -> FloatArray:
    """Return the chance of each roll after each keep (462, 252): the missing dice thrown."""
    result = expected_over_keeps(np.eye(NUM_ROLLS))
    result.flags.writeable = False
    return result


def final_roll_chances(turn: TurnValues) -> FloatArray:
    """Return the chance of each final roll of a turn (252, B) under optimal play's keeps.

    Worked forward from the first roll: each roll's chance moves to the keep
    optimal play takes from it (``turn``'s values, as ``at_chosen_keeps``),
    and a keep's spreads over the rolls it can become.
    """
    after = roll_after_keep()
    chances = np.repeat(ROLL_PROBABILITY[:, None], turn.keep2.shape[1], axis=1)
    for means in (turn.keep2, turn.keep1):
        moves = after[chosen_keeps(means)]  # (252, B, 252): from roll, state, to roll
        chances = np.einsum("rb,rbs->sb", chances, moves)
    return chances


def at_chosen_keeps(means: FloatArray, numbers: FloatArray) -> FloatArray:
    """Return, per roll, ``numbers`` at the keep optimal play takes from that roll.

    ``means`` (462, B) are the keeps' expected scores, ``numbers`` (462, Q, B)
    what is carried along; the keep taken is the first of the roll's keeps
    (``SUB_KEEPS`` order) within ``TIE`` of the best, as the strategies decide.
    """
    count = means.shape[1]
    chosen = chosen_keeps(means)
    flat = numbers.reshape(len(numbers), -1)
    quantities = numbers.shape[1]
    index = (chosen[:, None, :] * (quantities * count)
             + np.arange(quantities)[None, :, None] * count + np.arange(count)[None, None, :])
    result: FloatArray = flat.ravel().take(index)
    return result


def leaf_points(model: ScoringModel, states: States, choice: npt.NDArray[np.integer[Any]]
                ) -> tuple[IntArray, IntArray, IntArray]:
    """Return, per final roll and state, the chosen slot's box points and bonus points.

    Also returns the slots themselves as an int64 array.
    """
    slots = choice.astype(np.int64)
    n_cat = model.n_categories
    rolls = np.arange(NUM_ROLLS)[:, None]
    box = np.where(slots < n_cat, model.base[rolls, np.minimum(slots, n_cat - 1)], 0)
    bonus = np.zeros_like(box)
    specials = table_specials(model, states)
    if specials is not None:
        rows = np.flatnonzero(specials.varies)
        if len(rows):
            special_slots = slots[specials.rolls[:, None], rows[None, :]]
            picked_box = np.take_along_axis(specials.box_points[rows], special_slots.T[:, :, None],
                                            axis=2)[:, :, 0]
            picked_bonus = np.take_along_axis(specials.bonus_points[rows],
                                              special_slots.T[:, :, None], axis=2)[:, :, 0]
            box[specials.rolls[:, None], rows[None, :]] = picked_box.T
            bonus[specials.rolls[:, None], rows[None, :]] = picked_bonus.T
    return slots, box.astype(np.int64), bonus.astype(np.int64)


@dataclass(frozen=True)
class TurnMoments:
    """Inside a turn, for a batch of B states: the ``QUANTITIES`` at every position.

    Each array has one row per roll or keep and the quantities as its second
    axis; the second moment is that of the points still to come from the
    turn's start (this turn's included).
    """

    leaf: FloatArray
    """(252, 3, B): after the last roll (optimal play scores the best box)."""
    one_left: FloatArray
    """(462, 3, B): each keep with one roll left (a roll's own row: scoring it now)."""
    two_left: FloatArray
    """(462, 3, B): each keep with two rolls left."""
    start: FloatArray
    """(3, B): at the turn's start, before its first roll."""


def leaf_moments(values: FloatArray, tables: Sequence[FloatArray], reward: IntArray,
                 following: IntArray) -> FloatArray:
    """Return the ``QUANTITIES`` after each final roll (R, 3, B), from what scoring it does.

    ``reward`` (R, B) is the points the roll's box earns and ``following``
    (R, B) the flat index of the state it leads to, whose ``values`` and
    ``tables`` give what is still to come: the second moment of the points
    from here (the box's points are certain), the bonus's and the Yahtzee
    box's chances.
    """
    after_value = values.ravel().take(following)
    second_after, bonus_after, yahtzee_after = (t.ravel().take(following) for t in tables)
    return np.stack([reward * reward + 2 * reward * after_value + second_after, bonus_after,
                     yahtzee_after], axis=1)


def turn_moments(model: ScoringModel, values: FloatArray, tables: Sequence[FloatArray],
                 states: States, turn: TurnValues | None = None) -> TurnMoments:
    """Return the ``QUANTITIES`` inside a turn for a batch of states.

    ``tables`` hold the numbers of the states after this turn (already
    worked out); ``turn`` may pass the batch's values inside the turn, with
    the boxes chosen.
    """
    if turn is None or turn.choice is None:
        turn = turn_values(model, values, states, table_specials(model, states),
                           want_choice=True)
    assert turn.choice is not None
    slots, box, bonus = leaf_points(model, states, turn.choice)
    flag, mask, upper = states.flag[None, :], states.mask[None, :], states.upper[None, :]
    flag, mask, upper, reward = step(model, flag, mask, upper, slots, box, bonus)
    leaf = leaf_moments(values, tables, reward, state_index(model, flag, mask, upper))
    count = len(states)
    one_left = expected_over_keeps(leaf.reshape(NUM_ROLLS, -1))
    one_left = one_left.reshape(-1, len(QUANTITIES), count)
    after_second = at_chosen_keeps(turn.keep1, one_left).reshape(NUM_ROLLS, -1)
    two_left = expected_over_keeps(after_second).reshape(-1, len(QUANTITIES), count)
    after_first = at_chosen_keeps(turn.keep2, two_left)
    start = np.tensordot(ROLL_PROBABILITY, after_first, axes=(0, 0))
    return TurnMoments(leaf, one_left, two_left, start)


def solve_moments(model: ScoringModel, values: FloatArray, progress: Progress | None = None,
                  batch: int = BATCH, before_turn: Callable[[int], None] | None = None,
                  with_shape: bool = False) -> Moments:
    """Return the ``Moments`` of every state, from the solved ``values``, last turn first.

    With the compiled kernel, each turn's batches are shared among ``THREADS``
    threads (each writes its own states and reads only later turns').  With
    ``with_shape``, the ``Shape`` is worked out in the same pass (the choices
    made once for both; the numbers are those of ``solve_shape``).
    """
    tables: tuple[FloatArray, ...] = final_tables(model)
    if with_shape:
        tables += (np.zeros(model.shape), np.zeros(model.shape))
    flats = [t.ravel() for t in tables]

    def solve_batch(states: States, start: int) -> None:
        """Work out the batch of ``states`` starting at ``start``."""
        part = states.part(start, start + batch)
        index = state_index(model, part.flag, part.mask, part.upper)
        for flat, row in zip(flats, _start_numbers(model, values, tables, part)):
            flat[index] = row

    threads = min(THREADS, os.cpu_count() or 1) if accel.PLAN is not None else 1
    with ThreadPoolExecutor(threads) as pool:
        for turns in range(model.rounds - 1, -1, -1):
            if before_turn is not None:
                before_turn(turns)
            states = level_states(model, turns)
            for _ in pool.map(partial(solve_batch, states), range(0, len(states), batch)):
                pass
            for table in tables:
                share_equal_totals(model, table, turns)
            if progress is not None:
                progress(model.rounds - turns, model.rounds)
    second, bonus, yahtzee = tables[:3]
    shape = cumulants(values, second, *tables[3:]) if with_shape else None
    return Moments(second, bonus, yahtzee, shape)


def _start_numbers(model: ScoringModel, values: FloatArray, tables: Sequence[FloatArray],
                   part: States) -> FloatArray:
    """Return the numbers of ``tables`` at the turn start of the batch ``part``.

    ``tables`` are the ``QUANTITIES``, then possibly the raw third and fourth
    moments; the compiled kernel works them out where it is at hand.
    """
    flag, mask, upper = part.flag, part.mask, part.upper
    if len(tables) == len(QUANTITIES):
        numbers = accel.moments_start(model, values, tables, flag, mask, upper)
        return numbers if numbers is not None else turn_moments(model, values, tables,
                                                                part).start
    numbers = accel.moments_shape_start(model, values, tables, flag, mask, upper)
    if numbers is not None:
        return numbers
    turn = _turn_choices(model, values, part)
    raw = [values.ravel(), tables[0].ravel(), tables[3].ravel(), tables[4].ravel()]
    return np.concatenate([turn_moments(model, values, tables[:3], part, turn).start,
                           turn_shape(model, raw, part, turn)])


LAST_TURN_POINTS = 256
"""More than the points a single turn can score (the length of a one-turn distribution)."""

LAST_TURN_BATCH = 32
"""States whose last-turn distributions are worked out together."""

LAST_TURN_SUPPORT = 64
"""More than the different numbers of points a single last turn can score (38 at most)."""

TWO_TURN_POINTS = 320
"""More than the points two last turns can score together (the length of a two-turn row).

Every state with two turns left was worked out (``LastTurn(model, values,
turns=2)``, all of ``level_states(model, model.rounds - 2)``): the most
points two turns reach under optimal play is 305 under the official rules
and 200 under the course rules.
"""

TWO_TURN_SUPPORT = 160
"""More than the different numbers of points two last turns can score together.

Measured as ``TWO_TURN_POINTS``: at most 142 under the official rules, 122
under the course rules.
"""


def row_record(width: int, support: int) -> np.dtype[Any]:
    """Return the record of one ``LastTurn`` row: its distribution, ``width`` points long,
    and its at most ``support`` possible scores (the fields are ``LastTurn``'s arrays)."""
    return np.dtype([("pmf", "<f8", (width,)), ("cdf", "<f8", (width,)),
                     ("chances", "<f8", (support,)), ("width", "<i8"), ("size", "<i8"),
                     ("points", "<i2", (support,))], align=True)


def rows_key(model: ScoringModel, values: FloatArray, turns: int) -> str:
    """Return what names the rows of ``model``'s ``values`` with ``turns`` turns: a digest.

    Rows depend on the model and its state values only; the digest is of
    both (the values' bytes, the model's name and shape), so that a table
    built again differently never reads another's rows.
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{model.name}|{model.shape}|{turns}|{values.dtype.str}".encode())
    digest.update(np.ascontiguousarray(values).data)
    return digest.hexdigest()


def rows_file_name(model: ScoringModel, turns: int, key: str) -> str:
    """Return the name of the row file in the cache folder of ``model``'s rows ``key``
    (``rows_key``) with ``turns`` turns."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", model.name).strip("-")
    return f"exact-rows-{name}-{turns}-turns-{key[:16]}.bin"


class LastTurn:
    """The exact distribution of the points to come, for states with one turn left (or two).

    Optimal play's choices are followed.  States whose upper totals play
    alike share a row (see ``dynamic.level_states``); a row is worked out
    the first time one of its states is asked for (a few milliseconds each)
    and then kept.  With ``turns=2`` the states with two turns left have
    rows too: the first turn's ends, each followed by the exact last turn
    from where it leads, so a row is a mixture of shifted one-turn rows.
    Rows are numbered one-turn states first.
    """

    def __init__(self, model: ScoringModel, values: FloatArray, turns: int = 1,
                 folder: Path | None = None) -> None:
        """Prepare the distributions of ``model``'s states, read from its state ``values``.

        ``turns`` (1 or 2): the most turns left of a state with a row.
        With a ``folder`` (the cache folder) the rows are kept in a file
        there (``row_file``), shared with every other process that keeps
        them there and with those to come; without one, or where that file
        cannot be kept, in this process's memory.
        """
        if turns not in (1, 2):
            raise ValueError(f"exact distributions cover one or two turns, not {turns}")
        self.model = model
        self.values = values
        levels = [level_states(model, model.rounds - k) for k in range(1, turns + 1)]
        self.states = States(*(np.concatenate([getattr(level, name) for level in levels])
                               for name in ("flag", "mask", "upper")))
        self.ones = len(levels[0])
        """Rows below this have one turn left; the rest two."""
        count = len(self.states)
        row_table = np.full(model.shape, -1.0)
        row_table.ravel()[state_index(model, self.states.flag, self.states.mask,
                                      self.states.upper)] = np.arange(count)
        for k in range(1, turns + 1):
            share_equal_totals(model, row_table, model.rounds - k)
        self.row_of = row_table.ravel().astype(np.int64)
        """Per flat state index: its row (-1 for a state with more or fewer turns left)."""
        width, support = ((LAST_TURN_POINTS, LAST_TURN_SUPPORT) if turns == 1
                          else (TWO_TURN_POINTS, TWO_TURN_SUPPORT))
        record = row_record(width, support)
        self.file: RowFile | None = None
        """Where the rows are kept for every process (None: in this process's memory)."""
        if folder is not None:
            key = rows_key(model, values, turns)
            self.file = RowFile.open(folder / rows_file_name(model, turns, key), record,
                                     count, key)
        self._use(np.zeros(count, dtype=record) if self.file is None else self.file.records)
        self._solved = np.zeros(count, dtype=np.bool_)
        """Per row: whether this process has it (worked out, or found whole in the file)."""
        self._all_solved = False
        self._lock = threading.RLock()

    def _use(self, records: npt.NDArray[Any]) -> None:
        """Read the rows from ``records`` (in memory, or the file's mapped records)."""
        self._records = records
        self.pmf: FloatArray = records["pmf"]
        """Per row: the chance of each number of points."""
        self.cdf: FloatArray = records["cdf"]
        """Per row: the chance of at most each number of points."""
        self.width: IntArray = records["width"]
        """Per row: one more than the most points its distribution reaches."""
        self.points: npt.NDArray[np.int16] = records["points"]
        """Per row: the numbers of points it can score, lowest first (then padding)."""
        self.chances: FloatArray = records["chances"]
        """Per row: the chance of each of ``points`` (0 for the padding)."""
        self.size: IntArray = records["size"]
        """Per row: how many numbers of points it can score."""

    @property
    def solved(self) -> npt.NDArray[np.bool_]:
        """Per row: whether this process has it (``rows`` works out the others when asked).

        A row is marked only once it is written, so that a reader that finds
        it marked (the kernel's ``seat_chances``) finds it whole.
        """
        return self._solved

    def rows(self, index: IntArray) -> IntArray:
        """Return the rows of the states ``index`` (-1 where a state has no row)."""
        rows: IntArray = self.row_of.take(index)
        if self._all_solved or self._solved.take(rows[rows >= 0]).all():
            return rows  # a row is marked solved only once it is written
        with self._lock:
            found = rows[rows >= 0]
            wanted = np.unique(found[~self._solved.take(found)])
            if self.file is not None:
                whole = self.file.written(wanted)
                self._solved[wanted[whole]] = True
                wanted = wanted[~whole]
            for level in (wanted[wanted < self.ones], wanted[wanted >= self.ones]):
                for start in range(0, len(level), LAST_TURN_BATCH):
                    self._solve(level[start:start + LAST_TURN_BATCH])
            self._all_solved = bool(self._solved.all())
        return rows

    def _solve(self, some: IntArray) -> None:
        """Work out and keep the rows ``some``, all of one level (one turn left, or two)."""
        states = States(self.states.flag[some], self.states.mask[some],
                        self.states.upper[some])
        if some[0] < self.ones:
            pmf = _last_turn_pmf(self.model, self.values, states, self.pmf.shape[1])
        else:
            pmf = self._two_turn_pmf(states)
        made = np.zeros(len(some), dtype=self._records.dtype)
        made["pmf"] = pmf
        made["cdf"] = np.cumsum(pmf, axis=1)
        made["width"] = pmf.shape[1] - np.argmax(pmf[:, ::-1] > 0, axis=1)
        self._compact(made, pmf)
        self._keep(some, made)
        self._solved[some] = True

    def _keep(self, some: IntArray, made: npt.NDArray[Any]) -> None:
        """Keep the records ``made`` as the rows ``some``: in the file, or in memory.

        A file that cannot take them (a full disk, say) is let go: the rows
        this process has are copied to memory, where it keeps them from then on.
        """
        if self.file is not None:
            try:
                self.file.write(some, made)
                return
            except OSError:
                kept = np.zeros(len(self._records), dtype=self._records.dtype)
                kept[self._solved] = self._records[self._solved]
                self.file.close()
                self.file = None
                self._use(kept)
        self._records[some] = made

    def _compact(self, made: npt.NDArray[Any], pmf: FloatArray) -> None:
        """Set the records ``made`` of ``pmf``'s rows: the points they can score, their chances."""
        possible = pmf > 0
        size = possible.sum(axis=1)
        support = made.dtype["points"].shape[0]
        if size.max() > support:
            raise ValueError(f"a turn with {size.max()} possible scores does not fit")
        order = np.argsort(~possible, axis=1, kind="stable")[:, :support]
        made["points"] = order
        made["chances"] = np.take_along_axis(pmf, order, axis=1)
        made["size"] = size

    def _two_turn_pmf(self, states: States) -> FloatArray:
        """Return the distributions (B, width) of the points of a batch's two last turns.

        Each final roll of the first turn, with its chance under optimal
        play (``final_roll_chances``), scores the chosen box's points ``r``
        and leads to a state with one turn left, whose row, shifted by
        ``r``, it adds in.
        """
        model = self.model
        count = len(states)
        turn = _turn_choices(model, self.values.reshape(model.shape), states)
        assert turn.choice is not None
        slots, box, bonus = leaf_points(model, states, turn.choice)
        flag, mask, upper, reward = step(model, states.flag[None, :], states.mask[None, :],
                                         states.upper[None, :], slots, box, bonus)
        after = self.rows(state_index(model, flag, mask, upper))
        if (after < 0).any() or (after >= self.ones).any():
            raise ValueError("a state two turns from the end leads to no last turn")
        following = int(self.width[after].max())
        length = self.pmf.shape[1]
        most = int((reward + self.width[after]).max()) - 1
        if most >= length:
            raise ValueError(f"two turns of {most} points do not fit")
        chances = final_roll_chances(turn)
        stride = length + following  # room for a row's zeros past its own width
        where = (np.arange(count)[None, :, None] * stride + np.asarray(reward)[:, :, None]
                 + np.arange(following)[None, None, :])
        weights = chances[:, :, None] * self.pmf[after, :following]
        spread = np.bincount(where.ravel(), weights.ravel(), minlength=count * stride)
        result: FloatArray = spread.reshape(count, stride)[:, :length].copy()
        return result


def _spread_over_turn(turn: TurnValues, leaf: FloatArray) -> FloatArray:
    """Return the distributions (B, W) at a turn's start from those at its final rolls.

    ``leaf`` (252, W, B) holds each final roll's distribution of points; a
    keep's is the mean over the missing dice, a roll's that of the keep
    optimal play takes (``turn``'s values), the start's the mean over the
    first roll (each state's sum in one order, whatever the batch).
    """
    width, count = leaf.shape[1], leaf.shape[2]
    one_left = expected_over_keeps(leaf.reshape(NUM_ROLLS, -1)).reshape(-1, width, count)
    after_second = at_chosen_keeps(turn.keep1, one_left).reshape(NUM_ROLLS, -1)
    two_left = expected_over_keeps(after_second).reshape(-1, width, count)
    after_first = at_chosen_keeps(turn.keep2, two_left)
    start = np.zeros((width, count))
    for chance, row in zip(ROLL_PROBABILITY, after_first):
        start += chance * row
    result: FloatArray = start.T
    return result


def _last_turn_pmf(model: ScoringModel, values: FloatArray, states: States,
                   length: int = LAST_TURN_POINTS) -> FloatArray:
    """Return the distributions (B, ``length``) of a batch's last-turn points.

    Worked out like ``turn_moments``: a final roll scores the chosen box's
    points for certain; a keep's distribution is the mean over the missing
    dice; a roll's is that of the keep optimal play takes.
    """
    count = len(states)
    turn = turn_values(model, values, states, table_specials(model, states), want_choice=True)
    assert turn.choice is not None
    slots, box, bonus = leaf_points(model, states, turn.choice)
    reward = step(model, states.flag[None, :], states.mask[None, :], states.upper[None, :],
                  slots, box, bonus)[3]
    width = int(reward.max()) + 1
    if width > LAST_TURN_POINTS:
        raise ValueError(f"a turn of {width - 1} points does not fit")
    leaf = np.zeros((NUM_ROLLS, width, count))
    np.put_along_axis(leaf, np.asarray(reward)[:, None, :], 1.0, axis=1)
    result = np.zeros((count, length))
    result[:, :width] = _spread_over_turn(turn, leaf)
    return result


SHAPE = ("third", "fourth")
"""The tables of ``Shape``, in the order they are stored."""


@dataclass(frozen=True)
class Shape:
    """Per state between turns: the third and fourth cumulants of the points still to come.

    With the mean (the state values) and the variance (``Moments``), they
    say how far the distribution of the points to come is from a normal
    one: its skew (a long right tail from Yahtzee bonuses) and how much of
    its spread is in the tails (a turn either makes the bonus or not).
    Stored as 32-bit floats: they only shape a correction.
    """

    third: npt.NDArray[np.float32]
    """The third cumulant (the third central moment), in points cubed."""
    fourth: npt.NDArray[np.float32]
    """The fourth cumulant (the fourth central moment less three variances squared)."""

    def tables(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Return the two tables in ``SHAPE`` order."""
        return self.third, self.fourth


def _turn_choices(model: ScoringModel, values: FloatArray, states: States) -> TurnValues:
    """Return the values inside a turn of a batch of states, the boxes chosen."""
    fast = accel.turn_tables(model, values, states.flag, states.mask, states.upper,
                             want_choice=True)
    if fast is not None:
        return TurnValues(*fast)
    return turn_values(model, values, states, table_specials(model, states), want_choice=True)


def turn_shape(model: ScoringModel, raw: Sequence[FloatArray], states: States,
               turn: TurnValues | None = None) -> FloatArray:
    """Return the third and fourth raw moments of the points to come at a batch's turn start.

    ``raw`` holds the flat tables of the raw moments of the points to come,
    the first (the values) to the fourth, already worked out for the states
    after this turn.  After a final roll that scores ``r`` and leads to
    ``s'``, ``E[(r + R')**k]`` is the binomial sum of ``r**(k - j) E[R'**j]``
    (in Horner's form);
    keeps and rolls follow optimal play as in ``turn_moments`` (``turn`` may
    pass the batch's values inside the turn, with the boxes chosen).  Shape (2, B).
    """
    values = raw[0].reshape(model.shape)
    if turn is None or turn.choice is None:
        turn = _turn_choices(model, values, states)
    assert turn.choice is not None
    slots, box, bonus = leaf_points(model, states, turn.choice)
    flag, mask, upper = states.flag[None, :], states.mask[None, :], states.upper[None, :]
    flag, mask, upper, reward = step(model, flag, mask, upper, slots, box, bonus)
    following = state_index(model, flag, mask, upper)
    m1, m2, m3, m4 = (t.take(following) for t in raw)
    r = reward.astype(np.float64)
    count = len(states)
    leaf = np.empty((NUM_ROLLS, 2, count))
    leaf[:, 0] = m3 + r * (3 * m2 + r * (3 * m1 + r))
    leaf[:, 1] = m4 + r * (4 * m3 + r * (6 * m2 + r * (4 * m1 + r)))
    orders = 2
    one_left = expected_over_keeps(leaf.reshape(NUM_ROLLS, -1)).reshape(-1, orders, count)
    after_second = at_chosen_keeps(turn.keep1, one_left).reshape(NUM_ROLLS, -1)
    two_left = expected_over_keeps(after_second).reshape(-1, orders, count)
    after_first = at_chosen_keeps(turn.keep2, two_left)
    result: FloatArray = np.tensordot(ROLL_PROBABILITY, after_first, axes=(0, 0))
    return result


def raw_shape(model: ScoringModel, values: FloatArray, second: FloatArray,
              progress: Progress | None = None,
              batch: int = BATCH) -> tuple[FloatArray, FloatArray]:
    """Return the raw third and fourth moments of the points to come from every state.

    Worked back from the last turn like ``solve_moments``: each turn's
    batches are shared among ``THREADS`` threads, in the compiled kernel
    where it is at hand (``accel.shape_start``), else with ``turn_shape``;
    both follow the same choices and sum alike, to rounding in the last bits.
    """
    mean, square = values.ravel(), second.ravel()
    third, fourth = np.zeros(model.shape), np.zeros(model.shape)
    raw = [mean, square, third.ravel(), fourth.ravel()]

    def solve_batch(states: States, start: int) -> None:
        """Work out the batch of ``states`` starting at ``start``."""
        part = states.part(start, start + batch)
        index = state_index(model, part.flag, part.mask, part.upper)
        numbers = accel.shape_start(model, values, raw[1:], part.flag, part.mask, part.upper)
        if numbers is None:
            numbers = turn_shape(model, raw, part)
        raw[2][index], raw[3][index] = numbers

    with ThreadPoolExecutor(min(THREADS, os.cpu_count() or 1)) as pool:
        for turns in range(model.rounds - 1, -1, -1):
            states = level_states(model, turns)
            for _ in pool.map(partial(solve_batch, states), range(0, len(states), batch)):
                pass
            share_equal_totals(model, third, turns)
            share_equal_totals(model, fourth, turns)
            if progress is not None:
                progress(model.rounds - turns, model.rounds)
    return third, fourth


def solve_shape(model: ScoringModel, values: FloatArray, second: FloatArray,
                progress: Progress | None = None, batch: int = BATCH) -> Shape:
    """Return the ``Shape`` of every state, from the values and second moments, last turn first.

    For a table of moments already at hand: ``solve_moments`` works out both
    in one pass.
    """
    return cumulants(values, second, *raw_shape(model, values, second, progress, batch))


def cumulants(values: FloatArray, second: FloatArray, third: FloatArray,
              fourth: FloatArray) -> Shape:
    """Return the ``Shape`` whose raw moments of the points to come are the four tables."""
    variance = np.maximum(second - values * values, 0.0)
    central3 = third - 3 * values * second + 2 * values ** 3
    central4 = fourth - 4 * values * third + 6 * values ** 2 * second - 3 * values ** 4
    return Shape(central3.astype(np.float32), (central4 - 3 * variance ** 2).astype(np.float32))
