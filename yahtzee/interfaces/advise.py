"""``advise``: a companion for people who play with real dice.

Interactive, it keeps the person's card through the game: each turn they
type the dice they rolled, read the best move and the next two with the
outcome profile of each (and, given the opponents' totals, the chance to
win), type the dice of the next roll or the box they chose, and can take
steps back.  With ``--json`` it answers one
position given on the command line and stops.  This module reads those
lines and options and holds every text ``advise`` prints; the position
and its moves come from ``yahtzee.app.advice``.

The card option's syntax: ``--card "ones=3,twos=,fives=15,yahtzee=50,bonus=1"``
lists boxes (by name, in any case, blanks or hyphens between words, or by
menu number) with the points they hold; a box given no points (``twos=``)
or not listed is open; ``bonus`` is the number of Yahtzee bonuses taken.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from yahtzee.app.advice import (AdviceError, BoxRefusedError, GameOverError, Move, NoDiceError,
                                NoRollLeftError, NothingToUndoError, RealDiceGame, box_names,
                                ranked_moves)
from yahtzee.app.session import Solvers
from yahtzee.domain.card import Card, MenuItem, Variant
from yahtzee.domain.dice import DiceRoll
from yahtzee.domain.games import YAHTZEE, get_variant
from yahtzee.engine.moves import KEEP_WORD, whole_number
from yahtzee.engine.records import ROLLS
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.streams import printable, quoted
from yahtzee.interfaces.wording import (PROGRAM_NAME, box_points_text, faces, faces_not_shown_text,
                                        game_name_and_rules, joker_text, keep_text, percent,
                                        points_text, read_faces, scored_text, yahtzee_bonus_text)
from yahtzee.solver.coach import Keep
from yahtzee.storage.stats import JSON_DIGITS

DICE = DiceRoll.NUM_DIE
"""Dice in a roll."""
EXAMPLE_ROLL = (5, 5, 2, 1, 6)
"""The values of the example roll that the texts show, in each game's own faces
(``5 5 2 1 6``, Poker Dice's ``K K 10 9 A``)."""
BONUS_KEY = "bonus"
"""The ``--card`` key of the number of Yahtzee bonuses taken."""
MAX_TOTAL = 9999
"""The highest opponent's total accepted: no game's score comes near it."""
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
"""How rolls are numbered in the texts."""
QUIT = ("quit", "exit", "q")
"""The words that stop the interactive session."""


class InputError(ValueError):
    """A line or an option that cannot be used; the message is the one line to show."""


# -- reading dice, boxes, cards and totals -------------------------------------


def example_dice(variant: Variant) -> str:
    """Return a roll as the person would type it in this game: ``5 5 2 1 6``."""
    return faces(EXAMPLE_ROLL, variant)


def _face_list(variant: Variant) -> str:
    """Return the faces a die may show, for messages: ``1 to 6`` or ``9 10 J Q K A``."""
    if variant.faces_are_values:
        return "1 to 6"
    return " ".join(variant.face_labels)


def _not_a_face(piece: str, variant: Variant, then: str = "") -> InputError:
    """Return the refusal of a typed piece that is no face of the game's dice, saying what to
    type instead (``then``; by default the five dice)."""
    return InputError(f"'{printable(piece)}' is not a die face ({_face_list(variant)}); "
                      + (then or f"type the five dice, such as {example_dice(variant)}"))


def parse_dice(variant: Variant, text: str, count: int = DICE) -> tuple[int, ...]:
    """Return the dice values (1 to 6) of a typed roll: ``count`` faces.

    Read as the console reads a keep (``wording.read_faces``): blanks or
    commas between, or none (``55216``, Poker Dice's ``kk10``).
    """
    read = read_faces(text, variant)
    if read.unread:
        raise _not_a_face(read.unread, variant)
    typed = len(read.values)
    if typed != count:
        raise InputError(f"that is {typed} {'die' if typed == 1 else 'dice'}; "
                         + (f"type all five, such as {example_dice(variant)}" if count == DICE
                            else f"type the {count} you rolled"))
    return read.values


def parse_keep(variant: Variant, text: str, dice: Sequence[int]) -> tuple[int, ...]:
    """Return the faces a ``keep`` line names (``336``, or ``3 3 6``), sorted.

    The faces notation of a keep: they must be one to four of the faces
    ``dice`` show; ``InputError`` saying what is wrong otherwise.
    """
    read = read_faces(text, variant)
    example = f"keep {faces(sorted(dice)[:2], variant)}"
    if read.unread:
        raise _not_a_face(read.unread, variant, f"type the faces you keep, such as {example}")
    if not 1 <= len(read.values) < DICE:
        raise InputError(f"type the faces you keep, one to four of them, such as {example}")
    kept = tuple(sorted(read.values))
    if Counter(kept) - Counter(dice):
        raise InputError(faces_not_shown_text(read.values, dice, variant))
    return kept


def _key(name: str) -> str:
    """Return a box name as compared: lower case, without blanks, hyphens or underscores."""
    return re.sub(r"[\s_-]+", "", name.lower())


def box_slug(name: str) -> str:
    """Return a box name as ``--card`` writes it: ``three-of-a-kind``."""
    return "-".join(name.lower().split())


def find_box(variant: Variant, text: str) -> int:
    """Return the menu number of the box that ``text`` names (name, unique start, or number)."""
    names = box_names(variant)
    typed = text.strip()
    if typed.isascii() and typed.isdigit():
        if typed in {str(number) for number in range(1, len(names) + 1)}:
            return int(typed)
        raise InputError(f"there is no box {typed}: the boxes are numbered 1 to {len(names)}")
    key = _key(typed)
    exact = [n for n, name in enumerate(names, 1) if _key(name) == key]
    found = exact or [n for n, name in enumerate(names, 1) if key and _key(name).startswith(key)]
    if len(found) == 1:
        return found[0]
    if found:
        which = " or ".join(names[n - 1] for n in found)
        raise InputError(f"'{printable(typed)}' could be {which}")
    raise InputError(f"'{printable(typed)}' is not a box; the boxes are "
                     + ", ".join(f"{n} {name}" for n, name in enumerate(names, 1)))


def parse_card(variant: Variant, text: str) -> Card:
    """Return the card ``--card`` describes (see the module's docstring for the syntax)."""
    names = box_names(variant)
    scores: list[int | None] = [None] * len(names)
    bonus = 0
    seen: set[str] = set()
    for item in text.split(","):
        if not item.strip():
            continue
        key, equals, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not equals:
            raise InputError(f"{quoted(item.strip())} in --card needs '=' and the points "
                             f"(such as fives=15; fives= for an open box)")
        points = whole_number(value) if value else None
        if value and points is None:
            raise InputError(f"{quoted(value)} in --card is not a whole number of points")
        if key.lower() == BONUS_KEY:
            target = BONUS_KEY
            bonus = points or 0
        else:
            number = find_box(variant, key)
            target = names[number - 1]
            scores[number - 1] = points
        if target in seen:
            raise InputError(f"--card gives {target} twice")
        seen.add(target)
    try:
        return variant.restore_card(scores, bonus)
    except ValueError as error:
        raise InputError(f"impossible card: {error}") from None


def card_option(variant: Variant, card: Card) -> str:
    """Return the ``--card`` text of a card (its filled boxes, then its bonuses)."""
    scores, bonus = variant.card_contents(card)
    items = [f"{box_slug(name)}={points}"
             for name, points in zip(box_names(variant), scores) if points is not None]
    if bonus:
        items.append(f"{BONUS_KEY}={bonus}")
    return ",".join(items)


OPPONENTS_OPTION = "--opponents"
"""The command-line option of the opponents' totals."""


def parse_opponents(text: str, option: str | None = None) -> tuple[int, ...]:
    """Return the opponents' totals: whole numbers from 0 to ``MAX_TOTAL``, blanks or commas
    between them (no total left empty between two commas).

    ``option`` is the command-line option they were given with: a refusal
    then names it and shows how it is written there (``--opponents
    120,95``); without it, they were typed at the prompt (``opponents 120 95``).
    """
    where, then = ((f"{option} ", f"; write them as in {option} 120,95") if option else
                   ("", "; type the opponents' totals, such as 120 95"))
    if not text.strip():
        raise InputError(f"{where}{quoted(text)} gives no total{then}")
    if any(not piece.strip() for piece in text.split(",")):
        raise InputError(f"{where}{quoted(text)} has an empty total between commas{then}")
    totals = []
    for token in text.replace(",", " ").split():
        total = whole_number(token)
        if total is None or total > MAX_TOTAL:
            raise InputError(f"{where}{quoted(token)} is not a total (a whole number from 0 to "
                             f"{MAX_TOTAL}){then}")
        totals.append(total)
    return tuple(totals)


def parse_roll(text: str) -> int:
    """Return the roll number of ``--roll``: 1 to ``ROLLS`` (1, 2 or 3)."""
    numbers = [str(n) for n in range(1, ROLLS + 1)]
    typed = text.strip()
    if typed not in numbers:
        raise InputError(f"--roll {quoted(text)} is not a roll number: "
                         f"{', '.join(numbers[:-1])} or {numbers[-1]}")
    return int(typed)


def is_full(variant: Variant, card: Card) -> bool:
    """Return whether the card has no turn left to play."""
    return card.rounds_used() >= variant.rounds


FULL_CARD = "the card is full: every turn has been played"


# -- words -----------------------------------------------------------------------


def move_words(move: Move, variant: Variant) -> str:
    """Return a move in words: ``keep 5 5 and roll``, ``roll all`` or ``score Chance``."""
    if move.box is not None:
        return f"score {move.box.name}"
    assert move.keep is not None
    return keep_text(Keep(move.keep, DICE), variant)


def _die_json(value: int, variant: Variant) -> int | str:
    """Return a die for JSON: its number in Yahtzee, its face label in other games."""
    return value if variant.name == YAHTZEE else variant.face(value)


def _rounded(value: float | None) -> float | None:
    """Return a figure for JSON, to ``JSON_DIGITS`` decimals (None stays None)."""
    return None if value is None else round(value, JSON_DIGITS)


def _box_json(box: MenuItem) -> dict[str, Any]:
    """Return a box for JSON: its ``number``, ``name``, its own ``points`` and, apart, the
    ``yahtzee_bonus`` that scoring it earns besides (0 when none; a course-rules bonus,
    which fills no box, is the box's points)."""
    return {"number": box.number, "name": box.name, "points": box.box_points,
            "yahtzee_bonus": box.bonus}


def advice_json(variant: Variant, roll: int, dice: Sequence[int], moves: Sequence[Move],
                opponents: Sequence[int] = ()) -> dict[str, Any]:
    """Return the one-shot answer: the game, the position and the ranked moves, best first.

    A box gives its own ``points`` and, apart, the ``yahtzee_bonus`` that
    scoring it earns besides (as the text tells them, ``_box_json``).  Each
    move has its outcome profile: ``sd``, the standard deviation of the
    final score, and the chances ``upper_bonus_chance`` and ``yahtzee_chance``
    (null in a game without them).  With ``opponents`` the answer names them
    and each move has its ``win_chance`` against them.
    """
    options = []
    for move in moves:
        profile = move.profile
        option: dict[str, Any] = {
            "move": move_words(move, variant),
            "keep": None if move.keep is None else [_die_json(v, variant) for v in move.keep],
            "box": None if move.box is None else _box_json(move.box),
            "expected_final": round(move.expected, JSON_DIGITS),
            "sd": _rounded(None if profile is None else profile.sd),
            "upper_bonus_chance": _rounded(None if profile is None else profile.bonus),
            "yahtzee_chance": _rounded(None if profile is None else profile.yahtzee)}
        if opponents:
            option["win_chance"] = _rounded(move.win_chance)
        options.append(option)
    answer: dict[str, Any] = {"game": variant.name, "rules": variant.rules_name, "roll": roll,
                              "dice": [_die_json(v, variant) for v in dice]}
    if opponents:
        answer["opponents"] = list(opponents)
    answer.update(options=options, best=0)
    return answer


def _expected_cell(move: Move) -> str | None:
    """Return the move's expected final score: ``247.21``."""
    return f"{move.expected:.2f}"


def _sd_cell(move: Move) -> str | None:
    """Return the standard deviation of the final score: ``± 57.2`` (None without a profile)."""
    return None if move.profile is None else f"± {move.profile.sd:.1f}"


def _bonus_cell(move: Move) -> str | None:
    """Return the chance of the upper bonus (None without it)."""
    profile = move.profile
    return None if profile is None or profile.bonus is None else percent(profile.bonus)


def _yahtzee_cell(move: Move) -> str | None:
    """Return the chance of a Yahtzee (None without it)."""
    profile = move.profile
    return None if profile is None or profile.yahtzee is None else percent(profile.yahtzee)


def _win_cell(move: Move) -> str | None:
    """Return the chance to win against the opponents' totals (None without them)."""
    return None if move.win_chance is None else percent(move.win_chance)


COLUMNS: tuple[tuple[str, Callable[[Move], str | None]], ...] = (
    ("expected", _expected_cell), ("± sd", _sd_cell), ("bonus", _bonus_cell),
    ("Yahtzee", _yahtzee_cell), ("win", _win_cell))
"""The advice's columns: a title, and each move's cell (a column shows when every move has one)."""


def _move_text(move: Move, variant: Variant) -> str:
    """Return a move as its line names it: ``keep 5 5 and roll``, ``score Ones, 3 points``
    (the box's own points: a Yahtzee bonus earned besides is told below the moves)."""
    text = move_words(move, variant)
    return text if move.box is None else f"{text}, {points_text(move.box.box_points)}"


def bonus_note(moves: Sequence[Move]) -> list[str]:
    """Return the line that tells the Yahtzee bonus a box scored now earns besides its points
    (the same for every box: the dice are a Yahtzee), or none when no move earns one."""
    bonuses = [move.box.bonus for move in moves if move.box is not None and move.box.bonus]
    if not bonuses:
        return []
    return [f"  Scored in any box, these dice also earn {yahtzee_bonus_text(max(bonuses))}."]


def _columns(moves: Sequence[Move]) -> list[tuple[str, list[str]]]:
    """Return the columns shown for ``moves``, each a title and every move's cell, in order."""
    shown = []
    for title, cell in COLUMNS:
        cells = [cell(move) for move in moves]
        if all(c is not None for c in cells):
            shown.append((title, [c for c in cells if c is not None]))
    return shown


def move_lines(moves: Sequence[Move], variant: Variant) -> list[str]:
    """Return the advice: a line of column titles, then one line per move, ranked.

    Each move's columns: the expected final score; with profiles, ``± sd``
    (its standard deviation) and, in Yahtzee, the chances of the upper bonus
    and of a Yahtzee; with the opponents' totals, the chance to win.  A box
    shows its own points, and a Yahtzee bonus that scoring earns besides is
    told in a line after the moves (``bonus_note``).
    """
    texts = [_move_text(move, variant) for move in moves]
    width = max(len(text) for text in texts)
    shown = _columns(moves)
    widths = [max(len(title), *(len(c) for c in cells)) for title, cells in shown]
    lines = [" " * (len("  1. ") + width)
             + "".join(f"  {title:>{w}}" for (title, _), w in zip(shown, widths))]
    for rank, text in enumerate(texts, 1):
        lines.append(f"  {rank}. {text:<{width}}"
                     + "".join(f"  {cells[rank - 1]:>{w}}"
                               for (_, cells), w in zip(shown, widths)))
    return lines + bonus_note(moves)


def help_text(variant: Variant) -> str:
    """Return what ``help`` says, in the game's own terms: its dice, its last box, its
    chances (the upper bonus and a Yahtzee are Yahtzee's alone); no line past 80 columns."""
    names = box_names(variant)
    chances = (" and the chances of the upper bonus and of a Yahtzee"
               if variant.name == YAHTZEE else "")
    keep = faces(sorted(EXAMPLE_ROLL)[2:], variant)   # 5 5 6 (K K A): faces the roll shows
    words = (f"Type the five dice you rolled ({example_dice(variant)}) for advice: the best "
             "move and the next two, each with where optimal play after it leads: the "
             f"expected final score ± its standard deviation{chances}, and, once the "
             "opponents' totals are noted, the chance to win. Then type the dice of your "
             "next roll, or the box you score: its name or number, \"score\" and either "
             f"(\"score {len(names)}\", \"{names[-1].lower()}\"), or Enter for the advised "
             "box when the advice is to score.")
    return textwrap.fill(words, width=78) + f"""
Commands:
  card              show your card
  undo              take back the last box you scored
  back              take back the last step (the dice typed last, or a box)
  keep {keep:<12} say which dice you keep (their faces), then type just
                    the dice you roll
  opponents 120 95  note the other players' final totals
                    ("opponents none" forgets them)
  help              show this text
  quit              stop (the last line tells how to go on later)"""


# -- the interactive session ------------------------------------------------------


class AdviseSession:
    """The interactive ``advise``: reads the person's lines, keeps the card, prints advice."""

    def __init__(self, console: Console, game: RealDiceGame, args: argparse.Namespace) -> None:
        """Talk through ``console`` about ``game``; ``args`` are the options it started with."""
        self.console = console
        self.game = game
        self.variant = game.variant
        self.args = args
        self._moves: list[Move] = []
        self._kept: tuple[int, ...] = ()
        """The faces kept for the next roll (``keep``): the next line gives only the others."""
        self._start = game.card

    def run(self) -> int:
        """Play the session to the end of the card or of the input; return the exit status."""
        try:
            self._intro()
            while not self.game.is_over():
                line = self.console.read(self._prompt())
                self._handle(line)
        except _Quit:
            self._stopped()
        except EOFError:
            self._stopped()
        except KeyboardInterrupt:
            self.console.say()
            self._stopped()
            return 130
        else:
            self._final()
        return 0

    def _intro(self) -> None:
        """Say what the session does and how to type a roll; show a card given at the start."""
        say = self.console.say
        game = self.game
        say(f"Advice for real dice: "
            f"{game_name_and_rules(self.variant.name, self.variant.rules_name)}.")
        say(f"Optimal play expects {game.start_expected():.2f} points from "
            f"{self._start_words()}.")
        say(f"Type the five dice you roll (such as {example_dice(self.variant)}); "
            "'help' lists the commands.")
        if game.card.rounds_used():
            self._compact_card()
        if game.opponents:
            self._opponents_line()
        say()

    def _start_words(self) -> str:
        """Return what the game started from: an empty card or the card given."""
        return "this card" if self._start.rounds_used() else "an empty card"

    def _prompt(self) -> str:
        """Return the prompt for the next line: the dice of a roll, or the box to score."""
        game = self.game
        where = f"Round {game.round} of {self.variant.rounds}"
        if game.roll == 0:
            return f"{where}, {ORDINALS[1]} roll - your dice: "
        advised = self._moves[0].box if self._moves else None
        default = f" (Enter: {advised.name})" if advised is not None else ""
        if game.roll == ROLLS:
            return f"{where} - the box you score{default}: "
        dice = f"the {DICE - len(self._kept)} dice you rolled" if self._kept else "your dice"
        return f"{where}, {ORDINALS[game.roll + 1]} roll - {dice}, or the box you score{default}: "

    def _handle(self, line: str) -> None:
        """Act on one line typed; a line that cannot be used is answered and changes nothing."""
        try:
            self._act(line.strip())
        except InputError as error:
            self.console.say(str(error))
        except AdviceError as error:
            self.console.say(self._refusal(error))

    def _act(self, text: str) -> None:
        """Act on one line: a command word, a command with words after it, dice, or a box."""
        words = text.split()
        command = words[0].lower() if words else ""
        alone = self._commands_alone().get(command) if len(words) == 1 else None
        followed = self._commands_followed().get(command)
        if alone is not None:
            alone()
        elif followed is not None:
            followed(words[1:])
        elif not text:
            self._enter()
        elif self._kept and self._looks_like_dice(words, DICE - len(self._kept)):
            self._rolled(self._kept + parse_dice(self.variant, text, DICE - len(self._kept)))
        elif self.game.roll == 0 or self._looks_like_dice(words):
            self._rolled(parse_dice(self.variant, text))
        else:
            self._score(text)

    def _commands_alone(self) -> dict[str, Callable[[], None]]:
        """Return the commands typed as one word, by that word."""
        commands: dict[str, Callable[[], None]] = {word: _quit for word in QUIT}
        commands.update({
            "help": lambda: self.console.say(help_text(self.variant)),
            "card": self._full_card,
            "undo": lambda: self._took_back(self.game.undo()),
            "back": lambda: self._took_back(self.game.back())})
        return commands

    def _commands_followed(self) -> dict[str, Callable[[Sequence[str]], None]]:
        """Return the commands that may have words after them, by their first word."""
        return {"opponent": self._opponents, "opponents": self._opponents,
                KEEP_WORD: self._keep, "score": lambda words: self._score(" ".join(words))}

    def _keep(self, words: Sequence[str]) -> None:
        """Note the faces kept for the next roll (the faces notation), checked against the dice."""
        if self.game.roll == 0:
            raise NoDiceError()
        if self.game.roll >= ROLLS:
            raise NoRollLeftError()
        self._kept = parse_keep(self.variant, " ".join(words), self.game.dice)
        left = DICE - len(self._kept)
        self.console.say(f"Kept {faces(self._kept, self.variant)}: type the {left} "
                         f"{'die' if left == 1 else 'dice'} you roll")

    def _looks_like_dice(self, words: Sequence[str], count: int = DICE) -> bool:
        """Return whether a line is meant as ``count`` dice rather than a box: ``count`` words,
        or faces only."""
        tokens = " ".join(words).replace(",", " ").split()
        if len(tokens) == 1:   # faces typed together: ``55216``, Poker Dice's ``kkq109``
            read = read_faces(tokens[0], self.variant)
            return not read.unread and len(read.values) == count
        labels = {label.upper() for label in self.variant.face_labels}
        return len(tokens) == count or all(token.upper() in labels for token in tokens)

    def _enter(self) -> None:
        """Take the advice to score on an empty line; otherwise say what to type."""
        game = self.game
        if game.roll and self._moves and self._moves[0].box is not None:
            self._score_number(self._moves[0].box.number)
        elif game.roll == 0:
            self.console.say(f"Type the five dice you rolled, such as {example_dice(self.variant)} "
                             "('help' lists the commands)")
        else:
            self.console.say(f"The advice is to roll again: type your "
                             f"{ORDINALS[game.roll + 1]} roll's dice, or the box you score")

    def _rolled(self, dice: tuple[int, ...]) -> None:
        """Take the dice typed as the turn's next roll and advise on them."""
        self.game.rolled(dice)
        self._kept = ()
        self._advise()

    def _advise(self) -> None:
        """Print the ranked moves for the dice typed last (nothing before the turn's first roll)."""
        game = self.game
        if not game.roll:
            self._moves = []
            return
        self._moves = game.moves()
        last = " (the last)" if game.roll == ROLLS else ""
        self.console.say(f"{ORDINALS[game.roll]} roll{last}: {faces(game.dice, self.variant)}"
                         " - best moves, and where each leads:")
        for line in move_lines(self._moves, self.variant):
            self.console.say(line)

    def _score(self, text: str) -> None:
        """Score the box ``text`` names (the advised box when ``text`` is empty)."""
        if not self.game.roll:
            raise NoDiceError()
        number = find_box(self.variant, text) if text else self.game.best_box().number
        self._score_number(number)

    def _score_number(self, number: int) -> None:
        """Score the box numbered ``number`` and show the card."""
        item = self.game.score(number)
        self._moves = []
        self.console.say(f"{scored_text('You', item)}.")
        self._compact_card()
        if not self.game.is_over():
            self.console.say()

    def _took_back(self, item: MenuItem | None) -> None:
        """Say what was taken back, then show the position it returned to."""
        self._kept = ()
        game = self.game
        if item is not None:
            self.console.say(f"Took back {box_points_text(item)}; back to round {game.round}.")
        elif game.roll:
            self.console.say(f"Took back those dice; back to the {ORDINALS[game.roll]} roll.")
        else:
            self.console.say("Took back those dice; type the turn's first roll again.")
        self._advise()

    def _opponents(self, words: Sequence[str]) -> None:
        """Note the opponents' totals (``none`` forgets them; none given shows them)."""
        if [w.lower() for w in words] == ["none"]:
            self.game.opponents = ()
        elif words:
            self.game.opponents = parse_opponents(" ".join(words))
        self._opponents_line()
        if words and self.game.roll:
            self._advise()

    def _opponents_line(self) -> None:
        """Say which opponents' totals are noted."""
        totals = self.game.opponents
        if totals:
            self.console.say(f"Opponents' totals: {', '.join(str(t) for t in totals)} "
                             "(taken as their final scores).")
        else:
            self.console.say("No opponents' totals noted (type opponents 120 95 to note them).")

    def _refusal(self, error: AdviceError) -> str:
        """Return why a step was refused, in one line."""
        if isinstance(error, NoDiceError):
            return f"Type your dice first, such as {example_dice(self.variant)}"
        if isinstance(error, NoRollLeftError):
            return "That was the last roll: type the box you score"
        if isinstance(error, NothingToUndoError):
            return "There is nothing to take back"
        if isinstance(error, GameOverError):
            return "The game is over"
        if isinstance(error, BoxRefusedError):
            name = box_names(self.variant)[error.number - 1]
            if error.joker is not None:
                return joker_text(error.joker)
            if error.filled:
                return f"{name} is already scored; pick an open box"
            return f"{name} may not be chosen for these dice"
        return str(error)

    def _compact_card(self) -> None:
        """Print the filled boxes, one line each, and the total."""
        scores, _ = self.variant.card_contents(self.game.card)
        rows = self.game.card.rows()
        for (label, value), points in zip(rows, scores):
            if points is not None:
                self.console.say(f"{label:>15}: {value}")
        self.console.say(f"{'Total':>15}: {self.game.card.score()}")

    def _full_card(self) -> None:
        """Print every row of the card, an open box shown as ``-``."""
        scores, _ = self.variant.card_contents(self.game.card)
        rows = self.game.card.rows()
        for index, (label, value) in enumerate(rows):
            open_box = index < len(scores) and scores[index] is None
            self.console.say(f"{label.rstrip(':'):>15}: {'-' if open_box else value}")

    def _final(self) -> None:
        """Say the final score beside optimal play's expectation."""
        score = self.game.card.score()
        expected = self.game.start_expected()
        self.console.say(f"Game over: {score} points. Optimal play expects {expected:.2f} "
                         f"from {self._start_words()} ({score - expected:+.2f}).")

    def _stopped(self) -> None:
        """Say that the session stopped, and how to go on with the card later."""
        card = self.game.card
        if not card.rounds_used():
            self.console.say("Stopped.")
            return
        command = [*PROGRAM_NAME.split(), "advise", *_game_options(self.variant),
                   "--card", card_option(self.variant, card)]
        if self.game.opponents:
            command += [OPPONENTS_OPTION, ",".join(str(t) for t in self.game.opponents)]
        self.console.say(f"Stopped. To go on with this card: {shlex.join(command)}")


class _Quit(Exception):
    """The person asked to stop."""


def _quit() -> None:
    """Stop the session: the person typed one of the ``QUIT`` words."""
    raise _Quit()


def _game_options(variant: Variant) -> list[str]:
    """Return the options that choose this game: ``--rules official`` or ``--game poker-dice``."""
    if variant.name == YAHTZEE:
        return ["--rules", variant.rules_name]
    return ["--game", variant.name]


# -- the subcommand -----------------------------------------------------------------


def run_advise(args: argparse.Namespace) -> int:
    """Run ``advise``: the interactive companion, or with ``--json`` the one-shot answer."""
    console = Console()
    variant = get_variant(args.game, args.rules)
    try:
        if args.json:
            if args.dice is None:
                raise InputError("--json answers one roll: give it with --dice "
                                 f"\"{example_dice(variant)}\"")
            dice = parse_dice(variant, args.dice)
            roll = parse_roll(args.roll if args.roll is not None else "1")
        elif args.dice is not None or args.roll is not None:
            raise InputError("--dice and --roll are for the one-shot answer: add --json")
        card = parse_card(variant, args.card) if args.card is not None else variant.new_card()
        opponents = (parse_opponents(args.opponents, OPPONENTS_OPTION)
                     if args.opponents is not None else ())
        if is_full(variant, card):
            raise InputError(FULL_CARD)
    except InputError as error:
        console.refuse(str(error))
        return 2
    coach = Solvers(report=console.solver_event).coach(variant, profiles=True)
    if args.json:
        moves = ranked_moves(coach, card, dice, roll, opponents)
        console.say(json.dumps(advice_json(variant, roll, dice, moves, opponents), indent=2))
        return 0
    return AdviseSession(console, RealDiceGame(variant, coach, card, opponents), args).run()
