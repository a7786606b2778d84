"""The game log on disk: an append-only file of signed entries, and the seat's secrets beside it.

Each record is ``[u32 length][u32 crc32][entry bytes]`` after a short header. Entries are the exact
signed bytes received, so the file can be re-verified by anyone, offline. A power cut can tear
only the last record: loading finds it by its length or CRC and drops it, keeping everything
before it. A bad record anywhere else is corruption and is reported, not skipped. Loading reads
each byte a bounded number of times whatever the file holds, so a crafted log cannot make the
audit slow.

The file knows records, not messages: the game's hash chain is the protocol's, which hashes
each message's signed envelope (``chain.py``).
"""

from __future__ import annotations

import os
import struct
import zlib
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .private_files import open_private, private_dir
from .wire import pack, unpack

__all__ = ["MAGIC", "GameLog", "LoadedLog", "LogCorrupt", "SecretStore", "read_log"]

MAGIC = b"HEARTSLOG\x01\n"
_RECORD = struct.Struct(">II")
MAX_RECORD = 1 << 20


class LogCorrupt(ValueError):
    """A log that is not a game log, or is damaged before its last record."""


@dataclass(frozen=True)
class LoadedLog:
    entries: list[bytes]
    good_size: int  # bytes up to the end of the last whole record
    torn: bool  # a partial last record was found and dropped


def _records(data: bytes) -> Iterator[tuple[int, bytes | None]]:
    """(end offset, entry) per record; entry None for a bad record at that offset (and last)."""
    pos = len(MAGIC)
    while pos < len(data):
        if pos + _RECORD.size > len(data):
            yield pos, None
            return
        length, crc = _RECORD.unpack_from(data, pos)
        end = pos + _RECORD.size + length
        if not 0 < length <= MAX_RECORD or end > len(data):
            yield pos, None
            return
        entry = data[pos + _RECORD.size : end]
        if zlib.crc32(entry) != crc:
            yield pos, None
            return
        yield end, entry
        pos = end


def read_log(path: Path) -> LoadedLog:
    """Read a log; a damaged last record is dropped, damage anywhere else raises."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise LogCorrupt(f"cannot read {path}: {e.strerror or e}") from None
    if not data.startswith(MAGIC):
        raise LogCorrupt(f"{path} is not a hearts-p2p game log")
    entries: list[bytes] = []
    good = len(MAGIC)
    for end, entry in _records(data):
        if entry is None:
            if not _is_torn_tail(data, end):
                raise LogCorrupt(f"{path}: damaged record at byte {end}, with entries after it")
            return LoadedLog(entries, good, torn=True)
        entries.append(entry)
        good = end
    return LoadedLog(entries, good, torn=False)


def _is_torn_tail(data: bytes, pos: int) -> bool:
    """Whether the bad record at ``pos`` is what an interrupted append leaves: the file ends
    inside it, or nothing but zero bytes (space allocated, data never written) follows it.

    Anything else after a bad record is corruption. One look at the rest of the file, so
    loading stays linear in its size (a scan for a valid record at every later offset does not).
    """
    if pos + _RECORD.size > len(data):
        return True
    length, _ = _RECORD.unpack_from(data, pos)
    end = pos + _RECORD.size + length
    if 0 < length <= MAX_RECORD and end >= len(data):
        return True
    start = end if 0 < length <= MAX_RECORD else pos
    return data.count(0, start) == len(data) - start


class GameLog:
    """An open, append-only log file. ``append`` flushes; ``sync`` fsyncs (at step ends).

    It holds where each record starts, not the entries: a long game's memory stays flat, and
    an entry is read back from the file when asked for (``read``), which is rare."""

    def __init__(self, path: Path, f: IO[bytes], loaded: LoadedLog) -> None:
        self.path = path
        self._f = f
        self._starts = array("q")  # each record's offset in the file
        pos = len(MAGIC)
        for entry in loaded.entries:
            self._starts.append(pos)
            pos += _RECORD.size + len(entry)
        self._end = pos
        self.recovered_torn = loaded.torn

    @classmethod
    def open(cls, path: Path) -> GameLog:
        """Open ``path`` for appending, creating it, or loading and resuming an existing one."""
        private_dir(path.parent)
        if path.exists() and path.stat().st_size > 0:
            loaded = read_log(path)
            f: IO[bytes] = os.fdopen(open_private(path, os.O_RDWR), "r+b")
            f.truncate(loaded.good_size)
            f.seek(loaded.good_size)
        else:
            loaded = LoadedLog([], len(MAGIC), torn=False)
            f = os.fdopen(open_private(path, os.O_RDWR | os.O_TRUNC), "r+b")
            f.write(MAGIC)
            f.flush()
            os.fsync(f.fileno())
        return cls(path, f, loaded)

    def __len__(self) -> int:
        return len(self._starts)

    @property
    def entries(self) -> list[bytes]:
        """Every entry, read back from the file."""
        return self.read(0, len(self))

    def read(self, start: int, stop: int) -> list[bytes]:
        """Entries ``start`` to ``stop`` (not included), read back from the file."""
        if not 0 <= start <= stop <= len(self):
            raise ValueError(f"cannot read entries {start}-{stop} of {len(self)}")
        if start == stop:
            return []
        self._f.flush()
        base = self._starts[start]
        end = self._starts[stop] if stop < len(self) else self._end
        # Seek, read and seek back to the end, where appends go on: the same on every OS
        # (Windows has no pread). Only the game task reads and appends; the fsync thread's
        # flush keeps the position.
        try:
            self._f.seek(base)
            data = self._f.read(end - base)
        finally:
            self._f.seek(self._end)
        out = []
        for i in range(start, stop):
            at = self._starts[i] - base
            length, _ = _RECORD.unpack_from(data, at)
            out.append(data[at + _RECORD.size : at + _RECORD.size + length])
        return out

    def append(self, entry: bytes) -> None:
        """Append one entry, flushed to the OS."""
        if len(entry) > MAX_RECORD:
            raise ValueError(f"entry of {len(entry)} bytes exceeds {MAX_RECORD}")
        self._f.write(_RECORD.pack(len(entry), zlib.crc32(entry)) + entry)
        self._f.flush()
        self._starts.append(self._end)
        self._end += _RECORD.size + len(entry)

    def truncate(self, count: int) -> None:
        """Keep only the first ``count`` entries (a resumed peer drops a half-written step,
        which it will write again, whole, once the step completes)."""
        if not 0 <= count <= len(self):
            raise ValueError(f"cannot keep {count} of {len(self)} entries")
        size = self._starts[count] if count < len(self) else self._end
        self._f.flush()
        self._f.truncate(size)
        self._f.seek(size)
        del self._starts[count:]
        self._end = size

    def sync(self) -> None:
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        if not self._f.closed:
            self.sync()
            self._f.close()


class SecretStore:
    """The seat's own secrets (deck keys, nonces) in a 0600 file, replaced atomically.

    Kept apart from the log, which is meant to be shared, so a resumed peer can finish its hand.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, Any]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        value = unpack(data, max_size=16 << 20)
        if not isinstance(value, dict):
            raise LogCorrupt(f"{self.path} is not a secrets file")
        return value

    def save(self, secrets: dict[str, Any]) -> None:
        private_dir(self.path.parent)
        tmp = self.path.with_suffix(".tmp")
        fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC)
        with os.fdopen(fd, "wb") as f:
            f.write(pack(secrets))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
