"""The field checks every store uses: what each accepts, returns and refuses, and the message."""

from __future__ import annotations

import json
import math
import random
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Problems
from yahtzee.domain.score_card import ScoreCard
from yahtzee.engine.records import GameRecord, PlayerRecord, TurnRecord
from yahtzee.storage.fields import (GAME_ID, FieldError, flag, hex_id, listed, mapping, number,
                                    one_of, optional, refuse, text, whole, zoned_time)
from yahtzee.storage.problems import Damage, DamagedFileError, StoredFile
from yahtzee.storage.saves import SaveStore
from yahtzee.storage.snapshot import SnapshotError


def test_a_field_error_is_a_value_error_and_a_snapshot_error_is_a_field_error() -> None:
    """Callers that catch ``ValueError`` or ``FieldError`` also catch a bad game's error."""
    assert issubclass(FieldError, ValueError)
    assert issubclass(SnapshotError, FieldError)


@pytest.mark.parametrize("value", [True, False])
def test_a_bool_is_not_a_whole_number(value: bool) -> None:
    """``True`` is refused where a count belongs, though Python counts it as 1."""
    with pytest.raises(FieldError) as caught:
        whole(value, "the round", low=0, high=13)
    assert str(caught.value) == f"the round is {value!r}"


@pytest.mark.parametrize("value", [1.0, "3", None, [3]])
def test_other_kinds_are_not_whole_numbers(value: object) -> None:
    """A float, a string, nothing or a list is refused, even when it reads as a number."""
    with pytest.raises(FieldError, match="^a seat is "):
        whole(value, "a seat")


def test_whole_returns_numbers_within_the_bounds_inclusive() -> None:
    """Both bounds are inclusive; a missing bound is no bound."""
    assert whole(0, "n", low=0, high=13) == 0
    assert whole(13, "n", low=0, high=13) == 13
    assert whole(-10**20, "n", high=0) == -10**20
    assert whole(10**20, "n", low=1) == 10**20
    for outside, bounds in [(-1, {"low": 0, "high": 13}), (14, {"low": 0, "high": 13}),
                            (0, {"low": 1}), (1, {"high": 0})]:
        with pytest.raises(FieldError, match=f"^n is {outside}$"):
            whole(outside, "n", **bounds)


def test_the_message_names_the_field_and_the_value_as_the_history_reports_it() -> None:
    """``"<name> is <repr>"``: the wording of a damaged game's report (``a total is 'abc'``)."""
    with pytest.raises(FieldError) as caught:
        whole("abc", "a total", low=0, high=10**6)
    assert str(caught.value) == "a total is 'abc'"
    assert str(refuse("the dice", [1, 2])) == "the dice is [1, 2]"


def test_a_long_value_is_shortened_in_the_message() -> None:
    """A damaged field of a thousand numbers does not make a thousand-number message."""
    message = str(refuse("the generator's state", list(range(1000))))
    assert message.startswith("the generator's state is [0, 1, 2")
    assert "..." in message and len(message) < 100


def test_number_takes_whole_and_real_numbers_but_not_bools_or_nan_within_bounds() -> None:
    """A chance from 0 to 1: ints become floats; NaN lies in no bounds."""
    assert number(1, "a chance", low=0, high=1) == 1.0
    assert isinstance(number(1, "a chance"), float)
    assert number(0.25, "a chance", low=0, high=1) == 0.25
    for bad in [True, "0.5", None, 1.5, -0.1, math.nan]:
        with pytest.raises(FieldError, match="^a chance is "):
            number(bad, "a chance", low=0, high=1)
    assert math.isnan(number(math.nan, "the gauss"))


def test_text_and_flag_take_only_their_own_kind() -> None:
    """A string is text (empty unless refused); only ``True`` and ``False`` are flags."""
    assert text("", "a label") == ""
    assert text("Ann", "a name", empty=False) == "Ann"
    with pytest.raises(FieldError, match="^a name is ''$"):
        text("", "a name", empty=False)
    with pytest.raises(FieldError, match="^a label is 3$"):
        text(3, "a label")
    assert flag(False, "'finished'") is False
    for bad in [0, 1, "true", None]:
        with pytest.raises(FieldError, match="^'finished' is "):
            flag(bad, "'finished'")


def test_mapping_takes_a_dict_only() -> None:
    """A JSON object reads as a dict; a list of pairs is not one."""
    data: dict[str, Any] = {"round": 1}
    assert mapping(data, "the game") is data
    with pytest.raises(FieldError, match=r"^the game is \[\['round', 1\]\]$"):
        mapping([["round", 1]], "the game")


def test_listed_checks_the_length_and_each_item_naming_the_bad_one() -> None:
    """Each item is checked under ``name[index]``; a list of another length is refused whole."""
    def face(value: object, name: str) -> int:
        return whole(value, name, low=1, high=6)

    assert listed([1, 6, 3], "the dice", face, length=3) == [1, 6, 3]
    assert listed([], "the log") == []
    with pytest.raises(FieldError, match=r"^the dice is \[1, 2\]$"):
        listed([1, 2], "the dice", face, length=3)
    with pytest.raises(FieldError, match=r"^the dice\[2\] is 7$"):
        listed([1, 6, 7], "the dice", face, length=3)
    with pytest.raises(FieldError, match=r"^the dice\[0\] is True$"):
        listed([True, 6, 1], "the dice", face)
    with pytest.raises(FieldError, match=r"^the dice is \(1, 2, 3\)$"):
        listed((1, 2, 3), "the dice")


def test_optional_passes_none_through_and_checks_anything_else() -> None:
    """None is an open box; anything else must pass the check."""
    assert optional(None, "a box", whole) is None
    assert optional(0, "a box", whole) == 0
    with pytest.raises(FieldError, match="^a box is False$"):
        optional(False, "a box", whole)


def test_one_of_takes_only_the_choices_even_when_the_value_cannot_be_hashed() -> None:
    """An unhashable value is refused like any other, not a ``TypeError``."""
    kinds = frozenset({"human", "computer"})
    assert one_of("human", "a kind", kinds) == "human"
    for bad in ["Human", None, ["human"], {"human": 1}]:
        with pytest.raises(FieldError, match="^a kind is "):
            one_of(bad, "a kind", kinds)


def test_hex_id_takes_exactly_32_lowercase_hex_digits() -> None:
    """A new game's ``uuid4().hex`` is an ID; upper case, dashes or another length are not."""
    new = uuid.UUID(int=0x0123456789ABCDEF0123456789ABCDEF, version=4).hex
    assert hex_id(new, "the unique ID") == new
    assert GAME_ID.fullmatch(new)
    for bad in [new.upper(), new[:-1], new + "0", str(uuid.UUID(new)), new[:-1] + "g",
                new + "\n", int(new, 16)]:
        with pytest.raises(FieldError, match="^the unique ID is "):
            hex_id(bad, "the unique ID")


def test_zoned_time_reads_iso_times_with_their_zone_only() -> None:
    """A save's times are ISO 8601 with the zone; a time without one is refused."""
    moment = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc)
    assert zoned_time(moment.isoformat(timespec="microseconds"), "'created'") == moment
    plus_two = zoned_time("2024-05-06T09:08:09+02:00", "'created'")
    assert plus_two == moment.replace(microsecond=0)
    assert plus_two.utcoffset() == timedelta(hours=2)
    for bad in ["2024-05-06T07:08:09", "yesterday", "", None, 1714979289]:
        with pytest.raises(FieldError, match="^'created' is "):
            zoned_time(bad, "'created'")


def _record(seed: int) -> GameRecord:
    """Return a new two-player course game before its first roll, its generator seeded."""
    players = tuple(PlayerRecord(name, "human", (None,) * ScoreCard.NUM_CATS)
                    for name in ("Ann", "Bob"))
    return GameRecord("yahtzee", "course", players, 0, 0,
                      TurnRecord((1, 2, 3, 4, 5), (False,) * 5, 2, False), (),
                      random.Random(seed).getstate())


BOOL_FOR_A_NUMBER: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("the save's version", lambda save: save.update(version=True)),
    ("the save's ID", lambda save: save.update(id=True)),
    ("the round", lambda save: save["game"].update(round=False)),
    ("the seat", lambda save: save["game"].update(seat=False)),
    ("a die", lambda save: save["game"]["turn"]["dice"].__setitem__(0, True)),
    ("the re-rolls left", lambda save: save["game"]["turn"].update(rolls_left=True)),
    ("a box", lambda save: save["game"]["players"][1]["scores"].__setitem__(0, False)),
    ("a flag as 0", lambda save: save.update(finished=0)),
]


@pytest.mark.parametrize(("field", "change"), BOOL_FOR_A_NUMBER,
                         ids=[case[0] for case in BOOL_FOR_A_NUMBER])
def test_a_save_with_a_bool_for_a_number_is_set_aside_and_the_others_load(
        field: str, change: Callable[[dict[str, Any]], None], tmp_path: Path) -> None:
    """The checks are those of every save: the damaged file is reported and moved aside."""
    problems = Problems()
    store = SaveStore(tmp_path, problems=problems)
    first, second = store.create(_record(1)), store.create(_record(2))
    store.release()
    data = json.loads(store.path(second.save_id).read_text())
    change(data)
    store.path(second.save_id).write_text(json.dumps(data))
    with pytest.raises(DamagedFileError):
        store.load(second.save_id)
    assert [(what, path.name, damage) for what, path, damage, _ in problems.damaged] == [
        (StoredFile.SAVE, f"{second.save_id}.json", Damage.CORRUPT)]
    assert store.saved_ids() == [first.save_id]
    assert store.load(first.save_id) == first
