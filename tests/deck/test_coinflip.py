"""The joint coin flip: commit, reveal, one seed for everyone, a fixed Fisher–Yates."""

from __future__ import annotations

import pytest

from hearts_p2p.coinflip import CoinFlip, CoinFlipCheatError, HashStream, commitment, fisher_yates


def _secrets(n: int) -> list[bytes]:
    return [bytes([p]) * 32 for p in range(n)]


def test_everyone_gets_the_same_order() -> None:
    secrets = _secrets(4)
    flips = [CoinFlip(b"table", 4) for _ in range(4)]
    for flip in flips:
        for p, s in enumerate(secrets):
            flip.commit(p, commitment(b"table", p, s))
        assert flip.waiting_for() == [0, 1, 2, 3]
        for p, s in enumerate(secrets):
            flip.reveal(p, s)
    orders = [flip.order(["a", "b", "c", "d"]) for flip in flips]
    assert all(o == orders[0] for o in orders)
    assert sorted(orders[0]) == ["a", "b", "c", "d"]


def test_reveal_must_match_and_wait_for_all_commitments() -> None:
    flip = CoinFlip(b"t", 2)
    flip.commit(0, commitment(b"t", 0, bytes(32)))
    with pytest.raises(CoinFlipCheatError) as early:
        flip.reveal(0, bytes(32))
    assert early.value.participant == 0
    flip.commit(1, commitment(b"t", 1, bytes(32)))
    with pytest.raises(CoinFlipCheatError) as wrong:
        flip.reveal(1, b"\x01" * 32)
    assert wrong.value.participant == 1
    assert flip.waiting_for() == [0, 1]


def test_fisher_yates_is_fixed_and_uniform_enough() -> None:
    assert fisher_yates(range(5), b"seed") == fisher_yates(list(range(5)), b"seed")
    counts = [0] * 3
    for i in range(600):
        counts[fisher_yates([0, 1, 2], b"%d" % i)[0]] += 1
    assert all(150 < c < 250 for c in counts)


def test_hash_stream_is_sha256_counter_output() -> None:
    import hashlib

    stream = HashStream(b"s")
    assert stream.token_bytes(40) == (
        hashlib.sha256(b"s" + bytes(8)).digest()
        + hashlib.sha256(b"s" + (1).to_bytes(8, "big")).digest()[:8]
    )
    assert all(0 <= stream.randbelow(7) < 7 for _ in range(100))
