"""Build the deck vectors of protocol/vectors/deck/ (run this file to rewrite them).

Bytes are written as ``"hex:…"`` strings; everything else is plain JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hearts_p2p.cards import CARDS, cards_of
from hearts_p2p.deck import Loopback, Message, SeatDeck, SeededRandomness, new_pass_key
from hearts_p2p.deck.curve import CARD_POINT_COUNTERS, CARD_POINT_TAG, CARD_POINTS
from hearts_p2p.deck.params import HandParams
from hearts_p2p.deck.passbox import public_bytes
from hearts_p2p.rules import Rules

DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "deck"
GAME_ID = b"vector-game"


def to_json(value: Any) -> Any:
    if isinstance(value, bytes):
        return "hex:" + value.hex()
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


def from_json(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("hex:"):
        return bytes.fromhex(value[4:])
    if isinstance(value, list):
        return [from_json(v) for v in value]
    if isinstance(value, dict):
        return {k: from_json(v) for k, v in value.items()}
    return value


def card_points() -> dict[str, Any]:
    return {
        "label": "SHA-256(tag ‖ card id (1 byte) ‖ counter (1 byte)), first counter giving an x "
        "of P-256; the point is 0x02 ‖ x",
        "tag": CARD_POINT_TAG.decode(),
        "cards": [
            {"card": c, "name": CARDS[c].ascii, "counter": CARD_POINT_COUNTERS[c], "x": x.hex()}
            for c, x in enumerate(CARD_POINTS)
        ],
    }


class _AlarmsAfterItsFirstPlay(SeatDeck):
    """Stops the hand with an alarm right after its first open: the hand is not clean."""

    def open(self, card: int) -> list[Message]:
        out = super().open(card)
        return out + (self.alarm("stopped for the vector") if self._alarm is None else [])


def hand4(*, stopped: bool = False) -> dict[str, Any]:
    """A complete four-seat hand 1 (pass left): seeded secrets, every message, the audit. With
    ``stopped``, seat 0 alarms after its first play, so every seat reveals every secret."""
    keys = [new_pass_key(SeededRandomness(b"vector pass key %d" % s)) for s in range(4)]
    params = HandParams.for_rules(Rules(), GAME_ID, 1, [public_bytes(k) for k in keys])
    seats = [
        (_AlarmsAfterItsFirstPlay if stopped and s == 0 else SeatDeck)(
            params, s, keys[s], SeededRandomness(b"vector seat %d" % s)
        )
        for s in range(4)
    ]
    table = Loopback(seats)
    table.run()
    result = seats[0].audit()
    about = (
        "Seat s draws its secrets from SeededRandomness(b'vector seat <s>') in the "
        "order of SPEC.md; its X25519 pass key is 32 bytes of SeededRandomness(b'vector pass "
        "key <s>'). Each seat passes its 3 lowest dealt cards; seats then open their lowest "
        "card in turn from the dealer's left. Messages are in delivery order."
    )
    if stopped:
        about += " Seat 0 raises an alarm right after its first open: the hand is not clean."
    else:
        about += " The hand is clean and remixed: its reveals carry no key."
    audit: dict[str, Any] = {
        "passes_private": result.passes_private,
        "held_after_pass": [" ".join(c.ascii for c in cards_of(m)) for m in result.held],
    }
    if not result.passes_private:
        audit |= {
            "cards": [CARDS[c].ascii for c in result.cards],
            "dealt": [" ".join(c.ascii for c in cards_of(m)) for m in result.dealt],
            "passes": [
                {"from": p.passer, "to": p.receiver, "positions": list(p.positions)}
                for p in result.passes
            ],
        }
    return {
        "about": about,
        "game_id": to_json(GAME_ID),
        "hand_number": 1,
        "players": 4,
        "pass_targets": list(params.pass_targets),
        "pass_keys": to_json(list(params.pass_keys)),
        "messages": [to_json(m.to_wire()) for m in table.transcript],
        "audit": audit,
    }


def main() -> None:
    DIR.mkdir(parents=True, exist_ok=True)
    for name, data in (
        ("card_points.json", card_points()),
        ("hand4.json", hand4()),
        ("hand4_stopped.json", hand4(stopped=True)),
    ):
        (DIR / name).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
