"""A stand-in for P-256 that keeps the deck's message flow and costs a multiplication of ints.

The simulator plays hundreds of thousands of tables; a hand asks about 730 P-256 products of
each peer. Here the group is the integers mod the curve's order ``n`` under multiplication by
scalars, written up to sign as P-256 writes x-coordinates: ``E_k(v) = ±k·v mod n``, the smaller
of the two. It commutes and inverts exactly as the curve does (``E_a E_b = E_b E_a``,
``E_{k⁻¹} E_k = 1``) and has the same scalars, so every step, proof, check and blame of the deck
runs unchanged. It hides nothing — ``k = E_k(v)·v⁻¹`` — which a simulator does not need: its
adversaries attack the protocol, not the curve. Never the protocol's group (``group.using``).
"""

from __future__ import annotations

import hashlib

from ..deck.curve import ORDER, X_LEN, InvalidPoint

__all__ = ["FastGroup"]

_HALF = (ORDER - 1) // 2
_TAG = b"hearts-p2p/sim/fast-group/card"


def _canonical(v: int) -> int:
    return v if v <= _HALF else ORDER - v


def _card(card: int) -> bytes:
    v = _canonical(int.from_bytes(hashlib.sha256(_TAG + bytes((card,))).digest(), "big") % ORDER)
    return v.to_bytes(X_LEN, "big")


class FastGroup:
    """``hearts_p2p.deck.group.Group`` over the integers mod ``n``, written up to sign."""

    name = "fast"
    card_points = tuple(_card(c) for c in range(52))

    def load(self, x: bytes) -> int:
        if len(x) != X_LEN:
            raise InvalidPoint(f"an element is {X_LEN} bytes, not {len(x)}")
        v = int.from_bytes(x, "big")
        if not 0 < v <= _HALF:
            raise InvalidPoint("not an element of the stand-in group as written")
        return v

    def key(self, k: int) -> int:
        if not 0 < k < ORDER:
            raise ValueError("a scalar is in 1..n-1")
        return k

    def multiply(self, key: int, point: int) -> bytes:
        return _canonical(key * point % ORDER).to_bytes(X_LEN, "big")
