"""Bad input to every public entry point: always a ValueError subclass with a clear message."""

from __future__ import annotations

import random
from typing import Any

import pytest

from hearts_p2p.cards import CardParseError, mask_of
from hearts_p2p.engine import (
    ChooseMoon,
    DealError,
    Game,
    HandState,
    IllegalActionError,
    PassCards,
    PlayCard,
    SeatView,
    deal_hands,
    penalty_points,
    score_hand,
)
from hearts_p2p.rules import Moon, Rules, RulesError

from .engine_helpers import SUITS, card, cards, fill, masks

BAD_SEATS: list[Any] = [-1, 4, 99, "0", None, True, 1.0]


def passing_game() -> Game:
    game = Game(Rules())
    game.start_hand(masks(*SUITS))
    return game


def playing_game() -> Game:
    game = Game(Rules(passing=False))
    game.start_hand(masks(*SUITS))
    return game


@pytest.mark.parametrize("seat", BAD_SEATS, ids=repr)
def test_apply_refuses_seats_that_do_not_exist(seat: Any) -> None:
    with pytest.raises(IllegalActionError, match="there is no seat"):
        playing_game().apply(seat, PlayCard(card("2C")))
    with pytest.raises(IllegalActionError, match="there is no seat"):
        passing_game().apply(seat, PassCards(tuple(cards("2C 3C 4C"))))


@pytest.mark.parametrize("seat", BAD_SEATS, ids=repr)
def test_queries_refuse_seats_that_do_not_exist(seat: Any) -> None:
    game = playing_game()
    with pytest.raises(IllegalActionError, match="there is no seat"):
        game.legal_actions(seat)
    with pytest.raises(IllegalActionError, match="there is no seat"):
        SeatView.of(game, seat)
    with pytest.raises(IllegalActionError, match="there is no seat"):
        SeatView.of(Game(Rules()), seat)


def test_out_of_turn_and_wrong_phase() -> None:
    game = playing_game()
    with pytest.raises(IllegalActionError, match=r"^not your turn$"):
        game.apply(1, PlayCard(card("2D")))
    with pytest.raises(IllegalActionError, match="no passing now"):
        game.apply(0, PassCards(tuple(cards("2C 3C 4C"))))
    with pytest.raises(IllegalActionError, match="no moon"):
        game.apply(0, ChooseMoon(True))
    with pytest.raises(IllegalActionError, match="no cards are played while passing"):
        passing_game().apply(0, PlayCard(card("2C")))


def test_card_not_held() -> None:
    game = playing_game()
    with pytest.raises(IllegalActionError, match=r"^you do not hold 2♦$"):
        game.apply(0, PlayCard(card("2D")))
    game.apply(0, PlayCard(card("2C")))
    with pytest.raises(IllegalActionError, match=r"^you do not hold 3♣$"):
        game.apply(1, PlayCard(card("3C")))


@pytest.mark.parametrize("text", ["2C 3C", "2C 3C 4C 5C", "", "2C"])
def test_passing_the_wrong_number_of_cards(text: str) -> None:
    with pytest.raises(IllegalActionError, match="pass exactly 3 cards"):
        passing_game().apply(0, PassCards(tuple(cards(text))))


def test_passing_the_same_card_twice() -> None:
    with pytest.raises(IllegalActionError, match="pass exactly 3 cards"):
        passing_game().apply(0, PassCards(tuple(cards("2C 2C 3C"))))


def test_passing_cards_not_held() -> None:
    with pytest.raises(IllegalActionError, match="you do not hold 2♦"):
        passing_game().apply(0, PassCards(tuple(cards("2C 3C 2D"))))


@pytest.mark.parametrize("value", [52, -1, "QS", None, True, 2.0], ids=repr)
def test_play_card_refuses_non_cards(value: Any) -> None:
    with pytest.raises(CardParseError):
        PlayCard(value)
    game = playing_game()
    with pytest.raises(CardParseError):
        assert game.hand is not None
        game.hand.apply_play(0, value)


@pytest.mark.parametrize(
    "value", [(52, 1, 2), (-1, 1, 2), ("QS", "KS", "AS"), "QS", 3, (None,)], ids=repr
)
def test_pass_cards_refuses_non_cards(value: Any) -> None:
    with pytest.raises(CardParseError):
        PassCards(value)


@pytest.mark.parametrize("mask", [-7, 1 << 52 | 3, "7", 7.0, True], ids=repr)
def test_apply_pass_refuses_bad_masks(mask: Any) -> None:
    game = passing_game()
    assert game.hand is not None
    with pytest.raises(CardParseError):
        game.hand.apply_pass(0, mask)


@pytest.mark.parametrize("value", ["yes", None, 1, 0])
def test_choose_moon_wants_a_bool(value: Any) -> None:
    with pytest.raises(IllegalActionError, match="true or false"):
        ChooseMoon(value)


def test_unknown_actions() -> None:
    with pytest.raises(IllegalActionError, match="unknown action"):
        playing_game().apply(0, "play 2C")  # type: ignore[arg-type]


def bad_deals() -> list[tuple[int, Any]]:
    four = masks(*SUITS)
    three = Rules(players=3)
    return [
        (4, four[:3]),
        (4, [*four, 0]),
        (4, [four[0], four[0], four[2], four[3]]),  # the same cards twice
        (4, [four[0] | 1 << 13, four[1], four[2], four[3]]),  # 14 cards
        (4, [four[0] >> 1, four[1], four[2], four[3]]),  # 12 cards
        (4, ["2C", four[1], four[2], four[3]]),
        (4, [-1, four[1], four[2], four[3]]),
        (4, [True, four[1], four[2], four[3]]),
        (4, None),
        (4, "hands"),
        (3, [mask_of(cards("2C")) | fill(three, {})[0] & ~mask_of(cards("3C")), None, None]),
    ]


@pytest.mark.parametrize(("players", "hands"), bad_deals())
def test_bad_deals(players: int, hands: Any) -> None:
    with pytest.raises(DealError):
        Game(Rules(players=players)).start_hand(hands)
    with pytest.raises(DealError):
        HandState.deal(Rules(players=players), 1, hands)


@pytest.mark.parametrize("number", [0, -1, "1", None])
def test_bad_hand_numbers(number: Any) -> None:
    with pytest.raises(RulesError, match="hand number"):
        HandState.deal(Rules(), number, masks(*SUITS))
    with pytest.raises(RulesError, match="hand number"):
        deal_hands(Rules(), number, random.Random(1))


def test_scoring_refuses_bad_taken_cards() -> None:
    with pytest.raises(ValueError, match="4 seats"):
        score_hand(Rules(), [0, 0, 0])
    with pytest.raises(CardParseError):
        score_hand(Rules(), [0, 0, 0, -1])
    with pytest.raises(CardParseError):
        penalty_points(Rules(), 1 << 60)


def test_an_illegal_action_changes_nothing() -> None:
    game = playing_game()
    assert game.hand is not None
    before = (game.hand.hands[:], game.hand.trick[:], game.hand.turn, game.hand.played)
    for seat, action in [
        (0, PlayCard(card("3C"))),
        (1, PlayCard(card("2D"))),
        (0, ChooseMoon(True)),
    ]:
        with pytest.raises(IllegalActionError):
            game.apply(seat, action)
    assert (game.hand.hands, game.hand.trick, game.hand.turn, game.hand.played) == before


@pytest.mark.parametrize("rules", [None, {}, "standard", Rules().to_dict()], ids=repr)
def test_entry_points_want_a_rules_value(rules: Any) -> None:
    with pytest.raises(RulesError, match="expected a Rules value"):
        Game(rules)
    with pytest.raises(RulesError, match="expected a Rules value"):
        HandState.deal(rules, 1, masks(*SUITS))
    with pytest.raises(RulesError, match="expected a Rules value"):
        deal_hands(rules, 1, random.Random(1))
    with pytest.raises(RulesError, match="expected a Rules value"):
        score_hand(rules, [0, 0, 0, 0])
    with pytest.raises(RulesError, match="expected a Rules value"):
        penalty_points(rules, 0)


@pytest.mark.parametrize("rng", [None, 1, "seed"], ids=repr)
def test_deal_hands_wants_a_random_generator(rng: Any) -> None:
    with pytest.raises(DealError, match=r"random\.Random"):
        deal_hands(Rules(), 1, rng)


def test_score_hand_wants_a_real_moon_choice() -> None:
    with pytest.raises(ValueError, match="add_to_others"):
        score_hand(Rules(moon=Moon.CHOICE), [0, 0, 0, 0], add_to_others="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="4 seats"):
        score_hand(Rules(), None)  # type: ignore[arg-type]
