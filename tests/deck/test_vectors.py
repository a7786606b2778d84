"""The implementation against protocol/vectors/deck/: card points and a whole 4-seat hand."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hearts_p2p.cards import CARDS, Card, cards_of
from hearts_p2p.deck import HandParams, audit_hand, encrypt, message_from_wire
from hearts_p2p.deck.curve import CARD_POINTS, ORDER, load_x

from .vectors import DIR, card_points, from_json, hand4


def test_card_points_match_the_vector() -> None:
    stored = json.loads((DIR / "card_points.json").read_text())
    assert stored == card_points()
    tag = stored["tag"].encode()
    for entry in stored["cards"]:
        x = bytes.fromhex(entry["x"])
        assert hashlib.sha256(tag + bytes((entry["card"], entry["counter"]))).digest() == x
        load_x(x)
        assert CARD_POINTS[entry["card"]] == x


def test_cipher_commutes_and_inverts() -> None:
    x = CARD_POINTS[42]
    a, b = 0x1234567, ORDER - 99
    assert encrypt(a, encrypt(b, x)) == encrypt(b, encrypt(a, x))
    assert encrypt(pow(a, -1, ORDER), encrypt(a, x)) == x
    assert encrypt(ORDER - a, x) == encrypt(a, x)  # x only: k and n - k agree


@pytest.mark.parametrize("stopped", [False, True], ids=["clean", "stopped"])
def test_hand_vector_is_reproduced(stopped: bool) -> None:
    stored = json.loads((DIR / _vector(stopped)).read_text())
    assert stored == json.loads(json.dumps(hand4(stopped=stopped)))


def _vector(stopped: bool) -> str:
    return "hand4_stopped.json" if stopped else "hand4.json"


@pytest.mark.parametrize("stopped", [False, True], ids=["clean", "stopped"])
def test_hand_vector_audits_offline(stopped: bool) -> None:
    stored = json.loads((DIR / _vector(stopped)).read_text())
    params = HandParams(
        from_json(stored["game_id"]),
        stored["hand_number"],
        stored["players"],
        tuple(stored["pass_targets"]),
        tuple(from_json(stored["pass_keys"])),
    )
    messages = [message_from_wire(from_json(m)) for m in stored["messages"]]
    result = audit_hand(params, messages)
    assert result.ok and result.passes_private is not stopped
    held = [" ".join(c.ascii for c in cards_of(m)) for m in result.held]
    assert held == stored["audit"]["held_after_pass"]
    if stopped:
        assert [CARDS[c].ascii for c in result.cards] == stored["audit"]["cards"]
        dealt = [" ".join(c.ascii for c in cards_of(m)) for m in result.dealt]
        assert dealt == stored["audit"]["dealt"]


def test_the_spec_layouts_recompute_the_hand_vector() -> None:
    """SPEC.md 3.3 and 3.5 alone, with bare primitives, reproduce what the vector holds: the
    secrets' hash stream, every commitment, both echo digests, every pass box and the deal, from
    the hand that stopped (a clean one reveals no key)."""
    stored = from_json(json.loads((DIR / "hand4_stopped.json").read_text()))
    game_id, number, m = stored["game_id"], stored["hand_number"], 52
    context = bytes((len(game_id),)) + game_id + number.to_bytes(4, "big")
    msgs = stored["messages"]

    def of(kind: str) -> dict[int, dict[str, Any]]:
        return {msg["seat"]: msg for msg in msgs if msg["kind"] == kind}

    shuffles, locks, reveals = of("shuffle"), of("lock"), of("reveal")
    commits, passes = of("pass_commit"), of("pass_reveal")
    perms = {}
    for seat, reveal in reveals.items():
        stream = _Stream(b"vector seat %d" % seat)
        shuffle_key = stream.below(ORDER - 1) + 1
        perm = list(range(m))
        for i in range(m - 1, 0, -1):
            j = stream.below(i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        perms[seat] = perm
        # A hand that stopped reveals both; the stream's K gives seat 0's shuffle of the points.
        assert reveal["shuffle_key"] == shuffle_key.to_bytes(32, "big")
        assert reveal["permutation"] == perm
        if seat == 0:
            points = [encrypt(shuffle_key, CARD_POINTS[c]) for c in range(m)]
            assert [points[perm[i]] for i in range(m)] == shuffles[0]["deck"]
        tag = b"hearts-p2p/deck/v1/lock-key" + context
        for i, (key, nonce) in enumerate(
            zip(reveal["lock_keys"], reveal["lock_nonces"], strict=True)
        ):
            digest = hashlib.sha256(tag + bytes((seat, i)) + key + nonce).digest()
            assert digest == locks[seat]["commitments"][i]
    for stage, parts in (
        ("shuffle", [b"".join(shuffles[s]["deck"]) for s in range(4)]),
        ("lock", [b"".join(locks[s]["deck"] + locks[s]["commitments"]) for s in range(4)]),
    ):
        digest = hashlib.sha256(
            b"hearts-p2p/deck/v1/echo" + context + stage.encode() + b"".join(parts)
        ).digest()
        assert all(
            e["digest"] == digest for e in msgs if e["kind"] == "echo" and e["stage"] == stage
        )
    box_tag = b"hearts-p2p/deck/v1/pass-box"
    for seat, reveal in passes.items():
        receiver = stored["pass_targets"][seat]
        positions = reveal["positions"]
        header = context + bytes((seat, receiver, 3, *positions))
        committed = context + bytes((seat, 3, *positions)) + reveal["nonce"]
        digest = hashlib.sha256(b"hearts-p2p/deck/v1/pass" + committed).digest()
        assert digest == commits[seat]["digest"]
        receiver_key = X25519PrivateKey.from_private_bytes(
            _Stream(b"vector pass key %d" % receiver).bytes(32)
        )
        assert receiver_key.public_key().public_bytes_raw() == stored["pass_keys"][receiver]
        shared = receiver_key.exchange(X25519PublicKey.from_public_bytes(reveal["ephemeral"]))
        info = box_tag + header + reveal["ephemeral"] + stored["pass_keys"][receiver]
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)
        plain = ChaCha20Poly1305(key).decrypt(bytes(12), reveal["sealed"], box_tag + header)
        keys = reveals[seat]
        assert plain == b"".join(keys["lock_keys"][p] + keys["lock_nonces"][p] for p in positions)
    layout = []
    for i in range(m):
        for perm in reversed([perms[s] for s in range(4)]):
            i = perm[i]
        layout.append(CARDS[i].ascii)
    assert layout == stored["audit"]["cards"]
    dealer = (number - 1) % 4
    for seat in range(4):
        mine = [layout[i] for i in range(m) if (dealer + 1 + i) % 4 == seat]
        assert (
            sorted(mine, key=lambda c: CARDS.index(Card.parse(c)))
            == stored["audit"]["dealt"][seat].split()
        )


class _Stream:
    """SPEC.md 3.3, written from the text."""

    def __init__(self, seed: bytes) -> None:
        self.seed, self.counter, self.buffer = seed, 0, b""

    def bytes(self, k: int) -> bytes:
        while len(self.buffer) < k:
            self.buffer += hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
            self.counter += 1
        out, self.buffer = self.buffer[:k], self.buffer[k:]
        return out

    def below(self, m: int) -> int:
        b = (m - 1).bit_length()
        if b == 0:
            return 0
        while True:
            v = int.from_bytes(self.bytes((b + 7) // 8), "big") & ((1 << b) - 1)
            if v < m:
                return v


def test_the_spec_remix_recomputes_the_hand_vector() -> None:
    """SPEC.md 4.2 and 4.4 step 7 alone: each seat's remix order and keys come next in its hash
    stream, its remixed hand is its held positions under those keys, and each play's key is the
    slot's remix key times every lock key of the position (the hand that stopped reveals them)."""
    stored = from_json(json.loads((DIR / "hand4_stopped.json").read_text()))
    m, n, h = 52, 4, 13
    msgs = stored["messages"]
    reveals = {msg["seat"]: msg for msg in msgs if msg["kind"] == "reveal"}
    remixes = {msg["seat"]: msg for msg in msgs if msg["kind"] == "remix"}
    passes = {msg["seat"]: msg for msg in msgs if msg["kind"] == "pass_reveal"}
    final = [msg for msg in msgs if msg["kind"] == "lock"][-1]["deck"]
    dealer = (stored["hand_number"] - 1) % n
    holder = [(dealer + 1 + i) % n for i in range(m)]
    for seat, reveal in passes.items():
        for p in reveal["positions"]:
            holder[p] = stored["pass_targets"][seat]
    for seat in range(n):
        stream = _Stream(b"vector seat %d" % seat)
        order, keys = _remix_secrets(stream, m, h)
        assert order == reveals[seat]["remix_order"]
        assert [k.to_bytes(32, "big") for k in keys] == reveals[seat]["remix_keys"]
        held = [i for i in range(m) if holder[i] == seat]
        entries = [encrypt(keys[k], final[held[order[k]]]) for k in range(h)]
        assert entries == remixes[seat]["deck"]
    for play in (msg for msg in msgs if msg["kind"] == "open"):
        seat, k = divmod(play["position"], h)
        held = [i for i in range(m) if holder[i] == seat]
        position = held[reveals[seat]["remix_order"][k]]
        total = int.from_bytes(reveals[seat]["remix_keys"][k], "big")
        for r in reveals.values():
            total = total * int.from_bytes(r["lock_keys"][position], "big") % ORDER
        assert play["key"] == total.to_bytes(32, "big") and play["nonce"] == bytes(16)
        assert encrypt(total, CARD_POINTS[play["card"]]) == remixes[seat]["deck"][k]


def _remix_secrets(stream: _Stream, m: int, h: int) -> tuple[list[int], list[int]]:
    """SPEC.md 4.2: skip a seat's secrets up to its remix, then draw its order and keys."""
    stream.below(ORDER - 1)
    for i in range(m - 1, 0, -1):
        stream.below(i + 1)
    for _ in range(m):
        stream.below(ORDER - 1)
    stream.bytes(16 * m + 16 + 32)  # lock nonces, the pass nonce, the ephemeral key
    return _shuffled(stream, h), [stream.below(ORDER - 1) + 1 for _ in range(h)]


def _shuffled(stream: _Stream, size: int) -> list[int]:
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def test_the_spec_remix_proof_recomputes_the_clean_vector() -> None:
    """SPEC.md 3.5, 4.2 and 4.4 steps 6a-6c alone: each seat's proof rounds and challenge share
    come next in its hash stream after its remix keys; the intermediates, the share commitment,
    the joint challenge, each proof's bits and its answers are as written; and the clean hand's
    reveals carry no key, nonce, order or pass secret."""
    stored = from_json(json.loads((DIR / "hand4.json").read_text()))
    m, n, h, rounds = 52, 4, 13, 16
    game_id, number = stored["game_id"], stored["hand_number"]
    context = bytes((len(game_id),)) + game_id + number.to_bytes(4, "big")
    msgs = stored["messages"]

    def of(kind: str) -> dict[int, dict[str, Any]]:
        return {msg["seat"]: msg for msg in msgs if msg["kind"] == kind}

    remixes, shares, answers = of("remix"), of("remix_share"), of("remix_answer")
    final = [msg for msg in msgs if msg["kind"] == "lock"][-1]["deck"]
    dealer = (number - 1) % n
    holder = [(dealer + 1 + i) % n for i in range(m)]
    for seat, reveal in of("pass_reveal").items():
        for p in reveal["positions"]:
            holder[p] = stored["pass_targets"][seat]
    challenge = hashlib.sha256(
        b"hearts-p2p/deck/v1/proof-challenge"
        + context
        + b"".join(shares[s]["share"] for s in range(n))
    ).digest()
    for seat in range(n):
        stream = _Stream(b"vector seat %d" % seat)
        order, keys = _remix_secrets(stream, m, h)
        xs = [final[i] for i in range(m) if holder[i] == seat]
        mids = []
        for r in range(rounds):
            rho = _shuffled(stream, h)
            a = [stream.below(ORDER - 1) + 1 for _ in range(h)]
            mids.append((rho, a))
            assert remixes[seat]["proof"][r] == [encrypt(a[j], xs[rho[j]]) for j in range(h)]
        share = stream.bytes(32)
        assert shares[seat]["share"] == share
        digest = hashlib.sha256(
            b"hearts-p2p/deck/v1/proof-share" + context + bytes((seat,)) + share
        ).digest()
        assert remixes[seat]["share"] == digest
        label = bytes((seat,)) + b"remix"
        base = challenge + bytes((len(label),)) + label + b"".join(xs)
        base += b"".join(remixes[seat]["deck"]) + b"".join(
            b"".join(x) for x in remixes[seat]["proof"]
        )
        bits = hashlib.sha256(base + bytes(4)).digest()
        answer = answers[seat]
        for r, (rho, a) in enumerate(mids):
            if not bits[r // 8] >> (7 - r % 8) & 1:
                assert answer["orders"][r] == rho
                assert answer["keys"][r] == [k.to_bytes(32, "big") for k in a]
                continue
            tau = [rho.index(i) for i in order]
            b = [keys[j] * pow(a[tau[j]], -1, ORDER) % ORDER for j in range(h)]
            assert answer["orders"][r] == tau
            assert answer["keys"][r] == [k.to_bytes(32, "big") for k in b]
            mid = remixes[seat]["proof"][r]
            assert [encrypt(b[j], mid[tau[j]]) for j in range(h)] == remixes[seat]["deck"]
    for reveal in of("reveal").values():
        assert reveal["lock_keys"] == reveal["lock_nonces"] == reveal["remix_keys"] == []
        assert reveal["remix_order"] == reveal["permutation"] == []
        assert reveal["pass_secret"] == reveal["shuffle_key"] == b""
