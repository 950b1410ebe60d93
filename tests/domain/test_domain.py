"""Tests of the UML's domain classes: CategoryValue, Die, Dice, DiceRoll and the 13 boxes."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import yahtzee
from tests.oracle import NAMES, points
from yahtzee import (CategoryValue, Chance, Dice, DiceRoll, Die, FiveOfAKind, FourOfAKind,
                     FullHouse, LgStraight, SmStraight, ThreeOfAKind)
from yahtzee.domain.category import CATEGORY_CLASSES, make_category

FIVE_DICE = st.lists(st.integers(1, 6), min_size=5, max_size=5)


def test_category_value_matches_the_uml_enum() -> None:
    assert [cv.name for cv in CategoryValue][:3] == ["ONES", "TWOS", "THREES"]
    assert [cv.get_value() for cv in CategoryValue] == list(range(13))
    assert [str(cv) for cv in CategoryValue] == NAMES
    assert CategoryValue.from_number(9) is CategoryValue.FULL_HOUSE
    assert CategoryValue.upper_for_face(4) is CategoryValue.FOURS
    with pytest.raises(ValueError):
        CategoryValue.from_number(14)


def test_every_uml_name_is_importable_from_the_package_root() -> None:
    for name in ["Die", "Dice", "DiceRoll", "Category", "ScoreCard", "CategoryValue", "Ones",
                 "Twos", "Threes", "Fours", "Fives", "Sixes", "ThreeOfAKind", "FourOfAKind",
                 "FullHouse", "SmStraight", "LgStraight", "FiveOfAKind", "Chance", "Player",
                 "HumanPlayer", "ComputerPlayer", "Game", "get_rules"]:
        assert hasattr(yahtzee, name), name


def test_die_rolls_with_the_shared_seeded_generator() -> None:
    Die.r.seed(42)
    first = [Die().get_value() for _ in range(20)]
    Die.r.seed(42)
    assert [Die().get_value() for _ in range(20)] == first
    expected = random.Random(42)
    assert first == [expected.randint(1, 6) for _ in range(20)]
    assert Die.SIDES == 6


def test_die_rejects_values_off_its_faces() -> None:
    for bad in (0, 7, -1):
        with pytest.raises(ValueError):
            Die(bad)
    die = Die(4)
    assert (die.get_value(), str(die), repr(die)) == (4, "4", "Die(4)")


def test_dice_container_operations() -> None:
    dice = Dice()
    assert dice.get_num_dice() == 0 and Dice.DEF_CAP == 5
    for value in (5, 2, 5, 6):
        dice.add_die(Die(value))
    assert dice.get_num_dice() == 4
    assert (dice.count(5), dice.count(1), dice.sum()) == (2, 0, 18)
    assert dice.contains(6) and not dice.contains(3)
    assert dice.get_die(1).get_value() == 2
    assert dice.remove_die(0).get_value() == 5
    assert dice.values() == [2, 5, 6]
    assert str(dice) == "1: value 2\n2: value 5\n3: value 6"
    with pytest.raises(IndexError):
        dice.get_die(3)


def test_dice_roll_tosses_all_five() -> None:
    Die.r.seed(7)
    roll = DiceRoll()
    assert roll.get_num_dice() == DiceRoll.NUM_DIE == 5
    before = roll.values()
    Die.r.seed(7)
    assert DiceRoll().values() == before
    roll.toss()
    expected = random.Random(7)
    for _ in range(5):
        expected.randint(1, 6)
    assert roll.values() == [expected.randint(1, 6) for _ in range(5)]


@pytest.mark.parametrize("dice", [
    [1, 1, 1, 1, 1], [2, 3, 4, 5, 6], [1, 2, 3, 4, 5], [1, 3, 4, 5, 6], [1, 2, 3, 5, 6],
    [3, 3, 3, 4, 4], [6, 6, 6, 6, 2], [2, 2, 5, 5, 1], [4, 4, 4, 1, 2], [6, 5, 4, 3, 3],
])
def test_every_box_agrees_with_the_oracle(dice: list[int]) -> None:
    for index, cls in enumerate(CATEGORY_CLASSES):
        assert cls().evaluate(Dice.of(dice)) == points(index, dice), (cls.__name__, dice)


def test_the_edges_of_the_lower_boxes() -> None:
    five_alike = Dice.of([4, 4, 4, 4, 4])
    assert ThreeOfAKind().evaluate(five_alike) == 20
    assert FourOfAKind().evaluate(five_alike) == 20
    assert FullHouse().evaluate(five_alike) == 0
    assert FiveOfAKind().evaluate(five_alike) == 50
    large = Dice.of([5, 2, 4, 3, 6])
    assert (SmStraight().evaluate(large), LgStraight().evaluate(large)) == (30, 40)
    assert SmStraight().evaluate(Dice.of([1, 3, 4, 5, 6])) == 30
    assert SmStraight().evaluate(Dice.of([1, 2, 3, 5, 6])) == 0
    assert LgStraight().evaluate(Dice.of([1, 2, 3, 4, 6])) == 0
    assert FullHouse().evaluate(Dice.of([2, 5, 2, 5, 2])) == 25
    assert FourOfAKind().evaluate(Dice.of([3, 3, 3, 2, 2])) == 0
    assert Chance().evaluate(Dice.of([6, 6, 5, 1, 2])) == 20


def test_category_records_a_score_once() -> None:
    box = make_category(CategoryValue.SIXES)
    assert (box.get_score(), box.get_used()) == (0, False)
    box.add_value(Dice.of([6, 6, 1, 6, 2]))
    assert (box.get_score(), box.get_used()) == (18, True)
    with pytest.raises(ValueError):
        box.add_value(Dice.of([6, 6, 6, 6, 6]))
    assert box.get_score() == 18


@given(FIVE_DICE)
def test_every_permutation_of_the_dice_scores_the_same(dice: list[int]) -> None:
    boxes = [cls() for cls in CATEGORY_CLASSES]
    expected = [box.evaluate(Dice.of(dice)) for box in boxes]
    for order in set(itertools.permutations(dice)):
        assert [box.evaluate(Dice.of(order)) for box in boxes] == expected


@given(FIVE_DICE)
def test_boxes_agree_with_the_oracle_on_any_dice(dice: list[int]) -> None:
    assert [cls().evaluate(Dice.of(dice)) for cls in CATEGORY_CLASSES] == [
        points(i, dice) for i in range(13)]
