"""Gong Zhu with partial knowledge: exposures are public, so an unknown seat's exposed cards are
known to be its own; everything hand-dependent waits for the replay with every card revealed."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import mask_of
from hearts_p2p.engine import Expose, Game, HandPhase, HandState, IllegalActionError
from hearts_p2p.rules import Rules

from .engine_helpers import SUITS, card, cards, masks, play

GZ = Rules(game="gongzhu")  # type: ignore[arg-type]
DEAL = masks(*SUITS)  # seat 0 clubs, 1 diamonds, 2 spades, 3 hearts


def only(deal: list[int], seat: int) -> list[int | None]:
    return [m if s == seat else None for s, m in enumerate(deal)]


def refusal(action: object) -> str:
    assert callable(action)
    with pytest.raises(IllegalActionError) as info:
        action()
    return info.value.rule


def test_an_unknown_seats_exposure_is_checked_against_what_this_peer_holds() -> None:
    h = HandState.deal(GZ, 1, only(DEAL, 0))
    assert h.legal_exposures(1) == []  # this peer cannot choose for seat 1
    assert refusal(lambda: h.apply_expose(1, mask_of(cards("10C")))) == (
        "10♣ is in another seat's hand"
    )
    h.apply_expose(2, mask_of(cards("QS")))
    assert refusal(lambda: h.apply_expose(3, mask_of(cards("QS")))) == (
        "Q♠ is in another seat's hand"
    )
    assert refusal(lambda: h.apply_expose(3, mask_of(cards("KH")))) == (
        "K♥ cannot be exposed, only Q♠ J♦ 10♣ A♥"
    )


def test_an_unknown_seat_may_not_expose_the_sheep_under_expose_all_but_sheep() -> None:
    rules = Rules(game="gongzhu", expose_all_but_sheep=True)  # type: ignore[arg-type]
    h = HandState.deal(rules, 1, only(DEAL, 0))
    assert refusal(lambda: h.apply_expose(1, mask_of(cards("JD")))) == "J♦ may not be exposed"


def exposed(deal: list[int], seat: int, exposures: dict[int, str]) -> HandState:
    h = HandState.deal(GZ, 1, only(deal, seat))
    for s in range(4):
        h.apply_expose(s, mask_of(cards(exposures.get(s, ""))))
    return h


def test_an_exposed_card_stays_with_its_exposer() -> None:
    deal = masks(
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC 2D",
        "AC QS 3S 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        "2S 4S 5S 6S 7S 8S 9S 10S JS KS AS AD 3D",
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    )
    h = exposed(deal, 0, {1: "QS"})
    play(h, "2C AC 2S 2H")  # seat 1 takes the trick and leads
    play(h, "4D")
    # Seat 1 exposed Q♠: nobody else may play it.
    assert refusal(lambda: h.apply_play(2, card("QS"))) == "Q♠ is in another seat's hand"
    play(h, "AD 3H 2D")
    assert h.turn == 2
    play(h, "4S 4H 3C")  # a spade led; seats 3 and 0 show out
    # Seat 1 still holds its exposed Q♠ and so may not show out of spades.
    assert refusal(lambda: h.apply_play(1, card("5D"))) == "you must follow ♠"


def test_the_exposed_card_rule_waits_for_the_replay_when_the_rest_is_unknown() -> None:
    deal = masks(
        "2C 3C 4C 5C 6C 8C 9C JC QC KC AC 2D 3D",
        "10C 7C 2S 10D JD QD KD AD 2H 3H 4H 5H 6H",
        "QS 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS 4D",
        "5D 6D 7D 8D 9D 7H 8H 9H 10H JH QH KH AH",
    )
    mine = exposed(deal, 0, {1: "10C"})
    play(mine, "2C 10C")  # seat 0's peer cannot know seat 1 also holds 7♣, and accepts it
    full = HandState.deal(GZ, 1, list(deal))
    for s in range(4):
        full.apply_expose(s, mask_of(cards("10C")) if s == 1 else 0)
    play(full, "2C")
    assert refusal(lambda: full.apply_play(1, card("10C"))) == (
        "exposed 10♣ may not be played to the first ♣ trick"
    )


def test_force_fourth_with_an_unknown_holder() -> None:
    rules = Rules(game="gongzhu", force_fourth=True)  # type: ignore[arg-type]
    game = Game(rules)
    game.start_hand(only(DEAL, 0))
    game.apply(0, Expose((card("10C"),)))
    game.apply(2, Expose((card("QS"),)))
    game.apply(3, Expose((card("AH"),)))
    game.apply(1, Expose(()))
    h = game.hand
    assert h is not None and h.phase is HandPhase.EXPOSE
    assert game.to_act() == []  # this peer cannot tell who holds J♦
    assert refusal(lambda: game.apply(0, Expose((card("JD"),)))) == "you do not hold J♦"
    assert refusal(lambda: game.apply(3, Expose(()))) == "three cards are exposed: expose J♦"
    game.apply(1, Expose((card("JD"),)))
    assert h.phase is HandPhase.PLAYING and h.exposed == mask_of(cards("QS JD 10C AH"))
