"""The ``serve`` command: its defaults, and one line, not a traceback, without the web extra."""

from __future__ import annotations

import sys

import pytest

from tests.helpers import run_cli
from yahtzee.interfaces.cli import build_parser
from yahtzee.interfaces.wording import WEB_NEEDED


def test_serve_listens_on_this_computer_only_unless_told_otherwise() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.delay, args.max_games) == ("127.0.0.1", 8000, 0.5, 200)


@pytest.mark.parametrize("option", [["--port", "70000"], ["--port", "x"],
                                    ["--max-games", "0"], ["--delay", "9"]])
def test_serve_refuses_bad_options(option: list[str], monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        run_cli(["serve", *option], "", monkeypatch, capsys)
    assert stopped.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_serve_without_the_web_extra_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] in ("starlette", "uvicorn")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.delitem(sys.modules, "yahtzee.interfaces.web.server", raising=False)
    status, out, err = run_cli(["serve", "--port", "0"], "", monkeypatch, capsys)
    assert (status, out) == (1, "")
    assert err.splitlines() == [f"yahtzee: {WEB_NEEDED}"]
