"""A computer's turn at the console: a few lines a person can follow, and a recap by the prompt."""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Sequence

import pytest

from yahtzee.app.session import Solvers
from yahtzee.domain.games import POKER_DICE, yahtzee_variant
from yahtzee.domain.card import MenuItem, Variant
from yahtzee.domain.rules import COURSE, OFFICIAL
from yahtzee.interfaces.console import DIE_PROMPT, Console
from yahtzee.interfaces.console_game import Game
from yahtzee.players.kinds import COMPUTER, GREEDY, HUMAN, PlayerKind
from yahtzee.players.players import HumanPlayer
from yahtzee.solver.cache import Solution
from yahtzee.solver.moments import Moments

ROLLED = re.compile(r"(?P<name>.+?) rolled (?P<dice>[^:]+)$")
REROLLED = re.compile(r"(?P<name>.+?) (?:kept (?P<kept>[^:]+) and rolled|rolled all five again): "
                      r"(?P<dice>.+)$")
SCORED = re.compile(r"(?P<name>.+?) scored (?P<points>\d+) points? in (?P<box>.+) "
                    r"\(total (?P<total>\d+)\)$")


class Screens(Console):
    """A console that remembers the whole transcript at each prompt a person answers."""

    def __init__(self, script: str) -> None:
        """Read ``script`` and print into a buffer."""
        self.buffer = io.StringIO()
        super().__init__(io.StringIO(script), self.buffer)
        self.at_prompt: list[str] = []

    def text(self) -> str:
        """Return everything printed so far."""
        return self.buffer.getvalue()

    def read(self, prompt: str) -> str:
        """Remember what is on screen with ``prompt`` shown, then read as usual."""
        self.at_prompt.append(self.text() + prompt)
        return super().read(prompt)


def screen(transcript: str, rows: int = 24, columns: int = 80) -> list[str]:
    """Return the last ``rows`` rows an 80-column terminal shows after ``transcript``."""
    shown: list[str] = []
    for line in transcript.split("\n"):
        shown += [line[i:i + columns] for i in range(0, max(len(line), 1), columns)]
    return shown[-rows:]


def play(kinds: Sequence[PlayerKind], script: str, *, variant: Variant, seed: int,
         names: Sequence[str] | None = None) -> tuple[Screens, Game]:
    """Play a game of ``kinds`` with people fed ``script``, to its end or its input's end."""
    console = Screens(script)
    game = Game(Solvers().players(kinds, names, variant), variant=variant, console=console,
                seed=seed)
    try:
        game.play_game()
    except EOFError:
        pass
    return console, game


def people_script(rounds: int) -> str:
    """Return input that rolls once, then scores box N in round N."""
    return "".join(f"roll\nscore\n{n}\n" for n in range(1, rounds + 1))


def computer_blocks(transcript: str, name: str) -> list[list[str]]:
    """Return the lines of each turn of the player ``name``, its header left out."""
    blocks = []
    play = transcript.split("FINAL SCORES")[0]
    for block in play.split(f"*** {name}: ***\n")[1:]:
        lines = []
        for line in block.splitlines():
            if line.startswith("*** ") or line.startswith("*" * 31):
                break
            lines.append(line)
        blocks.append(lines)
    return blocks


def parse(pattern: re.Pattern[str], line: str) -> re.Match[str]:
    """Return the match of ``pattern`` with the whole ``line`` (failing the test if none)."""
    match = pattern.fullmatch(line)
    assert match is not None, line
    return match


def faces(text: str) -> Counter[str]:
    """Return the dice of a text such as ``5 5 1`` as a multiset of faces."""
    return Counter(text.split())


def test_a_computer_turn_is_a_few_lines_that_follow_from_each_other(course: Solution) -> None:
    console, game = play([HUMAN, COMPUTER], people_script(13), variant=yahtzee_variant(COURSE),
                         seed=21)
    out = console.text()
    blocks = computer_blocks(out, "Computer")
    assert len(blocks) == 13
    for block in blocks:
        first, *rerolls, last = block
        assert parse(ROLLED, first)["name"] == "Computer"
        assert len(rerolls) <= 2
        dice = parse(ROLLED, first)["dice"]
        for line in rerolls:
            match = REROLLED.fullmatch(line)
            assert match is not None and match["name"] == "Computer", line
            kept = faces(match["kept"] or "")
            assert not kept - faces(dice) and not kept - faces(match["dice"]), line
            dice = match["dice"]
        scored = SCORED.fullmatch(last)
        assert scored is not None and scored["name"] == "Computer", last
    # The last turn's total is the final card's; every computer line names the computer.
    assert int(parse(SCORED, blocks[-1][-1])["total"]) == game.players[1].card.score()
    assert "You scored" not in "\n".join("\n".join(b) for b in blocks)
    # The computer's commands are not echoed after prompts: a prompt starts every line it is on.
    assert all(line.startswith(DIE_PROMPT) for line in out.splitlines() if DIE_PROMPT in line)
    assert out.count(DIE_PROMPT) == 13 * 2  # the person's roll and score, each turn


def test_the_recap_at_each_prompt_repeats_the_computers_last_turn(course: Solution) -> None:
    console, game = play([HUMAN, COMPUTER], people_script(13), variant=yahtzee_variant(COURSE),
                         seed=21)
    blocks = computer_blocks(console.text(), "Computer")
    # Each of the person's turns has two die prompts (roll, score): the first opens the turn.
    first_prompts = [text for text in console.at_prompt if text.endswith(DIE_PROMPT)][::2]
    assert len(first_prompts) == 13
    for turn, text in enumerate(first_prompts[1:]):
        rows = screen(text)
        assert rows[-1] == DIE_PROMPT
        recap = rows[rows.index("Since your last turn:") + 1:rows.index("Dice:")]
        live = blocks[turn]
        expected_rolls = [parse(ROLLED, live[0])["dice"]]
        for line in live[1:-1]:
            match = REROLLED.fullmatch(line)
            assert match is not None
            expected_rolls.append(f"kept {match['kept'] or 'none'} -> {match['dice']}")
        said = " ".join(row.strip() for row in recap)
        assert said == ("Computer rolled " + ", ".join(expected_rolls) + " and "
                        + parse(SCORED, live[-1])[0].removeprefix("Computer "))


def test_five_computers_turns_fit_on_an_80_by_24_screen_with_the_prompt() -> None:
    variant = yahtzee_variant(OFFICIAL)
    names = ["Ann", "Greedy One", "Greedy Two", "Greedy Three", "Greedy Four", "Greedy Five"]
    console, game = play([HUMAN] + [GREEDY] * 5, people_script(3), variant=variant, seed=5,
                         names=names)
    at_turn_start = [text for text in console.at_prompt if text.endswith(DIE_PROMPT)]
    second_turn = next(text for text in at_turn_start if "Since your last turn:" in text)
    rows = screen(second_turn)
    assert rows[-1] == DIE_PROMPT
    assert all(len(row) < 80 for row in rows[:-1])
    recap = rows[rows.index("Since your last turn:"):]
    totals = [line for line in recap
              if re.fullmatch(r"    and scored \d+ points in .+ \(total \d+\)", line)]
    assert len(totals) == 5
    for name in names[1:]:
        assert sum(row.startswith(f"  {name} rolled ") for row in recap) == 1, name


def test_a_computer_that_scores_one_point_is_said_to_score_1_point() -> None:
    # no line of the specification's: it said "1 points"; the person's own line keeps them
    console, _ = play([HUMAN, GREEDY], "".join(f"score\n{n}\n" for n in range(1, 14)),
                      variant=yahtzee_variant(COURSE), seed=6)
    lines = console.text().splitlines()
    assert "Greedy scored 1 point in Ones (total 126)" in lines
    assert "    and scored 1 point in Ones (total 126)" in lines   # the recap of that turn
    assert "Greedy scored 3 points in Threes (total 125)" in lines
    assert not any("1 points in" in line for line in lines)
    person = Screens("")
    person.scored(MenuItem(1, "Ones", 1))
    assert person.text() == "You scored 1 points in Ones\n"


def test_the_coachs_win_chances_wrap_between_players_within_80_columns(
        course: Solution, course_moments: Moments) -> None:
    # six names of the longest allowed, 24 characters: on one line they took 184 columns
    variant = yahtzee_variant(COURSE)
    names = [f"Ann-Sophie Vanderbilt-{n:02}" for n in range(1, 7)]
    console = Screens("roll\n")
    game = Game([HumanPlayer(name, variant.new_card()) for name in names], variant=variant,
                console=console, seed=1, advisor=Solvers().coach(variant, profiles=True))
    with pytest.raises(EOFError):
        game.play_game()
    lines = console.text().splitlines()
    first = lines.index("Win chances: Ann-Sophie Vanderbilt-01 15%, Ann-Sophie Vanderbilt-02 17%,")
    assert lines[first + 1:first + 3] == [
        "             Ann-Sophie Vanderbilt-03 17%, Ann-Sophie Vanderbilt-04 17%,",
        "             Ann-Sophie Vanderbilt-05 17%, Ann-Sophie Vanderbilt-06 17%"]
    second = lines.index("Win chances: Ann-Sophie Vanderbilt-01 23%, Ann-Sophie Vanderbilt-02 15%,")
    assert second > first + 3 and lines[second + 2].endswith("Ann-Sophie Vanderbilt-06 15%")
    chances = [line for line in lines if line.startswith(("Win chances:", " " * 13 + "Ann"))]
    assert len(chances) == 6 and max(len(line) for line in chances) <= 80


def test_a_game_of_people_shows_no_recap() -> None:
    both = "".join(f"roll\nscore\n{n}\n" * 2 for n in range(1, 14))  # each person, box N
    console, _ = play([HUMAN, HUMAN], both, variant=yahtzee_variant(COURSE), seed=3)
    text = console.text()
    assert "FINAL SCORES" in text and text.count("You scored") == 26
    assert "Since your last turn" not in text


def test_poker_dice_recap_wraps_within_the_screen_width() -> None:
    console, _ = play([HUMAN, GREEDY], people_script(9), variant=POKER_DICE, seed=4)
    out = console.text()
    assert "Since your last turn:" in out
    assert all(len(line) <= 79 for line in out.splitlines() if not line.startswith(DIE_PROMPT))


def test_the_recap_stays_beside_the_dice_at_every_prompt_of_the_turn(course: Solution) -> None:
    console, _ = play([COMPUTER, HUMAN], "1\n2\nroll\nx\nscore\n1\n",
                      variant=yahtzee_variant(COURSE), seed=8)
    prompts = [text for text in console.at_prompt if text.endswith(DIE_PROMPT)]
    assert len(prompts) == 6  # five in the person's first turn, one opening the second
    recaps = [screen(text)[screen(text).index("Since the game began:"):] for text in prompts[:5]]
    assert all(recap[1].startswith("  Computer rolled ") for recap in recaps)
    assert "Since your last turn:" in screen(prompts[5])
