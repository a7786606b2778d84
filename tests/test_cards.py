"""Cards: ids, notations, masks, and refusing anything that is not a card."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts_p2p.cards import (
    CARDS,
    CLUB_2,
    DECK_MASK,
    HEARTS_MASK,
    JACK_DIAMONDS,
    QUEEN_SPADES,
    SUIT_MASKS,
    Card,
    CardParseError,
    Suit,
    cards_of,
    format_cards,
    mask_of,
    parse_cards,
)


@pytest.mark.parametrize("text", ["QS", "qs", "Q♠", "q♠", "Qs", " QS ", "Q ♠", "Q♤"], ids=repr)
def test_queen_of_spades_in_every_notation(text: str) -> None:
    assert Card.parse(text) == QUEEN_SPADES == Card(36)


@pytest.mark.parametrize("text", ["10H", "TH", "10♥", "th", "t♡", "10h"], ids=repr)
def test_ten_of_hearts_in_every_notation(text: str) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit) == (8, Suit.HEARTS)
    assert str(card) == "10♥"
    assert card.ascii == "10H"


def test_named_cards() -> None:
    assert str(CLUB_2) == "2♣"
    assert str(JACK_DIAMONDS) == "J♦"
    assert str(QUEEN_SPADES) == "Q♠"


def test_repr_pastes_back() -> None:
    for card in CARDS:
        assert eval(repr(card), {"Card": Card}) == card
        assert Card.parse(str(card)) == card
        assert Card.parse(card.ascii) == card


def test_order_is_suit_then_rank() -> None:
    assert sorted(parse_cards("2H AC 2C KS 10D")) == parse_cards("2C AC 10D KS 2H")
    assert [c.suit for c in CARDS[::13]] == [Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES, Suit.HEARTS]
    assert [c.rank_name for c in CARDS[:13]] == [*"23456789", "10", "J", "Q", "K", "A"]


def test_suits() -> None:
    assert Suit.parse("♥") is Suit.HEARTS
    assert Suit.parse("d") is Suit.DIAMONDS
    assert [s.symbol for s in Suit] == ["♣", "♦", "♠", "♥"]
    assert [s.is_red for s in Suit] == [False, True, False, True]
    assert Card.of(10, Suit.SPADES) == QUEEN_SPADES


def test_masks() -> None:
    assert mask_of([]) == 0
    assert cards_of(DECK_MASK) == list(CARDS)
    assert cards_of(HEARTS_MASK) == [c for c in CARDS if c.suit is Suit.HEARTS]
    assert sum(SUIT_MASKS) == DECK_MASK
    assert QUEEN_SPADES.bit == 1 << 36


def test_parse_and_format_lists() -> None:
    cards = parse_cards("qs 10h, A♣  2d")
    assert format_cards(cards) == "Q♠ 10♥ A♣ 2♦"
    assert format_cards(cards, ascii=True) == "QS 10H AC 2D"
    assert parse_cards("") == []


@given(st.sets(st.integers(0, 51)))
@settings(max_examples=50, derandomize=True)
def test_mask_round_trip(ids: set[int]) -> None:
    assert cards_of(mask_of(ids)) == sorted(ids)
    assert parse_cards(format_cards(sorted(ids))) == sorted(ids)


BAD_TEXT = ["QX", "", "   ", "11H", "1H", "0S", "QSS", "Q", "S", "10", "Q♠♠", "XS", "🂡"]


@pytest.mark.parametrize("text", BAD_TEXT, ids=repr)
def test_parse_refuses_garbage(text: str) -> None:
    with pytest.raises(CardParseError, match="is not a card"):
        Card.parse(text)


def test_parse_message_quotes_the_input() -> None:
    with pytest.raises(CardParseError, match=r"^'QX' is not a card$"):
        Card.parse("QX")


@pytest.mark.parametrize("value", [None, 52, -1, True, 4.0, b"QS", ["QS"]], ids=repr)
def test_parse_refuses_non_strings(value: object) -> None:
    with pytest.raises(CardParseError):
        Card.parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [52, -1, True, False, None, "QS", 4.0], ids=repr)
def test_card_id_refuses_non_ids(value: object) -> None:
    with pytest.raises(CardParseError):
        Card(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, "", "X", "♥♥", 3, True], ids=repr)
def test_suit_parse_refuses_garbage(value: object) -> None:
    with pytest.raises(CardParseError):
        Suit.parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rank", "suit"), [(13, Suit.CLUBS), (-1, Suit.DIAMONDS), (0, 4), (0, -1), (True, 0), ("Q", 2)]
)
def test_card_of_refuses_out_of_range(rank: object, suit: object) -> None:
    # Card.of(13, CLUBS) used to be 2♦ and Card.of(-1, DIAMONDS) A♣.
    with pytest.raises(CardParseError):
        Card.of(rank, suit)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, 3, "QS KS", b"QS"], ids=repr)
def test_parse_cards_refuses_non_strings(value: object) -> None:
    if isinstance(value, str):
        assert parse_cards(value) == parse_cards("QS KS")
        return
    with pytest.raises(CardParseError):
        parse_cards(value)  # type: ignore[arg-type]


def test_parse_cards_names_the_bad_token() -> None:
    with pytest.raises(CardParseError, match="'QX' is not a card"):
        parse_cards("QS QX")


@pytest.mark.parametrize("mask", [-1, DECK_MASK + 1, None, "1"], ids=repr)
def test_cards_of_refuses_bad_masks(mask: object) -> None:
    with pytest.raises(CardParseError):
        cards_of(mask)  # type: ignore[arg-type]


@pytest.mark.parametrize("cards", [[52], [-1], [True], ["QS"], [None]], ids=repr)
def test_mask_of_and_format_refuse_bad_ids(cards: list[object]) -> None:
    with pytest.raises(CardParseError):
        mask_of(cards)  # type: ignore[arg-type]
    with pytest.raises(CardParseError):
        format_cards(cards)  # type: ignore[arg-type]
