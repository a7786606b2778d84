"""Frames waiting to be written to one connection, bounded, and the task that writes them.

Senders put frames without waiting; one writer task per connection moves them to the socket.
A peer that does not read shows up here, as a full outbox or as a write that does not finish in
time, and never as a sender stuck behind its socket.
"""

from __future__ import annotations

import math

import trio

from .connection import Connection

__all__ = ["Outbox"]


class Outbox:
    """At most ``max_frames`` frames and ``max_bytes`` bytes not yet written, counting the one
    being written."""

    def __init__(self, max_frames: int, max_bytes: int) -> None:
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self.frames = 0
        self.bytes = 0
        self._in, self._out = trio.open_memory_channel[bytes](math.inf)
        self._empty = trio.Event()
        self._empty.set()

    def put(self, payload: bytes) -> bool:
        """Queue ``payload``; False, queuing nothing, if it does not fit."""
        if self.frames + 1 > self.max_frames or self.bytes + len(payload) > self.max_bytes:
            return False
        if self.frames == 0:
            self._empty = trio.Event()
        self.frames += 1
        self.bytes += len(payload)
        self._in.send_nowait(payload)
        return True

    async def write_to(self, conn: Connection, timeout: float) -> None:
        """Write queued frames for ever; :class:`trio.TooSlowError` if one takes longer than
        ``timeout``, :class:`ConnectionClosed` if the stream breaks."""
        async for payload in self._out:
            with trio.fail_after(timeout):
                await conn.send(payload)
            self.frames -= 1
            self.bytes -= len(payload)
            if self.frames == 0:
                self._empty.set()

    async def wait_empty(self) -> None:
        """Return once everything queued so far has been written, or the outbox is closed."""
        await self._empty.wait()

    def close(self) -> None:
        """Its connection is gone: what is queued will never be written."""
        self._in.close()
        self._empty.set()
