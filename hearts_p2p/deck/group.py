"""The group the deck computes in, behind one small interface.

The deck asks four things of its group: an element loaded and checked from 32 bytes, a key made
from a scalar, ``x(k·X)`` of a key and an element, and each card's element. The protocol's group
is P-256 (``curve.py``). A simulator of whole tables swaps in a stand-in with the same message
flow and the same scalars (``hearts_p2p.sim.fastgroup``), as simulators stand in for disks: the
swap is process-wide and explicit (``using``), and the default is always P-256.

Elements and keys are whatever the group makes of them (an OpenSSL key, an int): the deck only
hands them back to the group that made them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from . import curve

__all__ = [
    "P256",
    "Element",
    "Group",
    "GroupKey",
    "KeyCache",
    "active",
    "card_of",
    "card_point_key",
    "encrypt",
    "install",
    "load_x",
    "multiply",
    "scalar_key",
    "using",
]

Element = Any  # a loaded, checked element of the active group
GroupKey = Any  # a scalar made ready for the active group's products


class Group(Protocol):
    """A cyclic group of prime order ``curve.ORDER`` whose elements are written as 32 bytes up
    to sign (``k`` and ``n − k`` act alike), as P-256's x-coordinates are."""

    name: str
    card_points: tuple[bytes, ...]  # each card's element, by card id 0..51

    def load(self, x: bytes) -> Element:
        """The element written ``x``; ``curve.InvalidPoint`` if ``x`` writes none."""
        ...

    def key(self, k: int) -> GroupKey:
        """The key of scalar ``k`` (1..n−1); ``ValueError`` outside that range."""
        ...

    def multiply(self, key: GroupKey, point: Element) -> bytes:
        """``x(k·point)``, 32 bytes."""
        ...


class P256:
    """The protocol's group: P-256 through OpenSSL (``curve.py``)."""

    name = "p256"
    card_points = curve.CARD_POINTS

    def load(self, x: bytes) -> Element:
        return curve.load_x(x)

    def key(self, k: int) -> GroupKey:
        return curve.scalar_key(k)

    def multiply(self, key: GroupKey, point: Element) -> bytes:
        return curve.multiply(key, point)


class _Active:
    """The group in use and what is derived from it once: the cards by element, and each
    card's loaded element."""

    def __init__(self, group: Group) -> None:
        self.group = group
        self.cards = {x: card for card, x in enumerate(group.card_points)}
        self.points: dict[int, Element] = {}


_active = _Active(P256())


def active() -> Group:
    return _active.group


def install(group: Group) -> None:
    """Make ``group`` the deck's from now on (a test process's memo of P-256, say)."""
    global _active
    _active = _Active(group)


@contextmanager
def using(group: Group) -> Iterator[Group]:
    """Compute in ``group`` inside the block, and in the group before it after."""
    before = _active.group
    install(group)
    try:
        yield group
    finally:
        install(before)


def load_x(x: bytes) -> Element:
    return _active.group.load(x)


def scalar_key(k: int) -> GroupKey:
    return _active.group.key(k)


def multiply(key: GroupKey, point: Element) -> bytes:
    return _active.group.multiply(key, point)


def encrypt(k: int, x: bytes) -> bytes:
    """``E_k(x)`` from scratch: make the key, load the element, multiply."""
    return multiply(scalar_key(k), load_x(x))


def card_point_key(card: int) -> Element:
    """The loaded element of a card, loaded once per group."""
    a = _active
    point = a.points.get(card)
    if point is None:
        point = a.points[card] = a.group.load(a.group.card_points[card])
    return point


def card_of(x: bytes) -> int | None:
    """The card whose element is written ``x``, if any."""
    return _active.cards.get(x)


def card_x(card: int) -> bytes:
    """How the active group writes a card's element."""
    return _active.group.card_points[card]


class KeyCache:
    """Keys of one seat, so a key used for a whole deck is made once.

    Per seat rather than per process: seats sharing a process (tests, benchmarks) must not
    save each other work that separate machines would each have to do. Keys of another group
    are never handed back: the cache holds the group it was filled in.
    """

    def __init__(self, limit: int = 64) -> None:
        self._limit = limit
        self._keys: dict[int, GroupKey] = {}
        self._group: Group | None = None

    def get(self, k: int) -> GroupKey:
        if self._group is not _active.group:
            self._keys.clear()
            self._group = _active.group
        key = self._keys.get(k)
        if key is None:
            if len(self._keys) >= self._limit:
                self._keys.pop(next(iter(self._keys)))
            key = self._keys[k] = scalar_key(k)
        return key
