"""The implementation against protocol/vectors/deck/: card points and a whole 4-seat hand."""

from __future__ import annotations

import hashlib
import json

from hearts_p2p.cards import CARDS, cards_of
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


def test_hand_vector_is_reproduced() -> None:
    stored = json.loads((DIR / "hand4.json").read_text())
    assert stored == json.loads(json.dumps(hand4()))


def test_hand_vector_audits_offline() -> None:
    stored = json.loads((DIR / "hand4.json").read_text())
    params = HandParams(
        from_json(stored["game_id"]),
        stored["hand_number"],
        stored["players"],
        tuple(stored["pass_targets"]),
        tuple(from_json(stored["pass_keys"])),
    )
    messages = [message_from_wire(from_json(m)) for m in stored["messages"]]
    result = audit_hand(params, messages)
    assert result.ok
    assert [CARDS[c].ascii for c in result.cards] == stored["audit"]["cards"]
    dealt = [" ".join(c.ascii for c in cards_of(m)) for m in result.dealt]
    assert dealt == stored["audit"]["dealt"]
