"""The registry of dice games: Yahtzee under each rule set, and Poker Dice.

Every other layer names a game through this module: the command line's
``--game`` and ``--rules``, saves, the history, statistics and the solver.
A game is known by two names, the game's (``yahtzee``, ``poker-dice``) and
its rule set's (``course``, ``official``; Poker Dice has one rule set, named
like the game).
"""

from __future__ import annotations

from collections.abc import Sequence

from yahtzee.domain.card import Card, Variant
from yahtzee.domain.poker_dice import FACES, PokerCategory, PokerScoreCard
from yahtzee.domain.rules import COURSE, RULES, Rules, get_rules
from yahtzee.domain.score_card import ScoreCard

YAHTZEE = "yahtzee"
"""The name of Yahtzee (played under the rule sets of ``yahtzee.domain.rules``)."""
POKER_DICE_NAME = "poker-dice"
"""The name of Poker Dice, which is also the name of its only rule set."""
GAMES = (YAHTZEE, POKER_DICE_NAME)
"""Every game's name, in the order the command line lists them."""


class UnknownGameError(ValueError):
    """No game of the registry has that name, or it has no rule set of that name."""


def _yahtzee_contents(card: Card) -> tuple[tuple[int | None, ...], int]:
    """Return a Yahtzee card's boxes and Yahtzee bonus count."""
    if not isinstance(card, ScoreCard):
        raise TypeError(f"not a Yahtzee card: {type(card).__name__}")
    return tuple(card.scores()), card.get_yahtzee_bonus()


def _poker_contents(card: Card) -> tuple[tuple[int | None, ...], int]:
    """Return a Poker Dice card's boxes (its bonus count is always 0)."""
    if not isinstance(card, PokerScoreCard):
        raise TypeError(f"not a Poker Dice card: {type(card).__name__}")
    return tuple(card.scores()), 0


def _poker_restore(scores: Sequence[int | None], bonus_count: int) -> Card:
    """Return a Poker Dice card holding ``scores``; a bonus count is impossible there."""
    if bonus_count:
        raise ValueError("a Poker Dice card has no Yahtzee bonus")
    return PokerScoreCard.restore(scores)


def _yahtzee(rules: Rules) -> Variant:
    """Return a new description of Yahtzee under ``rules``."""
    return Variant(name=YAHTZEE, rules_name=rules.name, rounds=Rules.ROUNDS,
                   new_card=lambda: ScoreCard(rules),
                   restore_card=lambda scores, bonus: ScoreCard.restore(rules, scores, bonus),
                   card_contents=_yahtzee_contents)


_YAHTZEE_VARIANTS = {name: _yahtzee(rules) for name, rules in RULES.items()}


def yahtzee_variant(rules: Rules = COURSE) -> Variant:
    """Return Yahtzee under ``rules``: one shared instance for each registered rule set."""
    known = _YAHTZEE_VARIANTS.get(rules.name)
    return known if known is not None and RULES[rules.name] == rules else _yahtzee(rules)


POKER_DICE = Variant(name=POKER_DICE_NAME, rules_name=POKER_DICE_NAME,
                     rounds=len(PokerCategory), new_card=PokerScoreCard,
                     restore_card=_poker_restore, card_contents=_poker_contents,
                     face_labels=tuple(FACES))
"""Poker Dice: nine rounds, faces 9 to A, the nine scoring types of its assignment."""


def get_variant(game: str, rules_name: str | None = None) -> Variant:
    """Return the game called ``game`` under the rules called ``rules_name``.

    ``rules_name`` None means the game's default (``course`` for Yahtzee).
    ``UnknownGameError`` for a name the registry does not know.
    """
    if game == YAHTZEE:
        if rules_name is None:
            return _YAHTZEE_VARIANTS[COURSE.name]
        try:
            return yahtzee_variant(get_rules(rules_name))
        except ValueError as error:
            raise UnknownGameError(str(error)) from None
    if game == POKER_DICE_NAME and rules_name in (None, POKER_DICE_NAME):
        return POKER_DICE
    raise UnknownGameError(f"unknown game {game!r} with rules {rules_name!r}")


def every_variant() -> tuple[Variant, ...]:
    """Return every game of the registry under each of its rule sets, in the order of ``GAMES``.

    Yahtzee comes once per rule set (the shared instances ``get_variant``
    gives), then Poker Dice.
    """
    return (*_YAHTZEE_VARIANTS.values(), POKER_DICE)


def rules_of(variant: Variant) -> Rules | None:
    """Return the Yahtzee rule set a variant plays (None for a game with its own rules)."""
    return RULES.get(variant.rules_name) if variant.name == YAHTZEE else None
