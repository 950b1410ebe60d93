"""Chances to finish first, from each player's distribution of final scores.

Players' remaining scores are independent (no one's dice or choices change
another's points), so the chance that a player finishes first is a sum over
that player's possible finals of the chance that every other player ends
lower, a tie sharing the win equally (two tied players get half each).

A player's final score is given as a distribution over whole points, either
exactly (a finished card: one total) or, for a game still being played, as
the normal distribution with the exact mean and variance of optimal play,
spread over whole points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import sqrt

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

SPREAD = 6.0
"""Standard deviations either side of the mean that a distribution covers."""


@dataclass(frozen=True)
class Outlook:
    """A player's final score as a distribution: its mean and variance (0: already known)."""

    mean: float
    variance: float

    def pmf(self, low: int, high: int) -> FloatArray:
        """Return the chances of each whole final score from ``low`` to ``high``.

        A known score (variance 0, or nearly) is certain; otherwise the normal
        distribution with this mean and variance, each whole score taking the
        chance of the half-point either side of it, renormalised to the range.
        """
        points = np.arange(low, high + 1, dtype=np.float64)
        if self.variance < 1e-9:
            certain = np.zeros(len(points))
            certain[int(round(self.mean)) - low] = 1.0
            return certain
        sd = sqrt(self.variance)
        edges = np.concatenate((points - 0.5, [points[-1] + 0.5]))
        cdf = _normal_cdf((edges - self.mean) / sd)
        chances: FloatArray = np.diff(cdf)
        total = chances.sum()
        return chances / total if total > 0 else chances

    def span(self) -> tuple[int, int]:
        """Return the whole scores this distribution gives any weight to."""
        reach = SPREAD * sqrt(max(self.variance, 0.0))
        return int(np.floor(self.mean - reach)), int(np.ceil(self.mean + reach))


def _normal_cdf(z: FloatArray) -> FloatArray:
    """Return the standard normal distribution function at ``z``."""
    from math import erf
    values = np.fromiter(map(erf, (z / sqrt(2.0)).tolist()), dtype=np.float64, count=len(z))
    result: FloatArray = 0.5 * (1.0 + values)
    return result


def win_chances(outlooks: Sequence[Outlook]) -> list[float]:
    """Return each player's chance to finish first, ties shared equally; they sum to 1.

    With one player there is no one to beat: the chance is 1.
    """
    if len(outlooks) == 1:
        return [1.0]
    spans = [o.span() for o in outlooks]
    low, high = min(s[0] for s in spans), max(s[1] for s in spans)
    pmfs = [o.pmf(low, high) for o in outlooks]
    below = [np.concatenate(([0.0], np.cumsum(p)[:-1])) for p in pmfs]
    chances = []
    for i, pmf in enumerate(pmfs):
        # For each score x: the integral over z in [0, 1] of the product, over the
        # others, of (P(X_j < x) + P(X_j = x) z) is the expected share of a win at x.
        poly = np.zeros((1, len(pmf)))
        poly[0] = 1.0
        for j in range(len(pmfs)):
            if j == i:
                continue
            grown = np.zeros((poly.shape[0] + 1, len(pmf)))
            grown[:-1] += poly * below[j]
            grown[1:] += poly * pmfs[j]
            poly = grown
        share = sum(poly[t] / (t + 1) for t in range(poly.shape[0]))
        chances.append(float(np.dot(pmf, share)))
    total = sum(chances)
    return [c / total for c in chances]
