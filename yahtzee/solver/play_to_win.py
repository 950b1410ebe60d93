"""Playing for the win: the values inside a turn when what counts is finishing first.

Optimal solitaire play scores each final roll by its points plus the
expected points to come.  Against opponents, the player who wants to win
scores it instead by the chance to finish first after that choice:

- its own final score is the points banked, the choice's points, and the
  points still to come from the next state, taken as a normal distribution
  with that state's exact mean and variance under optimal play (the tables
  of ``dynamic`` and ``moments``); after the last turn it is known exactly;
- each opponent's final score likewise, from the opponent's card now;
- players are independent, and a tie counts as a share of the win.

Inside the turn everything else is exact: a keep is worth the mean of its
rolls' worth and a roll the best of its keeps, as in ``dynamic``, so the
whole turn is planned for the win, the last turn exactly against the
opponents' outlooks.  A tiny weight (``POINT_WEIGHT`` per expected point)
breaks ties between choices whose chances are equal, for instance when the
game is already won, in favour of more points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import pi, sqrt
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from yahtzee.solver.dynamic import (States, TurnValues, first_best, state_index, step,
                                    step_one, table_specials)
from yahtzee.solver.keeps import (NUM_ROLLS, ROLL_START, FloatArray, IntArray,
                                  best_sub_keep, expected_over_keeps, keep_number, roll_number)
from yahtzee.solver.model import ScoringModel
from yahtzee.solver.moments import LAST_TURN_POINTS, LastTurn
from yahtzee.solver.strategy import best_keep
from yahtzee.solver.ties import TIE

POINT_WEIGHT = 1e-7
"""What one expected point adds to a chance of winning: only enough to break ties."""

_NODES, _WEIGHTS = np.polynomial.hermite.hermgauss(24)
_Z_NODES = _NODES * sqrt(2.0)
"""Standard normal quadrature points (Gauss-Hermite, 24 of them) for three players or more."""
_Z_WEIGHTS = _WEIGHTS / sqrt(pi)

_ERFC = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
         -1.13520398, 1.48851587, -0.82215223, 0.17087277)
"""Chebyshev coefficients of the complementary error function (relative error below 1.2e-7)."""


def normal_cdf(z: FloatArray) -> FloatArray:
    """Return the standard normal distribution function at ``z`` (element-wise).

    Accurate to a relative 1.2e-7, in the tails too, which is what comparing
    small chances needs; ``±inf`` give 1 and 0.
    """
    x = np.abs(z) / sqrt(2.0)
    t = 1.0 / (1.0 + 0.5 * x)
    poly = np.full_like(t, _ERFC[-1])
    for c in _ERFC[-2::-1]:
        poly = poly * t + c
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        tail = 0.5 * t * np.exp(poly - x * x)
    result: FloatArray = np.where(z >= 0, 1.0 - tail, tail)
    return result


def _below(mine: FloatArray, mean: FloatArray, spread: FloatArray) -> FloatArray:
    """Return the chance that a normal(``mean``, ``spread``²) score ends below ``mine``.

    A spread of 0 is a known score: below counts 1, equal a half.
    """
    safe = np.where(spread > 0, spread, 1.0)
    step_z = np.where(mine > mean, np.inf, np.where(mine < mean, -np.inf, 0.0))
    z = np.where(spread > 0, (mine - mean) / safe, step_z)
    return np.where(z == 0, 0.5, normal_cdf(z))


@dataclass(frozen=True)
class Outlooks:
    """Per state between turns, what is known of the points still to come.

    The mean and the variance under optimal play for every state, and for a
    state with one turn left (``last``, when given) the exact distribution.
    """

    mean: FloatArray
    """Flat, indexed like the value table."""
    variance: FloatArray
    """Flat, indexed like the value table."""
    last: LastTurn | None = None

    @classmethod
    def of(cls, values: FloatArray, second: FloatArray,
           last: LastTurn | None = None) -> Outlooks:
        """Return the outlooks from the value table, the second-moment table and ``last``."""
        mean = values.ravel()
        return cls(mean, np.maximum(second.ravel() - mean * mean, 0.0), last)

    def rows(self, index: IntArray) -> IntArray:
        """Return the last-turn rows of the states ``index`` (-1: use the mean and variance)."""
        if self.last is None:
            return np.full(np.shape(index), -1, dtype=np.int64)
        return self.last.rows(np.asarray(index, dtype=np.int64))


@dataclass(frozen=True)
class Field:
    """The opponents of B players (one per game), each opponent's final score as known now.

    Every array has shape (R, B), one row per opponent: the mean and the
    variance of its final score, and, where its last turn is still to play
    (``rows`` >= 0), its points so far and the row of its exact distribution.
    """

    means: FloatArray
    variances: FloatArray
    banked: FloatArray
    rows: IntArray

    @classmethod
    def of(cls, outlooks: Outlooks, banked: FloatArray, index: IntArray) -> Field:
        """Return the field of opponents with ``banked`` points in the states ``index`` (R, B)."""
        return cls(banked + outlooks.mean.take(index), outlooks.variance.take(index), banked,
                   outlooks.rows(index))

    def __len__(self) -> int:
        """Return the number of opponents."""
        return len(self.means)

    def part(self, columns: IntArray) -> Field:
        """Return the field of the players ``columns``."""
        return Field(self.means[:, columns], self.variances[:, columns],
                     self.banked[:, columns], self.rows[:, columns])


def _share_below(x: FloatArray, field: Field, r: int, columns: IntArray,
                 last: LastTurn | None) -> FloatArray:
    """Return, for scores ``x`` (N, K), opponent ``r``'s chance to end below, a tie halved.

    ``columns`` (N,) says whose opponent: each score's column of ``field``.
    """
    rows = field.rows[r, columns]
    exact = rows >= 0
    share = np.empty(x.shape)
    if not exact.all():
        c = columns[~exact]
        share[~exact] = _below(x[~exact], field.means[r, c][:, None],
                               np.sqrt(np.maximum(field.variances[r, c], 0.0))[:, None])
    if exact.any():
        assert last is not None
        need = x[exact] - field.banked[r, columns[exact]][:, None]
        whole = np.floor(need)
        at = np.clip(whole, 0, LAST_TURN_POINTS - 1).astype(np.int64)
        row = rows[exact][:, None]
        at_most = np.where(whole >= 0, last.cdf[row, at], 0.0)
        exactly = np.where((whole >= 0) & (whole < LAST_TURN_POINTS) & (need == whole),
                           last.pmf[row, at], 0.0)
        share[exact] = at_most - 0.5 * exactly
    return share


def _expected_share(x: FloatArray, weights: FloatArray, field: Field, columns: IntArray,
                    last: LastTurn | None) -> FloatArray:
    """Return the chance to win of players whose final score is ``x`` (N, K) with ``weights``."""
    product = np.broadcast_to(weights, x.shape).copy()
    for r in range(len(field)):
        product *= _share_below(x, field, r, columns, last)
    result: FloatArray = product.sum(axis=1)
    return result


def chance_to_win(banked: FloatArray, index: IntArray, columns: IntArray, field: Field,
                  outlooks: Outlooks) -> FloatArray:
    """Return the chance to finish first of players with ``banked`` points in states ``index``.

    All three arrays have one entry per player, ``columns`` naming its
    column of ``field``.  A player's final score is known after its last
    turn, exact (``outlooks.last``) when one turn is left, and otherwise
    normal with its mean and variance; against one normal opponent the
    difference of two normals gives the chance in closed form, else each
    possible score of the player is weighed (by quadrature when normal).
    """
    shape = np.shape(banked)
    now = np.ravel(banked).astype(np.float64)
    where = np.ravel(index).astype(np.int64)
    cols = np.ravel(columns).astype(np.int64)
    mean: FloatArray = now + outlooks.mean.take(where)
    variance = outlooks.variance.take(where)
    rows = outlooks.rows(where)
    last = outlooks.last
    result = np.empty(len(now))
    exact = rows >= 0
    if exact.any():
        assert last is not None
        width = int(last.width[rows[exact]].max())
        points: FloatArray = now[exact, None] + np.arange(width)[None, :]
        result[exact] = _expected_share(points, last.pmf[rows[exact], :width], field,
                                        cols[exact], last)
    known = ~exact & (variance < 1e-9)
    if known.any():
        result[known] = _expected_share(mean[known, None], np.ones((1, 1)), field, cols[known],
                                        last)
    normal = ~exact & ~known
    if len(field) == 1:
        plain = normal & (field.rows[0, cols] < 0)
        if plain.any():
            c = cols[plain]
            both = np.sqrt(variance[plain] + field.variances[0, c])
            result[plain] = _below(mean[plain], field.means[0, c], both)
            normal &= ~plain
    if normal.any():
        spread: FloatArray = np.sqrt(variance[normal])[:, None]
        result[normal] = _expected_share(mean[normal, None] + spread * _Z_NODES[None, :],
                                         _Z_WEIGHTS[None, :], field, cols[normal], last)
    return result.reshape(shape)


LeafWorth = Callable[[FloatArray, IntArray, IntArray], FloatArray]
"""Gives what a choice is worth from (reward, next state's index, column of its player)."""


def win_worth(outlooks: Outlooks, banked: FloatArray, field: Field) -> LeafWorth:
    """Return the worth of choices for players who play to win against ``field``.

    ``banked`` holds each player's points so far (B,).
    """
    def worth(reward: FloatArray, index: IntArray, column: IntArray) -> FloatArray:
        """Return the chance to win after the choice, plus a tie-breaking trace of points."""
        now = banked[column] + reward
        chance = chance_to_win(now, index, column, field, outlooks)
        result: FloatArray = chance + POINT_WEIGHT * (now + outlooks.mean.take(index))
        return result
    return worth


def mean_worth(outlooks: Outlooks) -> LeafWorth:
    """Return the worth of choices for optimal solitaire play: points plus points to come."""
    def worth(reward: FloatArray, index: IntArray, column: IntArray) -> FloatArray:
        """Return the choice's points plus the expected points still to come."""
        result: FloatArray = reward + outlooks.mean.take(index)
        return result
    return worth


def leaf_worth(model: ScoringModel, states: States, worth: LeafWorth
               ) -> tuple[FloatArray, npt.NDArray[np.int8]]:
    """Return the worth of scoring each final roll (252, B) and the slot chosen.

    Each box's distinct points are valued once per state and spread over
    the rolls that give them; the special rolls (a Yahtzee under the joker
    or bonus rules) are valued from the model's own table of choices.  Ties
    go to the lowest slot.
    """
    count = len(states)
    columns = np.arange(count)
    best = np.full((NUM_ROLLS, count), -np.inf)
    choice = np.zeros((NUM_ROLLS, count), dtype=np.int8)
    for c in range(model.n_categories):
        open_box = (states.mask >> c) & 1 == 0
        if not open_box.any():
            continue
        levels = model.point_levels[c].astype(np.int64)[:, None]
        flag, mask, upper, reward = step(model, states.flag[None], states.mask[None],
                                         states.upper[None], c, levels, 0)
        table = worth(reward.astype(np.float64), state_index(model, flag, mask, upper),
                      np.broadcast_to(columns, reward.shape))
        table = np.where(open_box[None], table, -np.inf)
        spread = table.take(model.level_of_roll[c], axis=0)
        better = spread > best + TIE
        best = np.maximum(best, spread)
        choice[better] = c
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
    keep1 = expected_over_keeps(leaf)
    keep2 = expected_over_keeps(best_sub_keep(keep1)[ROLL_START:])
    return TurnValues(leaf, keep1, keep2, choice)


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


_TURNS_REMEMBERED = 64


class PlayToWinStrategy:
    """The computer that plays to finish first: each turn planned for the chance to win.

    Alone it plays exactly as optimal solitaire play (``base``), the highest
    expected score; against opponents, ``facing`` gives the decisions that
    maximize its chance to finish first against their cards as they stand.
    """

    def __init__(self, base: BoxMover, second: FloatArray) -> None:
        """Play on ``base``'s tables, with ``second`` the second moments of its points to come."""
        self.base = base
        self.model = base.model
        self.outlooks = Outlooks.of(base.values, second, LastTurn(base.model, base.values))
        self._turns = lru_cache(maxsize=_TURNS_REMEMBERED)(self._solve_turn)

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
        flag, mask, upper = self.base.state_key(card)
        return int(state_index(self.model, np.array(flag), np.array(mask), np.array(upper)))

    def field(self, others: Sequence[Any]) -> Field:
        """Return the opponents' cards as a field of one player."""
        banked = np.array([[float(card.score())] for card in others])
        index = np.array([[self.index_of(card)] for card in others], dtype=np.int64)
        return Field.of(self.outlooks, banked, index)

    def chance(self, card: Any, others: Sequence[Any]) -> float:
        """Return the chance that ``card`` finishes ahead of ``others``, between turns."""
        if not others:
            return 1.0
        return float(chance_to_win(np.array([float(card.score())]),
                                   np.array([self.index_of(card)]), np.zeros(1, dtype=np.int64),
                                   self.field(others), self.outlooks)[0])

    def turn_against(self, card: Any, others: Sequence[Any],
                     totals: Sequence[float] = ()) -> TurnValues:
        """Return the turn's tables of chances to win for ``card``.

        The opponents are the cards ``others`` and the final ``totals``.
        """
        key = tuple((float(o.score()), self.index_of(o)) for o in others) + tuple(
            (float(total), self.finished_index()) for total in totals)
        return self._turns(self.base.state_key(card), float(card.score()), key)

    def finished_index(self) -> int:
        """Return the flat index of a full card's state (nothing to come, exactly)."""
        return int(state_index(self.model, np.array(0), np.array(self.model.n_masks - 1),
                               np.array(0)))

    def chance_against(self, card: Any, dice: Sequence[int], total: float) -> dict[int, float]:
        """Return, per box number, the chance that scoring it beats a final ``total``.

        A tie counts half.  The rest of the game is optimal play's outlook
        from the state the box leads to (exact with one turn left or none).
        """
        flag, mask, upper = self.base.state_key(card)
        result = {}
        field = Field.of(self.outlooks, np.array([[total]]),
                         np.array([[self.finished_index()]], dtype=np.int64))
        for box, slot, points, bonus in self.base.box_moves(card, dice):
            f2, m2, u2, reward = step_one(self.model, flag, mask, upper, slot, points, bonus)
            index = int(state_index(self.model, np.array(f2), np.array(m2), np.array(u2)))
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
        turn = self.turn_against(card, (), (total,))
        table = turn.keep1 if rolls_left == 1 else turn.keep2
        expected = self.base.keep_values(card, dice, rolls_left)
        return {keep: float(table[keep_number(list(keep)), 0]) - POINT_WEIGHT * expected[keep]
                for keep in expected if len(keep) < len(dice)}

    def _solve_turn(self, state: tuple[int, int, int], banked: float,
                    others: tuple[tuple[float, int], ...]) -> TurnValues:
        """Return the turn's tables from ``state`` with ``banked`` points against ``others``.

        ``others`` gives each opponent's points and flat state index.
        """
        flag, mask, upper = state
        field = Field.of(self.outlooks, np.array([[points] for points, _ in others]),
                         np.array([[index] for _, index in others], dtype=np.int64))
        states = States(np.array([flag]), np.array([mask]), np.array([upper]))
        return turn_worth(self.model, states, win_worth(self.outlooks, np.array([banked]), field))


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
        """Return the keep with the best chance to win, or None when scoring now is as good."""
        if rolls_left not in (1, 2):
            raise ValueError(f"rolls_left must be 1 or 2, not {rolls_left}")
        return best_keep(self._turn(card), dice, rolls_left)

    def category(self, card: Any, dice: Sequence[int]) -> Any:
        """Return the box with the best chance to win (lowest slot on ties)."""
        turn = self._turn(card)
        assert turn.choice is not None
        slot = int(turn.choice[roll_number(list(dice)), 0])
        chosen = [box for box, move_slot, _, _ in self.strategy.base.box_moves(card, dice)
                  if move_slot == slot]
        return chosen[0] if chosen else self.strategy.base.category(card, dice)
