"""The step index answers alike for recent and packed steps, and a later start wins."""

from __future__ import annotations

import hashlib

from hearts_p2p.chain import GENESIS_HEAD
from hearts_p2p.game.stepindex import StepIndex


def head(i: int) -> bytes:
    return hashlib.sha256(i.to_bytes(4, "big")).digest()


def test_packed_steps_are_found_as_before_and_a_later_start_wins() -> None:
    index, plain = StepIndex(), {GENESIS_HEAD: 0}
    for i in range(200):
        index[head(i)] = plain[head(i)] = 3 * i + 1
        if i % 7 == 0:
            index.pack(3 * i - 20)
    index[head(5)] = plain[head(5)] = 999  # a round moved that step's start on
    index.pack(10_000)
    for key, start in plain.items():
        assert key in index and index[key] == start and index.get(key) == start
    for missing in (head(200), b"short", b"\xff" * 32):
        assert missing not in index and index.get(missing) is None
