"""The ways a connection fails, as domain exceptions instead of leaked trio or OS errors."""

from __future__ import annotations

__all__ = [
    "ConnectionClosed",
    "FrameStalled",
    "FrameTooLarge",
    "HandshakeError",
    "PeerUnavailable",
    "TransportError",
    "TruncatedFrame",
]


class TransportError(Exception):
    """Base of every transport failure."""


class ConnectionClosed(TransportError):
    """The peer closed the stream, it broke, or this side closed it."""


class FrameTooLarge(TransportError):
    """A frame longer than the configured maximum; the connection carrying it is closed."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"frame of {size} bytes exceeds the {limit}-byte maximum")
        self.size = size
        self.limit = limit


class TruncatedFrame(ConnectionClosed):
    """The stream ended in the middle of a frame."""


class FrameStalled(ConnectionClosed):
    """A frame's header came but the rest of it did not, within the deadline."""


class HandshakeError(TransportError):
    """The peer failed mutual authentication; ``reason`` is a short counter key."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


class PeerUnavailable(TransportError):
    """A mesh peer that has no live connection right now, or whose connection was just dropped
    because it did not take what was sent to it."""
