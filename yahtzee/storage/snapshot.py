"""Game records as plain JSON-able data and back, checked field by field on the way in.

A save holds a ``GameRecord`` (``yahtzee.engine.records``): the game and rule
set, each player's name, kind and card, the round and the seat to play, the
turn in progress (dice, saved flags, re-rolls left, whether the player is
choosing a box), the log of accepted commands and the state of the shared
generator ``Die.r``.  Reading one checks every field, so a damaged file is
refused rather than half used.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from yahtzee.domain.card import Card, Variant
from yahtzee.domain.dice import Dice, DiceRoll
from yahtzee.domain.die import Die
from yahtzee.domain.games import UnknownGameError, get_variant
from yahtzee.engine.engine import MAX_PLAYERS
from yahtzee.engine.records import (REROLLS, Decision, GameRecord, PlayerRecord, RngState,
                                    TurnRecord)
from yahtzee.players.kinds import KINDS

KIND_NAMES = frozenset(kind.name for kind in KINDS)
"""The player kinds a save may name (aliases are for the command line only)."""


class SnapshotError(ValueError):
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
    return {
        "variant": record.variant,
        "rules": record.rules,
        "players": [{"name": p.name, "kind": p.kind, "scores": list(p.scores),
                     "yahtzee_bonus": p.yahtzee_bonus} for p in record.players],
        "round": record.round,
        "seat": record.seat,
        "turn": None if record.turn is None else {
            "dice": list(record.turn.dice), "saved": list(record.turn.saved),
            "rolls_left": record.turn.rolls_left, "choosing": record.turn.choosing},
        "log": [decision_to_dict(d) for d in record.log],
        "rng": {"version": record.rng[0], "state": list(record.rng[1]), "gauss": record.rng[2]},
    }


def record_from_dict(data: object) -> GameRecord:
    """Return the game record ``data`` describes; ``SnapshotError`` if anything is wrong."""
    fields = _mapping(data, "game")
    variant_name = _str(fields, "variant")
    rules_name = _str(fields, "rules")
    try:
        variant = get_variant(variant_name, rules_name)
    except UnknownGameError as error:
        raise SnapshotError(str(error)) from None
    raw_players = _list(fields, "players")
    if not 1 <= len(raw_players) <= MAX_PLAYERS:
        raise SnapshotError(f"a game has 1 to {MAX_PLAYERS} players")
    players = tuple(_player(raw) for raw in raw_players)
    round_ = _int(fields, "round", 0, variant.rounds)
    seat = _int(fields, "seat", 0, len(players) - 1)
    turn = None if fields.get("turn") is None else _turn(fields["turn"])
    if round_ == variant.rounds and (seat or turn is not None):
        raise SnapshotError("a finished game has no turn in progress")
    log = tuple(decision_from_dict(raw, variant.rounds, len(players))
                for raw in _list(fields, "log"))
    check_log(variant, len(players), log)
    record = GameRecord(variant_name, rules_name, players, round_, seat, turn, log,
                        _rng(fields.get("rng")))
    for index, player in enumerate(players):
        card = make_card(variant, player)
        expected = round_ + (1 if index < seat else 0)
        if card.rounds_used() != expected:
            raise SnapshotError(f"{player.name!r} has played {card.rounds_used()} turns, "
                                f"not {expected}")
    return record


def decision_to_dict(decision: Decision) -> dict[str, Any]:
    """Return one logged decision as JSON-able data."""
    return {"round": decision.round, "seat": decision.seat, "dice": list(decision.dice),
            "saved": list(decision.saved), "rolls_left": decision.rolls_left,
            "command": decision.command, "points": decision.points, "label": decision.label}


def decision_from_dict(data: object, rounds: int, players: int) -> Decision:
    """Return the decision ``data`` describes; ``SnapshotError`` if anything is wrong."""
    fields = _mapping(data, "decision")
    points = fields.get("points")
    label = fields.get("label")
    if points is not None and not _is_int(points):
        raise SnapshotError("a decision's points must be a whole number")
    if label is not None and not isinstance(label, str):
        raise SnapshotError("a decision's label must be text")
    return Decision(_int(fields, "round", 1, rounds), _int(fields, "seat", 0, players - 1),
                    _dice(fields.get("dice")), _flags(fields.get("saved")),
                    _int(fields, "rolls_left", 0, REROLLS), _str(fields, "command"),
                    points, label)


DIE_COMMANDS = frozenset({"roll", "score", *(str(n) for n in range(1, DiceRoll.NUM_DIE + 1))})
"""The commands a log may hold while dice are rolled (a menu number is for scoring)."""


def check_decision(decision: Decision, rounds: int, players: int) -> None:
    """Check one logged decision on its own; ``SnapshotError`` if no game could have made it."""
    if not 1 <= decision.round <= rounds or not 0 <= decision.seat < players:
        raise SnapshotError("a decision's round or seat is out of range")
    if (len(decision.dice) != DiceRoll.NUM_DIE or len(decision.saved) != DiceRoll.NUM_DIE
            or not all(1 <= v <= Die.SIDES for v in decision.dice)):
        raise SnapshotError("a decision's dice are not five faces")
    if not 0 <= decision.rolls_left <= REROLLS:
        raise SnapshotError("a decision's re-rolls left are out of range")
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
def _is_int(value: object) -> bool:
    """Return whether ``value`` is an int (and not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _mapping(data: object, what: str) -> dict[str, Any]:
    """Return ``data`` if it is a JSON object."""
    if not isinstance(data, dict):
        raise SnapshotError(f"the {what} is not a JSON object")
    return data


def _str(fields: dict[str, Any], key: str) -> str:
    """Return the text field ``key``."""
    value = fields.get(key)
    if not isinstance(value, str):
        raise SnapshotError(f"{key!r} must be text")
    return value


def _int(fields: dict[str, Any], key: str, low: int, high: int) -> int:
    """Return the whole-number field ``key``, which must lie in ``low..high``."""
    value = fields.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SnapshotError(f"{key!r} must be a whole number from {low} to {high}")
    return value


def _list(fields: dict[str, Any], key: str) -> list[Any]:
    """Return the list field ``key``."""
    value = fields.get(key)
    if not isinstance(value, list):
        raise SnapshotError(f"{key!r} must be a list")
    return value


def _dice(value: object) -> tuple[int, ...]:
    """Return five die faces."""
    if (not isinstance(value, list) or len(value) != DiceRoll.NUM_DIE
            or not all(_is_int(v) and 1 <= v <= Die.SIDES for v in value)):
        raise SnapshotError(f"dice must be {DiceRoll.NUM_DIE} faces from 1 to {Die.SIDES}")
    return tuple(value)


def _flags(value: object) -> tuple[bool, ...]:
    """Return five saved flags."""
    if (not isinstance(value, list) or len(value) != DiceRoll.NUM_DIE
            or not all(isinstance(v, bool) for v in value)):
        raise SnapshotError(f"saved flags must be {DiceRoll.NUM_DIE} true/false values")
    return tuple(value)


def _player(data: object) -> PlayerRecord:
    """Return the player record ``data`` describes."""
    fields = _mapping(data, "player")
    name = _str(fields, "name")
    kind = _str(fields, "kind")
    if not name or kind not in KIND_NAMES:
        raise SnapshotError(f"bad player {name!r} of kind {kind!r}")
    scores = _list(fields, "scores")
    if not all(v is None or _is_int(v) for v in scores):
        raise SnapshotError("a card's boxes hold whole points or nothing")
    bonus = fields.get("yahtzee_bonus", 0)
    if not _is_int(bonus) or bonus < 0:
        raise SnapshotError("the Yahtzee bonus count must be a whole number")
    return PlayerRecord(name, kind, tuple(scores), bonus)


def _turn(data: object) -> TurnRecord:
    """Return the turn record ``data`` describes."""
    fields = _mapping(data, "turn")
    choosing = fields.get("choosing")
    if not isinstance(choosing, bool):
        raise SnapshotError("'choosing' must be true or false")
    rolls_left = _int(fields, "rolls_left", 0, REROLLS)
    if rolls_left == 0 and not choosing:
        raise SnapshotError("a player out of rolls must be choosing a box")
    return TurnRecord(_dice(fields.get("dice")), _flags(fields.get("saved")), rolls_left,
                      choosing)


def _rng(data: object) -> RngState:
    """Return a generator state, checked by loading it into a scratch generator."""
    fields = _mapping(data, "generator state")
    version = fields.get("version")
    state = fields.get("state")
    gauss = fields.get("gauss")
    if not _is_int(version) or not isinstance(state, list) or not all(map(_is_int, state)):
        raise SnapshotError("bad generator state")
    if gauss is not None and (isinstance(gauss, bool) or not isinstance(gauss, (int, float))):
        raise SnapshotError("bad generator state")
    assert isinstance(version, int)
    result: RngState = (version, tuple(state), None if gauss is None else float(gauss))
    try:
        random.Random().setstate(result)
    except (ValueError, TypeError, OverflowError):
        raise SnapshotError("bad generator state") from None
    return result
