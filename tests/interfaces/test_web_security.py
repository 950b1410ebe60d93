"""The browser table against hostile pages and clients: cross-site requests, DNS rebinding,
caching, private advice, bad fields.

Every refusal here is answered before anything changes: no game is made,
no move is taken, nothing is written in the data folder.
"""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the test client's notice about httpx's successor
    from starlette.testclient import TestClient  # noqa: E402

from tests.helpers import message_of  # noqa: E402
from yahtzee.interfaces.cli import build_parser  # noqa: E402
from yahtzee.interfaces.web.guards import (LOOPBACK_NAMES, allowed_hosts,  # noqa: E402
                                           host_name)
from yahtzee.interfaces.web.server import make_app  # noqa: E402
from yahtzee.solver.cache import Solution  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

JSON = {"Content-Type": "application/json"}
HOSTS = ["127.0.0.1", "localhost", "::1", "table.example"]


@pytest.fixture
def client(data: Path) -> Iterator[TestClient]:
    """A test client of a server answering to loopback and ``table.example``."""
    with TestClient(make_app(delay=0, hosts=HOSTS), base_url="http://127.0.0.1:8000") as tc:
        yield tc


def two_people(client: TestClient, **form: Any) -> tuple[str, list[str]]:
    """Start a game of two people; return its ID and secrets."""
    answer = client.post("/api/games", json={
        "players": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}],
        "coach": False, **form})
    assert answer.status_code == 201, answer.text
    return answer.json()["game"], [link["secret"] for link in answer.json()["links"]]


def games_on_disk(data: Path) -> list[Path]:
    """Return the files of the data folder (saves, records)."""
    return sorted(p for p in data.rglob("*") if p.is_file()) if data.exists() else []


# -- cross-site requests ---------------------------------------------------------------------
@pytest.mark.parametrize("headers", [
    {"Content-Type": "text/plain"},
    {"Content-Type": "application/x-www-form-urlencoded"},
    {"Content-Type": "multipart/form-data; boundary=x"},
    {},
    {"Content-Type": "application/json", "Origin": "http://evil.example"},
    {"Content-Type": "application/json", "Origin": "null"},
    {"Content-Type": "application/json", "Origin": "https://127.0.0.1:8000"},
    {"Content-Type": "application/json", "Origin": "http://127.0.0.1:8001"},
    {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"},
    {"Content-Type": "application/json", "Sec-Fetch-Site": "same-site",
     "Origin": "http://127.0.0.1:8000"},
])
def test_a_cross_site_or_non_json_request_is_refused_and_changes_nothing(
        client: TestClient, data: Path, headers: dict[str, str]) -> None:
    game, (ann, _) = two_people(client)
    before = client.get(f"/api/games/{game}").json()
    files = games_on_disk(data)
    made = client.post("/api/games", content=b'{"players": [{"kind": "human"}]}',
                       headers=headers)
    moved = client.post(f"/api/games/{game}/moves", content=b'{"action": "roll"}',
                        headers={**headers, "X-Seat-Secret": ann})
    for answer in (made, moved):
        assert answer.status_code == 403, answer.text
        assert "error" in answer.json()
    assert client.get(f"/api/games/{game}").json() == before
    assert games_on_disk(data) == files


@pytest.mark.parametrize("headers", [
    JSON,
    {**JSON, "Origin": "http://127.0.0.1:8000"},
    {"Content-Type": "application/json; charset=utf-8", "Origin": "http://127.0.0.1:8000",
     "Sec-Fetch-Site": "same-origin"},
    {**JSON, "Sec-Fetch-Site": "none"},
])
def test_a_move_from_the_tables_own_page_or_a_script_is_let_through(
        client: TestClient, headers: dict[str, str]) -> None:
    """JSON from the page's own origin, or with no origin at all (a script), is taken."""
    answer = client.post("/api/games", content=b'{"players": [{"kind": "human"}]}',
                         headers=headers)
    assert answer.status_code == 201, answer.text
    game, secret = answer.json()["game"], answer.json()["links"][0]["secret"]
    moved = client.post(f"/api/games/{game}/moves", content=b'{"action": "roll"}',
                        headers={**headers, "X-Seat-Secret": secret})
    assert moved.status_code == 200, moved.text
    assert moved.json()["rolls_left"] == 1


def test_reading_is_open_to_any_origin_but_never_cached(client: TestClient) -> None:
    game, _ = two_people(client)
    answers = [client.get("/api/options", headers={"Origin": "http://evil.example"}),
               client.get(f"/api/games/{game}"), client.get("/api/games/" + "0" * 32),
               client.post("/api/games", content=b"x", headers={"Content-Type": "text/plain"}),
               client.post("/api/games", json={"players": []})]
    assert [a.headers["cache-control"] for a in answers] == ["no-store"] * len(answers)
    assert "access-control-allow-origin" not in answers[0].headers
    assert "no-store" not in client.get("/static/app.js").headers.get("cache-control", "")


# -- DNS rebinding -------------------------------------------------------------------------
@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "", "a b",
                                  "localhost:x", "user@127.0.0.1"])
def test_a_host_the_server_was_not_started_for_is_not_answered(
        client: TestClient, data: Path, host: str) -> None:
    for answer in (client.get("/", headers={"Host": host}),
                   client.get("/api/options", headers={"Host": host}),
                   client.post("/api/games", json={}, headers={"Host": host})):
        assert answer.status_code == 421, answer.text
        assert answer.json() == {"error": "This server does not answer to that host name."}
    assert games_on_disk(data) == []


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "LOCALHOST", "[::1]:8000",
                                  "table.example", "table.example.:8000"])
def test_the_servers_own_names_are_answered(client: TestClient, host: str) -> None:
    assert client.get("/api/options", headers={"Host": host}).status_code == 200


def test_the_names_a_server_answers_to_follow_its_address_and_options() -> None:
    assert allowed_hosts("127.0.0.1") == LOOPBACK_NAMES
    assert allowed_hosts("::1") == LOOPBACK_NAMES
    assert allowed_hosts("192.168.1.20", ["Yahtzee.Lan"]) == {"192.168.1.20", "yahtzee.lan"}
    anywhere = allowed_hosts("0.0.0.0")
    assert LOOPBACK_NAMES <= anywhere and "0.0.0.0" not in anywhere
    assert (host_name("[::1]:80"), host_name("Example.COM:1"), host_name("a/b")) == (
        "::1", "example.com", None)
    args = build_parser().parse_args(["serve", "--allowed-host", "a.lan",
                                      "--allowed-host", "b.lan"])
    assert args.allowed_hosts == ["a.lan", "b.lan"]
    assert build_parser().parse_args(["serve"]).allowed_hosts == []


def test_allowed_hosts_and_the_proxy_are_read_as_the_server_compares_them() -> None:
    args = build_parser().parse_args(["serve", "--allowed-host", "Table.Example.ORG.",
                                      "--allowed-host", "[::1]", "--allowed-host", "web_1",
                                      "--proxy", "10.0.0.7"])
    assert args.allowed_hosts == ["table.example.org", "::1", "web_1"]
    assert args.proxy == "10.0.0.7"
    assert build_parser().parse_args(["serve", "--proxy", "[0:0::1]"]).proxy == "::1"


@pytest.mark.parametrize("option, value, message", [
    ("--allowed-host", "example.org:8000", "'example.org:8000' is not a host name"),
    ("--allowed-host", "https://example.org", "is not a host name"),
    ("--allowed-host", "", "'' is not a host name"),
    ("--allowed-host", "a b", "is not a host name"),
    ("--allowed-host", "-bad.org", "is not a host name"),
    ("--allowed-host", "x" * 64 + ".org", "is not a host name"),
    ("--proxy", "abc", "'abc' is not an IP address"),
    ("--host", "", "'' is not an address to listen on"),
    ("--host", " ", "'' is not an address to listen on"),
    ("--proxy", "10.0.0.7:443", "is not an IP address"),
    ("--proxy", "10.0.0.0/8", "is not an IP address"),
])
def test_a_host_or_proxy_no_request_could_match_is_refused(
        option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["serve", f"{option}={value}"])
    assert stopped.value.code == 2 and message in message_of(capsys.readouterr().err)


# -- what is already held: private advice, bad rules -----------------------------------------
def test_the_coachs_advice_goes_only_to_the_seat_it_advises(
        client: TestClient, course: Solution) -> None:
    game, (ann, bob) = two_people(client, coach=True, rules="course")
    for _ in range(400):  # the coach's tables load in the background, even from the cache
        if client.get(f"/api/games/{game}", headers={"X-Seat-Secret": ann}).json()["options"]:
            break
        time.sleep(0.05)
    seen = {who: client.get(f"/api/games/{game}", headers={"X-Seat-Secret": secret}).json()
            for who, secret in (("ann", ann), ("bob", bob), ("nobody", ""))}
    assert seen["ann"]["turn"] == 1
    assert seen["ann"]["options"] and seen["ann"].get("advice")
    for other in ("bob", "nobody"):
        assert not seen[other]["options"] and not seen[other].get("advice")
        assert seen[other]["win_chances"] == seen["ann"]["win_chances"]


@pytest.mark.parametrize("rules", [[], {}, 1, True])
def test_rules_of_the_wrong_type_are_a_400(client: TestClient, data: Path, rules: Any) -> None:
    answer = client.post("/api/games", json={"rules": rules})
    assert (answer.status_code, answer.json()) == (
        400, {"error": "The rules are one of: course, official."})
    assert games_on_disk(data) == []


# -- every bad field is a 400, quietly ------------------------------------------------------

EVERY_KIND = "Each player is one of: human, computer, expected, skilled, casual, novice, greedy."
"""What a seat of no known kind is told."""


@pytest.mark.parametrize("form, message", [
    ({"rules": 5}, "The rules are one of: course, official."),
    ({"game": None}, "The game is one of: yahtzee, poker-dice."),
    ({"game": ["yahtzee"]}, "The game is one of: yahtzee, poker-dice."),
    ({"players": None}, "A game has 1 to 6 players."),
    ({"players": {"kind": "human"}}, "A game has 1 to 6 players."),
    ({"players": [{"kind": "human"}] * 7}, "A game has 1 to 6 players."),
    ({"players": ["human"]}, "Each player is an object with a kind and a name."),
    ({"players": [{"name": "Ann"}]}, EVERY_KIND),
    ({"players": [{"kind": 1}]}, EVERY_KIND),
    ({"players": [{"kind": "human", "name": 5}]}, "A player's name is text."),
    ({"players": [{"kind": "human", "name": "\u202eAnn"}]},
     "Names are plain text of at most 24 characters."),
    ({"seed": 2 ** 63}, "A seed is a whole number from 0 to 9223372036854775807."),
    ({"seed": 1.5}, "A seed is a whole number from 0 to 9223372036854775807."),
    ({"seed": True}, "A seed is a whole number from 0 to 9223372036854775807."),
    ({"seed": "١٢"}, "A seed is a whole number from 0 to 9223372036854775807."),
    ({"hot_seat": 1}, "'hot_seat' must be true or false."),
    ({"coach": None}, "'coach' must be true or false."),
    ("yahtzee", "A new game is described by a JSON object."),
])
def test_every_bad_field_of_a_new_game_is_a_400_with_its_reason(
        client: TestClient, data: Path, form: Any, message: str) -> None:
    answer = client.post("/api/games", json=form)
    assert (answer.status_code, answer.json()) == (400, {"error": message})
    assert games_on_disk(data) == []


@pytest.mark.parametrize("body, message", [
    ({"action": 1}, "A move is toggle (with a die), roll, score or box (with a box)."),
    ({}, "A move is toggle (with a die), roll, score or box (with a box)."),
    ({"action": "toggle"}, "'die' must be a number from 1 to 5."),
    ({"action": "toggle", "die": "1"}, "'die' must be a number from 1 to 5."),
    ({"action": "toggle", "die": True}, "'die' must be a number from 1 to 5."),
    ({"action": "box", "box": 0}, "'box' must be a number from 1 to 13."),
    ({"action": "box", "box": 1.0}, "'box' must be a number from 1 to 13."),
    ({"action": "roll", "version": "3"}, "'version' must be a whole number."),
    ({"action": "roll", "version": False}, "'version' must be a whole number."),
    (None, "A move is a JSON object."),
    ([], "A move is a JSON object."),
])
def test_every_bad_field_of_a_move_is_a_400_with_its_reason(
        client: TestClient, body: Any, message: str) -> None:
    game, (ann, _) = two_people(client)
    before = client.get(f"/api/games/{game}").json()
    answer = client.post(f"/api/games/{game}/moves", content=json.dumps(body).encode(),
                         headers={"X-Seat-Secret": ann, **JSON})
    assert (answer.status_code, answer.json()) == (400, {"error": message})
    assert client.get(f"/api/games/{game}").json() == before


@pytest.mark.parametrize("body", [b"\xff\xfe", b'{"x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                                  b'{"action": "\\ud800"}', b""])
def test_a_body_that_is_not_json_is_a_400(client: TestClient, body: bytes) -> None:
    answer = client.post("/api/games", content=body[:4096], headers=JSON)
    assert answer.status_code in (400, 413)
    assert set(answer.json()) == {"error"}


def test_a_chosen_seed_is_refused_between_people_on_their_own_screens(
        client: TestClient, data: Path) -> None:
    people = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
    answer = client.post("/api/games", json={"players": people, "seed": 7, "coach": False})
    assert (answer.status_code, answer.json()) == (400, {"error": (
        "A chosen seed is for a game of one person (or of one screen): "
        "between people on their own screens, whoever chose it could foresee every "
        "roll.")})
    assert games_on_disk(data) == []
    for form in ({"players": people, "seed": 7, "hot_seat": True},
                 {"players": [people[0], {"kind": "greedy"}], "seed": "7"},
                 {"players": people, "seed": ""}):
        answer = client.post("/api/games", json={**form, "coach": False})
        assert answer.status_code == 201, answer.text


def test_the_api_is_described_by_its_openapi_document(client: TestClient) -> None:
    answer = client.get("/api/openapi.json")
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    described = answer.json()
    assert described["openapi"].startswith("3.1")
    assert set(described["paths"]) == {"/api/options", "/api/games", "/api/games/{game_id}",
                                       "/api/games/{game_id}/moves", "/api/games/{game_id}/start",
                                       "/api/games/{game_id}/links", "/api/openapi.json"}
    schemas = described["components"]["schemas"]
    assert {"NewGame", "MoveRequest", "Seat", "Error"} <= set(schemas)
    assert schemas["NewGame"]["properties"]["players"]["maxItems"] == 6


def test_a_client_that_leaves_mid_body_is_quiet(client: TestClient,
                                                caplog: pytest.LogCaptureFixture) -> None:
    app = client.app
    sent: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = [
        {"type": "http.request", "body": b'{"players": [', "more_body": True},
        {"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        """Give the first half of a body, then the client's leaving."""
        return parts.pop(0) if parts else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        """Keep what the server answers."""
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/games", "raw_path": b"/api/games",
             "query_string": b"", "scheme": "http", "http_version": "1.1",
             "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000), "root_path": "",
             "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
                         (b"content-length", b"100")]}
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    assert sent and sent[0]["status"] == 400
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


# -- on a real network ----------------------------------------------------------------------
def test_a_server_on_every_address_tells_the_address_others_open(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from yahtzee.interfaces.web import server
    from yahtzee.interfaces.web.guards import lan_address
    found = lan_address()
    assert found is None or (found.count(".") == 3 and not found.startswith("0."))
    monkeypatch.setattr(server, "lan_address", lambda: "192.168.1.20")
    everywhere, loopback = server.bind("0.0.0.0", 0), server.bind("127.0.0.1", 0)
    try:
        port = everywhere.getsockname()[1]
        assert server.reachable(everywhere) == f"http://192.168.1.20:{port}"
        assert server.reachable(loopback) == f"http://127.0.0.1:{loopback.getsockname()[1]}"
    finally:
        everywhere.close()
        loopback.close()
    assert found is None or found in allowed_hosts("0.0.0.0")
