"""The tests' memo of P-256 products and of signature checks (tests/cryptomemo.py) gives what
OpenSSL gives."""

from __future__ import annotations

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from hearts_p2p import identity
from hearts_p2p.deck import group
from hearts_p2p.deck.curve import CARD_POINTS, ORDER, InvalidPoint
from hearts_p2p.deck.randomness import SeededRandomness, random_scalar
from tests import cryptomemo


def test_the_deck_uses_the_memo_in_this_process() -> None:
    assert isinstance(group.active(), cryptomemo.MemoP256)


def test_every_product_is_the_one_openssl_computes_asked_once_or_again() -> None:
    rng = SeededRandomness(b"memo")
    scalars = [random_scalar(rng) for _ in range(6)] + [1, ORDER - 1]
    for k in scalars:
        for x in CARD_POINTS[:5]:
            real = cryptomemo._REAL_MULTIPLY(
                cryptomemo._REAL_SCALAR_KEY(k), cryptomemo._REAL_LOAD_X(x)
            )
            first = group.multiply(group.scalar_key(k), group.load_x(x))
            again = group.multiply(group.scalar_key(k), group.load_x(x))
            assert first == again == real
            # A real key or point from before the swap gives the same product.
            assert group.multiply(cryptomemo._REAL_SCALAR_KEY(k), group.load_x(x)) == real
            assert group.encrypt(k, x) == real


def test_what_openssl_refuses_is_refused_alike() -> None:
    off = next(x for x in (i.to_bytes(32, "big") for i in range(1, 99)) if not _on_curve(x))
    with pytest.raises(InvalidPoint):
        group.load_x(off)
    with pytest.raises(InvalidPoint):
        group.load_x(off)  # not remembered as valid
    with pytest.raises(InvalidPoint):
        group.load_x(b"\xff" * 32)  # above the field prime
    with pytest.raises(ValueError):
        group.scalar_key(0)


def test_every_signature_check_is_the_one_openssl_makes_asked_once_or_again() -> None:
    assert identity.Ed25519PublicKey is cryptomemo.PublicKey
    ada, bea = (identity.Identity.from_seed(bytes([i]) * 32) for i in (1, 2))
    data = b"memo: a message"
    sig = ada.sign(data)
    forged = bytes([sig[0] ^ 1]) + sig[1:]
    cases = [
        (ada.public_key, sig, data),
        (ada.public_key, sig, data + b"!"),
        (ada.public_key, forged, data),
        (bea.public_key, sig, data),
    ]
    for key, signature, signed in cases * 2:  # the second time, from the memo
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(signature, signed)
            real = True
        except InvalidSignature:
            real = False
        assert identity.verify(key, signature, signed) is real
    assert [identity.verify(*case) for case in cases] == [True, False, False, False]


def _on_curve(x: bytes) -> bool:
    try:
        cryptomemo._REAL_LOAD_X(x)
    except InvalidPoint:
        return False
    return True
