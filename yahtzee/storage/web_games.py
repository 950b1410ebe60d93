"""Browser games' own files as an earlier version kept them, read once to fold into the saves.

A browser game's one record is now its save (``saves.BrowserSeats`` holds
its seats' secrets and settings).  Earlier versions kept a second file per
game, ``<data folder>/web/<game id>.json``, with how the game was set up,
which save held it, and the SHA-256 of each seat link's secret.  The server
reads those files when it starts, folds each into the saves, and removes
it; a damaged one is reported and moved aside.  Nothing writes them any more.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from yahtzee.storage.fields import (GAME_ID, FieldError, flag, hex_id, listed, mapping, one_of,
                                    optional, refuse, text, whole)
from yahtzee.storage.paths import data_dir
from yahtzee.storage.problems import Damage, StorageProblems, StoredFile, set_aside
from yahtzee.storage.saves import SECRET_HASH

WEB_FORMAT = "yahtzee-web-game"
WEB_VERSION = 1
MAX_FILE = 64 * 1024
"""The largest file read: a game's file is a few hundred bytes."""


def web_dir() -> Path:
    """Return the folder of the earlier browser games' files (``web`` in the data folder)."""
    return data_dir() / "web"


@dataclass(frozen=True)
class WebGame:
    """How an earlier version's browser game was set up, where it was saved, and its secrets."""

    game_id: str
    game: str
    """The registry's name of the game (``yahtzee``, ``poker-dice``)."""
    rules: str
    kinds: tuple[str, ...]
    names: tuple[str, ...]
    seed: int
    coach: bool
    hot_seat: bool
    secrets: tuple[tuple[str, tuple[int, ...]], ...]
    """Each secret's SHA-256 (hex) with the seats (from 0) it acts for."""
    save_id: int | None = None
    """The save holding the game, once it had one."""

    @classmethod
    def from_dict(cls, data: object) -> WebGame:
        """Return the game ``data`` describes; ``FieldError`` if anything in it is wrong."""
        fields = mapping(data, "a browser game's file")
        one_of(fields.get("format"), "the format", (WEB_FORMAT,))
        one_of(fields.get("version"), "the version", (WEB_VERSION,))
        kinds = listed(fields.get("kinds"), "the kinds", text)
        names = listed(fields.get("names"), "the names", text, length=len(kinds))
        if not 1 <= len(kinds) <= 6:
            raise refuse("the players", kinds)

        def secret(value: object, name: str) -> tuple[str, tuple[int, ...]]:
            """Return one secret's hash with the seats it acts for."""
            digest, seats = listed(value, name, length=2)
            if not isinstance(digest, str) or not SECRET_HASH.fullmatch(digest):
                raise refuse(name, digest)
            return digest, tuple(listed(seats, f"{name}'s seats",
                                        lambda v, n: whole(v, n, low=0, high=len(kinds) - 1)))

        return cls(hex_id(fields.get("id"), "the game ID"), text(fields.get("game"), "the game"),
                   text(fields.get("rules"), "the rules"), tuple(kinds), tuple(names),
                   whole(fields.get("seed"), "the seed", low=0),
                   flag(fields.get("coach"), "'coach'"), flag(fields.get("hot_seat"), "'hot_seat'"),
                   tuple(listed(fields.get("secrets"), "the secrets", secret)),
                   optional(fields.get("save_id"), "the save ID",
                            lambda v, n: whole(v, n, low=1)))


def load_legacy_games(problems: StorageProblems, directory: Path | None = None) -> list[WebGame]:
    """Return every earlier browser game's file of ``directory`` (default: ``web_dir()``).

    Damaged files are reported to ``problems`` and moved aside; unreadable
    ones are skipped.
    """
    folder = directory if directory is not None else web_dir()
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    games = []
    for name in names:
        stem, _, suffix = name.partition(".")
        path = folder / name
        if suffix != "json" or not GAME_ID.fullmatch(stem):
            continue
        try:
            if not path.is_file() or path.stat().st_size > MAX_FILE:
                raise refuse("the file", name)
            game = WebGame.from_dict(json.loads(path.read_bytes().decode("utf-8")))
            if game.game_id != stem:
                raise refuse("the ID", game.game_id)
        except OSError:
            continue
        except (FieldError, ValueError, RecursionError):
            set_aside(StoredFile.WEB_GAME, path, Damage.CORRUPT, problems)
            continue
        games.append(game)
    return games


def forget_legacy_game(game_id: str, directory: Path | None = None) -> None:
    """Remove the earlier file of ``game_id`` once its game is in the saves; none is fine."""
    folder = directory if directory is not None else web_dir()
    try:
        os.unlink(folder / f"{hex_id(game_id, 'the game ID')}.json")
    except FileNotFoundError:
        pass
