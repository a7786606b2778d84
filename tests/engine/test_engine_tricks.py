"""Trick play on hand-made deals: the lead, following suit, points on the first trick, hearts."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import cards_of, format_cards
from hearts_p2p.engine import HandPhase, IllegalActionError
from hearts_p2p.rules import Rules

from .engine_helpers import SUITS, card, cards, fill, masks, play, playing


def illegal(h: object, seat: int, text: str) -> str:
    with pytest.raises(IllegalActionError) as info:
        h.apply_play(seat, card(text))  # type: ignore[attr-defined]
    return info.value.rule


def legal(h: object, seat: int) -> str:
    return format_cards(cards_of(h.legal_play_mask(seat)), ascii=True)  # type: ignore[attr-defined]


# Seat 2 holds 2♣; seat 1 is void in clubs with no hearts or Q♠ besides J♦ and spades;
# seat 3 holds only clubs and hearts.
MIXED = (
    "3C 4C 5C 2D 3D 4D 5D 6D 2S 3S 4S 2H 3H",
    "7D 8D 9D 10D JD QD KD AD 5S 6S 7S 8S 9S",
    "2C 6C 7C 8C 10S JS QS KS AS 4H 5H 6H 7H",
    "9C 10C JC QC KC AC 8H 9H 10H JH QH KH AH",
)


def test_holder_of_two_of_clubs_leads_it() -> None:
    h = playing(Rules(), masks(*MIXED))
    assert h.turn == h.first_leader == 2
    assert legal(h, 2) == "2C"
    assert illegal(h, 2, "6C") == "you must lead 2♣"
    assert illegal(h, 0, "3C") == "not your turn"
    play(h, "2C")
    assert h.turn == 3


def test_follow_suit() -> None:
    h = playing(Rules(), masks(*MIXED))
    play(h, "2C 9C 3C")  # seat 2, 3, 0
    assert legal(h, 1) == "7D 8D 9D 10D JD QD KD AD 5S 6S 7S 8S 9S"  # void in clubs: anything
    play(h, "JD")
    assert h.tricks[0].winner == 3  # 9♣ took it: J♦ was off suit
    assert legal(h, 3) == "10C JC QC KC AC"  # hearts not broken, and 3 has clubs
    play(h, "10C")
    assert illegal(h, 0, "2D") == "you must follow ♣"
    assert legal(h, 0) == "4C 5C"
    play(h, "4C 7D 6C")
    assert h.tricks[1].winner == 3
    play(h, "AC 5C 8D")
    assert illegal(h, 2, "10S") == "you must follow ♣"


def test_off_suit_never_wins() -> None:
    h = playing(Rules(), masks(*MIXED))
    play(h, "2C AC 5C AD")
    assert h.tricks[0].winner == 3
    assert [str(c) for c in cards_of(h.taken[3])] == ["2♣", "5♣", "A♣", "A♦"]
    assert h.turn == 3


def test_no_points_on_the_first_trick() -> None:
    # Seat 1 is void in clubs and holds Q♠ and a heart besides plain cards.
    deal = masks(
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        "QS 2H 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD",
        "KD AD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS",
        "AS 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    )
    h = playing(Rules(), deal)
    play(h, "2C")
    assert illegal(h, 1, "QS") == "no points on the first trick"
    assert illegal(h, 1, "2H") == "no points on the first trick"
    assert "QS" not in legal(h, 1) and "2H" not in legal(h, 1)
    play(h, "2D 2S")
    # Seat 3 holds A♠ besides hearts, so it may not shed a heart either.
    assert legal(h, 3) == "AS"
    assert illegal(h, 3, "AH") == "no points on the first trick"
    play(h, "AS")
    # From the second trick on, a void seat may shed points.
    play(h, "3C")
    assert "QS" in legal(h, 1) and "2H" in legal(h, 1)
    play(h, "QS")


def test_first_trick_exception_when_holding_only_hearts_and_queen() -> None:
    deal = masks(
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
        "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
        "AH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS",
    )
    h = playing(Rules(), deal)
    play(h, "2C")
    assert legal(h, 1) == "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    play(h, "KH")
    assert h.hearts_broken


def test_jack_of_diamonds_may_be_played_on_the_first_trick() -> None:
    rules = Rules(jack_of_diamonds=True)
    h = playing(rules, masks(*SUITS))
    play(h, "2C JD")
    assert h.trick == cards("2C JD")


def test_hearts_may_not_be_led_until_broken() -> None:
    h = playing(Rules(), masks(*MIXED))
    play(h, "2C 9C 3C 5S")  # seat 3 wins with 9♣
    assert not h.hearts_broken
    assert illegal(h, 3, "8H") == "hearts are not broken"
    assert legal(h, 3) == "10C JC QC KC AC"
    play(h, "10C 4C 6S 6C")  # seat 3 wins; seat 1 sheds a spade
    play(h, "JC 5C 7S 7C")
    play(h, "QC 2D 8S 8C")  # seat 0 is out of clubs now
    play(h, "KC 3D 9S 10S")  # seat 2 out of clubs too
    play(h, "AC 2H")  # seat 0 sheds a heart: broken from the next trick on
    assert h.hearts_broken
    play(h, "7D JS")
    assert h.turn == 3
    play(h, "8H")  # now hearts may be led


def test_leading_hearts_when_holding_only_hearts() -> None:
    # Seat 0 takes the first trick and then holds nothing but hearts.
    deal = masks(
        "AC 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AH",
        "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
        "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
    )
    h = playing(Rules(), deal)
    play(h, "2C 2D 2S AC")
    assert h.turn == 0 and not h.hearts_broken
    assert legal(h, 0) == "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    play(h, "2H")


@pytest.mark.parametrize("option", [False, True])
def test_queen_breaks_hearts(option: bool) -> None:
    deal = masks(
        "2C 4C 6C 8C 10C QC 2H 3H 4H 5H 6H 7H 8H",
        "QS 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        "3C 5C 7C 9C JC KC AD 2S 3S 4S 5S 6S 7S",
        "AC 8S 9S 10S JS KS AS 9H 10H JH QH KH AH",
    )
    h = playing(Rules(queen_breaks_hearts=option), deal)
    play(h, "2C 2D 3C AC")
    play(h, "AS 4C QS 2S")  # seat 1 must follow spades with Q♠; no heart has been played
    assert h.turn == 3 and h.queen_played and not h.hearts_broken
    assert h.hearts_open is option
    if option:
        assert legal(h, 3) == "8S 9S 10S JS KS 9H 10H JH QH KH AH"
        play(h, "AH")
    else:
        assert legal(h, 3) == "8S 9S 10S JS KS"
        assert illegal(h, 3, "AH") == "hearts are not broken"


@pytest.mark.parametrize("players", [3, 5, 6])
def test_without_two_of_clubs_the_dealers_left_leads(players: int) -> None:
    rules = Rules(players=players, passing=False)
    for number in range(1, players + 1):
        h = playing(rules, fill(rules, {}), number)
        dealer = (number - 1) % players
        assert h.dealer == dealer
        assert h.turn == h.first_leader == (dealer + 1) % players


def test_first_lead_without_two_of_clubs_is_free_but_pointless() -> None:
    rules = Rules(players=3, passing=False)
    # Hand 1: dealer 0, seat 1 leads. Seat 1 holds clubs, Q♠ and hearts.
    hands = fill(rules, {1: "3C 4C QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 5C"})
    h = playing(rules, hands, 1)
    assert h.turn == 1
    assert legal(h, 1) == "3C 4C 5C"
    assert illegal(h, 1, "QS") == "no points on the first trick"
    assert illegal(h, 1, "2H") == "no points on the first trick"
    play(h, "4C")


def test_first_lead_with_only_points_must_be_the_queen_unless_only_hearts() -> None:
    rules = Rules(players=6, passing=False)
    h = playing(rules, fill(rules, {1: "QS 2H 3H 4H 5H 6H 7H 8H"}), 1)
    assert h.turn == 1
    assert legal(h, 1) == "QS"
    assert illegal(h, 1, "2H") == "hearts are not broken"
    h = playing(rules, fill(rules, {1: "2H 3H 4H 5H 6H 7H 8H 9H"}), 1)
    assert legal(h, 1) == "2H 3H 4H 5H 6H 7H 8H 9H"
    play(h, "9H")
    assert h.hearts_broken


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_seat_gets_its_share(players: int) -> None:
    rules = Rules(players=players, passing=False)
    h = playing(rules, fill(rules, {}), 1)
    assert all(m.bit_count() == rules.cards_each for m in h.hands)
    tricks = 0
    while h.phase is HandPhase.PLAYING:
        assert h.turn is not None
        h.apply_play(h.turn, cards_of(h.legal_play_mask(h.turn))[0])
        tricks += 1
    assert len(h.tricks) == rules.cards_each
    assert all(len(t.cards) == players for t in h.tricks)


def test_messages_name_the_rule() -> None:
    deal = masks(
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC 2D",
        "AC 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
        "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    )
    h = playing(Rules(), deal)
    assert illegal(h, 0, "3C") == "you must lead 2♣"
    assert illegal(h, 1, "AC") == "not your turn"
    play(h, "2C AC")
    assert illegal(h, 2, "QS") == "no points on the first trick"
    play(h, "2S 2H")  # seat 3 holds only hearts: the first-trick exception
    assert h.turn == 1
    play(h, "3D 3S 3H")
    assert illegal(h, 0, "3C") == "you must follow ♦"
    play(h, "2D")
    assert h.turn == 1
    assert h.tricks[1].winner == 1
    assert illegal(h, 1, "AS") == "you do not hold A♠"
