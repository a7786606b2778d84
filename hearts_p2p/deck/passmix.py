"""The private pass as lists and proofs: a seat's kept and passed entries, then its remix, each
a proven re-keying, so that a clean hand's end needs no key that links a card to its position.

Two shuffles per seat (issue 11 item 7):

- the split: the passer publishes ``K ‖ O``, its dealt positions of the final deck re-keyed and
  re-ordered, the kept entries first and the passed ones last, with a proof over those
  positions. The receiver is sent, per passed entry, the scalar taking its card's point to it,
  and checks the card itself.
- the remix: the seat publishes ``R``, a proven re-keying of its own ``K`` and the ``O`` of the
  seat passing to it. Slot ``k`` opens with the scalar taking its card's point to ``R[k]``.

So every slot traces to exactly one position, each seat passes exactly ``len(O)`` of its own
dealt positions, and an opened slot proves its card (the discrete logs between card points
being unknown); nobody else can tell which slot came from which entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .curve import ORDER
from .randomness import Randomness, random_permutation, random_scalar
from .shuffleproof import ProofCommitment, RoundSecret, Witness, apply_witness, commit

__all__ = ["Proven", "remix", "split"]


@dataclass(frozen=True)
class Proven:
    """A published list with its proof's intermediates, and what only its maker keeps: the
    witness, the rounds' secrets, and per entry the scalar taking its card's point to it."""

    entries: tuple[bytes, ...]
    commitment: ProofCommitment
    witness: Witness
    rounds: tuple[RoundSecret, ...]
    openings: tuple[int, ...]


def _prove(
    inputs: Sequence[bytes],
    openings: Sequence[int],
    order: tuple[int, ...],
    rounds: int,
    rng: Randomness,
) -> Proven:
    witness = Witness(order, tuple(random_scalar(rng) for _ in order))
    entries = apply_witness(inputs, witness)
    commitment, secrets = commit(inputs, rounds, rng)
    keys = tuple(k * openings[i] % ORDER for k, i in zip(witness.keys, order, strict=True))
    return Proven(entries, commitment, witness, secrets, keys)


def split(
    dealt: Sequence[bytes],
    openings: Sequence[int],
    passed: Sequence[int],
    rounds: int,
    rng: Randomness,
) -> Proven:
    """``K ‖ O`` of a seat's ``dealt`` entries, ``passed`` (indices into them) last, each part
    in an order of its own; ``openings[i]`` takes the card point of ``dealt[i]`` to it."""
    kept = [i for i in range(len(dealt)) if i not in passed]
    out = sorted(passed)
    order = (
        *(kept[j] for j in random_permutation(len(kept), rng)),
        *(out[j] for j in random_permutation(len(out), rng)),
    )
    return _prove(dealt, openings, order, rounds, rng)


def remix(inputs: Sequence[bytes], openings: Sequence[int], rounds: int, rng: Randomness) -> Proven:
    """The hand afresh: ``inputs`` (its ``K`` then the ``O`` it receives) in one new order."""
    return _prove(inputs, openings, random_permutation(len(inputs), rng), rounds, rng)
