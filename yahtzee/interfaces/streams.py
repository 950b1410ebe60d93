"""The standard streams made safe for play: closed ones, undecodable bytes, unprintable text.

A player may start the program with a stream closed (``<&-``, ``>&-``,
``2>&-``), type bytes that are not UTF-8, or name a player with control
characters.  None of these may end in a traceback or reach the terminal raw.
"""

from __future__ import annotations

import io
import os
import sys

STANDARD_FDS = (0, 1, 2)


def reopen_closed_fds() -> set[int]:
    """Open the null device on each closed standard descriptor; return the ones that were closed.

    Without this, the next file the program opens (a save, the history)
    would take the closed descriptor's number, and output meant for the
    terminal could end up inside it.
    """
    closed = set()
    for fd in STANDARD_FDS:
        try:
            os.fstat(fd)
        except OSError:
            closed.add(fd)
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    return closed


def prepare_streams() -> bool:
    """Make the standard streams safe to read and write; return whether standard output is open.

    A closed standard input reads as empty; a closed standard error writes
    nowhere.  Bytes typed that are not in the input's encoding are kept as
    lone surrogates (shown by ``printable`` as ``\\xff``) instead of failing
    the read, and text the output cannot encode is written as escapes.
    """
    reopen_closed_fds()
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="surrogateescape")
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    return sys.stdout is not None


def printable(text: str) -> str:
    """Return ``text`` with every character a terminal would not show as itself escaped.

    Control characters (an escape code, a newline) become ``\\x1b``-style
    escapes and undecodable bytes ``\\xff``, so that typed input or a name
    never moves the cursor or breaks a line.
    """
    shown = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            shown.append(f"\\x{code - 0xDC00:02x}")
        elif char.isprintable():
            shown.append(char)
        else:
            shown.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(shown)


ECHO_LIMIT = 40
"""The most characters of a refused value that a command-line error repeats."""


def quoted(text: str, limit: int = ECHO_LIMIT) -> str:
    """Return ``text`` as an error repeats it: ``printable``, in quotes, and cut short with
    its length when longer than ``limit`` characters (``'xxxx...' (5000 characters)``)."""
    seen = printable(text)
    return f"'{seen}'" if len(seen) <= limit else f"'{seen[:limit]}...' ({len(text)} characters)"
