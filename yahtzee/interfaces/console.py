"""The console: what the terminal game prints and every line it reads.

The texts follow the CS2100 specification's sample runs character for
character.  Besides the game's screens, the console shows what the layers
below return as data: the coach's advice and analysis, saves and
statistics.  Sentences the browser table says too come from
``yahtzee.interfaces.wording``; errors, the solver's progress and damaged
files are reported on standard error as ``yahtzee.interfaces.reporting``
words them.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence, Set
from typing import TYPE_CHECKING, Any, TextIO

from yahtzee.domain.card import Card, JokerBar, MenuItem, Variant, format_rows
from yahtzee.domain.games import POKER_DICE_NAME, YAHTZEE
from yahtzee.engine.moves import Notation
from yahtzee.engine.records import TurnSummary
from yahtzee.interfaces.reporting import Reporter
from yahtzee.interfaces.review import analysis_json, assessment_json  # noqa: F401 (moved)
from yahtzee.interfaces.streams import printable, quoted
from yahtzee.interfaces.wording import (PROGRAM_NAME, cost_text, faces, faces_not_shown_text,
                                        game_description, game_title, joker_text, local_time,
                                        luck_line, move_text, percent, profile_text,
                                        reroll_text, scored_text, scored_words, winner_line)
from yahtzee.solver.coach import PlayerAnalysis
from yahtzee.storage.saves import SaveFile
from yahtzee.storage.snapshot import record_variant
from yahtzee.storage.stats import Bucket, Figures, Stats

if TYPE_CHECKING:
    from yahtzee.solver.profiles import Profile

DIE_PROMPT = 'Please select a die # to toggle it between save and unsave, "roll" or "score": '


def faces_prompt(labels: Sequence[str] = ("1", "2", "3", "4", "5", "6")) -> str:
    """Return the die prompt when keeps are typed as faces (``--keep-by faces``), its example
    made of the game's own faces: ``336`` in Yahtzee, ``J J A`` in Poker Dice (whose faces
    are not digits, so a Yahtzee example would only be refused)."""
    example = (labels[2], labels[2], labels[5])
    shown = "".join(example) if all(len(label) == 1 for label in labels) else " ".join(example)
    return f'Type the faces to keep (e.g. {shown}) to roll the others, "roll" or "score": '


FACES_PROMPT = faces_prompt()
"""The faces notation's die prompt in Yahtzee."""
MENU_TITLE = "Select a category that you have not scored in yet:"
BAD_CATEGORY = "Please enter a category you have not scored yet"
OUT_OF_ROLLS = "Out of rolls, you must score"
ALL_SAVED = "All five dice are saved: unsave one to roll it, or type score"
KEEP_ALL = "A keep of all five dice rolls none: keep fewer, or type score"
"""The faces notation's word for a keep of every die (it has no unsaving)."""
BANNER_STARS = "*" * 31
CARD_STARS = "*" * 30
TITLES = {YAHTZEE: "WELCOME TO YAHTZEE", POKER_DICE_NAME: "WELCOME TO POKER DICE"}
"""The banner's title of each game of the registry."""


class Console(Reporter):
    """Reads the players' lines and prints the game's screens; reports as a ``Reporter`` does."""

    def __init__(self, inp: TextIO | None = None, out: TextIO | None = None, *,
                 delay: float = 0.0) -> None:
        """Talk through ``inp`` and ``out`` (standard streams by default).

        ``delay`` is the pause, in seconds, before each line of a computer's turn.
        """
        self.inp = inp if inp is not None else sys.stdin
        self.out = out if out is not None else sys.stdout
        self.delay = delay

    # -- low level -------------------------------------------------------
    def say(self, text: str = "") -> None:
        """Print ``text`` and a newline (``text`` may itself hold several lines)."""
        self.out.write(text + "\n")

    def read(self, prompt: str) -> str:
        """Print ``prompt`` and return the next line typed; ``EOFError`` at end of input."""
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            raise EOFError
        return line.rstrip("\r\n")

    def echo(self, prompt: str, command: str) -> None:
        """Show a computer player's ``command`` after ``prompt``, as if it had been typed."""
        self.out.write(prompt)
        self.out.flush()
        if self.delay > 0:
            time.sleep(self.delay)
        self.out.write(command + "\n")
        self.out.flush()

    # -- screens ---------------------------------------------------------
    def banner(self, variant: Variant) -> None:
        """Print the spec's three-line banner: 31 stars, the game's title, 31 stars."""
        self.say(BANNER_STARS)
        self.say(f"       {TITLES[variant.name]}")
        self.say(BANNER_STARS)

    def turn_header(self, name: str) -> None:
        """Print the line that opens a player's turn (a stored name's control codes escaped)."""
        self.say(f"*** {printable(name)}: ***")

    def card(self, card: Card) -> None:
        """Print the current score card block."""
        self.say("Current Scorecard:")
        self.say(format_rows(card.rows()))
        self.say(CARD_STARS)

    def dice(self, variant: Variant, values: Sequence[int], saved: Sequence[bool] = ()) -> None:
        """Print the dice, one per line, a saved die ending in `` SAVE``."""
        self.say("Dice:")
        for i, value in enumerate(values):
            mark = " SAVE" if i < len(saved) and saved[i] else ""
            self.say(f"{i + 1}: value {variant.face(value)}{mark}")

    def ask_die_command(self, notation: Notation = Notation.POSITIONS,
                        labels: Sequence[str] | None = None) -> str:
        """Ask for a die move, ``roll`` or ``score``; return the line typed.

        In the positions notation (the specification's) a die's number
        toggles it; in the faces notation the faces typed are kept, the
        example made of ``labels`` (the game's faces; default Yahtzee's).
        """
        if notation is Notation.POSITIONS:
            return self.read(DIE_PROMPT)
        return self.read(FACES_PROMPT if labels is None else faces_prompt(labels))

    def show_die_command(self, command: str) -> None:
        """Show a computer player's die command."""
        self.echo(DIE_PROMPT, command)

    def invalid_die(self, text: str) -> None:
        """Say that ``text`` is not a die prompt command (control codes shown escaped).

        A line longer than ``ECHO_LIMIT`` characters is shown cut short, with its length.
        """
        shown = printable(text)
        if len(shown) > ECHO_LIMIT:
            shown = f"{shown[:ECHO_LIMIT]}... ({len(text)} characters)"
        self.say(f"{shown} is not a valid die value")

    def faces_not_shown(self, typed: Sequence[int], dice: Sequence[int],
                        variant: Variant) -> None:
        """Say which of the faces ``typed`` to keep ``dice`` lack (``wording.faces_not_shown_text``:
        ``The dice do not show 5 and show 6 only twice``); nothing changed."""
        self.say(faces_not_shown_text(typed, dice, variant))

    def all_saved(self, keep: bool = False) -> None:
        """Say that ``roll`` (or, ``keep``, a keep of all five faces) would roll nothing, and
        what to do instead."""
        self.say(KEEP_ALL if keep else ALL_SAVED)

    def out_of_rolls(self) -> None:
        """Say that the player must score now."""
        self.say(OUT_OF_ROLLS)

    def menu(self, items: Sequence[MenuItem]) -> None:
        """Print the scoring menu: the spec's title, then lines like `` 7: Chance, 13 points``."""
        self.say(MENU_TITLE)
        for item in items:
            self.say(f"{item.number:>2}: {item.name}, {item.points} points")

    def ask_category(self) -> str:
        """Read the category number typed after the menu."""
        return self.read("")

    def show_category(self, command: str) -> None:
        """Show a computer player's category number."""
        self.echo("", command)

    def bad_category(self) -> None:
        """Say that the number typed is not on the menu."""
        self.say(BAD_CATEGORY)

    def joker_refused(self, joker: JokerBar) -> None:
        """Say why the forced joker keeps the box typed off the menu."""
        self.say(joker_text(joker))

    def scored(self, item: MenuItem) -> None:
        """Say what the turn scored: the box's points, and any Yahtzee bonus earned besides
        (``You scored 1 points in Ones``: the specification's words, for one point too)."""
        self.say(scored_text("You", item, as_specified=True))

    # -- a computer's turn -------------------------------------------------
    def computer_line(self, text: str) -> None:
        """Print one line of a computer's turn after the pause people watch it by."""
        self.out.flush()
        if self.delay > 0:
            time.sleep(self.delay)
        self.say(text)
        self.out.flush()

    def computer_roll(self, name: str, variant: Variant, dice: Sequence[int],
                      saved: Sequence[bool] | None) -> None:
        """Show a computer's first roll, or (``saved`` given) the dice of a turn resumed midway."""
        if saved is None:
            self.computer_line(f"{name} rolled {faces(dice, variant)}")
        else:
            marks = " ".join(variant.face(v) + ("*" if s else "") for v, s in zip(dice, saved))
            self.computer_line(f"{name} has {marks} (* saved)")

    def computer_reroll(self, name: str, variant: Variant, kept: Sequence[int],
                        dice: Sequence[int]) -> None:
        """Show a computer's re-roll: the values it kept, and the dice it has now."""
        self.computer_line(f"{name} {reroll_text(kept, dice, variant)}")

    def computer_scored(self, name: str, item: MenuItem, total: int) -> None:
        """Show the box a computer scored and its new total: ``Computer scored 1 point in Ones
        (total 1)`` (no line of the specification's, so one point is said plainly)."""
        self.computer_line(f"{scored_text(name, item)} (total {total})")

    def recap(self, turns: Sequence[TurnSummary], names: Sequence[str],
              variant: Variant, *, first_turn: bool = False) -> None:
        """Print what the other players did since this player's last turn (nothing if none).

        Each turn takes two or three lines of at most ``RECAP_WIDTH`` columns
        (a name of ordinary length), so that five other players' turns, the
        dice and the prompt fit on an 80x24 screen together.  Before this
        player's first turn the title says the turns are the game's first.
        """
        if not turns:
            return
        self.say(RECAP_FIRST_TITLE if first_turn else RECAP_TITLE)
        for turn in turns:
            for line in recap_lines(turn, names[turn.seat], variant):
                self.say(line)

    def advice(self, text: str) -> None:
        """Print one line of coaching advice."""
        self.say(f"Coach: {text}")

    def options(self, options: Sequence[tuple[str, Profile]]) -> None:
        """Print the best options' outcome profiles, one indented line each, best first."""
        for move, profile in options:
            self.say(f"  {move}: {profile_text(profile)}")

    def win_chances(self, names: Sequence[str], chances: Sequence[float]) -> None:
        """Print every player's chance to finish first, in seating order.

        The line wraps between players (never inside a name and its chance)
        to stay within ``TEXT_WIDTH`` columns, unless a single player is too long.
        """
        for line in listing_lines("Win chances:", [f"{printable(name)} {percent(chance)}"
                                                   for name, chance in zip(names, chances)]):
            self.say(line)

    def analysis(self, analyses: Sequence[PlayerAnalysis], variant: Variant) -> None:
        """Print each player's cost against optimal play and their three costliest decisions.

        Every line fits in ``TEXT_WIDTH`` columns: a decision takes two lines,
        what was played, then the better move indented below it.
        """
        self.say(BANNER_STARS)
        self.say("        COACH'S ANALYSIS")
        self.say(BANNER_STARS)
        for a in analyses:
            turns = max(a.turns(), 1)
            self.say(luck_line(a))
            for line in within_width([f"{a.name}: {a.total_cost:.1f} expected points lost "
                                      "against optimal play,",
                                      f"{a.total_cost / turns:.2f} a turn"], "  "):
                self.say(line)
            worst = a.costliest()
            if not worst:
                self.say("  Every decision was optimal.")
            for d in worst:
                dice = " ".join(variant.face(v) for v in d.dice)
                self.say(f"  Round {d.round}, {d.stage()}, dice {dice}: "
                         f"played {move_text(d.choice, variant)};")
                self.say(f"    best was {move_text(d.best, variant)} (cost {cost_text(d.cost)})")
        self.chances_chart(analyses)

    def chances_chart(self, analyses: Sequence[PlayerAnalysis]) -> None:
        """Print each player's win chance at each round's start, in percent (nothing without).

        One row per player and one column per round: 13 rounds take 52 columns.
        """
        if not any(a.chances for a in analyses):
            return
        rounds = max(len(a.chances) for a in analyses)
        width = max(len(CHANCES_HEADING), *(len(printable(a.name)) for a in analyses))
        self.say("Win chances (%) at the start of each round:")
        self.say(f"{CHANCES_HEADING:<{width}} " + "".join(f"{n:>4}" for n in range(1, rounds + 1)))
        for a in analyses:
            self.say(f"{printable(a.name):<{width}} "
                     + "".join(f"{round(c * 100):>4}" for c in a.chances))

    def luck_lines(self, analyses: Sequence[PlayerAnalysis]) -> None:
        """Print each player's final score as expected score plus luck minus decisions' cost."""
        for a in analyses:
            self.say(luck_line(a))

    def final(self, results: Sequence[tuple[str, Card, dict[str, str]]],
              leaders: Sequence[str]) -> None:
        """Print every player's final card (with the dice that scored each box) and the winner.

        ``results`` holds (name, card, dice shown per box label) in seating order;
        ``leaders`` names the players with the highest total.
        """
        self.say(BANNER_STARS)
        self.say("          FINAL SCORES")
        self.say(BANNER_STARS)
        for name, card, dice_by_label in results:
            self.turn_header(name)
            self.say(format_rows(card.rows(), dice_by_label))
            self.say(CARD_STARS)
        best = max(card.score() for _, card, _ in results)
        self.say(winner_line(leaders, best, solo=len(results) == 1))

    def filed_as(self, game_number: int) -> None:
        """Say the number a finished game has in the history, as ``analyze`` takes it."""
        self.say(f"Filed as game {game_number}: {PROGRAM_NAME} analyze {game_number} "
                 "reviews it.")

    def stopped_before_start(self, resuming: bool = False) -> None:
        """Say that the program stopped before play began (a resumed game's save is untouched)."""
        if resuming:
            self.say("Stopped before play resumed; the saved game is unchanged.")
        else:
            self.say("Stopped before the game began; nothing was saved.")

    def stopped_before_any_move(self) -> None:
        """Say that a new game stopped before its first accepted command, so left no save."""
        self.say("Game stopped before any move; nothing was saved.")

    def resuming(self, save: SaveFile) -> None:
        """Say which saved game goes on: its ID, game and rules, round, and whose turn it is."""
        game = save.snapshot
        rounds = record_variant(game).rounds
        if game.round >= rounds:
            where = f"{game_title(game)}, all {rounds} rounds played"
        else:
            where = f"{game_description(game)}; {printable(game.players[game.seat].name)} to play"
        self.say(f"Resuming game {save.save_id}: {where}.")

    def stopped_after_end(self, filed: bool, resume_hint: str | None) -> None:
        """Say that the program stopped after the game's end (the final screen or the analysis).

        ``filed``: the game is in the history.  Otherwise ``resume_hint``,
        when given, resumes the saved finished game, which files it.
        """
        if filed:
            self.say("Stopped. The game is over and in the history "
                     f"({PROGRAM_NAME} analyze shows it).")
        elif resume_hint:
            self.say("Stopped. The game is over but could not be filed in the history; "
                     f"it is saved, and {resume_hint} files it.")
        else:
            self.say("Stopped. The game is over; it could not be saved.")

    def interrupted(self, resume_hint: str | None) -> None:
        """Say that the game stopped, and how to resume it if it was saved."""
        if resume_hint:
            self.say(f"Game saved. To continue it, run: {resume_hint}")
        else:
            self.say("Game stopped; it could not be saved.")

    # -- saves, history and statistics -------------------------------------
    def history_unavailable(self, error: Exception) -> None:
        """Say that the game history cannot be read now (another program holds it locked, say)."""
        self.error(f"the game history cannot be read now ({error}); try again later")

    def no_unfinished_game(self, to: str = "resume") -> None:
        """Say that there is no unfinished game to act on (``to``: ``resume``, ``delete``)."""
        self.refuse(f"there is no unfinished game to {to}")

    def unknown_save(self, requested: str) -> None:
        """Say that no unfinished game has the ID ``requested``."""
        self.refuse(f"no unfinished game has the ID {quoted(requested)}; "
                    "the command 'saves' lists them")

    def save_in_use(self, save_id: int) -> None:
        """Say that the game ``save_id`` is being played by another process."""
        self.refuse(f"game {save_id} is open in another window; finish or stop it there first")

    def deleted(self, save: SaveFile) -> None:
        """Say that the unfinished game ``save`` was deleted."""
        self.say(f"Deleted game {save.save_id} ({game_description(save.snapshot)}).")

    def not_deleted_in_use(self, save_id: int) -> None:
        """Say that the game ``save_id`` was kept: another process is playing it."""
        self.error(f"game {save_id} is open in another window; it was not deleted")

    def nothing_deleted(self, requested: str) -> None:
        """Say that ``saves --delete`` was given an ID of no unfinished game: nothing is deleted."""
        self.refuse(f"no unfinished game has the ID {quoted(requested)}; nothing was deleted "
                    "(the command 'saves' lists them)")

    def saves_listing(self, saves: Sequence[SaveFile], opened: Set[int] = frozenset()) -> None:
        """Print the unfinished games: a line with the ID, when last played, round, game and
        rules (and whether it is played in the browser), then, indented below it, the players
        and whether it is open in another window (the IDs in ``opened``).

        A game open elsewhere is marked because ``--resume`` and ``--delete``
        refuse it until that window is closed or the game there is stopped.
        Every line fits in ``TEXT_WIDTH`` columns (the players wrap between
        names), unless a single name is too long.
        """
        if not saves:
            self.say("No unfinished games.")
            return
        rows = [("ID", "Saved", "Round", "Game")]
        for save in saves:
            game = save.snapshot
            variant = record_variant(game)
            rules = game.variant if game.variant == game.rules else f"{game.variant} ({game.rules})"
            if save.browser is not None:
                rules += " in the browser"  # its server's: resumed by its ID only
            rows.append((str(save.save_id), local_time(save.updated),
                         f"{min(game.round + 1, variant.rounds)}/{variant.rounds}", rules))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        indent = " " * (widths[0] + 2)  # the details go under the time it was saved
        for number, row in enumerate(rows):
            self.say(f"{row[0]:>{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  "
                     f"{row[3]}".rstrip())
            if number:
                for line in save_details(saves[number - 1], saves[number - 1].save_id in opened,
                                         TEXT_WIDTH - len(indent)):
                    self.say(indent + line)

    def stats_listing(self, stats: Stats) -> None:
        """Print the statistics: people by name, computers by strength, the chances' honesty."""
        if not stats.games:
            self.say("No finished games yet.")
            return
        self.say(f"Finished games: {stats.games}")
        for title, groups in (("Players", stats.players),
                              ("Computer strengths", stats.computers)):
            if groups:
                self.say()
                self.say(title)
                for figures in groups:
                    self._figures(figures)
        if stats.calibration:
            self.say()
            games = "game" if stats.chance_games == 1 else "games"
            self.say(f"Win chances at each turn's start against the outcomes "
                     f"({stats.chance_games} {games}):")
            for b in stats.calibration:
                low = round(b.low * 100)
                self.say(f"  {f'{low}-{low + 10}%':>7}: predicted {b.predicted:4.0%}, "
                         f"won {b.observed:4.0%} ({b.count} turn{'' if b.count == 1 else 's'})")

    def simulate_histogram(self, buckets: Sequence[Bucket], width: int) -> None:
        """Print ``simulate``'s histogram: one indented row per bucket, bars ``width`` at most."""
        if not buckets:
            return
        top = max(b.count for b in buckets)
        digits = len(str(top))
        for b in buckets:
            bar = "#" * math.ceil(b.count * width / top) if b.count else ""
            self.say(f"  {b.low:>4}-{b.high:<4} {b.count:>{digits}} {bar}".rstrip())

    def _figures(self, figures: Figures) -> None:
        """Print one group's figures and its histogram."""
        self.say(f"  {printable(figures.label)} ({figures.game}): played {figures.played}, "
                 f"wins {figures.wins}, ties {figures.ties}, best {figures.best}, "
                 f"mean {figures.mean:.1f}")
        most = max(bucket.count for bucket in figures.histogram)
        span = max(len(f"{b.low}-{b.high}") for b in figures.histogram)
        for bucket in figures.histogram:
            bar = "#" * (bucket.count * HISTOGRAM_WIDTH // most if most > HISTOGRAM_WIDTH
                         else bucket.count)
            scores = f"{bucket.low}-{bucket.high}"
            self.say(f"    {scores:>{span}} | {bar + ' ' if bar else ''}{bucket.count}")


HISTOGRAM_WIDTH = 40
"""The longest bar of a statistics histogram, in characters."""
CHANCES_HEADING = "Round"
"""The heading of the names' column in the analysis's table of win chances."""
TEXT_WIDTH = 80
"""The widest line of the analysis, of the coach's win chances and of the saves' listing,
in columns."""


def within_width(parts: Sequence[str], indent: str, width: int = TEXT_WIDTH) -> list[str]:
    """Return ``parts`` joined by blanks into lines of at most ``width`` columns where they
    can be: a part that would pass the width starts a new line, after ``indent``.

    A part longer than the width on its own still takes a line of its own, whole.
    """
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += " " + part
        else:
            lines.append(indent + part if lines else part)
    return lines


def listing_lines(title: str, items: Sequence[str], width: int = TEXT_WIDTH) -> list[str]:
    """Return ``title`` and ``items`` separated by commas (``Players: Ann, Bob``) in lines of
    at most ``width`` columns where they can be: the lines break between items, never
    inside one, and a line after the first starts under the first item."""
    listed = [f"{item}," for item in items[:-1]] + list(items[-1:])
    return within_width([title, *listed], " " * (len(title) + 1), width)


def save_details(save: SaveFile, open_elsewhere: bool, width: int) -> list[str]:
    """Return the lines under a game of the saves' listing, ``width`` columns at most:
    ``Players: Ann (human), Computer (computer)``, wrapped between players, then
    ``Open in another window`` when ``open_elsewhere``."""
    lines = listing_lines("Players:", [f"{printable(p.name)} ({p.kind})"
                                       for p in save.snapshot.players], width)
    return [*lines, "Open in another window"] if open_elsewhere else lines


ECHO_LIMIT = 40
"""The most characters of a refused line that the refusal repeats."""
RECAP_TITLE = "Since your last turn:"
RECAP_FIRST_TITLE = "Since the game began:"
RECAP_WIDTH = 79
"""The widest line of a recap, in columns; the rolls wrap onto indented lines to stay within it."""


def recap_lines(turn: TurnSummary, name: str, variant: Variant) -> list[str]:
    """Return one turn of the recap: the rolls and keeps, then the box and the new total.

    ``  Computer rolled 3 5 5 2 6, kept 5 5 -> 5 5 1 5 3`` then
    ``    and scored 15 points in Fives (total 45)``; rolls that do not fit in
    ``RECAP_WIDTH`` columns go on to indented lines.
    """
    parts = [f"{name} rolled {faces(turn.rolls[0], variant)}"]
    for kept, dice in zip(turn.kept, turn.rolls[1:]):
        parts.append(f"kept {faces(sorted(kept), variant) if kept else 'none'} -> "
                     f"{faces(dice, variant)}")
    lines = ["  " + parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + len(", " + part) <= RECAP_WIDTH:
            lines[-1] += ", " + part
        else:
            lines[-1] += ","
            lines.append("    " + part)
    lines.append(f"    and {scored_words(turn.item)} (total {turn.total})")
    return lines


def saves_json(saves: Sequence[SaveFile], opened: set[int]) -> list[dict[str, Any]]:
    """Return ``saves --json``: each unfinished game, ``opened`` marking those open elsewhere."""
    games = []
    for save in saves:
        game = save.snapshot
        rounds = record_variant(game).rounds
        over = game.round >= rounds
        games.append({
            "id": save.save_id, "saved": save.updated.isoformat(timespec="seconds"),
            "game": game.variant, "rules": game.rules,
            "round": min(game.round + 1, rounds), "rounds": rounds,
            "players": [{"name": p.name, "kind": p.kind} for p in game.players],
            "to_play": None if over else game.players[game.seat].name,
            "open": save.save_id in opened})
    return games
