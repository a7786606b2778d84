"""A seat's view: its own cards and the public record, as the game goes on."""

from __future__ import annotations

import random

import pytest

from hearts_p2p.cards import cards_of, mask_of
from hearts_p2p.engine import Game, HandPhase, PassCards, PlayCard, SeatView, deal_hands
from hearts_p2p.rules import PassDirection, Rules, removed_cards

from .engine_helpers import SUITS, card, cards, masks


def test_view_before_the_first_deal() -> None:
    v = SeatView.of(Game(Rules()), 2)
    assert (v.hand_number, v.dealer, v.phase, v.hand, v.legal) == (0, 0, None, (), ())
    assert v.pass_direction is PassDirection.LEFT and v.pass_target == 3
    assert v.totals == (0, 0, 0, 0) and not v.game_over and not v.my_turn


def test_view_through_a_pass_and_a_trick() -> None:
    game = Game(Rules())
    game.start_hand(masks(*SUITS))
    v = SeatView.of(game, 1)
    assert v.phase is HandPhase.PASSING and v.my_turn and v.to_act == (0, 1, 2, 3)
    assert v.hand == tuple(cards(SUITS[1])) and v.received == ()
    assert len(v.legal) == 286
    for s, text in enumerate(["AC KC QC", "AD KD QD", "AS KS QS", "AH KH QH"]):
        game.apply(s, PassCards(tuple(cards(text))))
    v = SeatView.of(game, 1)
    assert v.passed == tuple(cards("QD KD AD"))
    assert v.received == tuple(cards("QC KC AC"))
    assert set(v.hand) == set(cards(SUITS[1])) - set(cards("QD KD AD")) | set(cards("QC KC AC"))
    game.apply(0, PlayCard(card("2C")))
    v = SeatView.of(game, 1)
    assert v.my_turn and v.trick is not None and v.trick.plays == ((0, card("2C")),)
    assert v.legal == tuple(PlayCard(c) for c in cards("QC KC AC"))
    v0 = SeatView.of(game, 0)
    assert v0.legal == () and not v0.my_turn


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_deal_hands_deals_the_trimmed_deck_evenly(players: int) -> None:
    rules = Rules(players=players)
    hands = deal_hands(rules, 1, random.Random(7))
    assert hands == deal_hands(rules, 1, random.Random(7))
    assert sum(hands) == rules.deck_mask
    assert all(h.bit_count() == rules.cards_each for h in hands)
    assert not sum(hands) & mask_of(removed_cards(players))
    assert cards_of(sum(hands)) == cards_of(rules.deck_mask)
