"""The coach: advice before a human's decisions, and the cost of every decision of a game.

The optimal strategy knows the expected final score of every choice; a
decision's cost is how much less the choice made leads to than the best one.
Only rolls and scoring choices are decisions: toggling dice just prepares a
roll, whose kept dice are the saved ones at the moment of ``roll``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, cast

from yahtzee.console import Console
from yahtzee.dice import Dice
from yahtzee.game import Decision
from yahtzee.player import load_strategy, saved_flags
from yahtzee.variant import Card, Variant

TOP_DECISIONS = 3
"""How many of a player's costliest decisions the analysis lists."""


class Box(Protocol):
    """A score-card box as the coach names it: its menu number and (by ``str``) its name."""

    @property
    def number(self) -> int:
        """The box's menu number."""
        ...


class ValueStrategy(Protocol):
    """An optimal strategy that can also tell the expected final score of every choice."""

    def keep_values(self, card: Any, dice: Sequence[int],
                    rolls_left: int) -> dict[tuple[int, ...], float]:
        """Return each keep's expected final score (keeping all five: scoring now)."""
        ...

    def keep(self, card: Any, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the keep optimal play makes, or None to score now."""
        ...

    def category_values(self, card: Any, dice: Sequence[int]) -> dict[Any, float]:
        """Return each legal box's expected final score."""
        ...

    def category(self, card: Any, dice: Sequence[int]) -> Any:
        """Return the box optimal play scores."""
        ...


def keep_text(keep: Sequence[int], dice_count: int, variant: Variant) -> str:
    """Return a keep in words: ``keep 3 3 5 and roll``, ``roll all`` or ``score now``."""
    if len(keep) == dice_count:
        return "score now"
    if not keep:
        return "roll all"
    return "keep " + " ".join(variant.face(v) for v in sorted(keep)) + " and roll"


@dataclass(frozen=True)
class Assessment:
    """One decision judged against optimal play."""

    round: int
    seat: int
    rolls_left: int
    dice: tuple[int, ...]
    choice: str
    best: str
    expected_choice: float
    expected_best: float

    @property
    def cost(self) -> float:
        """The expected final points lost by this decision (0 for an optimal one)."""
        return max(0.0, self.expected_best - self.expected_choice)

    def stage(self) -> str:
        """Return when the decision was taken: after which roll, or at scoring."""
        return {2: "after roll 1", 1: "after roll 2"}.get(self.rolls_left, "scoring")

    def as_json(self) -> dict[str, Any]:
        """Return the decision as a JSON-ready dict."""
        return {**asdict(self), "dice": list(self.dice), "cost": self.cost}


@dataclass(frozen=True)
class PlayerAnalysis:
    """Every judged decision of one player."""

    name: str
    decisions: tuple[Assessment, ...]

    @property
    def total_cost(self) -> float:
        """The expected points lost over the whole game."""
        return sum(a.cost for a in self.decisions)

    def turns(self) -> int:
        """Return how many turns the player scored."""
        return sum(1 for a in self.decisions if a.rolls_left == 0)

    def costliest(self, count: int = TOP_DECISIONS) -> list[Assessment]:
        """Return the ``count`` costliest decisions that cost anything, worst first."""
        ranked = sorted((a for a in self.decisions if a.cost > 1e-9),
                        key=lambda a: (-a.cost, a.round))
        return ranked[:count]


class Coach:
    """Advises with, and judges against, the optimal strategy for one rule set."""

    def __init__(self, variant: Variant) -> None:
        """Coach games of ``variant``; the strategy's table is loaded on first use."""
        self.variant = variant
        self._strategy: ValueStrategy | None = None

    @property
    def strategy(self) -> ValueStrategy:
        """The optimal strategy (its table is built or loaded the first time)."""
        if self._strategy is None:
            self._strategy = cast(ValueStrategy,
                                  load_strategy("optimal", self.variant.rules_name))
        return self._strategy

    # -- advice ----------------------------------------------------------
    def roll_advice(self, card: Card, dice: Sequence[int], saved: Sequence[bool],
                    rolls_left: int) -> str:
        """Return the best keep for these dice, in words, with its expected final score.

        A keep of some dice also names the dice to have saved when rolling.
        """
        values, keep = self._keeps(card, dice, rolls_left)
        text = keep_text(keep, len(dice), self.variant)
        if 0 < len(keep) < len(dice):
            flags = saved_flags(dice, saved, keep)
            which = " ".join(str(i + 1) for i, flag in enumerate(flags) if flag)
            where = (f"dice {which} saved" if list(flags) == list(saved)
                     else f"save only dice {which}")
            text = text.replace(" and roll", f" ({where}) and roll")
        elif not keep and any(saved):
            text = "unsave every die and roll"
        return f"{text} (expected final score {values[keep]:.1f})"

    def category_advice(self, card: Card, dice: Sequence[int]) -> str:
        """Return the best box for these dice, with its expected final score."""
        values, box = self._boxes(card, dice)
        return f"score {box.number} ({box}) (expected final score {values[box]:.1f})"

    def _keeps(self, card: Card, dice: Sequence[int],
               rolls_left: int) -> tuple[dict[tuple[int, ...], float], tuple[int, ...]]:
        """Return every keep's expected final score and the keep the strategy makes."""
        strategy = self.strategy
        values = strategy.keep_values(card, dice, rolls_left)
        keep = strategy.keep(card, dice, rolls_left)
        return values, tuple(sorted(dice)) if keep is None else keep

    def _boxes(self, card: Card, dice: Sequence[int]) -> tuple[dict[Any, float], Box]:
        """Return every legal box's expected final score and the box the strategy picks."""
        strategy = self.strategy
        return strategy.category_values(card, dice), strategy.category(card, dice)

    # -- analysis --------------------------------------------------------
    def analyze(self, names: Sequence[str], log: Sequence[Decision]) -> list[PlayerAnalysis]:
        """Judge every roll and scoring decision of a game's log, player by player."""
        cards = [self.variant.new_card() for _ in names]
        judged: list[list[Assessment]] = [[] for _ in names]
        for d in log:
            card = cards[d.seat]
            if d.label is not None:
                judged[d.seat].append(self._judge_box(card, d))
                card.choose_number(int(d.command), Dice.of(d.dice))
            elif d.command in ("roll", "score"):
                judged[d.seat].append(self._judge_keep(card, d))
        return [PlayerAnalysis(name, tuple(a)) for name, a in zip(names, judged)]

    def _judge_keep(self, card: Card, d: Decision) -> Assessment:
        """Judge a ``roll`` (keeping the saved dice) or a ``score`` (keeping all)."""
        values, best = self._keeps(card, d.dice, d.rolls_left)
        if d.command == "score":
            kept = tuple(sorted(d.dice))
        else:
            kept = tuple(sorted(v for v, s in zip(d.dice, d.saved) if s))
        n = len(d.dice)
        return Assessment(d.round, d.seat, d.rolls_left, d.dice,
                          keep_text(kept, n, self.variant), keep_text(best, n, self.variant),
                          values[kept], values[best])

    def _judge_box(self, card: Card, d: Decision) -> Assessment:
        """Judge a scoring choice."""
        values, best = self._boxes(card, d.dice)
        chosen = next(box for box in values if box.number == int(d.command))
        return Assessment(d.round, d.seat, 0, d.dice, f"score {chosen}", f"score {best}",
                          values[chosen], values[best])


def analysis_json(analyses: Sequence[PlayerAnalysis]) -> dict[str, Any]:
    """Return the analysis as ``{"players": [{"name", "total_cost", "decisions"}]}``."""
    return {"players": [{"name": a.name, "total_cost": a.total_cost,
                         "decisions": [d.as_json() for d in a.decisions]} for a in analyses]}


def run_analyze(game_id: str | None, as_json: bool, console: Console) -> int:
    """Analyze a finished game of the history (the latest when ``game_id`` is None).

    Print the analysis (as JSON if asked) and return the exit status: 2 for
    an ID that names no finished game, 1 when there is nothing to analyze.
    """
    from yahtzee.cli import make_variant
    from yahtzee.storage.history import History
    from yahtzee.storage.problems import StorageError

    history = History(problems=console)
    try:
        if game_id is None:
            ids = history.game_ids()
            if not ids:
                console.error("no finished games yet: there is nothing to analyze")
                return 1
            number = ids[-1]
        elif game_id.isascii() and game_id.isdigit() and len(game_id) < 10:
            number = int(game_id)
        else:
            console.error(f"{game_id!r} is not a finished game's number "
                          "(they count from 1 in the order the games ended)")
            return 2
        meta, log = history.load_game(number)
    except LookupError:
        known = history.game_ids()
        numbers = f"1 to {known[-1]}" if known else "none yet"
        console.error(f"no finished game has the number {game_id} (finished games: {numbers})")
        return 2
    except StorageError as error:
        console.error(f"the history cannot be read: {error}")
        return 1
    coach = Coach(make_variant(meta.variant, meta.rules))
    analyses = coach.analyze([p.name for p in meta.players], log)
    if as_json:
        console.say(json.dumps({"game_id": meta.game_id, **analysis_json(analyses)}, indent=2))
    else:
        console.say(f"Game {meta.game_id}, finished {meta.finished_at}, {meta.rules} rules")
        console.analysis(analyses, coach.variant)
    return 0
