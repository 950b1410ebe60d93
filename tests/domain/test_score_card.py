"""Tests of ScoreCard under both rule sets: totals, bonuses, the joker and misuse."""

from __future__ import annotations

import random

import pytest

from yahtzee import CategoryValue as CV
from yahtzee import Dice, ScoreCard, get_rules
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules, box_points

YAHTZEE_OF_THREES = Dice.of([3, 3, 3, 3, 3])


def fill(card: ScoreCard, moves: list[tuple[CV, list[int]]]) -> None:
    """Score each (box, dice) move on the card."""
    for cv, dice in moves:
        card.choose(cv, Dice.of(dice))


def test_get_rules_names_both_sets_and_refuses_others() -> None:
    assert get_rules("course") is COURSE and get_rules("official") is OFFICIAL
    with pytest.raises(ValueError, match="unknown rules"):
        get_rules("house")


def test_totals_of_top_bottom_and_card() -> None:
    card = ScoreCard()
    fill(card, [(CV.SIXES, [6, 6, 6, 1, 2]), (CV.FULL_HOUSE, [2, 2, 3, 3, 3]),
                (CV.CHANCE, [1, 2, 3, 4, 6]), (CV.ONES, [2, 3, 4, 5, 6])])
    assert (card.score_top(), card.score_bottom(), card.score()) == (18, 41, 59)
    assert card.get_category_score(CV.SIXES) == 18
    assert card.check_scored(CV.ONES) and card.get_category_score(CV.ONES) == 0
    assert not card.check_scored(CV.TWOS)
    assert ScoreCard.NUM_CATS == 13


@pytest.mark.parametrize("ones, expected_top", [([1, 1, 2, 2, 2], 62), ([1, 1, 1, 2, 2], 98)])
def test_upper_bonus_starts_at_exactly_63(ones: list[int], expected_top: int) -> None:
    card = ScoreCard()
    fill(card, [(CV.ONES, ones)] + [
        (CV.upper_for_face(face), [face, face, face, 1 if face != 1 else 2, 2 if face != 2
                                   else 3]) for face in range(2, 7)])
    assert card.upper_subtotal() in (62, 63)
    assert card.score_top() == expected_top
    assert card.upper_bonus() == (35 if expected_top == 98 else 0)


def test_choosing_a_filled_box_raises_and_changes_nothing() -> None:
    card = ScoreCard()
    fill(card, [(CV.CHANCE, [6, 6, 6, 6, 5])])
    before = (str(card), card.scores(), card.get_yahtzee_bonus())
    with pytest.raises(ValueError, match="already been scored"):
        card.choose(CV.CHANCE, Dice.of([1, 1, 1, 1, 1]))
    assert (str(card), card.scores(), card.get_yahtzee_bonus()) == before
    assert CV.CHANCE not in card.choices(Dice.of([1, 2, 3, 4, 5]))


def test_card_prints_the_spec_rows() -> None:
    card = ScoreCard()
    fill(card, [(CV.FOUR_OF_A_KIND, [5, 5, 5, 5, 2])])
    lines = str(card).splitlines()
    assert lines[0] == "           Ones: 0"
    assert lines[7] == " Four of a Kind: 22"
    assert lines[13:] == [" Yahtzee bonus:: 0", "    Upper Total: 0", "    Lower Total: 22",
                          "          Total: 22"]


def test_course_bonus_is_chosen_fills_no_box_and_stops_at_three() -> None:
    card = ScoreCard(COURSE)
    card.choose(CV.YAHTZEE, YAHTZEE_OF_THREES)
    for taken in range(1, 4):
        assert CV.YAHTZEE in card.choices(YAHTZEE_OF_THREES)
        assert card.get_evaluation(CV.YAHTZEE, YAHTZEE_OF_THREES) == 100
        card.choose(CV.YAHTZEE, YAHTZEE_OF_THREES)
        assert card.get_yahtzee_bonus() == taken
        assert card.rounds_used() == 1 + taken
    assert CV.YAHTZEE not in card.choices(YAHTZEE_OF_THREES)
    assert card.scores().count(None) == 12
    assert (card.score_bottom(), card.score()) == (350, 350)
    with pytest.raises(ValueError, match="limit of 3 Yahtzee bonuses"):
        card.choose(CV.YAHTZEE, YAHTZEE_OF_THREES)
    assert card.get_yahtzee_bonus() == 3
    assert card.get_evaluation(CV.THREES, YAHTZEE_OF_THREES) == 15
    assert card.get_evaluation(CV.FULL_HOUSE, YAHTZEE_OF_THREES) == 0


def test_course_has_no_bonus_after_a_zeroed_yahtzee_box() -> None:
    card = ScoreCard(COURSE)
    card.choose(CV.YAHTZEE, Dice.of([1, 2, 3, 4, 6]))
    assert CV.YAHTZEE not in card.choices(YAHTZEE_OF_THREES)
    assert len(card.choices(YAHTZEE_OF_THREES)) == 12


def test_official_joker_step_one_forces_the_matching_upper_box() -> None:
    card = ScoreCard(OFFICIAL)
    card.choose(CV.YAHTZEE, Dice.of([6, 6, 6, 6, 6]))
    assert card.choices(YAHTZEE_OF_THREES) == [CV.THREES]
    assert card.get_evaluation(CV.THREES, YAHTZEE_OF_THREES) == 115
    with pytest.raises(ValueError):
        card.choose(CV.CHANCE, YAHTZEE_OF_THREES)
    card.choose(CV.THREES, YAHTZEE_OF_THREES)
    assert (card.get_category_score(CV.THREES), card.get_yahtzee_bonus()) == (15, 1)
    assert card.score() == 50 + 15 + 100


def test_official_joker_step_two_any_open_lower_box_at_joker_points() -> None:
    card = ScoreCard(OFFICIAL)
    fill(card, [(CV.YAHTZEE, [2, 2, 2, 2, 2]), (CV.THREES, [3, 3, 1, 2, 4]),
                (CV.CHANCE, [1, 1, 2, 2, 3])])
    menu = {cv: card.get_evaluation(cv, YAHTZEE_OF_THREES)
            for cv in card.choices(YAHTZEE_OF_THREES)}
    assert menu == {CV.THREE_OF_A_KIND: 115, CV.FOUR_OF_A_KIND: 115, CV.FULL_HOUSE: 125,
                    CV.SM_STRAIGHT: 130, CV.LG_STRAIGHT: 140}
    card.choose(CV.LG_STRAIGHT, YAHTZEE_OF_THREES)
    assert card.get_category_score(CV.LG_STRAIGHT) == 40


def test_official_joker_step_three_an_open_upper_box_for_zero() -> None:
    card = ScoreCard(OFFICIAL)
    fill(card, [(CV.YAHTZEE, [1, 2, 3, 4, 6]), (CV.THREES, [3, 3, 1, 2, 4])])
    for cv in [CV.THREE_OF_A_KIND, CV.FOUR_OF_A_KIND, CV.FULL_HOUSE, CV.SM_STRAIGHT,
               CV.LG_STRAIGHT, CV.CHANCE]:
        card.choose(cv, Dice.of([1, 2, 3, 4, 6]))
    assert card.choices(YAHTZEE_OF_THREES) == [CV.ONES, CV.TWOS, CV.FOURS, CV.FIVES, CV.SIXES]
    assert {card.get_evaluation(cv, YAHTZEE_OF_THREES)
            for cv in card.choices(YAHTZEE_OF_THREES)} == {0}
    card.choose(CV.SIXES, YAHTZEE_OF_THREES)
    assert (card.get_category_score(CV.SIXES), card.get_yahtzee_bonus()) == (0, 0)


def test_official_bonus_is_automatic_and_unlimited() -> None:
    card = ScoreCard(OFFICIAL)
    card.choose(CV.YAHTZEE, Dice.of([5, 5, 5, 5, 5]))
    for face in range(1, 6):
        card.choose(CV.upper_for_face(face), Dice.of([face] * 5))
    assert card.get_yahtzee_bonus() == 5
    assert card.score_bottom() == 50 + 500
    assert card.score_top() == 15 * 5 + 35


def test_a_yahtzee_with_the_box_open_scores_normally_under_both_rules() -> None:
    for rules in (COURSE, OFFICIAL):
        card = ScoreCard(rules)
        assert len(card.choices(YAHTZEE_OF_THREES)) == 13
        assert card.get_evaluation(CV.FULL_HOUSE, YAHTZEE_OF_THREES) == 0
        assert card.get_evaluation(CV.YAHTZEE, YAHTZEE_OF_THREES) == 50


def test_restore_rebuilds_a_card_and_refuses_impossible_ones() -> None:
    card = ScoreCard(COURSE)
    fill(card, [(CV.YAHTZEE, [4, 4, 4, 4, 4]), (CV.YAHTZEE, [4, 4, 4, 4, 4])])
    copy = ScoreCard.restore(COURSE, card.scores(), card.get_yahtzee_bonus())
    assert (str(copy), copy.scores()) == (str(card), card.scores())
    with pytest.raises(ValueError):
        ScoreCard.restore(COURSE, [None] * 13, 4)
    with pytest.raises(ValueError):
        ScoreCard.restore(COURSE, [None] * 12, 0)


@pytest.mark.parametrize(("box", "points"), [(CV.ONES, 63), (CV.ONES, 6), (CV.CHANCE, 10**30),
                                             (CV.CHANCE, 4), (CV.FULL_HOUSE, 26),
                                             (CV.YAHTZEE, 100), (CV.SIXES, -6)])
def test_restore_refuses_points_no_roll_can_put_in_a_box(box: CV, points: int) -> None:
    """A box holds only what some roll scores there under the rules, nothing else."""
    for rules in (COURSE, OFFICIAL):
        scores: list[int | None] = [None] * ScoreCard.NUM_CATS
        scores[box.get_value()] = points
        with pytest.raises(ValueError, match="cannot hold"):
            ScoreCard.restore(rules, scores, 0)


def test_restore_refuses_bonuses_no_game_can_have() -> None:
    """Yahtzee bonuses need 50 in the Yahtzee box and a later turn each."""
    with pytest.raises(ValueError, match="bonuses"):
        ScoreCard.restore(OFFICIAL, [None] * 11 + [0, None], 1)
    with pytest.raises(ValueError, match="bonuses"):
        ScoreCard.restore(OFFICIAL, [None] * 11 + [50, None], 1)
    with pytest.raises(ValueError, match="bonuses"):
        ScoreCard.restore(COURSE, [0] * 11 + [50, 5], 1)
    assert ScoreCard.restore(OFFICIAL, [5] + [None] * 10 + [50, None], 1).score() == 155
    assert ScoreCard.restore(COURSE, [None] * 11 + [50, None], 3).score() == 350
    assert ScoreCard.restore(OFFICIAL, [None] * 8 + [25, None, None, 50, None], 1).score() == 175


def random_roll(rng: random.Random) -> Dice:
    """Return five random dice, a Yahtzee about a third of the time (to reach the bonuses)."""
    return Dice.of([rng.randint(1, 6)] * 5 if rng.random() < 0.3
                   else [rng.randint(1, 6) for _ in range(5)])


@pytest.mark.parametrize("rules", [COURSE, OFFICIAL], ids=lambda r: r.name)
def test_scores_always_show_the_boxes_contents(rules: Rules) -> None:
    rng = random.Random(3)
    for _ in range(40):
        card = ScoreCard(rules)
        while card.rounds_used() < card.rules.ROUNDS:
            dice = random_roll(rng)
            card.choose(rng.choice(card.choices(dice)), dice)
            boxes = [card.get_category_score(cv) if card.check_scored(cv) else None
                     for cv in CV]
            assert card.scores() == boxes
            again = ScoreCard.restore(card.rules, boxes, card.get_yahtzee_bonus())
            assert again.scores() == boxes and again.score() == card.score()
        card.scores()[0] = 99
        assert card.scores()[0] != 99


@pytest.mark.parametrize("rules", [COURSE, OFFICIAL, Rules("free", False, None, False)],
                         ids=lambda r: r.name)  # free: the joker, not forced
def test_options_with_the_box_points_worked_out_beforehand_are_the_same(rules: Rules) -> None:
    rng = random.Random(8)
    for _ in range(400):
        scores: list[int | None] = [rng.choice([None, 0, 3, 25]) for _ in CV]
        scores[CV.YAHTZEE.get_value()] = rng.choice([None, 0, 50])
        dice = Dice.of([rng.randint(1, 6)] * 5 if rng.random() < 0.5
                       else [rng.randint(1, 6) for _ in range(5)])
        points = [box_points(cv, dice) for cv in CV]
        bonuses = rng.randrange(4)
        assert rules.options(scores, bonuses, dice, points) == rules.options(scores, bonuses,
                                                                             dice)


@pytest.mark.parametrize("rules", [COURSE, OFFICIAL], ids=lambda r: r.name)
def test_menu_and_totals_follow_every_change_of_the_card(rules: Rules) -> None:
    """The menu, the options and the totals are kept between changes: each change shows at once.

    The same dice are asked about before and after every box (a stale menu would still
    offer the box just filled), and each answer is checked against a fresh card.
    """
    rng = random.Random(5)
    for _ in range(30):
        card = ScoreCard(rules)
        while card.rounds_used() < card.rules.ROUNDS:
            dice = random_roll(rng)
            before = card.menu(dice)
            assert card.menu(Dice.of(dice.values())) == before
            cv = rng.choice(card.choices(dice))
            was_open = not card.check_scored(cv)
            card.choose(cv, dice)
            fresh = ScoreCard.restore(rules, card.scores(), card.get_yahtzee_bonus())
            assert card.menu(dice) == fresh.menu(dice) and card.options(dice) == fresh.options(
                dice)
            if was_open and cv is not CV.YAHTZEE:  # filled: off the menu (Yahtzee: bonus)
                assert cv.number not in [item.number for item in card.menu(dice)]
            assert (card.upper_subtotal(), card.score_top(), card.score_bottom(),
                    card.score()) == (fresh.upper_subtotal(), fresh.score_top(),
                                      fresh.score_bottom(), fresh.score())
            top = sum(card.get_category_score(c) for c in CV if c.is_upper)
            assert card.upper_subtotal() == top
            card.menu(dice).clear()
            assert card.menu(dice) == fresh.menu(dice)


def test_a_menu_for_other_dice_is_worked_out_for_them() -> None:
    card = ScoreCard(OFFICIAL)
    fill(card, [(CV.YAHTZEE, [2, 2, 2, 2, 2])])
    assert [item.number for item in card.menu(YAHTZEE_OF_THREES)] == [3]
    assert card.menu(Dice.of([1, 2, 3, 4, 5]))[0].number == 1
    assert card.get_evaluation(CV.THREES, YAHTZEE_OF_THREES) == 115
