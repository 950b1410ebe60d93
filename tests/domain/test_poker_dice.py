"""Tests of ``yahtzee.domain.poker_dice``: the dice API, ``calculate_score`` and the card."""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
import time
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee.domain.dice import Dice
from yahtzee.domain.games import POKER_DICE, yahtzee_variant
from yahtzee.domain.rules import COURSE
from yahtzee.domain.poker_dice import (FACE_VALUES, FACES, PokerCategory, PokerScoreCard,
                                       add_values, are_valid, calculate_score, faces_of,
                                       num_faces, roll_dice)
from yahtzee.domain.score_card import IllegalChoiceError
from yahtzee.domain.card import Card

ONE_PAIR = 1
TWO_PAIR = 2
THREE_OF_A_KIND = 3
FOUR_OF_A_KIND = 4
FIVE_OF_A_KIND = 5
FULL_HOUSE = 6
SMALL_STRAIGHT = 7
LARGE_STRAIGHT = 8
CHANCE = 9
ALL_TYPES = range(1, 10)


# --- the dice API -------------------------------------------------------------------------

def test_faces_in_increasing_order() -> None:
    assert FACES == ['9', '10', 'J', 'Q', 'K', 'A']


def test_only_yahtzee_s_dice_are_printed_as_their_values() -> None:
    # a digit typed is a Yahtzee face as it stands; Poker Dice's "9" stands for the value 1
    assert yahtzee_variant(COURSE).faces_are_values and not POKER_DICE.faces_are_values


def test_face_values() -> None:
    assert FACE_VALUES == {'9': 9, '10': 10, 'J': 10, 'Q': 10, 'K': 10, 'A': 11}


def test_roll_dice_seed_example() -> None:
    assert roll_dice(3, 10001) == ['J', '9', '9']


def test_roll_dice_defaults_are_five_dice_seeded_with_zero() -> None:
    assert roll_dice() == roll_dice(5, 0) == ['Q', 'Q', '9', 'J', 'K']


def test_roll_dice_is_reproducible_for_a_seed() -> None:
    assert roll_dice(10, 42) == roll_dice(10, 42)
    assert len({tuple(roll_dice(10, seed)) for seed in range(20)}) == 20  # the seed is used


@pytest.mark.parametrize("n", [1, 2, 5, 10])
def test_roll_dice_in_range_gives_n_valid_faces(n: int) -> None:
    dice = roll_dice(n, 7)
    assert len(dice) == n
    assert are_valid(dice)


@pytest.mark.parametrize("n", [0, -1, 11, 100])
def test_roll_dice_out_of_range_gives_one_nine(n: int) -> None:
    assert roll_dice(n, 3) == ['9']


def test_roll_dice_seed_none_uses_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no seed the generator is seeded from the clock, in nanoseconds."""
    for now in (10001, 123456789):
        monkeypatch.setattr(time, "time_ns", lambda: now)
        assert roll_dice(5, None) == roll_dice(5, now)
    monkeypatch.setattr(time, "time_ns", lambda: 10001)
    assert roll_dice(3, None) == ['J', '9', '9']


@pytest.mark.parametrize("dice", [['9'], ['A'] * 10, ['9', '10', 'J', 'Q', 'K'], ('Q', 'K')])
def test_are_valid_true(dice: Sequence[str]) -> None:
    assert are_valid(dice)


@pytest.mark.parametrize("dice", [None, [], ['9'] * 11, ['1'], ['9', 'X'], ['9', 9], 'A',
                                  ['a'], ['10 ']])
def test_are_valid_false(dice: object) -> None:
    assert not are_valid(dice)


def test_add_values() -> None:
    assert add_values(['9', '10', 'J', 'Q', 'K']) == 49
    assert add_values(['A'] * 10) == 110


@pytest.mark.parametrize("dice", [None, [], ['9', 'B'], ['9'] * 11])
def test_add_values_invalid_is_minus_one(dice: list[str] | None) -> None:
    assert add_values(dice) == -1


def test_num_faces_seed_example() -> None:
    assert num_faces(['Q', 'K', '9', '10', 'Q'], 'Q') == 2


def test_num_faces_absent_face_is_zero() -> None:
    assert num_faces(['Q', 'K', '9', '10', 'Q'], 'A') == 0
    assert num_faces(['Q', 'K'], 'X') == 0


@pytest.mark.parametrize("dice", [None, [], ['9', 'B'], ['9'] * 11])
def test_num_faces_invalid_is_minus_one(dice: list[str] | None) -> None:
    assert num_faces(dice, '9') == -1


class _NoCountList(list[str]):
    """A list whose ``count`` method may not be used."""

    def count(self, value: str) -> int:
        """Fail: the assignment forbids ``list.count``."""
        raise AssertionError("list.count was used")


def test_num_faces_does_not_use_list_count() -> None:
    assert num_faces(_NoCountList(['9', '9', 'A']), '9') == 2


# --- calculate_score: the assignment's list -------------------------------------------------

def test_calculate_score_one_pair_no_match() -> None:
    assert calculate_score(['9', '10', 'J', 'Q', 'K'], ONE_PAIR) == 0


def test_calculate_score_one_pair_one_match() -> None:
    assert calculate_score(['9', '9', 'J', 'A', 'Q'], ONE_PAIR) == 18


def test_calculate_score_one_pair_three_alike_scores_the_pair() -> None:
    assert calculate_score(['9', '9', 'Q', 'A', '9'], ONE_PAIR) == 18


def test_calculate_score_one_pair_counts_the_highest_pair() -> None:
    assert calculate_score(['9', '9', 'A', 'A', 'Q'], ONE_PAIR) == 22
    assert calculate_score(['9', '9', 'K', 'K', 'A'], ONE_PAIR) == 20


def test_calculate_score_two_pair_no_match() -> None:
    assert calculate_score(['9', '10', 'J', 'Q', 'K'], TWO_PAIR) == 0


def test_calculate_score_two_pair_one_match() -> None:
    assert calculate_score(['9', '9', '10', 'J', 'K'], TWO_PAIR) == 0


def test_calculate_score_two_pair_match() -> None:
    assert calculate_score(['9', '9', '10', '10', 'K'], TWO_PAIR) == 38
    assert calculate_score(['A', 'Q', 'A', '9', 'Q'], TWO_PAIR) == 42


def test_calculate_score_three_of_a_kind_match() -> None:
    assert calculate_score(['K', 'K', '9', 'K', 'A'], THREE_OF_A_KIND) == 40


def test_calculate_score_three_of_a_kind_no_match() -> None:
    assert calculate_score(['K', 'K', '9', '9', 'A'], THREE_OF_A_KIND) == 0


def test_calculate_score_four_of_a_kind_match() -> None:
    assert calculate_score(['A', 'A', 'A', '9', 'A'], FOUR_OF_A_KIND) == 64


def test_calculate_score_four_of_a_kind_no_match() -> None:
    assert calculate_score(['A', 'A', 'A', '9', '9'], FOUR_OF_A_KIND) == 0


def test_calculate_score_five_of_a_kind_match() -> None:
    assert calculate_score(['J'] * 5, FIVE_OF_A_KIND) == 100


def test_calculate_score_five_of_a_kind_no_match() -> None:
    assert calculate_score(['J', 'J', 'J', 'J', 'Q'], FIVE_OF_A_KIND) == 0


def test_calculate_score_full_house_match() -> None:
    assert calculate_score(['9', '9', '9', 'A', 'A'], FULL_HOUSE) == 50 + 49


def test_calculate_score_full_house_no_match() -> None:
    assert calculate_score(['9', '9', '9', 'A', 'K'], FULL_HOUSE) == 0


@pytest.mark.parametrize("dice", [['9', '10', 'J', 'Q', 'A'], ['10', 'J', 'Q', 'K', 'K'],
                                  ['A', 'K', 'J', 'Q', '9'], ['Q', 'J', 'K', 'A', 'A']])
def test_calculate_score_small_straight_match(dice: list[str]) -> None:
    assert calculate_score(dice, SMALL_STRAIGHT) == 70


def test_calculate_score_small_straight_no_match() -> None:
    assert calculate_score(['9', '10', 'J', 'K', 'A'], SMALL_STRAIGHT) == 0


@pytest.mark.parametrize("dice", [['9', '10', 'J', 'Q', 'K'], ['A', 'K', 'Q', 'J', '10']])
def test_calculate_score_large_straight_match(dice: list[str]) -> None:
    assert calculate_score(dice, LARGE_STRAIGHT) == 95


def test_calculate_score_large_straight_no_match() -> None:
    assert calculate_score(['9', '10', 'J', 'Q', 'A'], LARGE_STRAIGHT) == 0
    assert calculate_score(['9', '10', 'J', 'Q', 'Q'], LARGE_STRAIGHT) == 0


def test_calculate_score_chance_match() -> None:
    assert calculate_score(['9', '10', 'J', 'A', 'A'], CHANCE) == 51


# --- calculate_score: the decisions the assignment leaves open ------------------------------

def test_calculate_score_five_alike_is_one_pair_three_and_four_of_a_kind() -> None:
    dice = ['A'] * 5
    assert calculate_score(dice, ONE_PAIR) == 22
    assert calculate_score(dice, THREE_OF_A_KIND) == 43
    assert calculate_score(dice, FOUR_OF_A_KIND) == 64


def test_calculate_score_four_alike_is_not_two_pair() -> None:
    assert calculate_score(['Q', 'Q', 'Q', 'Q', '9'], TWO_PAIR) == 0


def test_calculate_score_five_alike_is_neither_two_pair_nor_full_house() -> None:
    assert calculate_score(['9'] * 5, TWO_PAIR) == 0
    assert calculate_score(['9'] * 5, FULL_HOUSE) == 0


def test_calculate_score_full_house_is_also_two_pair() -> None:
    assert calculate_score(['9', '9', '9', 'A', 'A'], TWO_PAIR) == 40


def test_calculate_score_large_straight_is_also_small_straight() -> None:
    assert calculate_score(['9', '10', 'J', 'Q', 'K'], SMALL_STRAIGHT) == 70


def test_calculate_score_equal_values_of_different_faces_do_not_match() -> None:
    dice = ['10', 'J', 'Q', 'K', '9']
    assert calculate_score(dice, ONE_PAIR) == 0
    assert calculate_score(dice, THREE_OF_A_KIND) == 0
    assert calculate_score(['10', '10', '10', 'J', 'J'], FULL_HOUSE) == 50 + 50


def test_calculate_score_straight_follows_faces_not_values() -> None:
    assert calculate_score(['9', 'J', 'Q', 'K', 'K'], SMALL_STRAIGHT) == 0
    assert calculate_score(['10', 'J', 'Q', 'K', 'K'], SMALL_STRAIGHT) == 70


@pytest.mark.parametrize("dice", [None, [], ['9', 'X', 'J', 'Q', 'K'], ['9'] * 11])
@pytest.mark.parametrize("score_type", ALL_TYPES)
def test_calculate_score_invalid_dice_is_zero(dice: list[str] | None, score_type: int) -> None:
    assert calculate_score(dice, score_type) == 0


@pytest.mark.parametrize("score_type", [0, 10, -1, True])
def test_calculate_score_unknown_type_is_zero(score_type: int) -> None:
    assert calculate_score(['A'] * 5, score_type) == 0


def test_calculate_score_other_numbers_of_dice() -> None:
    assert calculate_score(['K', 'K'], ONE_PAIR) == 20
    assert calculate_score(['K'], ONE_PAIR) == 0
    assert calculate_score(['9', '9', '9', 'A', 'A', 'A', 'Q'], ONE_PAIR) == 22
    assert calculate_score(['9', '9', 'Q', 'Q', 'A', 'A'], TWO_PAIR) == 42
    assert calculate_score(['9', '10', 'J', 'Q', 'K', 'A'], LARGE_STRAIGHT) == 95
    assert calculate_score(['A'] * 10, CHANCE) == 110


def test_calculate_score_has_one_return_statement() -> None:
    import yahtzee.domain.poker_dice as module
    tree = ast.parse(textwrap.dedent(inspect.getsource(module.calculate_score)))
    returns = [node for node in ast.walk(tree) if isinstance(node, ast.Return)]
    assert len(returns) == 1


# --- calculate_score over every roll of five dice ------------------------------------------

def _reference_score(dice: Sequence[str], score_type: int) -> int:
    """Score five dice by a second, independent reading of the rules."""
    counts = Counter(dice)
    by_value = sorted(counts, key=lambda face: FACE_VALUES[face], reverse=True)
    total = sum(FACE_VALUES[face] for face in dice)
    shown = {FACES.index(face) for face in dice}
    runs = [len(list(group)) for key, group in
            itertools.groupby(range(len(FACES)), key=lambda i: i in shown) if key]
    longest = max(runs, default=0)
    sizes = sorted(counts.values(), reverse=True)
    results = {
        ONE_PAIR: next((2 * FACE_VALUES[f] for f in by_value if counts[f] >= 2), 0),
        TWO_PAIR: sum(2 * FACE_VALUES[f] for f in [f for f in by_value if counts[f] >= 2][:2])
        if sum(counts[f] >= 2 for f in counts) >= 2 else 0,
        THREE_OF_A_KIND: next((3 * FACE_VALUES[f] + 10 for f in by_value if counts[f] >= 3), 0),
        FOUR_OF_A_KIND: next((4 * FACE_VALUES[f] + 20 for f in by_value if counts[f] >= 4), 0),
        FIVE_OF_A_KIND: 100 if sizes[0] == 5 else 0,
        FULL_HOUSE: 50 + total if sizes[:2] == [3, 2] else 0,
        SMALL_STRAIGHT: 70 if longest >= 4 else 0,
        LARGE_STRAIGHT: 95 if longest == 5 else 0,
        CHANCE: total,
    }
    return results[score_type]


def test_calculate_score_matches_reference_on_every_roll() -> None:
    for dice in itertools.product(FACES, repeat=5):
        for score_type in ALL_TYPES:
            assert calculate_score(list(dice), score_type) == _reference_score(dice, score_type)


def test_calculate_score_how_many_rolls_match_each_type() -> None:
    rolls = list(itertools.product(FACES, repeat=5))
    matching = {t: sum(calculate_score(list(r), t) > 0 for r in rolls) for t in ALL_TYPES}
    assert matching[FIVE_OF_A_KIND] == 6
    assert matching[FULL_HOUSE] == 300
    assert matching[LARGE_STRAIGHT] == 240
    assert matching[ONE_PAIR] == 6 ** 5 - 720
    assert matching[CHANCE] == 6 ** 5


@given(st.lists(st.sampled_from(FACES), min_size=1, max_size=10).flatmap(
    lambda dice: st.tuples(st.just(dice), st.permutations(dice))))
def test_calculate_score_is_the_same_for_every_order(
        pair: tuple[list[str], list[str]]) -> None:
    dice, shuffled = pair
    for score_type in ALL_TYPES:
        assert calculate_score(dice, score_type) == calculate_score(shuffled, score_type)


def test_calculate_score_is_the_same_for_every_permutation_of_a_roll() -> None:
    for dice in [['9', '9', '9', 'A', 'A'], ['10', 'J', 'Q', 'K', '9'], ['9', '9', 'K', 'K', 'A']]:
        expected = [calculate_score(dice, t) for t in ALL_TYPES]
        for order in itertools.permutations(dice):
            assert [calculate_score(list(order), t) for t in ALL_TYPES] == expected


# --- PokerCategory ---------------------------------------------------------------------------

def test_poker_category_numbers_labels_and_values() -> None:
    labels = ["One Pair", "Two Pair", "Three of a Kind", "Four of a Kind", "Five of a Kind",
              "Full House", "Small Straight", "Large Straight", "Chance"]
    assert [c.label for c in PokerCategory] == labels
    assert [str(c) for c in PokerCategory] == labels
    assert [c.number for c in PokerCategory] == list(ALL_TYPES)
    assert [c.get_value() for c in PokerCategory] == list(range(9))
    assert repr(PokerCategory.FULL_HOUSE) == "PokerCategory.FULL_HOUSE"


def test_poker_category_from_number() -> None:
    assert PokerCategory.from_number(6) is PokerCategory.FULL_HOUSE
    for bad in (0, 10):
        with pytest.raises(ValueError):
            PokerCategory.from_number(bad)


# --- the card ----------------------------------------------------------------------------------

FULL_HOUSE_ROLL = [1, 1, 1, 6, 6]  # 9, 9, 9, A, A


def test_faces_of_maps_die_values_to_faces() -> None:
    assert faces_of(Dice.of([1, 2, 3, 4, 5, 6])) == FACES


def test_card_played_through_the_card_protocol() -> None:
    """Through the engine's ``Card`` protocol alone, a box fills, counts a turn and totals."""
    card: Card = PokerScoreCard()
    item = card.choose_number(9, Dice.of(FULL_HOUSE_ROLL))
    assert (item.name, item.points) == ("Chance", 49)
    assert card.score() == 49 and card.rounds_used() == 1
    assert card.rows()[-2:] == [("Chance", 49), ("Total", 49)]
    assert 9 not in [i.number for i in card.menu(Dice.of(FULL_HOUSE_ROLL))]


def test_card_menu_offers_every_type_with_its_points() -> None:
    menu = PokerScoreCard().menu(Dice.of(FULL_HOUSE_ROLL))
    assert [(item.number, item.name, item.points) for item in menu] == [
        (1, "One Pair", 22), (2, "Two Pair", 40), (3, "Three of a Kind", 37),
        (4, "Four of a Kind", 0), (5, "Five of a Kind", 0), (6, "Full House", 99),
        (7, "Small Straight", 0), (8, "Large Straight", 0), (9, "Chance", 49)]


def test_card_choose_number_scores_and_leaves_the_menu() -> None:
    card = PokerScoreCard()
    item = card.choose_number(6, Dice.of(FULL_HOUSE_ROLL))
    assert (item.number, item.name, item.points) == (6, "Full House", 99)
    assert card.check_scored(PokerCategory.FULL_HOUSE)
    assert card.get_category_score(PokerCategory.FULL_HOUSE) == 99
    assert 6 not in [i.number for i in card.menu(Dice.of(FULL_HOUSE_ROLL))]
    assert card.rounds_used() == 1


def test_card_choose_number_on_a_used_box_raises_and_changes_nothing() -> None:
    card = PokerScoreCard()
    card.choose_number(6, Dice.of(FULL_HOUSE_ROLL))
    before = card.scores()
    with pytest.raises(IllegalChoiceError):
        card.choose_number(6, Dice.of([2, 3, 4, 5, 6]))
    assert card.scores() == before
    assert card.rounds_used() == 1


@pytest.mark.parametrize("number", [0, 10, -1])
def test_card_choose_number_unknown_raises_value_error(number: int) -> None:
    card = PokerScoreCard()
    with pytest.raises(ValueError):
        card.choose_number(number, Dice.of(FULL_HOUSE_ROLL))
    assert card.scores() == [None] * 9


def test_card_choose_used_category_raises() -> None:
    card = PokerScoreCard()
    card.choose(PokerCategory.CHANCE, Dice.of([6, 6, 6, 6, 6]))
    with pytest.raises(IllegalChoiceError):
        card.choose(PokerCategory.CHANCE, Dice.of([1, 1, 1, 1, 1]))
    assert card.get_category_score(PokerCategory.CHANCE) == 55


def test_card_zero_is_a_used_box() -> None:
    card = PokerScoreCard()
    card.choose(PokerCategory.FIVE_OF_A_KIND, Dice.of([1, 2, 3, 4, 5]))
    assert card.check_scored(PokerCategory.FIVE_OF_A_KIND)
    assert card.get_category_score(PokerCategory.FIVE_OF_A_KIND) == 0
    assert card.scores()[PokerCategory.FIVE_OF_A_KIND.get_value()] == 0


def test_card_full_game_totals() -> None:
    card = PokerScoreCard()
    turns = [
        (1, [6, 6, 1, 2, 3], 22), (2, [6, 6, 5, 5, 1], 42), (3, [5, 5, 5, 1, 2], 40),
        (4, [1, 1, 1, 1, 2], 56), (5, [4, 4, 4, 4, 4], 100), (6, [2, 2, 2, 3, 3], 100),
        (7, [1, 2, 3, 4, 4], 70), (8, [2, 3, 4, 5, 6], 95), (9, [6, 6, 6, 1, 1], 51),
    ]
    for number, values, points in turns:
        assert card.choose_number(number, Dice.of(values)).points == points
    assert card.rounds_used() == 9
    assert card.menu(Dice.of([1, 2, 3, 4, 5])) == []
    assert card.score() == 576
    assert card.rows()[-1] == ("Total", 576)


def test_card_rows_and_str() -> None:
    card = PokerScoreCard()
    card.choose_number(6, Dice.of(FULL_HOUSE_ROLL))
    rows = card.rows()
    assert [label for label, _ in rows] == [c.label for c in PokerCategory] + ["Total"]
    text = str(card).splitlines()
    assert text[0] == "       One Pair: 0"
    assert text[5] == "     Full House: 99"
    assert text[-1] == "          Total: 99"


def test_card_restore_round_trips() -> None:
    card = PokerScoreCard()
    card.choose_number(6, Dice.of(FULL_HOUSE_ROLL))
    card.choose_number(9, Dice.of([1, 1, 1, 1, 1]))
    again = PokerScoreCard.restore(card.scores())
    assert again.scores() == card.scores()
    assert again.score() == card.score() == 144
    assert again.rounds_used() == 2
    expected = "PokerScoreCard.restore([None, None, None, None, None, 99, None, None, 45])"
    assert repr(card) == expected


@pytest.mark.parametrize("scores", [[None] * 8, [None] * 10, [None] * 8 + [-1],
                                    [None] * 8 + [True], [None] * 8 + [1.5],
                                    [None] * 8 + [10**30], [19] + [None] * 8,
                                    [None] * 8 + [44]])
def test_card_restore_rejects_bad_scores(scores: list[object]) -> None:
    with pytest.raises(ValueError):
        PokerScoreCard.restore(scores)  # type: ignore[arg-type]


def test_poker_dice_variant() -> None:
    assert POKER_DICE.name == "poker-dice"
    assert POKER_DICE.rounds == 9
    assert POKER_DICE.rules_name == "poker-dice"
    assert POKER_DICE.face_labels == tuple(FACES)
    assert POKER_DICE.face(6) == 'A'
    assert isinstance(POKER_DICE.new_card(), PokerScoreCard)
    card = POKER_DICE.restore_card([None] * 8 + [45], 0)
    assert POKER_DICE.card_contents(card) == ((None,) * 8 + (45,), 0)
    with pytest.raises(ValueError):
        POKER_DICE.restore_card([None] * 9, 1)
