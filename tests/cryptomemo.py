"""The deck's P-256 products and the players' Ed25519 verdicts, remembered across the tests of
one pytest process.

Many tests play the same seeded game again to test one thing at one step of it (a seat lost at
each step of a deal, a cheat at each trick), so a pytest process computes the same E_k products
over and over: ``tests/node/test_redeal.py`` alone asks for 429,493 multiplications, of which
19,962 are distinct. Here each distinct product is still computed by OpenSSL, once per process,
and given again when the same scalar meets the same point; every check, every failure and every
log byte stays what it is. A real peer never repeats a product (each of a game's ~9,000 per
peer is distinct), and the ``hearts`` processes the tests start, and the benchmarks, run
without this.

``install`` makes the memo the deck's group (``hearts_p2p.deck.group``): a derived key and a
decoded point become light stand-ins (a P-256 key
object holds about 2 KB) that OpenSSL fills in only for a product not yet known.

The signatures likewise: every in-process peer of a test's table checks every message it
receives, and the tests replay the same seeded games, so nine checks in ten are of a signature
already checked (``tests/node/test_takeover.py``: 37,142 checks, 3,439 distinct). ``install``
also gives ``hearts_p2p.identity.verify``, the one place every signature is checked, a public
key whose verdict on a (key, signature, bytes) is OpenSSL's, asked once per process.
"""

from __future__ import annotations

from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from hearts_p2p import identity
from hearts_p2p.deck import curve, group

_REAL_SCALAR_KEY = curve.scalar_key
_REAL_LOAD_X = curve.load_x
_REAL_MULTIPLY = curve.multiply

PRODUCTS = 120_000  # remembered products (~240 bytes each), forgotten all at once when full
POINTS = 60_000  # x-coordinates known to be on the curve, the same
VERDICTS = 40_000  # signatures checked (~700 bytes each), the same


class Key:
    """A derived key: its scalar, and the OpenSSL key once one was needed."""

    __slots__ = ("k", "real")

    def __init__(self, k: int) -> None:
        self.k = k
        self.real: Any = None

    def openssl(self) -> Any:
        if self.real is None:
            self.real = _REAL_SCALAR_KEY(self.k)
        return self.real


class Point:
    """A decoded point: its x, and the OpenSSL point once one was needed."""

    __slots__ = ("real", "x")

    def __init__(self, x: bytes, real: Any = None) -> None:
        self.x = x
        self.real = real

    def openssl(self) -> Any:
        if self.real is None:
            self.real = _REAL_LOAD_X(self.x)
        return self.real


_products: dict[bytes, bytes] = {}
_valid: set[bytes] = set()


def scalar_key(k: int) -> Any:
    if not 0 < k < curve.ORDER:
        return _REAL_SCALAR_KEY(k)  # whatever OpenSSL says of a scalar out of range
    return Key(k)


def load_x(x: bytes) -> Any:
    if x in _valid:
        return Point(x)
    real = _REAL_LOAD_X(x)  # raises InvalidPoint as before
    if len(_valid) >= POINTS:
        _valid.clear()
    _valid.add(x)
    return Point(x, real)


def _openssl(stand_in: Any) -> Any:
    return stand_in.openssl() if isinstance(stand_in, Key | Point) else stand_in


def multiply(key: Any, point: Any) -> bytes:
    if not (isinstance(key, Key) and isinstance(point, Point)):
        return _REAL_MULTIPLY(_openssl(key), _openssl(point))
    memo = key.k.to_bytes(32, "big") + point.x
    product = _products.get(memo)
    if product is None:
        product = _REAL_MULTIPLY(key.openssl(), point.openssl())
        if len(_products) >= PRODUCTS:
            _products.clear()  # rarely: a file's tests replay some 20,000 distinct products
        _products[memo] = product
    return product


class MemoP256:
    """P-256 with its products remembered: a ``hearts_p2p.deck.group.Group``."""

    name = "p256"
    card_points = curve.CARD_POINTS

    def load(self, x: bytes) -> Any:
        return load_x(x)

    def key(self, k: int) -> Any:
        return scalar_key(k)

    def multiply(self, key: Any, point: Any) -> bytes:
        return multiply(key, point)


_verdicts: dict[tuple[bytes, bytes, bytes], bool] = {}


class PublicKey:
    """An Ed25519 public key as ``hearts_p2p.identity.verify`` uses it: ``verify`` raises
    ``InvalidSignature`` where OpenSSL's does, and a key OpenSSL cannot load raises its
    ``ValueError`` (never remembered)."""

    __slots__ = ("raw",)

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    @classmethod
    def from_public_bytes(cls, data: bytes) -> PublicKey:
        return cls(bytes(data))

    def verify(self, signature: bytes, data: bytes) -> None:
        memo = (self.raw, bytes(signature), bytes(data))
        valid = _verdicts.get(memo)
        if valid is None:
            try:
                Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, data)
                valid = True
            except InvalidSignature:
                valid = False
            if len(_verdicts) >= VERDICTS:
                _verdicts.clear()
            _verdicts[memo] = valid
        if not valid:
            raise InvalidSignature


def install() -> None:
    """Make the memo the deck's group, and the public key every signature is checked with, in
    this process."""
    group.install(MemoP256())
    identity.Ed25519PublicKey = PublicKey  # type: ignore[attr-defined, assignment]
