"""The scoring model the solver works on, and its construction from a Yahtzee rule set.

A ``ScoringModel`` describes a five-dice, three-roll category game in
numbers: the points of every roll in every box, which boxes count toward
an upper-section bonus, which box's non-zero score opens a bonus, how
many bonuses are tracked, and, for the few rolls whose choices depend on
the card (a Yahtzee under the joker and bonus rules), the legal choices in
every situation.  ``yahtzee_model`` fills it from ``Rules``: the box points
come from the category classes and the card-dependent choices from
``Rules.options``, so the rules stay in the domain.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice
from yahtzee.domain.die import Die
from yahtzee.domain.rules import (UPPER_BONUS, UPPER_BONUS_THRESHOLD, Option, Rules,
                                  box_points, is_yahtzee)
from yahtzee.solver.keeps import NUM_ROLLS, ROLLS, IntArray

BoolArray = npt.NDArray[np.bool_]
ShortArray = npt.NDArray[np.int16]


@dataclass(frozen=True)
class SpecialRolls:
    """The choices for rolls whose options depend on the card, in every card situation.

    A situation is ``(flag_state, mask)`` (see ``ScoringModel``); a slot is a
    box number, or ``n_categories`` for a bonus taken without filling a box.
    """

    rolls: IntArray
    """The roll numbers concerned, shape (S,)."""
    allowed: BoolArray
    """Shape (flag_states, masks, S, slots): whether the slot may be chosen."""
    box_points: ShortArray
    """Same shape: the points written in the box."""
    bonus_points: ShortArray
    """Same shape: the bonus points the choice earns."""
    varies: BoolArray
    """Shape (flag_states, masks): whether a situation's choices differ from the plain ones."""


@dataclass(frozen=True)
class ScoringModel:
    """A category dice game in numbers, as the solver needs it.

    A state between turns is ``(flag_state, mask, upper)``: ``mask`` has a
    bit per filled box; ``upper`` is the upper-section total capped at the
    threshold; ``flag_state`` is 0 while the flag box holds no points and
    ``1 + b`` once it does, ``b`` being the tracked bonuses taken.
    """

    name: str
    n_categories: int
    rounds: int
    base: IntArray
    """Shape (252, n_categories): what each roll scores in each box by its own rule."""
    upper: tuple[bool, ...]
    """Whether each box counts toward the upper-section total."""
    upper_threshold: int = 0
    """The upper total that earns ``upper_bonus`` (0: no upper bonus)."""
    upper_bonus: int = 0
    """Points earned when the upper total reaches the threshold."""
    flag_category: int | None = None
    """The box whose non-zero score makes later bonuses possible (None: no such box)."""
    bonus_levels: int = 1
    """How many bonus counts are told apart (1: bonuses are not tracked)."""
    bonus_uses_turn: bool = False
    """Whether a tracked bonus uses a turn."""
    special: SpecialRolls | None = None
    """Card-dependent choices for a few rolls (None: every roll offers the open boxes)."""

    @property
    def n_slots(self) -> int:
        """Boxes plus the slot for a bonus that fills no box."""
        return self.n_categories + 1

    @property
    def n_masks(self) -> int:
        """The number of filled-box masks."""
        return 1 << self.n_categories

    @property
    def n_upper(self) -> int:
        """The number of upper totals told apart (threshold + 1, or 1)."""
        return self.upper_threshold + 1 if self.upper_threshold else 1

    @property
    def n_flag_states(self) -> int:
        """The number of flag states (1, or 1 + bonus_levels with a flag box)."""
        return 1 if self.flag_category is None else 1 + self.bonus_levels

    @property
    def shape(self) -> tuple[int, int, int]:
        """The shape of a value table: (flag states, masks, upper totals)."""
        return (self.n_flag_states, self.n_masks, self.n_upper)

    def bonus_taken(self, flag_state: int) -> int:
        """Return the tracked bonuses of a flag state."""
        return max(flag_state - 1, 0)

    @cached_property
    def point_levels(self) -> tuple[IntArray, ...]:
        """Per box, the distinct points a roll can score there (sorted)."""
        return tuple(np.unique(self.base[:, c]) for c in range(self.n_categories))

    @cached_property
    def level_of_roll(self) -> tuple[IntArray, ...]:
        """Per box, each roll's position in ``point_levels``."""
        return tuple(np.searchsorted(self.point_levels[c], self.base[:, c])
                     for c in range(self.n_categories))

    @cached_property
    def leaf_plan(self) -> tuple[IntArray, IntArray, IntArray]:
        """Every box's distinct points listed once: (box of each entry, its points, entry of
        each roll and box)."""
        slots = np.concatenate([np.full(len(levels), c, dtype=np.int64)
                                for c, levels in enumerate(self.point_levels)])
        points = np.concatenate(self.point_levels).astype(np.int64)
        starts = np.cumsum([0] + [len(levels) for levels in self.point_levels])[:-1]
        entry = np.stack([starts[c] + self.level_of_roll[c] for c in range(self.n_categories)],
                         axis=1)
        return slots, points, entry

    @cached_property
    def leaf_plan_by_box(self) -> IntArray:
        """The third array of ``leaf_plan`` transposed: (boxes, 252), each box's row contiguous."""
        return np.ascontiguousarray(self.leaf_plan[2].T)

    @cached_property
    def upper_slots(self) -> IntArray:
        """Per slot (boxes, then the bonus slot), 1 if it counts toward the upper total."""
        return np.array(self.upper + (False,), dtype=np.int64)

    @cached_property
    def upper_bits(self) -> int:
        """The mask of the upper boxes."""
        return sum(1 << c for c in range(self.n_categories) if self.upper[c])

    @cached_property
    def upper_points(self) -> dict[int, tuple[int, ...]]:
        """For each upper box, every number of points it can receive."""
        return self.upper_points_now()

    def upper_points_now(self) -> dict[int, tuple[int, ...]]:
        """Return ``upper_points`` as the tables hold them now (they may still be filling)."""
        points: dict[int, tuple[int, ...]] = {}
        for c in range(self.n_categories):
            if self.upper[c]:
                found = {int(p) for p in self.point_levels[c]}
                if self.special is not None:
                    found |= set(_distinct(self.special.box_points[..., c]).tolist())
                points[c] = tuple(sorted(found))
        return points

    @cached_property
    def reachable_upper(self) -> dict[int, tuple[int, ...]]:
        """For each mask of filled upper boxes, the capped upper totals a card can hold."""
        cap = self.n_upper - 1
        reach: dict[int, set[int]] = {0: {0}}
        for sub in range(1, self.upper_bits + 1):
            if sub & ~self.upper_bits:
                continue
            found = set()
            for c, values in self.upper_points.items():
                if sub >> c & 1:
                    for before in reach[sub & ~(1 << c)]:
                        found |= {min(cap, before + p) for p in values}
            reach[sub] = found
        return {sub: tuple(sorted(values)) for sub, values in reach.items()}

    @cached_property
    def upper_sources(self) -> dict[int, tuple[int, ...]]:
        """Per upper mask, for each total 0 to the threshold, the total whose state stands for it.

        Two totals play alike when the same future upper gains reach the
        threshold from both, that is when the smallest reaching gain the open
        upper boxes can add is the same (or none reaches it).  Of each such
        class the smallest reachable total is solved and the others copy it.
        """
        cap = self.n_upper - 1
        sources: dict[int, tuple[int, ...]] = {}
        for sub, totals in self.reachable_upper.items():
            gains = {0}
            for c, values in self.upper_points.items():
                if not sub >> c & 1:
                    gains = {g + p for g in gains for p in values}
            ordered = np.array(sorted(gains))

            def key(total: int) -> int:
                """Return the smallest gain reaching the threshold from ``total`` (-1: none)."""
                at = int(np.searchsorted(ordered, self.upper_threshold - total))
                return int(ordered[at]) if at < len(ordered) else -1

            first: dict[int, int] = {}
            for total in totals:
                first.setdefault(key(total), total)
            sources[sub] = tuple(first.get(key(u), u) for u in range(cap + 1))
        return sources

    @cached_property
    def live_upper(self) -> dict[int, tuple[int, ...]]:
        """Per upper mask, the upper totals whose states are solved (see ``upper_sources``)."""
        if not self.upper_threshold:
            return dict(self.reachable_upper)
        return {sub: tuple(sorted({sources[u] for u in self.reachable_upper[sub]}))
                for sub, sources in self.upper_sources.items()}


def _distinct(points: ShortArray) -> IntArray:
    """Return the distinct numbers of points in an array, sorted (quicker than ``np.unique``)."""
    flat = points.ravel()
    if len(flat) and int(flat.min()) >= 0:
        found: IntArray = np.flatnonzero(np.bincount(flat))
        return found
    return np.unique(flat).astype(np.int64)


class _Roll(Dice):
    """Fixed dice whose counts are worked out once (they are asked many times)."""

    def __init__(self, values: tuple[int, ...]) -> None:
        """Hold dice showing ``values``."""
        super().__init__(len(values))
        for value in values:
            self.add_die(Die(value))
        self._tally = tuple(values.count(face) for face in range(1, Die.SIDES + 1))
        self._total = sum(values)

    def count(self, val: int) -> int:
        """Return how many dice show ``val``."""
        return self._tally[val - 1] if 1 <= val <= len(self._tally) else 0

    def counts(self) -> tuple[int, ...]:
        """Return how many dice show each face."""
        return self._tally

    def sum(self) -> int:
        """Return the total of the faces shown."""
        return self._total

    def contains(self, val: int) -> bool:
        """Return whether a die shows ``val``."""
        return self.count(val) > 0


def base_table(points: Callable[[int, int], int], n_categories: int) -> IntArray:
    """Return the (252, n_categories) table of ``points(category, roll number)``."""
    return np.array([[points(c, r) for c in range(n_categories)] for r in range(NUM_ROLLS)],
                    dtype=np.int64)


def situation_scores(rules_flag_points: int, flag_state: int, mask: int,
                     flag_category: int, n_categories: int) -> list[int | None]:
    """Return a card's box contents standing for a solver situation.

    Filled boxes other than the flag box hold 0 (the state does not say what);
    the flag box holds ``rules_flag_points`` when the flag state says it scored.
    """
    scores: list[int | None] = [0 if mask >> c & 1 else None for c in range(n_categories)]
    if mask >> flag_category & 1:
        scores[flag_category] = rules_flag_points if flag_state else 0
    return scores


def option_slot(option: Option, n_categories: int) -> int:
    """Return the solver slot of a rule-set option."""
    return option.category.get_value() if option.fills_box else n_categories


_ChunkResult = tuple[BoolArray, ShortArray, ShortArray]


@lru_cache(maxsize=1)
def yahtzee_rolls() -> IntArray:
    """Return the numbers of the rolls that are a Yahtzee."""
    return np.array([i for i, values in enumerate(ROLLS) if is_yahtzee(_Roll(values))],
                    dtype=np.int64)


@lru_cache(maxsize=1)
def _yahtzee_dice() -> tuple[_Roll, ...]:
    """Return the dice of the rolls that are a Yahtzee (``yahtzee_rolls``), made once."""
    return tuple(_Roll(ROLLS[roll]) for roll in yahtzee_rolls())


def _ask_rules(rules: Rules, flag_state: int, masks: list[int]) -> _ChunkResult:
    """Return the Yahtzee rolls' choices, as solver slots, for one flag state and some masks."""
    n_cat = len(CategoryValue)
    flag = CategoryValue.YAHTZEE.get_value()
    rolls = _yahtzee_dice()
    flag_points = box_points(CategoryValue.YAHTZEE, rolls[0])
    taken = max(flag_state - 1, 0)
    shape = (len(masks), len(rolls), n_cat + 1)
    cells: list[int] = []
    boxes: list[int] = []
    bonuses: list[int] = []
    points = [[box_points(cv, roll) for cv in CategoryValue] for roll in rolls]
    cell, box_of, bonus_of = cells.append, boxes.append, bonuses.append
    for row, mask in enumerate(masks):
        scores = situation_scores(flag_points, flag_state, mask, flag, n_cat)
        for s, roll in enumerate(rolls):
            first = (row * len(rolls) + s) * (n_cat + 1)
            for category, box_now, bonus_now, fills_box in rules.options(scores, taken, roll,
                                                                         points[s]):
                cell(first + (category.get_value() if fills_box else n_cat))  # option_slot
                box_of(box_now)
                bonus_of(bonus_now)
    allowed = np.zeros(shape, dtype=np.bool_)
    box = np.zeros(shape, dtype=np.int16)
    bonus = np.zeros(shape, dtype=np.int16)
    allowed.flat[cells] = True
    box.flat[cells] = boxes
    bonus.flat[cells] = bonuses
    return allowed, box, bonus


def _ignore_interrupts() -> None:
    """Leave Ctrl-C to the main process, which stops its helpers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ask_rules_job(job: tuple[Rules, int, list[int]]) -> _ChunkResult:
    """Run ``_ask_rules`` on one job (for a process pool)."""
    return _ask_rules(*job)


def _run_jobs(jobs: list[tuple[Rules, int, list[int]]],
              processes: int) -> list[_ChunkResult]:
    """Return the jobs' results, in two processes where the platform allows it."""
    if processes > 1 and len(jobs) > 1:
        try:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            with context.Pool(processes, initializer=_ignore_interrupts) as pool:
                return pool.map(_ask_rules_job, jobs)
        except (OSError, RuntimeError, ValueError):
            pass
    return [_ask_rules_job(job) for job in jobs]


def _plain_choices(rules: Rules, base: IntArray) -> SpecialRolls:
    """Return the Yahtzee rolls' tables with every situation offering the open boxes plainly."""
    n_cat = len(CategoryValue)
    special_rolls = yahtzee_rolls()
    n_flag = 2 + (rules.bonus_cap or 0)
    n_masks = 1 << n_cat
    masks = np.arange(n_masks)
    open_boxes = (masks[:, None] >> np.arange(n_cat)[None, :]) & 1 == 0
    plain_allowed = np.zeros((n_masks, len(special_rolls), n_cat + 1), dtype=np.bool_)
    plain_allowed[:, :, :n_cat] = open_boxes[:, None, :]
    plain_box = np.zeros_like(plain_allowed, dtype=np.int16)
    plain_box[:, :, :n_cat] = base[special_rolls][None, :, :]
    plain_box *= plain_allowed
    allowed = np.repeat(plain_allowed[None], n_flag, axis=0)
    box = np.repeat(plain_box[None], n_flag, axis=0)
    return SpecialRolls(special_rolls, allowed, box, np.zeros_like(box),
                        np.zeros((n_flag, n_masks), dtype=np.bool_))


_Job = tuple[Rules, int, list[int]]


def _jobs(rules: Rules) -> list[tuple[int, _Job]]:
    """Return (turns used, job) for every situation with the Yahtzee box filled, latest first."""
    n_cat = len(CategoryValue)
    flag = CategoryValue.YAHTZEE.get_value()
    n_flag = 2 + (rules.bonus_cap or 0)
    groups: dict[tuple[int, int], list[int]] = {}
    for flag_state in range(n_flag):
        taken = max(flag_state - 1, 0) if rules.bonus_by_choice else 0
        for mask in range(1 << n_cat):
            used = bin(mask).count("1") + taken
            if mask >> flag & 1 and used < rules.ROUNDS:
                groups.setdefault((used, flag_state), []).append(mask)
    jobs = []
    for (used, flag_state), masks in sorted(groups.items(), key=lambda item: -item[0][0]):
        for lo in range(0, len(masks), 512):
            jobs.append((used, (rules, flag_state, masks[lo:lo + 512])))
    return jobs


def _record(special: SpecialRolls, job: _Job, result: _ChunkResult) -> None:
    """Write one job's answers from the rules into the tables."""
    _, flag_state, masks = job
    allowed, box, bonus = result
    changed = ((special.allowed[flag_state, masks] != allowed)
               | (special.box_points[flag_state, masks] != box) | (bonus != 0)).any(axis=(1, 2))
    special.allowed[flag_state, masks] = allowed
    special.box_points[flag_state, masks] = box
    special.bonus_points[flag_state, masks] = bonus
    special.varies[flag_state, masks] = changed


ASKERS = 2
"""Helper processes that ask the rules while the solver works."""


class RuleAsker:
    """Fills a model's Yahtzee-roll tables from ``Rules.options``, in step with the solver.

    The rules are asked in helper processes, latest turns first, while the
    solver works; ``ensure(turns)`` waits for the situations of that turn.
    Where no helper process can be made the rules are asked in this one.
    """

    def __init__(self, rules: Rules, special: SpecialRolls, helpers: int | None = None) -> None:
        """Start asking the rules for every situation, to be written into ``special``.

        ``helpers`` processes (``ASKERS`` by default, at most the processor
        count) share the asking.
        """
        helpers = max(1, min(ASKERS if helpers is None else helpers, os.cpu_count() or 1))
        self.special = special
        self._jobs = _jobs(rules)
        self._done = 0
        self._pool: Any = None
        self._answers: Iterator[_ChunkResult] | None = None
        if "fork" in multiprocessing.get_all_start_methods():
            try:
                self._pool = multiprocessing.get_context("fork").Pool(
                    helpers, initializer=_ignore_interrupts)
                self._answers = self._pool.imap(_ask_rules_job, [job for _, job in self._jobs])
            except (OSError, RuntimeError, ValueError):
                self._pool = self._answers = None

    def ensure(self, turns: int) -> None:
        """Return once the situations that have used ``turns`` turns or more are written."""
        while self._done < len(self._jobs) and self._jobs[self._done][0] >= turns:
            job = self._jobs[self._done][1]
            answer = next(self._answers) if self._answers is not None else _ask_rules_job(job)
            _record(self.special, job, answer)
            self._done += 1

    def finish(self) -> None:
        """Write every remaining situation and end the helper process."""
        self.ensure(0)
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def close(self) -> None:
        """End the helper process at once, whatever it was doing (after an error)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def yahtzee_model(rules: Rules, processes: int = 2, special: SpecialRolls | None = None,
                  tables: bool = True) -> ScoringModel:
    """Return the scoring model of Yahtzee under ``rules``.

    A roll that is not a Yahtzee, or a Yahtzee while the Yahtzee box is
    open, offers every open box at its own points.  For a Yahtzee with the
    Yahtzee box filled the choices are asked of ``rules.options`` in every
    situation (filled boxes, Yahtzee box content, bonuses taken), unless
    ``special`` already holds them (read from a stored table) or ``tables``
    is False (then ``situation_choices`` gives them one situation at a time).
    """
    n_cat = len(CategoryValue)
    rolls = [_Roll(r) for r in ROLLS]
    cats = list(CategoryValue)
    base = base_table(lambda c, r: box_points(cats[c], rolls[r]), n_cat)
    if special is not None or not tables:
        return _yahtzee(rules, base, special)
    special = _plain_choices(rules, base)
    jobs = [job for _, job in _jobs(rules)]
    for job, answer in zip(jobs, _run_jobs(jobs, processes)):
        _record(special, job, answer)
    return _yahtzee(rules, base, special)


def yahtzee_model_in_step(rules: Rules) -> tuple[ScoringModel, RuleAsker]:
    """Return the Yahtzee model whose Yahtzee-roll tables a ``RuleAsker`` is still filling."""
    model = yahtzee_model(rules, tables=False)
    special = _plain_choices(rules, model.base)
    return _yahtzee(rules, model.base, special), RuleAsker(rules, special)


def _yahtzee(rules: Rules, base: IntArray, special: SpecialRolls | None) -> ScoringModel:
    """Return the Yahtzee model under ``rules`` with these tables."""
    return ScoringModel(
        name=rules.name,
        n_categories=len(CategoryValue),
        rounds=rules.ROUNDS,
        base=base,
        upper=tuple(cv.is_upper for cv in CategoryValue),
        upper_threshold=UPPER_BONUS_THRESHOLD,
        upper_bonus=UPPER_BONUS,
        flag_category=CategoryValue.YAHTZEE.get_value(),
        bonus_levels=rules.bonus_cap + 1 if rules.bonus_cap is not None else 1,
        bonus_uses_turn=rules.bonus_by_choice,
        special=special,
    )


def situation_choices(rules: Rules, model: ScoringModel, flag_state: int,
                      mask: int) -> tuple[IntArray, BoolArray, ShortArray, ShortArray, bool]:
    """Return (rolls, allowed, box points, bonus points, varies) of the Yahtzee rolls.

    The arrays have shape (S, slots) for the one situation ``(flag_state, mask)``;
    ``varies`` tells whether they differ from the open boxes at their own points.
    """
    rolls = yahtzee_rolls()
    n_cat = model.n_categories
    flag = model.flag_category
    allowed = np.zeros((len(rolls), n_cat + 1), dtype=np.bool_)
    for c in range(n_cat):
        allowed[:, c] = not mask >> c & 1
    box = np.zeros(allowed.shape, dtype=np.int16)
    box[:, :n_cat] = model.base[rolls] * allowed[:, :n_cat]
    bonus = np.zeros_like(box)
    if flag is None or not mask >> flag & 1:
        return rolls, allowed, box, bonus, False
    asked, asked_box, asked_bonus = _ask_rules(rules, flag_state, [mask])
    varies = bool((asked[0] != allowed).any() or (asked_box[0] != box).any()
                  or asked_bonus[0].any())
    return rolls, asked[0], asked_box[0], asked_bonus[0], varies
