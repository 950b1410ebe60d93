"""The outlook: how a player's final score is spread, and from it the chance to finish first.

Every win chance the program gives comes from here: the computer that plays
to win values the ends of its turns with it, the coach's live chances, the
chances filed with a finished game, ``analyze`` and the duel's calibration.

A player's final score is the points banked plus the points still to come
under optimal play from the card's state between turns:

- after the last turn nothing is to come: the score is known;
- with one turn left or two the distribution is exact (``LastTurn``, its
  rows worked out the first time a state needs one);
- earlier it is known by four exact numbers (the state values, ``Moments``
  and ``Shape``): the mean, the variance and the third and fourth
  cumulants, and spread as the Edgeworth expansion around the normal with
  that mean and variance.  The third cumulant gives the long right tail
  (Yahtzee bonuses), the fourth the weight of the tails (a bonus made or
  missed); a normal alone promises a trailing player too much.

Players are independent, and a tie counts as a share of the win.  Against
one opponent whose score is not known exactly either, the cumulants of the
difference of the two scores are the sums (and differences) of theirs, and
the chance is the expansion's tail of that difference, in closed form; an
exact (or known) side is summed over, point by point; with more opponents
each possible score of the player is weighed by quadrature.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import pi, sqrt

import numpy as np
import numpy.typing as npt

from yahtzee.solver import accel
from yahtzee.solver.keeps import FloatArray, IntArray
from yahtzee.solver.moments import LastTurn

KNOWN = 1e-9
"""A variance below this (points squared) is a score already known."""

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


_EXCESS_STEPS = np.linspace(0.0, 4.0, 21)
"""Excess kurtosis from 0 to 4 by 0.2: where the expansion can have a density nowhere negative."""
_SKEW_LIMITS = np.array([0.133, 0.323, 0.406, 0.464, 0.509, 0.545, 0.575, 0.6, 0.62, 0.637, 0.649,
                         0.658, 0.663, 0.663, 0.659, 0.65, 0.633, 0.607, 0.564, 0.487, 0.139])
"""At each of ``_EXCESS_STEPS``, 97% of the largest skewness whose expansion has a density
nowhere negative (found numerically; linear interpolation between the steps stays inside)."""


def _standard(variance: FloatArray, third: FloatArray, fourth: FloatArray
              ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return the spread, skewness and excess kurtosis (spread 1 where the variance is 0).

    The skewness and excess kurtosis are brought inside the region where
    the expansion is a distribution (its density nowhere negative), so that
    a chance never falls when a score rises.
    """
    spread = np.sqrt(np.where(variance > KNOWN, variance, 1.0))
    excess = np.clip(np.where(variance > KNOWN, fourth / spread ** 4, 0.0),
                     _EXCESS_STEPS[0], _EXCESS_STEPS[-1])
    limit = np.interp(excess, _EXCESS_STEPS, _SKEW_LIMITS)
    skew = np.clip(np.where(variance > KNOWN, third / spread ** 3, 0.0), -limit, limit)
    return spread, skew, excess


def shaped_cdf(x: FloatArray, mean: FloatArray, variance: FloatArray, third: FloatArray,
               fourth: FloatArray) -> FloatArray:
    """Return the chance that a score with these cumulants ends below ``x``, a tie halved.

    The Edgeworth expansion to the fourth cumulant, kept within [0, 1]; the
    score takes whole points, so its value at a whole ``x`` is the chance of
    ending below plus half the chance of ending on it.  A variance of 0 is a
    known score: below counts 1, equal a half.  All arguments broadcast.
    """
    spread, skew, excess = _standard(variance, third, fourth)
    z = (x - mean) / spread
    z2 = z * z
    density = np.exp(-0.5 * z2) / sqrt(2.0 * pi)
    correction = (skew / 6.0 * (z2 - 1.0) + excess / 24.0 * z * (z2 - 3.0)
                  + skew * skew / 72.0 * z * (z2 * z2 - 10.0 * z2 + 15.0))
    shaped = np.clip(normal_cdf(z) - density * correction, 0.0, 1.0)
    step_value = np.where(x > mean, 1.0, np.where(x < mean, 0.0, 0.5))
    result: FloatArray = np.where(variance > KNOWN, shaped, step_value)
    return result


def _shaped_weights(skew: FloatArray, excess: FloatArray) -> FloatArray:
    """Return quadrature weights (N, nodes) of the expansion's density at the standard nodes.

    The normal's weights times the expansion's factor, none below 0, summing to 1.
    """
    z = _Z_NODES[None, :]
    z2 = z * z
    factor = (1.0 + skew[:, None] / 6.0 * z * (z2 - 3.0)
              + excess[:, None] / 24.0 * (z2 * z2 - 6.0 * z2 + 3.0)
              + (skew * skew)[:, None] / 72.0 * (z2 * z2 * z2 - 15.0 * z2 * z2 + 45.0 * z2
                                                 - 15.0))
    weights = _Z_WEIGHTS[None, :] * np.maximum(factor, 0.0)
    result: FloatArray = weights / weights.sum(axis=1, keepdims=True)
    return result


@dataclass(frozen=True)
class Outlooks:
    """Per state between turns, what is known of the points still to come under optimal play.

    The mean, the variance and the third and fourth cumulants for every
    state (flat, indexed like the value table), and for a state with a row
    in ``last`` (one turn left, or two; when given) the exact distribution.
    Without ``last`` or the higher cumulants (zeros), the outlook is normal.
    """

    mean: FloatArray
    variance: FloatArray
    third: npt.NDArray[np.floating]
    fourth: npt.NDArray[np.floating]
    last: LastTurn | None = None

    @classmethod
    def of(cls, values: FloatArray, second: FloatArray,
           shape: tuple[npt.NDArray[np.floating], npt.NDArray[np.floating]] | None = None,
           last: LastTurn | None = None) -> Outlooks:
        """Return the outlooks from the value table, the second moments, the higher cumulants.

        ``shape`` is (third, fourth) cumulants, as ``moments.Shape`` holds
        them; None leaves them 0 (a normal outlook).
        """
        mean = values.ravel()
        variance = np.maximum(second.ravel() - mean * mean, 0.0)
        if shape is None:
            zeros = np.zeros(1, dtype=np.float32)
            third, fourth = (np.broadcast_to(zeros, mean.shape),) * 2
        else:
            third, fourth = shape[0].ravel(), shape[1].ravel()
        return cls(mean, variance, third, fourth, last)

    def rows(self, index: IntArray) -> IntArray:
        """Return the last-turn rows of the states ``index`` (-1: use the cumulants)."""
        if self.last is None:
            return np.full(np.shape(index), -1, dtype=np.int64)
        return self.last.rows(np.asarray(index, dtype=np.int64))


@dataclass(frozen=True)
class Field:
    """The opponents of B players (one per game), each opponent's final score as known now.

    Every array has shape (R, B), one row per opponent: the mean and the
    variance of its final score, its third and fourth cumulants, its points
    so far and, where its points to come are exactly known (``rows`` >= 0),
    the row of its exact distribution.
    """

    means: FloatArray
    variances: FloatArray
    thirds: FloatArray
    fourths: FloatArray
    banked: FloatArray
    rows: IntArray

    @classmethod
    def of(cls, outlooks: Outlooks, banked: FloatArray, index: IntArray) -> Field:
        """Return the field of opponents with ``banked`` points in the states ``index`` (R, B)."""
        return cls(banked + outlooks.mean.take(index), outlooks.variance.take(index),
                   outlooks.third.take(index).astype(np.float64),
                   outlooks.fourth.take(index).astype(np.float64), banked,
                   outlooks.rows(index))

    def __len__(self) -> int:
        """Return the number of opponents."""
        return len(self.means)

    def part(self, columns: IntArray) -> Field:
        """Return the field of the players ``columns``."""
        return Field(self.means[:, columns], self.variances[:, columns],
                     self.thirds[:, columns], self.fourths[:, columns],
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
        share[~exact] = shaped_cdf(x[~exact], field.means[r, c][:, None],
                                   field.variances[r, c][:, None], field.thirds[r, c][:, None],
                                   field.fourths[r, c][:, None])
    if exact.any():
        assert last is not None
        need = x[exact] - field.banked[r, columns[exact]][:, None]
        whole = np.floor(need)
        length = last.pmf.shape[1]
        at = np.clip(whole, 0, length - 1).astype(np.int64)
        row = rows[exact][:, None]
        at_most = np.where(whole >= 0, last.cdf[row, at], 0.0)
        exactly = np.where((whole >= 0) & (whole < length) & (need == whole),
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


@dataclass(frozen=True)
class _Players:
    """The players whose chances are asked for, flat: points, state and outlook."""

    now: FloatArray
    index: IntArray
    columns: IntArray
    mean: FloatArray
    variance: FloatArray
    third: FloatArray
    fourth: FloatArray
    rows: IntArray

    def exact(self) -> npt.NDArray[np.bool_]:
        """Return which players' final scores are known or exactly distributed."""
        result: npt.NDArray[np.bool_] = (self.rows >= 0) | (self.variance <= KNOWN)
        return result


def _pmf_of(points: FloatArray, rows: IntArray, last: LastTurn | None
            ) -> tuple[FloatArray, FloatArray]:
    """Return the possible final scores (N, K) and their chances, for players known or exact.

    ``points`` is each one's final score so far (its banked points, or its
    known final score when ``rows`` is -1, a player whose last turn is
    still to play has the scores of its row); the padding has chance 0.
    """
    exact = rows >= 0
    size = 1
    if last is not None and exact.any():
        size = int(last.size[rows[exact]].max())
    scores: FloatArray = np.repeat(points[:, None], size, axis=1)
    chances = np.zeros((len(points), size))
    chances[~exact, 0] = 1.0
    if exact.any():
        assert last is not None
        scores[exact] += last.points[rows[exact], :size]
        chances[exact] = last.chances[rows[exact], :size]
    return scores, chances


def _against_one(players: _Players, mask: npt.NDArray[np.bool_], field: Field,
                 last: LastTurn | None) -> FloatArray:
    """Return the chances of players (``mask``) with a spread outlook against one opponent.

    Two spread outlooks: the expansion's tail of the difference.  A known or
    exactly distributed opponent: its scores weighed against the player's
    outlook, so that both players' chances add up to 1.
    """
    c = players.columns[mask]
    result = np.empty(int(mask.sum()))
    other_rows = field.rows[0, c]
    other_exact = (other_rows >= 0) | (field.variances[0, c] <= KNOWN)
    spread = ~other_exact
    if spread.any():
        m = np.flatnonzero(mask)[spread]
        o = c[spread]
        result[spread] = 1.0 - shaped_cdf(
            np.zeros(len(m)), players.mean[m] - field.means[0, o],
            players.variance[m] + field.variances[0, o], players.third[m] - field.thirds[0, o],
            players.fourth[m] + field.fourths[0, o])
    if other_exact.any():
        m = np.flatnonzero(mask)[other_exact]
        o = c[other_exact]
        rows = other_rows[other_exact]
        points = np.where(rows >= 0, field.banked[0, o], field.means[0, o])
        scores, chances = _pmf_of(points, rows, last)
        below = shaped_cdf(scores, players.mean[m, None], players.variance[m, None],
                           players.third[m, None], players.fourth[m, None])
        result[other_exact] = 1.0 - (chances * below).sum(axis=1)
    return result


def seat_chances(banked: FloatArray, index: IntArray, outlooks: Outlooks) -> FloatArray:
    """Return every player's chance (P, N) to finish first against the others of its position.

    ``banked`` and ``index`` (P, N) are each of P players' points and flat
    state index in each of N positions: player ``p`` of position ``n`` meets
    the other players of position ``n`` (``chance_to_win`` against their
    ``Field``).  With three players or more the chances are not scaled to add
    up to 1.  Worked out by the compiled kernel in one call where it is at
    hand (the same numbers), else by numpy.
    """
    players, count = np.shape(banked)
    fast = accel.seat_chances(banked, index, outlooks, (_Z_NODES, _Z_WEIGHTS),
                              (_EXCESS_STEPS, _SKEW_LIMITS))
    if fast is not None:
        return fast
    # Every seat at once, as P * N players of one call: seat s's column s * N + n meets
    # the other seats of position n (numpy's cost is per call, not per number).
    others = np.array([[p for p in range(players) if p != seat] for seat in range(players)])
    field = Field.of(outlooks, banked[others.T].reshape(players - 1, -1),
                     index[others.T].reshape(players - 1, -1))
    return chance_to_win(banked.reshape(-1), index.reshape(-1), np.arange(players * count),
                         field, outlooks).reshape(players, count)


def chance_to_win(banked: FloatArray, index: IntArray, columns: IntArray, field: Field,
                  outlooks: Outlooks) -> FloatArray:
    """Return the chance to finish first of players with ``banked`` points in states ``index``.

    All three arrays have one entry per player, ``columns`` naming its
    column of ``field``.  A player whose score is known, or exact with one
    turn left, has each possible score weighed against the opponents; one
    whose outlook is spread meets a single opponent in closed form, more
    opponents by quadrature over its own expansion.  The compiled kernel
    works the same out where it is at hand (``accel.win_chances``).
    """
    shape = np.shape(banked)
    now = np.ravel(banked).astype(np.float64)
    where = np.ravel(index).astype(np.int64)
    players = _Players(now, where, np.ravel(columns).astype(np.int64),
                       now + outlooks.mean.take(where), outlooks.variance.take(where),
                       outlooks.third.take(where).astype(np.float64),
                       outlooks.fourth.take(where).astype(np.float64), outlooks.rows(where))
    last = outlooks.last
    if 1 <= len(field) <= accel.MOST_OTHERS:
        fast = accel.win_chances(
            np.stack((now, players.mean, players.variance, players.third, players.fourth)),
            players.rows, players.columns,
            np.stack((field.means, field.variances, field.thirds, field.fourths, field.banked)),
            field.rows, (_Z_NODES, _Z_WEIGHTS), (_EXCESS_STEPS, _SKEW_LIMITS), last)
        if fast is not None:
            return fast.reshape(shape)
    result = np.empty(len(now))
    exact = players.exact()
    if exact.any():
        points = np.where(players.rows[exact] >= 0, now[exact], players.mean[exact])
        scores, chances = _pmf_of(points, players.rows[exact], last)
        result[exact] = _expected_share(scores, chances, field, players.columns[exact], last)
    spread = ~exact
    if spread.any() and len(field) == 1:
        result[spread] = _against_one(players, spread, field, last)
    elif spread.any():
        sd, skew, excess = _standard(players.variance[spread], players.third[spread],
                                     players.fourth[spread])
        scores = players.mean[spread, None] + sd[:, None] * _Z_NODES[None, :]
        result[spread] = _expected_share(scores, _shaped_weights(skew, excess), field,
                                         players.columns[spread], last)
    np.clip(result, 0.0, 1.0, out=result)  # sums of exact chances can pass 1 by a rounding
    return result.reshape(shape)
