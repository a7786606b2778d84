"""Partial knowledge: a peer knows its own cards; other seats' plays are checked against what it
knows, and the hand-dependent rules wait for the replay with every card revealed."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import mask_of
from hearts_p2p.engine import Game, HandPhase, HandState, IllegalActionError, PassCards, PlayCard
from hearts_p2p.rules import Rules

from .engine_helpers import card, cards, fill, masks, play

MIXED = masks(
    "3C 4C 5C 2D 3D 4D 5D 6D 2S 3S 4S 2H 3H",
    "7D 8D 9D 10D JD QD KD AD 5S 6S 7S 8S 9S",
    "2C 6C 7C 8C 10S JS QS KS AS 4H 5H 6H 7H",
    "9C 10C JC QC KC AC 8H 9H 10H JH QH KH AH",
)


def only(deal: list[int], seat: int) -> list[int | None]:
    return [m if s == seat else None for s, m in enumerate(deal)]


def rule_of(h: HandState, seat: int, text: str) -> str:
    with pytest.raises(IllegalActionError) as info:
        h.apply_play(seat, card(text))
    return info.value.rule


def test_unknown_seats_are_checked_against_public_information() -> None:
    h = HandState.deal(Rules(), 4, only(MIXED, 0))
    assert h.turn is None  # an unknown seat holds 2♣
    assert rule_of(h, 3, "9C") == "you must lead 2♣"
    h.apply_play(2, card("2C"))
    assert h.turn == 3 and h.first_leader == 2
    assert rule_of(h, 3, "3C") == "3♣ is in another seat's hand"
    assert rule_of(h, 1, "9C") == "not your turn"
    assert rule_of(h, 3, "2C") == "2♣ has been played already"
    play(h, "9C 3C JD")
    assert h.tricks[0].winner == 3
    # Seat 2 still holds clubs, but only a full replay can know that.
    play(h, "10C 4C 7D 10S")
    full = HandState.deal(Rules(), 4, list(MIXED))
    play(full, "2C 9C 3C JD 10C 4C 7D")
    assert rule_of(full, 2, "10S") == "you must follow ♣"


def test_known_seat_plays_are_fully_checked() -> None:
    h = HandState.deal(Rules(), 4, only(MIXED, 0))
    h.apply_play(2, card("2C"))
    h.apply_play(3, card("9C"))
    assert rule_of(h, 0, "2D") == "you must follow ♣"
    assert rule_of(h, 0, "AS") == "you do not hold A♠"


def test_pass_in_partial_knowledge() -> None:
    rules = Rules()
    deal = fill(rules, {})
    h = HandState.deal(rules, 1, only(deal, 0))  # left: 3 gives to 0, 0 gives to 1
    give0 = cards("2C 3C 4C")
    from_three = cards("KH QH AH")
    assert all(deal[3] >> c & 1 for c in from_three)
    with pytest.raises(IllegalActionError, match="must name its cards"):
        h.apply_pass(0, None)
    with pytest.raises(IllegalActionError, match="another seat holds"):
        h.apply_pass(3, mask_of(cards("5C KH QH")))  # 5♣ is seat 0's
    h.apply_pass(0, mask_of(give0))
    h.apply_pass(1, None)
    h.apply_pass(3, mask_of(from_three))
    assert h.hands[0] == deal[0]  # nothing moves until every seat has passed
    h.apply_pass(2, None)
    assert h.phase is HandPhase.PLAYING
    assert h.hands[0] == deal[0] & ~mask_of(give0) | mask_of(from_three)
    assert h.received[0] == mask_of(from_three)


def test_game_with_hidden_passes() -> None:
    rules = Rules()
    deal = fill(rules, {})
    game = Game(rules)
    game.start_hand(only(deal, 2))
    assert game.legal_actions(0) == []
    assert len(game.legal_actions(2)) == 286
    game.apply(0, PassCards(None))
    game.apply(1, PassCards(tuple(cards("3D 4D 5D"))))  # to seat 2, who sees them
    game.apply(3, PassCards(None))
    game.apply(2, PassCards(tuple(cards("AS KS QS"))))
    assert game.hand is not None and game.hand.phase is HandPhase.PLAYING
    assert game.hand.hands[2] >> card("3D") & 1


def test_the_holder_of_a_passed_two_of_clubs_leads() -> None:
    rules = Rules()
    deal = fill(rules, {})  # seat 0 holds 2♣
    h = HandState.deal(rules, 1, only(deal, 0))
    h.apply_pass(0, mask_of(cards("2C 3C 4C")))  # to seat 1
    for s in (1, 2, 3):
        h.apply_pass(s, None)
    assert h.turn == h.first_leader == 1
    assert rule_of(h, 2, "2C") == "not your turn"
    h.apply_play(1, card("2C"))


def test_a_passed_card_stays_with_its_receiver() -> None:
    rules = Rules()
    deal = fill(rules, {})  # deck order: seat 0 all clubs, 1 diamonds, 2 spades, 3 hearts
    h = HandState.deal(rules, 1, only(deal, 0))
    h.apply_pass(0, mask_of(cards("QC KC AC")))  # left, to seat 1
    for s in (1, 2, 3):
        h.apply_pass(s, None)
    play(h, "2C")
    assert rule_of(h, 1, "2D") == "you must follow ♣"  # seat 1 holds Q♣ K♣ A♣
    play(h, "KC")
    assert rule_of(h, 2, "AC") == "A♣ is in another seat's hand"
    play(h, "2S")


def test_a_seat_may_not_show_out_of_a_suit_it_was_passed() -> None:
    rules = Rules()
    deal = fill(rules, {})  # deck order: seat 0 all clubs, 1 diamonds, 2 spades, 3 hearts
    h = HandState.deal(rules, 2, only(deal, 0))  # right: seat 0 gives to seat 3
    h.apply_pass(0, mask_of(cards("QC KC AC")))
    for s in (1, 2, 3):
        h.apply_pass(s, None)
    assert h.turn == 0
    play(h, "2C")
    assert rule_of(h, 1, "AC") == "A♣ is in another seat's hand"
    h.apply_play(1, card("2D"))
    h.apply_play(2, card("2S"))
    # Seat 3 holds Q♣ K♣ A♣ from seat 0 and has played none of them.
    assert rule_of(h, 3, "2H") == "you must follow ♣"
    h.apply_play(3, card("AC"))
    assert h.turn == 3
    assert rule_of(h, 3, "2H") == "hearts are not broken"  # seat 3 still holds K♣ Q♣
    play(h, "KC")


def test_an_unknown_seat_may_not_pass_a_card_outside_the_deck() -> None:
    rules = Rules(players=3)
    h = HandState.deal(rules, 1, only(fill(rules, {}), 0))
    with pytest.raises(IllegalActionError, match="not in this deck"):
        h.apply_pass(1, mask_of(cards("2C AH KH")))


def test_an_unknown_seat_may_not_play_a_card_outside_the_deck() -> None:
    rules = Rules(players=5, passing=False)
    h = HandState.deal(rules, 1, only(fill(rules, {}), 0))
    assert h.turn == 1
    assert rule_of(h, 1, "2D") == "2♦ is not in this deck"


def test_apply_play_through_game_in_partial_mode() -> None:
    game = Game(Rules(passing=False))
    game.start_hand(only(MIXED, 0))
    assert game.to_act() == []  # nobody known holds 2♣
    game.apply(2, PlayCard(card("2C")))
    assert game.to_act() == [3]


def test_no_points_on_the_first_trick_while_holding_a_passed_plain_card() -> None:
    rules = Rules()
    deal = fill(rules, {0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC 2D 3D 4D"})
    h = HandState.deal(rules, 2, only(deal, 0))  # right: seat 0 gives to seat 3
    h.apply_pass(0, mask_of(cards("2D 3D 4D")))
    for s in (1, 2, 3):
        h.apply_pass(s, None)
    play(h, "2C QC 2S")
    assert rule_of(h, 3, "2H") == "no points on the first trick"  # seat 3 holds 2♦ 3♦ 4♦
    play(h, "3D")
