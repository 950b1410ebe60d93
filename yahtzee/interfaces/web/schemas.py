"""The browser table's API, described once: its request bodies (msgspec structs) and its
OpenAPI description, served at ``/api/openapi.json``.

A body is decoded and checked against its struct in one pass; a field of
the wrong type is refused with the one-line reason the page shows for that
field (``FIELD_MESSAGES``), never with a traceback.  What a type cannot say
(names that differ, a box the game has) the server checks afterwards.

msgspec was chosen over pydantic v2 for this: it has no dependencies of its
own, decodes and checks a new game's form in about 1 µs and a move in
0.3 µs (pydantic: 4 µs and 1.8 µs; the standard library's ``json.loads``
alone, before any check: 5 µs), refuses a wrong type without coercing it
(``true`` is not a number, ``"1"`` is not a box), and writes JSON Schema
components ready for OpenAPI.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Callable, Union

import msgspec

from yahtzee.domain.games import GAMES, YAHTZEE
from yahtzee.domain.rules import RULES
from yahtzee.engine.engine import MAX_PLAYERS, MAX_SEED
from yahtzee.players.kinds import KINDS


class Seat(msgspec.Struct, kw_only=True):
    """One seat of a new game: a player kind and a name (blank: a default name)."""

    kind: Annotated[str, msgspec.Meta(description="One of the player kinds of /api/options.",
                                      examples=[k.name for k in KINDS])] = ""
    name: Union[str, None] = ""
    """At most ``MAX_NAME`` characters once stripped, printable (checked by the server)."""


def _default_seats() -> list[Seat]:
    """Return the seats of a game whose form names none: a person and the computer."""
    return [Seat(kind="human"), Seat(kind="computer")]


class NewGame(msgspec.Struct, kw_only=True):
    """``POST /api/games``: the game, its rules, its seats, and how it is played."""

    game: Annotated[str, msgspec.Meta(description="One of the games of /api/options.")] = YAHTZEE
    rules: Union[Annotated[str, msgspec.Meta(
        description="Yahtzee's rule set, one of /api/options' (default: course).")], None] = None
    players: Annotated[list[Seat], msgspec.Meta(
        min_length=1, max_length=MAX_PLAYERS)] = msgspec.field(default_factory=_default_seats)
    seed: Union[Annotated[int, msgspec.Meta(ge=0, le=MAX_SEED)], str, None] = None
    """A chosen seed (a number, or its digits as text), for a game of one person."""
    coach: bool = True
    hot_seat: bool = False


class MoveRequest(msgspec.Struct, kw_only=True):
    """``POST /api/games/<id>/moves``: a toggle (with a die), roll, score, or box (with a box)."""

    action: Annotated[str, msgspec.Meta(examples=["toggle", "roll", "score", "box"])] = ""
    die: Union[Annotated[int, msgspec.Meta(ge=1)], None] = None
    box: Union[Annotated[int, msgspec.Meta(ge=1)], None] = None
    version: Union[int, None] = None
    """The state's version the move was chosen at: a move drawn on a stale page is refused."""


class StartRequest(msgspec.Struct, kw_only=True):
    """``POST /api/games/<id>/start``: the host starts a game before everyone joined (``{}``)."""


class LinksRequest(msgspec.Struct, kw_only=True):
    """``POST /api/games/<id>/links``: the host asks for new links of the seats not joined."""


NOT_JSON = "The request is not JSON."
RULES_MESSAGE = f"The rules are one of: {', '.join(sorted(RULES))}."
SEED_MESSAGE = f"A seed is a whole number from 0 to {MAX_SEED}."
FIELD_MESSAGES: dict[tuple[type[msgspec.Struct], str], str] = {
    (NewGame, ""): "A new game is described by a JSON object.",
    (NewGame, "players"): f"A game has 1 to {MAX_PLAYERS} players.",
    (NewGame, "players[]"): "Each player is an object with a kind and a name.",
    (NewGame, "players[].kind"): f"Each player is one of: {', '.join(k.name for k in KINDS)}.",
    (NewGame, "players[].name"): "A player's name is text.",
    (NewGame, "game"): f"The game is one of: {', '.join(GAMES)}.",
    (NewGame, "rules"): RULES_MESSAGE,
    (NewGame, "seed"): SEED_MESSAGE,
    (NewGame, "coach"): "'coach' must be true or false.",
    (NewGame, "hot_seat"): "'hot_seat' must be true or false.",
    (MoveRequest, ""): "A move is a JSON object.",
    (StartRequest, ""): "A start is a JSON object.",
    (LinksRequest, ""): "A request for links is a JSON object.",
    (MoveRequest, "action"): "A move is toggle (with a die), roll, score or box (with a box).",
    (MoveRequest, "version"): "'version' must be a whole number.",
}
"""The reason given for a field of the wrong type, by struct and field path (lists: ``[]``)."""

_WHERE = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_INDEX = re.compile(r"\[\d+\]")


class BodyError(ValueError):
    """A request body that is not JSON or does not fit its struct: its field path and reason."""

    def __init__(self, path: str | None, detail: str) -> None:
        """Refuse the field at ``path`` (None: not JSON at all) for ``detail``."""
        super().__init__(detail)
        self.path = path


def field_path(error: msgspec.ValidationError) -> str:
    """Return the path of the field ``error`` is about: ``players[].kind`` ("" for the body)."""
    found = _WHERE.search(str(error))
    if found is None:
        return ""
    return _INDEX.sub("[]", found.group("path")).lstrip(".")


_DECODERS: dict[type[Any], msgspec.json.Decoder[Any]] = {}


def decode(kind: type[msgspec.Struct], body: bytes) -> Any:
    """Return ``body`` decoded as a ``kind``; ``BodyError`` saying which field is wrong."""
    decoder = _DECODERS.get(kind)
    if decoder is None:
        decoder = _DECODERS[kind] = msgspec.json.Decoder(kind)
    try:
        return decoder.decode(body)
    except msgspec.ValidationError as error:
        raise BodyError(field_path(error), str(error)) from None
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError) as error:
        raise BodyError(None, str(error)) from None


def reason(kind: type[msgspec.Struct], error: BodyError,
           numbered: Callable[[str], str | None] = lambda field: None) -> str:
    """Return the one-line reason said for ``error`` in a body of ``kind``.

    ``numbered`` gives the reason for a numbered field of a move (``die``,
    ``box``), whose range depends on the game.
    """
    if error.path is None:
        return NOT_JSON
    top = error.path.split(".")[0].split("[")[0]
    for path in (error.path, top):
        message = FIELD_MESSAGES.get((kind, path)) or (numbered(path) if path else None)
        if message is not None:
            return message
    return FIELD_MESSAGES[(kind, "")]


# -- the OpenAPI description -----------------------------------------------------------------
def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """Return an OpenAPI answer of JSON ``schema``."""
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERROR = {"$ref": "#/components/schemas/Error"}
SECRET = {"name": "X-Seat-Secret", "in": "header", "required": False,
          "schema": {"type": "string", "maxLength": 64},
          "description": "The seat's secret, from the link's fragment (never in a URL)."}
GAME_PARAMETER = {"name": "game_id", "in": "path", "required": True,
                  "schema": {"type": "string"}, "description": "The game's ID (32 hex digits)."}
REFUSED = {status: _json(ERROR, text) for status, text in (
    ("400", "A field is wrong (the reason says which)."),
    ("403", "Not JSON, from another site, or a secret of no seat."),
    ("404", "No such game."), ("409", "Out of turn or stale."),
    ("413", "The body is too large."), ("421", "A host name the server does not answer to."),
    ("422", "The engine refused the move."),
    ("423", "The game is played in another window (the console) meanwhile; it comes back."),
    ("429", "Too many requests: see Retry-After."),
    ("503", "The server is full."))}

LINKS = {"type": "object", "required": ["game", "links"], "properties": {
    "game": {"type": "string"},
    "links": {"type": "array", "items": {
        "type": "object", "required": ["seats", "secret"],
        "properties": {"seats": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                       "secret": {"type": "string"}}}}}}
"""A seat links' answer: each link's secret with the seats (from 1) it plays."""


def openapi() -> dict[str, Any]:
    """Return the API's OpenAPI 3.1 description (its request bodies from the structs)."""
    (new_game, move, start, links), components = msgspec.json.schema_components(
        [NewGame, MoveRequest, StartRequest, LinksRequest],
        ref_template="#/components/schemas/{name}")
    components["Error"] = {"type": "object", "required": ["error"],
                           "properties": {"error": {"type": "string"}}}
    state = {"type": "object", "description": "The game as the asking seat sees it."}
    body = {"required": True, "content": {"application/json": {"schema": new_game}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Yahtzee browser table", "version": "1"},
        "paths": {
            "/api/options": {"get": {"summary": "What the new-game form offers",
                                     "responses": {"200": _json({"type": "object"},
                                                                "The form's choices.")}}},
            "/api/games": {"post": {
                "summary": "Start a new game; the answer holds each seat's secret, once",
                "requestBody": body,
                "responses": {"201": _json({"type": "object"}, "The game and its links."),
                              **REFUSED}}},
            "/api/games/{game_id}": {"get": {
                "summary": "The game's state, once its version passes 'after' (a long poll)",
                "parameters": [GAME_PARAMETER, SECRET,
                               {"name": "after", "in": "query", "required": False,
                                "schema": {"type": "integer", "minimum": 0}}],
                "responses": {"200": _json(state, "The state."), **REFUSED}}},
            "/api/games/{game_id}/moves": {"post": {
                "summary": "A move for the seat whose secret the request holds",
                "parameters": [GAME_PARAMETER, SECRET],
                "requestBody": {"required": True,
                                "content": {"application/json": {"schema": move}}},
                "responses": {"200": _json(state, "The state after the move."), **REFUSED}}},
            "/api/games/{game_id}/start": {"post": {
                "summary": "Start the game before everyone joined (its host's secret)",
                "parameters": [GAME_PARAMETER, SECRET],
                "requestBody": {"required": True,
                                "content": {"application/json": {"schema": start}}},
                "responses": {"200": _json(state, "The state."), **REFUSED}}},
            "/api/games/{game_id}/links": {"post": {
                "summary": "New links for the seats whose link was not used yet (its host's "
                           "secret); their old links stop working",
                "parameters": [GAME_PARAMETER, SECRET],
                "requestBody": {"required": True,
                                "content": {"application/json": {"schema": links}}},
                "responses": {"200": _json(LINKS, "The host's link, then each new one."),
                              **REFUSED}}},
            "/api/openapi.json": {"get": {"summary": "This description",
                                          "responses": {"200": _json({"type": "object"},
                                                                     "OpenAPI 3.1.")}}},
        },
        "components": {"schemas": components},
    }


_ENCODER = msgspec.json.Encoder()


def encode(content: Any) -> bytes:
    """Return ``content`` (JSON-like: dicts, lists, strings, numbers) as compact UTF-8 JSON.

    The table's states are the bulk of what the server sends; msgspec writes
    them several times faster than the standard library's ``json``.
    """
    return _ENCODER.encode(content)
