"""The past of one game at one peer, in memory for the last hands only.

A long game must not grow a peer's memory hand after hand, yet a rule may ask about any step
already taken: a second message under an old number, or a second part of an old step, proves a
cheat whenever it comes, and a verdict cuts the log back to the step its evidence names. So the
raw entries of hands before the last two leave memory once the shell holds them (``reader``
gives them back from its log file), and what the rules ask of every past entry stays in a few
compact arrays: where each step began and whether it was completed, and where each sender's
numbers were logged (a few bytes per entry). The chain heads of forgotten entries are hashed
again from the file in the rare case a verdict cuts back to one. Without a reader (the
audit, a table in one process that keeps no log) every entry stays in memory.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import overload

from ..chain import GENESIS_HEAD, chain
from ..wire import decode_frame

__all__ = ["History", "LogReader", "StepIndex", "StepRecord", "Steps"]

LogReader = Callable[[int, int], list[bytes]]  # entries [start, stop) as the log file holds them

_HEAD = 32
_RUN = 8  # entries read back at a time: a step has a part per player at most
_BLOOM_BITS = 1 << 18  # 32 KB: a step not among the old ones is known so at once, mostly


class History:
    """The log's entries, those before ``base`` read back through ``reader``, with the chain
    head after each entry and, by sender, where each of its numbers was logged."""

    def __init__(self) -> None:
        self.reader: LogReader | None = None
        self.base = 0  # entries before it are the log file's only
        self._tail: list[bytes] = []
        self._heads = bytearray(GENESIS_HEAD)  # the head after entry base - 1, then after each
        self._parts = bytearray()  # by entry: 1 for a step's part, 0 for a vote, a share, …
        self._seqs: dict[int, tuple[array[int], array[int]]] = {}  # sender -> (seqs, positions)

    def __len__(self) -> int:
        return self.base + len(self._tail)

    @overload
    def __getitem__(self, i: int) -> bytes: ...
    @overload
    def __getitem__(self, i: slice) -> list[bytes]: ...
    def __getitem__(self, i: int | slice) -> bytes | list[bytes]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                raise ValueError("the log is read in runs of entries")
            return self.read(start, stop)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"entry {i} of {len(self)}")
        return self.read(i, i + 1)[0]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.read(0, len(self)))

    def read(self, start: int, stop: int) -> list[bytes]:
        """Entries ``[start, stop)``: the older ones from the log file."""
        stop = min(stop, len(self))
        if start >= stop:
            return []
        old: list[bytes] = []
        if start < self.base:
            assert self.reader is not None
            old = self.reader(start, min(stop, self.base))
            if len(old) != min(stop, self.base) - start:
                raise RuntimeError("the log file does not hold the entries this game logged")
        return old + self._tail[max(0, start - self.base) : stop - self.base]

    @property
    def head(self) -> bytes:
        return bytes(self._heads[-_HEAD:])

    def head_at(self, count: int) -> bytes:
        """The chain head after the first ``count`` entries (hashed again from the log file
        for a count before ``base``)."""
        if count >= self.base:
            at = (count - self.base) * _HEAD
            return bytes(self._heads[at : at + _HEAD])
        head = GENESIS_HEAD
        for raw in self.read(0, count):
            head = chain(head, decode_frame(raw).envelope_bytes)
        return head

    def append(self, raw: bytes, head: bytes, part: tuple[int, int] | None) -> None:
        """Log ``raw``, the chain at ``head`` after it; ``part``: its (sender, number), for a
        step's part (a sender's parts carry rising numbers)."""
        position = len(self)
        self._tail.append(raw)
        self._heads += head
        self._parts.append(part is not None)
        if part is not None:
            seqs, at = self._seqs.setdefault(part[0], (array("I"), array("I")))
            if not seqs or seqs[-1] < part[1]:
                seqs.append(part[1])
                at.append(position)

    def parts(self, start: int, stop: int) -> list[bytes]:
        """The steps' parts among entries ``[start, stop)``."""
        raws = self.read(start, stop)
        return [raw for i, raw in enumerate(raws, start) if self._parts[i]]

    def position_of(self, sender: int, seq: int) -> int | None:
        """Where ``sender``'s message numbered ``seq`` was logged, if it was."""
        seqs, at = self._seqs.get(sender, (array("I"), array("I")))
        i = bisect_left(seqs, seq)
        return at[i] if i < len(seqs) and seqs[i] == seq else None

    def void(self, sender: int) -> None:
        """The numbers ``sender`` signed under so far count no more (a return starts anew)."""
        self._seqs.pop(sender, None)

    def cut(self, count: int) -> None:
        """Keep the first ``count`` entries (a verdict's evidence replaces what followed)."""
        if count < self.base:
            self._heads = bytearray(self.head_at(count))
            self._tail, self.base = [], count
        else:
            del self._tail[count - self.base :]
            del self._heads[(count - self.base + 1) * _HEAD :]
        del self._parts[count:]
        for seqs, at in self._seqs.values():
            while at and at[-1] >= count:
                seqs.pop()
                at.pop()

    def forget(self, count: int) -> list[bytes]:
        """Leave the entries before ``count`` to the log file (with a reader only); the raw
        entries of ``[base, count)`` that left memory."""
        if self.reader is None or count <= self.base:
            return []
        gone = self._tail[: count - self.base]
        del self._tail[: count - self.base]
        del self._heads[: (count - self.base) * _HEAD]
        self.base = count
        return gone


@dataclass(frozen=True)
class StepRecord:
    """A completed step: what each sender sent (the frames), for a late message naming it."""

    got: dict[int, bytes]


class StepIndex:
    """Where each step began in the log, by its ``prev``: recent steps in a dict, older ones as
    packed bytes (32 for the ``prev``, and a count and a flag, completed or not)."""

    def __init__(self) -> None:
        self.recent: dict[bytes, int] = {GENESIS_HEAD: 0}
        self._prevs = bytearray()
        self._counts: array[int] = array("I")
        self._done = bytearray()
        self._bloom = bytearray(_BLOOM_BITS // 8)

    def __contains__(self, prev: object) -> bool:
        return prev in self.recent or (isinstance(prev, bytes) and self._old(prev) is not None)

    def __getitem__(self, prev: bytes) -> int:
        count = self.recent.get(prev)
        if count is not None:
            return count
        i = self._old(prev)
        if i is None:
            raise KeyError(prev)
        return self._counts[i]

    def __setitem__(self, prev: bytes, count: int) -> None:
        self.recent[prev] = count

    def done(self, prev: bytes) -> bool:
        """Whether the old step at ``prev`` was completed (a voided hand's last was not)."""
        i = self._old(prev)
        return i is not None and bool(self._done[i])

    def forget(self, count: int, completed: Callable[[bytes], bool]) -> list[bytes]:
        """Pack the steps that began before entry ``count``; their ``prev`` values."""
        gone = [prev for prev, at in self.recent.items() if at < count]
        for prev in gone:
            self._prevs += prev
            self._counts.append(self.recent.pop(prev))
            self._done.append(completed(prev))
            bit = _bit(prev)
            self._bloom[bit >> 3] |= 1 << (bit & 7)
        return gone

    def _old(self, prev: bytes) -> int | None:
        """The slot of an old step, the last one packed under ``prev``."""
        if len(prev) != _HEAD or not self._prevs:
            return None
        bit = _bit(prev)
        if not self._bloom[bit >> 3] & (1 << (bit & 7)):
            return None
        end = len(self._prevs)
        while (at := self._prevs.rfind(prev, 0, end)) >= 0:
            if at % _HEAD == 0:
                return at // _HEAD
            end = at + _HEAD - 1
        return None


def _bit(prev: bytes) -> int:
    return int.from_bytes(prev[:4], "big") % _BLOOM_BITS


@dataclass(eq=False)
class Steps:
    """The completed steps, by their ``prev``: recent ones as records, older ones read back
    from the log, where a step's parts are the entries from its start that name it."""

    index: StepIndex
    history: History
    recent: dict[bytes, StepRecord] = field(default_factory=dict)

    def __contains__(self, prev: object) -> bool:
        if prev in self.recent:
            return True
        return isinstance(prev, bytes) and prev not in self.index.recent and self.index.done(prev)

    def get(self, prev: bytes) -> StepRecord | None:
        record = self.recent.get(prev)
        if record is not None or prev not in self:
            return record
        got: dict[int, bytes] = {}
        at = self.index[prev]
        while raws := self.history.read(at, at + _RUN):
            for raw in raws:
                env = decode_frame(raw).envelope
                if env.prev != prev:
                    return StepRecord(got)
                got[env.sender] = raw
            at += _RUN
        return StepRecord(got)

    def __getitem__(self, prev: bytes) -> StepRecord:
        record = self.get(prev)
        if record is None:
            raise KeyError(prev)
        return record

    def __setitem__(self, prev: bytes, record: StepRecord) -> None:
        self.recent[prev] = record

    def last(self, n: int) -> list[bytes]:
        """The ``prev`` of the last ``n`` steps completed."""
        return list(self.recent)[-n:]

    def forget(self, prevs: list[bytes]) -> None:
        for prev in prevs:
            self.recent.pop(prev, None)
