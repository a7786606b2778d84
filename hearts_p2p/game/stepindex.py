"""Where each step of the log began, by the head it began at (its ``prev``).

A peer looks a step up by its ``prev`` for as long as the game lasts: a late or second message
may name any step, and the verdict on it cuts the log back to where that step began. A dict
entry costs a peer some 150 bytes a step in small objects spread over the heap, which a long
game's memory would grow by; the steps of finished hands are packed instead, 40 bytes each in
two flat buffers, sorted by ``prev`` and found by bisection.
"""

from __future__ import annotations

from array import array

from ..chain import GENESIS_HEAD

__all__ = ["StepIndex"]

_HEAD = 32  # bytes of a chain head
_BATCH = 32  # steps packed at a time: packing merges them into the whole buffer


class StepIndex:
    """``prev`` → the log entry its step began at. Recent steps in a dict, whose later value
    wins (a takeover round moves a step's start past its votes); older ones packed."""

    def __init__(self) -> None:
        self._recent: dict[bytes, int] = {GENESIS_HEAD: 0}
        self._keys = bytearray()  # sorted heads, _HEAD bytes each
        self._starts = array("q")

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
        at = self._find(prev)
        return self._starts[at] if at is not None else None

    def pack(self, before: int) -> None:
        """Pack the steps that began before entry ``before``, once there are enough of them."""
        old = [p for p, start in self._recent.items() if start < before]
        if len(old) < _BATCH:
            return
        merged = {bytes(self._keys[i * _HEAD : (i + 1) * _HEAD]): self._starts[i]
                  for i in range(len(self._starts))}  # fmt: skip
        for p in old:
            merged[p] = self._recent.pop(p)
        ordered = sorted(merged)
        self._keys = bytearray(b"".join(ordered))
        self._starts = array("q", (merged[p] for p in ordered))

    def _find(self, prev: bytes) -> int | None:
        if len(prev) != _HEAD:
            return None
        lo, hi = 0, len(self._starts)
        while lo < hi:
            mid = (lo + hi) // 2
            key = self._keys[mid * _HEAD : (mid + 1) * _HEAD]
            if key == prev:
                return mid
            if key < prev:
                lo = mid + 1
            else:
                hi = mid
        return None
