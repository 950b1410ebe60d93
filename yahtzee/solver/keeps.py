"""The multisets of dice a turn moves through: the 462 keeps and the 252 rolls.

A keep is a sorted tuple of zero to five die values; a roll is a keep of
five.  Keeps are numbered by size, then by the number of distinct faces,
then in lexicographic order, so the rolls are the last 252 entries.  The
arrays here let the solver walk the keeps level by level: each keep's
children (one more die of each face), its parents (one die fewer) and the
sub-keeps a player may choose from a roll.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import factorial

import numpy as np
import numpy.typing as npt

FACES = 6
"""Faces of a die, numbered 1 to ``FACES``."""
NUM_DICE = 5
"""Dice in a roll."""

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _all_keeps() -> list[tuple[int, ...]]:
    """Return every multiset of 0 to 5 faces, by size, distinct faces, then lexicographically."""
    keeps: list[tuple[int, ...]] = []
    for size in range(NUM_DICE + 1):
        keeps.extend(sorted(combinations_with_replacement(range(1, FACES + 1), size),
                            key=lambda k: (len(set(k)), k)))
    return keeps


KEEPS: tuple[tuple[int, ...], ...] = tuple(_all_keeps())
"""The 462 keeps, by size, then number of distinct faces, then lexicographically."""
KEEP_INDEX: dict[tuple[int, ...], int] = {k: i for i, k in enumerate(KEEPS)}
"""The number of each keep."""
NUM_KEEPS = len(KEEPS)
"""462."""
LEVEL_START: tuple[int, ...] = tuple(
    sum(1 for k in KEEPS if len(k) < size) for size in range(NUM_DICE + 2))
"""``LEVEL_START[n]`` is the number of the first keep of ``n`` dice (and ``[6]`` the total)."""
ROLL_START = LEVEL_START[NUM_DICE]
"""The number of the first roll among the keeps (210)."""
ROLLS: tuple[tuple[int, ...], ...] = KEEPS[ROLL_START:]
"""The 252 distinct rolls of five dice, in keep order."""
NUM_ROLLS = len(ROLLS)
"""252."""


def _counts(keep: tuple[int, ...]) -> tuple[int, ...]:
    """Return how many dice of each face the keep holds."""
    return tuple(keep.count(face) for face in range(1, FACES + 1))


def _probability(keep: tuple[int, ...]) -> float:
    """Return the chance that rolling ``len(keep)`` dice shows exactly this multiset."""
    ways = factorial(len(keep))
    for n in _counts(keep):
        ways //= factorial(n)
    return ways / float(FACES ** len(keep))


ROLL_PROBABILITY: FloatArray = np.array([_probability(r) for r in ROLLS])
"""The chance of each roll when all five dice are thrown."""

CHILDREN: IntArray = np.array(
    [[KEEP_INDEX[tuple(sorted(k + (f,)))] for f in range(1, FACES + 1)]
     for k in KEEPS[:ROLL_START]], dtype=np.int64)
"""``CHILDREN[k, f - 1]``: the keep ``k`` with one more die showing ``f`` (keeps under five)."""


def _parents(keep: tuple[int, ...]) -> list[int]:
    """Return the keeps with one die of ``keep`` removed, one per distinct face."""
    return [KEEP_INDEX[keep[:i] + keep[i + 1:]] for i in range(len(keep))
            if i == 0 or keep[i] != keep[i - 1]]


def _parent_groups() -> tuple[tuple[int, int, IntArray], ...]:
    """Return (first, end, parents) for each run of keeps of one size and distinct count."""
    groups = []
    for lo in range(1, NUM_KEEPS):
        if lo == 1 or len(KEEPS[lo]) != len(KEEPS[lo - 1]) or (
                len(set(KEEPS[lo])) != len(set(KEEPS[lo - 1]))):
            hi = lo
            while hi < NUM_KEEPS and len(KEEPS[hi]) == len(KEEPS[lo]) and (
                    len(set(KEEPS[hi])) == len(set(KEEPS[lo]))):
                hi += 1
            parents = np.array([_parents(KEEPS[k]) for k in range(lo, hi)], dtype=np.int64)
            groups.append((lo, hi, parents))
    return tuple(groups)


PARENT_GROUPS = _parent_groups()
"""Runs of keeps with as many parents each (one die fewer), with those parents."""

COUNTS: IntArray = np.array([_counts(k) for k in KEEPS], dtype=np.int64)
"""``COUNTS[k, f - 1]``: the dice showing ``f`` in keep ``k``."""
_CODE_BASE = NUM_DICE + 1
_CODE_WEIGHTS: IntArray = _CODE_BASE ** np.arange(FACES, dtype=np.int64)
KEEP_OF_CODE: IntArray = np.full(_CODE_BASE ** FACES, -1, dtype=np.int64)
"""Maps ``counts @ CODE_WEIGHTS`` of a multiset to its keep number."""
KEEP_OF_CODE[COUNTS @ _CODE_WEIGHTS] = np.arange(NUM_KEEPS)


def _sub_keeps(roll: tuple[int, ...]) -> list[int]:
    """Return the keeps a player may hold from ``roll``: itself first, then by size descending."""
    found: set[tuple[int, ...]] = set()
    for mask in range(1 << NUM_DICE):
        found.add(tuple(v for i, v in enumerate(roll) if mask >> i & 1))
    ordered = sorted(found, key=lambda k: (-len(k), k))
    return [KEEP_INDEX[k] for k in ordered]


_SUBS = [_sub_keeps(r) for r in ROLLS]
MAX_SUB_KEEPS = max(len(s) for s in _SUBS)
"""The most keeps one roll offers (32, for five distinct faces)."""
SUB_KEEPS: IntArray = np.array([s + [s[0]] * (MAX_SUB_KEEPS - len(s)) for s in _SUBS],
                               dtype=np.int64)
"""``SUB_KEEPS[r]``: the keeps of roll ``r`` (the roll itself first), padded with the roll."""
SUB_KEEP_COUNT: IntArray = np.array([len(s) for s in _SUBS], dtype=np.int64)
"""``SUB_KEEP_COUNT[r]``: how many distinct keeps roll ``r`` offers."""


def code_of(counts: IntArray) -> IntArray:
    """Return the lookup code of multisets given as face counts (last axis of length 6)."""
    return counts @ _CODE_WEIGHTS


def keep_number(values: tuple[int, ...] | list[int]) -> int:
    """Return the number of the keep holding these die values (any order)."""
    return KEEP_INDEX[tuple(sorted(values))]


def roll_number(values: tuple[int, ...] | list[int]) -> int:
    """Return the roll number (0 to 251) of five die values (any order)."""
    if len(values) != NUM_DICE:
        raise ValueError(f"a roll has {NUM_DICE} dice, not {len(values)}")
    return keep_number(values) - ROLL_START


_LARGEST_LEVEL = max(LEVEL_START[n + 1] - LEVEL_START[n] for n in range(NUM_DICE))
_SMALL_BATCH = 8
"""Up to this many columns, ``expected_over_keeps`` gathers each level in one step."""


def expected_over_keeps(leaf: FloatArray) -> FloatArray:
    """Return each keep's expected leaf value when the missing dice are thrown.

    ``leaf`` has one row per roll (252, ...); the result has one row per keep
    (462, ...), the rolls' own rows being ``leaf`` itself.  A keep of n dice
    is the mean of its six children (one more die of each face), level by
    level from the rolls down to the empty keep.
    """
    out = np.empty((NUM_KEEPS,) + leaf.shape[1:], dtype=np.float64)
    out[ROLL_START:] = leaf
    columns = int(np.prod(leaf.shape[1:], dtype=np.int64))
    if columns <= _SMALL_BATCH:
        for n in range(NUM_DICE - 1, -1, -1):
            lo, hi = LEVEL_START[n], LEVEL_START[n + 1]
            np.multiply(out[CHILDREN[lo:hi]].sum(axis=1), 1.0 / FACES, out=out[lo:hi])
        return out
    scratch = np.empty((_LARGEST_LEVEL,) + leaf.shape[1:], dtype=np.float64)
    for n in range(NUM_DICE - 1, -1, -1):
        lo, hi = LEVEL_START[n], LEVEL_START[n + 1]
        kids = CHILDREN[lo:hi]
        acc = out[lo:hi]
        buf = scratch[:hi - lo]
        out.take(kids[:, 0], axis=0, out=acc, mode="clip")
        for f in range(1, FACES):
            out.take(kids[:, f], axis=0, out=buf, mode="clip")
            np.add(acc, buf, out=acc)
        np.multiply(acc, 1.0 / FACES, out=acc)
    return out


_LARGEST_GROUP = max(hi - lo for lo, hi, _ in PARENT_GROUPS)


def best_sub_keep(values: FloatArray) -> FloatArray:
    """Return, for each keep, the largest value among its sub-multisets (itself included)."""
    out = np.empty_like(values)
    out[0] = values[0]
    scratch = np.empty((_LARGEST_GROUP,) + values.shape[1:], dtype=values.dtype)
    for lo, hi, parents in PARENT_GROUPS:
        acc = out[lo:hi]
        buf = scratch[:hi - lo]
        out.take(parents[:, 0], axis=0, out=buf, mode="clip")
        np.maximum(values[lo:hi], buf, out=acc)
        for j in range(1, parents.shape[1]):
            out.take(parents[:, j], axis=0, out=buf, mode="clip")
            np.maximum(acc, buf, out=acc)
    return out
