"""Advice for real dice: the ranked moves against the optimal strategy, and the card kept."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

from tests.helpers import variant_of
from yahtzee.app.advice import (BoxRefusedError, GameOverError, Move, NoDiceError,
                                NoRollLeftError, NothingToUndoError, Position, RealDiceGame,
                                box_names, ranked_moves, win_chances)
from yahtzee.app.session import Solvers
from yahtzee.domain.card import Card, JokerBar, Variant
from yahtzee.domain.dice import Dice
from yahtzee.solver.cache import Solution
from yahtzee.solver.coach import Coach
from yahtzee.solver.dynamic import state_index, step_one
from yahtzee.solver.moments import Moments
from yahtzee.solver.outlook import shaped_cdf
from yahtzee.engine.records import ROLLS
from yahtzee.solver.ties import TIE
from yahtzee.solver.ranking import TOP_MOVES as MAX_MOVES

GAMES = ["official", "course", "poker"]


@pytest.fixture(scope="module")
def coaches(official: Solution, course: Solution, official_moments: Moments,
            course_moments: Moments) -> dict[str, Coach]:
    """A coach with profiles for each game of the tests (the tables built once per session)."""
    return {name: Solvers().coach(variant_of(name), profiles=True) for name in GAMES}


def random_card(variant: Variant, rng: random.Random, turns: int) -> Card:
    """Return a card that has played ``turns`` turns, each a random roll in a random box."""
    card = variant.new_card()
    for _ in range(turns):
        dice = Dice.of(rng.randint(1, 6) for _ in range(5))
        card.choose_number(rng.choice(card.menu(dice)).number, dice)
    return card


def roll(rng: random.Random) -> list[int]:
    """Return five random dice values."""
    return [rng.randint(1, 6) for _ in range(5)]


@pytest.mark.parametrize("game", GAMES)
def test_the_moves_are_the_strategys_best_then_the_next_by_expected_score(
        game: str, coaches: dict[str, Coach]) -> None:
    variant = variant_of(game)
    coach = coaches[game]
    strategy = coach.strategy
    rng = random.Random(game)
    for position in range(30):
        card = random_card(variant, rng, position % variant.rounds)
        dice = roll(rng)
        number = position % 3 + 1
        moves = ranked_moves(coach, card, dice, number)
        boxes = strategy.category_values(card, dice)
        values = {("box", box.number): value for box, value in boxes.items()}
        if number < 3:
            keeps = strategy.keep_values(card, dice, 3 - number)
            values.update({("keep", keep): value for keep, value in keeps.items()
                           if len(keep) < 5})
            keep = strategy.keep(card, dice, 3 - number)
        else:
            keep = None
        best = (("box", strategy.category(card, dice).number) if keep is None
                else ("keep", keep))

        def key(move: Move) -> tuple[str, object]:
            """Return the move as the key of ``values``."""
            return ("box", move.box.number) if move.box is not None else ("keep", move.keep)

        assert len(moves) == min(MAX_MOVES, len(values))
        assert key(moves[0]) == best
        assert [m.expected for m in moves] == [values[key(m)] for m in moves]
        others = sorted((v for k, v in values.items() if k != best), reverse=True)
        assert [m.expected for m in moves[1:]] == others[:MAX_MOVES - 1]
        menu = {item.number: item for item in card.menu(Dice.of(dice))}
        for move in moves:
            assert (move.keep is None) != (move.box is None)
            if move.box is not None:
                assert move.box == menu[move.box.number]
            if number == 3:
                assert move.box is not None
            assert move.win_chance is None
            profile = move.profile
            assert profile is not None
            assert profile.mean == pytest.approx(move.expected, abs=1e-6)
            assert profile.sd >= 0
            if game == "poker":
                assert profile.bonus is None and profile.yahtzee is None
            else:
                assert profile.bonus is not None and 0 <= profile.bonus <= 1
                assert profile.yahtzee is not None and 0 <= profile.yahtzee <= 1


def test_after_the_third_roll_a_forced_joker_leaves_one_move(coaches: dict[str, Coach]) -> None:
    variant = variant_of("official")
    card = variant.restore_card([None] * 11 + [50, None], 0)
    [move] = ranked_moves(coaches["official"], card, [6, 6, 6, 6, 6], 3)
    assert move.box is not None
    assert (move.box.name, move.box.points, move.box.bonus) == ("Sixes", 130, 100)


def shaped_share(coach: Coach, card: Card, dice: list[int], number: int, total: int) -> float:
    """Return the chance that scoring ``dice`` in box ``number`` ends above ``total`` (ties half).

    Read straight from the one outlook: the final score is the card's
    points, the box's and the state's points to come, spread by its four
    cumulants (the box leaves more than one turn to play).
    """
    winner = coach.play_to_win()
    flag, mask, upper = winner.base.state_key(card)
    [(slot, points, bonus)] = [(slot, points, bonus) for box, slot, points, bonus
                               in winner.base.box_moves(card, dice) if box.number == number]
    after = step_one(winner.model, flag, mask, upper, slot, points, bonus)
    index = state_index(winner.model, *(np.array(part) for part in after[:3]))
    o = winner.outlooks
    mean = float(card.score()) + after[3] + o.mean[index]
    return 1.0 - float(shaped_cdf(np.array(float(total)), mean, o.variance[index],
                                  o.third[index].astype(np.float64),
                                  o.fourth[index].astype(np.float64)))


@pytest.mark.parametrize("game", GAMES)
def test_opponents_give_each_move_its_chance_to_beat_their_final_totals(
        game: str, coaches: dict[str, Coach]) -> None:
    """Against one total: a box's chance is the outlook's share of its final score (ties half)."""
    coach = coaches[game]
    card = variant_of(game).new_card()
    dice = [5, 5, 2, 1, 6]
    plain = ranked_moves(coach, card, dice, 1)
    total = round(plain[0].expected)
    moves = ranked_moves(coach, card, dice, 1, opponents=(total,))
    assert [m.expected for m in moves] == [m.expected for m in plain]
    assert [m.profile for m in moves] == [m.profile for m in plain]
    boxes = ranked_moves(coach, card, dice, 3, opponents=(total,))
    for move in moves + boxes:
        assert move.profile is not None and move.win_chance is not None
        assert 0.05 < move.win_chance < 0.95
        if move.box is not None:
            assert move.win_chance == pytest.approx(
                shaped_share(coach, card, dice, move.box.number, total), abs=1e-12)
    # Only the highest total counts: to beat it is to beat the others.
    assert win_chances(coach, card, dice, 1, moves, (total - 50, total)) == pytest.approx(
        [m.win_chance for m in moves], abs=1e-9)
    for totals, chance in (((0,), 1.0), ((2000,), 0.0)):
        far = ranked_moves(coach, card, dice, 1, opponents=totals)
        assert [m.win_chance for m in far] == pytest.approx([chance] * 3, abs=1e-4)


def test_the_last_box_knows_its_final_score_and_a_tie_is_shared(
        coaches: dict[str, Coach]) -> None:
    """One box left, third roll: the final score is certain, so the chances are 1, 1/2, 1/3, 0."""
    variant = variant_of("official")
    card = variant.restore_card([3, 6, 9, 12, 15, 18, 20, 20, 25, 30, 40, 50, None], 0)
    dice = [6, 6, 5, 4, 1]
    [move] = ranked_moves(coaches["official"], card, dice, 3)
    assert move.box is not None and move.profile is not None
    final = card.score() + move.box.points
    assert (move.expected, move.profile.mean, move.profile.sd) == (final, final, 0.0)
    chances = [win_chances(coaches["official"], card, dice, 3, [move], totals)[0]
               for totals in [(final - 1,), (final,), (final, final), (final + 1, 0)]]
    assert chances == pytest.approx([1.0, 0.5, 1 / 3, 0.0])


def test_with_one_turn_left_a_keep_has_its_exact_chance(coaches: dict[str, Coach]) -> None:
    """Chance is the last box; keeping 6 6 of 6 6 4 1 1 with one roll left against 27.

    The sum of 6 6 and three dice must beat 27 (a tie half): counted here.
    """
    variant = variant_of("official")
    card = variant.restore_card([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, None], 0)
    moves = ranked_moves(coaches["official"], card, [6, 6, 4, 1, 1], 2, opponents=(27,))
    keep = next(m for m in win_ranked(coaches["official"], card) if m.keep == (6, 6))
    wins = ties = 0
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                total = 12 + a + b + c
                wins += total > 27
                ties += total == 27
    assert keep.win_chance == pytest.approx((wins + ties / 2) / 216, abs=1e-6)
    assert all(m.win_chance is not None for m in moves)


def win_ranked(coach: Coach, card: Card) -> list[Move]:
    """Return every keep of 6 6 4 1 1 (one roll left) with its chance against 27."""
    dice = [6, 6, 4, 1, 1]
    everything = [Move(keep, None, value) for keep, value in
                  coach.strategy.keep_values(card, dice, 1).items() if len(keep) < 5]
    chances = win_chances(coach, card, dice, 2, everything, (27,))
    return [Move(m.keep, None, m.expected, chance) for m, chance in zip(everything, chances)]


def test_box_names_follow_the_menu_numbers() -> None:
    assert box_names(variant_of("course"))[:2] == ["Ones", "Twos"]
    assert box_names(variant_of("course"))[12] == "Chance"
    assert box_names(variant_of("poker")) == [
        "One Pair", "Two Pair", "Three of a Kind", "Four of a Kind", "Five of a Kind",
        "Full House", "Small Straight", "Large Straight", "Chance"]


@pytest.fixture
def make_game(coaches: dict[str, Coach]) -> Callable[..., RealDiceGame]:
    """Return a function giving a game with real dice of the named game, from an optional card."""
    def make(game: str = "official", card: Card | None = None) -> RealDiceGame:
        """Return the game."""
        return RealDiceGame(variant_of(game), coaches[game], card)
    return make


def test_a_turn_takes_three_rolls_at_most_and_a_refused_step_changes_nothing(
        make_game: Callable[..., RealDiceGame]) -> None:
    game = make_game()
    with pytest.raises(NoDiceError):
        game.score(13)
    with pytest.raises(NoDiceError):
        game.moves()
    for dice in ([1, 2, 3, 4, 6], [1, 2, 3, 4, 1], [1, 2, 3, 4, 4]):
        game.rolled(dice)
    assert (game.round, game.roll, game.dice) == (1, 3, (1, 2, 3, 4, 4))
    with pytest.raises(NoRollLeftError):
        game.rolled([6, 6, 6, 6, 6])
    assert game.position == Position((None,) * 13, 0, 3, (1, 2, 3, 4, 4))
    item = game.score(10)
    assert (item.name, item.points) == ("Small Straight", 30)
    assert (game.round, game.roll, game.dice) == (2, 0, ())
    game.rolled([2, 3, 4, 5, 6])
    with pytest.raises(BoxRefusedError) as refused:
        game.score(10)
    assert (refused.value.number, refused.value.filled, refused.value.joker) == (10, True, None)
    assert game.position == Position((None,) * 9 + (30,) + (None,) * 3, 0, 1, (2, 3, 4, 5, 6))


def test_the_joker_refusal_names_where_the_yahtzee_must_go(
        make_game: Callable[..., RealDiceGame]) -> None:
    card = variant_of("official").restore_card([None] * 11 + [50, None], 0)
    game = make_game("official", card)
    game.rolled([4, 4, 4, 4, 4])
    with pytest.raises(BoxRefusedError) as refused:
        game.score(13)
    assert (refused.value.filled, refused.value.joker) == (False, JokerBar("Fours"))
    assert game.best_box().name == "Fours"
    assert game.score(4).points == 120


def test_undo_takes_back_the_last_scoring_and_back_one_step(
        make_game: Callable[..., RealDiceGame]) -> None:
    game = make_game()
    with pytest.raises(NothingToUndoError):
        game.undo()
    game.rolled([5, 5, 2, 1, 6])
    game.rolled([5, 5, 5, 3, 2])
    before = game.position
    assert game.score(5).points == 15
    game.rolled([1, 1, 1, 2, 2])
    undone = game.undo()
    assert (undone.name, undone.points) == ("Fives", 15)
    assert game.position == before
    with pytest.raises(NothingToUndoError):
        game.undo()
    assert game.back() is None
    assert (game.roll, game.dice) == (1, (5, 5, 2, 1, 6))
    assert game.back() is None
    assert game.position == Position((None,) * 13, 0)
    with pytest.raises(NothingToUndoError):
        game.back()


def test_the_game_ends_after_its_rounds_and_a_course_bonus_takes_one(
        make_game: Callable[..., RealDiceGame], coaches: dict[str, Coach]) -> None:
    game = make_game("course")
    assert game.start_expected() == coaches["course"].strategy.expected_final(
        variant_of("course").new_card())
    game.rolled([3, 3, 3, 3, 3])
    game.score(12)
    game.rolled([2, 2, 2, 2, 2])
    bonus = game.score(12)
    assert (bonus.points, game.round, game.position.bonus) == (100, 3, 1)
    assert game.position.scores[11] == 50
    for number in range(1, 12):
        game.rolled([6, 6, 6, 5, 5])
        game.score(number)
    assert game.is_over()
    assert game.card.score() == 10 + 18 + 28 + 25 + 50 + 100
    with pytest.raises(GameOverError):
        game.rolled([1, 2, 3, 4, 5])
    game.undo()
    assert not game.is_over() and game.roll == 1


def coach_order(coach: Coach, card: Card, dice: list[int], roll: int) -> list[object]:
    """Return the coach's options for the position (console and browser), as moves."""
    if roll == ROLLS:
        return [("box", box.number) for box, _ in coach.box_options(card, dice)]
    return [("keep", keep.values) for keep, _ in coach.keep_options(card, dice, ROLLS - roll)]


def advise_order(moves: list[Move], dice: list[int]) -> list[object]:
    """Return ``advise``'s moves as the coach shows them: while rolling, boxes as "score now"."""
    if all(m.box is not None for m in moves):
        return [("box", m.box.number) for m in moves if m.box is not None]
    shown: list[object] = []
    for move in moves:
        shown_move = ("keep", tuple(sorted(dice)) if move.keep is None else move.keep)
        if shown_move not in shown:
            shown.append(shown_move)
    return shown


def first_tie(coach: Coach, variant: Variant, seed: str,
              with_box: bool) -> tuple[Card, list[int], int]:
    """Return the first seeded random position, before the last roll, with tied ranked moves.

    ``with_box``: a box (scoring now) must be one of the tied moves.
    """
    rng = random.Random(seed)
    for position in range(1000):
        card = random_card(variant, rng, rng.randrange(variant.rounds))
        dice = roll(rng)
        number = position % 3 + 1
        moves = ranked_moves(coach, card, dice, number) if number < ROLLS else []
        if any(abs(a.expected - b.expected) < TIE and (a.box or b.box or not with_box)
               for a, b in zip(moves, moves[1:])):
            return card, dice, number
    raise AssertionError("no tie found")


@pytest.mark.parametrize("game, with_box, position, expected", [
    ("official", False, ([3, 3, 4, 3, 5], 2),
     [("keep", (3, 3, 3)), ("keep", (3, 3, 3, 4)), ("keep", (3, 3, 3, 5))]),
    ("poker", True, ([2, 1, 4, 3, 2], 2),
     [("box", 7), ("keep", (1, 2, 3, 4)), ("keep", (2, 3, 4))]),
])
def test_the_coach_and_advise_rank_a_tied_position_alike(
        game: str, with_box: bool, position: tuple[list[int], int], expected: list[object],
        coaches: dict[str, Coach]) -> None:
    """Equal values (within ``TIE``) come in the tie order: scoring now, then more dice, lower."""
    coach = coaches[game]
    card, dice, number = first_tie(coach, variant_of(game), f"ties {game}", with_box)
    moves = ranked_moves(coach, card, dice, number)
    assert (dice, number) == position
    assert [("box", m.box.number) if m.box is not None else ("keep", m.keep)
            for m in moves] == expected
    assert coach_order(coach, card, dice, number)[:3] == advise_order(moves, dice)


@pytest.mark.parametrize("game", GAMES)
def test_the_coach_and_advise_rank_every_position_alike(
        game: str, coaches: dict[str, Coach]) -> None:
    """The coach's options are ``advise``'s moves, its boxes standing as one while rolling."""
    coach = coaches[game]
    variant = variant_of(game)
    rng = random.Random(f"same order {game}")
    for position in range(30):
        card = random_card(variant, rng, position % variant.rounds)
        dice = roll(rng)
        number = position % 3 + 1
        shown = advise_order(ranked_moves(coach, card, dice, number), dice)
        assert coach_order(coach, card, dice, number)[:len(shown)] == shown
