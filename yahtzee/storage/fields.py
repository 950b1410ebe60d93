"""Checks of the fields of stored records, shared by every store (standard library only).

Each checker takes a value read from a file or a database and the name it
is reported under, and returns the value typed as the caller needs it, or
raises ``FieldError`` (a ``ValueError``) saying ``"<name> is <value>"``::

    round_ = whole(fields.get("round"), "the round", low=0, high=13)

A bool is never a whole number here, although Python counts ``True`` as 1:
a file holding ``true`` where a count belongs is damaged.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any, TypeVar, cast, overload

T = TypeVar("T")

GAME_ID = re.compile(r"[0-9a-f]{32}")
"""A game's unique ID: 32 lowercase hexadecimal digits (``uuid.uuid4().hex``)."""

_SHORT = reprlib.Repr()
_SHORT.maxstring = 40
_SHORT.maxother = 40


class FieldError(ValueError):
    """A stored field that does not hold what it must (a store reports its record as damaged)."""


def refuse(name: str, value: object) -> FieldError:
    """Return the error saying that the field ``name`` holds ``value`` (shortened), to raise."""
    return FieldError(f"{name} is {_SHORT.repr(value)}")


def whole(value: object, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` if it is a whole number (not a bool) from ``low`` to ``high``.

    Either bound may be None (no bound).  ``FieldError`` otherwise.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not _within(value, low, high):
        raise refuse(name, value)
    return value


def number(value: object, name: str, *, low: float | None = None,
           high: float | None = None) -> float:
    """Return ``value`` as a float if it is a whole or a real number (not a bool) in bounds.

    ``FieldError`` otherwise (a NaN is in no bounds but is returned when there are none).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not _within(
            value, low, high):
        raise refuse(name, value)
    return float(value)


def _within(value: float, low: float | None, high: float | None) -> bool:
    """Return whether ``value`` lies from ``low`` to ``high`` (None: no bound that side)."""
    return (low is None or low <= value) and (high is None or value <= high)


def text(value: object, name: str, *, empty: bool = True) -> str:
    """Return ``value`` if it is a string (not empty, with ``empty=False``); else ``FieldError``."""
    if not isinstance(value, str) or not (empty or value):
        raise refuse(name, value)
    return value


def flag(value: object, name: str) -> bool:
    """Return ``value`` if it is ``True`` or ``False``; ``FieldError`` otherwise (1 is not one)."""
    if not isinstance(value, bool):
        raise refuse(name, value)
    return value


def mapping(value: object, name: str) -> dict[str, Any]:
    """Return ``value`` if it is a dict (a JSON object); ``FieldError`` otherwise."""
    if not isinstance(value, dict):
        raise refuse(name, value)
    return value


@overload
def listed(value: object, name: str, *, length: int | None = None) -> list[Any]:
    """Return ``value`` if it is a list (its items unchecked)."""


@overload
def listed(value: object, name: str, item: Callable[[object, str], T], *,
           length: int | None = None) -> list[T]:
    """Return ``value`` if it is a list, each of its items as ``item`` returns it."""


def listed(value: object, name: str, item: Callable[[object, str], Any] | None = None, *,
           length: int | None = None) -> list[Any]:
    """Return ``value`` if it is a list (of ``length`` items, when given), each checked by ``item``.

    ``item(element, f"{name}[{index}]")`` returns each element as checked
    (it raises ``FieldError`` for a bad one); ``FieldError`` if ``value`` is
    not a list or has another length.
    """
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise refuse(name, value)
    if item is None:
        return value
    return [item(element, f"{name}[{index}]") for index, element in enumerate(value)]


def one_of(value: object, name: str, choices: Collection[T]) -> T:
    """Return ``value`` if it is one of ``choices``; ``FieldError`` otherwise."""
    try:
        known = value in choices
    except TypeError:
        known = False
    if not known:
        raise refuse(name, value)
    return cast(T, value)


def optional(value: object, name: str, check: Callable[[object, str], T]) -> T | None:
    """Return None if ``value`` is None, else ``check(value, name)`` (``FieldError`` if bad)."""
    return None if value is None else check(value, name)


def hex_id(value: object, name: str) -> str:
    """Return ``value`` if it is a game's unique ID (``GAME_ID``); ``FieldError`` otherwise."""
    if not isinstance(value, str) or not GAME_ID.fullmatch(value):
        raise refuse(name, value)
    return value


def zoned_time(value: object, name: str) -> datetime:
    """Return the time an ISO 8601 string with its time zone gives (as stores write UTC times).

    ``FieldError`` if ``value`` is not such a string, or has no zone.
    """
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise refuse(name, value)
    return moment
