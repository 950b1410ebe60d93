"""The ``serve`` command: its defaults, and one message, not a traceback, without the web extra."""

from __future__ import annotations

import sys

import pytest

from tests.helpers import message_of, run_cli
from yahtzee.interfaces.cli import build_parser
from yahtzee.interfaces.reporting import fit_error
from yahtzee.interfaces.wording import WEB_NEEDED


def test_serve_listens_on_this_computer_only_unless_told_otherwise() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.delay, args.max_games) == ("127.0.0.1", 8000, 0.5, 200)


@pytest.mark.parametrize("option, message", [
    (["--port", "70000"], "argument --port: '70000' is not a whole number from 0 to 65535"),
    (["--port", "x"], "argument --port: 'x' is not a whole number from 0 to 65535"),
    (["--max-games", "0"], "argument --max-games: '0' is not a whole number from 1 to 10000"),
    (["--delay", "9"], "argument --delay: '9' is not a number of seconds from 0 to 5"),
    (["--workers", "65"], "argument --workers: '65' is not a whole number from 1 to 64"),
])
def test_serve_refuses_bad_options(option: list[str], message: str,
                                   monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        run_cli(["serve", *option], "", monkeypatch, capsys)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert message in message_of(err) and "Traceback" not in err


def test_serve_without_the_web_extra_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] in ("starlette", "uvicorn")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.delitem(sys.modules, "yahtzee.interfaces.web.server", raising=False)
    status, out, err = run_cli(["serve", "--port", "0"], "", monkeypatch, capsys)
    assert (status, out) == (1, "")
    assert err == fit_error(f"yahtzee: {WEB_NEEDED}") + "\n"
