"""The cut-and-choose proof that a list of deck entries is another re-keyed and re-ordered: an
honest prover always passes, a prover that slipped in a card it does not hold, reused a list or
answered wrongly is refused, and the challenge is bound to every share and every list."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts_p2p.deck.curve import CARD_POINTS, ORDER, encrypt, scalar_bytes
from hearts_p2p.deck.randomness import SeededRandomness, random_scalar
from hearts_p2p.deck.shuffleproof import (
    ProofCommitment,
    ProofResponse,
    RoundOpening,
    RoundSecret,
    Witness,
    challenge_bits,
    check_commitment,
    check_response,
    commit,
    joint_challenge,
    rekey,
    respond,
    share_commitment,
)

ROUNDS = 16
CONTEXT = b"test-hand-context"


def _hand(rng: SeededRandomness, cards: range) -> tuple[bytes, ...]:
    """A seat's positions as the deal leaves them: each card under a key it knows."""
    return tuple(encrypt(random_scalar(rng), CARD_POINTS[c]) for c in cards)


def _challenge(seed: bytes) -> bytes:
    shares = [SeededRandomness(seed + bytes((s,))).token_bytes(32) for s in range(4)]
    return joint_challenge(CONTEXT, shares)


def _prove(
    xs: tuple[bytes, ...], seed: bytes, rounds: int = ROUNDS
) -> tuple[tuple[bytes, ...], ProofCommitment, ProofResponse, tuple[bool, ...]]:
    rng = SeededRandomness(seed)
    ys, witness = rekey(xs, rng)
    commitment, secrets = commit(xs, rounds, rng)
    bits = challenge_bits(_challenge(seed), b"seat 1 pass", xs, ys, commitment)
    return ys, commitment, respond(witness, secrets, bits), bits


@pytest.mark.parametrize("size", [3, 10, 13, 17])
def test_an_honest_proof_passes_and_asks_both_halves(size: int) -> None:
    """Re-keyed hands of every size a table deals pass; across the rounds both halves are
    asked, so both code paths of the check run."""
    xs = _hand(SeededRandomness(b"hand"), range(size))
    ys, commitment, response, bits = _prove(xs, b"honest" + bytes((size,)))
    assert check_commitment(xs, ys, commitment, ROUNDS) is None
    assert check_response(xs, ys, commitment, response, bits) is None
    assert set(bits) == {False, True}
    assert set(ys).isdisjoint(xs)


def _swap(xs: tuple[bytes, ...], rng: SeededRandomness) -> tuple[bytes, ...]:
    """The colluders' swap: entry 0 replaced by a card the seat was not dealt, under a key the
    seat knows (what a colluder can make for a card it holds)."""
    ys, _ = rekey(xs, rng)
    return (encrypt(random_scalar(rng), CARD_POINTS[51]), *ys[1:])


def _forge(
    xs: tuple[bytes, ...], ys: tuple[bytes, ...], guesses: tuple[bool, ...], rng: SeededRandomness
) -> tuple[ProofCommitment, list[RoundOpening]]:
    """The best a prover without a witness can do: each round prepared for the bit it guesses,
    from the input (0) or from the output (1)."""
    lists, openings = [], []
    for guess in guesses:
        _, fresh = rekey(xs, rng)
        if guess:
            mid = [b""] * len(xs)
            # mid[tau[j]] = E_{1/b_j}(ys[j]), so ys[j] = E_{b_j}(mid[tau[j]]).
            for j, t in enumerate(fresh.order):
                mid[t] = encrypt(pow(fresh.keys[j], -1, ORDER), ys[j])
            lists.append(tuple(mid))
        else:
            lists.append(
                tuple(encrypt(k, xs[i]) for k, i in zip(fresh.keys, fresh.order, strict=True))
            )
        openings.append(RoundOpening(fresh.order, tuple(map(scalar_bytes, fresh.keys))))
    return ProofCommitment(tuple(lists)), openings


@pytest.mark.parametrize("caught_on", [False, True])
def test_a_forged_round_fails_on_the_half_it_did_not_prepare(caught_on: bool) -> None:
    """A round prepared for one half answers that half and only that one: the check of the
    other names which half fails (each branch of a false proof)."""
    rng = SeededRandomness(b"forge" + bytes((caught_on,)))
    xs = _hand(rng, range(13))
    ys = _swap(xs, rng)
    guesses = (not caught_on,) * 2
    commitment, openings = _forge(xs, ys, guesses, rng)
    assert check_commitment(xs, ys, commitment, 2) is None
    assert check_response(xs, ys, commitment, ProofResponse(tuple(openings)), guesses) is None
    why = check_response(xs, ys, commitment, ProofResponse(tuple(openings)), (caught_on,) * 2)
    half = "intermediate to output" if caught_on else "input to intermediate"
    assert why == f"round 0 of its proof does not open ({half})"


def test_the_colluders_swap_is_refused_under_the_joint_challenge() -> None:
    """A remix holding a card the seat was not dealt cannot pass 16 rounds: over 8 seeded
    tries the forger's guesses never all match the bits the shares give."""
    for attempt in range(8):
        rng = SeededRandomness(b"swap" + bytes((attempt,)))
        xs = _hand(rng, range(13))
        ys = _swap(xs, rng)
        guesses = tuple(bool(rng.randbelow(2)) for _ in range(ROUNDS))
        commitment, openings = _forge(xs, ys, guesses, rng)
        bits = challenge_bits(_challenge(bytes((attempt,))), b"seat 2 remix", xs, ys, commitment)
        why = check_response(xs, ys, commitment, ProofResponse(tuple(openings)), bits)
        assert why is not None and "does not open" in why


def test_a_reused_intermediate_is_refused() -> None:
    """A list used in two rounds, or an entry of the input or output put back as an
    intermediate, is refused before any answer: opening both halves of it would show the
    witness, and no honest prover makes one."""
    xs = _hand(SeededRandomness(b"hand"), range(13))
    ys, commitment, _, _ = _prove(xs, b"reuse", rounds=4)
    lists = commitment.lists
    reused = ProofCommitment((lists[0], lists[1], lists[0], lists[3]))
    assert check_commitment(xs, ys, reused, 4) == "round 2 of its proof repeats an entry"
    echoed = ProofCommitment((lists[0], ys, lists[2], lists[3]))
    assert check_commitment(xs, ys, echoed, 4) == "round 1 of its proof repeats an entry"


@pytest.mark.parametrize(
    ("lists", "reason"),
    [
        (lambda ls: ls[:3], "its proof has 3 rounds, not 4"),
        (lambda ls: (ls[0][:12], *ls[1:]), "round 0 of its proof holds 12 entries, not 13"),
        (
            lambda ls: ((b"\x00" * 31, *ls[0][1:]), *ls[1:]),
            "round 0 of its proof holds an entry of 31 bytes",
        ),
        (
            lambda ls: ((CARD_POINTS[5], *ls[0][1:]), *ls[1:]),
            "round 0 of its proof holds a card point",
        ),
    ],
)
def test_malformed_intermediates_are_refused(lists, reason: str) -> None:  # type: ignore[no-untyped-def]
    """Wrong round counts, sizes, lengths and card points in the intermediates each have their
    own reason."""
    xs = _hand(SeededRandomness(b"hand"), range(13))
    ys, commitment, _, _ = _prove(xs, b"malformed", rounds=4)
    assert check_commitment(xs, ys, ProofCommitment(tuple(lists(commitment.lists))), 4) == reason


def test_an_entry_off_the_curve_is_refused() -> None:
    """An intermediate that is not a point is refused, not a crash: as off the curve in a round
    asking intermediate to output (where it is decoded), as not opening in one asking input to
    intermediate (where it is compared with a point)."""
    xs = _hand(SeededRandomness(b"hand"), range(3))
    ys, commitment, response, bits = _prove(xs, b"curve", rounds=8)
    off = next(bytes(31) + bytes((b,)) for b in range(256) if _off_curve(bytes(31) + bytes((b,))))
    for bit, reason in ((True, "holds an entry off the curve"), (False, "does not open")):
        r = bits.index(bit)
        lists = list(commitment.lists)
        lists[r] = (off, *lists[r][1:])
        bad = ProofCommitment(tuple(lists))
        assert check_commitment(xs, ys, bad, 8) is None
        why = check_response(xs, ys, bad, response, bits)
        assert why is not None and why.startswith(f"round {r} of its proof {reason}")


def _off_curve(x: bytes) -> bool:
    from hearts_p2p.deck.curve import InvalidPoint, load_x

    try:
        load_x(x)
    except InvalidPoint:
        return True
    return False


def test_wrong_answers_are_refused() -> None:
    """Every way an answer can be wrong is refused: a key changed, a permutation that is not
    one, a scalar out of range, two orders swapped, too few rounds."""
    xs = _hand(SeededRandomness(b"hand"), range(13))
    ys, commitment, response, bits = _prove(xs, b"answers", rounds=4)
    first = response.rounds[0]

    def with_first(opening: RoundOpening) -> ProofResponse:
        return ProofResponse((opening, *response.rounds[1:]))

    keys = list(first.keys)
    keys[3] = scalar_bytes(int.from_bytes(keys[3], "big") % (ORDER - 1) + 1)
    changed = with_first(replace(first, keys=tuple(keys)))
    assert check_response(xs, ys, commitment, changed, bits) is not None
    order = list(first.order)
    order[0], order[1] = order[1], order[0]
    swapped = with_first(replace(first, order=tuple(order)))
    assert "does not open" in (check_response(xs, ys, commitment, swapped, bits) or "")
    twice = with_first(replace(first, order=(first.order[1], *first.order[1:])))
    assert check_response(xs, ys, commitment, twice, bits) == (
        "round 0 of its proof opens no permutation with valid keys"
    )
    zero = with_first(replace(first, keys=(bytes(32), *first.keys[1:])))
    assert check_response(xs, ys, commitment, zero, bits) == (
        "round 0 of its proof opens no permutation with valid keys"
    )
    short = ProofResponse(response.rounds[:3])
    assert check_response(xs, ys, commitment, short, bits) == "its proof answers 3 rounds, not 4"


def test_the_bits_follow_every_share_label_and_list() -> None:
    """Changing any one share, the label or any list changes the bits: a prover fixing its
    lists before the last share is revealed cannot know them, and no answer of one proof
    is an answer of another."""
    xs = _hand(SeededRandomness(b"hand"), range(13))
    ys, commitment, _, _ = _prove(xs, b"bits", rounds=64)
    shares = [bytes((s,)) * 32 for s in range(4)]
    base = challenge_bits(joint_challenge(CONTEXT, shares), b"seat 0 pass", xs, ys, commitment)
    other_share = joint_challenge(CONTEXT, [*shares[:3], bytes(32)])
    assert challenge_bits(other_share, b"seat 0 pass", xs, ys, commitment) != base
    chal = joint_challenge(CONTEXT, shares)
    assert challenge_bits(chal, b"seat 0 remix", xs, ys, commitment) != base
    moved = ProofCommitment((commitment.lists[1], commitment.lists[0], *commitment.lists[2:]))
    assert challenge_bits(chal, b"seat 0 pass", xs, ys, moved) != base
    assert share_commitment(CONTEXT, 0, shares[0]) != share_commitment(CONTEXT, 1, shares[0])


def test_one_half_shows_nothing_of_the_order() -> None:
    """The half opened on 0 does not depend on the witness (two different orders open the same),
    and the half opened on 1 carries no key of the witness."""
    secrets = (RoundSecret(tuple(range(13)), tuple(range(2, 15))),)
    w1 = Witness(tuple(range(13)), tuple(range(100, 113)))
    w2 = Witness(tuple(reversed(range(13))), tuple(range(100, 113)))
    assert respond(w1, secrets, (False,)) == respond(w2, secrets, (False,))
    opened = respond(w1, secrets, (True,)).rounds[0]
    assert not {scalar_bytes(k) for k in w1.keys} & set(opened.keys)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    size=st.integers(1, 5),
    seed=st.binary(min_size=1, max_size=4),
    where=st.integers(0, 10**6),
    flip=st.integers(0, 255),
)
def test_any_changed_byte_of_a_proof_is_refused(
    size: int, seed: bytes, where: int, flip: int
) -> None:
    """One byte changed anywhere in the intermediates or the answers (an entry, a key) never
    leaves an accepted proof, and never crashes the check."""
    xs = _hand(SeededRandomness(b"hand"), range(size))
    ys, commitment, response, bits = _prove(xs, seed, rounds=3)
    flat = [x for mid in commitment.lists for x in mid] + [
        k for r in response.rounds for k in r.keys
    ]
    at = where % len(flat)
    changed = bytearray(flat[at])
    changed[where % 32] ^= 1 + flip % 255
    flat[at] = bytes(changed)
    n = len(xs)
    lists = tuple(tuple(flat[r * n : (r + 1) * n]) for r in range(3))
    keys = flat[3 * n :]
    answers = tuple(
        RoundOpening(r.order, tuple(keys[i * n : (i + 1) * n]))
        for i, r in enumerate(response.rounds)
    )
    bad = ProofCommitment(lists)
    why = check_commitment(xs, ys, bad, 3) or check_response(
        xs, ys, bad, ProofResponse(answers), bits
    )
    assert why is not None


def test_a_forger_passes_exactly_when_it_guessed_every_bit() -> None:
    """Without a witness, a proof passes if and only if each round was prepared for the bit the
    challenge gives it: the soundness of 2^-R, seen from both sides (over these seeds of two
    rounds, one forger guesses right and passes, the others are refused)."""
    outcomes = set()
    for seed in range(6):
        rng = SeededRandomness(b"guess" + bytes((seed,)))
        xs = _hand(rng, range(4))
        ys = _swap(xs, rng)
        guesses = tuple(bool(rng.randbelow(2)) for _ in range(2))
        commitment, openings = _forge(xs, ys, guesses, rng)
        bits = challenge_bits(_challenge(bytes((seed,))), b"seat 0 remix", xs, ys, commitment)
        why = check_response(xs, ys, commitment, ProofResponse(tuple(openings)), bits)
        assert (why is None) == (bits == guesses)
        outcomes.add(why is None)
    assert outcomes == {True, False}
