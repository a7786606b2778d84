"""Joint commit-reveal coin flip: shared randomness no single participant can steer.

Each participant commits to 32 secret bytes, then reveals them once every commitment is in.
The seed is the hash of all reveals in participant order, so it is uniform as long as one
participant is honest. Orders (such as the seat order) come from Fisher–Yates driven by a
SHA-256 counter stream over the seed: fully specified, unlike ``random.Random``, so every peer
and every later audit derives the same order.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import TypeVar

__all__ = [
    "SECRET_LEN",
    "CoinFlip",
    "CoinFlipCheatError",
    "HashStream",
    "commitment",
    "fisher_yates",
    "joint_seed",
]

T = TypeVar("T")
SECRET_LEN = 32
_COMMIT_TAG = b"hearts-p2p/coinflip/v1/commit"
_SEED_TAG = b"hearts-p2p/coinflip/v1/seed"


class CoinFlipCheatError(ValueError):
    """A participant whose reveal does not match its commitment, or who broke the order."""

    def __init__(self, participant: int, reason: str) -> None:
        super().__init__(f"participant {participant}: {reason}")
        self.participant = participant
        self.reason = reason


class HashStream:
    """Bytes ``SHA-256(seed ‖ counter)``, counter = 0, 1, 2, … as 8 bytes big-endian, in order.

    Integers below ``n`` use rejection sampling on the fewest whole bytes holding ``n - 1``,
    masked to its bit length, so they are exactly uniform.
    """

    def __init__(self, seed: bytes) -> None:
        self._seed = bytes(seed)
        self._counter = 0
        self._buffer = b""

    def token_bytes(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1, not {n}")
        bits = (n - 1).bit_length()
        if bits == 0:
            return 0
        size = (bits + 7) // 8
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self.token_bytes(size), "big") & mask
            if value < n:
                return value


def fisher_yates(items: Sequence[T], seed: bytes) -> list[T]:
    """``items`` shuffled: for i = len-1 down to 1, swap i with ``randbelow(i + 1)``."""
    out = list(items)
    stream = HashStream(seed)
    for i in range(len(out) - 1, 0, -1):
        j = stream.randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def commitment(context: bytes, participant: int, secret: bytes) -> bytes:
    """``SHA-256(tag ‖ len(context) ‖ context ‖ participant ‖ secret)``, binding the reveal to
    this flip and this participant so it cannot be replayed elsewhere."""
    if len(secret) != SECRET_LEN:
        raise ValueError(f"a coin-flip secret is {SECRET_LEN} bytes, not {len(secret)}")
    return hashlib.sha256(
        _COMMIT_TAG + _lp(context) + participant.to_bytes(2, "big") + secret
    ).digest()


def joint_seed(context: bytes, secrets: Sequence[bytes]) -> bytes:
    """The shared seed: ``SHA-256(tag ‖ len(context) ‖ context ‖ secret_0 ‖ … ‖ secret_n-1)``."""
    return hashlib.sha256(_SEED_TAG + _lp(context) + b"".join(secrets)).digest()


def _lp(data: bytes) -> bytes:
    return len(data).to_bytes(2, "big") + data


class CoinFlip:
    """Collects commitments, then reveals, from ``participants`` parties; yields the seed.

    Reveals are refused until every commitment is in, which is what makes the flip fair.
    """

    def __init__(self, context: bytes, participants: int) -> None:
        if participants < 1:
            raise ValueError("a coin flip needs at least one participant")
        self.context = bytes(context)
        self.participants = participants
        self._commits: dict[int, bytes] = {}
        self._reveals: dict[int, bytes] = {}

    def commit(self, participant: int, digest: bytes) -> None:
        self._check_participant(participant)
        if self._reveals:
            raise CoinFlipCheatError(participant, "committed after reveals began")
        old = self._commits.get(participant)
        if old is not None and old != digest:
            raise CoinFlipCheatError(participant, "sent two different commitments")
        if len(digest) != 32:
            raise CoinFlipCheatError(participant, "a commitment is 32 bytes")
        self._commits[participant] = bytes(digest)

    def reveal(self, participant: int, secret: bytes) -> None:
        self._check_participant(participant)
        if len(self._commits) < self.participants:
            raise CoinFlipCheatError(participant, "revealed before every commitment was in")
        if len(secret) != SECRET_LEN:
            raise CoinFlipCheatError(participant, f"a secret is {SECRET_LEN} bytes")
        expected = commitment(self.context, participant, secret)
        if not hmac.compare_digest(expected, self._commits[participant]):
            raise CoinFlipCheatError(participant, "reveal does not match its commitment")
        self._reveals[participant] = bytes(secret)

    def waiting_for(self) -> list[int]:
        """Participants that still owe their commitment, or else their reveal."""
        have = self._commits if len(self._commits) < self.participants else self._reveals
        return [p for p in range(self.participants) if p not in have]

    @property
    def seed(self) -> bytes | None:
        if len(self._reveals) < self.participants:
            return None
        return joint_seed(self.context, [self._reveals[p] for p in range(self.participants)])

    def order(self, items: Sequence[T]) -> list[T]:
        """``items`` in the jointly random order (e.g. the roster → seat order)."""
        seed = self.seed
        if seed is None:
            raise ValueError(f"the flip is not complete: waiting for {self.waiting_for()}")
        return fisher_yates(items, seed)

    def _check_participant(self, participant: int) -> None:
        if not 0 <= participant < self.participants:
            raise ValueError(f"no participant {participant} in a flip of {self.participants}")
