"""Mutual authentication of a new stream by signed challenge, the caller proving itself first.

Both sides open with a hello that says nothing about the game: the protocol tag and a fresh
32-byte nonce. The dialer then sends its key and a signature over a transcript binding the
table id, its own key, the key it means to reach and both nonces. Only if that proves a key the
acceptor expects, at the acceptor's own table and addressed to the acceptor, does the acceptor
answer with its key and its signature over the same transcript (with its real key); otherwise it
sends an empty refusal and closes. So a listener hands nothing to a stranger — not its key, not
its table id (which travels only inside a hash) — and a dialer shows its key only to whoever
answers at the address it chose to call.

Fresh nonces stop replay of an old handshake; the role prefix stops a peer reflecting our own
signature back; naming the acceptor's key stops a peer we called relaying our proof to a third
party as if we had called it. The transcript is kept: lobby messages sign over it, so a relay
cannot carry them into another connection.

This authenticates who is at the other end when the connection opens. It does not encrypt or
MAC the frames that follow: every game message is itself signed by its seat's key.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from collections.abc import Collection
from dataclasses import dataclass

from hearts_p2p.identity import PUBLIC_KEY_BYTES, SIGNATURE_BYTES, Identity, verify

from .errors import ConnectionClosed, FrameTooLarge, HandshakeError
from .framing import FramedStream

__all__ = ["ANY_KEY", "PROTOCOL_TAG", "Authenticated", "accept_handshake", "dial_handshake"]

PROTOCOL_TAG = b"hearts-p2p/tcp/2"
TABLE_ID_BYTES = 16
NONCE_BYTES = 32
HELLO_BYTES = len(PROTOCOL_TAG) + NONCE_BYTES
PROOF_BYTES = PUBLIC_KEY_BYTES + SIGNATURE_BYTES
ANY_KEY = bytes(PUBLIC_KEY_BYTES)  # what a dialer names when it does not know whom it calls
_TRANSCRIPT_TAG = b"hearts-p2p handshake transcript 2\0"
_ROLE = {True: b"dialer\0", False: b"acceptor\0"}


@dataclass(frozen=True)
class Authenticated:
    """The proven key at the other end and the transcript both sides signed."""

    peer_key: bytes
    transcript: bytes


def transcript(
    table_id: bytes, dialer_key: bytes, acceptor_key: bytes, nonces: tuple[bytes, bytes]
) -> bytes:
    """SHA-256 over the table id, the dialer's and the acceptor's keys, and both nonces."""
    return hashlib.sha256(
        _TRANSCRIPT_TAG + table_id + dialer_key + acceptor_key + nonces[0] + nonces[1]
    ).digest()


async def _receive(frames: FramedStream, sizes: Collection[int], what: str) -> bytes:
    try:
        data = await frames.receive_frame(limit=max(sizes))
    except FrameTooLarge:
        raise HandshakeError("malformed", f"{what} too long") from None
    except ConnectionClosed:
        raise HandshakeError("closed", f"closed before {what}") from None
    if len(data) not in sizes:
        raise HandshakeError("malformed", f"{what} is {len(data)} bytes")
    return data


async def _send(frames: FramedStream, data: bytes) -> None:
    try:
        await frames.send_frame(data)
    except ConnectionClosed:
        raise HandshakeError("closed", "closed during handshake") from None


async def _hellos(frames: FramedStream) -> tuple[bytes, bytes]:
    """Exchange hellos; (our nonce, theirs)."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    await _send(frames, PROTOCOL_TAG + nonce)
    hello = await _receive(frames, (HELLO_BYTES,), "hello")
    if hello[: len(PROTOCOL_TAG)] != PROTOCOL_TAG:
        raise HandshakeError("protocol", "not a hearts-p2p peer or another version")
    theirs = hello[len(PROTOCOL_TAG) :]
    if theirs == nonce:
        raise HandshakeError("self", "peer reflected our hello")
    return nonce, theirs


def _check_table(table_id: bytes) -> None:
    if len(table_id) != TABLE_ID_BYTES:
        raise ValueError("table id is 16 bytes")


async def dial_handshake(
    frames: FramedStream, identity: Identity, table_id: bytes, peer_key: bytes | None
) -> Authenticated:
    """Prove ourselves to the acceptor, then check its proof; ``peer_key`` is whom we call.

    With ``peer_key`` ``None`` (a joiner given only an address) any key that proves itself is
    taken. Wrap it in a cancel scope: a silent peer is met with the caller's timeout.
    """
    _check_table(table_id)
    mine, theirs = await _hellos(frames)
    named = ANY_KEY if peer_key is None else peer_key
    claim = transcript(table_id, identity.public_key, named, (mine, theirs))
    await _send(frames, identity.public_key + identity.sign(_ROLE[True] + claim))
    answer = await _receive(frames, (0, PROOF_BYTES), "the acceptor's proof")
    if not answer:
        raise HandshakeError("refused", "the peer refused us: another table or another key")
    key, proof = answer[:PUBLIC_KEY_BYTES], answer[PUBLIC_KEY_BYTES:]
    if key == identity.public_key:
        raise HandshakeError("self", "peer claims our own key")
    if peer_key is not None and key != peer_key:
        raise HandshakeError("unknown-peer", "key not expected here")
    digest = transcript(table_id, identity.public_key, key, (mine, theirs))
    if not verify(key, proof, _ROLE[False] + digest):
        raise HandshakeError("signature", "peer did not prove its key")
    return Authenticated(key, digest)


async def accept_handshake(
    frames: FramedStream,
    identity: Identity,
    table_id: bytes,
    expected: Collection[bytes] | None = None,
) -> Authenticated:
    """Check the dialer's proof, and only then prove ourselves; ``None`` accepts any key.

    A dialer that fails gets an empty refusal frame and nothing else.
    """
    _check_table(table_id)
    mine, theirs = await _hellos(frames)
    claim = await _receive(frames, (PROOF_BYTES,), "the dialer's proof")
    key, proof = claim[:PUBLIC_KEY_BYTES], claim[PUBLIC_KEY_BYTES:]
    digest = transcript(table_id, key, identity.public_key, (theirs, mine))
    refusal = _refusal(identity, key, proof, expected, table_id, (theirs, mine))
    if refusal is not None:
        with contextlib.suppress(HandshakeError):
            await _send(frames, b"")
        raise refusal
    await _send(frames, identity.public_key + identity.sign(_ROLE[False] + digest))
    return Authenticated(key, digest)


def _refusal(
    identity: Identity,
    key: bytes,
    proof: bytes,
    expected: Collection[bytes] | None,
    table_id: bytes,
    nonces: tuple[bytes, bytes],
) -> HandshakeError | None:
    """Why the dialer's proof is refused, if it is. Only an open acceptor (the lobby) takes a
    dialer that did not name whom it called."""
    if key == identity.public_key:
        return HandshakeError("self", "peer claims our own key")
    if expected is not None and key not in expected:
        return HandshakeError("unknown-peer", "key not expected here")
    named = [identity.public_key] if expected is not None else [identity.public_key, ANY_KEY]
    for acceptor in named:
        if verify(key, proof, _ROLE[True] + transcript(table_id, key, acceptor, nonces)):
            return None
    return HandshakeError("signature", "no proof of its key for this table and this peer")
