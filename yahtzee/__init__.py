"""Yahtzee: the CS2100 course design in Python, with an optimal computer opponent.

Every class of the course UML is importable from here, for example
``from yahtzee import ScoreCard, CategoryValue, DiceRoll``.
"""

from yahtzee.category import (Category, Chance, FiveOfAKind, FourOfAKind, Fives, Fours,
                              FullHouse, LgStraight, Ones, Sixes, SmStraight, ThreeOfAKind,
                              Threes, Twos)
from yahtzee.category_value import CategoryValue
from yahtzee.dice import Dice, DiceRoll
from yahtzee.die import Die
from yahtzee.game import Game
from yahtzee.player import ComputerPlayer, HumanPlayer, Player
from yahtzee.rules import Rules, get_rules
from yahtzee.score_card import IllegalChoiceError, ScoreCard

__version__ = "1.0.0"

__all__ = [
    "Category", "CategoryValue", "Chance", "ComputerPlayer", "Dice", "DiceRoll", "Die",
    "FiveOfAKind", "FourOfAKind", "Fives", "Fours", "FullHouse", "Game", "HumanPlayer",
    "IllegalChoiceError", "LgStraight", "Ones", "Player", "Rules", "ScoreCard", "Sixes",
    "SmStraight", "ThreeOfAKind", "Threes", "Twos", "get_rules",
]
