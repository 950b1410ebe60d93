"""The engine alone, driven as a front end drives it: prompt, apply a move, outcome; no I/O.

The dice are checked against an independent ``random.Random`` with the same
seed, so every roll the engine reports is known in advance.
"""

from __future__ import annotations

import copy
import random
import sys
from array import array
from dataclasses import dataclass, replace

import pytest

from tests.oracle import ScriptedRandom
from yahtzee.domain.card import Card, JokerBar, Variant
from yahtzee.domain.die import Die
from yahtzee.domain.games import POKER_DICE, yahtzee_variant
from yahtzee.domain.rules import COURSE, OFFICIAL, Rules
from yahtzee.domain.score_card import ScoreCard
from yahtzee.engine.engine import (Engine, FirstRoll, GameOver, GameRandom, Outcome, Phase,
                                   Refusal, Rolled, Scored, ScoringStarted, Toggled,
                                   TurnOver)
from yahtzee.engine.moves import Move, Notation, parse_box, parse_die_command
from yahtzee.engine.records import (Decision, RngState, TurnSummary, getstate_of, rng_state,
                                    turn_summaries)

VARIANT = yahtzee_variant(COURSE)


@dataclass
class Seat:
    """A seat as the engine sees it: a name, a card, a kind."""

    name: str
    card: Card
    kind_name: str = "human"


@dataclass
class Observer:
    """Counts the engine's notices, as autosave would receive them."""

    changes: int = 0
    ends: int = 0

    def changed(self, engine: Engine) -> None:
        """Count a change."""
        self.changes += 1

    def finished(self, engine: Engine) -> None:
        """Count the end of the game."""
        self.ends += 1


def where(engine: Engine) -> tuple[object, ...]:
    """Return what a front end sees of the engine, the card by its rows."""
    prompt = engine.prompt()
    view = prompt.view
    return (prompt.phase, view.round, view.seat, view.dice, view.saved, view.rolls_left,
            view.card.rows(), prompt.menu)


def seats(count: int = 2, variant: Variant = VARIANT) -> list[Seat]:
    """Return ``count`` seats with empty cards of the variant."""
    return [Seat(f"P{n}", variant.new_card()) for n in range(1, count + 1)]


def submit(engine: Engine, text: str) -> Outcome:
    """Apply the move ``text`` names, parsed as the console parses it (it must name one)."""
    scoring = engine.prompt().phase is Phase.SCORING
    move = parse_box(text) if scoring else parse_die_command(text)
    assert move is not None, f"{text!r} names no move"
    return engine.apply(move)


def rolls(seed: int, count: int) -> list[int]:
    """Return the first ``count`` die values an independent generator seeded ``seed`` draws."""
    generator = random.Random(seed)
    return [generator.randint(1, 6) for _ in range(count)]


def test_a_new_game_throws_the_first_roll_for_seat_0_and_prompts_roll_nothing() -> None:
    observer = Observer()
    engine = Engine(VARIANT, seats(), seed=4, observers=[observer])
    assert observer.changes == 1
    prompt = engine.prompt()
    assert prompt.phase is Phase.ROLLING and prompt.seat == 0
    assert list(prompt.view.dice) == rolls(4, 5)
    assert prompt.view.saved == (False,) * 5 and prompt.view.rolls_left == 2
    assert prompt.view.round == 1 and prompt.menu == ()
    record = engine.record()
    assert engine.prompt() == prompt and engine.record() == record  # the generator's state too
    assert observer.changes == 1  # asking rolls nothing and tells nobody


def test_toggles_and_rolls_report_exactly_what_changed() -> None:
    engine = Engine(VARIANT, seats(), seed=4)
    first = rolls(4, 13)
    engine.prompt()
    outcome = submit(engine, " 2 ")
    assert outcome.accepted and outcome.move == Move.toggle(2)
    assert outcome.events == (Toggled(2, True),)
    outcome = submit(engine, "ROLL")
    expected = [first[5], first[1], *first[6:9]]  # die 2 is saved
    assert outcome.events == (Rolled(tuple(expected), 1),)
    outcome = submit(engine, "roll")
    expected = [first[9], first[1], *first[10:13]]
    assert outcome.events == (Rolled(tuple(expected), 0), ScoringStarted(out_of_rolls=True))
    prompt = engine.prompt()
    assert prompt.phase is Phase.SCORING and list(prompt.view.dice) == expected
    assert [item.number for item in prompt.menu] == list(range(1, 14))
    assert [d.command for d in engine.log] == ["2", "roll", "roll"]


@pytest.mark.parametrize("junk", ["", "0", "6", "01", "rol", "roll score", "７", "13", "+1"])
def test_a_line_naming_no_die_move_parses_to_nothing(junk: str) -> None:
    assert parse_die_command(junk) is None


@pytest.mark.parametrize("junk", ["", "0", "abc", "1.5", "roll", "1000", "01", "013",
                                  "+1", "\u0661", "\uff11\uff13"])
def test_a_line_naming_no_box_parses_to_nothing(junk: str) -> None:
    assert parse_box(junk) is None


@pytest.mark.parametrize(("text", "move"), [(" Roll ", Move.roll()), ("SCORE", Move.score()),
                                            ("5", Move.toggle(5)), ("12", Move.box(12))])
def test_lines_parse_to_typed_moves_whose_text_reads_back(text: str, move: Move) -> None:
    parsed = parse_box(text) if move.chooses_box else parse_die_command(text)
    assert parsed == move and (parse_box(str(move)) if move.chooses_box
                               else parse_die_command(str(move))) == move


def test_the_faces_notation_reads_a_keep_sorted() -> None:
    assert parse_die_command("636", Notation.FACES) == Move.keep([3, 6, 6])
    assert str(Move.keep([6, 3, 6])) == "366"
    assert parse_die_command("3", Notation.FACES) == Move.keep([3])
    assert parse_die_command("roll", Notation.FACES) == Move.roll()
    assert parse_die_command(" None ", Notation.FACES) == Move.keep([])  # all five roll
    assert parse_die_command("none") is None   # the positions notation unsaves die by die
    assert parse_die_command("123456", Notation.FACES) is None
    assert parse_die_command("30", Notation.FACES) is None


@pytest.mark.parametrize("move", [Move.toggle(0), Move.toggle(6)])
def test_a_die_the_turn_has_not_is_refused_and_changes_nothing(move: Move) -> None:
    engine = Engine(VARIANT, seats(), seed=1)
    before = engine.prompt()
    outcome = engine.apply(move)
    assert not outcome.accepted and outcome.refusal is Refusal.NOT_A_DIE_COMMAND
    assert outcome.move == move and outcome.events == ()
    assert engine.prompt() == before and engine.log == []


@pytest.mark.parametrize("number", [0, 14, 99])
def test_a_box_not_on_the_menu_is_refused_and_changes_nothing(number: int) -> None:
    engine = Engine(VARIANT, seats(), seed=1)
    engine.apply(Move.score())
    before = engine.prompt()
    outcome = engine.apply(Move.box(number))
    assert outcome.refusal is Refusal.NOT_ON_MENU
    assert engine.prompt() == before and len(engine.log) == 1


def test_a_move_of_the_other_phase_is_refused_and_changes_nothing() -> None:
    engine = Engine(VARIANT, seats(), seed=1)
    before = engine.prompt()
    assert engine.apply(Move.box(13)).refusal is Refusal.WRONG_PHASE
    assert engine.prompt() == before and engine.log == []
    engine.apply(Move.score())
    choosing = engine.prompt()
    for move in (Move.roll(), Move.toggle(1), Move.score(), Move.keep([1])):
        assert engine.apply(move).refusal is Refusal.WRONG_PHASE
    assert engine.prompt() == choosing and len(engine.log) == 1


def test_the_legal_moves_are_what_the_engine_accepts() -> None:
    """At every point of a seeded game played at random, each move of the notation (a die's
    toggle, roll, score, any box) is accepted by a copy of the game exactly when it is listed;
    a game where every die got saved is among them."""
    chooser = random.Random(6)
    players = seats(2)
    engine = Engine(VARIANT, players, seed=4)
    candidates = ([Move.toggle(n) for n in range(0, 7)] + [Move.roll(), Move.score()]
                  + [Move.box(n) for n in range(0, 15)])
    all_saved = 0
    while not engine.is_over():
        legal = engine.legal_moves()
        turn = engine.record().turn
        all_saved += turn is not None and all(turn.saved) and not turn.choosing
        for move in candidates:
            copies = [Seat(p.name, VARIANT.restore_card(*VARIANT.card_contents(p.card)))
                      for p in players]
            copy = Engine.restore(engine.record(), VARIANT, copies)
            assert copy.apply(move).accepted == (move in legal), (move, legal)
        if turn is not None and not turn.choosing and chooser.random() < 0.3:
            for die, saved in enumerate(turn.saved, start=1):  # save every die, now and then
                if not saved:
                    engine.apply(Move.toggle(die))
            continue
        assert engine.apply(chooser.choice(legal)).accepted
    assert all_saved > 0
    assert engine.legal_moves() == []
    assert not engine.apply(Move.roll()).accepted


def test_a_keep_of_faces_saves_those_dice_and_rolls_the_others() -> None:
    engine = Engine(VARIANT, seats(), seed=4)
    first = rolls(4, 10)
    dice = tuple(first[:5])
    faces = sorted(dice)[:2]
    outcome = engine.apply(Move.keep(faces))
    assert outcome.accepted
    flags = [False] * 5
    wanted = list(faces)
    for i, value in enumerate(dice):
        if value in wanted:
            flags[i] = True
            wanted.remove(value)
    rolled = iter(first[5:8])
    expected = tuple(v if flag else next(rolled) for v, flag in zip(dice, flags))
    toggles = [Toggled(i + 1, True) for i, flag in enumerate(flags) if flag]
    assert outcome.events == (*toggles, Rolled(expected, 1))
    assert [d.command for d in engine.log] == [str(t.die) for t in toggles] + ["roll"]


def test_a_keep_of_faces_not_shown_or_of_every_die_is_refused() -> None:
    engine = Engine(VARIANT, seats(), seed=4)
    dice = engine.prompt().view.dice
    missing = next(face for face in range(1, 7) if face not in dice)
    before = engine.prompt()
    assert engine.apply(Move.keep([missing])).refusal is Refusal.NOT_SHOWN
    assert engine.apply(Move.keep(dice)).refusal is Refusal.ALL_SAVED
    # five faces of which one is not shown: that is what is wrong, not a keep of every die
    assert engine.apply(Move.keep([*dice[:4], missing])).refusal is Refusal.NOT_SHOWN
    assert engine.apply(Move.keep([*dice, dice[0]])).refusal is Refusal.NOT_SHOWN
    assert engine.prompt() == before and engine.log == []


def test_roll_with_all_five_dice_saved_is_refused_and_changes_nothing() -> None:
    engine = Engine(VARIANT, seats(), seed=4)
    for die in "12345":
        submit(engine, die)
    before = engine.prompt()
    outcome = submit(engine, " Roll ")
    assert outcome.refusal is Refusal.ALL_SAVED and outcome.events == ()
    assert engine.prompt() == before and len(engine.log) == 5
    submit(engine, "3")
    assert submit(engine, "roll").accepted and engine.prompt().view.rolls_left == 1


def _yahtzee_of_sixes(scores: list[int | None]) -> Engine:
    """Return an official-rules engine, its card holding ``scores``, scoring five 6s."""
    card = ScoreCard.restore(OFFICIAL, scores, 0)
    engine = Engine(yahtzee_variant(OFFICIAL), [Seat("P1", card)], rng=ScriptedRandom([6] * 5))
    engine.prompt()
    submit(engine, "score")
    return engine


def test_an_open_box_the_forced_joker_forbids_is_refused_with_the_box_it_requires() -> None:
    scores: list[int | None] = [None] * 13
    scores[11] = 50
    engine = _yahtzee_of_sixes(scores)
    before = engine.prompt()
    assert [item.number for item in before.menu] == [6]
    outcome = submit(engine, "13")
    assert outcome.refusal is Refusal.JOKER and outcome.joker == JokerBar("Sixes")
    assert engine.prompt() == before
    filled = submit(engine, "12")
    assert filled.refusal is Refusal.NOT_ON_MENU and filled.joker is None


def test_with_its_upper_box_filled_the_joker_requires_a_lower_box() -> None:
    scores: list[int | None] = [None] * 13
    scores[11], scores[5] = 0, 24
    engine = _yahtzee_of_sixes(scores)
    outcome = submit(engine, "1")
    assert outcome.refusal is Refusal.JOKER and outcome.joker == JokerBar(None)
    assert submit(engine, "6").refusal is Refusal.NOT_ON_MENU
    assert submit(engine, "7").accepted


def test_the_course_rules_have_no_joker_refusal() -> None:
    scores: list[int | None] = [None] * 13
    scores[11] = 0
    card = ScoreCard.restore(COURSE, scores, 0)
    engine = Engine(VARIANT, [Seat("P1", card)], rng=ScriptedRandom([6] * 5))
    engine.prompt()
    submit(engine, "score")
    assert submit(engine, "1").accepted


def test_scoring_fills_the_box_logs_it_and_passes_the_dice() -> None:
    players = seats()
    engine = Engine(VARIANT, players, seed=4)
    dice = tuple(rolls(4, 5))
    engine.prompt()
    submit(engine, "score")
    outcome = submit(engine, "13")
    item = outcome.events[0]
    assert isinstance(item, Scored) and item.seat == 0
    assert (item.item.number, item.item.name, item.item.points) == (13, "Chance", sum(dice))
    second = rolls(4, 10)[5:]  # the next turn's first roll is thrown as the box is scored
    assert outcome.events[1:] == (TurnOver(seat=1, round=1), FirstRoll(1, tuple(second)))
    assert players[0].card.score() == sum(dice)
    assert engine.log[-1] == Decision(1, 0, dice, (False,) * 5, 2, "13", sum(dice), "Chance")
    assert engine.prompt().seat == 1 and engine.scoring_dice(0) == {
        "Chance": "[" + " ".join(map(str, dice)) + "]"}


def test_a_whole_game_ends_once_with_the_winners_and_refuses_more() -> None:
    observer = Observer()
    players = seats(2)
    engine = Engine(VARIANT, players, seed=9, observers=[observer])
    last = None
    for _ in range(13 * 2):
        prompt = engine.prompt()
        submit(engine, "score")
        number = engine.prompt().menu[0].number
        last = submit(engine, str(number))
    assert last is not None and engine.is_over()
    totals = [p.card.score() for p in players]
    best = max(totals)
    winners = tuple(seat for seat, total in enumerate(totals) if total == best)
    assert last.events[-1] == GameOver(winners)
    assert observer.ends == 1
    assert engine.prompt().phase is Phase.OVER
    assert submit(engine, "roll").refusal is Refusal.GAME_OVER
    # a change at the first roll, then after every score command and every box
    assert observer.changes == 1 + 26 * 2
    assert prompt.view.round == 13


def test_a_record_restores_the_game_exactly_where_it_stood() -> None:
    players = seats(2)
    engine = Engine(VARIANT, players, seed=21)
    engine.prompt()
    for command in ("1", "roll", "score", "13", "3"):
        submit(engine, command)
        engine.prompt()
    record = engine.record()
    copies = [Seat(p.name, VARIANT.restore_card(*VARIANT.card_contents(p.card))) for p in players]
    restored = Engine.restore(record, VARIANT, copies)
    assert where(restored) == where(engine)
    shared = Die.r.getstate()
    for command in ("roll", "roll", "12"):
        assert submit(restored, command) == submit(engine, command)  # each game its own dice
    assert restored.record() == engine.record() and where(restored) == where(engine)
    assert Die.r.getstate() == shared  # no game draws from the UML's shared generator


def test_the_game_s_generator_draws_as_random_does_and_marks_every_change() -> None:
    game, plain = GameRandom(8), random.Random(8)

    def draws(rng: random.Random) -> list[object]:
        return [rng.randint(1, 6) for _ in range(50)] + [rng.random(), rng.choice("abcdef")]

    assert draws(game) == draws(plain)
    assert game.getstate() == plain.getstate()
    before = game.changes
    game.getstate()
    assert game.changes == before  # looking at the state changes nothing
    game.gauss()
    first = game.changes
    game.gauss()  # the second of a pair draws nothing, but uses up the number kept ...
    assert game.changes != first  # ... which is part of the state
    game.setstate(plain.getstate())
    twin = copy.deepcopy(game)
    assert twin.getstate() == game.getstate()
    assert len({before, first, game.changes, twin.changes}) == 4  # never the same mark twice


def test_a_record_reuses_the_generator_s_state_until_a_die_is_drawn() -> None:
    engine = Engine(VARIANT, seats(1), seed=5)
    first = engine.record()
    submit(engine, "2")  # a toggle draws nothing
    toggled = engine.record()
    assert toggled.rng is first.rng and toggled.log != first.log
    submit(engine, "roll")
    rolled = engine.record()
    assert rolled.rng is not first.rng and rolled.rng != first.rng
    assert rolled.rng == state_of(engine.rng)
    restored = Engine.restore(rolled, VARIANT, [Seat("P1", VARIANT.restore_card(
        *VARIANT.card_contents(engine.seats[0].card)))])
    restored.record()
    submit(restored, "roll")  # drawn, not recorded yet
    twin = copy.deepcopy(restored)  # its generator a copy, its last record the original's
    assert twin.record().rng == restored.record().rng == state_of(restored.rng)
    plain = random.Random()  # a generator given by the caller is read every time
    other = Engine(VARIANT, seats(1), rng=plain)
    assert other.record().rng is not other.record().rng
    assert other.record().rng == state_of(plain)


def state_of(rng: random.Random) -> RngState:
    """Return a generator's state as a record holds it."""
    return rng_state(rng.getstate())


def test_a_record_holds_its_generator_s_numbers_compactly_and_restores_them_exactly() -> None:
    engine = Engine(VARIANT, seats(2), seed=11)
    submit(engine, "roll")
    record = engine.record()
    version, numbers, gauss = record.rng
    assert isinstance(numbers, array) and len(numbers) == 625 and numbers.itemsize >= 4
    assert getstate_of(record.rng) == engine.rng.getstate()  # as ``setstate`` takes it
    given = replace(record, rng=engine.rng.getstate())  # a record made with a plain tuple ...
    assert isinstance(given.rng[1], array) and given == record  # ... holds it the same way
    wide = replace(record, rng=(version, array("q", numbers), gauss))  # so does another array
    assert wide == record and wide.rng[1].typecode == numbers.typecode
    as_tuple = engine.rng.getstate()[1]
    assert sys.getsizeof(numbers) * 5 < sys.getsizeof(as_tuple) + sum(map(sys.getsizeof,
                                                                          as_tuple))
    restored = Engine.restore(record, VARIANT, [
        Seat(s.name, VARIANT.restore_card(*VARIANT.card_contents(s.card))) for s in engine.seats])
    for command in ("roll", "12", "roll"):  # the last re-roll, a box, the next turn's roll
        assert submit(restored, command) == submit(engine, command)
    assert restored.rng.getstate() == engine.rng.getstate()


def test_restoring_with_other_seats_is_refused() -> None:
    engine = Engine(VARIANT, seats(2), seed=1)
    engine.prompt()
    with pytest.raises(ValueError):
        Engine.restore(engine.record(), VARIANT, seats(3))


@pytest.mark.parametrize("count", [0, 7])
def test_a_game_has_one_to_six_seats(count: int) -> None:
    with pytest.raises(ValueError):
        Engine(VARIANT, seats(count) if count else [])


def test_poker_dice_plays_nine_rounds_on_the_same_engine(
        capsys: pytest.CaptureFixture[str]) -> None:
    engine = Engine(POKER_DICE, seats(1, POKER_DICE), seed=2)
    for _ in range(9):
        engine.prompt()
        submit(engine, "score")
        submit(engine, str(engine.prompt().menu[0].number))
    assert engine.is_over() and engine.seats[0].card.rounds_used() == 9
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


@pytest.mark.parametrize("variant", [yahtzee_variant(OFFICIAL), POKER_DICE],
                         ids=["official", "poker-dice"])
def test_turn_summaries_replay_what_the_engine_reported(variant: Variant) -> None:
    """Each finished turn's summary, rebuilt from the log alone, is what the game showed live."""
    chooser = random.Random(17)
    engine = Engine(variant, seats(3, variant), seed=17)
    live: list[TurnSummary] = []
    rolls: list[tuple[int, ...]] = []
    kept: list[tuple[int, ...]] = []
    while not engine.is_over():
        prompt = engine.prompt()
        view = prompt.view
        if not rolls:
            rolls = [view.dice]
        if prompt.phase is Phase.ROLLING:
            command = chooser.choice(["1", "2", "3", "4", "5", "roll", "roll", "score"])
            saved = tuple(v for v, s in zip(view.dice, view.saved) if s)
            for event in submit(engine, command).events:
                if isinstance(event, Rolled):
                    kept.append(saved)
                    rolls.append(event.dice)
            continue
        item = chooser.choice(prompt.menu)
        events = submit(engine, str(item.number)).events
        scored = next(event for event in events if isinstance(event, Scored))
        live.append(TurnSummary(view.round, view.seat, tuple(rolls), tuple(kept), scored.item,
                                engine.seats[view.seat].card.score()))
        rolls, kept = [], []
    assert turn_summaries(engine.log, variant, 3) == live
    assert len(live) == 3 * variant.rounds
    assert turn_summaries(engine.log[:-1], variant, 3) == live[:-1]


def test_interleaved_games_roll_the_dice_each_would_roll_alone() -> None:
    """Each game owns its dice: moves of one game never change another's rolls."""
    def play(engine: Engine, turns: int) -> list[tuple[int, ...]]:
        """Roll twice and score the first box, ``turns`` times; return every roll seen."""
        seen = []
        for _ in range(turns):
            seen.append(engine.prompt().view.dice)
            for command in ("roll", "roll"):
                seen.append(submit(engine, command).events[0].dice)  # type: ignore[union-attr]
            submit(engine, str(engine.prompt().menu[0].number))
        return seen

    alone = [play(Engine(VARIANT, seats(1), seed=seed), 4) for seed in (5, 6)]
    first, second = Engine(VARIANT, seats(1), seed=5), Engine(VARIANT, seats(1), seed=6)
    together: list[list[tuple[int, ...]]] = [[], []]
    for _ in range(4):
        for index, engine in enumerate((first, second)):
            together[index] += play(engine, 1)
            Die.r.seed(99)  # the UML's shared generator has no say in a game's dice
    assert together == alone


@pytest.mark.parametrize("rules", [COURSE, OFFICIAL], ids=lambda r: r.name)
def test_the_prompt_is_kept_between_changes_and_drawn_again_after_each(rules: Rules) -> None:
    """Asked twice without a move, the engine answers with the same prompt; after any
    accepted move (a toggle, a roll, a box) it shows the game as a restored copy sees it,
    and a refused move leaves the prompt as it was."""
    variant = yahtzee_variant(rules)
    chooser = random.Random(4)
    players = seats(2, variant)
    engine = Engine(variant, players, seed=9)
    while not engine.is_over():
        before = engine.prompt()
        assert engine.prompt() is before
        assert not engine.apply(Move.toggle(6)).accepted and engine.prompt() is before
        assert engine.apply(chooser.choice(engine.legal_moves())).accepted
        copies = [Seat(p.name, variant.restore_card(*variant.card_contents(p.card)))
                  for p in players]
        assert where(engine) == where(Engine.restore(engine.record(), variant, copies))
    assert engine.prompt().phase is Phase.OVER
