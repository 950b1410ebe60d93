"""Rows of a table worked out on demand, kept in one file that every process maps.

The exact distributions of the game's last turns (``moments.LastTurn``) are
worked out a row at a time, as positions ask for them, and a long-running
server ends up holding hundreds of megabytes of them.  Kept in a
``RowFile`` in the cache folder, a row is worked out once for every process
of the machine and for the processes that come later, and its memory is the
operating system's page cache, shared by all of them, rather than a copy in
each process.

The file is a header page (what the rows are: their record type, their
count and the key of the table they come from), then one mark per row, then
the rows, each a fixed-size record.  A process maps the file read-only and
writes only through ``os.pwrite``: a row's record first, then its mark, the
CRC-32 of the record.  A mark that does not match its record (a process
stopped between the two writes, a machine that lost power) leaves the row to
be worked out again, so nothing half-written is ever read as a row; each
process checks a row's mark once, the first time it needs the row.  A full
disk is an ``OSError`` from ``write``, never a fault in a mapped page (the
file is made at its full, sparse, size before it gets its name, and nothing
ever shortens it).  Where files cannot be mapped and written like this
(``os.pwrite`` missing, a read-only folder), ``RowFile.open`` returns None and
the caller keeps its rows in memory.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

MAGIC = b"YAHTZEE-SOLVER-ROWS\n"
"""The first line of every row file."""
FORMAT_VERSION = 1
"""Bumped whenever the layout or the meaning of a row file's bytes changes."""
HEADER_BYTES = 4096
"""The header's page: the magic line, then the header as one JSON line, then zeros."""
UNSET = 0
"""The mark of a row never written (a row whose CRC-32 is 0 is simply worked out again)."""


def _aligned(offset: int) -> int:
    """Return ``offset`` rounded up to the next page (4,096 bytes)."""
    return -(-offset // HEADER_BYTES) * HEADER_BYTES


class RowFile:
    """A file of ``count`` fixed-size records (``dtype``) for table ``key``, mapped read-only.

    ``records`` and ``marks`` are views of the mapped file: what any process
    writes shows in them at once.  Thread-safe as far as the file goes
    (every write is one ``pwrite``); the caller decides which rows to write.
    """

    def __init__(self, path: Path, fd: int, dtype: np.dtype[Any], count: int) -> None:
        """Map the open, checked file ``fd`` at ``path`` (use ``open``)."""
        self.path = path
        self._fd = fd
        self.dtype = dtype
        self.count = count
        self._marks_at = HEADER_BYTES
        self._records_at = _aligned(HEADER_BYTES + 4 * count)
        mapped = np.memmap(path, dtype=np.uint8, mode="r")
        self.marks: npt.NDArray[np.uint32] = mapped[self._marks_at:self._marks_at + 4 * count
                                                    ].view(np.uint32)
        """Per row: the CRC-32 of its record once written (``UNSET`` before)."""
        self.records: npt.NDArray[Any] = mapped[
            self._records_at:self._records_at + dtype.itemsize * count].view(dtype)
        """The rows' records, as every process wrote them (zeros where none did)."""

    @classmethod
    def open(cls, path: Path, dtype: np.dtype[Any], count: int, key: str) -> RowFile | None:
        """Return the row file at ``path`` for ``count`` records of ``dtype`` from table ``key``.

        The file is made if it is missing (complete with its header before it
        gets its name, so no process sees half a header).  One whose header
        says anything else (another format, damaged) is replaced; what other
        processes mapped of it stays theirs.  None where row files cannot be
        kept (no ``os.pwrite``; the folder is missing or cannot be written;
        the file cannot be made or mapped): the caller keeps its rows in memory.
        """
        if not hasattr(os, "pwrite"):
            return None
        header = cls._header(dtype, count, key)
        size = _aligned(HEADER_BYTES + 4 * count) + dtype.itemsize * count
        for attempt in range(2):
            try:
                fd = cls._open_or_make(path, header, size)
            except OSError:
                return None
            try:
                if cls._fits(fd, header, size):
                    return cls(path, fd, dtype, count)
            except (OSError, ValueError):  # unreadable, or not mapped: left as it is
                os.close(fd)
                return None
            os.close(fd)
            try:
                if attempt == 0:
                    os.unlink(path)  # what other processes mapped of it stays theirs
            except OSError:
                return None
        return None

    @staticmethod
    def _header(dtype: np.dtype[Any], count: int, key: str) -> bytes:
        """Return the header page's bytes for these rows."""
        fields = {"format": FORMAT_VERSION, "key": key, "count": count,
                  "record": np.lib.format.dtype_to_descr(dtype)}
        line = MAGIC + json.dumps(fields, sort_keys=True).encode() + b"\n"
        if len(line) > HEADER_BYTES:
            raise ValueError("a row file's header does not fit its page")
        return line.ljust(HEADER_BYTES, b"\0")

    @staticmethod
    def _open_or_make(path: Path, header: bytes, size: int) -> int:
        """Return the file at ``path`` open to read and write, made first if missing."""
        try:
            return os.open(path, os.O_RDWR)
        except FileNotFoundError:
            pass
        temp = path.with_name(f"{path.name}.{os.getpid()}.new")
        fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.pwrite(fd, header, 0)
            os.ftruncate(fd, size)
            try:
                os.link(temp, path)
            except FileExistsError:  # another process made it meanwhile: take theirs
                made, fd = fd, -1  # closed once: its number may be another's next
                os.close(made)
                fd = os.open(path, os.O_RDWR)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            raise
        finally:
            os.unlink(temp)
        return fd

    @staticmethod
    def _fits(fd: int, header: bytes, size: int) -> bool:
        """Return whether the open file ``fd`` holds these rows (header and size)."""
        return os.fstat(fd).st_size == size and os.pread(fd, HEADER_BYTES, 0) == header

    def written(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Return, per row of ``rows``, whether its record is whole (its mark matches it)."""
        marks = self.marks.take(rows)
        return np.array([mark != UNSET and mark == zlib.crc32(self.records[row].tobytes())
                         for row, mark in zip(rows.tolist(), marks.tolist())], dtype=np.bool_)

    def write(self, rows: npt.NDArray[np.int64], records: npt.NDArray[Any]) -> None:
        """Write ``records`` as the rows ``rows``, each record before its mark.

        ``OSError`` when the file cannot take them (a full disk, say): the
        rows not marked stay unwritten, as far as any reader goes.
        """
        size = self.dtype.itemsize
        for row, record in zip(rows.tolist(), records):
            data = record.tobytes()
            if os.pwrite(self._fd, data, self._records_at + row * size) != size:
                raise OSError(f"{self.path}: only part of a row was written")
            mark = np.uint32(zlib.crc32(data)).tobytes()
            if os.pwrite(self._fd, mark, self._marks_at + 4 * row) != 4:
                raise OSError(f"{self.path}: only part of a row's mark was written")

    def close(self) -> None:
        """Let go of the file (the mapping goes with the last view of it)."""
        try:
            os.close(self._fd)
        except OSError:
            pass
