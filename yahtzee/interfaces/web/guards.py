"""The browser table's gatekeepers: ASGI middleware that refuses hostile requests early.

- ``HostGuard``: only the host names the server was started for are answered
  (421 otherwise), so that a page whose name is made to point at this
  machine (DNS rebinding) reads nothing and plays nothing;
- ``SameOrigin``: a request that changes something (any method but GET, HEAD
  and OPTIONS) must be JSON (``Content-Type: application/json``) and come from
  the table's own origin, by ``Sec-Fetch-Site`` where the browser sends it,
  else by ``Origin`` (403 otherwise, before the application sees the request);
  a script's request, which carries neither, is taken;
- ``NoStore``: every answer under ``/api`` is ``Cache-Control: no-store``.

Refusals are ``{"error": message}`` like the application's own.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
"""The names of this machine a browser on it may use, when the server listens on loopback."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that change nothing: the only ones taken from another origin."""
SAME_SITE = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of a request from the page itself, or typed in by its user."""
WRONG_HOST = "This server does not answer to that host name."
CROSS_SITE = "Requests that change a game come from the table's own page."
NOT_JSON = "A request that changes a game is JSON (Content-Type: application/json)."


def host_name(value: str) -> str | None:
    """Return the host name of a ``Host`` header or URL netloc, lower case, without its port.

    ``[::1]:8000`` gives ``::1``; None for something that is not a host.
    """
    try:
        parts = urlsplit("//" + value)
        name = parts.hostname
        _ = parts.port  # a port that is not a number raises ValueError
    except ValueError:
        return None
    if not name or any(c in value for c in "/?#@\\ "):
        return None
    return name.rstrip(".")


def _is_loopback(host: str) -> bool:
    """Return whether ``host`` (an address or ``localhost``) is this machine's loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_any(host: str) -> bool:
    """Return whether ``host`` is the any-address (``0.0.0.0`` or ``::``)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def lan_address() -> str | None:
    """Return the address other machines reach this one at (None if there is no network).

    A UDP socket "connected" to a non-routable address sends nothing, but
    makes the system pick the interface, and so the address, it would use.
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.254.254.254", 1))
            found = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if _is_any(found) or _is_loopback(found) else found


def own_names() -> set[str]:
    """Return this machine's names and addresses (for a server listening on every address)."""
    names = {socket.gethostname(), socket.getfqdn()}
    for name in list(names):
        try:
            names.update(socket.gethostbyname_ex(name)[2])
        except OSError:
            pass
    found = lan_address()
    if found is not None:
        names.add(found)
    return {name.lower() for name in names if name}


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """Return the host names a server listening on ``bound`` answers to.

    Its own address; the loopback names when it listens on loopback or on
    every address; this machine's names and addresses when on every address;
    and ``extra`` (the ``--allowed-host`` names).
    """
    names = {bound.strip("[]").lower()}
    if _is_loopback(bound) or _is_any(bound):
        names |= LOOPBACK_NAMES
    if _is_any(bound):
        names |= own_names()
        names.discard(bound.strip("[]").lower())
    names |= {name.strip().strip("[]").lower().rstrip(".") for name in extra if name.strip()}
    return frozenset(names)


def _header(scope: Scope, name: bytes) -> str | None:
    """Return the first header ``name`` (lower case) of ``scope``, decoded as Latin-1."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


async def _refuse(send: Send, status: int, message: str) -> None:
    """Answer ``{"error": message}`` with ``status`` and close the exchange."""
    body = json.dumps({"error": message}, separators=(",", ":")).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class HostGuard:
    """ASGI middleware: answer only requests whose ``Host`` is one of ``hosts`` (else 421).

    ``hosts`` None takes every host (the application alone, as tests and
    embedders use it; ``serve`` always names the hosts).
    """

    def __init__(self, app: ASGIApp, hosts: Iterable[str] | None = None) -> None:
        """Wrap ``app``."""
        self.app = app
        self.hosts = None if hosts is None else frozenset(h.lower() for h in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a request for another host; pass the others on."""
        if scope["type"] == "http" and self.hosts is not None:
            name = host_name(_header(scope, b"host") or "")
            if name is None or name not in self.hosts:
                await _refuse(send, 421, WRONG_HOST)
                return
        await self.app(scope, receive, send)


def own_origin(scope: Scope) -> str | None:
    """Return the origin of the request itself: its scheme, host and port as the browser wrote."""
    host = _header(scope, b"host")
    if not host or host_name(host) is None:
        return None
    return f"{scope.get('scheme', 'http')}://{host.lower()}"


def _same_origin(origin: str, own: str | None) -> bool:
    """Return whether ``origin`` is the request's own (default ports written or not)."""
    if own is None:
        return False
    try:
        theirs, ours = urlsplit(origin.lower()), urlsplit(own)
        ports = {"http": 80, "https": 443}
        return (theirs.scheme == ours.scheme and theirs.hostname == ours.hostname
                and (theirs.port or ports.get(theirs.scheme))
                == (ours.port or ports.get(ours.scheme)))
    except ValueError:
        return False


def cross_site_problem(scope: Scope) -> str | None:
    """Return why a state-changing request is refused (None: it may go on)."""
    kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
    if kind != "application/json":
        return NOT_JSON
    fetched = _header(scope, b"sec-fetch-site")
    if fetched is not None and fetched.strip().lower() not in SAME_SITE:
        return CROSS_SITE
    origin = _header(scope, b"origin")
    if origin is not None and not _same_origin(origin.strip(), own_origin(scope)):
        return CROSS_SITE
    return None


class SameOrigin:
    """ASGI middleware: a request that changes something is JSON from the table's own origin."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse (403) a state-changing request that is not JSON or comes from elsewhere."""
        if scope["type"] == "http" and scope.get("method", "GET") not in SAFE_METHODS:
            problem = cross_site_problem(scope)
            if problem is not None:
                await _refuse(send, 403, problem)
                return
        await self.app(scope, receive, send)


class NoStore:
    """ASGI middleware: answers under ``/api`` may not be kept by any cache."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app``."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Mark every answer of an ``/api`` request ``Cache-Control: no-store``."""
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == "/api" or path.startswith("/api/")):
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            """Set the header at the start of the answer."""
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ())
                           if k.lower() != b"cache-control"]
                message["headers"] = headers + [(b"cache-control", b"no-store")]
            await send(message)

        await self.app(scope, receive, sending)
