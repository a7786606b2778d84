"""The log file: appends survive reopening, a torn tail is dropped, damage elsewhere is reported."""

from __future__ import annotations

import os
import stat
import struct
import zlib
from pathlib import Path

import pytest

from hearts_p2p import log as log_module
from hearts_p2p.log import GameLog, LogCorrupt, SecretStore, read_log


def write(path: Path, entries: list[bytes]) -> GameLog:
    log = GameLog.open(path)
    for e in entries:
        log.append(e)
    log.sync()
    return log


def test_entries_survive_reopen(tmp_path: Path) -> None:
    p = tmp_path / "game.log"
    log = write(p, [b"one", b"two", b"three"])
    log.close()
    again = GameLog.open(p)
    assert again.entries == [b"one", b"two", b"three"]
    again.append(b"four")
    again.close()
    assert read_log(p).entries[-1] == b"four"


@pytest.mark.parametrize("cut", [1, 4, 8, 9, 12])
def test_torn_last_record_is_dropped_and_nothing_before_lost(tmp_path: Path, cut: int) -> None:
    p = tmp_path / "game.log"
    write(p, [b"alpha", b"beta", b"gamma-gamma"]).close()
    size = p.stat().st_size
    with open(p, "r+b") as f:
        f.truncate(size - cut)
    loaded = read_log(p)
    assert loaded.torn and loaded.entries == [b"alpha", b"beta"]
    log = GameLog.open(p)  # resuming truncates the torn bytes and appends cleanly
    assert log.recovered_torn
    log.append(b"delta")
    log.close()
    assert read_log(p).entries == [b"alpha", b"beta", b"delta"]


def test_zero_filled_tail_counts_as_torn(tmp_path: Path) -> None:
    p = tmp_path / "game.log"
    write(p, [b"alpha"]).close()
    with open(p, "ab") as f:
        f.write(bytes(4096))
    loaded = read_log(p)
    assert loaded.torn and loaded.entries == [b"alpha"]


def test_damage_before_the_end_is_corruption(tmp_path: Path) -> None:
    p = tmp_path / "game.log"
    write(p, [b"alpha" * 10, b"beta" * 10, b"gamma" * 10]).close()
    data = bytearray(p.read_bytes())
    data[30] ^= 0xFF  # inside the first entry
    p.write_bytes(bytes(data))
    with pytest.raises(LogCorrupt, match="damaged record"):
        read_log(p)


def test_not_a_log(tmp_path: Path) -> None:
    p = tmp_path / "x"
    p.write_bytes(b"hello")
    with pytest.raises(LogCorrupt, match="not a hearts-p2p game log"):
        read_log(p)
    with pytest.raises(LogCorrupt, match="cannot read"):
        read_log(tmp_path / "missing")


def test_secrets_file_is_private_and_atomic(tmp_path: Path) -> None:
    store = SecretStore(tmp_path / "s" / "secrets")
    assert store.load() == {}
    store.save({"k": b"\x01" * 32, "n": 3})
    assert store.load() == {"k": b"\x01" * 32, "n": 3}
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600


def test_truncate_keeps_a_prefix_and_appends_after_it(tmp_path: Path) -> None:
    p = tmp_path / "game.log"
    log = write(p, [b"one", b"two", b"three"])
    log.truncate(1)
    log.append(b"four")
    log.close()
    assert read_log(p).entries == [b"one", b"four"]
    with pytest.raises(ValueError):
        GameLog.open(p).truncate(5)


class CountingCrc:
    """Stands in for ``zlib`` in the loader: counts the bytes it checksums, and stops the test
    at a budget, so a loader that rescans the file fails quickly instead of taking minutes."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.scanned = 0

    def crc32(self, data: bytes) -> int:
        self.scanned += len(data)
        if self.scanned > self.budget:
            raise AssertionError(f"checksummed {self.scanned} bytes, over {self.budget}")
        return zlib.crc32(data)


@pytest.mark.parametrize("size", [1 << 16, 1 << 20])
def test_a_crafted_log_loads_in_linear_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """One bad record, then a pattern in which every offset reads as a plausible record header
    (a length that fits in what is left, a wrong CRC). The loader reports the damage after
    checksumming no more than the file's own size."""
    p = tmp_path / "crafted.log"
    write(p, [b"alpha" * 20, b"beta" * 20]).close()
    bad = struct.pack(">II", 40, 0) + bytes(40)
    pattern = bytes([0, 0, 1, 0]) * (size // 4)  # lengths 256, 65536 and 1 at every offset
    with open(p, "ab") as f:
        f.write(bad + pattern)
    counter = CountingCrc(budget=p.stat().st_size)
    monkeypatch.setattr(log_module, "zlib", counter)
    with pytest.raises(LogCorrupt, match="damaged record"):
        read_log(p)
    assert 0 < counter.scanned <= p.stat().st_size


def test_a_torn_record_with_zeros_after_it_is_a_torn_tail(tmp_path: Path) -> None:
    """The last append's length made it to disk, its data and what follows did not."""
    p = tmp_path / "game.log"
    write(p, [b"alpha"]).close()
    with open(p, "ab") as f:
        f.write(struct.pack(">II", 10, 1234) + bytes(10) + bytes(100))
    loaded = read_log(p)
    assert loaded.torn and loaded.entries == [b"alpha"]


def test_entries_are_read_back_from_the_file_not_memory(tmp_path: Path) -> None:
    """The open log holds where records start, not their bytes: any range reads back as
    written, after a truncate and appends too, and a range past the end is refused."""
    p = tmp_path / "game.log"
    log = write(p, [bytes([i]) * (i + 1) for i in range(10)])
    assert log.read(3, 6) == [bytes([i]) * (i + 1) for i in range(3, 6)]
    assert log.read(4, 4) == [] and len(log) == 10
    log.truncate(5)
    log.append(b"after")
    assert log.read(4, 6) == [bytes([4]) * 5, b"after"] and len(log) == 6
    with pytest.raises(ValueError):
        log.read(2, 7)
    log.close()
    assert read_log(p).entries[-2:] == [bytes([4]) * 5, b"after"]


def test_reading_back_needs_no_pread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows has no ``os.pread``: a range reads back without it, and appends still go on at
    the end."""
    monkeypatch.delattr(os, "pread")
    p = tmp_path / "game.log"
    log = write(p, [b"a", b"bb", b"ccc"])
    assert log.read(1, 3) == [b"bb", b"ccc"]
    log.append(b"dddd")
    assert log.read(0, 1) == [b"a"]
    log.append(b"eeeee")
    assert log.read(3, 5) == [b"dddd", b"eeeee"]
    log.close()
    assert read_log(p).entries == [b"a", b"bb", b"ccc", b"dddd", b"eeeee"]
