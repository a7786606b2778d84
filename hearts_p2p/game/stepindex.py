"""Where each step of the log began, by the head it began at (its ``prev``).

A peer looks a step up by its ``prev`` for as long as the game lasts: a late or second message
may name any step, and the verdict on it cuts the log back to where that step began. A dict
entry costs a peer some 150 bytes a step in small objects spread over the heap, which a long
game's memory would grow by; the steps of finished hands are packed instead, 40 bytes each,
sorted by ``prev`` and found by bisection. They are packed in 256 buckets by the head's first
byte (heads are hashes, so the buckets fill evenly), each step inserted in place: packing never
builds a copy of the whole index, whose growing size would leave the heap fragmented.
"""

from __future__ import annotations

from array import array

from ..chain import GENESIS_HEAD

__all__ = ["StepIndex"]

_HEAD = 32  # bytes of a chain head
_BATCH = 32  # steps packed at a time


class _Bucket:
    """Packed steps whose heads share a first byte: sorted heads, and where each began."""

    __slots__ = ("keys", "starts")

    def __init__(self) -> None:
        self.keys = bytearray()  # sorted heads, _HEAD bytes each
        self.starts = array("q")

    def find(self, prev: bytes) -> tuple[int, bool]:
        """Where ``prev`` is, or would go; and whether it is there."""
        lo, hi = 0, len(self.starts)
        while lo < hi:
            mid = (lo + hi) // 2
            key = self.keys[mid * _HEAD : (mid + 1) * _HEAD]
            if key == prev:
                return mid, True
            if key < prev:
                lo = mid + 1
            else:
                hi = mid
        return lo, False

    def put(self, prev: bytes, start: int) -> None:
        at, there = self.find(prev)
        if there:
            self.starts[at] = start
            return
        self.keys[at * _HEAD : at * _HEAD] = prev
        self.starts.insert(at, start)


class StepIndex:
    """``prev`` → the log entry its step began at. Recent steps in a dict, whose later value
    wins (a takeover round moves a step's start past its votes); older ones packed."""

    def __init__(self) -> None:
        self._recent: dict[bytes, int] = {GENESIS_HEAD: 0}
        self._packed: dict[int, _Bucket] = {}  # by the head's first byte

    def __setitem__(self, prev: bytes, start: int) -> None:
        self._recent[prev] = start

    def __getitem__(self, prev: bytes) -> int:
        start = self.get(prev)
        if start is None:
            raise KeyError(prev)
        return start

    def __contains__(self, prev: object) -> bool:
        return isinstance(prev, bytes) and self.get(prev) is not None

    def get(self, prev: bytes) -> int | None:
        start = self._recent.get(prev)
        if start is not None:
            return start
        if len(prev) != _HEAD:
            return None
        bucket = self._packed.get(prev[0])
        if bucket is None:
            return None
        at, there = bucket.find(prev)
        return bucket.starts[at] if there else None

    def pack(self, before: int) -> None:
        """Pack the steps that began before entry ``before``, once there are enough of them."""
        old = [p for p, start in self._recent.items() if start < before]
        if len(old) < _BATCH:
            return
        for p in old:
            start = self._recent.pop(p)
            if len(p) != _HEAD:
                continue  # never a head: nothing looks it up
            bucket = self._packed.get(p[0])
            if bucket is None:
                bucket = self._packed[p[0]] = _Bucket()
            bucket.put(p, start)
