"""The browser table's API fuzzed from its own OpenAPI description (schemathesis).

Every route of ``/api/openapi.json`` gets requests drawn from its schema,
valid and not: no answer is a 5xx, none lacks ``Cache-Control: no-store``,
and an answer of 4xx changes nothing (the data folder's files and a game's
state are as they were).  Moves are sent to a real game of two people, with
its first seat's secret half of the time.
"""

from __future__ import annotations

import hashlib
import warnings
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
schemathesis = pytest.importorskip("schemathesis")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the test client's notice about httpx's successor
    from starlette.testclient import TestClient  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402

from yahtzee.interfaces.web import server  # noqa: E402
from yahtzee.interfaces.web.server import make_app  # noqa: E402
from yahtzee.solver.cache import Solution  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

FUZZ_EXAMPLES = 60
"""Requests drawn for each route (six routes: the description itself is left out)."""
TRIED: dict[str, list[int]] = {}
"""The statuses seen, by route (its path as the description writes it)."""


class Fuzzed:
    """The application under fuzzing, a game of two people in it, and its first seat's secret."""

    def __init__(self, data: Path) -> None:
        """Start the application (computers never move: ``delay`` an hour) and a game."""
        self.data = data
        self.app = make_app(delay=3600, capacity=50)
        self.client = TestClient(self.app)
        made = self.client.post("/api/games", json={
            "players": [{"kind": "human"}, {"kind": "human"}], "coach": False})
        assert made.status_code == 201, made.text
        self.game = made.json()["game"]
        self.secret = made.json()["links"][0]["secret"]

    def files(self) -> dict[str, str]:
        """Return every file of the data folder with the hash of its contents."""
        return {str(p.relative_to(self.data)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(self.data.rglob("*")) if p.is_file()}

    def state(self) -> Any:
        """Return the game's state as its first seat sees it."""
        return self.client.get(f"/api/games/{self.game}",
                               headers={"X-Seat-Secret": self.secret}).json()


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory, course: Solution) -> Iterator[Fuzzed]:
    """The application under fuzzing, on its own data folder."""
    data = tmp_path_factory.mktemp("fuzz-data")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("YAHTZEE_DATA_DIR", str(data))
        patch.setattr(server, "LONG_POLL", 0.2)  # a drawn ``after`` waits no longer
        yield Fuzzed(data)


def check(case: Any, fuzzed: Fuzzed) -> None:
    """Send ``case``; no 5xx, no cached API answer, and a 4xx changes nothing."""
    if "game_id" in (case.path_parameters or {}) and zlib.crc32(repr(case.body).encode()) % 4:
        case.path_parameters["game_id"] = fuzzed.game
        if zlib.crc32(repr(case.headers).encode()) % 2:
            case.headers = {**(case.headers or {}), "X-Seat-Secret": fuzzed.secret}
    files, state = fuzzed.files(), fuzzed.state()
    answer = case.call()
    TRIED.setdefault(case.operation.path, []).append(answer.status_code)
    assert answer.status_code < 500, answer.text
    assert answer.headers.get("cache-control") == ["no-store"]
    if 400 <= answer.status_code < 500:
        assert set(answer.json()) == {"error"} and "\n" not in answer.json()["error"]
        assert fuzzed.files() == files
        assert fuzzed.state() == state


def test_no_fuzzed_request_gets_a_server_error_or_changes_anything_when_refused(
        fuzzed: Fuzzed) -> None:
    api = schemathesis.openapi.from_asgi("/api/openapi.json", fuzzed.app)
    operations = [found.ok() for found in api.get_all_operations()]
    assert {op.path for op in operations} == {
        "/api/options", "/api/games", "/api/games/{game_id}", "/api/games/{game_id}/moves",
        "/api/games/{game_id}/start", "/api/games/{game_id}/links"}
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        def fuzz(case: Any) -> None:
            """Check one drawn request."""
            check(case, fuzzed)

        fuzz()
    print(f"fuzzed requests tried: {sum(map(len, TRIED.values()))}, 5xx seen: "
          f"{sum(status >= 500 for seen in TRIED.values() for status in seen)}")
    assert set(TRIED) == {op.path for op in operations}
