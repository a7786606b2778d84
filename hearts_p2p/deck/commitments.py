"""Hash commitments and transcript digests, with their exact byte layouts (see SPEC.md).

Every hash starts with a distinct tag and the hand context, so a value committed in one hand,
seat, position or role can never be replayed as another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from .params import HandParams

__all__ = [
    "ECHO_TAG",
    "LOCK_KEY_TAG",
    "NONCE_LEN",
    "PASS_TAG",
    "echo_digest",
    "lock_commitment",
    "pass_commitment",
]

NONCE_LEN = 16
LOCK_KEY_TAG = b"hearts-p2p/deck/v1/lock-key"
PASS_TAG = b"hearts-p2p/deck/v1/pass"
ECHO_TAG = b"hearts-p2p/deck/v1/echo"


def lock_commitment(
    params: HandParams, seat: int, position: int, key: bytes, nonce: bytes
) -> bytes:
    """``SHA-256(tag ‖ context ‖ seat ‖ position ‖ l (32) ‖ nonce (16))``."""
    return hashlib.sha256(
        LOCK_KEY_TAG + params.context + bytes((seat, position)) + key + nonce
    ).digest()


def pass_commitment(params: HandParams, seat: int, positions: Sequence[int], nonce: bytes) -> bytes:
    """``SHA-256(tag ‖ context ‖ seat ‖ count ‖ positions ascending ‖ nonce (16))``."""
    return hashlib.sha256(
        PASS_TAG + params.context + bytes((seat, len(positions), *positions)) + nonce
    ).digest()


def echo_digest(params: HandParams, stage: str, parts: Iterable[bytes]) -> bytes:
    """``SHA-256(tag ‖ context ‖ stage ‖ every published entry, in order)``: what each seat
    echoes so that nobody releases a key before all agree on the same decks."""
    h = hashlib.sha256(ECHO_TAG + params.context + stage.encode())
    for part in parts:
        h.update(part)
    return h.digest()
