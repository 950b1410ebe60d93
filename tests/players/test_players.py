"""The table of player kinds, default names, and a computer player's commands from a strategy."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from yahtzee.domain.card import Card
from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.games import (GAMES, POKER_DICE, UnknownGameError, get_variant, rules_of,
                                  yahtzee_variant)
from yahtzee.domain.rules import COURSE, OFFICIAL
from yahtzee.engine.engine import TurnView
from yahtzee.players.kinds import (COMPUTER, EXPECTED, GREEDY, HUMAN, KINDS, STRATEGIES,
                                   default_names, find_kind)
from yahtzee.engine.moves import Move, saved_flags
from yahtzee.players.players import ComputerPlayer, HumanPlayer

VARIANT = yahtzee_variant(COURSE)


class FixedStrategy:
    """Keeps ``keep`` (None: score now) and scores Chance."""

    def __init__(self, keep: tuple[int, ...] | None) -> None:
        """Remember the keep to return."""
        self.wanted = keep

    def keep(self, card: Card, dice: Sequence[int], rolls_left: int) -> tuple[int, ...] | None:
        """Return the fixed keep."""
        return self.wanted

    def category(self, card: Card, dice: Sequence[int]) -> CategoryValue:
        """Return Chance."""
        return CategoryValue.CHANCE


def view(dice: tuple[int, ...], saved: tuple[bool, ...]) -> TurnView:
    """Return what seat 0 sees in round 1 with these dice."""
    return TurnView(1, 0, dice, saved, 2, VARIANT.new_card(), VARIANT)


def test_every_kind_is_found_by_its_name_and_aliases_only() -> None:
    assert [k.name for k in KINDS] == ["human", "computer", "expected", "skilled", "casual",
                                       "novice", "greedy"]
    assert find_kind("computer") is COMPUTER and find_kind("expected") is EXPECTED
    assert find_kind("optimal") is EXPECTED
    assert find_kind("greedy") is GREEDY and find_kind("human") is HUMAN
    assert find_kind("robot") is None and find_kind("Computer") is None
    assert STRATEGIES == ("win", "optimal", "skilled", "casual", "novice", "greedy")
    assert not HUMAN.is_computer and COMPUTER.is_computer


def test_default_names_number_seats_of_people_and_repeated_computer_kinds() -> None:
    assert default_names([HUMAN, HUMAN]) == ["Player 1", "Player 2"]
    assert default_names([COMPUTER, HUMAN, GREEDY]) == ["Computer", "Player 2", "Greedy"]
    assert default_names([COMPUTER, COMPUTER, GREEDY, HUMAN]) == [
        "Computer 1", "Computer 2", "Greedy", "Player 4"]


def test_a_person_supplies_no_command_of_their_own() -> None:
    person = HumanPlayer("Ann", VARIANT.new_card())
    assert person.move(view((1, 2, 3, 4, 5), (False,) * 5), False) is None
    assert person.move(view((1, 2, 3, 4, 5), (False,) * 5), True) is None
    assert person.kind_name == "human"


def test_a_computer_unsaves_before_it_saves_then_rolls() -> None:
    loads: list[int] = []

    def load() -> FixedStrategy:
        loads.append(1)
        return FixedStrategy((5, 5))

    computer = ComputerPlayer("Computer", VARIANT.new_card(), load)
    assert loads == []
    dice = (5, 2, 5, 3, 1)
    assert computer.move(view(dice, (False, True, False, False, False)), False) == Move.toggle(2)
    assert computer.move(view(dice, (False,) * 5), False) == Move.toggle(1)
    assert computer.move(view(dice, (True, False, False, False, False)), False) == Move.toggle(3)
    assert computer.move(view(dice, (True, False, True, False, False)), False) == Move.roll()
    assert computer.move(view(dice, (False,) * 5), True) == Move.box(13)
    assert loads == [1]  # the strategy is loaded once, when first needed


def test_a_computer_that_keeps_nothing_more_scores() -> None:
    computer = ComputerPlayer("Greedy", VARIANT.new_card(), lambda: FixedStrategy(None), GREEDY)
    assert computer.move(view((6, 6, 6, 6, 6), (False,) * 5), False) == Move.score()
    with pytest.raises(ValueError):
        ComputerPlayer("Nobody", VARIANT.new_card(), lambda: FixedStrategy(None), HUMAN)


def test_a_computer_that_keeps_every_die_scores_instead_of_rolling_nothing() -> None:
    computer = ComputerPlayer("Computer", VARIANT.new_card(),
                              lambda: FixedStrategy((1, 2, 3, 4, 5)))
    dice = (5, 4, 3, 2, 1)
    assert computer.move(view(dice, (True,) * 5), False) == Move.score()
    assert computer.move(view(dice, (False,) * 5), False) == Move.score()


def test_saved_flags_prefer_dice_already_saved() -> None:
    assert saved_flags((5, 5, 5), (False, False, True), (5, 5)) == [True, False, True]
    with pytest.raises(ValueError):
        saved_flags((1, 2, 3), (False,) * 3, (6,))


def test_the_registry_names_every_game_and_rule_set_once() -> None:
    assert GAMES == ("yahtzee", "poker-dice")
    assert get_variant("yahtzee") is get_variant("yahtzee", "course") is VARIANT
    assert rules_of(get_variant("yahtzee", "official")) is OFFICIAL
    assert get_variant("poker-dice") is get_variant("poker-dice", "poker-dice") is POKER_DICE
    assert rules_of(POKER_DICE) is None
    for game, rules in (("yahtzee", "house"), ("poker-dice", "course"), ("chess", None)):
        with pytest.raises(UnknownGameError):
            get_variant(game, rules)
