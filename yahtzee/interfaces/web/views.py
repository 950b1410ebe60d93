"""What the browser is sent: a table's view as JSON, with every text a player reads.

The page draws what it gets and words nothing itself (beyond its buttons'
labels): the moves, the coach's advice, the winner line and the refusals
come from here, in the words the console uses.
"""

from __future__ import annotations

import operator
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from yahtzee.app.browser import Denial, Happened, GameRequestError, GameView
from yahtzee.domain.card import MenuItem, Variant
from yahtzee.domain.games import YAHTZEE
from yahtzee.engine.engine import Phase, Refusal
from yahtzee.interfaces.web.limits import DAY, MINUTE, Limits
from yahtzee.interfaces.wording import (faces, game_name_and_rules, joker_text, keep_advice_with,
                                        luck_line, move_text, open_goals, percent, profile_text,
                                        reroll_text, scored_text, winner_line, yahtzee_bonus_text)
from yahtzee.solver.coach import BoxAdvice, KeepAdvice

_KEPT = Limits()
MISSING_GAME = (f"No game has this address. Check the link: a game nobody moves in is deleted "
                f"after {_KEPT.idle_for / DAY:.0f} days ({_KEPT.fresh_for / MINUTE:.0f} minutes "
                f"if it never began).")
"""The answer for an address of no game: a finished game stays at its address (its last
view), so a link that leads nowhere was mistyped, or its game was given up and deleted."""

DENIALS = {
    Denial.UNKNOWN_GAME: (404, MISSING_GAME),
    Denial.IN_USE: (423, "This game is being played in another window, at the console; it "
                         "comes back here as soon as it is stopped there."),
    Denial.NOT_YOUR_SEAT: (403, "This link does not play a seat of this game."),
    Denial.NOT_YOUR_TURN: (409, "It is not your turn."),
    Denial.COMPUTER_TURN: (409, "The computer is playing; wait for your turn."),
    Denial.STILL_ROLLING: (409, "Stop rolling first, then choose a box."),
    Denial.DONE_ROLLING: (409, "No more rolling this turn: choose a box."),
    Denial.STALE: (409, "The game moved on before this move came, so it was not made; "
                        "choose again from where the game stands now."),
    Denial.GAME_OVER: (409, "The game is over."),
    Denial.WAITING: (409, "Waiting for players to join."),
    Denial.NOT_HOST: (403, "Only the player who made the game can start it before everyone "
                           "has joined."),
    Denial.NOT_HOST_LINKS: (403, "Only the player who made the game can get the seats' links "
                                 "again."),
    Denial.FULL: (503, "The server has as many games as it takes; try again later."),
    Denial.NOT_KEPT: (503, "The move could not be saved, so it was not made; try it again."),
}
"""The HTTP status and the message of each refusal that the engine did not make."""
REFUSALS = {
    Refusal.NOT_A_DIE_COMMAND: "That is not a die, roll or score.",
    Refusal.ALL_SAVED: "All five dice are saved: unsave one to roll it, or score.",
    Refusal.NOT_ON_MENU: "Please choose a box you have not scored yet.",
    Refusal.GAME_OVER: "The game is over.",
    Refusal.WRONG_PHASE: "That move does not fit now: choose a box, or roll first.",
    Refusal.NOT_SHOWN: "The dice do not show those faces.",
}
"""The message of each refusal of the engine (a joker's names the box)."""
REFUSED_STATUS = 422


def refusal(error: GameRequestError) -> tuple[int, str]:
    """Return the HTTP status and the message of a refused request."""
    if error.denial is Denial.REFUSED and error.outcome is not None:
        outcome = error.outcome
        if outcome.joker is not None:
            return REFUSED_STATUS, joker_text(outcome.joker) + "."
        assert outcome.refusal is not None
        return REFUSED_STATUS, REFUSALS[outcome.refusal]
    return DENIALS.get(error.denial, (409, error.denial.value))


def happened_text(event: Happened, view: GameView) -> str:
    """Return one line of what happened: ``Computer kept 5 5 and rolled: 1 5 5 3 5``."""
    return _happened_line(event, view.seats[event.seat].name, view.variant)


def scored_line(name: str, item: MenuItem, total: int) -> str:
    """Return ``Ann scored 15 points in Fives (total 45)``, one point said as ``1 point``,
    as the console says a computer's turn.

    A Yahtzee bonus earned on top of a box is told apart, as at the console.
    """
    return f"{scored_text(name, item)} (total {total})"


def _happened_line(event: Happened, name: str, variant: Variant) -> str:
    """Return ``happened_text``'s line for a seat called ``name``."""
    if event.item is not None:
        return scored_line(name, event.item, event.total)
    if event.kept is None:
        return f"{name} rolled {faces(event.dice, variant)}"
    return f"{name} {reroll_text(event.kept, event.dice, variant)}"


GAMES_KEPT = 2048
"""How many games' latest lines are kept worded (those sent most lately; a game over lets go of
its own): every state of a game repeats its recent moves (``app.browser.RECENT``)."""
_worded: OrderedDict[str, _Worded] = OrderedDict()
"""Each game's moves as its latest state was sent, by game ID, the games sent longest ago
first: a game's next state words only the moves that are new to it.  Each entry keeps its
game's recent moves alive (some 40, a few objects each) and its lines, strings, which the
garbage collector does not follow; a game let go of without an end stays until pushed out."""
_lines_lock = threading.Lock()
STEPS_SENT = 8
"""How many of the latest lines a state gives as steps too: a computer's whole turn (its
re-rolls, its box and the next turn's first roll) with room for a second computer's."""


@dataclass(frozen=True)
class _Worded:
    """A game's moves as a state sent them: the moves themselves (kept, so that their
    identities are not given to others meanwhile), the seats' names and the lines."""

    happened: tuple[Happened, ...]
    names: tuple[str, ...]
    lines: list[str]


def moves_and_steps(view: GameView) -> tuple[list[str], list[dict[str, Any]]]:
    """Return the lines of what happened, oldest first, and the latest ``STEPS_SENT`` steps.

    Every state sent repeats a game's recent moves, and each view of the game
    holds the same move objects as the view before it, some of the oldest
    gone and some new ones at the end: the moves this game's last state sent
    too (the same objects, found by identity) keep their lines, and only the
    others are worded (``_overlap``).  The steps, a few, are made afresh.
    """
    names = tuple(seat.name for seat in view.seats)
    happened = view.happened
    with _lines_lock:
        last = _worded.pop(view.game_id, None)
        shared = 0 if last is None or last.names != names else _overlap(last.happened, happened)
        lines = last.lines[len(last.happened) - shared:] if last is not None and shared else []
        lines.extend(_happened_line(event, names[event.seat], view.variant)
                     for event in happened[shared:])
        if view.phase is not Phase.OVER:
            _worded[view.game_id] = _Worded(happened, names, lines)
            while len(_worded) > GAMES_KEPT:
                _worded.popitem(last=False)
    steps = [_step(event, view.variant)
             for event in happened[max(0, len(happened) - STEPS_SENT):]]
    return list(lines), steps


def _overlap(before: tuple[Happened, ...], now: tuple[Happened, ...]) -> int:
    """Return how many of the moves ``now`` begins with ``before`` ends with (by identity)."""
    if not now or not before:
        return 0
    for start, event in enumerate(before):
        if event is now[0]:
            shared = len(before) - start
            if shared <= len(now) and all(map(operator.is_, before[start:], now[:shared])):
                return shared
            return 0
    return 0


def _step(event: Happened, variant: Variant) -> dict[str, Any]:
    """Return a line of what happened as the page plays it back: where it left the turn.

    ``made`` orders the moves (the lines of one move share it); a roll gives
    the dice shown, the dice saved (by place, for a re-roll) and the
    re-rolls left, a box its number.  Seats are numbered from 1.
    """
    return {"made": event.made, "seat": event.seat + 1,
            "dice": [variant.face(v) for v in event.dice],
            "saved": None if event.saved is None else list(event.saved),
            "rolls_left": event.rolls_left,
            "box": None if event.item is None else event.item.number}


def title(view: GameView) -> str:
    """Return the game and its rules in words: ``Yahtzee, course rules``."""
    return game_name_and_rules(view.variant.name, view.variant.rules_name)


def _boxes(view: GameView, seat: int, offers: dict[int, MenuItem]) -> list[dict[str, Any]]:
    """Return one seat's boxes for the page: number, name, score, and what it would give now.

    ``now`` is given for the seat to play only, in its open boxes and, under
    course rules, in a filled Yahtzee box that would take a Yahtzee bonus:
    all the choice adds to the card.  An offer that earns a Yahtzee bonus
    besides the box also has ``bonus``, that part of ``now``, ``now_shown``,
    what the box's button shows (``30 + 100 bonus``), and ``now_said``, the
    offer in the coach's words (``30 in Sixes and a 100-point Yahtzee
    bonus``); the other boxes leave the three out, so that every answer does
    not grow by them.
    """
    to_play = seat == view.seat and view.phase is not Phase.OVER
    refill = view.variant.name == YAHTZEE
    boxes = []
    for n, name, score in view.seats[seat].boxes:
        item = offers.get(n) if to_play and (score is None or refill) else None
        box: dict[str, Any] = {"number": n, "name": name, "score": score,
                               "now": None if item is None else item.points}
        if item is not None and item.bonus:
            box.update(bonus=item.bonus, now_shown=bonus_offer_text(item),
                       now_said=offer_words(item.name, item.box_points, item.bonus))
        boxes.append(box)
    return boxes


def _players(view: GameView) -> list[dict[str, Any]]:
    """Return every seat's card as the page draws it (seats from 1)."""
    offers = {item.number: item for item in view.offers}
    return [{"seat": number + 1, "name": seat.name, "kind": seat.kind,
             "computer": seat.computer, "boxes": _boxes(view, number, offers),
             "rows": [[label, value] for label, value in seat.rows], "total": seat.total}
            for number, seat in enumerate(view.seats)]


COACH_GETTING_READY = ("Coach: getting ready (its tables are being built, the first time "
                       "only); its advice comes with your next move.")
"""What the seat to play reads while the coach's tables are still being built."""


ORDINALS = ("1st", "2nd", "3rd", "4th", "5th")
"""The dice's places from the left, as the advice names them (the page numbers no die)."""


def _and(words: list[str]) -> str:
    """Return words joined as ``1st, 2nd and 4th``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _expected(expected: float) -> str:
    """Return ``(expected final score 222.5)``, the end of every line of advice."""
    return f"(expected final score {expected:.1f})"


def box_advice_words(advice: BoxAdvice, points: int | None = None, bonus: int = 0) -> str:
    """Return the coach's box in the page's words: ``score 30 in Small Straight (expected ...)``.

    The console's advice names the box by its menu number (``score 10 (Small
    Straight)``), which the console's menu shows; the page shows no box
    numbers, and a number there reads like points.  ``points``, what the dice
    score in the box itself (None: not known), is said, so that "score
    Yahtzee" with no Yahtzee rolled does not read as if there were one:
    ``score 0 in Yahtzee, giving it up``.  ``bonus``, a Yahtzee bonus the
    dice earn besides, is told apart, as ``advise`` and the moves tell it:
    ``score 30 in Sixes and a 100-point Yahtzee bonus``.
    """
    if points is None:
        return f"score {advice.box.name} {_expected(advice.expected)}"
    return f"score {offer_words(advice.box.name, points, bonus)} {_expected(advice.expected)}"


def offer_words(name: str, points: int, bonus: int = 0) -> str:
    """Return a box's offer as the coach says it: ``30 in Sixes and a 100-point Yahtzee
    bonus``, ``0 in Yahtzee, giving it up``, ``16 in Chance``.

    ``points`` are the box's own; ``bonus``, a Yahtzee bonus earned besides
    (``wording.yahtzee_bonus_text``).  The coach's advice and the label of a
    box's button on the card say an offer in these words.
    """
    given_up = ", giving it up" if points == 0 else ""
    besides = f"{',' if given_up else ''} and {yahtzee_bonus_text(bonus)}" if bonus else ""
    return f"{points} in {name}{given_up}{besides}"


def bonus_offer_text(item: MenuItem) -> str:
    """Return what a box's button shows for an offer with a Yahtzee bonus besides: ``30 + 100
    bonus`` (its label says it in full: ``offer_words``)."""
    return f"{item.box_points} + {item.bonus} bonus"


def _box_words(view: GameView, advice: BoxAdvice) -> str:
    """Return ``box_advice_words`` for the coach's box and the dice shown: the box's own
    points and a Yahtzee bonus earned besides, from the card's offer (a course-rules bonus,
    which is the whole turn, is the Yahtzee box's points, as ``advise`` says it)."""
    item = next((item for item in view.offers if item.number == advice.box.number), None)
    if item is None:
        return box_advice_words(advice)
    return box_advice_words(advice, item.box_points, item.bonus)


def _dice_places(advice: KeepAdvice) -> str:
    """Return ``save only the 1st, 2nd and 4th dice`` (or ``the saved dice``, ``the saved
    die``)."""
    dice = "die" if len(advice.save) == 1 else "dice"
    if advice.saved_already:
        return f"the saved {dice}"
    return f"save only the {_and([ORDINALS[n - 1] for n in advice.save])} {dice}"


def keep_advice_words(advice: KeepAdvice, variant: Variant) -> str:
    """Return the coach's keep in the page's words, the dice to save by their place.

    ``keep 3 4 5 (save only the 1st, 2nd and 4th dice) and roll (expected ...)``:
    the console's ``dice 1 2 4`` reads on the page like faces, next to the
    faces kept.
    """
    text = keep_advice_with(advice, variant, _dice_places, "unsave every die and roll them all")
    return f"{text} {_expected(advice.expected)}"


def _advice(view: GameView, you: frozenset[int]) -> str | None:
    """Return the coach's advice, for the seat it advises only (None for anyone else)."""
    if view.seat not in you or view.phase is Phase.OVER:
        return None
    if view.coach_pending:
        return COACH_GETTING_READY
    if view.advice is None:
        return None
    if isinstance(view.advice, BoxAdvice):
        return "Coach: " + _box_words(view, view.advice)
    if view.box_now is not None:
        return "Coach: stop rolling and " + _box_words(view, view.box_now)
    return "Coach: " + keep_advice_words(view.advice, view.variant)


def _keep_advice(view: GameView, you: frozenset[int]) -> KeepAdvice | None:
    """Return the coach's advice to keep dice and roll, if it is the viewer's to see.

    None when the seat is not the viewer's, the game is over, the coach is
    still waiting for its tables, or its advice is a box (to score now).
    """
    if view.seat not in you or view.phase is Phase.OVER or view.coach_pending:
        return None
    advice = view.advice
    return advice if isinstance(advice, KeepAdvice) and view.box_now is None else None


def _advice_dice(view: GameView, you: frozenset[int]) -> list[int]:
    """Return the dice (numbers from 1) the coach would have saved for the next roll.

    Empty when the coach advises no keep of some dice (rolling all, scoring
    now, a box) or the seat is not the viewer's.  The page marks those dice,
    so that the advice is seen where the dice are (on a phone the advice's
    line sits under the card).
    """
    keep = _keep_advice(view, you)
    return [] if keep is None else list(keep.save)


def _advice_roll_all(view: GameView, you: frozenset[int]) -> bool:
    """Return whether the coach advises rolling all five dice, none saved (for the viewer).

    The one keep that marks no die: the page says it beside the dice, where
    the coach's marks would be, lest the coach seem switched off.
    """
    keep = _keep_advice(view, you)
    return keep is not None and view.phase is Phase.ROLLING and not keep.save


def _advice_box(view: GameView, you: frozenset[int]) -> int | None:
    """Return the number of the box the coach advises scoring now (None: none, or not yours).

    The page marks that box on the card.
    """
    if view.seat not in you or view.phase is Phase.OVER or view.coach_pending:
        return None
    if isinstance(view.advice, BoxAdvice):
        return view.advice.box.number
    return None if view.box_now is None else view.box_now.box.number


def _chances(view: GameView) -> list[dict[str, Any]] | None:
    """Return each seat's chance to finish first, in numbers and words (public to all)."""
    if view.chances is None:
        return None
    return [{"seat": number + 1, "name": seat.name, "chance": round(chance, 4),
             "shown": percent(chance)}
            for number, (seat, chance) in enumerate(zip(view.seats, view.chances))]


def _winner(view: GameView) -> str | None:
    """Return the winner line at the end (None while the game goes on)."""
    if view.phase is not Phase.OVER or not view.winners:
        return None
    names = [view.seats[s].name for s in view.winners]
    return winner_line(names, view.seats[view.winners[0]].total, solo=len(view.seats) == 1)


def _options(view: GameView) -> list[str]:
    """Return the coach's best options in words, leaving out a goal every one of them settles."""
    goals = open_goals([profile for _, profile in view.options])
    return [f"{move_text(move, view.variant)}: {profile_text(profile, goals)}"
            for move, profile in view.options]


def state_json(view: GameView, you: frozenset[int], pace: float = 0.0) -> dict[str, Any]:
    """Return the table as the page draws it; ``you`` are the seats (from 0) the viewer plays.

    Seats are numbered from 1 here, as the page's test hooks number them.
    ``moves`` are the lines of what happened; ``steps``, one for each of the
    latest of them (the last ``len(steps)`` lines), say where each left the
    turn, so that a page can play back the moves of a computer's turn,
    which a server makes at once, ``pace`` seconds apart.
    ``started`` is false while the game waits for its people to join;
    ``waiting`` are the seats whose link has not been used yet, and ``host``
    says whether the viewer may start the game before they join.  The
    coach's advice and options go only to the seat they advise; the win
    chances are everyone's.
    """
    over = view.phase is Phase.OVER
    to_play = None if over else view.seats[view.seat]
    private = view.seat in you
    lines, steps = moves_and_steps(view)
    return {
        "game": view.game_id, "version": view.version, "title": title(view),
        "variant": view.variant.name,
        "rules": view.variant.rules_name if view.variant.name == YAHTZEE else None,
        "phase": view.phase.value, "round": view.round, "rounds": view.variant.rounds,
        "turn": None if over else view.seat + 1,
        "turn_name": None if to_play is None else to_play.name,
        "computer_turn": to_play is not None and to_play.computer,
        "you": sorted(seat + 1 for seat in you),
        "dice": [view.variant.face(v) for v in view.dice], "saved": list(view.saved),
        "rolls_left": view.rolls_left, "players": _players(view),
        "coach": view.coach, "advice": _advice(view, you),
        "advice_box": _advice_box(view, you), "advice_dice": _advice_dice(view, you),
        "advice_roll_all": _advice_roll_all(view, you),
        "options": _options(view) if private else [],
        "win_chances": _chances(view),
        "luck": [luck_line(a) for a in view.analyses] or None,
        "moves": lines, "steps": steps, "pace": pace,
        "winner": _winner(view), "hot_seat": view.hot_seat,
        "started": view.started, "waiting": [seat + 1 for seat in view.waiting],
        "host": bool(you & set(view.host)),
    }
