"""The optional compiled kernel (``_kernel.c``), seen as numpy arrays in and out.

The kernel works out the values inside a turn state by state in C: the
dynamic program's inner work, done in ``yahtzee.solver.dynamic`` with numpy
otherwise; and the outlook's chance to finish first player by player
(``win_chances``, ``yahtzee.solver.outlook``'s numpy otherwise).
``pip install`` compiles it where a C compiler is at hand; if it is
missing, or the environment variable ``YAHTZEE_PURE_NUMPY`` is set (to
anything but 0), ``PLAN`` is None and every function here returns None:
the caller then uses numpy.  Both give the same values, to rounding in the
last bits (the order of a few sums differs; the chances' exponential is
the C library's), and the same choices.

The kernel reads a model's constants from a ``Plan`` made once per model;
a turn's special choices come from the model's tables unless given.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from yahtzee.solver.keeps import (CHILDREN, MAX_SUB_KEEPS, NUM_KEEPS, NUM_ROLLS, PARENT_GROUPS,
                                  ROLL_PROBABILITY, ROLL_START, SUB_KEEP_COUNT, SUB_KEEPS,
                                  FloatArray, IntArray)
from yahtzee.solver.model import ScoringModel

if TYPE_CHECKING:
    from yahtzee.solver import _kernel

PURE_NUMPY = "YAHTZEE_PURE_NUMPY"
"""The environment variable that, set to anything but 0, leaves the kernel out."""

TurnArrays = tuple[FloatArray, FloatArray, FloatArray, "npt.NDArray[np.int8] | None"]
"""Leaf (252, B), keep1 (462, B), keep2 (462, B) and, if asked for, choice (252, B)."""
_ONE_TURN = 2 * NUM_KEEPS
"""One state's keep1 and keep2 tables, end to end (the leaves are keep1's rolls' rows)."""


def _parents() -> IntArray:
    """Return each keep's parents (one die fewer), padded with -1 to five."""
    table = np.full((NUM_KEEPS, 5), -1, dtype=np.int64)
    for lo, hi, parents in PARENT_GROUPS:
        table[lo:hi, :parents.shape[1]] = parents
    return table


def _sub_keeps() -> IntArray:
    """Return each roll's distinct keeps in tie-breaking order, padded with -1."""
    padding = np.arange(MAX_SUB_KEEPS)[None, :] >= SUB_KEEP_COUNT[:, None]
    return np.where(padding, -1, SUB_KEEPS).astype(np.int64)


def _load() -> ModuleType | None:
    """Return the kernel's module, its keep tables set; None without the kernel."""
    if os.environ.get(PURE_NUMPY, "") not in ("", "0"):
        return None
    try:
        from yahtzee.solver import _kernel
    except ImportError:
        return None
    _kernel.set_keeps(np.ascontiguousarray(CHILDREN, dtype=np.int64), _parents(),
                      np.ascontiguousarray(ROLL_PROBABILITY), _sub_keeps())
    return _kernel


_KERNEL = _load()
PLAN: type[_kernel.Plan] | None = None if _KERNEL is None else _KERNEL.Plan
"""The kernel's ``Plan`` type, or None: numpy alone (tests set it to None for numpy)."""
_BEST_KEEP: Callable[[FloatArray, FloatArray, int], int] | None = (
    None if _KERNEL is None else _KERNEL.best_keep)
_BEST_KEEPS: Callable[[FloatArray, FloatArray, IntArray, IntArray, IntArray], None] | None = (
    None if _KERNEL is None else _KERNEL.best_keeps)
_TURN_ENDS: Callable[[FloatArray, FloatArray, FloatArray, FloatArray], None] | None = (
    None if _KERNEL is None else getattr(_KERNEL, "turn_ends", None))
"""The kernel's ``turn_ends`` (None without the kernel, or with one built before it)."""
_TURN_KEEPS: Callable[[FloatArray, FloatArray, FloatArray], None] | None = (
    None if _KERNEL is None else getattr(_KERNEL, "turn_keeps", None))
"""The kernel's ``turn_keeps`` (None without the kernel, or with one built before it)."""
_WIN_CHANCES: Callable[..., None] | None = (
    None if _KERNEL is None else getattr(_KERNEL, "win_chances", None))
"""The kernel's ``win_chances`` (None without the kernel, or with one built before it)."""
_SEAT_CHANCES: Callable[..., bool] | None = (
    None if _KERNEL is None else getattr(_KERNEL, "seat_chances", None))
"""The kernel's ``seat_chances`` (None without the kernel, or with one built before it)."""
MOST_OTHERS = 8
"""The most opponents ``win_chances`` takes at once (the kernel's ``MAX_OTHERS``)."""

_PLANS: dict[int, _kernel.Plan] = {}


def plan_of(model: ScoringModel) -> _kernel.Plan:
    """Return the kernel's plan of ``model`` (made once, dropped with the model)."""
    key = id(model)
    plan = _PLANS.get(key)
    if plan is None:
        assert PLAN is not None
        plan = _make_plan(PLAN, model)
        _PLANS[key] = plan
        weakref.finalize(model, _PLANS.pop, key, None)
    return plan


def _make_plan(kind: type[_kernel.Plan], model: ScoringModel) -> _kernel.Plan:
    """Return a new plan of ``model``: its sizes, box entries and special tables."""
    slots, points, _ = model.leaf_plan
    sizes = np.array([model.n_categories, model.n_flag_states, model.n_masks, model.n_upper,
                      model.upper_threshold, model.upper_bonus,
                      -1 if model.flag_category is None else model.flag_category,
                      model.bonus_levels], dtype=np.int64)
    special = model.special
    if special is None:
        rolls = np.zeros(0, dtype=np.int64)
        allowed = varies = np.zeros(0, dtype=np.bool_)
        box = bonus = np.zeros(0, dtype=np.int16)
    else:
        rolls = np.ascontiguousarray(special.rolls, dtype=np.int64)
        allowed, box, bonus, varies = (special.allowed, special.box_points,
                                       special.bonus_points, special.varies)
    return kind(sizes, np.array(model.upper, dtype=np.int64),
                np.ascontiguousarray(slots, dtype=np.int64),
                np.ascontiguousarray(points, dtype=np.int64),
                np.ascontiguousarray(model.leaf_plan_by_box, dtype=np.int64),
                rolls, allowed, box, bonus, varies,
                np.ascontiguousarray(model.base, dtype=np.int64))


def _int64(array: IntArray) -> IntArray:
    """Return ``array`` as contiguous int64 (itself when it already is)."""
    return np.ascontiguousarray(array, dtype=np.int64)


def start_values(model: ScoringModel, values: FloatArray, flag: IntArray, mask: IntArray,
                 upper: IntArray) -> FloatArray | None:
    """Return the expected points to come of states at a turn's start; None without the kernel.

    The special choices come from the model's tables.
    """
    if PLAN is None:
        return None
    out = np.empty(len(mask))
    plan_of(model).start(values, _int64(flag), _int64(mask), _int64(upper), out)
    return out


def moments_start(model: ScoringModel, values: FloatArray, tables: Sequence[FloatArray],
                  flag: IntArray, mask: IntArray, upper: IntArray) -> FloatArray | None:
    """Return the moments of states at a turn's start, (3, B); None without the kernel.

    ``tables`` are the second moment and the two chances of every state
    (``moments.QUANTITIES``), already worked out for the states after this
    turn; the choices are optimal play's, as ``moments.turn_moments`` takes them.
    """
    if PLAN is None:
        return None
    out = np.empty((3, len(mask)))
    second, bonus, yahtzee = tables
    plan_of(model).moments(values, second, bonus, yahtzee, _int64(flag), _int64(mask),
                           _int64(upper), out)
    return out


def shape_start(model: ScoringModel, values: FloatArray, raw: Sequence[FloatArray],
                flag: IntArray, mask: IntArray, upper: IntArray) -> FloatArray | None:
    """Return the third and fourth raw moments at states' turn start, (2, B); None without it.

    ``raw`` are the second, third and fourth raw moments of the points to
    come of every state, already worked out for the states after this turn;
    the choices and the sums are those of ``moments.turn_shape``.
    """
    if PLAN is None:
        return None
    out = np.empty((2, len(mask)))
    second, third, fourth = raw
    plan_of(model).shape(values, second, third, fourth, _int64(flag), _int64(mask),
                         _int64(upper), out)
    return out


def moments_shape_start(model: ScoringModel, values: FloatArray, tables: Sequence[FloatArray],
                        flag: IntArray, mask: IntArray, upper: IntArray) -> FloatArray | None:
    """Return ``moments_start`` and ``shape_start`` in one pass, (5, B); None without the kernel.

    ``tables`` are the second moment, the two chances and the raw third and
    fourth moments of every state, worked out for the states after this turn;
    the rows are second, bonus, yahtzee, third, fourth, as the two functions
    give them (the same numbers: the choices are made once for both).
    """
    if PLAN is None:
        return None
    out = np.empty((5, len(mask)))
    second, bonus, yahtzee, third, fourth = tables
    plan_of(model).moments_shape(values, second, bonus, yahtzee, third, fourth, _int64(flag),
                                 _int64(mask), _int64(upper), out)
    return out


def turn_tables(model: ScoringModel, values: FloatArray, flag: IntArray, mask: IntArray,
                upper: IntArray, want_choice: bool = False) -> TurnArrays | None:
    """Return the values inside a turn of states (and the choices); None without the kernel.

    The special choices come from the model's tables; a choice is the first
    box within ``TIE`` of the best one.
    """
    if PLAN is None:
        return None
    width = len(mask)
    leaf = np.empty((NUM_ROLLS, width))
    keep1 = np.empty((NUM_KEEPS, width))
    keep2 = np.empty((NUM_KEEPS, width))
    choice = np.empty((NUM_ROLLS, width), dtype=np.int8) if want_choice else None
    plan_of(model).turn(values, _int64(flag), _int64(mask), _int64(upper), leaf, keep1, keep2,
                        choice)
    return leaf, keep1, keep2, choice


def one_turn(model: ScoringModel, values: FloatArray, flag: int, mask: int, upper: int,
             specials: tuple[IntArray, npt.NDArray[np.bool_], npt.NDArray[np.int16],
                             npt.NDArray[np.int16]] | None = None,
             want_choice: bool = True) -> TurnArrays | None:
    """Return the values inside a turn of one state, each (rows, 1); None without the kernel.

    ``specials`` (rolls, allowed, box points, bonus points; rolls x slots) are
    the state's special choices in place of the model's tables.  The choices
    are worked out only if ``want_choice``.
    """
    if PLAN is None:
        return None
    out = np.empty((_ONE_TURN, 1))
    choice = np.empty((NUM_ROLLS, 1), dtype=np.int8) if want_choice else None
    plan = _PLANS.get(id(model)) or plan_of(model)
    if specials is None:
        plan.turn_one(values, flag, mask, upper, out, choice)
    else:
        rolls, allowed, box, bonus = specials
        plan.turn_one(values, flag, mask, upper, out, choice, _int64(rolls),
                      np.ascontiguousarray(allowed), np.ascontiguousarray(box, dtype=np.int16),
                      np.ascontiguousarray(bonus, dtype=np.int16))
    return out[ROLL_START:NUM_KEEPS], out[:NUM_KEEPS], out[NUM_KEEPS:], choice


def best_keep(table: FloatArray, leaf: FloatArray, roll: int) -> int | None:
    """Return the position of the roll's best keep among its keeps (0: score now).

    ``table`` holds the keeps' values with the rolls left, ``leaf`` the value
    of scoring each roll now (a turn's tables of one state, contiguous); the
    first keep within ``TIE`` of the best wins.  None without the kernel.
    """
    if PLAN is None or _BEST_KEEP is None:
        return None
    return _BEST_KEEP(table, leaf, roll)


def best_keeps(table: FloatArray, leaf: FloatArray, where: IntArray,
               rolls: IntArray) -> IntArray | None:
    """Return, for games of a batch, the position of each one's best keep (0: score now).

    ``table`` (462, B) and ``leaf`` (252, B) are the batch's turn tables (C
    order), ``where`` each game's column and ``rolls`` its roll; the first
    keep within ``TIE`` of the best wins.  None without the kernel.
    """
    if PLAN is None or _BEST_KEEPS is None:
        return None
    out = np.empty(len(rolls), dtype=np.int64)
    _BEST_KEEPS(table, leaf, _int64(where), _int64(rolls), out)
    return out


def best_box(model: ScoringModel, values: FloatArray, flag: int, mask: int, upper: int,
             roll: int) -> int | None:
    """Return the slot where the state scores the roll: the first choice within ``TIE`` of the best.

    The roll's choices are its special ones where the model's tables say they
    vary, else the open boxes at their own points.  None without the kernel or
    on a full card.
    """
    if PLAN is None:
        return None
    box = plan_of(model).best_box(values, flag, mask, upper, roll)
    return None if box < 0 else box


def best_boxes(model: ScoringModel, values: FloatArray, flag: IntArray, mask: IntArray,
               upper: IntArray, rolls: IntArray) -> IntArray | None:
    """Return ``best_box`` of many states, each with its roll; None without the kernel."""
    if PLAN is None:
        return None
    out = np.empty(len(rolls), dtype=np.int64)
    plan_of(model).best_boxes(values, _int64(flag), _int64(mask), _int64(upper), _int64(rolls),
                              out)
    return out


def turn_ends(keep1: FloatArray, leaf: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """Return what a turn's ends carry back to its keeps; None without the kernel.

    ``leaf`` (252, W) holds W numbers per final roll, ``keep1`` (462, 1)
    optimal play's keep values with one roll left.  The result is each
    keep's mean of ``leaf`` over the missing dice with one roll left, and
    with two rolls left (the keep between: the first of the roll's keeps
    within ``TIE`` of the best in ``keep1``), each (462, W): the numbers of
    ``keeps.expected_over_keeps`` and ``moments.at_chosen_keeps``, summed in
    the same order.
    """
    if PLAN is None or _TURN_ENDS is None:
        return None
    leaf = np.ascontiguousarray(leaf, dtype=np.float64)
    one = np.empty((NUM_KEEPS, leaf.shape[1]))
    two = np.empty((NUM_KEEPS, leaf.shape[1]))
    _TURN_ENDS(np.ascontiguousarray(keep1, dtype=np.float64), leaf, one, two)
    return one, two


def turn_keeps(leaf: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """Return a turn's keep tables with one and with two rolls left from its leaves; None
    without the kernel.

    ``leaf`` (252, W) holds what scoring each final roll is worth, W numbers
    a roll (chances to win, say: finite, or ``-inf`` for a roll no box may
    take; a NaN is not carried as numpy carries it); the result is each
    (462, W), numpy's very numbers of ``expected_over_keeps(leaf)`` and of
    ``expected_over_keeps(best_sub_keep(keep1)[ROLL_START:])``, summed in
    the same order.
    """
    if PLAN is None or _TURN_KEEPS is None:
        return None
    leaf = np.ascontiguousarray(leaf, dtype=np.float64)
    width = leaf.shape[1:]
    one = np.empty((NUM_KEEPS,) + width)
    two = np.empty((NUM_KEEPS,) + width)
    _TURN_KEEPS(leaf, one, two)
    return one, two


def leaf_steps(model: ScoringModel, flag: int, mask: int, upper: int,
               choice: npt.NDArray[np.int8]) -> tuple[IntArray, IntArray] | None:
    """Return where a state's turn ends as each final roll is scored in the slot ``choice`` gives.

    ``choice`` (252,) or (252, 1) is the slot of each roll; the result is
    the points each roll earns (bonuses included) and the flat index of the
    state it leads to, each (252,): ``moments.leaf_points`` followed by
    ``dynamic.step``.  None without the kernel (or with one built before it).
    """
    if PLAN is None:
        return None
    steps = getattr(plan_of(model), "leaf_steps", None)
    if steps is None:
        return None
    reward = np.empty(NUM_ROLLS, dtype=np.int64)
    following = np.empty(NUM_ROLLS, dtype=np.int64)
    steps(flag, mask, upper, np.ascontiguousarray(choice, dtype=np.int8), reward, following)
    return reward, following


def win_chances(players: FloatArray, rows: IntArray, columns: IntArray, field: FloatArray,
                field_rows: IntArray, quadrature: tuple[FloatArray, FloatArray],
                skew_steps: tuple[FloatArray, FloatArray], last: Any) -> FloatArray | None:
    """Return ``outlook.chance_to_win`` of each player, worked out in the kernel; None without it.

    ``players`` (5, N) holds each player's points so far and its final
    score's mean, variance, third and fourth cumulants; ``rows`` (N) its
    exact row (-1: none, every row already worked out) and ``columns`` (N)
    its column of the field.  ``field`` (5, R, B) holds R opponents' (1 to
    ``MOST_OTHERS``) in B columns, in another order: the mean of the final
    score, its variance, third and fourth cumulants, then the points so far
    (``outlook.Field``'s order); ``field_rows`` (R, B) their rows.
    ``quadrature`` is the standard normal nodes and weights, ``skew_steps``
    the excess kurtosis steps and the largest skewness at each;
    ``last`` the ``LastTurn`` whose rows are read in place (None: no rows).
    The same numbers as numpy's, to rounding in the last bits (the
    exponential and the order of the sums differ).
    """
    if PLAN is None or _WIN_CHANCES is None:
        return None
    out = np.empty(len(rows))
    tables = ((None,) * 5 if last is None
              else (last.pmf, last.cdf, last.points, last.chances, last.size))
    _WIN_CHANCES(np.ascontiguousarray(players, dtype=np.float64), _int64(rows),
                 _int64(columns), np.ascontiguousarray(field, dtype=np.float64),
                 _int64(field_rows), *quadrature, *skew_steps, *tables, out)
    return out


def seat_chances(banked: FloatArray, index: IntArray, outlooks: Any,
                 quadrature: tuple[FloatArray, FloatArray],
                 skew_steps: tuple[FloatArray, FloatArray]) -> FloatArray | None:
    """Return every seat's chance to finish first against the others, worked out in the kernel.

    ``banked`` and ``index`` (P, N) are each player's points and flat state
    in each of N positions (2 to ``MOST_OTHERS`` + 1 players); the result
    (P, N) is each one's ``outlook.chance_to_win`` against the others of its
    position, not scaled to add up to 1: the same numbers as ``win_chances``
    on the arrays ``outlook.Field.of`` gathers, the gathering done in the
    kernel too (in numpy it cost several times the chances' own work).
    ``outlooks`` is the ``outlook.Outlooks`` read in place; ``quadrature``
    and ``skew_steps`` as ``win_chances`` takes them.  None without the kernel (or with one built
    before it), for outlooks whose columns are not of the usual types (a
    normal outlook's broadcast zeros), or when a row the players need is not
    worked out yet (``LastTurn.rows`` works it out).
    """
    players = len(banked)
    if (PLAN is None or _SEAT_CHANCES is None or not 2 <= players <= MOST_OTHERS + 1
            or outlooks.third.strides != (4,) or outlooks.fourth.strides != (4,)
            or outlooks.mean.dtype != np.float64 or outlooks.variance.dtype != np.float64):
        return None
    last = outlooks.last
    rows = ((None,) * 7 if last is None else
            (last.row_of, last.solved, last.pmf, last.cdf, last.points, last.chances,
             last.size))
    out = np.empty(np.shape(banked))
    done = _SEAT_CHANCES(np.ascontiguousarray(banked, dtype=np.float64), _int64(index),
                         outlooks.mean, outlooks.variance, outlooks.third, outlooks.fourth,
                         *rows[:2], *quadrature, *skew_steps, *rows[2:], out)
    return out if done else None


def entry_steps(model: ScoringModel, flag: int, mask: int, upper: int
                ) -> tuple[IntArray, IntArray] | None:
    """Return where scoring each box's distinct points leads from a state; None without the
    kernel (or with one built before it).

    One number per entry of ``model.leaf_plan`` (its slots and points): the
    reward (bonuses included) and the flat index of the next state, as
    ``dynamic.step`` gives them; the entries of filled boxes are 0 and -1.
    """
    if PLAN is None:
        return None
    plan = plan_of(model)
    steps = getattr(plan, "entry_steps", None)
    if steps is None or not hasattr(plan, "best_entries"):  # the two go together
        return None
    count = len(model.leaf_plan[0])
    reward = np.empty(count, dtype=np.int64)
    following = np.empty(count, dtype=np.int64)
    steps(flag, mask, upper, reward, following)
    return reward, following


def best_entries(model: ScoringModel, mask: int, worth: FloatArray
                 ) -> tuple[FloatArray, npt.NDArray[np.int8]] | None:
    """Return each final roll's best worth among the boxes open in ``mask``, and the box.

    ``worth`` holds what each entry of ``model.leaf_plan`` is worth (those of
    filled boxes are not read); the boxes are taken in order, a later one
    winning only when more than ``TIE`` better than every earlier one, as
    ``play_to_win._best_boxes`` takes them.  Both (252,).  None without the
    kernel (or with one built before it).
    """
    if PLAN is None:
        return None
    best_of = getattr(plan_of(model), "best_entries", None)
    if best_of is None:
        return None
    best = np.empty(NUM_ROLLS)
    choice = np.empty(NUM_ROLLS, dtype=np.int8)
    best_of(mask, np.ascontiguousarray(worth, dtype=np.float64), best, choice)
    return best, choice
