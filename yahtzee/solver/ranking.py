"""One ranking of a position's moves: the keeps to roll again and the boxes to score now.

Every list of moves the program shows comes from this one ranking: the
coach's options in the console and the browser (``Coach.keep_options``,
``Coach.box_options``: its first moves alone, ``shown_keeps`` and
``shown_boxes``, profiled by ``with_profiles``) and the ranked moves of
``advise`` (``rank_moves``, ``app.advice.ranked_moves``).  The moves of a position are the boxes its
dice may be scored in and, with a re-roll left, every keep of fewer dice
than all.  They are ranked by the optimal strategy's expected final score,
best first.  Values closer than ``TIE`` are equal (they are exact up to
rounding in the last bits, which depends on how they were summed), and
equal moves come in the tie order, the strategy's own:

1. scoring now before rolling again;
2. boxes by menu number;
3. keeps of more dice first, then of lower dice (the solver's ``SUB_KEEPS`` order).

Each place takes the next move as the first one, in tie order, whose value
is within ``TIE`` of the best value left; so the first move is always the
one the strategy plays.  The coach's options show the boxes, while a
re-roll is left, as one move, "score now" (a keep of every die), standing
where the best box stands (``MoveRanking.keeps``).

No numpy here: the console imports the coach, and two people must be able
to play with the standard library alone.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from itertools import islice
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from yahtzee.solver.ties import TIE

if TYPE_CHECKING:
    from yahtzee.solver.profiles import Profile

TOP_MOVES = 3
"""How many moves the advice shows: the best one and the next two."""


@dataclass(frozen=True)
class Keep:
    """A keep: the dice values kept (sorted) out of ``dice``; keeping all of them is scoring now."""

    values: tuple[int, ...]
    dice: int

    @property
    def scores_now(self) -> bool:
        """Whether every die is kept: the player scores without rolling again."""
        return len(self.values) == self.dice


@dataclass(frozen=True)
class ScoreBox:
    """A scoring choice: the box's menu number and printed name."""

    number: int
    name: str


Move = Keep | ScoreBox
"""A decision the coach judges or advises."""


class MoveValues(Protocol):
    """A strategy that knows the expected final score of every choice (the optimal one)."""

    def keep_values(self, card: Any, dice: Sequence[int],
                    rolls_left: int) -> dict[tuple[int, ...], float]:
        """Return each keep's expected final score, in tie order (keeping all five first)."""
        ...

    def category_values(self, card: Any, dice: Sequence[int]) -> dict[Any, float]:
        """Return each legal box's expected final score, by menu number."""
        ...


class MoveProfiles(Protocol):
    """An outcome profiler: where optimal play leads after each keep and each box."""

    def keeps(self, card: Any, dice: Sequence[int], rolls_left: int,
              only: Collection[tuple[int, ...]] | None = None
              ) -> dict[tuple[int, ...], Profile]:
        """Return the profile of each keep of these dice (``only`` those, if given)."""
        ...

    def boxes(self, card: Any, dice: Sequence[int],
              only: Collection[int] | None = None) -> dict[Any, Profile]:
        """Return the profile of each box these dice may be scored in (``only`` those numbers)."""
        ...


@dataclass(frozen=True)
class RankedMove:
    """A move with the expected final score optimal play reaches after it, and its profile.

    ``profile`` is None when the ranking was made without a profiler.
    """

    move: Move
    expected: float
    profile: Profile | None = None


def best_first(moves: Sequence[RankedMove]) -> list[RankedMove]:
    """Return ``moves`` (given in tie order) best first, equal ones (within ``TIE``) as given."""
    return [moves[at] for at in _tie_order([move.expected for move in moves])]


def _tie_order(values: Sequence[float]) -> Iterator[int]:
    """Yield the positions of ``values`` (given in tie order) as ``best_first`` ranks them.

    A generator: a caller that needs only the first few stops early.
    """
    # The moves left, highest value first: those within TIE of the best are a prefix of it.
    left = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    while left:
        floor = values[left[0]] - TIE
        place = 0
        for at in range(1, len(left)):
            if values[left[at]] < floor:
                break
            if left[at] < left[place]:
                place = at
        yield left.pop(place)


@dataclass(frozen=True)
class MoveRanking:
    """Every move of a position, best first (see the module's docstring for the order)."""

    moves: tuple[RankedMove, ...]
    dice: tuple[int, ...]
    """The position's dice, sorted (keeping all of them is scoring now)."""

    def best(self) -> RankedMove:
        """Return the move optimal play makes."""
        return self.moves[0]

    def top(self, count: int = TOP_MOVES) -> list[RankedMove]:
        """Return the ``count`` best moves, boxes and keeps alike."""
        return list(self.moves[:count])

    def keeps(self, count: int = TOP_MOVES) -> list[RankedMove]:
        """Return the ``count`` best keeps, the boxes standing as one: "score now".

        Scoring now is a keep of every die, where the best box stands in the
        ranking, with its expected score and profile; the other boxes are left out.
        """
        folded: list[RankedMove] = []
        now = Keep(self.dice, len(self.dice))
        now_in = False  # whether a move of ``folded`` is ``now``
        for ranked in self.moves:
            if 0 < count <= len(folded):
                break  # only the first ``count`` are returned
            if isinstance(ranked.move, Keep):
                folded.append(ranked)
                now_in = now_in or ranked.move == now
            elif not now_in:
                folded.append(RankedMove(now, ranked.expected, ranked.profile))
                now_in = True
        return folded[:count]

    def boxes(self, count: int = TOP_MOVES) -> list[RankedMove]:
        """Return the ``count`` best boxes."""
        return [m for m in self.moves if isinstance(m.move, ScoreBox)][:count]


def best_move(strategy: MoveValues, card: Any, dice: Sequence[int], rolls_left: int) -> Move:
    """Return the move ``rank_moves`` ranks first, without ranking the others.

    The first move, in tie order, within ``TIE`` of the best value: the
    strategy's own move (a box, or with ``rolls_left`` a keep of fewer dice).
    """
    keeps = strategy.keep_values(card, dice, rolls_left) if rolls_left else None
    return best_of(strategy.category_values(card, dice), keeps, dice)


def _in_tie_order(boxes: Mapping[Any, float], keeps: Mapping[tuple[int, ...], float] | None,
                  dice: Sequence[int]) -> tuple[list[tuple[Any, float]],
                                                list[tuple[tuple[int, ...], float]]]:
    """Return a position's boxes (by number) and keeps of fewer dice than all, with their values.

    Boxes come before keeps in the tie order (``TIE``); ``keeps`` is None
    when no re-roll is left.
    """
    box_items = sorted(boxes.items(), key=lambda item: item[0].number)
    keep_items = [] if keeps is None else [
        (keep, value) for keep, value in keeps.items() if len(keep) < len(dice)]
    return box_items, keep_items


def best_of(boxes: Mapping[Any, float], keeps: Mapping[tuple[int, ...], float] | None,
            dice: Sequence[int]) -> Move:
    """Return ``best_move`` of a position whose boxes and keeps are valued already.

    ``boxes`` holds each legal box's expected final score, ``keeps`` each
    keep's (None when no re-roll is left), as ``rank_values`` takes them.
    """
    box_items, keep_items = _in_tie_order(boxes, keeps, dice)
    floor = max(value for _, value in box_items + keep_items) - TIE
    box = next((box for box, value in box_items if value >= floor), None)
    if box is not None:
        return ScoreBox(box.number, str(box))
    return Keep(next(keep for keep, value in keep_items if value >= floor), len(dice))


def rank_moves(strategy: MoveValues, card: Any, dice: Sequence[int], rolls_left: int,
               profiler: MoveProfiles | None = None) -> MoveRanking:
    """Return every move of the position, best first, with profiles when ``profiler`` is given.

    ``rolls_left`` is the re-rolls left (0 to score, the third roll done).
    """
    boxes = strategy.category_values(card, dice)
    box_profiles = None if profiler is None else profiler.boxes(card, dice)
    keeps = keep_profiles = None
    if rolls_left:
        keep_profiles = None if profiler is None else profiler.keeps(card, dice, rolls_left)
        keeps = strategy.keep_values(card, dice, rolls_left)
    return rank_values(boxes, keeps, dice, box_profiles, keep_profiles)


def rank_values(boxes: Mapping[Any, float], keeps: Mapping[tuple[int, ...], float] | None,
                dice: Sequence[int], box_profiles: Mapping[Any, Profile] | None = None,
                keep_profiles: Mapping[tuple[int, ...], Profile] | None = None) -> MoveRanking:
    """Return ``rank_moves`` of a position whose moves are valued already.

    ``boxes`` holds each legal box's expected final score (the strategy's
    ``category_values``), ``keeps`` each keep's (``keep_values``; None when
    no re-roll is left); the profiles, when given, go with their moves.
    """
    box_items, keep_items = _in_tie_order(boxes, keeps, dice)
    moves = [RankedMove(ScoreBox(box.number, str(box)), value,
                        None if box_profiles is None else box_profiles.get(box))
             for box, value in box_items]
    moves += [RankedMove(Keep(keep, len(dice)), value,
                         None if keep_profiles is None else keep_profiles.get(keep))
              for keep, value in keep_items]
    return MoveRanking(tuple(best_first(moves)), tuple(sorted(dice)))


def shown_keeps(boxes: Mapping[Any, float], keeps: Mapping[tuple[int, ...], float] | None,
                dice: Sequence[int], count: int) -> tuple[list[RankedMove], int | None]:
    """Return ``rank_values(boxes, keeps, dice).keeps(count)`` without ranking the rest.

    Only the first moves of the ranking are found and made (``count`` of
    them, at least 0), without profiles.  Also returns the number of the box
    that scoring now stands for when it is among them (None otherwise).
    """
    box_items, keep_items = _in_tie_order(boxes, keeps, dice)
    values = [value for _, value in box_items] + [value for _, value in keep_items]
    now = Keep(tuple(sorted(dice)), len(dice))
    shown: list[RankedMove] = []
    stand_in = None
    for at in _tie_order(values):
        if len(shown) >= count:
            break
        if at >= len(box_items):
            keep, value = keep_items[at - len(box_items)]
            shown.append(RankedMove(Keep(keep, len(dice)), value))
        elif stand_in is None:  # the best box stands as scoring now; the others are left out
            shown.append(RankedMove(now, values[at]))
            stand_in = box_items[at][0].number
    return shown, stand_in


def shown_boxes(boxes: Mapping[Any, float], count: int) -> list[RankedMove]:
    """Return ``rank_values(boxes, None, dice).boxes(count)`` without ranking the rest."""
    box_items, _ = _in_tie_order(boxes, None, ())
    order = islice(_tie_order([value for _, value in box_items]), max(count, 0))
    return [RankedMove(ScoreBox(box_items[at][0].number, str(box_items[at][0])),
                       box_items[at][1]) for at in order]


def with_profiles(shown: Sequence[RankedMove], stand_in: int | None, dice: Sequence[int],
                  card: Any, rolls_left: int, profiler: MoveProfiles) -> list[RankedMove]:
    """Return the moves ``shown`` of a position with ``dice``, each with its profile.

    Only these moves are profiled, each as ``rank_moves`` with ``profiler``
    would profile it: scoring now (a keep of every die, ``MoveRanking.keeps``)
    takes the profile of the box numbered ``stand_in``, the best box, which
    it stands for (``shown_keeps``).
    """
    now = Keep(tuple(sorted(dice)), len(dice))
    kept = [m.move.values for m in shown if isinstance(m.move, Keep) and m.move != now]
    numbers = {m.move.number for m in shown if isinstance(m.move, ScoreBox)}
    if stand_in is not None:
        numbers.add(stand_in)
    keep_profiles = profiler.keeps(card, dice, rolls_left, kept) if kept else {}
    box_profiles = ({box.number: profile for box, profile
                     in profiler.boxes(card, dice, numbers).items()} if numbers else {})
    profiled = []
    for ranked in shown:
        move = ranked.move
        if isinstance(move, ScoreBox):
            profile = box_profiles[move.number]
        elif move == now and stand_in is not None:
            profile = box_profiles[stand_in]
        else:
            profile = keep_profiles[move.values]
        profiled.append(RankedMove(move, ranked.expected, profile))
    return profiled
