"""The coach: advice before a human's decisions, and the cost and luck of a game.

The optimal strategy knows the expected final score of every choice; a
decision's cost is how much less the choice made leads to than the best one.
Only rolls and scoring choices are decisions: toggling dice just prepares a
roll, whose kept dice are the saved ones at the moment of ``roll``.
A roll's luck is the expected final score of the position it gives minus
that of the position before it (the keep rolled, or the turn's start).
Both are in expected final points, so that for a finished game
``final = optimum + luck - cost`` (up to rounding), whoever played.
The coach returns moves and numbers; the interfaces put them into words.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from yahtzee.domain.card import Card, Variant
from yahtzee.domain.dice import Dice
from yahtzee.engine.records import Decision, TurnChances
from yahtzee.engine.moves import MoveKind, saved_flags
from yahtzee.solver.ranking import (TOP_MOVES, MoveRanking, RankedMove, best_of, rank_moves,
                                    shown_boxes, shown_keeps, with_profiles)
from yahtzee.solver.ranking import Keep as Keep
from yahtzee.solver.ranking import Move as Move
from yahtzee.solver.ranking import ScoreBox as ScoreBox

if TYPE_CHECKING:
    from yahtzee.solver.play_to_win import PlayToWinStrategy
    from yahtzee.solver.profiles import Profile, Profiler

TOP_DECISIONS = 3
"""How many of a player's costliest decisions the analysis lists."""
_Kind = TypeVar("_Kind", Keep, ScoreBox)


def _profiled(moves: Sequence[RankedMove], kind: type[_Kind]) -> list[tuple[_Kind, Profile]]:
    """Return each ranked move with its profile (a coach with profiles profiles every move)."""
    pairs = []
    for ranked in moves:
        assert isinstance(ranked.move, kind) and ranked.profile is not None
        pairs.append((ranked.move, ranked.profile))
    return pairs


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

    def expected_final(self, card: Any) -> float:
        """Return the card's points plus the expected points still to come, at a turn's start."""
        ...


Option = tuple[Move, "Profile"]
"""One of a position's best options: a keep (or scoring now) or a box, with its profile."""


@dataclass(frozen=True)
class KeepAdvice:
    """The best keep for the dice, and how to get there from the dice saved now.

    ``save`` names the dice (numbers from 1) to have saved when rolling, when
    some but not all are kept; ``saved_already`` says they are exactly the
    ones saved now; ``unsave_all`` says to roll every die while some are saved.
    """

    keep: Keep
    save: tuple[int, ...]
    saved_already: bool
    unsave_all: bool
    expected: float


@dataclass(frozen=True)
class BoxAdvice:
    """The best box for the dice, with the expected final score it leads to."""

    box: ScoreBox
    expected: float


@dataclass(frozen=True)
class Assessment:
    """One decision judged against optimal play."""

    round: int
    seat: int
    rolls_left: int
    dice: tuple[int, ...]
    choice: Move
    best: Move
    expected_choice: float
    expected_best: float
    best_box: str | None = None
    """When the best move was to stop rolling and score: the box the strategy scores the dice
    in (the review names it: ``score Large Straight now``); None otherwise."""

    @property
    def cost(self) -> float:
        """The expected final points lost by this decision (0 for an optimal one)."""
        return max(0.0, self.expected_best - self.expected_choice)

    def stage(self) -> str:
        """Return when the decision was taken: after which roll, or at scoring."""
        return {2: "after roll 1", 1: "after roll 2"}.get(self.rolls_left, "scoring")


@dataclass(frozen=True)
class RollLuck:
    """One roll's luck: the dice it showed and what they were worth against the position before.

    ``rolls_left`` is the re-rolls left once these dice were shown (2 after
    a turn's first roll); ``luck`` is in expected final points.
    """

    round: int
    seat: int
    rolls_left: int
    dice: tuple[int, ...]
    luck: float


@dataclass(frozen=True)
class PlayerAnalysis:
    """Every judged decision of one player, and how the game went against expectation.

    ``optimum`` is optimal play's expected final score from an empty card,
    ``luck`` the sum of every roll's luck, ``final`` the score the player
    ended with; ``final == optimum + luck - total_cost`` up to float error
    once the game is over.
    """

    name: str
    decisions: tuple[Assessment, ...]
    optimum: float = 0.0
    luck: float = 0.0
    final: int = 0
    chances: tuple[float, ...] = ()
    """The player's win chance at the start of each round (empty without profiles)."""
    rolls: tuple[RollLuck, ...] = ()
    """Every roll's luck, in order; ``luck`` is their sum."""

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
    """Advises with, and judges against, the optimal strategy for one game."""

    def __init__(self, variant: Variant, load_strategy: Callable[[], ValueStrategy],
                 load_profiler: Callable[[], Profiler] | None = None) -> None:
        """Coach games of ``variant``; ``load_strategy()`` gives the optimal strategy, once.

        ``load_profiler()``, when given, gives the outcome profiler (its tables
        are built the first time): the options' profiles and the win chances.
        """
        self.variant = variant
        self._load_strategy = load_strategy
        self._strategy: ValueStrategy | None = None
        self._load_profiler = load_profiler
        self._profiler: Profiler | None = None
        self._winner: PlayToWinStrategy | None = None
        self._making = threading.RLock()
        """Held while the strategy, the profiler or the play-to-win strategy is made: a coach
        serves many games' threads, and each is made once.  A play-to-win strategy keeps
        21 MB of its own under the course rules (8 MB under the official ones), twice that
        while it is made; made by every thread that asked at once, a server's first 60
        coached games left it 1.0 to 1.2 GB larger."""

    def load(self) -> Coach:
        """Load the strategy and, for a coach with profiles, the profiler, now; return the coach.

        Their tables are read or built the first time (seconds, or more on a
        cold cache): a front end calls this before a game starts rather than
        at its first advice.
        """
        _ = self.strategy, self.profiler
        return self

    @property
    def profiler(self) -> Profiler | None:
        """The outcome profiler (None when this coach gives no profiles)."""
        if self._profiler is None and self._load_profiler is not None:
            with self._making:
                if self._profiler is None:
                    self._profiler = self._load_profiler()
        return self._profiler

    def rank_moves(self, card: Card, dice: Sequence[int], rolls_left: int) -> MoveRanking:
        """Return every move of the position, best first, profiled when this coach gives profiles.

        The one ranking of moves (``yahtzee.solver.ranking``): the options
        below and ``advise``'s moves are read from it.
        """
        return rank_moves(self.strategy, card, dice, rolls_left, self.profiler)

    def position(self, card: Card, dice: Sequence[int], rolls_left: int) -> Position:
        """Return the position of ``card`` with ``dice`` and ``rolls_left`` re-rolls left.

        Its advice, options and best move share the values of its moves, each
        worked out once (``Position``); a front end that asks for several
        of them on one roll asks one position.
        """
        return Position(self, card, dice, rolls_left)

    def keep_options(self, card: Card, dice: Sequence[int], rolls_left: int,
                     count: int = TOP_MOVES) -> list[tuple[Keep, Profile]]:
        """Return the ``count`` best keeps (keeping all five: scoring now) with their profiles.

        Best first, in the ranking's order (``MoveRanking.keeps``); empty
        when this coach gives no profiles.
        """
        return self.position(card, dice, rolls_left).keep_options(count)

    def box_options(self, card: Card, dice: Sequence[int],
                    count: int = TOP_MOVES) -> list[tuple[ScoreBox, Profile]]:
        """Return the ``count`` best boxes for these dice with their profiles, best first."""
        return self.position(card, dice, 0).box_options(count)

    def best_move(self, card: Card, dice: Sequence[int], rolls_left: int,
                  scoring: bool) -> Keep | ScoreBox:
        """Return the move ``keep_options`` would rank first (``box_options`` when scoring).

        Nothing is profiled: a computer's turn needs the best move for the
        chances, not the options shown to a person.
        """
        return self.position(card, dice, rolls_left).best_move(scoring)

    def win_chances(self, cards: Sequence[Card], seat: int, dice: Sequence[int] = (),
                    rolls_left: int = 0, best: Move | None = None,
                    strategies: Sequence[str | None] = ()) -> list[float] | None:
        """Return each player's chance to finish first (ties shared), from every card.

        The players wait between turns, except ``seat`` when ``best`` is given:
        it has these ``dice`` (``rolls_left`` re-rolls left) and makes the
        move ``best`` (its best option), then plays the rest of the turn as
        optimal play does.  The chances are the play-to-win computer's own
        (``PlayToWinStrategy.chances``), from the one outlook of every win
        chance, each player's lowered by what its strategy (``strategies``,
        one per card: a computer level's name, say; None for a person) is
        known to fall short of optimal play.  None when this coach gives no
        profiles or there is one player.
        """
        if self.profiler is None or len(cards) < 2:
            return None
        winner = self.play_to_win()
        if best is None:
            return winner.chances(cards, strategies)
        if isinstance(best, ScoreBox):
            return winner.chances_after(cards, seat, dice, rolls_left, box=best.number,
                                        strategies=strategies)
        return winner.chances_after(cards, seat, dice, rolls_left, kept=best.values,
                                    strategies=strategies)

    def move_chances(self, card: Card, dice: Sequence[int], rolls_left: int,
                     totals: Sequence[int]) -> tuple[dict[tuple[int, ...], float],
                                                     dict[int, float]] | None:
        """Return the chance to win after each keep and after each box, against ``totals``.

        ``totals`` are the other players' final scores; only the highest can
        be beaten or tied.  A box's chance is exact after the last turn or
        with one or two turns left, the rest of the game otherwise read from the one
        outlook of every win chance (``outlook``), a tie shared with everyone
        on that total.  A keep's chance is that of playing the rest of the turn
        for the win (``PlayToWinStrategy``), a tie with the top total counting
        half.  Keeps are keyed by their dice (sorted), boxes by menu number;
        none with ``rolls_left`` 0.  None without profiles.
        """
        profiler = self.profiler
        if profiler is None or not totals:
            return None
        winner = self.play_to_win()
        top = max(totals)
        tied = sum(1 for total in totals if total == top)
        above = winner.chance_against(card, dice, top + 0.5)
        level = winner.chance_against(card, dice, float(top))
        boxes = {number: above[number] + 2 * (level[number] - above[number]) / (tied + 1)
                 for number in level}
        keeps = winner.keep_chances(card, dice, rolls_left, float(top)) if rolls_left else {}
        return keeps, boxes

    def play_to_win(self) -> PlayToWinStrategy:
        """Return the play-to-win strategy on the profiler's tables (made once).

        ``ValueError`` when this coach gives no profiles.
        """
        profiler = self.profiler
        if profiler is None:
            raise ValueError("playing to win needs a coach with profiles")
        if self._winner is None:
            from yahtzee.solver.play_to_win import PlayToWinStrategy
            with self._making:
                if self._winner is None:
                    self._winner = PlayToWinStrategy(cast(Any, profiler.strategy),
                                                     profiler.moments)
        return self._winner

    @property
    def strategy(self) -> ValueStrategy:
        """The optimal strategy (its table is built or loaded the first time)."""
        if self._strategy is None:
            with self._making:
                if self._strategy is None:
                    self._strategy = self._load_strategy()
        return self._strategy

    # -- advice ----------------------------------------------------------
    def roll_advice(self, card: Card, dice: Sequence[int], saved: Sequence[bool],
                    rolls_left: int) -> KeepAdvice:
        """Return the best keep for these dice, with the dice to save and its expected score."""
        return self.position(card, dice, rolls_left).roll_advice(saved)

    def category_advice(self, card: Card, dice: Sequence[int]) -> BoxAdvice:
        """Return the best box for these dice, with the expected final score it leads to."""
        return self.position(card, dice, 0).category_advice()

    # -- analysis --------------------------------------------------------
    def turn_chances(self, players: int, log: Sequence[Decision],
                     strategies: Sequence[str | None] = ()) -> list[TurnChances]:
        """Return every player's win chance at the start of each turn of ``log``, in order.

        Each turn's chances are worked out from every card as the turn
        starts (all players between turns), each player's outlook lowered by
        its strategy's known shortfall (``win_chances``).  Empty when this
        coach gives no profiles or there is one player.
        """
        if self.profiler is None or players < 2:
            return []
        winner = self.play_to_win()
        cards = [self.variant.new_card() for _ in range(players)]
        turns: list[tuple[int, int]] = []
        banked: list[list[float]] = []
        index: list[list[int]] = []
        for d in log:
            if not turns or (d.round, d.seat) != turns[-1]:
                turns.append((d.round, d.seat))
                short = winner.shortfalls(cards, strategies)
                banked.append([card.score() - float(s) for card, s in zip(cards, short)])
                index.append([winner.index_of(card) for card in cards])
            if d.label is not None:
                cards[d.seat].choose_number(int(d.command), Dice.of(d.dice))
        every = winner.chances_at(banked, index)
        return [TurnChances(number, seat, tuple(chances))
                for (number, seat), chances in zip(turns, every)]

    def analyze(self, names: Sequence[str], log: Sequence[Decision],
                chances: Sequence[TurnChances] | None = None,
                strategies: Sequence[str | None] = ()) -> list[PlayerAnalysis]:
        """Judge every roll and scoring decision of a game's log, and each player's luck.

        A turn's first decision shows the first roll's dice, the first one
        after a ``roll`` the re-rolled dice: there the roll's luck is the
        value of the position shown minus the value before the roll (the
        card at the turn's start, or the keep rolled).  Each player's win
        chance at every round's start comes from ``chances`` (the chances at
        each turn's start, as ``turn_chances`` gives them and the history
        records them) or, without them, from ``turn_chances`` (for the
        players' ``strategies``).
        """
        strategy = self.strategy
        optimum = strategy.expected_final(self.variant.new_card())
        cards = [self.variant.new_card() for _ in names]
        judged: list[list[Assessment]] = [[] for _ in names]
        luck = [0.0] * len(names)
        rolls: list[list[RollLuck]] = [[] for _ in names]
        turns = self.turn_chances(len(names), log, strategies) if chances is None else chances
        by_round: dict[int, tuple[float, ...]] = {}
        for turn_chances in turns:
            by_round.setdefault(turn_chances.round, turn_chances.chances)
        round_starts = [by_round[number] for number in sorted(by_round)]
        turn: tuple[int, int] | None = None
        before_roll: float | None = None
        for d in log:
            card = cards[d.seat]
            if (d.round, d.seat) != turn:
                turn = (d.round, d.seat)
                before_roll = strategy.expected_final(card)
            if before_roll is not None:
                gained = self._position_value(card, d) - before_roll
                luck[d.seat] += gained
                rolls[d.seat].append(RollLuck(d.round, d.seat, d.rolls_left, d.dice, gained))
                before_roll = None
            if d.label is not None:
                judged[d.seat].append(self._judge_box(card, d))
                card.choose_number(int(d.command), Dice.of(d.dice))
            elif d.move.kind in (MoveKind.ROLL, MoveKind.SCORE):
                assessment = self._judge_keep(card, d)
                judged[d.seat].append(assessment)
                if d.move.kind is MoveKind.ROLL:
                    before_roll = assessment.expected_choice
        return [PlayerAnalysis(name, tuple(a), optimum, luck[seat], card.score(),
                               tuple(start[seat] for start in round_starts), tuple(rolls[seat]))
                for seat, (name, a, card) in enumerate(zip(names, judged, cards))]

    def _position_value(self, card: Card, d: Decision) -> float:
        """Return the expected final score of the position ``d`` was taken in, with best play."""
        if d.rolls_left > 0:
            return max(self.strategy.keep_values(card, d.dice, d.rolls_left).values())
        return max(self.strategy.category_values(card, d.dice).values())

    def _judge_keep(self, card: Card, d: Decision) -> Assessment:
        """Judge a ``roll`` (keeping the saved dice) or a ``score`` (keeping all)."""
        position = self.position(card, d.dice, d.rolls_left)
        values, best = position.keep_values(), position.keep()
        if d.move.kind is MoveKind.SCORE:
            kept = tuple(sorted(d.dice))
        else:
            kept = tuple(sorted(v for v, s in zip(d.dice, d.saved) if s))
        n = len(d.dice)
        box = str(position.box()) if len(best) == n else None
        return Assessment(d.round, d.seat, d.rolls_left, d.dice, Keep(kept, n), Keep(best, n),
                          values[kept], values[best], box)

    def _judge_box(self, card: Card, d: Decision) -> Assessment:
        """Judge a scoring choice."""
        position = self.position(card, d.dice, 0)
        values, best = position.box_values(), position.box()
        chosen = next(box for box in values if box.number == int(d.command))
        return Assessment(d.round, d.seat, 0, d.dice, ScoreBox(chosen.number, str(chosen)),
                          ScoreBox(best.number, str(best)), values[chosen], values[best])


class Position:
    """A position of a turn (a card, its dice, the re-rolls left) as the coach weighs it.

    The values of its keeps and boxes and the strategy's keep and box are
    each worked out the first time they are asked for and then read again,
    so that the advice, the options shown and the best move of one roll
    share them.  The card must stay as it is while the position is
    in use: a front end makes one per roll (``Coach.position``).
    """

    def __init__(self, coach: Coach, card: Card, dice: Sequence[int], rolls_left: int) -> None:
        """Weigh ``card`` with ``dice`` (any order) and ``rolls_left`` re-rolls left (0 to 2)."""
        self.coach = coach
        self.card = card
        self.dice = tuple(dice)
        self.rolls_left = rolls_left
        self._keep_values: dict[tuple[int, ...], float] | None = None
        self._keep: tuple[int, ...] | None = None
        self._box_values: dict[Any, float] | None = None
        self._box: Box | None = None

    def keep_values(self) -> dict[tuple[int, ...], float]:
        """Return each keep's expected final score (all five dice: scoring now)."""
        if self._keep_values is None:
            self._keep_values = self.coach.strategy.keep_values(self.card, self.dice,
                                                                self.rolls_left)
        return self._keep_values

    def keep(self) -> tuple[int, ...]:
        """Return the keep the strategy makes (all the dice, sorted: scoring now)."""
        if self._keep is None:
            keep = self.coach.strategy.keep(self.card, self.dice, self.rolls_left)
            self._keep = tuple(sorted(self.dice)) if keep is None else keep
        return self._keep

    def box_values(self) -> dict[Any, float]:
        """Return each legal box's expected final score."""
        if self._box_values is None:
            self._box_values = self.coach.strategy.category_values(self.card, self.dice)
        return self._box_values

    def box(self) -> Box:
        """Return the box the strategy scores these dice in."""
        if self._box is None:
            self._box = cast(Box, self.coach.strategy.category(self.card, self.dice))
        return self._box

    def roll_advice(self, saved: Sequence[bool]) -> KeepAdvice:
        """Return the best keep, the dice to save from those ``saved`` now, its expected score."""
        values, keep, dice = self.keep_values(), self.keep(), self.dice
        save: tuple[int, ...] = ()
        saved_already = False
        if 0 < len(keep) < len(dice):
            flags = saved_flags(dice, saved, keep)
            save = tuple(i + 1 for i, flag in enumerate(flags) if flag)
            saved_already = list(flags) == list(saved)
        return KeepAdvice(Keep(keep, len(dice)), save, saved_already,
                          not keep and any(saved), values[keep])

    def category_advice(self) -> BoxAdvice:
        """Return the best box, with the expected final score it leads to."""
        box = self.box()
        return BoxAdvice(ScoreBox(box.number, str(box)), self.box_values()[box])

    def keep_options(self, count: int = TOP_MOVES) -> list[tuple[Keep, Profile]]:
        """Return ``Coach.keep_options``: only the keeps shown are ranked and profiled."""
        profiler = self.coach.profiler
        if profiler is None:
            return []
        keeps = self.keep_values() if self.rolls_left else None
        shown, stand_in = shown_keeps(self.box_values(), keeps, self.dice, count)
        return _profiled(with_profiles(shown, stand_in, self.dice, self.card, self.rolls_left,
                                       profiler), Keep)

    def box_options(self, count: int = TOP_MOVES) -> list[tuple[ScoreBox, Profile]]:
        """Return ``Coach.box_options``: only the boxes shown are ranked and profiled."""
        profiler = self.coach.profiler
        if profiler is None:
            return []
        shown = shown_boxes(self.box_values(), count)
        return _profiled(with_profiles(shown, None, self.dice, self.card, 0, profiler),
                         ScoreBox)

    def best_move(self, scoring: bool) -> Keep | ScoreBox:
        """Return ``Coach.best_move``: the first of ``ranking(scoring)``, found without it."""
        keeps = None if scoring or not self.rolls_left else self.keep_values()
        move = best_of(self.box_values(), keeps, self.dice)
        if isinstance(move, ScoreBox) and not scoring:
            return Keep(tuple(sorted(self.dice)), len(self.dice))  # scoring now, as shown
        return move
