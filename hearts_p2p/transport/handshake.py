"""Mutual authentication of a new stream by signed challenge against the identity keys.

Each side sends a hello (protocol tag, table id, its public key, a fresh 32-byte nonce), then a
signature over a transcript binding the table id, both keys in dialer-then-acceptor order and
both nonces, prefixed with its own role. Fresh nonces stop replay of an old handshake; the role
prefix stops a peer reflecting our own signature back; the table id keeps a handshake for one
table from being used at another.

This authenticates who is at the other end when the connection opens. It does not encrypt or
MAC the frames that follow: every game message is itself signed by its seat's key.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Collection

from hearts_p2p.identity import PUBLIC_KEY_BYTES, SIGNATURE_BYTES, Identity, verify

from .errors import ConnectionClosed, FrameTooLarge, HandshakeError
from .framing import FramedStream

__all__ = ["PROTOCOL_TAG", "handshake"]

PROTOCOL_TAG = b"hearts-p2p/tcp/1"
TABLE_ID_BYTES = 16
NONCE_BYTES = 32
HELLO_BYTES = len(PROTOCOL_TAG) + TABLE_ID_BYTES + PUBLIC_KEY_BYTES + NONCE_BYTES
_TRANSCRIPT_TAG = b"hearts-p2p handshake transcript\0"
_ROLE = {True: b"dialer\0", False: b"acceptor\0"}


def transcript(
    table_id: bytes, dialer: tuple[bytes, bytes], acceptor: tuple[bytes, bytes]
) -> bytes:
    """SHA-256 over the table id and each side's (public key, nonce), dialer first."""
    return hashlib.sha256(
        _TRANSCRIPT_TAG + table_id + dialer[0] + acceptor[0] + dialer[1] + acceptor[1]
    ).digest()


async def _receive(frames: FramedStream, size: int, what: str) -> bytes:
    try:
        data = await frames.receive_frame(limit=size)
    except FrameTooLarge:
        raise HandshakeError("malformed", f"{what} too long") from None
    except ConnectionClosed:
        raise HandshakeError("closed", f"closed before {what}") from None
    if len(data) != size:
        raise HandshakeError("malformed", f"{what} is {len(data)} bytes, not {size}")
    return data


async def _send(frames: FramedStream, data: bytes) -> None:
    try:
        await frames.send_frame(data)
    except ConnectionClosed:
        raise HandshakeError("closed", "closed during handshake") from None


async def handshake(
    frames: FramedStream,
    identity: Identity,
    table_id: bytes,
    *,
    dialer: bool,
    expected: Collection[bytes] | None = None,
) -> bytes:
    """Authenticate the peer on ``frames``; its public key, or :class:`HandshakeError`.

    ``expected`` is the set of keys allowed at the other end (the one key a dialer called, the
    roster for an acceptor); ``None`` accepts any key that proves itself. Both sides send
    before they receive, so the exchange takes two round trips whoever starts. Wrap it in a
    cancel scope: a silent peer is met with the caller's timeout.
    """
    if len(table_id) != TABLE_ID_BYTES:
        raise ValueError("table id is 16 bytes")
    nonce = secrets.token_bytes(NONCE_BYTES)
    await _send(frames, PROTOCOL_TAG + table_id + identity.public_key + nonce)
    hello = await _receive(frames, HELLO_BYTES, "hello")
    tag, rest = hello[: len(PROTOCOL_TAG)], hello[len(PROTOCOL_TAG) :]
    if tag != PROTOCOL_TAG:
        raise HandshakeError("protocol", "not a hearts-p2p peer or another version")
    if rest[:TABLE_ID_BYTES] != table_id:
        raise HandshakeError("table", "peer is at another table")
    peer_key = rest[TABLE_ID_BYTES : TABLE_ID_BYTES + PUBLIC_KEY_BYTES]
    peer_nonce = rest[TABLE_ID_BYTES + PUBLIC_KEY_BYTES :]
    if peer_key == identity.public_key:
        raise HandshakeError("self", "peer claims our own key")
    if expected is not None and peer_key not in expected:
        raise HandshakeError("unknown-peer", "key not expected here")
    mine, theirs = (identity.public_key, nonce), (peer_key, peer_nonce)
    digest = transcript(table_id, *((mine, theirs) if dialer else (theirs, mine)))
    await _send(frames, identity.sign(_ROLE[dialer] + digest))
    proof = await _receive(frames, SIGNATURE_BYTES, "signature")
    if not verify(peer_key, proof, _ROLE[not dialer] + digest):
        raise HandshakeError("signature", "peer did not prove its key")
    return peer_key
