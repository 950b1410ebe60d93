"""Playing for the win: the values inside a turn when what counts is finishing first.

Optimal solitaire play scores each final roll by its points plus the
expected points to come.  Against opponents, the player who wants to win
scores it instead by the chance to finish first after that choice:

- its own final score is the points banked, the choice's points, and the
  points still to come from the next state, as the one outlook of every
  win chance gives it (``outlook``: exact after the last turn and with one
  or two turns left, ``EXACT_TURNS``; shaped by four exact cumulants before);
- each opponent's final score likewise, from the opponent's card now;
- players are independent, and a tie counts as a share of the win.

Inside the turn everything else is exact: a keep is worth the mean of its
rolls' worth and a roll the best of its keeps, as in ``dynamic``, so the
whole turn is planned for the win, the last turn exactly against the
opponents' outlooks.  Before the last turn the plan leans toward points:
each end of the turn is worth its chance plus ``LEAN`` per expected final
point (``COURSE_LEAN`` under the course rules), most on the first turn
(the outlook is that of expected-score play, and the computer will gamble
later if it must, so early chances undervalue points); the chances shown
stay the outlook's.  A tiny weight (``POINT_WEIGHT`` per expected point)
breaks ties between choices whose chances are equal, for instance when the
game is already won, in favour of more points.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import zip_longest
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from yahtzee.solver import accel
from yahtzee.solver.dynamic import (States, TurnValues, first_best, flat_index,
                                    single_turn_values, state_index, step, step_one,
                                    table_specials)
from yahtzee.solver.keeps import (NUM_ROLLS, ROLL_START, FloatArray, IntArray,
                                  best_sub_keep, expected_over_keeps, keep_number, roll_number)
from yahtzee.solver.levels import shortfall
from yahtzee.solver.model import ScoringModel
from yahtzee.solver.moments import LastTurn, Moments, at_chosen_keeps, leaf_points
from yahtzee.solver.outlook import Field, Outlooks, chance_to_win, seat_chances
from yahtzee.solver.strategy import best_keep
from yahtzee.solver.ties import TIE

POINT_WEIGHT = 1e-7
"""What one expected point adds to a chance of winning: only enough to break ties."""

LEAN_SCALE = 0.008
"""What one expected final point weighs (chance per point) on the first of 13 turns.

Fitted with ``python benchmarks/tune_lean.py --rules official --games 100000
--seed 1 --scale S`` for S = 0 (50.69% against expected-score play), 0.001
(50.76%), 0.002 (50.79%), 0.004 (50.78%), 0.008 (50.88%), 0.016 (50.80%)
and 0.032 (50.76%), and 0.016 with the square root of the turns left
(``--power 0.5``: 50.74%); the same dice for every S.  A point is worth
about 0.005 of a chance at the start of an even game, so 0.008 leans
somewhat more on points than on the outlook's chance there.
"""

LEAN = tuple(LEAN_SCALE * after / 12 for after in range(13))
"""Per turns left after this one (0 to 12), what one expected final point adds to a chance.

The ends of a turn are valued by the chance to win from the outlook of
expected-score play, but the computer itself will not play that way later:
it can still gamble when behind, so the chances far from the end are least
exact, and gambling on them early costs points that a later turn could have
turned into a win.  Planning leans toward expected points by this weight,
falling in a straight line from ``LEAN_SCALE`` on the first turn to nothing
on the last (whose chances are exact).  Only the planning objective leans:
every chance displayed is the outlook's.
"""

COURSE_LEAN_SCALE = 0.004
"""``LEAN_SCALE`` under the course rules, whose points spread differently (bonuses use turns).

Fitted with ``python benchmarks/tune_lean.py --rules course --games 100000
--seed 1 --scale S`` for S = 0 (50.94% against expected-score play), 0.002
(50.94%), 0.004 (50.97%), 0.008 (50.94%) and 0.012 (50.91%), and 0.008
falling as the square of the turns left (``--power 2``: 50.96%); the same
dice for every S.  The rate hardly depends on the lean under these rules;
0.004 was the best measured.  On seeds 2 and 3 (200,000 games each, the
same command with ``--games 200000 --seed 2`` or ``3``) it won 51.02% and
50.92%, against 51.00% and 50.90% with 0.008 on the same dice.
"""

COURSE_LEAN = tuple(COURSE_LEAN_SCALE * after / 12 for after in range(13))
"""``LEAN`` under the course rules: the same straight line from ``COURSE_LEAN_SCALE``."""

LEANS = {"official": LEAN, "course": COURSE_LEAN}
"""The lean of each rule set, by the scoring model's name."""


def lean_for(model: ScoringModel) -> tuple[float, ...]:
    """Return the lean fitted for the model's rules (``LEANS``; ``LEAN`` for any other)."""
    return LEANS.get(model.name, LEAN)


@lru_cache(maxsize=None)
def _boxes_filled(boxes: int) -> IntArray:
    """Return how many boxes each mask of ``boxes`` boxes has filled (its bits set)."""
    masks = np.arange(1 << boxes)
    filled = np.zeros(len(masks), dtype=np.int64)
    for box in range(boxes):
        filled += (masks >> box) & 1
    filled.setflags(write=False)  # shared by every caller
    return filled


def lean_of(model: ScoringModel, states: States,
            lean: Sequence[float] = LEAN) -> FloatArray:
    """Return each state's weight per expected point (B,): ``lean`` by the turns left after.

    A turn used is a filled box, or under the course rules a bonus taken
    without filling one; never below ``POINT_WEIGHT``, the tie-breaker.
    """
    used = _boxes_filled(model.n_categories)[states.mask]
    if model.bonus_uses_turn:
        used += np.maximum(states.flag - 1, 0)
    table = np.maximum(np.asarray(lean, dtype=np.float64), POINT_WEIGHT)
    result: FloatArray = table[np.clip(model.rounds - 1 - used, 0, len(table) - 1)]
    return result


EXACT_TURNS = 2
"""The most turns left of a state whose outlook is its exact distribution (``LastTurn``).

With 2 rather than 1, a card with two boxes open (its points to come as
lumpy as two boxes make them: 0, 40, 50 or 90 for Large Straight and
Yahtzee) is no longer read from four cumulants.  Measured with
``python benchmarks/tune_lean.py --rules official --games 100000 --seed 1
--scale 0.008 --exact-turns E``: E = 1 won 50.88% against expected-score
play, E = 2 51.18%, on the same dice (a duel then plays at about a third
of the speed; the rows of a rule set are worked out as the games need them).
"""


_LAST_TURNS: weakref.WeakValueDictionary[tuple[int, int, int], LastTurn] = (
    weakref.WeakValueDictionary())
"""The exact distributions in use, by (model, values, turns) identity: one per table."""
_LAST_TURNS_LOCK = threading.Lock()
_rows_folder: Path | None = None
"""Where ``shared_last_turn`` keeps the rows for every process (``keep_rows_in``), if set."""


def keep_rows_in(folder: Path | None) -> None:
    """Keep the exact rows of the ``LastTurn`` made from now on in ``folder``, or in memory.

    The application gives its cache folder, where the solved tables are:
    every process of the machine then works a row out once, and holds it in
    the memory the operating system shares (``row_file``).  None: each
    process keeps its own rows in its memory.
    """
    global _rows_folder
    with _LAST_TURNS_LOCK:
        _rows_folder = folder


def shared_last_turn(model: ScoringModel, values: FloatArray, turns: int) -> LastTurn:
    """Return the ``LastTurn`` of ``model``'s state ``values``, one per process while in use.

    The computer and the coach play on the same loaded table: sharing its
    rows works each of them out once rather than once per strategy.  A row
    is the same whoever asks for it first and with whatever other rows (each
    state's numbers are worked out on their own), so nothing shown changes.
    A ``LastTurn`` keeps its model and values alive, so their identities
    stay theirs while it is kept here.  Its rows are kept in the folder of
    ``keep_rows_in``, if one was given.
    """
    key = (id(model), id(values), turns)
    with _LAST_TURNS_LOCK:
        last = _LAST_TURNS.get(key)
        if last is None or last.model is not model or last.values is not values:
            last = LastTurn(model, values, turns, _rows_folder)
            _LAST_TURNS[key] = last
        return last


def outlooks_of(model: ScoringModel, values: FloatArray, moments: Moments,
                exact_turns: int = EXACT_TURNS) -> Outlooks:
    """Return the outlooks of optimal play from its ``values`` and ``moments``.

    Exact with ``exact_turns`` turns left or fewer (``shared_last_turn``);
    before, the higher cumulants are those of ``moments.shape`` (a normal
    outlook without it).
    """
    shape = None if moments.shape is None else moments.shape.tables()
    return Outlooks.of(values, moments.second, shape,
                       shared_last_turn(model, values, exact_turns))


LeafWorth = Callable[[FloatArray, IntArray, IntArray], FloatArray]
"""Gives what a choice is worth from (reward, next state's index, column of its player)."""


def win_worth(outlooks: Outlooks, banked: FloatArray, field: Field,
              weight: FloatArray | None = None) -> LeafWorth:
    """Return the worth of choices for players who play to win against ``field``.

    ``banked`` holds each player's points so far (B,); ``weight`` (B,) what
    one expected final point adds to the chance (``lean_of``; None:
    ``POINT_WEIGHT`` alone, the tie-breaker).
    """
    per_point = np.full(len(banked), POINT_WEIGHT) if weight is None else weight

    def worth(reward: FloatArray, index: IntArray, column: IntArray) -> FloatArray:
        """Return the chance to win after the choice, plus the weighed expected points."""
        now = banked[column] + reward
        chance = chance_to_win(now, index, column, field, outlooks)
        result: FloatArray = chance + per_point[column] * (now + outlooks.mean.take(index))
        return result
    return worth


def mean_worth(outlooks: Outlooks) -> LeafWorth:
    """Return the worth of choices for optimal solitaire play: points plus points to come."""
    def worth(reward: FloatArray, index: IntArray, column: IntArray) -> FloatArray:
        """Return the choice's points plus the expected points still to come."""
        result: FloatArray = reward + outlooks.mean.take(index)
        return result
    return worth


def _best_boxes(model: ScoringModel, states: States, worth: LeafWorth, boxes: IntArray,
                open_boxes: npt.NDArray[np.bool_]) -> tuple[FloatArray, npt.NDArray[np.int8]]:
    """Return the best worth of each final roll (252, B) among ``boxes`` and the box giving it.

    ``open_boxes`` (boxes, B) says which state has each box open.  Every
    box's distinct points go through ``step`` and ``worth`` in one call each;
    the boxes are then taken in order, a later one winning only when more
    than ``TIE`` better than every earlier one (the lowest slot on ties).
    A single state's are worked out in the compiled kernel where it is at
    hand (``_best_boxes_of_one``: the same numbers).
    """
    if len(states) == 1 and len(boxes) == int(open_boxes.sum()):  # every open box
        fast = _best_boxes_of_one(model, states, worth)
        if fast is not None:
            return fast
    slots, points, entry = model.leaf_plan
    chosen = np.zeros(model.n_categories, dtype=np.bool_)
    chosen[boxes] = True
    listed = chosen[slots]  # ``np.isin(slots, boxes)``, without its sort (a tenth of the call)
    flag, mask, upper, reward = step(model, states.flag[None], states.mask[None],
                                     states.upper[None], slots[listed][:, None],
                                     points[listed][:, None], 0)
    every = worth(reward.astype(np.float64), state_index(model, flag, mask, upper),
                  np.broadcast_to(np.arange(len(states)), reward.shape))
    first = np.cumsum(listed) - 1  # each entry's row of ``every``
    spread = np.where(open_boxes[:, None, :], every[first[entry[:, boxes].T]], -np.inf)
    so_far = np.maximum.accumulate(spread, axis=0)
    choice = np.where(spread[0] > -np.inf, boxes[0], 0)
    if len(boxes) > 1:
        better = spread[1:] > so_far[:-1] + TIE
        last = len(boxes) - 1 - np.argmax(better[::-1], axis=0)
        choice = np.where(better.any(axis=0), boxes[last], choice)
    best: FloatArray = so_far[-1]
    return best, choice.astype(np.int8)


def _best_boxes_of_one(model: ScoringModel, states: States, worth: LeafWorth
                       ) -> tuple[FloatArray, npt.NDArray[np.int8]] | None:
    """Return ``_best_boxes`` of one state with every open box, from the kernel; None without it.

    The kernel lists where each open box's distinct points lead
    (``accel.entry_steps``), ``worth`` values them in one call, and the
    kernel takes each roll's best box in ``_best_boxes``'s order.
    """
    flag, mask, upper = int(states.flag[0]), int(states.mask[0]), int(states.upper[0])
    steps = accel.entry_steps(model, flag, mask, upper)
    if steps is None:
        return None
    reward, following = steps
    listed = following >= 0
    every = np.full(len(following), -np.inf)
    every[listed] = worth(reward[listed].astype(np.float64), following[listed],
                          np.zeros(int(listed.sum()), dtype=np.int64))
    best = accel.best_entries(model, mask, every)
    if best is None:
        return None
    return best[0][:, None], best[1][:, None]


def leaf_worth(model: ScoringModel, states: States, worth: LeafWorth
               ) -> tuple[FloatArray, npt.NDArray[np.int8]]:
    """Return the worth of scoring each final roll (252, B) and the slot chosen.

    Each box's distinct points are valued once per state and spread over
    the rolls that give them; the special rolls (a Yahtzee under the joker
    or bonus rules) are valued from the model's own table of choices.  Ties
    go to the lowest slot.
    """
    count = len(states)
    open_boxes = (states.mask[None, :] >> np.arange(model.n_categories)[:, None]) & 1 == 0
    boxes = np.flatnonzero(open_boxes.any(axis=1))
    if len(boxes):
        best, choice = _best_boxes(model, states, worth, boxes, open_boxes[boxes])
    else:
        best = np.full((NUM_ROLLS, count), -np.inf)
        choice = np.zeros((NUM_ROLLS, count), dtype=np.int8)
    specials = table_specials(model, states)
    if specials is not None:
        rows = np.flatnonzero(specials.varies)
        if len(rows):
            slots = np.arange(model.n_slots)[None, None, :]
            f, m, u = (a[rows, None, None] for a in (states.flag, states.mask, states.upper))
            flag, mask, upper, reward = step(model, f, m, u, slots, specials.box_points[rows],
                                             specials.bonus_points[rows])
            vals = worth(reward.astype(np.float64), state_index(model, flag, mask, upper),
                         np.broadcast_to(rows[:, None, None], reward.shape))
            vals = np.where(specials.allowed[rows], vals, -np.inf)
            rolls = specials.rolls[:, None]
            best[rolls, rows[None, :]] = vals.max(axis=2).T
            choice[rolls, rows[None, :]] = first_best(vals, axis=2).T.astype(np.int8)
    return best, choice


def turn_worth(model: ScoringModel, states: States, worth: LeafWorth) -> TurnValues:
    """Return the worth of every position inside a turn for a batch of states.

    The same layers as ``dynamic.turn_values``, with ``worth`` at the leaves.
    """
    leaf, choice = leaf_worth(model, states, worth)
    keeps = accel.turn_keeps(leaf)
    if keeps is None:  # numpy's own, the same numbers
        keep1 = expected_over_keeps(leaf)
        keeps = keep1, expected_over_keeps(best_sub_keep(keep1)[ROLL_START:])
    return TurnValues(leaf, keeps[0], keeps[1], choice)


class TurnEnds:
    """Every player's chances as a turn ends, and before its rolls, under optimal play's keeps.

    ``leaf`` (252, P) holds the chances after each final roll is scored;
    the tables before the second and third rolls are worked out from it the
    first time they are asked for and then kept, like ``leaf``, for the rest
    of the turn.
    """

    def __init__(self, leaf: FloatArray, keep1: FloatArray) -> None:
        """Hold ``leaf`` and optimal play's keep values with one roll left ``keep1`` (462, 1)."""
        self.leaf = leaf
        self._keep1 = keep1
        self._one: FloatArray | None = None
        self._two: FloatArray | None = None

    def one_left(self) -> FloatArray:
        """Return each keep's chances (462, P) with one roll left: the mean over its rolls."""
        if self._one is None:
            self._carry_back()
        if self._one is None:
            self._one = expected_over_keeps(self.leaf)
        return self._one

    def two_left(self) -> FloatArray:
        """Return each keep's chances (462, P) with two rolls left, optimal play's keep between."""
        if self._two is None:
            one = self.one_left()
            if self._two is None:
                after_second = at_chosen_keeps(self._keep1, one[:, :, None])[:, :, 0]
                self._two = expected_over_keeps(after_second)
        return self._two

    def _carry_back(self) -> None:
        """Work out both tables at once in the compiled kernel, where it is at hand.

        The same numbers as numpy's ``one_left`` and ``two_left`` (the same
        sums in the same order); without the kernel nothing is set here.
        """
        both = accel.turn_ends(self._keep1, self.leaf)
        if both is not None:
            self._one, self._two = both


class BoxMover(Protocol):
    """A table strategy as playing to win builds on it (``OptimalStrategy``, ``PokerStrategy``)."""

    model: ScoringModel
    values: FloatArray

    def state_key(self, card: Any) -> tuple[int, int, int]:
        """Return the card's solver state (flag state, filled mask, capped upper total)."""
        ...

    def box_moves(self, card: Any, dice: Sequence[int]) -> list[tuple[Any, int, int, int]]:
        """Return the legal boxes for these dice as (box, slot, box points, bonus points)."""
        ...

    def keep(self, card: Any, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the keep of optimal solitaire play, or None to score now."""
        ...

    def category(self, card: Any, dice: Sequence[int]) -> Any:
        """Return the box of optimal solitaire play."""
        ...

    def keep_values(self, card: Any, dice: Sequence[int],
                    rolls_left: int) -> dict[tuple[int, ...], float]:
        """Return the expected final score of each keep (all five: scoring now)."""
        ...


_TURNS_REMEMBERED = 1024
"""Turns remembered, the last used kept: a server holds one or two turns in play per
game (the player's, the coach's), so 1,024 keep about 500 games at once from working
theirs out again; each is a few kilobytes to a few tens (60 MB at most in all)."""


class PlayToWinStrategy:
    """The computer that plays to finish first: each turn planned for the chance to win.

    Alone it plays exactly as optimal solitaire play (``base``), the highest
    expected score; against opponents, ``facing`` gives the decisions that
    maximize its chance to finish first against their cards as they stand.
    """

    def __init__(self, base: BoxMover, moments: Moments,
                 lean: Sequence[float] | None = None) -> None:
        """Play on ``base``'s tables, with ``moments`` those of its points to come.

        ``lean`` is what an expected point weighs in planning, per turns left
        after the one planned (None: ``lean_for`` the model's rules).
        """
        self.base = base
        self.model = base.model
        self.lean = lean_for(base.model) if lean is None else tuple(lean)
        self.outlooks = outlooks_of(base.model, base.values, moments)
        self._turns = lru_cache(maxsize=_TURNS_REMEMBERED)(self._solve_turn)
        self._ends = lru_cache(maxsize=_TURNS_REMEMBERED)(self._turn_end_chances)
        self._optimal_turns = lru_cache(maxsize=_TURNS_REMEMBERED)(self._optimal_turn_of)

    def keep(self, card: Any, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the keep of optimal solitaire play (no one to beat), or None to score now."""
        return self.base.keep(card, dice, rolls_left)

    def category(self, card: Any, dice: Sequence[int]) -> Any:
        """Return the box of optimal solitaire play (no one to beat)."""
        return self.base.category(card, dice)

    def facing(self, others: Sequence[Any]) -> Facing | BoxMover:
        """Return the decisions against the opponents' cards ``others`` (solitaire if none)."""
        return Facing(self, others) if others else self.base

    def index_of(self, card: Any) -> int:
        """Return the flat table index of the card's state."""
        return flat_index(self.model, *self.base.state_key(card))

    def field(self, others: Sequence[Any]) -> Field:
        """Return the opponents' cards as a field of one player."""
        banked = np.array([[float(card.score())] for card in others])
        index = np.array([[self.index_of(card)] for card in others], dtype=np.int64)
        return Field.of(self.outlooks, banked, index)

    def shortfalls(self, cards: Sequence[Any], strategies: Sequence[str | None]) -> FloatArray:
        """Return the points each card's player is expected to score below optimal play from here.

        A computer of known strength (a level, greedy play) falls short by
        the part of its shortfall a game still to come (``levels.shortfall``);
        anyone else (``strategies`` empty, a person's ``None``) by 0.
        """
        rounds = self.model.rounds
        return np.array([shortfall(self.model.name, strategy, rounds - card.rounds_used(), rounds)
                         for card, strategy in zip_longest(cards, strategies[:len(cards)])],
                        dtype=np.float64)

    def chances(self, cards: Sequence[Any], strategies: Sequence[str | None] = ()) -> list[float]:
        """Return each card's chance to finish first, every player between turns.

        The one outlook of every win chance: the computer's own chance, the
        coach's, the filed ones.  With one card the chance is 1.  Each
        player's final score is optimal play's outlook, lowered by what its
        strategy (``strategies``, one per card; none: optimal play for all)
        is known to fall short (``shortfalls``).
        """
        banked = np.array([[float(card.score())] for card in cards])
        banked -= self.shortfalls(cards, strategies)[:, None]
        index = np.array([[self.index_of(card)] for card in cards], dtype=np.int64)
        return [float(chance) for chance in self._chances(banked, index)[:, 0]]

    def chances_at(self, banked: Sequence[Sequence[float]],
                   index: Sequence[Sequence[int]]) -> list[list[float]]:
        """Return ``chances`` of many positions at once, each given by every player's points.

        ``banked[n][p]`` and ``index[n][p]`` are player ``p``'s points and flat
        state index (``index_of``) in position ``n``: a finished game's turn
        starts, say, worked out in one pass rather than one by one.
        """
        if not banked:
            return []
        table = self._chances(np.array(banked, dtype=np.float64).T,
                              np.array(index, dtype=np.int64).T)
        return [[float(chance) for chance in column] for column in table.T]

    def _chances(self, banked: FloatArray, index: IntArray) -> FloatArray:
        """Return every player's chance (P, N) from their points and states (P, N).

        Two players' chances add up to 1 as they are (each is ``chance_to_win``
        itself); with more, each player's own quadrature leaves the sum a
        little off 1, and they are scaled to add up to 1.
        """
        players, count = banked.shape
        if players == 1:
            return np.ones((1, count))
        result = seat_chances(banked, index, self.outlooks)
        if players > 2:
            result /= result.sum(axis=0, keepdims=True)
        return result

    def chances_after(self, cards: Sequence[Any], seat: int, dice: Sequence[int],
                      rolls_left: int, kept: Sequence[int] | None = None,
                      box: int | None = None,
                      strategies: Sequence[str | None] = ()) -> list[float]:
        """Return each card's chance once ``seat`` has made a move in the middle of its turn.

        The move is the keep ``kept`` (rolling the other dice; all of them:
        scoring now, in optimal play's box) or the box numbered ``box``.
        From there the seat plays the rest of its turn as optimal solitaire
        play does; each chance is the mean, over how the turn can end, of
        the chances between turns that follow (the one outlook, each
        player's lowered by its ``strategies``' shortfall, as ``chances``).
        """
        card = cards[seat]
        banked = np.array([float(c.score()) for c in cards]) - self.shortfalls(cards, strategies)
        index = np.array([self.index_of(c) for c in cards], dtype=np.int64)
        if box is not None:
            return self._chances_after_box(card, seat, dice, box, banked, index)
        keep = sorted(dice if kept is None else kept)
        ends = self._ends(seat, tuple(banked.tolist()), tuple(index.tolist()))
        if len(keep) == len(dice):
            return [float(chance) for chance in ends.leaf[roll_number(keep)]]
        table = ends.two_left() if rolls_left == 2 else ends.one_left()
        return [float(chance) for chance in table[keep_number(keep)]]

    def _chances_after_box(self, card: Any, seat: int, dice: Sequence[int], box: int,
                           banked: FloatArray, index: IntArray) -> list[float]:
        """Return each player's chance once ``seat`` (``card``) scores ``dice`` in ``box``.

        ``banked`` and ``index`` are every player's points and state now.
        Optimal play's box is read from the turn's ends (worked out once per
        turn); another box is worked out alone.
        """
        flag, mask, upper = self.base.state_key(card)
        moves = [move for move in self.base.box_moves(card, dice) if move[0].number == box]
        if not moves:
            raise ValueError(f"box {box} cannot take these dice")
        _, slot, points, bonus = moves[0]
        roll = roll_number(sorted(dice))
        choice = self._optimal_turns(flag, mask, upper).choice
        if choice is not None and int(choice[roll, 0]) == slot:
            leaf = self._ends(seat, tuple(banked.tolist()), tuple(index.tolist())).leaf
            return [float(chance) for chance in leaf[roll]]
        f2, m2, u2, reward = step_one(self.model, flag, mask, upper, slot, points, bonus)
        banked = banked.copy()
        index = index.copy()
        banked[seat] += reward
        index[seat] = flat_index(self.model, f2, m2, u2)
        after = self._chances(banked[:, None], index[:, None])[:, 0]
        return [float(chance) for chance in after]

    def _optimal_turn_of(self, flag: int, mask: int, upper: int) -> TurnValues:
        """Return optimal solitaire play's turn from the state (flag, mask, upper).

        Remembered (``_optimal_turns``): every roll of a turn asks again.
        """
        states = States(np.array([flag]), np.array([mask]), np.array([upper]))
        return single_turn_values(self.model, self.base.values.reshape(self.model.shape), flag,
                                  mask, upper, table_specials(self.model, states))

    def _turn_end_chances(self, seat: int, banked: tuple[float, ...],
                          index: tuple[int, ...]) -> TurnEnds:
        """Return every player's chance (252, P) after the seat scores each final roll.

        ``banked`` and ``index`` are every player's points and flat state
        index as the turn started.  The box is optimal solitaire play's; the
        other players wait between turns.  Remembered (``_ends``) for the
        rest of the turn: each roll of it asks again.  Final rolls that score
        the same points and lead to the same state share one column of
        ``_chances`` (every number it gives depends on its column alone).
        """
        flag, mask, upper = (int(part) for part in
                             np.unravel_index(index[seat], self.model.shape))
        turn = self._optimal_turns(flag, mask, upper)
        assert turn.choice is not None
        gained, following = self._leaf_steps(flag, mask, upper, turn.choice)
        _, first, inverse = np.unique(following * (int(gained.max()) + 1) + gained,
                                      return_index=True, return_inverse=True)
        count = len(first)
        points = np.repeat(np.array(banked)[:, None], count, axis=1)
        where = np.repeat(np.array(index, dtype=np.int64)[:, None], count, axis=1)
        points[seat] += gained[first]
        where[seat] = following[first]
        result: FloatArray = self._chances(points, where).T[inverse.ravel()]
        return TurnEnds(result, turn.keep1)

    def _leaf_steps(self, flag: int, mask: int, upper: int, choice: npt.NDArray[np.int8]
                    ) -> tuple[IntArray, IntArray]:
        """Return the points each final roll earns in its ``choice`` box, and where it leads.

        Both (252,): the points with any bonus, and the flat index of the state after
        the box; from the compiled kernel where it is at hand (the same numbers).
        """
        fast = accel.leaf_steps(self.model, flag, mask, upper, choice)
        if fast is not None:
            return fast
        states = States(np.array([flag]), np.array([mask]), np.array([upper]))
        slots, box, bonus = leaf_points(self.model, states, choice)
        flags, masks, uppers, reward = step(self.model, states.flag[None, :],
                                            states.mask[None, :], states.upper[None, :],
                                            slots, box, bonus)
        return reward[:, 0], state_index(self.model, flags, masks, uppers)[:, 0]

    def turn_against(self, card: Any, others: Sequence[Any], totals: Sequence[float] = (),
                     leaning: bool = True) -> TurnValues:
        """Return the turn's tables of chances to win for ``card``, as its play plans them.

        The opponents are the cards ``others`` and the final ``totals``.
        With ``leaning`` each leaf adds ``lean`` per expected final point
        (what the computer maximizes); without, only the tie-breaker
        (the chance itself, to within ``POINT_WEIGHT`` per point).
        """
        key = tuple((float(o.score()), self.index_of(o)) for o in others) + tuple(
            (float(total), self.finished_index()) for total in totals)
        return self._turns(self.base.state_key(card), float(card.score()), key, leaning)

    def finished_index(self) -> int:
        """Return the flat index of a full card's state (nothing to come, exactly)."""
        return flat_index(self.model, 0, self.model.n_masks - 1, 0)

    def chance_against(self, card: Any, dice: Sequence[int], total: float) -> dict[int, float]:
        """Return, per box number, the chance that scoring it beats a final ``total``.

        A tie counts half.  The rest of the game is optimal play's outlook
        from the state the box leads to (exact with two turns left or fewer).
        """
        flag, mask, upper = self.base.state_key(card)
        result = {}
        field = Field.of(self.outlooks, np.array([[total]]),
                         np.array([[self.finished_index()]], dtype=np.int64))
        for box, slot, points, bonus in self.base.box_moves(card, dice):
            f2, m2, u2, reward = step_one(self.model, flag, mask, upper, slot, points, bonus)
            index = flat_index(self.model, f2, m2, u2)
            chance = chance_to_win(np.array([float(card.score() + reward)]), np.array([index]),
                                   np.zeros(1, dtype=np.int64), field, self.outlooks)
            result[box.number] = float(chance[0])
        return result

    def keep_chances(self, card: Any, dice: Sequence[int], rolls_left: int,
                     total: float) -> dict[tuple[int, ...], float]:
        """Return, per keep of these dice, the chance to beat a final ``total`` after it.

        The rest of the turn is played for the win; a tie counts half.
        Keeping all five dice (scoring now) is left out.
        """
        turn = self.turn_against(card, (), (total,), leaning=False)
        table = turn.keep1 if rolls_left == 1 else turn.keep2
        expected = self.base.keep_values(card, dice, rolls_left)
        return {keep: float(table[keep_number(list(keep)), 0]) - POINT_WEIGHT * expected[keep]
                for keep in expected if len(keep) < len(dice)}

    def _solve_turn(self, state: tuple[int, int, int], banked: float,
                    others: tuple[tuple[float, int], ...], leaning: bool) -> TurnValues:
        """Return the turn's tables from ``state`` with ``banked`` points against ``others``.

        ``others`` gives each opponent's points and flat state index;
        ``leaning``: whether expected points weigh ``lean`` (else the tie-breaker alone).
        """
        flag, mask, upper = state
        field = Field.of(self.outlooks, np.array([[points] for points, _ in others]),
                         np.array([[index] for _, index in others], dtype=np.int64))
        states = States(np.array([flag]), np.array([mask]), np.array([upper]))
        weight = lean_of(self.model, states, self.lean) if leaning else None
        return turn_worth(self.model, states,
                          win_worth(self.outlooks, np.array([banked]), field, weight))


class Facing:
    """Decisions of a ``PlayToWinStrategy`` against given opponents.

    The opponents are cards (read as they are at each call) and, for players
    who have finished or are known only by a score, final ``totals``.
    """

    def __init__(self, strategy: PlayToWinStrategy, others: Sequence[Any],
                 totals: Sequence[float] = ()) -> None:
        """Decide for ``strategy`` against the cards ``others`` and the final ``totals``."""
        self.strategy = strategy
        self.others = tuple(others)
        self.totals = tuple(totals)

    def _turn(self, card: Any) -> TurnValues:
        """Return the turn's tables against these opponents."""
        return self.strategy.turn_against(card, self.others, self.totals)

    def keep(self, card: Any, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the keep with the best planned worth (``LEAN``), or None to score now."""
        if rolls_left not in (1, 2):
            raise ValueError(f"rolls_left must be 1 or 2, not {rolls_left}")
        return best_keep(self._turn(card), dice, rolls_left)

    def category(self, card: Any, dice: Sequence[int]) -> Any:
        """Return the box with the best planned worth (``LEAN``; lowest slot on ties)."""
        turn = self._turn(card)
        assert turn.choice is not None
        slot = int(turn.choice[roll_number(list(dice)), 0])
        chosen = [box for box, move_slot, _, _ in self.strategy.base.box_moves(card, dice)
                  if move_slot == slot]
        return chosen[0] if chosen else self.strategy.base.category(card, dice)
