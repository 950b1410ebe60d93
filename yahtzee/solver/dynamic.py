"""The exact dynamic program: state values between turns and the values inside a turn.

``solve`` fills the table of state values (expected points still to come
under optimal play) from the last turn back to the first, each turn's
states in large numpy batches.  Inside a turn everything is exact: the
value of a final roll is the best choice's points plus the value of the
state it leads to; a keep's value is the mean over the missing dice, a
roll's value the best of its keeps.  ``step`` is the one place where a
choice turns into points and a next state.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from yahtzee.solver import accel
from yahtzee.solver.keeps import (NUM_ROLLS, ROLL_PROBABILITY, ROLL_START, SUB_KEEPS,
                                  FloatArray, IntArray, best_sub_keep, expected_over_keeps)
from yahtzee.solver.model import BoolArray, ScoringModel, ShortArray
from yahtzee.solver.ties import TIE

_SUB_KEEPS_T = np.ascontiguousarray(SUB_KEEPS.T)
"""``SUB_KEEPS`` with one row per position: (32, 252)."""

Progress = Callable[[int, int], None]
"""Called with (turns done, turns in all) while a table is built."""

BATCH = 512
"""States evaluated together; large enough to amortize numpy calls, small enough for caches."""

THREADS = 2
"""Threads that solve a turn's batches together (at most the processor count)."""


def first_best(values: FloatArray, axis: int) -> IntArray:
    """Return, along ``axis``, the position of the first value within ``TIE`` of the largest."""
    top = values.max(axis=axis, keepdims=True)
    if axis == 0:
        positions = np.arange(len(values)).reshape((-1,) + (1,) * (values.ndim - 1))
        first: IntArray = np.where(values >= top - TIE, positions, len(values)).min(axis=0)
        return first
    result: IntArray = np.argmax(values >= top - TIE, axis=axis)
    return result


@dataclass(frozen=True)
class States:
    """A batch of states between turns, as parallel integer arrays."""

    flag: IntArray
    mask: IntArray
    upper: IntArray

    def __len__(self) -> int:
        """Return the number of states."""
        return len(self.mask)

    def part(self, lo: int, hi: int) -> States:
        """Return the states ``lo`` to ``hi - 1``."""
        return States(self.flag[lo:hi], self.mask[lo:hi], self.upper[lo:hi])


@dataclass(frozen=True)
class SpecialChoices:
    """Per state of a batch, the choices of the model's special rolls."""

    allowed: BoolArray
    """Shape (B, S, slots)."""
    box_points: ShortArray
    """Shape (B, S, slots)."""
    bonus_points: ShortArray
    """Shape (B, S, slots)."""
    varies: BoolArray
    """Shape (B,): whether these choices differ from the open boxes at their own points."""
    rolls: IntArray
    """Shape (S,): the roll numbers concerned."""


def state_index(model: ScoringModel, flag: IntArray, mask: IntArray,
                upper: IntArray) -> IntArray:
    """Return the flat value-table positions of states."""
    return (flag * model.n_masks + mask) * model.n_upper + upper


def flat_index(model: ScoringModel, flag: int, mask: int, upper: int) -> int:
    """Return ``state_index`` of one state in plain integers (no numpy call for one number)."""
    return int((flag * model.n_masks + mask) * model.n_upper + upper)


def step(model: ScoringModel, flag: IntArray, mask: IntArray, upper: IntArray,
         slot: IntArray | int, box_points: npt.NDArray[np.integer[Any]] | int,
         bonus_points: npt.NDArray[np.integer[Any]] | int
         ) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Return (flag, mask, upper, reward) after a choice; all arguments broadcast.

    The reward is the box points, the bonus points and the upper bonus if
    this choice makes the upper total reach the threshold.
    """
    slot_a = np.asarray(slot, dtype=np.int64)
    box = np.asarray(box_points, dtype=np.int64)
    bonus = np.asarray(bonus_points, dtype=np.int64)
    n_cat = model.n_categories
    fills = slot_a < n_cat
    new_mask = mask | np.where(fills, np.left_shift(1, np.minimum(slot_a, n_cat - 1)), 0)
    reward = box + bonus
    new_upper = upper
    if model.upper_threshold:
        upper_slots = np.array(model.upper + (False,), dtype=np.bool_)
        gain = np.where(upper_slots[slot_a], box, 0)
        new_upper = np.minimum(model.upper_threshold, upper + gain)
        crossed = (upper < model.upper_threshold) & (new_upper >= model.upper_threshold)
        reward = reward + np.where(crossed, model.upper_bonus, 0)
    new_flag = flag
    if model.flag_category is not None:
        new_flag = np.where(slot_a == model.flag_category, (box > 0).astype(np.int64), flag)
        if model.bonus_levels > 1:
            new_flag = np.where(bonus > 0, new_flag + 1, new_flag)
    shape = np.broadcast_shapes(np.shape(flag), np.shape(mask), np.shape(upper),
                                slot_a.shape, box.shape, bonus.shape)
    return (np.broadcast_to(new_flag, shape), np.broadcast_to(new_mask, shape),
            np.broadcast_to(new_upper, shape), np.broadcast_to(reward, shape))


def step_one(model: ScoringModel, flag: int, mask: int, upper: int, slot: int, box_points: int,
             bonus_points: int) -> tuple[int, int, int, int]:
    """Return ``step`` of one state and one choice in plain integers (a decision's few choices)."""
    n_cat = model.n_categories
    new_mask = mask | (1 << slot) if slot < n_cat else mask
    reward = box_points + bonus_points
    new_upper = upper
    if model.upper_threshold:
        if slot < n_cat and model.upper[slot]:
            new_upper = min(model.upper_threshold, upper + box_points)
        if upper < model.upper_threshold <= new_upper:
            reward += model.upper_bonus
    new_flag = flag
    if model.flag_category is not None:
        if slot == model.flag_category:
            new_flag = int(box_points > 0)
        if model.bonus_levels > 1 and bonus_points > 0:
            new_flag += 1
    return new_flag, new_mask, new_upper, reward


def choice_value(model: ScoringModel, values: FloatArray, flag: IntArray, mask: IntArray,
                 upper: IntArray, slot: IntArray | int,
                 box_points: npt.NDArray[np.integer[Any]] | int,
                 bonus_points: npt.NDArray[np.integer[Any]] | int) -> FloatArray:
    """Return the reward of a choice plus the value of the state it leads to."""
    new_flag, new_mask, new_upper, reward = step(model, flag, mask, upper, slot, box_points,
                                                 bonus_points)
    following = values.ravel().take(state_index(model, new_flag, new_mask, new_upper))
    result: FloatArray = reward + following
    return result


def table_specials(model: ScoringModel, states: States) -> SpecialChoices | None:
    """Return the special-roll choices of a batch, read from the model's tables."""
    if model.special is None:
        return None
    sp = model.special
    return SpecialChoices(sp.allowed[states.flag, states.mask],
                          sp.box_points[states.flag, states.mask],
                          sp.bonus_points[states.flag, states.mask],
                          sp.varies[states.flag, states.mask], sp.rolls)


def _box_table(model: ScoringModel, flat: FloatArray, states: States, c: int) -> FloatArray:
    """Return, per distinct points of box ``c`` and state, those points plus what follows.

    The result has shape (levels of ``c``, B): the points, the upper bonus
    they earn, and the value of the state that scoring them in ``c`` leads to.
    """
    flag, mask, upper = states.flag, states.mask, states.upper
    levels = model.point_levels[c]
    n_upper = model.n_upper
    new_mask = mask | (1 << c)
    is_upper = model.upper[c] and bool(model.upper_threshold)
    if c == model.flag_category and not is_upper:
        new_flag = (levels > 0).astype(np.int64)[:, None]
        index = (new_flag * model.n_masks + new_mask[None, :]) * n_upper + upper[None, :]
        table: FloatArray = flat.take(index)
        table += levels[:, None]
        return table
    if c == model.flag_category:
        result: FloatArray = choice_value(model, flat.reshape(model.shape), flag[None],
                                          mask[None], upper[None], c, levels[:, None], 0)
        return result.astype(np.float64)
    row = (flag * model.n_masks + new_mask) * n_upper
    if not is_upper:
        return np.add(levels[:, None], flat.take(row + upper)[None, :], dtype=np.float64)
    cap = model.upper_threshold
    raw = upper[None, :] + levels[:, None]
    reward = raw - upper[None, :] + ((raw >= cap) & (upper < cap)[None, :]) * model.upper_bonus
    table = flat.take(row[None, :] + np.minimum(raw, cap))
    table += reward
    return table


def leaf_values(model: ScoringModel, values: FloatArray, states: States,
                specials: SpecialChoices | None,
                want_choice: bool = False) -> tuple[FloatArray, npt.NDArray[np.int8] | None]:
    """Return the value of scoring each final roll (252, B), and optionally the best slot.

    Ties go to the lowest slot.
    """
    flag, mask, upper = states.flag, states.mask, states.upper
    count = len(states)
    best = np.empty((NUM_ROLLS, count))
    choice = np.zeros((NUM_ROLLS, count), dtype=np.int8) if want_choice else None
    scratch = np.empty((NUM_ROLLS, count))
    flat = values.ravel()
    first = True
    for c in range(model.n_categories):
        open_box = (mask >> c) & 1 == 0
        if not open_box.any():
            continue
        table = _box_table(model, flat, states, c)
        if not open_box.all():
            table[:, ~open_box] = -np.inf
        if first:
            table.take(model.level_of_roll[c], axis=0, out=best, mode="clip")
            if choice is not None:
                choice[...] = c
            first = False
            continue
        table.take(model.level_of_roll[c], axis=0, out=scratch, mode="clip")
        if choice is None:
            np.maximum(best, scratch, out=best)
        else:
            better = scratch > best + TIE
            np.maximum(best, scratch, out=best)
            choice[better] = c
    if first:
        best.fill(-np.inf)
    if specials is not None:
        rows = np.flatnonzero(specials.varies)
        if len(rows):
            slots = np.arange(model.n_slots)[None, None, :]
            vals = choice_value(model, values, flag[rows, None, None], mask[rows, None, None],
                                upper[rows, None, None], slots, specials.box_points[rows],
                                specials.bonus_points[rows])
            vals = np.where(specials.allowed[rows], vals, -np.inf)
            pick = first_best(vals, axis=2)
            top = vals.max(axis=2)
            rolls = specials.rolls[:, None]
            best[rolls, rows[None, :]] = top.T
            if choice is not None:
                choice[rolls, rows[None, :]] = pick.T.astype(np.int8)
    return best, choice


def scoring_choices(model: ScoringModel, values: FloatArray, states: States,
                    rolls: IntArray) -> IntArray:
    """Return the slot where each state scores its roll: the choice ``leaf_values`` makes.

    ``states`` and ``rolls`` are parallel (one final roll per state).
    """
    return first_best(scoring_worth(model, values, states, rolls), axis=1)


def scoring_worth(model: ScoringModel, values: FloatArray, states: States,
                  rolls: IntArray) -> FloatArray:
    """Return, per state and slot, what scoring its roll there brings plus the points to come.

    The result has shape (B, slots); a slot the rules do not offer is ``-inf``.
    ``states`` and ``rolls`` are parallel (one final roll per state).
    """
    flat = values.reshape(-1)
    count = len(states)
    rows = np.arange(count)
    worth = np.full((count, model.n_slots), -np.inf)
    for c in range(model.n_categories):
        open_box = (states.mask >> c) & 1 == 0
        if open_box.any():
            table = _box_table(model, flat, states, c)
            worth[:, c] = np.where(open_box, table[model.level_of_roll[c][rolls], rows], -np.inf)
    special = model.special
    if special is not None:
        position = np.full(NUM_ROLLS, -1, dtype=np.int64)
        position[special.rolls] = np.arange(len(special.rolls))
        which = position[rolls]
        hit = np.flatnonzero((which >= 0) & special.varies[states.flag, states.mask])
        if len(hit):
            f, m, s = states.flag[hit], states.mask[hit], which[hit]
            vals = choice_value(model, values, f[:, None], m[:, None], states.upper[hit, None],
                                np.arange(model.n_slots)[None, :], special.box_points[f, m, s],
                                special.bonus_points[f, m, s])
            worth[hit] = np.where(special.allowed[f, m, s], vals, -np.inf)
    return worth


@dataclass(frozen=True)
class TurnValues:
    """A batch's values inside a turn: leaves and keeps with one and two rolls left."""

    leaf: FloatArray
    """(252, B): the value of scoring each roll now."""
    keep1: FloatArray
    """(462, B): each keep's value with one roll left."""
    keep2: FloatArray
    """(462, B): each keep's value with two rolls left."""
    choice: npt.NDArray[np.int8] | None
    """(252, B): the slot chosen when scoring each roll, if asked for."""


def turn_values(model: ScoringModel, values: FloatArray, states: States,
                specials: SpecialChoices | None, want_choice: bool = False) -> TurnValues:
    """Return the values inside a turn for a batch of states.

    ``specials`` must be the model's own (``table_specials``): the compiled
    kernel, where it is used, reads them from the model.
    """
    if not want_choice:
        fast = accel.turn_tables(model, values, states.flag, states.mask, states.upper)
        if fast is not None:
            return TurnValues(*fast)
    leaf, choice = leaf_values(model, values, states, specials, want_choice)
    keep1 = expected_over_keeps(leaf)
    after_second = best_sub_keep(keep1)[ROLL_START:]
    keep2 = expected_over_keeps(after_second)
    return TurnValues(leaf, keep1, keep2, choice)


def single_turn_values(model: ScoringModel, values: FloatArray, flag: int, mask: int,
                       upper: int, specials: SpecialChoices | None) -> TurnValues:
    """Return the values inside a turn for one state (the same numbers as ``turn_values``).

    With one state the work is arranged in a few whole-array steps: every
    box's distinct points at once for the leaves, and each roll's keeps
    gathered at once for the best keep.  ``specials`` are the state's choices
    of the special rolls, read from the model's tables if it has them.
    """
    given = None
    if model.special is None and specials is not None and bool(specials.varies[0]):
        given = (specials.rolls, specials.allowed[0], specials.box_points[0],
                 specials.bonus_points[0])
    fast = accel.one_turn(model, values, flag, mask, upper, given)
    if fast is not None:
        return TurnValues(*fast)
    slots, points, entry = model.leaf_plan
    flat = values.reshape(-1)
    worth = _one_state_values(model, flat, flag, mask, upper, slots, points, 0)
    worth[(mask >> slots) & 1 == 1] = -np.inf
    table = worth.take(model.leaf_plan_by_box)
    leaf = table.max(axis=0)
    choice = first_best(table, axis=0)
    if specials is not None and bool(specials.varies[0]):
        slot_ids = np.arange(model.n_slots)[None, :]
        special = _one_state_values(model, flat, flag, mask, upper, slot_ids,
                                    specials.box_points[0], specials.bonus_points[0])
        special[~specials.allowed[0]] = -np.inf
        leaf[specials.rolls] = special.max(axis=1)
        choice[specials.rolls] = first_best(special, axis=1)
    keep1 = np.concatenate((_KEEP_OF_ROLL @ leaf, leaf))
    after_second = keep1.take(_SUB_KEEPS_T).max(axis=0)
    keep2 = np.concatenate((_KEEP_OF_ROLL @ after_second, after_second))
    return TurnValues(leaf[:, None], keep1[:, None], keep2[:, None],
                      choice.astype(np.int8)[:, None])


def _one_state_values(model: ScoringModel, flat: FloatArray, flag: int, mask: int, upper: int,
                      slots: IntArray, box_points: npt.NDArray[np.integer[Any]] | int,
                      bonus_points: npt.NDArray[np.integer[Any]] | int) -> FloatArray:
    """Return ``choice_value`` of one state for arrays of choices, in fewer whole-array steps."""
    n_cat = model.n_categories
    box = np.asarray(box_points, dtype=np.int64)
    new_mask = np.where(slots < n_cat, mask | (1 << np.minimum(slots, n_cat - 1)), mask)
    reward = box + bonus_points
    new_upper: IntArray | int = upper
    if model.upper_threshold:
        cap = model.upper_threshold
        new_upper = np.minimum(cap, upper + box * model.upper_slots[slots])
        if upper < cap:
            reward = reward + (new_upper >= cap) * model.upper_bonus
    new_flag: IntArray | int = flag
    if model.flag_category is not None:
        new_flag = np.where(slots == model.flag_category, box > 0, flag)
        if model.bonus_levels > 1:
            new_flag = new_flag + (np.asarray(bonus_points) > 0)
    index = np.asarray((new_flag * model.n_masks + new_mask) * model.n_upper + new_upper,
                       dtype=np.int64)
    result: FloatArray = reward + flat.take(index)
    return result


def _keep_of_roll() -> FloatArray:
    """Return the (210, 252) chances that each keep under five dice ends as each roll."""
    chances: FloatArray = expected_over_keeps(np.eye(NUM_ROLLS))[:ROLL_START]
    return np.ascontiguousarray(chances)


_KEEP_OF_ROLL = _keep_of_roll()


def start_values(model: ScoringModel, values: FloatArray, states: States,
                 specials: SpecialChoices | None) -> FloatArray:
    """Return the expected points to come of states at the start of a turn."""
    turn = turn_values(model, values, states, specials)
    after_first = best_sub_keep(turn.keep2)[ROLL_START:]
    result: FloatArray = ROLL_PROBABILITY @ after_first
    return result


def level_states(model: ScoringModel, turns: int) -> States:
    """Return the states to solve among those that have used ``turns`` turns.

    Upper totals that play alike are represented by one of them (see
    ``ScoringModel.upper_sources``); ``share_equal_totals`` copies the rest.
    """
    masks = np.arange(model.n_masks, dtype=np.int64)
    filled = _filled_counts(model)
    reach = model.live_upper
    subs = sorted(reach)
    lookup = np.zeros(model.upper_bits + 1, dtype=np.int64)
    lookup[subs] = np.arange(len(subs))
    sizes = np.array([len(reach[s]) for s in subs], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    flat_reach = np.array([u for s in subs for u in reach[s]], dtype=np.int64)
    flags: list[IntArray] = []
    chosen: list[IntArray] = []
    uppers: list[IntArray] = []
    for flag in range(model.n_flag_states):
        picked = masks[_level_masks(model, filled, flag, turns)]
        which = lookup[picked & model.upper_bits]
        counts = sizes[which]
        total = int(counts.sum())
        offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        uppers.append(flat_reach[np.repeat(starts[which], counts) + offsets])
        chosen.append(np.repeat(picked, counts))
        flags.append(np.full(total, flag, dtype=np.int64))
    return States(np.concatenate(flags), np.concatenate(chosen), np.concatenate(uppers))


def _filled_counts(model: ScoringModel) -> IntArray:
    """Return the number of filled boxes of every mask."""
    masks = np.arange(model.n_masks, dtype=np.int64)
    filled = np.zeros(model.n_masks, dtype=np.int64)
    for c in range(model.n_categories):
        filled += (masks >> c) & 1
    return filled


def _level_masks(model: ScoringModel, filled: IntArray, flag: int,
                 turns: int) -> npt.NDArray[np.bool_]:
    """Return which masks, with this flag state, have used ``turns`` turns."""
    extra = model.bonus_taken(flag) if model.bonus_uses_turn else 0
    ok = filled == turns - extra
    if flag and model.flag_category is not None:
        ok &= (np.arange(model.n_masks) >> model.flag_category) & 1 == 1
    result: npt.NDArray[np.bool_] = ok
    return result


def share_equal_totals(model: ScoringModel, values: FloatArray, turns: int) -> None:
    """Copy each solved state of a turn to the upper totals it stands for."""
    if not model.upper_threshold:
        return
    sources = np.tile(np.arange(model.n_upper), (model.upper_bits + 1, 1))
    for sub, row in model.upper_sources.items():
        sources[sub] = row
    filled = _filled_counts(model)
    for flag in range(model.n_flag_states):
        masks = np.flatnonzero(_level_masks(model, filled, flag, turns))
        block = values[flag, masks]
        values[flag, masks] = np.take_along_axis(block, sources[masks & model.upper_bits],
                                                 axis=1)


def _keep_freed_memory() -> None:
    """Ask glibc to serve large arrays from its heap and keep freed pages.

    The build allocates and frees the same few large arrays for every batch;
    reusing pages saves the cost of mapping fresh zeroed ones each time.
    Elsewhere (no glibc) this does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mmap_threshold, trim_threshold = -3, -1
    mallopt(mmap_threshold, 32 * 1024 * 1024)
    mallopt(trim_threshold, 256 * 1024 * 1024)


def _solve_states(model: ScoringModel, values: FloatArray, states: States, batch: int,
                  pool: ThreadPoolExecutor | None) -> None:
    """Solve ``states`` (all of one turn) in batches, writing their values into ``values``.

    With a ``pool`` the batches are shared among its threads: each reads only
    later turns' values and writes its own states, and numpy's array work
    runs without the interpreter lock.
    """
    flat = values.reshape(-1)

    def solve_batch(start: int) -> None:
        """Solve the batch of states starting at ``start``."""
        part = states.part(start, start + batch)
        index = state_index(model, part.flag, part.mask, part.upper)
        fast = accel.start_values(model, values, part.flag, part.mask, part.upper)
        flat[index] = fast if fast is not None else start_values(
            model, values, part, table_specials(model, part))

    starts = range(0, len(states), batch)
    if pool is None:
        for start in starts:
            solve_batch(start)
    else:
        for _ in pool.map(solve_batch, starts):
            pass


def solve(model: ScoringModel, progress: Progress | None = None, batch: int = BATCH,
          before_turn: Callable[[int], None] | None = None) -> FloatArray:
    """Return the table of state values (shape ``model.shape``), built from the last turn back.

    Each turn's states are solved in batches of ``batch``; ``before_turn``, if
    given, is called with the number of turns used before those states are solved.
    """
    _keep_freed_memory()
    values = np.zeros(model.shape, dtype=np.float64)
    threads = min(THREADS, os.cpu_count() or 1)
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    try:
        for turns in range(model.rounds - 1, -1, -1):
            states = level_states(model, turns)
            if before_turn is not None:
                before_turn(turns)
            _solve_states(model, values, states, batch, pool)
            share_equal_totals(model, values, turns)
            if progress is not None:
                progress(model.rounds - turns, model.rounds)
    finally:
        if pool is not None:
            pool.shutdown()
    return values


def start_state_value(model: ScoringModel, values: FloatArray) -> float:
    """Return the expected total of a whole game from an empty card."""
    return float(values[0, 0, 0])
