"""A player's per-game keys, all derived from one secret seed.

Every key and nonce a player uses in a game comes from a single 32-byte secret, saved before
the game starts, so a peer that restarts re-derives exactly what it sent before: its messages
come out byte for byte the same (Ed25519 signatures and the msgpack encoding being
deterministic), and no peer can mistake them for equivocation.
"""

from __future__ import annotations

import hashlib
import hmac

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

__all__ = ["derive", "pass_key", "pass_public_key", "usable_pass_key"]

_PROBE = X25519PrivateKey.from_private_bytes(bytes([1]) * 32)  # to refuse low-order keys


def derive(secret: bytes, label: str) -> bytes:
    """HMAC-SHA-256 of ``label`` under the game secret: one independent value per use."""
    return hmac.new(secret, label.encode(), hashlib.sha256).digest()


def pass_key(secret: bytes) -> X25519PrivateKey:
    """The player's X25519 key for this game (passed cards' keys are sealed to it)."""
    return X25519PrivateKey.from_private_bytes(derive(secret, "dh"))


def pass_public_key(secret: bytes) -> bytes:
    return pass_key(secret).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def usable_pass_key(dh: object) -> bool:
    """Whether ``dh``, a pass key someone shows, is 32 bytes and not a low-order point."""
    if not isinstance(dh, bytes) or len(dh) != 32:
        return False
    try:
        _PROBE.exchange(X25519PublicKey.from_public_bytes(dh))
    except ValueError:
        return False  # a low-order point: every box sealed to it would be readable
    return True
