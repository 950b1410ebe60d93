"""Snapshots: a ``Game`` as plain JSON-able data and back, with all it takes to resume it.

A ``Snapshot`` holds the variant and rule set, each player's name, kind and
card, the round and the seat to play, the turn in progress (dice, saved
flags, re-rolls left, whether the player is choosing a box), the log of
accepted commands and the state of the shared generator ``Die.r``.  Reading
one checks every field, so a damaged file is refused rather than half used.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from yahtzee.console import Console
from yahtzee.dice import DiceRoll
from yahtzee.die import Die
from yahtzee.game import (REROLLS, Advisor, Decision, Game, GameObserver, GameProgress, Turn,
                          yahtzee_variant)
from yahtzee.player import ComputerPlayer, HumanPlayer, Player
from yahtzee.poker_dice import POKER_DICE, PokerScoreCard
from yahtzee.rules import RULES, get_rules
from yahtzee.score_card import ScoreCard
from yahtzee.variant import Card, Variant

YAHTZEE = "yahtzee"
POKER = "poker-dice"
KINDS = {"human": None, "computer": "optimal", "greedy": "greedy"}
"""Player kinds as saved, and the strategy of each (None: a person)."""

RngState = tuple[int, tuple[int, ...], float | None]
"""The state of a ``random.Random``, as ``getstate()`` returns it."""


class SnapshotError(ValueError):
    """Data that do not describe a game this program can resume."""


@dataclass(frozen=True)
class PlayerRecord:
    """A seated player: name, kind (``human``, ``computer`` or ``greedy``) and card contents."""

    name: str
    kind: str
    scores: tuple[int | None, ...]
    yahtzee_bonus: int = 0


@dataclass(frozen=True)
class TurnRecord:
    """The turn in progress: the dice shown, which are saved, re-rolls left, choosing or not."""

    dice: tuple[int, ...]
    saved: tuple[bool, ...]
    rolls_left: int
    choosing: bool


def player_kind(player: Player) -> str:
    """Return the kind of ``player`` as the command line names it."""
    if isinstance(player, ComputerPlayer):
        return player.kind_label
    return "human"


def make_variant(name: str, rules_name: str) -> Variant:
    """Return the dice game saved as ``name`` under the rules ``rules_name``."""
    if name == YAHTZEE and rules_name in RULES:
        return yahtzee_variant(get_rules(rules_name))
    if name == POKER and rules_name == POKER_DICE.rules_name:
        return POKER_DICE
    raise SnapshotError(f"unknown game {name!r} with rules {rules_name!r}")


def _card_record(card: Card) -> tuple[tuple[int | None, ...], int]:
    """Return a card's box contents and Yahtzee bonus count."""
    if isinstance(card, ScoreCard):
        return tuple(card.scores()), card.get_yahtzee_bonus()
    if isinstance(card, PokerScoreCard):
        return tuple(card.scores()), 0
    raise SnapshotError(f"cannot save a card of type {type(card).__name__}")


def make_card(variant: Variant, record: PlayerRecord) -> Card:
    """Return a new card of ``variant`` holding what ``record`` says."""
    try:
        if variant.name == YAHTZEE:
            return ScoreCard.restore(get_rules(variant.rules_name), record.scores,
                                     record.yahtzee_bonus)
        if record.yahtzee_bonus:
            raise SnapshotError("a Poker Dice card has no Yahtzee bonus")
        return PokerScoreCard.restore(record.scores)
    except SnapshotError:
        raise
    except (ValueError, TypeError) as error:
        raise SnapshotError(f"bad card for {record.name!r}: {error}") from None


def make_player(variant: Variant, record: PlayerRecord) -> Player:
    """Return the player ``record`` describes, seated with a restored card."""
    card = make_card(variant, record)
    strategy = KINDS[record.kind]
    if strategy is None:
        return HumanPlayer(record.name, card)
    return ComputerPlayer(record.name, card, strategy, rules_name=variant.rules_name)


def _dice_roll(values: Sequence[int]) -> DiceRoll:
    """Return a ``DiceRoll`` showing ``values``."""
    roll = DiceRoll()
    while roll.get_num_dice():
        roll.remove_die(0)
    for value in values:
        roll.add_die(Die(value))
    return roll


@dataclass(frozen=True)
class Snapshot:
    """Everything needed to go on with a game exactly where it stands."""

    variant: str
    rules: str
    players: tuple[PlayerRecord, ...]
    round: int
    seat: int
    turn: TurnRecord | None
    log: tuple[Decision, ...]
    rng: RngState

    # -- from and to a game ------------------------------------------------
    @classmethod
    def of_game(cls, game: Game) -> Snapshot:
        """Return the snapshot of ``game`` as it stands now (with the state of ``Die.r``)."""
        players = []
        for player in game.players:
            scores, bonus = _card_record(player.card)
            players.append(PlayerRecord(player.name, player_kind(player), scores, bonus))
        turn = game.progress.turn
        record = None if turn is None else TurnRecord(
            turn.values(), tuple(turn.saved), turn.rolls_left, turn.choosing)
        version, internal, gauss = Die.r.getstate()
        return cls(game.variant.name, game.variant.rules_name, tuple(players),
                   game.progress.round, game.progress.seat, record, tuple(game.progress.log),
                   (version, tuple(internal), gauss))

    def game_variant(self) -> Variant:
        """Return the dice game of this snapshot."""
        return make_variant(self.variant, self.rules)

    def to_game(self, *, console: Console | None = None, observers: Sequence[GameObserver] = (),
                advisor: Advisor | None = None) -> Game:
        """Return the game this snapshot describes, and set ``Die.r`` to its saved state.

        ``play_game()`` on the result goes on from the current turn without the banner.
        """
        variant = self.game_variant()
        players = [make_player(variant, record) for record in self.players]
        game = Game(players, variant=variant, console=console, observers=observers,
                    advisor=advisor)
        turn = None
        if self.turn is not None:
            turn = Turn(_dice_roll(self.turn.dice), list(self.turn.saved),
                        self.turn.rolls_left, self.turn.choosing)
        game.progress = GameProgress(self.round, self.seat, turn, list(self.log))
        game.started = True
        Die.r.setstate(self.rng)
        return game

    # -- from and to JSON-able data ------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return the snapshot as JSON-able data."""
        return {
            "variant": self.variant,
            "rules": self.rules,
            "players": [{"name": p.name, "kind": p.kind, "scores": list(p.scores),
                         "yahtzee_bonus": p.yahtzee_bonus} for p in self.players],
            "round": self.round,
            "seat": self.seat,
            "turn": None if self.turn is None else {
                "dice": list(self.turn.dice), "saved": list(self.turn.saved),
                "rolls_left": self.turn.rolls_left, "choosing": self.turn.choosing},
            "log": [decision_to_dict(d) for d in self.log],
            "rng": {"version": self.rng[0], "state": list(self.rng[1]), "gauss": self.rng[2]},
        }

    @classmethod
    def from_dict(cls, data: object) -> Snapshot:
        """Return the snapshot ``data`` describes; ``SnapshotError`` if anything is wrong."""
        fields = _mapping(data, "game")
        variant_name = _str(fields, "variant")
        rules_name = _str(fields, "rules")
        variant = make_variant(variant_name, rules_name)
        raw_players = _list(fields, "players")
        if not 1 <= len(raw_players) <= Game.MAX_PLAYERS:
            raise SnapshotError(f"a game has 1 to {Game.MAX_PLAYERS} players")
        players = tuple(_player(raw) for raw in raw_players)
        round_ = _int(fields, "round", 0, variant.rounds)
        seat = _int(fields, "seat", 0, len(players) - 1)
        turn = None if fields.get("turn") is None else _turn(fields["turn"])
        if round_ == variant.rounds and (seat or turn is not None):
            raise SnapshotError("a finished game has no turn in progress")
        log = tuple(decision_from_dict(raw, variant.rounds, len(players))
                    for raw in _list(fields, "log"))
        snapshot = cls(variant_name, rules_name, players, round_, seat, turn, log,
                       _rng(fields.get("rng")))
        for index, record in enumerate(players):
            card = make_card(variant, record)
            expected = round_ + (1 if index < seat else 0)
            if card.rounds_used() != expected:
                raise SnapshotError(f"{record.name!r} has played {card.rounds_used()} turns, "
                                    f"not {expected}")
        return snapshot


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
    if not name or kind not in KINDS:
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
