"""Framed, authenticated TCP between peers: connections and the full mesh of a table.

Frames are opaque bytes (4-byte big-endian length, then payload, up to a maximum); the node
decides what they mean. See :mod:`.mesh` for the connection rules.
"""

from .connection import Connection, accept_connection, open_connection
from .errors import (
    ConnectionClosed,
    FrameStalled,
    FrameTooLarge,
    HandshakeError,
    PeerUnavailable,
    TransportError,
    TruncatedFrame,
)
from .framing import DEFAULT_FRAME_TIMEOUT, DEFAULT_MAX_FRAME, FramedStream
from .handshake import PROTOCOL_TAG, Authenticated, accept_handshake, dial_handshake
from .mesh import Member, Mesh, MeshConfig, open_mesh

__all__ = [
    "DEFAULT_FRAME_TIMEOUT",
    "DEFAULT_MAX_FRAME",
    "PROTOCOL_TAG",
    "Authenticated",
    "Connection",
    "ConnectionClosed",
    "FrameStalled",
    "FrameTooLarge",
    "FramedStream",
    "HandshakeError",
    "Member",
    "Mesh",
    "MeshConfig",
    "PeerUnavailable",
    "TransportError",
    "TruncatedFrame",
    "accept_connection",
    "accept_handshake",
    "dial_handshake",
    "open_connection",
    "open_mesh",
]
