"""Statistics of the finished games: per player name and per computer strength.

For each group: games played, wins, ties, best and mean score, and a
histogram of the scores.  A win is a game of two or more players in which
the player alone had the highest total; a tie, one in which the player
shared it.  People are grouped by name, computers by strength only (a person
named ``Computer`` is not the computer).  Groups are kept apart per dice game
(``yahtzee``, ``poker-dice``), whose scores do not compare.

The games filed with win chances also tell whether the chances were honest:
the chance of the player about to roll at each turn's start, grouped per
tenth, against how often those players went on to win.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from yahtzee.players.kinds import KINDS
from yahtzee.solver.calibration import Bin, calibration
from yahtzee.storage.history import PlayerResult, predictions, results_of

if TYPE_CHECKING:
    from yahtzee.storage.port import HistoryStorage

STRENGTHS = {kind.name: kind.name for kind in KINDS if kind.strategy is not None}
"""Computer player kinds and the strength each is listed as: its kind's name (``computer``,
``expected``, a level such as ``casual``, ``greedy``), whatever names its players had."""
BUCKET_WIDTHS = (10, 20, 50, 100, 200, 500, 1000)
"""The widths a histogram's bars may have: never narrower than 10 points."""
MAX_BUCKETS = 10
"""A histogram uses the narrowest width in ``BUCKET_WIDTHS`` giving at most this many bars."""
JSON_DIGITS = 6
"""Decimals of the expected scores, costs and chances in JSON: the same on every machine.

The last bits of a float sum depend on the processor's vector instructions,
so more digits would print differently from one machine to another.
"""


@dataclass(frozen=True)
class Bucket:
    """One bar of a histogram: scores from ``low`` to ``high`` inclusive, and how many."""

    low: int
    high: int
    count: int


@dataclass(frozen=True)
class Figures:
    """The figures of one group: a player name or a computer strength, in one dice game."""

    label: str
    game: str
    played: int
    wins: int
    """Games of two or more players in which this group alone had the highest total."""
    ties: int
    """Games in which this group shared the highest total with another player."""
    best: int
    mean: float
    histogram: tuple[Bucket, ...]

    def to_json(self, key: str) -> dict[str, Any]:
        """Return the figures as JSON-able data, the group's label under ``key``."""
        return {key: self.label, "game": self.game, "played": self.played, "wins": self.wins,
                "ties": self.ties, "best": self.best, "mean": self.mean,
                "histogram": [{"low": b.low, "high": b.high, "count": b.count}
                              for b in self.histogram]}


@dataclass(frozen=True)
class Stats:
    """The statistics of the whole history."""

    games: int
    players: tuple[Figures, ...]
    computers: tuple[Figures, ...]
    chance_games: int = 0
    """The games filed with win chances."""
    calibration: tuple[Bin, ...] = ()
    """Their predictions per tenth of chance, against the outcomes."""

    def to_json(self) -> dict[str, Any]:
        """Return the statistics as JSON-able data (empty lists for an empty history).

        ``win_chances`` holds ``games``, the games filed with win chances, and
        ``calibration``, per tenth of chance: the mean chance ``predicted`` at
        a turn's start for the player about to roll, the share of those
        turns' players who won (``observed``, a tie counting its share), and
        their ``count``.
        """
        return {"games": self.games,
                "players": [f.to_json("name") for f in self.players],
                "computers": [f.to_json("strength") for f in self.computers],
                "win_chances": {"games": self.chance_games,
                                "calibration": [{"predicted": round(b.predicted, JSON_DIGITS),
                                                 "observed": round(b.observed, JSON_DIGITS),
                                                 "count": b.count}
                                                for b in self.calibration]}}


def histogram(totals: Sequence[int], width: int | None = None) -> tuple[Bucket, ...]:
    """Return the histogram of ``totals``: bars ``width`` points wide, empty ones in between kept.

    Bars start at multiples of ``width``.  Without ``width``, the narrowest of
    ``BUCKET_WIDTHS`` that needs at most ``MAX_BUCKETS`` bars is used, so that
    every bar reads as a range such as ``50-59``.
    """
    if not totals:
        return ()
    low, high = min(totals), max(totals)
    if width is None:
        width = next((w for w in BUCKET_WIDTHS if high // w - low // w + 1 <= MAX_BUCKETS),
                     BUCKET_WIDTHS[-1])
    first = low // width
    counts = [0] * (high // width - first + 1)
    for total in totals:
        counts[total // width - first] += 1
    return tuple(Bucket((first + i) * width, (first + i + 1) * width - 1, count)
                 for i, count in enumerate(counts))


def figures(label: str, game: str, results: Sequence[PlayerResult],
            tied_games: Collection[int] = ()) -> Figures:
    """Return the figures of a group's ``results`` (at least one).

    ``tied_games`` holds the games whose highest total was shared.
    """
    totals = [r.total for r in results]
    leads = [r for r in results if r.winner and r.opponents > 0]
    ties = sum(1 for r in leads if r.game_id in tied_games)
    return Figures(label, game, len(results), len(leads) - ties, ties, max(totals),
                   sum(totals) / len(totals), histogram(totals))


def compute_stats(results: Iterable[PlayerResult],
                  chances: Sequence[tuple[float, float]] = (), chance_games: int = 0) -> Stats:
    """Return the statistics of these results: people by name, computers by strength.

    ``chances`` are (predicted chance, outcome) pairs from ``chance_games`` games.
    """
    rows = list(results)
    leaders = Counter(row.game_id for row in rows if row.winner)
    tied = {game_id for game_id, count in leaders.items() if count > 1}
    by_name: dict[tuple[str, str], list[PlayerResult]] = {}
    by_strength: dict[tuple[str, str], list[PlayerResult]] = {}
    for row in rows:
        if row.kind in STRENGTHS:
            by_strength.setdefault((row.variant, STRENGTHS[row.kind]), []).append(row)
        else:
            by_name.setdefault((row.variant, row.name), []).append(row)
    order: list[str] = list(STRENGTHS.values())
    players = tuple(figures(name, game, group, tied)
                    for (game, name), group in sorted(by_name.items()))
    computers = tuple(figures(strength, game, group, tied) for (game, strength), group in
                      sorted(by_strength.items(), key=lambda i: (i[0][0], order.index(i[0][1]))))
    return Stats(len({row.game_id for row in rows}), players, computers, chance_games,
                 tuple(calibration(chances)))


def load_stats(history: HistoryStorage) -> Stats:
    """Return the statistics of the finished games in ``history`` (either back end's)."""
    games = history.games()
    return compute_stats(results_of(games), predictions(games),
                         sum(1 for game in games if game.chances))
