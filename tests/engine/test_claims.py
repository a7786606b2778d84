"""Claims (摊牌): the seat on lead takes the rest when its cards must win every trick, or when no
scoring card is left; a claim that does not hold is refused with the card that could lose."""

from __future__ import annotations

import random

import pytest

from hearts_p2p.cards import cards_of, mask_of
from hearts_p2p.engine import (
    GONGZHU_SCORING_MASK,
    Claim,
    Expose,
    Game,
    HandPhase,
    HandState,
    IllegalActionError,
    deal_hands,
)
from hearts_p2p.rules import GameKind, Rules, RulesError

from .engine_helpers import SUITS, cards, fill, masks, play, playing

GZ = Rules(game=GameKind.GONGZHU)


def exposed(rules: Rules, hands: list[int]) -> HandState:
    """A Gong Zhu hand past its exposure, nothing exposed."""
    h = HandState.deal(rules, 1, hands)
    for seat in range(rules.players):
        h.apply_expose(seat, 0)
    assert h.phase is HandPhase.PLAYING
    return h


def test_a_hand_of_winners_takes_the_rest_at_once() -> None:
    """Seat 0 holds every club and wins every trick: after the first, it claims the rest."""
    h = exposed(GZ, masks(*SUITS))
    play(h, "2C 2D 2S 2H")
    assert h.turn == 0 and h.claim_refusal(0, h.hands[0]) is None
    h.apply_claim(0, h.hands[0])
    assert h.phase is HandPhase.SCORED and h.claimed == 0
    assert h.taken[0] == GZ.deck_mask and len(h.tricks) == 1
    assert h.result is not None and h.result.points[0] == 800  # 大满贯: every scoring card


def claim_deal(rules: Rules = GZ) -> HandState:
    """Seat 1 takes trick 1 with 3♣ and leads with A♥ 2♥ and low diamonds: a claim that fails."""
    hands = fill(rules, {0: "2C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2D", 1: "3C AH 2H"})
    h = exposed(rules, hands) if rules.is_gongzhu else playing(rules, hands)
    h.apply_play(0, cards("2C")[0])
    h.apply_play(1, cards("3C")[0])
    for seat in (2, 3):
        h.apply_play(seat, cards_of(h.legal_play_mask(seat))[0])
    assert h.turn == 1
    return h


def test_a_claim_with_a_card_that_can_lose_is_refused_and_changes_nothing() -> None:
    h = claim_deal()
    why = h.claim_refusal(1, h.hands[1])
    assert why == "3♦ does not win every trick: A♦ is still out"
    with pytest.raises(IllegalActionError, match="3♦ does not win every trick"):
        h.apply_claim(1, h.hands[1])
    assert h.phase is HandPhase.PLAYING and h.claimed is None and h.turn == 1


def test_only_the_seat_on_lead_claims_and_with_its_whole_hand() -> None:
    h = claim_deal()
    with pytest.raises(IllegalActionError, match="only the seat on lead may claim"):
        h.claim_refusal(2, h.hands[2])
    with pytest.raises(IllegalActionError, match="a claim shows the whole hand"):
        h.claim_refusal(1, h.hands[1] & ~mask_of(cards("AH")))
    first = exposed(GZ, masks(*SUITS))
    with pytest.raises(IllegalActionError, match="no claim before the first trick"):
        first.claim_refusal(0, first.hands[0])


def test_an_unseen_claimer_is_checked_against_what_is_public() -> None:
    full = claim_deal()
    h = full.clone()
    h.known = 1 << 0  # seat 0's view: it sees only its own cards
    with pytest.raises(IllegalActionError, match="a claim shows the whole hand"):
        h.claim_refusal(1, full.hands[1] & ~mask_of(cards("AH")))
    with pytest.raises(IllegalActionError, match="is in another seat's hand"):
        h.claim_refusal(1, (full.hands[1] & ~mask_of(cards("2H"))) | mask_of(cards("KC")))
    assert h.claim_refusal(1, full.hands[1]) == full.claim_refusal(1, full.hands[1])


def test_with_no_scoring_card_left_any_claim_holds() -> None:
    """Once every scoring card is out who takes the rest changes nothing: the seat on lead may
    claim it whatever it holds. Seats throw scoring cards first, so some deal gets there."""
    for seed in range(50):
        h = exposed(GZ, deal_hands(GZ, 1, random.Random(seed)))
        while h.phase is HandPhase.PLAYING:
            seat = h.turn
            assert seat is not None
            rest = GZ.deck_mask & ~h.played
            if not h.trick and h.tricks and not rest & GONGZHU_SCORING_MASK:
                assert h.claim_refusal(seat, h.hands[seat]) is None
                h.apply_claim(seat, h.hands[seat])
                assert h.result is not None and sum(h.taken) == GZ.deck_mask
                return
            legal = h.legal_play_mask(seat)
            h.apply_play(seat, cards_of(legal & GONGZHU_SCORING_MASK or legal)[-1])
    pytest.fail("no deal ran out of scoring cards before its last trick")


def test_same_colour_discards_allow_only_the_claim_with_nothing_left_to_score() -> None:
    rules = Rules(game=GameKind.GONGZHU, same_colour_discard=True)
    h = exposed(rules, masks(*SUITS))
    play(h, "2C 2D 2S 2H")  # 2♦ is the first discard off the led colour: it takes the trick
    assert h.turn == 1  # seat 1 holds every diamond: each one wins but for a discard
    assert h.claim_refusal(1, h.hands[1]) == (
        "with same-colour discards no claim holds while a scoring card is out"
    )


def test_the_game_offers_a_claim_only_when_it_holds() -> None:
    game = Game(GZ)
    game.start_hand(masks(*SUITS))
    for seat in range(4):
        game.apply(seat, Expose(()))
    assert not any(isinstance(a, Claim) for a in game.legal_actions(0))  # 2♣ first
    h = game.hand
    assert h is not None
    play(h, "2C 2D 2S 2H")
    assert game.legal_actions(0)[-1] == Claim(tuple(cards_of(h.hands[0])))
    game.apply(0, Claim(tuple(cards_of(h.hands[0]))))
    assert game.results[-1].points[0] == 800


def test_hearts_claims_are_a_table_option_left_out_when_off() -> None:
    h = playing(Rules(), masks(*SUITS))
    play(h, "2C 2D 2S 2H")
    with pytest.raises(IllegalActionError, match="these rules have no claims"):
        h.claim_refusal(0, h.hands[0])
    rules = Rules(claims=True)
    h = playing(rules, masks(*SUITS))
    play(h, "2C 2D 2S 2H")
    h.apply_claim(0, h.hands[0])
    assert h.result is not None and h.result.moon == 0
    assert "claims" not in Rules().to_dict()
    assert rules.to_dict()["claims"] is True and Rules.from_dict(rules.to_dict()) == rules
    with pytest.raises(RulesError, match="claims is left out of the rules when off"):
        Rules.from_dict({**Rules().to_dict(), "claims": False})
    with pytest.raises(RulesError, match="claims is a Hearts option"):
        Rules(game=GameKind.GONGZHU, claims=True)
    assert "claims" in rules.summary()
