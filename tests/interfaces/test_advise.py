"""``advise``: the companion for real dice, interactive and one-shot, against the strategy."""

from __future__ import annotations

import io
import json
import random
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.helpers import message_of, run_cli, variant_of
from yahtzee.app.advice import ranked_moves
from yahtzee.app.session import Solvers
from yahtzee.domain.card import Card, Variant
from yahtzee.domain.dice import Dice
from yahtzee.interfaces.advise import (InputError, card_option, find_box, help_text, parse_card,
                                       parse_dice, parse_keep, parse_opponents)
from yahtzee.interfaces.cli import main
from yahtzee.interfaces.wording import keep_text
from yahtzee.solver.cache import Solution
from yahtzee.solver.coach import Coach, Keep, ValueStrategy
from yahtzee.solver.moments import Moments
from yahtzee.solver.profiles import Profile

MOVE_LINE = re.compile(r"^  (\d)\. (.+?)\s+(\d+\.\d\d)  +± (\d+\.\d)((?:  +[<>]?\d+%)*)$")
"""A move's line: rank, move, expected final score, ± sd, then percentages."""
GAME_OPTIONS = {"official": ["--rules", "official"], "course": ["--rules", "course"],
                "poker": ["--game", "poker-dice"]}


@pytest.fixture(scope="module")
def coaches(official: Solution, course: Solution, official_moments: Moments,
            course_moments: Moments) -> dict[str, Coach]:
    """A coach with profiles for each game of the tests (the tables built once per session)."""
    return {name: Solvers().coach(variant_of(name), profiles=True) for name in GAME_OPTIONS}


@pytest.fixture(scope="module")
def strategies(coaches: dict[str, Coach]) -> dict[str, ValueStrategy]:
    """The optimal strategy of each game of the tests."""
    return {name: coach.strategy for name, coach in coaches.items()}


# -- reading what people type -----------------------------------------------------


@pytest.mark.parametrize("game, text, values", [
    ("official", "5 5 2 1 6", (5, 5, 2, 1, 6)),
    ("official", " 5,5, 2 ,1,6 ", (5, 5, 2, 1, 6)),
    ("course", "55216", (5, 5, 2, 1, 6)),
    ("poker", "9 10 j Q k", (1, 2, 3, 4, 5)),
    ("poker", "A,a,10,10,9", (6, 6, 2, 2, 1)),
    # faces typed together, as the console's keep reads them: a 10 is never a 1 and a 0
    ("poker", "kk109a", (5, 5, 2, 1, 6)),
    ("official", "55 216", (5, 5, 2, 1, 6)),
])
def test_dice_are_read_as_the_person_types_them(game: str, text: str,
                                                values: tuple[int, ...]) -> None:
    assert parse_dice(variant_of(game), text) == values


@pytest.mark.parametrize("game, text, message", [
    ("official", "5 5 2 1", "that is 4 dice; type all five, such as 5 5 2 1 6"),
    ("official", "5 5 2 1 6 6", "that is 6 dice; type all five, such as 5 5 2 1 6"),
    ("official", "", "that is 0 dice; type all five, such as 5 5 2 1 6"),
    ("official", "5 5 2 1 7", "'7' is not a die face (1 to 6); type the five dice, "
                              "such as 5 5 2 1 6"),
    ("official", "5 5 2 1 0", "'0' is not a die face (1 to 6); type the five dice, "
                              "such as 5 5 2 1 6"),
    ("poker", "5 5 2 1 6", "'5' is not a die face (9 10 J Q K A); type the five dice, "
                           "such as K K 10 9 A"),
    ("poker", "9 10 J Q", "that is 4 dice; type all five, such as K K 10 9 A"),
    # digits typed together are counted die by die, however many
    ("official", "5521", "that is 4 dice; type all five, such as 5 5 2 1 6"),
    ("official", "552166", "that is 6 dice; type all five, such as 5 5 2 1 6"),
    ("official", "55217", "'7' is not a die face (1 to 6); type the five dice, "
                          "such as 5 5 2 1 6"),
    # the piece named is where reading stopped, to the next blank, as typed
    ("poker", "KK1x 9 A", "'1x' is not a die face (9 10 J Q K A); type the five dice, "
                          "such as K K 10 9 A"),
])
def test_bad_dice_are_refused_in_one_line(game: str, text: str, message: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_dice(variant_of(game), text)
    assert str(refused.value) == message


@pytest.mark.parametrize("game, text, dice, message", [
    # only the faces the dice lack are named, as the console's keep names them
    ("official", "5 3", (5, 5, 2, 1, 6), "The dice do not show 3; type faces the dice show"),
    ("official", "555", (5, 5, 2, 1, 6), "The dice show 5 only twice; type faces the dice show"),
    ("official", "3 5 5 5", (5, 5, 2, 1, 6),
     "The dice do not show 3 and show 5 only twice; type faces the dice show"),
    ("official", "4 3 4", (5, 5, 2, 1, 6), "The dice do not show 4 3 4; type faces the dice show"),
    ("poker", "k k k Q", (5, 5, 2, 1, 6),
     "The dice do not show Q and show K only twice; type faces the dice show"),
])
def test_a_keep_of_faces_the_dice_lack_names_only_those(
        game: str, text: str, dice: tuple[int, ...], message: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_keep(variant_of(game), text, dice)
    assert str(refused.value) == message


@pytest.mark.parametrize("text, number", [
    ("13", 13), ("chance", 13), ("CHANCE", 13), ("three-of-a-kind", 7),
    ("Three of a Kind", 7), ("three_of_a_kind", 7), ("threes", 3), ("full", 9),
    ("lg", None), ("large", 11), ("yahtzee", 12), ("0", None), ("14", None), ("07", None),
    ("three", None), ("s", None), ("bonus", None),
])
def test_boxes_are_found_by_name_start_or_menu_number(text: str, number: int | None) -> None:
    variant = variant_of("official")
    if number is None:
        with pytest.raises(InputError):
            find_box(variant, text)
    else:
        assert find_box(variant, text) == number


def test_a_card_is_read_from_its_boxes_and_written_back_the_same_way() -> None:
    variant = variant_of("course")
    card = parse_card(variant, "ones=3, twos=,Fives=15,Three-of-a-kind=21,12=50,bonus=1,")
    assert variant.card_contents(card) == (
        (3, None, None, None, 15, None, 21, None, None, None, None, 50, None), 1)
    assert card_option(variant, card) == "ones=3,fives=15,three-of-a-kind=21,yahtzee=50,bonus=1"
    assert variant.card_contents(parse_card(variant, card_option(variant, card))) == (
        variant.card_contents(card))
    poker = variant_of("poker")
    assert poker.card_contents(parse_card(poker, "one-pair=22,9=50")) == (
        (22,) + (None,) * 7 + (50,), 0)


@pytest.mark.parametrize("game, text, message", [
    ("official", "fives=13", "impossible card: Fives cannot hold 13 points"),
    ("official", "fives", "'fives' in --card needs '=' and the points "
                          "(such as fives=15; fives= for an open box)"),
    ("official", "fives=x", "'x' in --card is not a whole number of points"),
    ("official", "fives=-5", "'-5' in --card is not a whole number of points"),
    ("official", "fives=15,5=20", "--card gives Fives twice"),
    ("official", "bonus=1", "impossible card: 1 Yahtzee bonuses are not possible on this card"),
    ("course", "yahtzee=50,bonus=4", "impossible card: 4 Yahtzee bonuses are not possible"),
    ("official", "full-house=30", "impossible card: Full House cannot hold 30 points"),
    ("poker", "bonus=1", "impossible card: a Poker Dice card has no Yahtzee bonus"),
])
def test_an_impossible_card_is_refused_in_one_line(game: str, text: str, message: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_card(variant_of(game), text)
    assert str(refused.value) == message


def test_opponents_totals_are_whole_numbers() -> None:
    assert parse_opponents("120, 95 7") == (120, 95, 7)
    for bad in ("12x", "-3", "10000", "1.5", "1" * 5000, "120,,95", "120,", ",95", "120, ,95"):
        with pytest.raises(InputError):
            parse_opponents(bad)
    with pytest.raises(InputError) as typed:  # at the prompt: the prompt's words
        parse_opponents("120,,95")
    assert str(typed.value) == ("'120,,95' has an empty total between commas; type the "
                                "opponents' totals, such as 120 95")
    with pytest.raises(InputError, match="not a whole number of points"):
        parse_card(variant_of("official"), "ones=" + "1" * 5000)
    with pytest.raises(InputError, match="there is no box"):
        find_box(variant_of("official"), "1" * 5000)


# -- the one-shot answer ------------------------------------------------------------


T = TypeVar("T")


def in_words(boxes: Mapping[Any, T], keeps: Mapping[tuple[int, ...], T],
             variant: Variant) -> dict[str, T]:
    """Return each box and each keep of fewer than five dice in words, with its figure."""
    named = {f"score {box}": figure for box, figure in boxes.items()}
    named.update({keep_text(Keep(keep, 5), variant): figure for keep, figure in keeps.items()
                  if len(keep) < 5})
    return named


def values_of(strategy: ValueStrategy, card: Card, dice: Sequence[int], roll: int,
              variant: Variant) -> dict[str, float]:
    """Return every move of the position in words, with the strategy's expected final score."""
    keeps = strategy.keep_values(card, dice, 3 - roll) if roll < 3 else {}
    return in_words(strategy.category_values(card, dice), keeps, variant)


def profiles_of(coach: Coach, card: Card, dice: Sequence[int], roll: int,
                variant: Variant) -> dict[str, Profile]:
    """Return every move of the position in words, with its outcome profile."""
    profiler = coach.profiler
    assert profiler is not None
    keeps = profiler.keeps(card, dice, 3 - roll) if roll < 3 else {}
    return in_words(profiler.boxes(card, dice), keeps, variant)


def best_move(strategy: ValueStrategy, card: Card, dice: Sequence[int], roll: int,
              variant: Variant) -> str:
    """Return the strategy's own move in words."""
    keep = strategy.keep(card, dice, 3 - roll) if roll < 3 else None
    if keep is None:
        return f"score {strategy.category(card, dice)}"
    return keep_text(Keep(keep, 5), variant)


@pytest.mark.parametrize("game, dice, roll, card", [
    ("official", "5 5 2 1 6", "1", None),
    ("official", "1 2 3 4 5", "2", "ones=3,twos=6,fives=15,yahtzee=50"),
    ("official", "6 6 6 6 6", "3", "sixes=18,yahtzee=50"),
    ("course", "3 3 3 3 3", "2", "yahtzee=50,bonus=1"),
    ("course", "2 3 4 4 6", "3", "chance=22,3=9,small-straight=30"),
    ("poker", "Q Q J 9 A", "1", None),
    ("poker", "K K K 10 10", "3", "full-house=100,one-pair=22"),
])
def test_the_json_answer_ranks_the_strategys_moves(
        game: str, dice: str, roll: str, card: str | None, strategies: dict[str, ValueStrategy],
        coaches: dict[str, Coach], data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    variant = variant_of(game)
    argv = ["advise", "--json", "--dice", dice, "--roll", roll, *GAME_OPTIONS[game]]
    if card is not None:
        argv += ["--card", card]
    status, out, err = run_cli(argv, "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    answer = json.loads(out)
    values = parse_dice(variant, dice)
    the_card = parse_card(variant, card or "")
    strategy = strategies[game]
    assert list(answer) == ["game", "rules", "roll", "dice", "options", "best"]
    assert (answer["game"], answer["rules"], answer["roll"], answer["best"]) == (
        variant.name, variant.rules_name, int(roll), 0)
    shown = [v if game != "poker" else variant.face_labels.index(v) + 1 for v in answer["dice"]]
    assert tuple(shown) == values
    options = answer["options"]
    assert 1 <= len(options) <= 3
    assert options[0]["move"] == best_move(strategy, the_card, values, int(roll), variant)
    everything = values_of(strategy, the_card, values, int(roll), variant)
    profiles = profiles_of(coaches[game], the_card, values, int(roll), variant)
    menu = {item.number: item for item in the_card.menu(Dice.of(values))}
    for option in options:
        assert list(option) == ["move", "keep", "box", "expected_final", "sd",
                                "upper_bonus_chance", "yahtzee_chance"]
        assert option["expected_final"] == round(everything[option["move"]], 6)
        profile = profiles[option["move"]]
        assert option["sd"] == round(profile.sd, 6)
        if game == "poker":
            assert option["upper_bonus_chance"] is option["yahtzee_chance"] is None
        else:
            assert profile.bonus is not None and profile.yahtzee is not None
            assert option["upper_bonus_chance"] == round(profile.bonus, 6)
            assert option["yahtzee_chance"] == round(profile.yahtzee, 6)
        if option["box"] is None:
            assert int(roll) < 3 and option["move"].startswith(("keep", "roll all"))
            kept = option["keep"] if game != "poker" else [
                variant.face_labels.index(v) + 1 for v in option["keep"]]
            assert kept == sorted(kept) and len(kept) < 5
        else:
            item = menu[option["box"]["number"]]
            assert (option["keep"], option["box"]) == (
                None, {"number": item.number, "name": item.name,
                       "points": item.points - item.bonus, "yahtzee_bonus": item.bonus})
            assert option["move"] == f"score {item.name}"
    rest = sorted((v for m, v in everything.items() if m != options[0]["move"]), reverse=True)
    assert [o["expected_final"] for o in options[1:]] == [round(v, 6) for v in rest[:2]]


@pytest.mark.parametrize("rules, dice, box", [
    # official rules: the box's own 30 points, the 100-point bonus earned besides told apart
    ("official", "6 6 6 6 6", {"number": 6, "name": "Sixes", "points": 30,
                               "yahtzee_bonus": 100}),
    # course rules: the bonus is the whole turn, filling no box: the Yahtzee line's points
    ("course", "3 3 3 3 3", {"number": 12, "name": "Yahtzee", "points": 100,
                             "yahtzee_bonus": 0}),
])
def test_the_json_answer_gives_a_yahtzee_bonus_apart_from_the_boxs_points(
        rules: str, dice: str, box: dict[str, Any], strategies: dict[str, ValueStrategy],
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """As the text says ``score Sixes, 30 points`` and the 100-point bonus in a line apart."""
    argv = ["--rules", rules, "--card", "yahtzee=50"]
    status, out, err = run_cli(["advise", "--json", "--dice", dice, "--roll", "3", *argv], "",
                               monkeypatch, capsys)
    assert (status, err) == (0, "")
    best = json.loads(out)["options"][0]
    assert (best["move"], best["box"]) == (f"score {box['name']}", box)
    _, text, _ = session(argv, [dice], monkeypatch, capsys)
    assert f"1. score {box['name']}, {box['points']} points  " in text
    assert ("these dice also earn a 100-point Yahtzee bonus" in text) == bool(
        box["yahtzee_bonus"])


def test_the_json_answer_names_the_opponents_and_each_moves_chance_to_beat_them(
        coaches: dict[str, Coach], data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Their totals are taken as final: the chance that the move's final score is the highest."""
    card = "ones=3,fives=15,sixes=24,three-of-a-kind=25,full-house=25,yahtzee=50"
    status, out, err = run_cli(["advise", "--json", "--dice", "6 6 5 2 1", "--roll", "2",
                                "--rules", "official", "--card", card, "--opponents", "290,250"],
                               "", monkeypatch, capsys)
    assert (status, err) == (0, "")
    answer = json.loads(out)
    assert answer["opponents"] == [290, 250]
    variant = variant_of("official")
    moves = ranked_moves(coaches["official"], parse_card(variant, card), [6, 6, 5, 2, 1], 2,
                         opponents=(290, 250))
    chances = [o["win_chance"] for o in answer["options"]]
    assert chances == [round(m.win_chance or 0.0, 6) for m in moves]
    assert all(0.05 < chance < 0.95 for chance in chances)


FULL = ("ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,7=20,8=20,9=25,10=30,11=40,"
        "12=50,13=20")


@pytest.mark.parametrize("argv, message", [
    (["--dice", "5 5 2 1"], "that is 4 dice; type all five, such as 5 5 2 1 6"),
    (["--dice", "5 5 2 1 9"], "'9' is not a die face (1 to 6); type the five dice, "
                              "such as 5 5 2 1 6"),
    (["--dice", "1 2 3 4 5", "--game", "poker-dice"],
     "'1' is not a die face (9 10 J Q K A); type the five dice, such as K K 10 9 A"),
    (["--dice", "5 5 2 1 6", "--roll", "4"], "--roll '4' is not a roll number: 1, 2 or 3"),
    (["--dice", "5 5 2 1 6", "--roll", "first"],
     "--roll 'first' is not a roll number: 1, 2 or 3"),
    (["--dice", "5 5 2 1 6", "--card", "sixes=7"], "impossible card: Sixes cannot hold 7 points"),
    (["--dice", "5 5 2 1 6", "--card", FULL], "the card is full: every turn has been played"),
    (["--dice", "5 5 2 1 6", "--rules", "course", "--card", FULL.replace(",13=20", ",bonus=1")],
     "the card is full: every turn has been played"),
    (["--dice", "5 5 2 1 6", "--opponents", "lots"],
     "--opponents 'lots' is not a total (a whole number from 0 to 9999); write them as in "
     "--opponents 120,95"),
    (["--roll", "2"], "--json answers one roll: give it with --dice \"5 5 2 1 6\""),
    (["--dice", "5 5 2 1 6", "--game", "poker-dice", "--rules", "official"],
     "--rules chooses Yahtzee rules; Poker Dice has one rule set"),
])
def test_a_bad_one_shot_question_gets_one_message_and_status_2(
        argv: list[str], message: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(["advise", "--json", *argv], "", monkeypatch, capsys)
    assert (status, out, message_of(err)) == (2, "", f"yahtzee: {message}")


@pytest.mark.parametrize("totals, message", [
    ("120,,95", "--opponents '120,,95' has an empty total between commas; write them as in "
                "--opponents 120,95"),
    ("120,", "--opponents '120,' has an empty total between commas; write them as in "
             "--opponents 120,95"),
    ("", "--opponents '' gives no total; write them as in --opponents 120,95"),
    ("-5", "--opponents '-5' is not a total (a whole number from 0 to 9999); write them as in "
           "--opponents 120,95"),
])
def test_the_opponents_option_is_refused_in_the_command_lines_words(
        totals: str, message: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--opponents", totals],
                 ["--json", "--dice", "5 5 2 1 6", f"--opponents={totals}"]):
        status, out, err = run_cli(["advise", *argv], "5 5 2 1 6\n", monkeypatch, capsys)
        assert (status, out, message_of(err)) == (2, "", f"yahtzee: {message}")
        assert all(len(line) <= 80 for line in err.splitlines())


def test_dice_without_json_are_refused(data: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(["advise", "--dice", "5 5 2 1 6"], "", monkeypatch, capsys)
    assert (status, out) == (2, "")
    assert err == "yahtzee: --dice and --roll are for the one-shot answer: add --json\n"


# -- the interactive companion --------------------------------------------------------


def advice_blocks(out: str) -> list[list[tuple[str, float]]]:
    """Return each piece of advice printed: its moves in words with their expected scores."""
    blocks: list[list[tuple[str, float]]] = []
    previous = 0
    for line in out.splitlines():
        match = MOVE_LINE.match(line)
        if match is None:
            previous = 0
            continue
        rank, text, value = int(match.group(1)), match.group(2), float(match.group(3))
        if rank == 1 or rank != previous + 1:
            blocks.append([])
        blocks[-1].append((re.sub(r", \d+ points?$", "", text), value))
        previous = rank
    return blocks


def filled_rows(variant: Variant, card: Card) -> list[str]:
    """Return the lines the session shows after a scoring: the filled boxes and the total."""
    scores, _ = variant.card_contents(card)
    lines = [f"{label:>15}: {value}"
             for (label, value), points in zip(card.rows(), scores) if points is not None]
    return lines + [f"{'Total':>15}: {card.score()}"]


def script_game(game: str, strategy: ValueStrategy, seed: int) -> tuple[list[str], list[Any]]:
    """Return the lines of a whole game with random dice, and what each piece of advice must be.

    The person keeps as the strategy says and takes its box, except every
    fourth round, where they score at once in the first open box of the menu.
    Each expected piece of advice is (its best move in words, its expected
    score); each scoring is (the card after it).
    """
    variant = variant_of(game)
    rng = random.Random(seed)
    card = variant.new_card()
    lines: list[str] = []
    expected: list[Any] = []
    for round_ in range(1, variant.rounds + 1):
        dice = [rng.randint(1, 6) for _ in range(5)]
        roll = 1
        while True:
            lines.append(" ".join(variant.face(v) for v in dice))
            keep = strategy.keep(card, dice, 3 - roll) if roll < 3 else None
            if round_ % 4 == 0:
                number = card.menu(Dice.of(dice))[0].number
                lines.append(f"score {number}")
                advised = best_move(strategy, card, dice, roll, variant)
                expected.append(("advice", advised))
                break
            if keep is None:
                box = strategy.category(card, dice)
                expected.append(("advice", f"score {box}"))
                number = box.number
                lines.append("")
                break
            expected.append(("advice", keep_text(Keep(keep, 5), variant)))
            dice = list(keep) + [rng.randint(1, 6) for _ in range(5 - len(keep))]
            rng.shuffle(dice)
            roll += 1
        card.choose_number(number, Dice.of(dice))
        expected.append(("card", filled_rows(variant, card), card.score()))
    return lines, expected


@pytest.mark.parametrize("game, seed", [("official", 1), ("course", 2), ("poker", 3)])
def test_a_whole_game_gets_the_strategys_advice_and_keeps_the_card(
        game: str, seed: int, strategies: dict[str, ValueStrategy], data: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    variant = variant_of(game)
    strategy = strategies[game]
    lines, expected = script_game(game, strategy, seed)
    status, out, err = run_cli(["advise", *GAME_OPTIONS[game]], "\n".join(lines) + "\n",
                               monkeypatch, capsys)
    assert (status, err) == (0, "")
    blocks = advice_blocks(out)
    advice = [e[1] for e in expected if e[0] == "advice"]
    assert len(blocks) == len(advice)
    for block, move in zip(blocks, advice):
        shown = block[0][0]
        assert shown == move, block
        others = [value for _, value in block[1:]]
        assert others == sorted(others, reverse=True)
        assert all(block[0][1] + 0.005 >= value for value in others)
    cards = [e for e in expected if e[0] == "card"]
    position = 0
    for _, rows, _ in cards:
        position = out.index("\n".join(rows), position)
    final = cards[-1][2]
    start = strategy.expected_final(variant.new_card())
    assert out.splitlines()[-1] == (
        f"Game over: {final} points. Optimal play expects {start:.2f} from an empty card "
        f"({final - start:+.2f}).")


def session(argv: Sequence[str], lines: Sequence[str], monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``advise`` with ``argv`` fed ``lines``."""
    return run_cli(["advise", *argv], "".join(line + "\n" for line in lines), monkeypatch, capsys)


def test_advice_shows_the_expected_scores_of_the_best_three_moves(
        strategies: dict[str, ValueStrategy], data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    strategy = strategies["official"]
    card = variant_of("official").new_card()
    status, out, _ = session(["--rules", "official"], ["5 5 2 1 6"], monkeypatch, capsys)
    values = values_of(strategy, card, [5, 5, 2, 1, 6], 1, variant_of("official"))
    top = sorted(values.items(), key=lambda item: -item[1])[:3]
    assert advice_blocks(out) == [[(move, round(value, 2)) for move, value in top]]
    assert top[0][0] == best_move(strategy, card, [5, 5, 2, 1, 6], 1, variant_of("official"))
    assert "1st roll: 5 5 2 1 6 - best moves, and where each leads:" in out
    lines = out.splitlines()
    title = next(n for n, line in enumerate(lines) if line.endswith("where each leads:"))
    assert lines[title + 1].split() == ["expected", "±", "sd", "bonus", "Yahtzee"]
    assert out.splitlines()[-1] == "Stopped."


def test_bad_lines_change_nothing(strategies: dict[str, ValueStrategy], data: Path,
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    plain = ["5 5 2 1 6", "5 5 5 3 2", "5 5 5 5 1", "fives", "1 2 3 4 5", "score"]
    noisy = ["", "5 5 2", "7 7 7 7 7", "chance", "5 5 2 1 6", "", "5 5 5 3 2", "sixteen",
             "score 14", "undo", "help", "5 5 5 5 1", "1 1 1 1 1", "\x1b[2J", "fives", "1 2 3 4 5",
             "fives", "score"]
    _, clean, _ = session(["--rules", "official"], plain, monkeypatch, capsys)
    status, out, err = session(["--rules", "official"], noisy, monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert advice_blocks(out) == advice_blocks(clean)
    assert out.splitlines()[-1] == clean.splitlines()[-1] == (
        "Stopped. To go on with this card: python -m yahtzee advise --rules official "
        "--card fives=20,large-straight=40")
    for message in [
        "Type the five dice you rolled, such as 5 5 2 1 6 ('help' lists the commands)",
        "that is 3 dice; type all five, such as 5 5 2 1 6",
        "'7' is not a die face (1 to 6); type the five dice, such as 5 5 2 1 6",
        "'chance' is not a die face (1 to 6); type the five dice, such as 5 5 2 1 6",
        "The advice is to roll again: type your 2nd roll's dice, or the box you score",
        "'sixteen' is not a box; the boxes are 1 Ones, 2 Twos,",
        "there is no box 14: the boxes are numbered 1 to 13",
        "There is nothing to take back",
        "That was the last roll: type the box you score",
        "'\\x1b[2J' is not a box",
        "Fives is already scored; pick an open box",
        "  undo              take back the last box you scored",
    ]:
        assert message in out
    assert "\x1b" not in out


def test_undo_and_back_take_steps_back(strategies: dict[str, ValueStrategy], data: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = session(["--rules", "official"],
                             ["1 2 3 4 5", "chance", "6 6 6 1 2", "undo", "card", "",
                              "6 6 6 1 2", "back", "back", "back", "5 5 5 5 5", "score 12"],
                             monkeypatch, capsys)
    assert status == 0
    lines = out.splitlines()
    assert "You scored 15 points in Chance." in out
    took = [line.split(": ")[-1] for line in lines if "Took back" in line]
    assert took == ["Took back 15 points in Chance; back to round 1.",
                    "Took back those dice; type the turn's first roll again.",
                    "Took back 40 points in Large Straight; back to round 1.",
                    "Took back those dice; type the turn's first roll again."]
    card_rows = lines[lines.index(next(line for line in lines if line.endswith("Ones: -"))):]
    assert "         Chance: -" in card_rows[:17]
    assert "          Total: 0" in card_rows[:17]
    assert "You scored 40 points in Large Straight." in out
    assert out.splitlines()[-1] == (
        "Stopped. To go on with this card: python -m yahtzee advise --rules official "
        "--card yahtzee=50")


def test_a_yahtzee_bonus_is_told_apart_from_the_points_of_the_box(
        strategies: dict[str, ValueStrategy], data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # 6 6 6 6 6 with 50 in Yahtzee (official rules): it read "score Sixes, 130 points"
    status, out, _ = session(["--rules", "official", "--card", "yahtzee=50"],
                             ["6 6 6 6 6", "sixes", "undo"], monkeypatch, capsys)
    assert status == 0
    lines = out.splitlines()
    moves = [line for line in lines if MOVE_LINE.match(line)]
    assert [move.split("  ")[1] for move in moves] == [
        "1. score Sixes, 30 points", "2. keep 6 6 6 6 and roll", "3. keep 6 6 6 and roll"] * 2
    note = "  Scored in any box, these dice also earn a 100-point Yahtzee bonus."
    assert [lines[lines.index(move) + 1] for move in moves[2::3]] == [note, note]
    assert "130" not in out
    assert "You scored 30 points in Sixes and a 100-point Yahtzee bonus." in out
    assert "Took back 30 points in Sixes and a 100-point Yahtzee bonus; back to round 2." in out


def test_a_poker_dice_session_reads_faces_and_takes_the_opponents_totals(
        strategies: dict[str, ValueStrategy], data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = session(["--game", "poker-dice", "--opponents", "120"],
                             ["q q j 9 a", "opponents", "opponent 130 95", "Q Q Q K K", "",
                              "opponents none", "quit"], monkeypatch, capsys)
    assert status == 0
    strategy = strategies["poker"]
    card = variant_of("poker").new_card()
    keep = strategy.keep(card, [4, 4, 3, 1, 6], 2)
    assert keep is not None
    assert advice_blocks(out)[0][0][0] == keep_text(Keep(keep, 5), variant_of("poker"))
    assert advice_blocks(out)[0][0][0] == "keep Q Q and roll"
    assert out.count("Opponents' totals: 120 (taken as their final scores).") == 2
    assert "Opponents' totals: 130, 95 (taken as their final scores)." in out
    assert "No opponents' totals noted (type opponents 120 95 to note them)." in out
    assert "You scored 100 points in Full House." in out
    headers = [line.split() for line in out.splitlines() if line.strip().startswith("expected")]
    assert headers == [["expected", "±", "sd", "win"]] * 3
    chances = [line.split()[-1] for line in out.splitlines() if MOVE_LINE.match(line)]
    assert len(chances) == 9
    assert all(re.fullmatch(r"[<>]?\d{1,3}%", chance) for chance in chances), chances
    assert out.endswith("Round 2 of 9, 1st roll - your dice: Stopped. To go on with this card: "
                        "python -m yahtzee advise --game poker-dice --card full-house=100\n")


class Interrupted:
    """An input that has the lines given, then is interrupted (Ctrl-C)."""

    def __init__(self, text: str) -> None:
        """Hold the lines of ``text``."""
        self.lines = io.StringIO(text)

    def readline(self) -> str:
        """Return the next line, or raise ``KeyboardInterrupt`` at the end."""
        line = self.lines.readline()
        if not line:
            raise KeyboardInterrupt
        return line


def test_ctrl_c_and_ctrl_d_stop_cleanly(strategies: dict[str, ValueStrategy], data: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = session(["--rules", "course"], ["2 2 2 3 3", "score 9"], monkeypatch,
                               capsys)
    assert (status, err) == (0, "")
    assert out.endswith("Round 2 of 13, 1st roll - your dice: \nStopped. To go on with this "
                        "card: python -m yahtzee advise --rules course --card full-house=25\n")
    monkeypatch.setattr(sys, "stdin", Interrupted("5 5 2 1 6\n"))
    status = main(["advise"])
    captured = capsys.readouterr()
    assert (status, captured.err) == (130, "")
    assert captured.out.endswith("your dice, or the box you score: \nStopped.\n")


def test_a_keep_typed_as_faces_lets_the_next_line_give_only_the_dice_rolled(
        strategies: dict[str, ValueStrategy], data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    plain = ["5 5 2 1 6", "2 5 5 5 3"]
    kept = ["5 5 2 1 6", "keep 3", "keep 5 5 5", "keep 7", "keep 552", "3 5 2", "5 3"]
    _, clean, _ = session(["--rules", "official"], plain, monkeypatch, capsys)
    status, out, err = session(["--rules", "official"], kept, monkeypatch, capsys)
    assert (status, err) == (0, "")
    assert len(advice_blocks(clean)) == 2 and advice_blocks(out) == advice_blocks(clean)
    assert "The dice do not show 3; type faces the dice show\n" in out
    assert "The dice show 5 only twice; type faces the dice show\n" in out
    assert "'7' is not a die face (1 to 6); type the faces you keep, such as keep 1 2" in out
    assert "Kept 2 5 5: type the 2 dice you roll" in out
    assert "2nd roll - the 2 dice you rolled, or the box you score: that is 3 dice" in out
    assert "that is 3 dice; type the 2 you rolled" in out
    assert "2nd roll: 2 5 5 5 3" in out


@pytest.mark.parametrize("game, words, absent", [
    ("official", ['"score 13", "chance"', "keep 5 5 6", "upper bonus and of a Yahtzee"], []),
    ("poker", ['"score 9", "chance"', "keep K K A", "standard deviation, and"],
     ["upper bonus", "Yahtzee", "3 3 6"]),
])
def test_help_speaks_of_the_game_played_in_80_columns(game: str, words: list[str],
                                                      absent: list[str]) -> None:
    text = help_text(variant_of(game))
    flat = " ".join(text.split())
    assert all(word in flat for word in words)
    assert not any(word in flat for word in absent)
    assert max(len(line) for line in text.splitlines()) <= 80
