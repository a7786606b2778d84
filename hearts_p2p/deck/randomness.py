"""Where a seat's secrets come from: ``secrets`` in play, a seeded stream in tests and vectors.

Injecting the source keeps the state machines pure and makes every message of a hand
reproducible from a seed, which is what the protocol vectors rely on.
"""

from __future__ import annotations

import secrets
from typing import Protocol

from ..coinflip import HashStream
from .curve import ORDER

__all__ = [
    "Randomness",
    "SeededRandomness",
    "SystemRandomness",
    "random_permutation",
    "random_scalar",
]


class Randomness(Protocol):
    def token_bytes(self, n: int) -> bytes: ...

    def randbelow(self, n: int) -> int: ...


class SystemRandomness:
    """The operating system's CSPRNG through ``secrets``: the default for real play."""

    def token_bytes(self, n: int) -> bytes:
        return secrets.token_bytes(n)

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)


class SeededRandomness(HashStream):
    """A SHA-256 counter stream from a seed. Deterministic: for tests and vectors only."""


def random_scalar(rng: Randomness) -> int:
    """A uniform scalar in 1..n-1 of P-256."""
    return 1 + rng.randbelow(ORDER - 1)


def random_permutation(size: int, rng: Randomness) -> tuple[int, ...]:
    """A uniform permutation of ``range(size)`` by Fisher–Yates."""
    out = list(range(size))
    for i in range(size - 1, 0, -1):
        j = rng.randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)
