"""A cut-and-choose proof that one list of deck entries is another, re-keyed and re-ordered.

The statement: the prover knows an order ``π`` and scalars ``k`` with ``ys[j] = E_{k_j}(xs[π_j])``
for every ``j``. With one key per entry any list is *some* re-keying of any other, so what is
proven is knowledge: under the discrete-log relations between card points being unknown, a
prover who knows those keys cannot have put a card in ``ys`` that is not in ``xs``. It needs
only ``E_k``, so the x-only deck stays as it is.

Each of ``R`` rounds publishes an intermediate list ``mid = E_a(xs[ρ])``. A challenge bit then
asks for ``(ρ, a)`` (input to intermediate) or ``(τ, b)`` with ``ys[j] = E_{b_j}(mid[τ_j])``
(intermediate to output). Either half alone is a uniformly random re-keyed permutation, so a
round shows nothing of ``π``; both halves of one round give ``π`` and ``k``, so a prover
without them answers each round with probability 1/2 at best: soundness ``2^-R``.

The bits must not be steerable by the prover. Each seat commits to a random share before any
proof, reveals it once every proof's intermediates are fixed, and the bits come from the hash of
all shares with the proof's label and every list it holds (``challenge_bits``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from .curve import ORDER, X_LEN, InvalidPoint, scalar_bytes, scalar_from_bytes
from .group import Element as Point
from .group import card_of, load_x, multiply, scalar_key
from .randomness import Randomness, random_permutation, random_scalar

__all__ = [
    "CHALLENGE_TAG",
    "SHARE_LEN",
    "SHARE_TAG",
    "ProofCommitment",
    "ProofResponse",
    "RoundOpening",
    "RoundSecret",
    "Witness",
    "apply_witness",
    "challenge_bits",
    "check_commitment",
    "check_response",
    "commit",
    "joint_challenge",
    "rekey",
    "respond",
    "share_commitment",
]

SHARE_LEN = 32
SHARE_TAG = b"hearts-p2p/deck/v1/proof-share"
CHALLENGE_TAG = b"hearts-p2p/deck/v1/proof-challenge"


@dataclass(frozen=True)
class Witness:
    """What makes ``ys`` from ``xs``: ``ys[j] = E_{keys[j]}(xs[order[j]])``."""

    order: tuple[int, ...]
    keys: tuple[int, ...]


@dataclass(frozen=True)
class RoundSecret:
    """One round's intermediate, kept by the prover until the challenge: ``mid = E_a(xs[ρ])``."""

    order: tuple[int, ...]
    keys: tuple[int, ...]


@dataclass(frozen=True)
class ProofCommitment:
    """The ``R`` intermediate lists, published before the challenge exists."""

    lists: tuple[tuple[bytes, ...], ...]


@dataclass(frozen=True)
class RoundOpening:
    """One round's answer: an order and its keys (32 bytes each), for the half the bit asks."""

    order: tuple[int, ...]
    keys: tuple[bytes, ...]


@dataclass(frozen=True)
class ProofResponse:
    rounds: tuple[RoundOpening, ...]


def _apply(order: Sequence[int], keys: Sequence[int], points: Sequence[Point]) -> tuple[bytes, ...]:
    return tuple(multiply(scalar_key(k), points[i]) for k, i in zip(keys, order, strict=True))


def rekey(xs: Sequence[bytes], rng: Randomness) -> tuple[tuple[bytes, ...], Witness]:
    """``xs`` under fresh keys in a fresh order, with the witness that proves it."""
    witness = Witness(random_permutation(len(xs), rng), tuple(random_scalar(rng) for _ in xs))
    return apply_witness(xs, witness), witness


def apply_witness(xs: Sequence[bytes], witness: Witness) -> tuple[bytes, ...]:
    """``E_{keys[j]}(xs[order[j]])`` for every ``j``: the list a witness proves."""
    return _apply(witness.order, witness.keys, [load_x(x) for x in xs])


def commit(
    xs: Sequence[bytes], rounds: int, rng: Randomness
) -> tuple[ProofCommitment, tuple[RoundSecret, ...]]:
    """The intermediates of ``rounds`` rounds: ``R·len(xs)`` key derivations and products."""
    secrets = tuple(
        RoundSecret(random_permutation(len(xs), rng), tuple(random_scalar(rng) for _ in xs))
        for _ in range(rounds)
    )
    points = [load_x(x) for x in xs]
    lists = tuple(_apply(s.order, s.keys, points) for s in secrets)
    return ProofCommitment(lists), secrets


def respond(
    witness: Witness, secrets: Sequence[RoundSecret], bits: Sequence[bool]
) -> ProofResponse:
    """Open each round's half the bit asks: ``(ρ, a)`` on 0, ``(τ, b)`` on 1, where
    ``τ_j = ρ⁻¹(π_j)`` and ``b_j = k_j / a_{τ_j}``: scalar arithmetic, no curve work."""
    rounds = []
    for secret, bit in zip(secrets, bits, strict=True):
        if not bit:
            rounds.append(RoundOpening(secret.order, tuple(map(scalar_bytes, secret.keys))))
            continue
        where = {i: j for j, i in enumerate(secret.order)}
        tau = tuple(where[i] for i in witness.order)
        keys = tuple(
            scalar_bytes(k * pow(secret.keys[t], -1, ORDER) % ORDER)
            for k, t in zip(witness.keys, tau, strict=True)
        )
        rounds.append(RoundOpening(tau, keys))
    return ProofResponse(tuple(rounds))


def share_commitment(context: bytes, seat: int, share: bytes) -> bytes:
    """``SHA-256(share tag ‖ context ‖ seat ‖ share (32))``: sent before any proof."""
    return hashlib.sha256(SHARE_TAG + context + bytes((seat,)) + share).digest()


def joint_challenge(context: bytes, shares: Sequence[bytes]) -> bytes:
    """``SHA-256(challenge tag ‖ context ‖ every seat's share, in seat order)``."""
    return hashlib.sha256(CHALLENGE_TAG + context + b"".join(shares)).digest()


def challenge_bits(
    challenge: bytes,
    label: bytes,
    xs: Sequence[bytes],
    ys: Sequence[bytes],
    commitment: ProofCommitment,
) -> tuple[bool, ...]:
    """One bit per round: ``SHA-256(challenge ‖ label ‖ xs ‖ ys ‖ each list ‖ counter)``, bit
    ``r`` of the stream, most significant first. The label (seat and which proof) and the lists
    tie the bits to this proof, so no answer of one proof serves another."""
    base = hashlib.sha256(challenge + bytes((len(label),)) + label)
    for x in (*xs, *ys, *(x for mid in commitment.lists for x in mid)):
        base.update(x)
    rounds = len(commitment.lists)
    stream = b""
    counter = 0
    while len(stream) * 8 < rounds:
        block = base.copy()
        block.update(counter.to_bytes(4, "big"))
        stream += block.digest()
        counter += 1
    return tuple(bool(stream[r // 8] >> (7 - r % 8) & 1) for r in range(rounds))


def check_commitment(
    xs: Sequence[bytes], ys: Sequence[bytes], commitment: ProofCommitment, rounds: int
) -> str | None:
    """Why the intermediates are malformed, or None: ``rounds`` lists of ``len(xs)`` entries of
    32 bytes, none a card point, none twice across the lists or equal to an entry of ``xs`` or
    ``ys``. An honest prover's intermediates are fresh; a repeat can only be a list reused, and
    a reused list whose two halves get opened shows the witness. Curve membership is left to
    ``check_response``: a list opened from the input is compared as bytes with points, and only
    a list opened to the output is decoded, which saves a decode per entry of half the lists."""
    if len(ys) != len(xs):
        return f"its proof maps {len(xs)} entries to {len(ys)}"
    if len(commitment.lists) != rounds:
        return f"its proof has {len(commitment.lists)} rounds, not {rounds}"
    seen = set(xs) | set(ys)
    for r, mid in enumerate(commitment.lists):
        if len(mid) != len(xs):
            return f"round {r} of its proof holds {len(mid)} entries, not {len(xs)}"
        for x in mid:
            if len(x) != X_LEN:
                return f"round {r} of its proof holds an entry of {len(x)} bytes"
            if card_of(x) is not None:
                return f"round {r} of its proof holds a card point"
            if x in seen:
                return f"round {r} of its proof repeats an entry"
            seen.add(x)
    return None


def _opening_keys(opening: RoundOpening, size: int) -> list[int] | None:
    if len(opening.order) != size or sorted(opening.order) != list(range(size)):
        return None
    if len(opening.keys) != size:
        return None
    keys = [scalar_from_bytes(k) for k in opening.keys]
    return None if any(k is None for k in keys) else [k for k in keys if k is not None]


def check_response(
    xs: Sequence[bytes],
    ys: Sequence[bytes],
    commitment: ProofCommitment,
    response: ProofResponse,
    bits: Sequence[bool],
    points: Sequence[Point] | None = None,
) -> str | None:
    """Why the answers fail, or None when every round's opened half holds. Takes a commitment
    ``check_commitment`` accepted; costs ``R·len(xs)`` key derivations and products.
    ``points`` are ``xs`` decoded, where the caller has them already."""
    if len(response.rounds) != len(bits):
        return f"its proof answers {len(response.rounds)} rounds, not {len(bits)}"
    inputs = list(points) if points is not None else [load_x(x) for x in xs]
    for r, (mid, opening, bit) in enumerate(
        zip(commitment.lists, response.rounds, bits, strict=True)
    ):
        keys = _opening_keys(opening, len(xs))
        if keys is None:
            return f"round {r} of its proof opens no permutation with valid keys"
        try:
            source = [load_x(x) for x in mid] if bit else inputs
        except InvalidPoint:
            return f"round {r} of its proof holds an entry off the curve"
        if _apply(opening.order, keys, source) != tuple(ys if bit else mid):
            half = "intermediate to output" if bit else "input to intermediate"
            return f"round {r} of its proof does not open ({half})"
    return None
