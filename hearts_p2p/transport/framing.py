"""Length-prefixed frames over a byte stream: 4-byte big-endian length, then the payload.

The length is checked against a maximum before anything is read, so a peer cannot make us
buffer more than one maximum-sized frame; once a header has come, the rest of its frame must
follow within a deadline, so a frame cut off mid-way ends the connection instead of holding its
reader forever.
"""

from __future__ import annotations

import struct

import trio

from .errors import ConnectionClosed, FrameStalled, FrameTooLarge, TruncatedFrame

__all__ = ["DEFAULT_FRAME_TIMEOUT", "DEFAULT_MAX_FRAME", "FramedStream"]

DEFAULT_MAX_FRAME = 1 << 20
DEFAULT_FRAME_TIMEOUT = 10.0  # a 1 MiB frame at 100 kB/s, a slow link's pace
_LENGTH = struct.Struct(">I")
_CHUNK = 1 << 16


class FramedStream:
    """Frames over a :class:`trio.abc.Stream`; not safe for two concurrent senders."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        max_frame: int = DEFAULT_MAX_FRAME,
        frame_timeout: float = DEFAULT_FRAME_TIMEOUT,
    ) -> None:
        if not 0 < max_frame < 2**32:
            raise ValueError("max_frame must fit a 4-byte length")
        self.stream = stream
        self.max_frame = max_frame
        self.frame_timeout = frame_timeout
        self._buffer = bytearray()

    async def send_frame(self, payload: bytes) -> None:
        if len(payload) > self.max_frame:
            raise FrameTooLarge(len(payload), self.max_frame)
        try:
            # One write, so a small frame travels in one segment.
            await self.stream.send_all(_LENGTH.pack(len(payload)) + payload)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
            raise ConnectionClosed(str(e) or "connection lost while sending") from e

    async def send_frames(self, payloads: list[bytes]) -> None:
        """Several frames in one write: a burst (relays, then the peer's own message) costs
        one system call and reaches the reader together, not one wake-up per frame."""
        for payload in payloads:
            if len(payload) > self.max_frame:
                raise FrameTooLarge(len(payload), self.max_frame)
        data = b"".join(part for p in payloads for part in (_LENGTH.pack(len(p)), p))
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
            raise ConnectionClosed(str(e) or "connection lost while sending") from e

    async def receive_frame(self, limit: int | None = None) -> bytes:
        """The next frame; ``limit`` lowers the maximum for this frame (handshake messages).

        Waiting for a frame to start has no deadline (the caller's scope bounds it); once its
        first byte is here, the rest must come within ``frame_timeout``, else
        :class:`FrameStalled`.
        """
        limit = self.max_frame if limit is None else min(limit, self.max_frame)
        await self._fill(1, at_boundary=True)
        with trio.move_on_after(self.frame_timeout):
            await self._fill(_LENGTH.size)
            (size,) = _LENGTH.unpack(self._take(_LENGTH.size))
            if size > limit:
                raise FrameTooLarge(size, limit)
            await self._fill(size)
            return self._take(size)
        raise FrameStalled(f"a frame was not completed within {self.frame_timeout} s")

    async def _fill(self, n: int, *, at_boundary: bool = False) -> None:
        while len(self._buffer) < n:
            try:
                chunk = await self.stream.receive_some(max(_CHUNK, n - len(self._buffer)))
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                raise ConnectionClosed(str(e) or "connection lost while receiving") from e
            if not chunk:
                if at_boundary and not self._buffer:
                    raise ConnectionClosed("peer closed the connection")
                raise TruncatedFrame("stream ended inside a frame")
            self._buffer += chunk

    def _take(self, n: int) -> bytes:
        data = bytes(self._buffer[:n])
        del self._buffer[:n]
        return data

    async def aclose(self) -> None:
        await self.stream.aclose()
