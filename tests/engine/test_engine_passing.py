"""The pass: direction by hand number and player count, and every pass given before any is taken."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import cards_of, mask_of
from hearts_p2p.engine import Game, HandPhase, HandState, IllegalActionError, PassCards, PlayCard
from hearts_p2p.rules import Rules

from .engine_helpers import fill

CYCLES = {
    3: [1, -1, 0],
    4: [1, -1, 2, 0],
    5: [1, -1, 0],
    6: [1, -1, 3, 0],
}


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_pass_directions(players: int) -> None:
    rules = Rules(players=players)
    cycle = CYCLES[players]
    for number in range(1, 2 * len(cycle) + 1):
        shift = cycle[(number - 1) % len(cycle)]
        deal = fill(rules, {})
        h = HandState.deal(rules, number, list(deal))
        if shift == 0:
            assert h.phase is HandPhase.PLAYING
            assert h.hands == deal
            continue
        assert h.phase is HandPhase.PASSING
        gives = [mask_of(cards_of(m)[:3]) for m in deal]
        for s in range(players):
            h.apply_pass(s, gives[s])
        for s in range(players):
            giver = (s - shift) % players
            assert h.received[s] == gives[giver], (number, s)
            assert h.hands[s] == deal[s] & ~gives[s] | gives[giver]


def test_all_give_before_any_receives() -> None:
    rules = Rules()
    deal = fill(rules, {})
    h = HandState.deal(rules, 1, list(deal))
    gives = [mask_of(cards_of(m)[-3:]) for m in deal]
    for s in (2, 0, 3):
        h.apply_pass(s, gives[s])
        assert h.phase is HandPhase.PASSING
        assert h.hands == deal  # nothing has moved yet
        assert h.received == [0, 0, 0, 0]
    assert h.to_pass() == [1]
    h.apply_pass(1, gives[1])
    assert h.phase is HandPhase.PLAYING
    assert h.to_pass() == []


def test_cards_received_may_be_passed_on_only_next_hand() -> None:
    # Seat 3 cannot pass on a card seat 2 is passing to it: it does not hold it yet.
    rules = Rules()
    deal = fill(rules, {})
    h = HandState.deal(rules, 1, list(deal))
    give2 = mask_of(cards_of(deal[2])[:3])
    h.apply_pass(2, give2)
    with pytest.raises(IllegalActionError, match="you do not hold"):
        h.apply_pass(3, give2)


def test_passing_off_starts_every_hand_in_play() -> None:
    rules = Rules(passing=False)
    for number in range(1, 9):
        assert HandState.deal(rules, number, fill(rules, {})).phase is HandPhase.PLAYING


def test_game_waits_for_every_pass_and_offers_three_card_choices() -> None:
    game = Game(Rules())
    deal = fill(Rules(), {})
    game.start_hand(list(deal))
    assert game.to_act() == [0, 1, 2, 3]
    choices = game.legal_actions(0)
    assert len(choices) == 286  # 13 choose 3
    assert all(isinstance(a, PassCards) and len(a.cards or ()) == 3 for a in choices)
    game.apply(0, choices[0])
    assert game.to_act() == [1, 2, 3]
    assert game.legal_actions(0) == []
    with pytest.raises(IllegalActionError, match="you have passed already"):
        game.apply(0, choices[1])
    with pytest.raises(IllegalActionError, match="no cards are played while passing"):
        game.apply(1, PlayCard(cards_of(deal[1])[0]))


def test_passed_cards_are_sorted() -> None:
    a = PassCards(tuple(cards_of(0b111 << 40))[::-1])
    assert a.cards == tuple(sorted(a.cards or ()))
