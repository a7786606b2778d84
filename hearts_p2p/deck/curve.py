"""P-256 x-coordinates as the deck's cipher space, and the card points.

``E_k(X) = x(k·X)``: load the compressed point ``0x02 ‖ x`` and run ECDH with the private key of
scalar ``k``; OpenSSL does the scalar multiplication in constant time. Decryption is
``E_{k⁻¹ mod n}``. With x only, ``k`` and ``n − k`` act alike, and P-256 has prime order, so no
subgroup or quadratic-residue bit leaks which card an entry is.

Card points come from try-and-increment hashing of a per-card label rather than ``i·G``: with
``i·G`` everyone knows the discrete-log relations between cards, which would let a holder relabel
its card at open time.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric import ec

__all__ = [
    "CARD_BY_POINT",
    "CARD_POINTS",
    "CARD_POINT_COUNTERS",
    "CARD_POINT_TAG",
    "ORDER",
    "PRIME",
    "X_LEN",
    "InvalidPoint",
    "encrypt",
    "load_x",
    "multiply",
    "scalar_bytes",
    "scalar_from_bytes",
    "scalar_key",
]

PRIME = 2**256 - 2**224 + 2**192 + 2**96 - 1
ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
X_LEN = 32
CARD_POINT_TAG = b"hearts-p2p/deck/v1/card-point"
_CURVE = ec.SECP256R1()
_ECDH = ec.ECDH()

Point = ec.EllipticCurvePublicKey


class InvalidPoint(ValueError):
    """Bytes that are not the x-coordinate of a point of P-256."""


def load_x(x: bytes) -> Point:
    """Decode and validate an x-coordinate: 32 bytes, below p, on the curve."""
    if len(x) != X_LEN:
        raise InvalidPoint(f"an x-coordinate is {X_LEN} bytes, not {len(x)}")
    if int.from_bytes(x, "big") >= PRIME:
        raise InvalidPoint("x is not below the field prime")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, b"\x02" + x)
    except ValueError:
        raise InvalidPoint("x is not on P-256") from None


def scalar_key(k: int) -> ec.EllipticCurvePrivateKey:
    """The private key of scalar ``k`` (1..n-1); deriving it costs a base-point multiplication."""
    return ec.derive_private_key(k, _CURVE)


def multiply(key: ec.EllipticCurvePrivateKey, point: Point) -> bytes:
    """``x(k·point)`` as 32 bytes: one E_k step with a derived key on a validated point."""
    return key.exchange(_ECDH, point)


def encrypt(k: int, x: bytes) -> bytes:
    """``E_k(x)`` from scratch: derive, validate, multiply."""
    return multiply(scalar_key(k), load_x(x))


def scalar_bytes(k: int) -> bytes:
    return k.to_bytes(32, "big")


def scalar_from_bytes(data: bytes) -> int | None:
    """The scalar in 32 big-endian bytes, or None unless it is in 1..n-1."""
    k = int.from_bytes(data, "big")
    return k if len(data) == 32 and 0 < k < ORDER else None


def _hash_to_x(card: int) -> tuple[bytes, int]:
    for counter in range(256):
        x = hashlib.sha256(CARD_POINT_TAG + bytes((card, counter))).digest()
        try:
            load_x(x)
        except InvalidPoint:
            continue
        return x, counter
    raise AssertionError("no card point in 256 tries")  # probability about 2^-256


_HASHED = tuple(_hash_to_x(card) for card in range(52))
CARD_POINTS: tuple[bytes, ...] = tuple(x for x, _ in _HASHED)
"""x of the point of each card id 0..51: ``SHA-256(tag ‖ card ‖ counter)`` for the first counter
that gives a valid x."""
CARD_POINT_COUNTERS: tuple[int, ...] = tuple(c for _, c in _HASHED)
CARD_BY_POINT: dict[bytes, int] = {x: card for card, x in enumerate(CARD_POINTS)}
