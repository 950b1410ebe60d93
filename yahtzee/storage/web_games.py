"""The browser table's own file per game: its settings and the hashes of its seats' secrets.

A game played in the browser is saved like any other (``saves.py``); this
file adds what the server needs to take the game up again after a restart:
how it was set up (so a game stopped before its first accepted command is
set up again the same way, same seed, same dice), which save holds it once
it has one, and the SHA-256 of each seat link's secret (the secrets
themselves are never stored).  One JSON file per game,
``<data folder>/web/<game id>.json``, written atomically; the file goes
when the game is finished and filed in the history.

The folder is listed once, when the server starts; a request never names
a file: games are found by their ID in what was listed or created.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from yahtzee.storage.atomic import write_atomic
from yahtzee.storage.paths import data_dir
from yahtzee.storage.problems import Damage, StorageProblems, StoredFile, set_aside

WEB_FORMAT = "yahtzee-web-game"
WEB_VERSION = 1
GAME_ID = re.compile(r"[0-9a-f]{32}")
"""A game's ID: 32 lower-case hex digits (also the unique ID of its save and history entry)."""
SECRET_HASH = re.compile(r"[0-9a-f]{64}")
MAX_FILE = 64 * 1024
"""The largest file read back: a game's file is a few hundred bytes."""


def web_dir() -> Path:
    """Return the folder of the browser games' files (``web`` in the data folder)."""
    return data_dir() / "web"


@dataclass(frozen=True)
class WebGame:
    """How a browser game was set up, where it is saved, and which secret acts for which seats."""

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
    """The save holding the game, once it has one."""

    def to_bytes(self) -> bytes:
        """Return the file's contents: JSON on one line, UTF-8."""
        data = {"format": WEB_FORMAT, "version": WEB_VERSION, "id": self.game_id,
                "game": self.game, "rules": self.rules, "kinds": list(self.kinds),
                "names": list(self.names), "seed": self.seed, "coach": self.coach,
                "hot_seat": self.hot_seat, "save_id": self.save_id,
                "secrets": [[digest, list(seats)] for digest, seats in self.secrets]}
        return (json.dumps(data, separators=(",", ":")) + "\n").encode("utf-8")

    def with_save(self, save_id: int) -> WebGame:
        """Return this game's description, now saved as ``save_id``."""
        return replace(self, save_id=save_id)

    @classmethod
    def from_dict(cls, data: Any) -> WebGame:
        """Return the game ``data`` describes; ``ValueError`` if anything in it is wrong."""
        if not isinstance(data, dict) or data.get("format") != WEB_FORMAT:
            raise ValueError("not a browser game's file")
        if data.get("version") != WEB_VERSION:
            raise ValueError("unknown version")
        game_id, kinds, names = data.get("id"), data.get("kinds"), data.get("names")
        seed, save_id, secrets = data.get("seed"), data.get("save_id"), data.get("secrets")
        if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
            raise ValueError("bad game ID")
        if not (isinstance(kinds, list) and isinstance(names, list) and 1 <= len(kinds) <= 6
                and len(kinds) == len(names)
                and all(isinstance(x, str) for x in kinds + names)):
            raise ValueError("bad players")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError("bad seed")
        if save_id is not None and (isinstance(save_id, bool) or not isinstance(save_id, int)
                                    or save_id < 1):
            raise ValueError("bad save ID")
        if not isinstance(secrets, list):
            raise ValueError("bad secrets")
        pairs = []
        for pair in secrets:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                    and SECRET_HASH.fullmatch(pair[0]) and isinstance(pair[1], list)
                    and all(isinstance(s, int) and not isinstance(s, bool)
                            and 0 <= s < len(kinds) for s in pair[1])):
                raise ValueError("bad secret")
            pairs.append((pair[0], tuple(pair[1])))
        flags = [data.get("coach"), data.get("hot_seat")]
        if not all(isinstance(flag, bool) for flag in flags):
            raise ValueError("bad flags")
        game, rules = data.get("game"), data.get("rules")
        if not isinstance(game, str) or not isinstance(rules, str):
            raise ValueError("bad game")
        return cls(game_id, game, rules, tuple(kinds), tuple(names), seed,
                   bool(flags[0]), bool(flags[1]), tuple(pairs), save_id)


class WebGameStore:
    """The browser games' files in one folder."""

    def __init__(self, directory: Path | None = None, *, problems: StorageProblems) -> None:
        """Use the files in ``directory`` (default: ``web_dir()``), reporting to ``problems``."""
        self.directory = directory if directory is not None else web_dir()
        self.problems = problems

    def _path(self, game_id: str) -> Path:
        """Return the file of ``game_id`` (an ID checked against ``GAME_ID``)."""
        if not GAME_ID.fullmatch(game_id):
            raise ValueError(f"not a game ID: {game_id!r}")
        return self.directory / f"{game_id}.json"

    def write(self, game: WebGame) -> None:
        """Write (or replace) the file of ``game``, atomically."""
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomic(self._path(game.game_id), game.to_bytes())

    def remove(self, game_id: str) -> None:
        """Delete the file of ``game_id``; no error if it is gone."""
        try:
            os.unlink(self._path(game_id))
        except FileNotFoundError:
            pass

    def load_all(self) -> dict[str, WebGame]:
        """Return every game of the folder by ID; damaged files are reported and moved aside."""
        try:
            names = sorted(os.listdir(self.directory))
        except OSError:
            return {}
        games = {}
        for name in names:
            stem, dot, suffix = name.partition(".")
            if suffix != "json" or not GAME_ID.fullmatch(stem):
                continue
            path = self.directory / name
            try:
                if not path.is_file() or path.stat().st_size > MAX_FILE:
                    raise ValueError("not a game's file")
                game = WebGame.from_dict(json.loads(path.read_bytes().decode("utf-8")))
                if game.game_id != stem:
                    raise ValueError("the ID does not match the name")
            except OSError:
                continue
            except (ValueError, RecursionError):
                set_aside(StoredFile.WEB_GAME, path, Damage.CORRUPT, self.problems)
                continue
            games[stem] = game
        return games
