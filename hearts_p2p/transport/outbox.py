"""Frames waiting to be written to one connection, bounded, and the task that writes them.

Senders put frames without waiting; one writer task per connection moves them to the socket.
A peer that does not read shows up here, as a full outbox or as a write that does not finish in
time, and never as a sender stuck behind its socket.

A frame may be *held* (a relay: in an honest game every peer has it already from its sender):
it waits up to ``hold`` seconds to go out with the next frame not held, or with the relays
queued meanwhile, in one write. A system call and a wake-up of the reader per frame are most of
what a frame costs on loopback, and relays are most of the frames. Order is kept: a held frame
is written before anything queued after it.
"""

from __future__ import annotations

from collections import deque

import trio

from .connection import Connection

__all__ = ["BATCH_BYTES", "RELAY_HOLD", "Outbox"]

BATCH_BYTES = 1 << 18  # frames joined into one write: a burst, never a whole backlog at once
RELAY_HOLD = 0.02  # seconds a held frame may wait for company


class Outbox:
    """At most ``max_frames`` frames and ``max_bytes`` bytes not yet written, counting the ones
    being written."""

    def __init__(self, max_frames: int, max_bytes: int, hold: float = RELAY_HOLD) -> None:
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self.hold = hold
        self.frames = 0
        self.bytes = 0
        self.written = 0  # frames written so far, and the writes they took
        self.writes = 0
        self._queue: deque[tuple[bytes, bool]] = deque()  # (frame, held)
        self._urgent = 0  # frames in the queue that are not held
        self._held_since: float | None = None  # when the oldest held frame queued was put
        self._wake = trio.Event()
        self._closed = False
        self._empty = trio.Event()
        self._empty.set()

    def put(self, payload: bytes, *, held: bool = False) -> bool:
        """Queue ``payload``; False, queuing nothing, if it does not fit or the outbox is
        closed. A ``held`` frame may wait up to ``hold`` seconds for company."""
        if self._closed:
            return False
        if self.frames + 1 > self.max_frames or self.bytes + len(payload) > self.max_bytes:
            return False
        if self.frames == 0:
            self._empty = trio.Event()
        self.frames += 1
        self.bytes += len(payload)
        self._queue.append((payload, held))
        if not held:
            self._urgent += 1
        elif self._held_since is None:
            self._held_since = trio.current_time()
        self._wake.set()
        return True

    async def write_to(self, conn: Connection, timeout: float) -> None:
        """Write queued frames until the outbox is closed, every frame due at once in one write
        (at most ``BATCH_BYTES`` of them); :class:`trio.TooSlowError` if a write takes longer
        than ``timeout``, :class:`ConnectionClosed` if the stream breaks."""
        while await self._due():
            batch: list[bytes] = []
            size = 0
            while self._queue and (not batch or size < BATCH_BYTES):
                payload, held = self._queue.popleft()
                batch.append(payload)
                size += len(payload)
                self._urgent -= not held
            self._held_since = trio.current_time() if self._queue else None
            with trio.fail_after(timeout):
                await conn.send_many(batch)
            self.frames -= len(batch)
            self.bytes -= size
            self.written += len(batch)
            self.writes += 1
            if self.frames == 0:
                self._empty.set()

    async def _due(self) -> bool:
        """Wait until a frame is due: one not held, or a held one that has waited ``hold``;
        False once the outbox is closed."""
        while not self._closed:
            if self._urgent:
                return True
            deadline = float("inf")
            if self._held_since is not None:
                deadline = self._held_since + self.hold
                if trio.current_time() >= deadline:
                    return True
            self._wake = trio.Event()
            with trio.move_on_at(deadline):
                await self._wake.wait()
        return False

    async def wait_empty(self) -> None:
        """Return once everything queued so far has been written, or the outbox is closed."""
        await self._empty.wait()

    def close(self) -> None:
        """Its connection is gone: what is queued will never be written."""
        self._closed = True
        self._queue.clear()
        self._wake.set()
        self._empty.set()
