"""A finished game's review: ``analyze``'s figures, turn by turn, as data, JSON and a text chart.

One function, ``make_review``, works out everything ``analyze`` shows (and
``analyze --json`` exports) for a game of the history: each player's
``final = optimum + luck - total_cost``, every judged decision, the win
chances at each turn's start, and a row per turn and player (the rolls, the
keeps, the box, the better moves, the turn's cost and luck) whose costs and
luck add up to the player's ``total_cost`` and ``luck``.  The console, the
``--html`` file and the browser's review page all read it, so they show the
same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from yahtzee.domain.card import Variant
from yahtzee.domain.games import get_variant
from yahtzee.engine.records import REROLLS, Decision, TurnChances, turn_summaries
from yahtzee.interfaces.streams import printable
from yahtzee.interfaces.wording import cost_text, faces, move_text
from yahtzee.players.kinds import strategies_of
from yahtzee.solver.coach import Assessment, Keep, PlayerAnalysis, RollLuck
from yahtzee.storage.history import HistoryGame
from yahtzee.storage.stats import JSON_DIGITS

if TYPE_CHECKING:
    from yahtzee.app.session import Solvers

SHOWN_COST = 0.05
"""A decision costing less than this (a twentieth of a point) is not called a mistake."""
SWINGS = 3
"""How many of the turns that moved a chance most the review marks."""
CHART_ROWS = 10
"""The text chart's height in steps of chance (ten: one line per 10%)."""
CHART_STEP = 4
"""Columns between two rounds of the text chart."""
ROLL_NAMES = {1: "first roll", 2: "second roll", 3: "third roll"}
"""How a roll of a turn is named in words, by its number."""


@dataclass(frozen=True)
class TurnRow:
    """One turn of one player: what was rolled, kept and scored, and what it cost and gained.

    ``rolls`` are the dice shown after each roll, ``keeps`` the dice kept at
    each re-roll; ``cost`` is the sum of the turn's decisions' costs and
    ``luck`` of its rolls' luck; ``chance`` the player's win chance as the
    turn started (None without chances).  ``points`` is all the turn added;
    ``bonus`` the part of it that is a Yahtzee bonus earned on top of the box
    (official rules' joker: 40 in Large Straight and 100 more).
    """

    round: int
    seat: int
    rolls: tuple[tuple[int, ...], ...]
    keeps: tuple[tuple[int, ...], ...]
    box: str
    points: int
    cost: float
    luck: float
    decisions: tuple[Assessment, ...]
    chance: float | None
    bonus: int = 0

    def mistakes(self) -> list[Assessment]:
        """Return the turn's decisions that cost at least ``SHOWN_COST``, in order."""
        return [a for a in self.decisions if a.cost >= SHOWN_COST]


@dataclass(frozen=True)
class Swing:
    """A turn that moved its player's win chance a lot: from ``before`` to ``after``."""

    round: int
    seat: int
    before: float
    after: float
    turn: int = 0
    """The turn's place among every turn's start (``Review.chances``), from 0."""

    @property
    def change(self) -> float:
        """How much the chance moved (negative: it fell)."""
        return self.after - self.before


@dataclass(frozen=True)
class Review:
    """Everything a finished game's review shows, in seating order."""

    game: HistoryGame
    variant: Variant
    analyses: tuple[PlayerAnalysis, ...]
    chances: tuple[TurnChances, ...]
    recorded: bool
    """Whether the chances were filed with the game (False: worked out again now)."""
    rows: tuple[tuple[TurnRow, ...], ...]
    """Each player's turns, in order."""

    @property
    def names(self) -> list[str]:
        """The players' names, in seating order."""
        return [a.name for a in self.analyses]

    def outcome(self) -> list[float]:
        """Return each player's share of the win: 1 alone in the lead, 1/k for a k-way tie."""
        leaders = [p.winner for p in self.game.players]
        count = max(sum(leaders), 1)
        return [1 / count if lead else 0.0 for lead in leaders]

    def chance_lines(self) -> list[list[float]]:
        """Return each player's win chance at each round's start and, last, the share won.

        Empty lists for a game of one player.
        """
        if len(self.analyses) < 2 or not any(a.chances for a in self.analyses):
            return [[] for _ in self.analyses]
        return [[*a.chances, share] for a, share in zip(self.analyses, self.outcome())]

    def turn_points(self) -> list[list[tuple[float, float]]]:
        """Return each player's win chance at every turn's start and at the end, placed in time.

        A point is (rounds played before it, chance): the turn of the k-th
        of n players in round r is at ``r - 1 + k / n``, the end at the
        number of rounds.  Empty lists for a game of one player.
        """
        if len(self.analyses) < 2 or not self.chances:
            return [[] for _ in self.analyses]
        return [[*((self.turn_place(i), t.chances[seat]) for i, t in enumerate(self.chances)),
                 (float(self.variant.rounds), share)]
                for seat, share in enumerate(self.outcome())]

    def turn_place(self, turn: int) -> float:
        """Return where the ``turn``-th turn's start lies in time (the end: the rounds)."""
        if turn >= len(self.chances):
            return float(self.variant.rounds)
        start = self.chances[turn]
        first = self.chances[0].round
        return start.round - first + start.seat / len(self.analyses)

    def swings(self, count: int = SWINGS) -> list[Swing]:
        """Return the ``count`` turns that moved their player's win chance most, largest first."""
        if len(self.analyses) < 2 or not self.chances:
            return []
        ends = [t.chances for t in self.chances[1:]] + [tuple(self.outcome())]
        moves = [Swing(t.round, t.seat, t.chances[t.seat], end[t.seat], turn)
                 for turn, (t, end) in enumerate(zip(self.chances, ends))]
        ranked = sorted(moves, key=lambda s: (-abs(s.change), s.round, s.seat))
        return [s for s in ranked[:count] if abs(s.change) >= 0.005]

    def rolls_ranked(self, seat: int) -> list[RollLuck]:
        """Return a player's rolls from the luckiest to the unluckiest."""
        return sorted(self.analyses[seat].rolls, key=lambda r: (-r.luck, r.round))


def make_review(game: HistoryGame, log: Sequence[Decision], setup: Solvers) -> Review:
    """Return the review of a finished game: ``analyze``'s figures, turn by turn.

    The win chances are those filed with the game; a game filed without
    them has them worked out from its decisions (the same numbers).
    ``setup`` makes the coach (``SolverUnavailableError`` without numpy).
    """
    variant = get_variant(game.variant, game.rules)
    names = [p.name for p in game.players]
    recorded = bool(game.chances)
    coach = setup.coach(variant, profiles=not recorded and len(names) > 1)
    strategies = strategies_of([p.kind for p in game.players])
    chances = tuple(game.chances if recorded else coach.turn_chances(len(names), log, strategies))
    analyses = tuple(coach.analyze(names, log, chances))
    bonuses = {(turn.round, turn.seat): turn.item.bonus
               for turn in turn_summaries(log, variant, len(names))}
    rows = tuple(turn_rows(a, seat, log, chances, bonuses)
                 for seat, a in enumerate(analyses))
    return Review(game, variant, analyses, chances, recorded, rows)


def turn_rows(analysis: PlayerAnalysis, seat: int, log: Sequence[Decision],
              chances: Sequence[TurnChances] = (),
              bonuses: Mapping[tuple[int, int], int] | None = None) -> tuple[TurnRow, ...]:
    """Return the player's turns, each with its rolls, keeps, box, cost and luck.

    ``bonuses`` gives the Yahtzee bonus within a turn's points, by round and
    seat (``turn_summaries``'s; none given: no bonus shown apart).

    The rows' costs add up to ``analysis.total_cost`` and their luck to
    ``analysis.luck`` (up to float rounding).
    """
    scored = {d.round: (d.label or "", d.points or 0) for d in log
              if d.seat == seat and d.label is not None}
    starts = {(t.round, t.seat): t.chances[t.seat] for t in chances}
    bonuses = bonuses or {}
    return tuple(_turn_row(analysis, seat, number, scored.get(number, ("", 0)),
                           starts.get((number, seat)), bonuses.get((number, seat), 0))
                 for number in sorted({d.round for d in log if d.seat == seat}))


def _turn_row(analysis: PlayerAnalysis, seat: int, number: int, scored: tuple[str, int],
              chance: float | None, bonus: int = 0) -> TurnRow:
    """Return one turn's row: round ``number`` of the player, with the box and points scored
    (``bonus`` of them a Yahtzee bonus)."""
    decisions = tuple(a for a in analysis.decisions if a.round == number)
    rolls = [r for r in analysis.rolls if r.round == number]
    keeps = tuple(a.choice.values for a in decisions
                  if isinstance(a.choice, Keep) and not a.choice.scores_now)
    return TurnRow(number, seat, tuple(r.dice for r in rolls), keeps, scored[0], scored[1],
                   sum(a.cost for a in decisions), sum(r.luck for r in rolls), decisions, chance,
                   bonus)


def roll_number(rolls_left: int) -> int:
    """Return which roll of its turn showed dice with ``rolls_left`` re-rolls left (1 to 3)."""
    return REROLLS + 1 - rolls_left


def stage_words(a: Assessment) -> str:
    """Return when a decision was taken, in words: ``after the first roll`` or ``at scoring``."""
    if a.rolls_left == 0:
        return "at scoring"
    return f"after the {ROLL_NAMES[roll_number(a.rolls_left)]}"


def mistake_words(a: Assessment, variant: Variant) -> str:
    """Return a costly decision in plain words, the better move and what it gave up."""
    dice = faces(a.dice, variant)
    if isinstance(a.choice, Keep):
        done = ("scored these dice" if a.choice.scores_now
                else f"kept {faces(a.choice.values, variant) or 'nothing'} and rolled")
        return (f"Round {a.round}, {stage_words(a)} ({dice}): {done}; "
                f"{best_words(a, variant)} was worth {cost_text(a.cost)} points more on average.")
    return (f"Round {a.round}, scoring {dice}: chose {a.choice.name}; "
            f"{a.best.name if not isinstance(a.best, Keep) else move_text(a.best, variant)} "
            f"was worth {cost_text(a.cost)} points more on average.")


def best_words(a: Assessment, variant: Variant) -> str:
    """Return the better move in words, naming the box where it was to score now.

    ``score Large Straight now`` rather than the console's ``score now``: the
    review shows a decision long after its dice, with no box advice beside it.
    """
    if isinstance(a.best, Keep) and a.best.scores_now and a.best_box is not None:
        return f"score {a.best_box} now"
    return move_text(a.best, variant)


def roll_words(roll: RollLuck, variant: Variant) -> str:
    """Return a roll's luck in plain words: which roll, its dice, how far from expectation."""
    way = "better" if roll.luck >= 0 else "worse"
    return (f"round {roll.round}, {ROLL_NAMES[roll_number(roll.rolls_left)]}, "
            f"{faces(roll.dice, variant)}: {abs(roll.luck):.1f} points {way} than expected")


def better_moves(row: TurnRow, variant: Variant) -> list[str]:
    """Return the better move at each of the turn's costly decisions, with its cost."""
    return [f"{stage_words(a)}: {best_words(a, variant)} (cost {cost_text(a.cost)})"
            for a in row.mistakes()]


# -- JSON ------------------------------------------------------------------

def assessment_json(a: Assessment, variant: Variant) -> dict[str, Any]:
    """Return one judged decision as JSON-ready data, its moves in words."""
    return {"round": a.round, "seat": a.seat, "rolls_left": a.rolls_left, "dice": list(a.dice),
            "choice": move_text(a.choice, variant), "best": move_text(a.best, variant),
            "expected_choice": round(a.expected_choice, JSON_DIGITS),
            "expected_best": round(a.expected_best, JSON_DIGITS),
            "cost": round(a.cost, JSON_DIGITS)}


def turn_json(row: TurnRow, variant: Variant) -> dict[str, Any]:
    """Return one turn's row as JSON-ready data."""
    return {"round": row.round, "rolls": [list(r) for r in row.rolls],
            "keeps": [list(k) for k in row.keeps], "box": row.box, "points": row.points,
            "better": better_moves(row, variant), "cost": round(row.cost, JSON_DIGITS),
            "luck": round(row.luck, JSON_DIGITS) + 0.0,
            "chance": None if row.chance is None else round(row.chance, JSON_DIGITS)}


def analysis_json(analyses: Sequence[PlayerAnalysis], variant: Variant,
                  turns: Sequence[TurnChances] = (),
                  rows: Sequence[Sequence[TurnRow]] | None = None) -> dict[str, Any]:
    """Return the analysis as ``{"players": [...], "turn_chances": [...]}``, in seating order.

    Each player has ``name``, ``optimum``, ``luck``, ``total_cost``, ``final``
    (``final == optimum + luck - total_cost``, to rounding), ``win_chances``
    (at each round's start; empty for one player) and ``decisions``, and
    with ``rows`` also ``turns``: a row per turn (``turn_json``).
    ``turn_chances`` lists ``turns``: at each turn's start, the ``round``,
    the ``seat`` (from 0) about to roll and every player's ``chances``.
    """
    players = []
    for seat, a in enumerate(analyses):
        player = {"name": a.name, "optimum": round(a.optimum, JSON_DIGITS),
                  "luck": round(a.luck, JSON_DIGITS) + 0.0,
                  "total_cost": round(a.total_cost, JSON_DIGITS), "final": a.final,
                  "win_chances": [round(c, JSON_DIGITS) for c in a.chances],
                  "decisions": [assessment_json(d, variant) for d in a.decisions]}
        if rows is not None:
            player["turns"] = [turn_json(row, variant) for row in rows[seat]]
        players.append(player)
    return {"players": players,
            "turn_chances": [{"round": t.round, "seat": t.seat,
                              "chances": [round(c, JSON_DIGITS) for c in t.chances]}
                             for t in turns]}


def review_json(review: Review) -> dict[str, Any]:
    """Return ``analyze --json``'s answer for a review: the game's number, then the analysis."""
    return {"game_id": review.game.game_id, "chances_recorded": review.recorded,
            **analysis_json(review.analyses, review.variant, review.chances, review.rows)}


# -- the text chart ----------------------------------------------------------

def chart_marks(count: int) -> list[str]:
    """Return the mark of each player's line in the text chart: ``1``, ``2`` ... by seat."""
    return [str(seat + 1) for seat in range(count)]


def _plot(grid: list[list[str]], line: Sequence[float], mark: str) -> None:
    """Draw one player's line into ``grid``: its mark at each round, dots in between."""
    def put(row: int, column: int, char: str) -> None:
        """Set a cell; a cell another line already holds becomes ``*``."""
        here = grid[row][column]
        if here in (" ", "."):
            grid[row][column] = char
        elif here != char and char != ".":
            grid[row][column] = "*"

    for i, value in enumerate(line):
        if i > 0:
            previous = line[i - 1]
            for step in range(1, CHART_STEP):
                between = previous + (value - previous) * step / CHART_STEP
                put(round((1 - between) * CHART_ROWS), (i - 1) * CHART_STEP + step, ".")
        put(round((1 - value) * CHART_ROWS), i * CHART_STEP, mark)


def chart_lines(review: Review) -> list[str]:
    """Return the win-chance chart in text, at most 80 columns: one line of marks per player.

    The y axis is the chance from 0 to 100% in steps of 10%, the x axis the
    rounds' starts and, last, the end (the share of the win each got).
    Empty for a game without chances.
    """
    lines = review.chance_lines()
    if not any(lines):
        return []
    points = max(len(line) for line in lines)
    grid = [[" "] * ((points - 1) * CHART_STEP + 1) for _ in range(CHART_ROWS + 1)]
    marks = chart_marks(len(lines))
    for line, mark in zip(lines, marks):
        _plot(grid, line, mark)
    out = ["Chance to win at each round's start, and at the end the share of the win:"]
    legend = [f"{mark} = {printable(name)}" for mark, name in zip(marks, review.names)]
    shown = "  "
    for entry in [*legend, "* = more than one"]:
        if len(shown) + len(entry) > 78 and shown.strip():
            out.append(shown.rstrip())
            shown = "  "
        shown += entry + "   "
    out.append(shown.rstrip())
    for row, cells in enumerate(grid):
        label = f"{100 - row * 100 // CHART_ROWS}%" if row % 2 == 0 else ""
        out.append(f"{label:>5} |{''.join(cells).rstrip()}")
    out.append("      +" + "-" * (len(grid[0]) - 1))
    ticks = "".join(f"{n:<{CHART_STEP}}" for n in range(1, points)) + "end"
    out.append(f"Round  {ticks}")
    return out


def swing_words(swing: Swing, names: Sequence[str]) -> str:
    """Return a turn that moved a chance, in words."""
    way = "rose" if swing.change > 0 else "fell"
    name = names[swing.seat]
    return (f"Round {swing.round}, {name}'s turn: {name}'s chance to win {way} from "
            f"{swing.before * 100:.0f}% to {swing.after * 100:.0f}%")
