"""The browser table against hostile pages and clients: cross-site requests, DNS rebinding,
caching, private advice, bad fields.

Every refusal here is answered before anything changes: no game is made,
no move is taken, nothing is written in the data folder.
"""

from __future__ import annotations

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
def test_the_tables_own_page_and_scripts_are_served(client: TestClient,
                                                    headers: dict[str, str]) -> None:
    answer = client.post("/api/games", content=b'{"players": [{"kind": "human"}]}',
                         headers=headers)
    assert answer.status_code == 201, answer.text


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


# -- what is already held: private advice, bad rules -----------------------------------------
def test_the_coachs_advice_goes_only_to_the_seat_it_advises(
        client: TestClient, course: Solution) -> None:
    game, (ann, bob) = two_people(client, coach=True)
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
