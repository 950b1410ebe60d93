"""Game records as plain JSON-able data and back, checked field by field on the way in.

A save holds a ``GameRecord`` (``yahtzee.engine.records``): the game and rule
set, each player's name, kind and card, the round and the seat to play, the
turn in progress (dice, saved flags, re-rolls left, whether the player is
choosing a box), the log of accepted moves and the state of the game's own
dice generator.  Reading one checks every field, so a damaged file is
refused rather than half used.  The fields are checked by
``yahtzee.storage.fields``; a field of the wrong kind raises its
``FieldError``, a record of a game no play could reach ``SnapshotError``
(a ``FieldError`` too).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from yahtzee.domain.card import Card, Variant
from yahtzee.domain.dice import Dice, DiceRoll
from yahtzee.domain.die import Die
from yahtzee.domain.games import UnknownGameError, get_variant
from yahtzee.engine.engine import MAX_PLAYERS
from yahtzee.engine.records import (REROLLS, Decision, GameRecord, PlayerRecord, RngState,
                                    TurnRecord, rng_state)
from yahtzee.players.kinds import KINDS
from yahtzee.storage.fields import (FieldError, flag, listed, mapping, number, one_of,
                                    optional, text, whole)

KIND_NAMES = frozenset(kind.name for kind in KINDS)
"""The player kinds a save may name (aliases are for the command line only)."""


class SnapshotError(FieldError):
    """Data that do not describe a game this program can resume."""


def record_variant(record: GameRecord) -> Variant:
    """Return the dice game a record is of; ``SnapshotError`` if the registry does not know it."""
    try:
        return get_variant(record.variant, record.rules)
    except UnknownGameError as error:
        raise SnapshotError(str(error)) from None


def make_card(variant: Variant, record: PlayerRecord) -> Card:
    """Return a card of ``variant`` holding what ``record`` says (``SnapshotError``: impossible)."""
    try:
        return variant.restore_card(record.scores, record.yahtzee_bonus)
    except (ValueError, TypeError) as error:
        raise SnapshotError(f"bad card for {record.name!r}: {error}") from None


def record_to_dict(record: GameRecord) -> dict[str, Any]:
    """Return a game record as JSON-able data."""
    return {"variant": record.variant, "rules": record.rules, **position_to_dict(record),
            "log": [decision_to_dict(d) for d in record.log], "rng": rng_to_dict(record)}


def position_to_dict(record: GameRecord) -> dict[str, Any]:
    """Return where a record's game stands (players, round, seat, turn) as JSON-able data."""
    return {
        "players": [{"name": p.name, "kind": p.kind, "scores": list(p.scores),
                     "yahtzee_bonus": p.yahtzee_bonus} for p in record.players],
        "round": record.round,
        "seat": record.seat,
        "turn": None if record.turn is None else {
            "dice": list(record.turn.dice), "saved": list(record.turn.saved),
            "rolls_left": record.turn.rolls_left, "choosing": record.turn.choosing},
    }


def rng_to_dict(record: GameRecord) -> dict[str, Any]:
    """Return the state of a record's dice generator as JSON-able data."""
    return {"version": record.rng[0], "state": list(record.rng[1]), "gauss": record.rng[2]}


def record_from_dict(data: object) -> GameRecord:
    """Return the game record ``data`` describes.

    ``FieldError`` if a field is of the wrong kind or out of range,
    ``SnapshotError`` (a ``FieldError``) if no game could be in that state.
    """
    fields = mapping(data, "the game")
    variant_name = text(fields.get("variant"), "the game's name")
    rules_name = text(fields.get("rules"), "the rules")
    try:
        variant = get_variant(variant_name, rules_name)
    except UnknownGameError as error:
        raise SnapshotError(str(error)) from None
    players = tuple(listed(fields.get("players"), "the players", _player))
    if not 1 <= len(players) <= MAX_PLAYERS:
        raise SnapshotError(f"a game has 1 to {MAX_PLAYERS} players")
    round_ = whole(fields.get("round"), "the round", low=0, high=variant.rounds)
    seat = whole(fields.get("seat"), "the seat", low=0, high=len(players) - 1)
    turn = optional(fields.get("turn"), "the turn", _turn)
    if round_ == variant.rounds and (seat or turn is not None):
        raise SnapshotError("a finished game has no turn in progress")
    log = tuple(decision_from_dict(raw, variant.rounds, len(players))
                for raw in listed(fields.get("log"), "the log"))
    check_log(variant, len(players), log)
    record = GameRecord(variant_name, rules_name, players, round_, seat, turn, log,
                        _rng(fields.get("rng")))
    for index, player in enumerate(players):
        _check_turns_played(make_card(variant, player), player,
                            round_ + (1 if index < seat else 0))
    return record


def _check_turns_played(card: Card, player: PlayerRecord, expected: int) -> None:
    """Check that ``player``'s card has had ``expected`` turns; ``SnapshotError`` if not."""
    if card.rounds_used() != expected:
        raise SnapshotError(f"{player.name!r} has played {card.rounds_used()} turns, "
                            f"not {expected}")


@lru_cache(maxsize=16384)
def decision_to_dict(decision: Decision) -> dict[str, Any]:
    """Return one logged decision as JSON-able data (not to be changed: it is shared).

    Remembered: a game in play is written at every move, its whole log each
    time, and a decision never changes once logged.
    """
    return {"round": decision.round, "seat": decision.seat, "dice": list(decision.dice),
            "saved": list(decision.saved), "rolls_left": decision.rolls_left,
            "command": decision.command, "points": decision.points, "label": decision.label}


def decision_from_dict(data: object, rounds: int, players: int) -> Decision:
    """Return the decision ``data`` describes; ``FieldError`` if a field is wrong."""
    fields = mapping(data, "a decision")
    return Decision(whole(fields.get("round"), "a decision's round", low=1, high=rounds),
                    whole(fields.get("seat"), "a decision's seat", low=0, high=players - 1),
                    _dice(fields.get("dice")), _flags(fields.get("saved")),
                    whole(fields.get("rolls_left"), "a decision's re-rolls left",
                          low=0, high=REROLLS),
                    text(fields.get("command"), "a decision's command"),
                    optional(fields.get("points"), "a decision's points", whole),
                    optional(fields.get("label"), "a decision's label", text))


DIE_COMMANDS = frozenset({"roll", "score", *(str(n) for n in range(1, DiceRoll.NUM_DIE + 1))})
"""The commands a log may hold while dice are rolled (a menu number is for scoring)."""


def check_decision(decision: Decision, rounds: int, players: int) -> None:
    """Check one logged decision on its own; ``SnapshotError`` if no game could have made it."""
    _check_position(decision, rounds, players)
    _check_command(decision)


def _check_position(decision: Decision, rounds: int, players: int) -> None:
    """Check a decision's round, seat, dice and re-rolls left; ``SnapshotError`` if impossible."""
    if not 1 <= decision.round <= rounds or not 0 <= decision.seat < players:
        raise SnapshotError("a decision's round or seat is out of range")
    if (len(decision.dice) != DiceRoll.NUM_DIE or len(decision.saved) != DiceRoll.NUM_DIE
            or min(decision.dice) < 1 or max(decision.dice) > Die.SIDES):
        raise SnapshotError("a decision's dice are not five faces")
    if not 0 <= decision.rolls_left <= REROLLS:
        raise SnapshotError("a decision's re-rolls left are out of range")


def _check_command(decision: Decision) -> None:
    """Check a decision's command against its points and box; ``SnapshotError`` if impossible."""
    if (decision.points is None) != (decision.label is None):
        raise SnapshotError("a scoring decision has both its points and its box")
    if decision.label is None and (decision.command not in DIE_COMMANDS
                                   or decision.rolls_left == 0):
        raise SnapshotError(f"{decision.command!r} is not a command of the rolling")
    if decision.label is not None and not (decision.command.isascii()
                                           and decision.command.isdigit()
                                           and len(decision.command) <= 3):
        raise SnapshotError(f"{decision.command!r} is not a menu number")


def check_log(variant: Variant, players: int, log: Sequence[Decision]) -> list[Card]:
    """Replay the scoring choices of ``log`` on new cards and return the cards.

    Every choice must be on the menu for its dice, with the points and box
    logged; ``SnapshotError`` otherwise, so that nothing that replays a log
    (the coach, the analysis) meets a choice it cannot follow.
    """
    cards = [variant.new_card() for _ in range(players)]
    for decision in log:
        check_decision(decision, variant.rounds, players)
        if decision.label is None:
            continue
        card = cards[decision.seat]
        dice = Dice.of(decision.dice)
        offered = {item.number: item for item in card.menu(dice)}
        item = offered.get(int(decision.command))
        if item is None or (item.points, item.name) != (decision.points, decision.label):
            raise SnapshotError(f"round {decision.round}: the choice {decision.command!r} "
                                "was not on the menu as logged")
        card.choose_number(item.number, dice)
    return cards


# -- checked reading of JSON-able data -----------------------------------------
def _face(value: object, name: str) -> int:
    """Return ``value`` if it is a die's face."""
    return whole(value, name, low=1, high=Die.SIDES)


def _dice(value: object) -> tuple[int, ...]:
    """Return five die faces."""
    return tuple(listed(value, "the dice", _face, length=DiceRoll.NUM_DIE))


def _flags(value: object) -> tuple[bool, ...]:
    """Return five saved flags."""
    return tuple(listed(value, "the saved flags", flag, length=DiceRoll.NUM_DIE))


def _box(value: object, name: str) -> int | None:
    """Return what a box of a card holds: whole points, or None while it is open."""
    return optional(value, name, whole)


def _player(data: object, name: str) -> PlayerRecord:
    """Return the player record ``data`` (reported as ``name``) describes."""
    fields = mapping(data, name)
    return PlayerRecord(text(fields.get("name"), f"the name of {name}", empty=False),
                        one_of(fields.get("kind"), f"the kind of {name}", KIND_NAMES),
                        tuple(listed(fields.get("scores"), f"the boxes of {name}", _box)),
                        whole(fields.get("yahtzee_bonus", 0),
                              f"the Yahtzee bonuses of {name}", low=0))


def _turn(data: object, name: str) -> TurnRecord:
    """Return the turn record ``data`` (reported as ``name``) describes."""
    fields = mapping(data, name)
    choosing = flag(fields.get("choosing"), "'choosing'")
    rolls_left = whole(fields.get("rolls_left"), "the re-rolls left", low=0, high=REROLLS)
    if rolls_left == 0 and not choosing:
        raise SnapshotError("a player out of rolls must be choosing a box")
    return TurnRecord(_dice(fields.get("dice")), _flags(fields.get("saved")), rolls_left,
                      choosing)


def _rng(data: object) -> RngState:
    """Return a generator state, checked by loading it into a scratch generator."""
    fields = mapping(data, "the generator state")
    state = (whole(fields.get("version"), "the generator's version"),
             tuple(listed(fields.get("state"), "the generator's state", whole)),
             optional(fields.get("gauss"), "the generator's gauss", number))
    try:
        random.Random().setstate(state)
        return rng_state(state)
    except (ValueError, TypeError, OverflowError):
        raise SnapshotError("bad generator state") from None
