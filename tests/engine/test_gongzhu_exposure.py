"""Gong Zhu's exposure phase (亮牌): who may expose what, the forced options, and the
exposed-card rule on the first trick of its suit."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import mask_of
from hearts_p2p.engine import (
    Expose,
    Game,
    HandPhase,
    HandState,
    IllegalActionError,
    PlayCard,
    SeatView,
)
from hearts_p2p.rules import Rules

from .engine_helpers import SUITS, card, cards, fill, masks, play

GZ = Rules(game="gongzhu")  # type: ignore[arg-type]


def gz(**options: object) -> Rules:
    return Rules(game="gongzhu", **options)  # type: ignore[arg-type]


def expose(h: HandState, seat: int, text: str = "") -> None:
    h.apply_expose(seat, mask_of(cards(text)))


def refusal(h: HandState, seat: int, text: str) -> str:
    with pytest.raises(IllegalActionError) as info:
        expose(h, seat, text)
    return info.value.rule


def play_refusal(h: HandState, seat: int, text: str) -> str:
    with pytest.raises(IllegalActionError) as info:
        h.apply_play(seat, card(text))
    return info.value.rule


def exposed_to_play(rules: Rules, deal: list[int], exposures: dict[int, str]) -> HandState:
    h = HandState.deal(rules, 1, list(deal))
    for s in range(rules.players):
        expose(h, s, exposures.get(s, ""))
    assert h.phase is HandPhase.PLAYING
    return h


def test_a_gong_zhu_hand_opens_with_the_exposure_phase_and_no_pass() -> None:
    h = HandState.deal(GZ, 1, masks(*SUITS))
    assert h.phase is HandPhase.EXPOSE and h.pass_targets is None
    assert h.to_expose() == [0, 1, 2, 3]
    assert play_refusal(h, 0, "2C") == "no cards are played while exposing"
    expose(h, 2, "QS")
    assert h.to_expose() == [0, 1, 3]
    expose(h, 0)
    expose(h, 3, "AH")
    expose(h, 1, "JD")
    assert h.phase is HandPhase.PLAYING and h.turn == 0  # the holder of 2♣ leads it
    assert h.exposures == [0, mask_of(cards("JD")), mask_of(cards("QS")), mask_of(cards("AH"))]
    assert h.exposed == mask_of(cards("QS JD AH"))


def test_each_seat_may_expose_any_of_its_exposable_cards() -> None:
    deal = fill(GZ, {0: "QS JD 10C AH 2C"})
    h = HandState.deal(GZ, 1, deal)
    assert len(h.legal_exposures(0)) == 16  # every subset of the four, none included
    assert h.legal_exposures(1) == [0]  # nothing to expose: only "nothing"
    expose(h, 0, "QS 10C")
    assert h.legal_exposures(0) == []


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("2C", "2♣ cannot be exposed, only Q♠ J♦ 10♣ A♥"),
        ("QS KS", "K♠ cannot be exposed, only Q♠ J♦ 10♣ A♥"),
        ("JD", "you do not hold J♦"),
    ],
)
def test_exposures_that_are_refused(text: str, rule: str) -> None:
    h = HandState.deal(GZ, 1, masks(*SUITS[2:], *SUITS[:2]))  # seat 0 spades, seat 3 diamonds
    assert refusal(h, 0, text) == rule
    assert h.exposures == [None] * 4


def test_a_seat_exposes_once_and_only_in_the_exposure_phase() -> None:
    h = HandState.deal(GZ, 1, masks(*SUITS))
    expose(h, 0, "10C")
    assert refusal(h, 0, "") == "you have exposed already"
    for s in (1, 2, 3):
        expose(h, s)
    assert refusal(h, 1, "") == "no exposing now"


def test_the_expose_action_through_the_game() -> None:
    game = Game(GZ)
    game.start_hand(masks(*SUITS))
    assert game.to_act() == [0, 1, 2, 3]
    assert game.legal_actions(2) == [Expose(()), Expose((card("QS"),))]
    game.apply(2, Expose((card("QS"),)))
    with pytest.raises(IllegalActionError, match="expose each card once"):
        Expose((card("QS"), card("QS")))
    assert str(Expose(())) == "expose nothing" and str(Expose(cards("QS AH"))) == "expose Q♠ A♥"
    for s in (0, 1, 3):
        game.apply(s, Expose(()))
    view = SeatView.of(game, 0)
    assert view.exposed == ((), (), (card("QS"),), ())
    assert game.to_act() == [0] and view.legal == (PlayCard(card("2C")),)


def test_expose_all_forces_every_exposable_card() -> None:
    rules = gz(expose_all=True)
    deal = fill(rules, {0: "QS JD 2C 3C 4C 5C 6C 7C 8C 9C JC QC KC", 1: "AH"})
    h = HandState.deal(rules, 1, deal)
    assert h.legal_exposures(0) == [mask_of(cards("QS JD"))]
    assert refusal(h, 0, "QS") == "you must expose J♦"
    assert h.legal_exposures(1) == [mask_of(cards("10C AH"))]
    assert h.legal_exposures(2) == [0]
    expose(h, 0, "QS JD")


def test_expose_all_but_sheep_forces_three_and_bars_the_sheep() -> None:
    rules = gz(expose_all_but_sheep=True)
    deal = fill(rules, {0: "QS JD 10C AH"})
    h = HandState.deal(rules, 1, deal)
    assert h.legal_exposures(0) == [mask_of(cards("QS 10C AH"))]
    assert refusal(h, 0, "QS 10C AH JD") == "J♦ may not be exposed"
    assert refusal(h, 0, "QS AH") == "you must expose 10♣"
    expose(h, 0, "QS 10C AH")


def test_force_fourth_makes_the_fourth_cards_holder_expose_it() -> None:
    rules = gz(force_fourth=True)
    h = HandState.deal(rules, 1, masks(*SUITS))
    expose(h, 1)  # J♦'s holder declines first
    expose(h, 0, "10C")
    expose(h, 2, "QS")
    expose(h, 3, "AH")
    assert h.phase is HandPhase.EXPOSE and h.to_expose() == [1]
    assert h.legal_exposures(1) == [mask_of(cards("JD"))]
    assert refusal(h, 0, "JD") == "not your turn"
    assert refusal(h, 1, "") == "three cards are exposed: expose J♦"
    expose(h, 1, "JD")
    assert h.phase is HandPhase.PLAYING and h.exposures[1] == mask_of(cards("JD"))


def test_force_fourth_waits_for_nobody_under_three() -> None:
    rules = gz(force_fourth=True)
    h = HandState.deal(rules, 1, masks(*SUITS))
    expose(h, 0, "10C")
    expose(h, 1, "JD")
    for s in (2, 3):
        expose(h, s)
    assert h.phase is HandPhase.PLAYING


# Seat 1 holds the exposable 10♣ with other clubs; seat 2 holds Q♠ with other spades.
RESTRICTED = masks(
    "2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 7D 8D 9D",
    "10C 7C 2S 10D JD QD KD AD 2H 3H 4H 5H 6H",
    "QS 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS 8C",
    "9C JC QC KC AC 7H 8H 9H 10H JH QH KH AH",
)


def test_an_exposed_card_sits_out_the_first_trick_of_its_suit() -> None:
    h = exposed_to_play(GZ, RESTRICTED, {1: "10C", 2: "QS"})
    play(h, "2C")
    assert play_refusal(h, 1, "10C") == "exposed 10♣ may not be played to the first ♣ trick"
    play(h, "7C 8C 9C")  # seat 3 wins with 9♣
    assert h.turn == 3
    play(h, "JC 3C 10C")  # the second club trick: 10♣ may go now
    assert h.trick == [card("JC"), card("3C"), card("10C")]


def test_an_exposed_card_may_be_discarded_before_its_suit_is_led() -> None:
    h = exposed_to_play(GZ, RESTRICTED, {2: "QS"})
    play(h, "2C 7C 8C 9C")  # seat 3 takes the trick
    play(h, "JC 3C 10C AS")  # seat 2 shows out of clubs; seat 3 wins again
    play(h, "7H")  # a heart led on the third trick: there is no heart-lead rule
    play(h, "2D 2H")
    h.apply_play(2, card("QS"))  # a discard: the first spade trick is still to come
    assert h.tricks[-1].winner == 3 and h.taken[3] >> card("QS") & 1


def test_no_first_trick_points_rule_in_gong_zhu() -> None:
    h = exposed_to_play(GZ, masks(*SUITS), {})
    play(h, "2C 2D QS AH")  # Q♠ and A♥ on the first trick
    assert h.tricks[0].winner == 0


def test_an_exposed_card_leads_its_suit_when_it_is_the_only_one() -> None:
    deal = masks(
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC 2D",
        "AC QS 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        "2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS AD",
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    )
    h = exposed_to_play(GZ, deal, {1: "QS"})
    play(h, "2C AC 2S 2H")  # seat 1 takes the first trick with A♣
    assert h.turn == 1
    play(h, "QS")  # its only spade, so it may lead the first spade trick


def test_leading_an_exposed_card_with_others_of_its_suit_is_refused() -> None:
    deal = masks(
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC 2D",
        "AC QS 3S 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        "2S 4S 5S 6S 7S 8S 9S 10S JS KS AS AD 3D",
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    )
    h = exposed_to_play(GZ, deal, {1: "QS"})
    play(h, "2C AC 2S 2H")
    assert play_refusal(h, 1, "QS") == "exposed Q♠ may not be played to the first ♠ trick"
    play(h, "3S 4S 3H 3C")
    assert h.tricks[-1].winner == 2
