"""The end-of-hand replay names the seat and trick of a rule only the true hands can show."""

from __future__ import annotations

import random

import pytest

from hearts_p2p.cards import cards_of
from hearts_p2p.engine import PlayCard, deal_hands
from hearts_p2p.engine.hand import HandPhase, HandState
from hearts_p2p.game import HandTruth, ReplayFault, replay_hand
from hearts_p2p.rules import Rules

RULES = Rules(passing=False)


def honest_plays(dealt: list[int]) -> list[tuple[int, PlayCard]]:
    h = HandState.deal(RULES, 4, dealt)
    plays = []
    while h.phase is HandPhase.PLAYING:
        seat = h.turn
        assert seat is not None
        card = cards_of(h.legal_play_mask(seat))[0]
        plays.append((seat, PlayCard(card)))
        h.play(seat, card)
    return plays


def test_an_honest_hand_replays_to_the_same_result() -> None:
    dealt = deal_hands(RULES, 4, random.Random(7))
    plays = honest_plays(dealt)
    replay = replay_hand(RULES, 4, HandTruth(tuple(dealt), tuple(dealt), (0,) * 4), plays)
    assert replay.phase is HandPhase.SCORED and len(replay.tricks) == 13


def test_a_renege_is_named_with_its_trick() -> None:
    dealt = deal_hands(RULES, 4, random.Random(7))
    plays = honest_plays(dealt)
    h = HandState.deal(RULES, 4, dealt)
    for i, (seat, play) in enumerate(plays):
        if h.trick and i % 4 and (h.hands[seat] & ~h.legal_play_mask(seat)):
            wrong = cards_of(h.hands[seat] & ~h.legal_play_mask(seat))[0]
            with pytest.raises(ReplayFault) as fault:
                replay_hand(
                    RULES,
                    4,
                    HandTruth(tuple(dealt), tuple(dealt), (0,) * 4),
                    [*plays[:i], (seat, PlayCard(wrong))],
                )
            assert fault.value.seat == seat
            assert fault.value.where == f"hand 4, trick {len(h.tricks) + 1}"
            assert "found by the end-of-hand replay" in str(fault.value)
            return
        h.play(seat, int(play.card))
    pytest.fail("no chance to renege in this deal")


def test_a_hand_whose_passes_stay_private_replays_from_the_hands_after_the_pass() -> None:
    """The replay of a clean remixed hand starts at the first lead with each seat's cards after
    the pass: the same tricks and points as the hand played from the deal and its passes."""
    rules = Rules()
    dealt = deal_hands(rules, 1, random.Random(3))
    h = HandState.deal(rules, 1, dealt)
    passed = [cards_of(d)[:3] for d in dealt]
    for seat, cards in enumerate(passed):
        h.apply_pass(seat, sum(1 << c for c in cards))
    held = tuple(h.hands)
    plays = []
    while h.phase is HandPhase.PLAYING:
        seat = h.turn
        assert seat is not None
        card = cards_of(h.legal_play_mask(seat))[-1]
        plays.append((seat, PlayCard(card)))
        h.play(seat, card)
    private = HandTruth(held, (None,) * 4, (None,) * 4)
    assert private.private
    replay = replay_hand(rules, 1, private, plays)
    assert replay.phase is HandPhase.SCORED and replay.result == h.result
    assert [t.cards for t in replay.tricks] == [t.cards for t in h.tricks]
