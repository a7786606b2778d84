"""A false remix at a live table: a seat mixes into its hand a card it does not hold, to play it.

The slot's entry is the cheater's own making, so its open would check; but its remix proof cannot
answer the joint challenge (a round asked from intermediate to output does not open), so every
peer names it at the proof's answer, before the first card is played. The true holder is never
named, and the audit of every honest log says the same.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import hearts_p2p.deck.seat as deck_seat
from hearts_p2p.cards import QUEEN_SPADES, cards_of
from hearts_p2p.deck import PROOF_ROUNDS, Open, Remix, encrypt
from hearts_p2p.deck.curve import CARD_POINTS, scalar_bytes
from hearts_p2p.engine import IllegalActionError
from hearts_p2p.game import GameProtocol, Status, StepKind
from hearts_p2p.rules import Rules

from .table import Table, play_unchecked
from .test_blame import audit_of

RULES = Rules(players=4, target=40)
FAKE_KEY = 0xC0FFEE


def _cheat_with_queen(monkeypatch: pytest.MonkeyPatch, table: Table, cheater: int) -> None:
    """Seat ``cheater``'s deck remixes Q♠ in place of its highest card, in the first hand with a
    pass where it is not dealt Q♠ (dealt it, it would know where it went)."""
    real_remix, real_where = deck_seat.SeatDeck._remix, deck_seat.SeatDeck._where
    real_proof = deck_seat.SeatDeck._proof
    fake: dict[str, int] = {}

    def mine(deck: deck_seat.SeatDeck) -> bool:
        p = table.protos[cheater]
        return p.flow is not None and deck is p.flow.deck

    def remix(deck: deck_seat.SeatDeck) -> Remix:
        honest = real_remix(deck)
        if not mine(deck) or deck.dealt >> QUEEN_SPADES & 1 or fake:
            return honest
        first, held = deck.seat * deck.public.share, deck.public.held(deck.seat)
        cards = [deck._cards[held[j]] for j in deck._remix_order]
        k = cards.index(max(cards))
        fake["slot"], fake["hand"] = first + k, deck.params.hand_number
        entry = encrypt(FAKE_KEY, CARD_POINTS[QUEEN_SPADES])
        return dataclasses.replace(honest, deck=(*honest.deck[:k], entry, *honest.deck[k + 1 :]))

    def where(deck: deck_seat.SeatDeck) -> dict[int, int]:
        out = real_where(deck)
        if mine(deck) and fake.get("hand") == deck.params.hand_number and fake["slot"] in out:
            out[fake["slot"]] = QUEEN_SPADES
        return out

    def proof(deck: deck_seat.SeatDeck, at: int, card: int) -> Open:
        if mine(deck) and fake.get("hand") == deck.params.hand_number and at == fake["slot"]:
            return Open(deck.seat, at, card, scalar_bytes(FAKE_KEY), bytes(16))
        return real_proof(deck, at, card)

    monkeypatch.setattr(deck_seat.SeatDeck, "_remix", remix)
    monkeypatch.setattr(deck_seat.SeatDeck, "_where", where)
    monkeypatch.setattr(deck_seat.SeatDeck, "_proof", proof)

    def choose(player: int, p: GameProtocol) -> bool:
        """The cheater plays from its deck's idea of its hand, Q♠ first whenever it may."""
        if player != cheater or p.choice_needed() is None or p.step.kind is not StepKind.OPEN:
            return False
        assert p.game is not None and p.game.hand is not None and p.flow is not None
        deck, seat, hand = p.flow.deck, p.my_seat, p.game.hand
        assert deck is not None and seat is not None
        cards = sorted(cards_of(deck.hand), key=lambda c: (c != QUEEN_SPADES, c))
        for card in cards:
            public = hand.clone()
            public.known &= ~(1 << seat)
            try:
                public.apply_play(seat, card)
            except IllegalActionError:
                continue
            play_unchecked(table, player, card)
            return True
        play_unchecked(table, player, cards[0])
        return True

    table.choose = choose


@pytest.mark.parametrize("seed", [21, 22])
def test_a_card_remixed_in_by_a_seat_that_does_not_hold_it_names_that_seat(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, seed: int
) -> None:
    cheater = 1
    table = Table(RULES, seed=seed, proof_rounds=PROOF_ROUNDS)
    _cheat_with_queen(monkeypatch, table, cheater)
    table.run()
    honest = [p for i, p in enumerate(table.protos) if i != cheater]
    for p in honest:
        assert p.status is Status.ABORTED, p.status
        assert p.abort is not None and p.abort.blamed == cheater, p.abort
        assert "its remix proof fails" in p.abort.reason, p.abort.reason
        assert p.game is not None and p.game.hand is not None and not p.game.hand.tricks
    assert len({tuple(p.entries) for p in honest}) == 1
    report = audit_of(tmp_path, honest[0])
    abort = report["abort"]
    assert abort["ending"] == "cheat proven" and abort["confirmed"], abort
    assert "its remix proof fails" in abort["reason"], abort
    assert abort["blamed"] == f"seat {table.protos[cheater].my_seat} (p{cheater})", abort
