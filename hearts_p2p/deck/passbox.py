"""Sealing a passer's lock keys for the receiver: ephemeral X25519, HKDF-SHA256,
ChaCha20-Poly1305.

The passer uses a fresh ephemeral key per hand and reveals its private half at the end of the
hand, so that after an alarm every peer can open the box and see whether the keys inside match
the passer's commitments. The receiver's half is its per-game key from the roster.
"""

from __future__ import annotations

from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .commitments import NONCE_LEN
from .params import PASS_COUNT, HandParams

__all__ = ["BOX_TAG", "SEALED_LEN", "open_box", "public_bytes", "seal_box"]

BOX_TAG = b"hearts-p2p/deck/v1/pass-box"
_ENTRY = 32 + NONCE_LEN
SEALED_LEN = PASS_COUNT * _ENTRY + 16
_ZERO_NONCE = bytes(12)  # each box key is used once: it comes from a fresh ephemeral key


def public_bytes(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes_raw()


def _aead(
    params: HandParams,
    passer: int,
    receiver: int,
    shared: bytes,
    ephemeral: bytes,
    positions: Sequence[int],
) -> tuple[ChaCha20Poly1305, bytes]:
    header = params.context + bytes((passer, receiver, len(positions), *positions))
    info = BOX_TAG + header + ephemeral + params.pass_keys[receiver]
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)
    return ChaCha20Poly1305(key), BOX_TAG + header


def seal_box(
    params: HandParams,
    passer: int,
    positions: Sequence[int],
    keys: Sequence[tuple[bytes, bytes]],
    ephemeral: X25519PrivateKey,
) -> bytes:
    """The sealed ``l ‖ nonce`` of each passed position, in position order."""
    receiver = params.pass_targets[passer]
    assert receiver is not None
    their = X25519PublicKey.from_public_bytes(params.pass_keys[receiver])
    aead, aad = _aead(
        params, passer, receiver, ephemeral.exchange(their), public_bytes(ephemeral), positions
    )
    return aead.encrypt(_ZERO_NONCE, b"".join(k + n for k, n in keys), aad)


def open_box(
    params: HandParams,
    passer: int,
    positions: Sequence[int],
    ephemeral: bytes,
    sealed: bytes,
    private: X25519PrivateKey,
    peer: bytes,
) -> list[tuple[bytes, bytes]] | None:
    """The ``(l, nonce)`` pairs in a box, or None if it does not open.

    ``private`` is the receiver's key with ``peer`` the ephemeral public key, or (in an audit)
    the revealed ephemeral key with ``peer`` the receiver's public key: both give the same secret.
    """
    receiver = params.pass_targets[passer]
    assert receiver is not None
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(peer))
        aead, aad = _aead(params, passer, receiver, shared, ephemeral, positions)
        plain = aead.decrypt(_ZERO_NONCE, sealed, aad)
    except (InvalidTag, ValueError):
        return None
    if len(plain) != len(positions) * _ENTRY:
        return None
    return [(plain[i : i + 32], plain[i + 32 : i + _ENTRY]) for i in range(0, len(plain), _ENTRY)]
