"""Sampled worlds agree with everything the seat knows, and what it knows is true."""

from __future__ import annotations

import random

import pytest

from hearts_p2p.bots import HeuristicBot, RandomBot
from hearts_p2p.bots.candidates import distinct_plays
from hearts_p2p.bots.knowledge import Knowledge, knowledge_of
from hearts_p2p.bots.sampler import Dealer, sample_hands, sample_world
from hearts_p2p.cards import Card, mask_of, parse_cards
from hearts_p2p.engine import Game, HandPhase, HandState, SeatView, deal_hands
from hearts_p2p.rules import Rules

from .bots_helpers import position, view_to_act


def _views(rules: Rules, number: int, seed: int) -> list[tuple[SeatView, list[int]]]:
    """Every view a seat gets to act on in one hand, with the true hands at that moment."""
    game = Game(rules)
    game.hand = hand = HandState.deal(rules, number, deal_hands(rules, number, random.Random(seed)))
    bots = [RandomBot(seed) if s % 2 else HeuristicBot() for s in range(rules.players)]
    out = []
    while hand.phase is not HandPhase.SCORED:
        seat = game.to_act()[0]
        view = SeatView.of(game, seat)
        if hand.phase is HandPhase.PLAYING:
            out.append((view, hand.hands[:]))
        game.apply(seat, bots[seat].choose(view))
    return out


@pytest.mark.parametrize(("players", "number"), [(3, 1), (4, 1), (4, 3), (5, 2), (6, 3), (4, 4)])
def test_worlds_are_consistent_with_knowledge(players: int, number: int) -> None:
    rules = Rules(players=players, queen_breaks_hearts=number == 3)
    rng = random.Random(players * 10 + number)
    for seed in range(6):
        for view, truth in _views(rules, number, seed):
            k = knowledge_of(view)
            me = view.seat
            assert k.state.hands[me] == mask_of(view.hand)
            for s in range(players):
                # What the seat deduced is true of the real deal.
                assert not truth[s] & k.forbidden[s] or s == me
                assert k.pinned[s] & ~truth[s] == 0
                assert truth[s].bit_count() == k.counts[s]
            dealer = Dealer(k)
            for _ in range(5):
                _check_world(sample_hands(k, rng), k, truth)
                _check_world(dealer.deal(rng), k, truth)


def _check_world(hands: list[int], k: Knowledge, truth: list[int]) -> None:
    me = k.seat
    assert hands[me] == truth[me]
    union = 0
    for s in range(len(hands)):
        assert hands[s].bit_count() == k.counts[s]
        assert not hands[s] & union
        union |= hands[s]
        if s != me:
            assert not hands[s] & k.forbidden[s]
            assert hands[s] & k.pinned[s] == k.pinned[s]
            assert not hands[s] & (k.state.played | truth[me])
    assert union == truth[me] | k.unseen


def test_dealer_shares_the_unconstrained_cards_by_room() -> None:
    """Seat 2, void in diamonds, holds 11 of the 24 unseen cards that are not diamonds."""
    hands = [
        "2C 5C 6C 7C 8C 9C 10C 2D 3D 4D 5D 6D 7D",
        "AC KC QC JC KS 2S 3S 4S 8D 9D 10D JD QD",
        "3C QS 8S JS 5S 7H 8H 9H 10H JH QH KH AH",
        "4C AS 9S 6S 7S 10S 2H 3H 4H 5H 6H KD AD",
    ]
    game = position(Rules(passing=False), 4, hands, "2C AC 3C 4C 8D QS")
    k = knowledge_of(view_to_act(game))  # seat 3 to play
    dealer = Dealer(k)
    rng = random.Random(2)
    worlds = 3000
    held = [0] * 4
    for _ in range(worlds):
        for s, hand in enumerate(dealer.deal(rng)):
            held[s] += hand >> Card.parse("7H") & 1
    assert abs(held[2] / worlds - 11 / 24) < 0.03
    assert held[0] and held[1] and held[0] + held[1] + held[2] == worlds


def test_voids_shown_are_respected() -> None:
    hands = [
        "2C 5C 6C 7C 8C 9C 10C 2D 3D 4D 5D 6D 7D",
        "AC KC QC JC KS 2S 3S 4S 8D 9D 10D JD QD",
        "3C QS 8S JS 5S 7H 8H 9H 10H JH QH KH AH",
        "4C AS 9S 6S 7S 10S 2H 3H 4H 5H 6H KD AD",
    ]
    # Seat 2 shows its diamond void by dropping Q♠ on 8♦; seat 3 is to play.
    game = position(Rules(passing=False), 4, hands, "2C AC 3C 4C 8D QS")
    k = knowledge_of(view_to_act(game))
    assert k.seat == 3
    diamonds = mask_of(parse_cards("2D 3D 4D 5D 6D 7D 9D 10D JD QD KD AD"))
    assert k.forbidden[2] & diamonds == diamonds
    assert game.hand is not None
    rng = random.Random(1)
    for _ in range(100):
        world = sample_world(k, rng)
        assert world.known == 0b1111
        assert not world.hands[2] & diamonds
        assert world.hands[3] == k.state.hands[3]
        assert world.legal_play_mask(3) == game.hand.legal_play_mask(3)


def test_cards_passed_stay_with_their_receiver() -> None:
    rules = Rules()
    game = Game(rules)
    game.hand = HandState.deal(rules, 1, deal_hands(rules, 1, random.Random(11)))
    bot = HeuristicBot()
    for _ in range(4):
        seat = game.to_act()[0]
        game.apply(seat, bot.choose(SeatView.of(game, seat)))
    view = SeatView.of(game, 0)
    k = knowledge_of(view)
    assert k.pinned[1] == mask_of(view.passed)
    for seed in range(20):
        assert sample_hands(k, random.Random(seed))[1] & k.pinned[1] == k.pinned[1]


def test_runs_without_a_live_card_between_are_one_choice() -> None:
    rules = Rules()
    hand = mask_of(parse_cards("5D 6D 8D 2H 3H QS KS"))
    diamonds = mask_of(parse_cards("5D 6D 8D"))
    out = mask_of(parse_cards("7D 9D 4H"))
    assert distinct_plays(diamonds, hand, out, rules) == parse_cards("5D 8D")
    assert distinct_plays(diamonds, hand, 0, rules) == parse_cards("5D")
    hearts = mask_of(parse_cards("2H 3H"))
    assert distinct_plays(hearts, hand, out, rules) == parse_cards("2H")
    assert distinct_plays(hearts, hand, out, Rules(spot_hearts=True)) == parse_cards("2H 3H")
    spades = mask_of(parse_cards("QS KS"))
    assert distinct_plays(spades, hand, out, rules) == parse_cards("QS KS")
