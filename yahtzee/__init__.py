"""Yahtzee: the CS2100 course design in Python, with an optimal computer opponent.

Every class of the course UML is importable from here, for example
``from yahtzee import ScoreCard, CategoryValue, DiceRoll``.  The package is
built in layers, each importing only the ones before it: ``domain`` (the
UML classes, rules, cards), ``engine`` (turns, records), ``players``,
``solver`` (with the coach), ``storage``, ``app`` and ``interfaces``.
"""

# Checked before any other import, in syntax old Pythons parse, so that an
# old Python gets one line instead of an ImportError traceback.
import sys as _sys

if tuple(_sys.version_info[:2]) < (3, 10):
    raise SystemExit("yahtzee needs Python 3.10 or newer; this is Python %s"
                     % ".".join(str(part) for part in _sys.version_info[:3]))

from yahtzee.domain.category import (Category, Chance, FiveOfAKind, FourOfAKind, Fives, Fours,
                                     FullHouse, LgStraight, Ones, Sixes, SmStraight,
                                     ThreeOfAKind, Threes, Twos)
from yahtzee.domain.category_value import CategoryValue
from yahtzee.domain.dice import Dice, DiceRoll
from yahtzee.domain.die import Die
from yahtzee.domain.rules import Rules, get_rules
from yahtzee.domain.score_card import IllegalChoiceError, ScoreCard
from yahtzee.interfaces.console_game import Game
from yahtzee.players.players import ComputerPlayer, HumanPlayer, Player

__version__ = "1.0.0"

__all__ = [
    "Category", "CategoryValue", "Chance", "ComputerPlayer", "Dice", "DiceRoll", "Die",
    "FiveOfAKind", "FourOfAKind", "Fives", "Fours", "FullHouse", "Game", "HumanPlayer",
    "IllegalChoiceError", "LgStraight", "Ones", "Player", "Rules", "ScoreCard", "Sixes",
    "SmStraight", "ThreeOfAKind", "Threes", "Twos", "get_rules",
]
