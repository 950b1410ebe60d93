"""Every player-facing wording that the console and the browser table share.

Names of the games, dice as faces, what a turn scored or re-rolled, the
coach's advice, outcome profiles and chances, the joker rule's refusal,
the luck line and the winner line: each sentence is made here once, so
that a game reads the same at the terminal and in the browser.  Nothing
here reads or prints; the console and the web put these texts on screen.
Where the page shows what the terminal does not (no menu numbers, no die
numbers), the browser words the coach's line and a box's points itself
(``web/views.py``).  One point is ``1 point`` wherever the specification's
wording (``You scored 1 points``, the menu's ``1 points``) does not bind it.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from yahtzee.domain.card import JokerBar, MenuItem, Variant
from yahtzee.domain.games import POKER_DICE_NAME, YAHTZEE
from yahtzee.domain.rules import COURSE, OFFICIAL
from yahtzee.engine.records import GameRecord
from yahtzee.players.kinds import (CASUAL, COMPUTER, EXPECTED, GREEDY, HUMAN, NOVICE, SKILLED,
                                   PlayerKind, find_kind)
from yahtzee.solver.coach import BoxAdvice, Keep, KeepAdvice, Move, PlayerAnalysis
from yahtzee.storage.snapshot import record_variant

if TYPE_CHECKING:
    from yahtzee.solver.profiles import Profile

PROGRAM_NAME = "python -m yahtzee"
"""How texts name the program: it works however the game was started."""
GAME_NAMES = {YAHTZEE: "Yahtzee", POKER_DICE_NAME: "Poker Dice"}
"""How each game of the registry is named in a sentence."""
KIND_WORDS: dict[PlayerKind, tuple[str, str]] = {
    HUMAN: ("Person", "someone at this screen or on their own link"),
    COMPUTER: ("Computer", "plays to win"),
    EXPECTED: ("Expected", "plays for the highest average score"),
    SKILLED: ("Skilled", "plays like a strong player: about 10 points a game below the best"),
    CASUAL: ("Casual", "plays like a fair player: about 25 points a game below the best"),
    NOVICE: ("Novice", "plays like a beginner: about 45 points a game below the best"),
    GREEDY: ("Greedy", "takes the most points now"),
}
"""Each player kind as the browser's form shows it: its label and what it does, in one line."""


def kind_label(kind: str) -> str:
    """Return a kind as the new-game form names it (``Computer``, ``Expected``); a kind this
    program does not know, as filed."""
    found = find_kind(kind)
    return KIND_WORDS[found][0] if found in KIND_WORDS else kind


def name_and_kind(name: str, kind: str) -> str:
    """Return a player as the browser's pages list them: ``Ann (person)``, ``Computer``.

    The kind is named as the new-game form names it (``KIND_WORDS``), in
    lower case, and left out where the name says it already (``Computer``,
    ``Greedy 2``); a kind this program does not know is shown as filed.
    """
    label = kind_label(kind)
    if name.casefold() == label.casefold() or name.casefold().startswith(label.casefold() + " "):
        return name
    return f"{name} ({label.lower()})"


GAME_WORDS = {
    YAHTZEE: "five dice, 13 rounds, 13 boxes: Ones to Sixes, then Three of a Kind to Chance",
    POKER_DICE_NAME: ("five dice of faces 9, 10, J, Q, K and A, 9 rounds, 9 boxes (One Pair to "
                      "Chance); a 9 counts 9, a 10, J, Q or K counts 10 and an A 11"),
}
"""Each game as the browser's form explains it, in one line (the points a Poker Dice face
counts are not what a player guesses from its letter)."""
RULES_WORDS = {
    OFFICIAL.name: ("Official (Hasbro)",
                    "after a 50 in Yahtzee, every Yahtzee adds 100 points; with the Yahtzee box "
                    "filled, a Yahtzee goes in another box as a joker"),
    COURSE.name: ("Course (CS2100)",
                  "after a 50 in Yahtzee, a Yahtzee may be scored there again for a 100-point "
                  "bonus (3 at most), which takes the whole turn; no joker"),
}
"""Each rule set as the browser's form shows it: its label and what it means, in one line
(in words a player who never read the course's specification follows)."""
NUMPY_NEEDED = ("computer players, the coach and the solver need numpy: "
                "run  python -m pip install -e .  (or  python -m pip install numpy)")
"""What to say when numpy is missing."""
WEB_NEEDED = ("the browser table needs the web extra: "
              "run  python -m pip install -e '.[web]'  (Starlette and uvicorn)")
"""What ``serve`` says when the web packages are missing."""
WORKERS_NEED_DATABASE = ("--workers needs --database (a PostgreSQL URL) or YAHTZEE_DATABASE: "
                         "the data folder's games are played by one process")
"""What ``serve --workers`` says without a database to share."""


def faces(values: Sequence[int], variant: Variant) -> str:
    """Return dice as their face labels, separated by blanks: ``3 5 5 2 6``."""
    return " ".join(variant.face(v) for v in values)


class ReadFaces(NamedTuple):
    """Dice typed as face labels, as ``read_faces`` read them.

    ``values`` are the faces read, in order (1 to 6 whatever the labels);
    ``unread`` is the first piece of the line that is no face (as typed, from
    where reading stopped to the next blank), empty when all was read.
    """

    values: tuple[int, ...]
    unread: str


def read_faces(text: str, variant: Variant) -> ReadFaces:
    """Read dice typed by their labels: blanks or commas between, or none at all.

    ``3 3 6``, ``3,3,6`` and ``336`` are three dice in Yahtzee, ``K K 10``
    and ``kk10`` three in Poker Dice (labels in any case; a longer label is
    tried first, so ``10`` is never a ``1`` and a ``0``).  The console's keep
    and ``advise`` read dice this one way.
    """
    longest_first = sorted((label.upper() for label in variant.face_labels), key=len, reverse=True)
    value_of = {label.upper(): value for value, label in enumerate(variant.face_labels, 1)}
    values: list[int] = []
    for token in text.replace(",", " ").split():
        at, upper = 0, token.upper()
        while at < len(token):
            label = next((k for k in longest_first if upper.startswith(k, at)), None)
            if label is None:
                return ReadFaces(tuple(values), token[at:])
            values.append(value_of[label])
            at += len(label)
    return ReadFaces(tuple(values), "")


TIMES = {1: "once", 2: "twice", 3: "three times", 4: "four times"}
"""How often the dice show a face, in words (a keep that wants more of it is refused)."""


def face_label(face: int, variant: Variant) -> str:
    """Return how a face typed to keep is printed: its die's label (Poker Dice's ``K``),
    or the digit itself where no die has that face (a 9 typed in Yahtzee)."""
    labels = variant.face_labels
    return labels[face - 1] if 1 <= face <= len(labels) else str(face)


def faces_not_shown_text(typed: Sequence[int], dice: Sequence[int], variant: Variant) -> str:
    """Return the refusal of a keep of faces ``typed`` that ``dice`` lack, naming only what is
    missing: the faces no die shows, once for each time typed, and the faces typed more
    often than the dice show them, with how many do: ``The dice do not show 5 and show 6
    only twice; type faces the dice show``.  The console and ``advise`` say this alike."""
    shown, wanted = Counter(dice), Counter(typed)
    absent = [face_label(face, variant) for face in typed if not shown[face]]
    short = [(face_label(face, variant), shown[face]) for face in sorted(wanted)
             if 0 < shown[face] < wanted[face]]
    parts = [f"do not show {' '.join(absent)}"] if absent else []
    parts += [f"show {face} only {TIMES[count]}" for face, count in short]
    return f"The dice {' and '.join(parts)}; type faces the dice show"


def yahtzee_bonus_text(bonus: int) -> str:
    """Return a Yahtzee bonus earned besides a box's points: ``a 100-point Yahtzee bonus``
    (the console's moves, ``advise`` and the page's coach say it alike)."""
    return f"a {bonus}-point Yahtzee bonus"


def points_text(points: int) -> str:
    """Return a number of points in words: ``15 points``, ``1 point``."""
    return f"{points} point{'' if points == 1 else 's'}"


def box_points_text(item: MenuItem, *, as_specified: bool = False) -> str:
    """Return what a choice scores, the box's points and a bonus earned besides told apart:
    ``30 points in Sixes and a 100-point Yahtzee bonus``, ``1 point in Ones``.

    A course-rules bonus, which is the whole turn, reads ``100 points in
    Yahtzee``.  ``as_specified`` keeps the specification's ``1 points``.
    """
    points = item.box_points
    text = f"{f'{points} points' if as_specified else points_text(points)} in {item.name}"
    return f"{text} and {yahtzee_bonus_text(item.bonus)}" if item.bonus else text


def scored_words(item: MenuItem, *, as_specified: bool = False) -> str:
    """Return what a choice scored: ``scored 30 points in Sixes and a 100-point Yahtzee
    bonus``, ``scored 1 point in Ones`` (``box_points_text``)."""
    return f"scored {box_points_text(item, as_specified=as_specified)}"


def scored_text(who: str, item: MenuItem, *, as_specified: bool = False) -> str:
    """Return ``<who> scored <points> points in <box>`` (``who`` is ``You`` or a name).

    ``as_specified``: the specification's ``You scored 1 points in Ones``, the line
    its transcripts hold; otherwise one point is ``1 point``.
    """
    return f"{who} {scored_words(item, as_specified=as_specified)}"


def reroll_text(kept: Sequence[int], dice: Sequence[int], variant: Variant) -> str:
    """Return a re-roll in words: ``kept 5 5 and rolled: 5 5 1 5 3`` (or every die rolled)."""
    if not kept:
        return f"rolled all five again: {faces(dice, variant)}"
    return f"kept {faces(sorted(kept), variant)} and rolled: {faces(dice, variant)}"


def local_time(moment: datetime | str, zone: bool = False) -> str:
    """Return a moment as people read it: ``YYYY-MM-DD HH:MM`` in local time.

    ``moment`` is a datetime with its time zone, or its ISO text (as stored);
    a text that is no ISO time is returned as it is.  With ``zone`` the
    time zone follows (``2026-11-22 16:07 EST``; its offset, ``-0500``,
    where it has no name): a page may be read far from the machine that
    wrote it, the console never is.
    """
    if isinstance(moment, str):
        try:
            when = datetime.fromisoformat(moment)
        except ValueError:
            return moment
    else:
        when = moment
    here = when.astimezone()
    text = here.strftime("%Y-%m-%d %H:%M")
    if zone:
        name = here.strftime("%Z")
        text += f" {name if name and name[0] not in '+-' else here.strftime('%z')}"
    return text


def time_element(moment: datetime | str) -> str:
    """Return a moment for a page: ``local_time`` with its zone, in a ``<time>`` element
    whose ``datetime`` holds the exact moment (HTML-escaped)."""
    text = local_time(moment, zone=True)
    try:
        exact = (datetime.fromisoformat(moment) if isinstance(moment, str) else moment).isoformat()
    except ValueError:  # no time: the text alone
        return html.escape(text)
    return f'<time datetime="{html.escape(exact)}">{html.escape(text)}</time>'


def game_title(game: GameRecord) -> str:
    """Return the game's name and rules as players read them: ``Yahtzee, course rules``."""
    return game_name_and_rules(game.variant, game.rules)


def game_name_and_rules(variant: str, rules: str) -> str:
    """Return a game and its rules as players read them: ``Yahtzee, course rules``, ``Poker
    Dice`` (a game with one set of rules has its own name as its rules'; an unknown game keeps
    its name)."""
    name = GAME_NAMES.get(variant, variant)
    return name if rules == variant else f"{name}, {rules} rules"


def game_description(game: GameRecord) -> str:
    """Return the game, its rules and its round: ``Yahtzee, course rules, round 5 of 13``."""
    rounds = record_variant(game).rounds
    return f"{game_title(game)}, round {min(game.round + 1, rounds)} of {rounds}"


def winner_line(leaders: Sequence[str], best: int, *, solo: bool = False) -> str:
    """Return the closing line naming the winner (or the tie) and the best score."""
    if solo:
        return f"{leaders[0]} finished with {best} points"
    if len(leaders) == 1:
        return f"{leaders[0]} wins with {best} points"
    return f"Tie between {_join(leaders)} with {best} points"


def game_words(variant: Variant, rules_word: str, game_word: str) -> str:
    """Return a game in words: Yahtzee by its rule set (``under official rules``), others by name.

    ``rules_word`` comes before a rule set, ``game_word`` before a game's name
    (``of Poker Dice``).
    """
    if variant.name == YAHTZEE:
        return f"{rules_word} {variant.rules_name} rules"
    return f"{game_word} {GAME_NAMES[variant.name]}"


def joker_text(joker: JokerBar) -> str:
    """Return why the forced joker refuses an open box, naming where the Yahtzee must go."""
    if joker.box is None:
        return "The joker rule puts this Yahtzee in a lower box while one is open"
    return f"The joker rule puts this Yahtzee in {joker.box} while {joker.box} is open"


def _join(names: Sequence[str]) -> str:
    """Return names joined as ``A, B and C``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def percent(chance: float) -> str:
    """Return a chance as a whole percentage; ``<1%`` and ``>99%`` short of certainty."""
    if 0 < chance < 0.005:
        return "<1%"
    if 0.995 < chance < 1:
        return ">99%"
    return f"{round(chance * 100)}%"


def cost_text(cost: float) -> str:
    """Return a decision's cost in expected points: one decimal (nothing is ``0.0``), but two
    below 0.05 and ``<0.01`` short of nothing, so that no decision listed as costly reads
    ``0.0`` (a play-to-win computer gives up hundredths of a point on purpose)."""
    if 0 < cost < 0.005:
        return "<0.01"
    return f"{cost:.2f}" if 0.005 <= cost < 0.05 else f"{cost:.1f}"


class Goals(NamedTuple):
    """Which goals' chances a profile's words tell (``profile_text``, ``open_goals``)."""

    bonus: bool = True
    """The upper bonus's chance."""
    yahtzee: bool = True
    """The chance of a Yahtzee scored in its box."""


def profile_text(profile: Profile, goals: Goals = Goals()) -> str:
    """Return a profile in words: ``253.0 ± 58.7, upper bonus 68%, Yahtzee 33%``.

    ``goals`` says which of the two goals' chances are told (``open_goals``);
    the console tells both, always.
    """
    text = f"{profile.mean:.1f} ± {profile.sd:.1f}"
    if profile.bonus is not None and profile.yahtzee is not None:
        told = ((goals.bonus, f"upper bonus {percent(profile.bonus)}"),
                (goals.yahtzee, f"Yahtzee {percent(profile.yahtzee)}"))
        text += "".join(f", {words}" for shown, words in told if shown)
    return text


SETTLED = 1e-9
"""How near 0 or 1 a goal's chance counts as certain (the solver's sums may miss 1 by a
rounding error)."""


def open_goals(profiles: Sequence[Profile]) -> Goals:
    """Return which of the upper bonus's and the Yahtzee's chances are worth telling at all.

    A goal is settled when every option of ``profiles`` leaves it as certain
    the same way (a chance of 0, or of 1, within ``SETTLED``): the bonus
    earned or out of reach, the Yahtzee box filled.  Its "Yahtzee 100%"
    beside each option then tells nothing about the choice.  Options that
    make it certain in different ways (one earns the bonus, another loses
    it) leave it open.
    """
    def open_(chances: list[float | None]) -> bool:
        """Return whether ``chances`` (None: no such goal) are not all one certainty."""
        told = [chance for chance in chances if chance is not None]
        return bool(told) and not (all(chance <= SETTLED for chance in told)
                                   or all(chance >= 1 - SETTLED for chance in told))
    return Goals(open_([p.bonus for p in profiles]), open_([p.yahtzee for p in profiles]))


def keep_text(keep: Keep, variant: Variant) -> str:
    """Return a keep in words: ``keep 3 3 5 and roll``, ``roll all`` or ``score now``."""
    if keep.scores_now:
        return "score now"
    if not keep.values:
        return "roll all"
    return "keep " + " ".join(variant.face(v) for v in sorted(keep.values)) + " and roll"


def move_text(move: Move, variant: Variant) -> str:
    """Return a judged move in words: a keep, or ``score <box name>``."""
    if isinstance(move, Keep):
        return keep_text(move, variant)
    return f"score {move.name}"


def keep_advice_with(advice: KeepAdvice, variant: Variant, where: Callable[[KeepAdvice], str],
                     unsave_all: str) -> str:
    """Return the coach's keep in words, without its expected score.

    ``where`` words the dice to have saved, put in brackets before ``and
    roll`` (the console numbers them, the page says their places);
    ``unsave_all`` is the whole advice when every saved die should roll.
    """
    text = keep_text(advice.keep, variant)
    if advice.save:
        return text.replace(" and roll", f" ({where(advice)}) and roll")
    return unsave_all if advice.unsave_all else text


def _dice_numbers(advice: KeepAdvice) -> str:
    """Return ``save only dice 1 2 4`` (or ``dice 1 2 4 saved``), as the console says it."""
    which = " ".join(str(n) for n in advice.save)
    return f"dice {which} saved" if advice.saved_already else f"save only dice {which}"


def keep_advice_text(advice: KeepAdvice, variant: Variant) -> str:
    """Return the coach's advice at the die prompt, naming the dice to have saved."""
    text = keep_advice_with(advice, variant, _dice_numbers, "unsave every die and roll")
    return f"{text} (expected {advice.expected:.1f})"


def keep_advice_by_faces(advice: KeepAdvice, variant: Variant) -> str:
    """Return the coach's advice at the faces notation's prompt: the faces to type, which
    say the dice themselves (no die's place), or ``keep none`` to roll every die while some
    are saved (``roll`` would roll only the others)."""
    text = "keep none and roll" if advice.unsave_all else keep_text(advice.keep, variant)
    return f"{text} (expected {advice.expected:.1f})"


def box_advice_text(advice: BoxAdvice) -> str:
    """Return the coach's advice at the scoring menu."""
    return (f"score {advice.box.number} ({advice.box.name}) "
            f"(expected {advice.expected:.1f})")


def luck_line(a: PlayerAnalysis) -> str:
    """Return ``Ann: 231 = 254.6 expected + 12.3 luck - 35.9 decisions`` for one player.

    The figures are shown to a tenth and add up exactly to the final score:
    the luck shown is the final score minus the others as shown, within a
    tenth of the luck computed.
    """
    optimum = round(a.optimum * 10)
    cost = round(a.total_cost * 10)
    luck = luck_tenths(a)
    sign = "-" if luck < 0 else "+"
    return (f"{a.name}: {a.final} = {_tenths(optimum)} expected {sign} {_tenths(abs(luck))} luck "
            f"- {_tenths(cost)} decisions")


def luck_tenths(a: PlayerAnalysis) -> int:
    """Return the luck ``luck_line`` shows, in tenths of a point: the final score minus the
    expected score and the decisions' cost as shown (within a tenth of the luck computed), so
    that every page that shows a player's luck shows the same figure."""
    return a.final * 10 - round(a.optimum * 10) + round(a.total_cost * 10)


def _tenths(tenths: int) -> str:
    """Return a count of tenths (not negative) as a decimal: 2546 is ``254.6``."""
    return f"{tenths // 10}.{tenths % 10}"
