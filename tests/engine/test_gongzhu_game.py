"""Gong Zhu hands played out and whole games: scores through play, 同色垫牌, five players,
partners, and the end at the limit."""

from __future__ import annotations

import random

import pytest

from hearts_p2p.cards import cards_of, mask_of
from hearts_p2p.engine import (
    Expose,
    Game,
    GameResult,
    HandPhase,
    HandState,
    PlayCard,
    SeatView,
    deal_hands,
    gongzhu_results,
    gongzhu_winners,
)
from hearts_p2p.rules import Rules

from .engine_helpers import SUITS, card, cards, masks, play


def gz(**options: object) -> Rules:
    return Rules(game="gongzhu", **options)  # type: ignore[arg-type]


def to_play(rules: Rules, deal: list[int], exposures: dict[int, str] | None = None) -> HandState:
    h = HandState.deal(rules, 1, list(deal))
    for s in range(rules.players):
        h.apply_expose(s, mask_of(cards((exposures or {}).get(s, ""))))
    return h


def finish(game: Game) -> None:
    """Expose nothing and play the lowest legal card until the hand is scored."""
    h = game.hand
    assert h is not None
    while h.phase is not HandPhase.SCORED:
        seat = game.to_act()[0]
        if h.phase is HandPhase.EXPOSE:
            game.apply(seat, Expose(()))
        else:
            game.apply(seat, PlayCard(cards_of(h.legal_play_mask(seat))[0]))


def test_a_grand_slam_played_out_with_every_card_exposed() -> None:
    game = Game(gz())
    game.start_hand(masks(*SUITS))
    for s, c in enumerate(("10C", "JD", "QS", "AH")):
        game.apply(s, Expose((card(c),)))
    view = SeatView.of(game, 3)
    assert view.exposed == ((card("10C"),), (card("JD"),), (card("QS"),), (card("AH"),))
    finish(game)  # seat 0 leads clubs and nobody else has one: it takes every trick
    result = game.results[0]
    assert result.points == (3200, 0, 0, 0)
    assert result.results == (9600, -3200, -3200, -3200)
    assert result.grand_slam == 0 and result.all_hearts == 0
    assert game.totals == [3200, 0, 0, 0] and not game.over


def test_points_taken_in_the_view_count_exposures() -> None:
    game = Game(gz())
    game.start_hand(masks(*SUITS))
    for s in range(4):
        game.apply(s, Expose((card("QS"),) if s == 2 else ()))
    for c in cards("2C 2D QS 2H"):
        assert game.hand is not None and game.hand.turn is not None
        game.apply(game.hand.turn, PlayCard(c))
    assert SeatView.of(game, 1).points_taken == (-200, 0, 0, 0)


# Seat 1 holds eleven clubs; seat 3 the last club and the hearts; seat 2 every spade.
COLOURS = masks(
    "2C 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
    "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AD 2H",
    "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
    "AC 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
)


def test_same_colour_discard_keeps_the_trick_with_its_winner() -> None:
    h = to_play(gz(same_colour_discard=True), COLOURS)
    play(h, "2C 3C 2S AC")  # a black discard on a club lead: A♣ wins as usual
    assert h.tricks[0].winner == 3


def test_an_off_colour_discard_takes_the_trick_and_the_lead() -> None:
    h = to_play(gz(same_colour_discard=True), COLOURS)
    play(h, "2C 3C 2S AC")
    play(h, "3H 2D 2H QS")  # seat 2 discards black on a heart lead
    assert h.tricks[1].winner == 2 and h.turn == 2
    assert h.taken[2] & mask_of(cards("3H 2H QS")) == mask_of(cards("3H 2H QS"))
    plain = to_play(gz(), COLOURS)
    play(plain, "2C 3C 2S AC 3H 2D 2H QS")
    assert plain.tricks[1].winner == 3


def test_the_first_off_colour_discard_takes_the_trick() -> None:
    h = to_play(gz(same_colour_discard=True), masks(*SUITS))
    play(h, "2C 2D 2S 2H")  # 2♦ is the first red card on a club lead; 2♥ is the second
    assert h.tricks[0].winner == 1
    play(h, "3D 3S 3H 3C")  # a diamond lead: 3♠ is the first black discard
    assert h.tricks[1].winner == 2


def test_five_players_lead_from_the_dealers_left_without_two_of_clubs() -> None:
    rules = gz(players=5)
    assert rules.cards_each == 10
    deal = deal_hands(rules, 1, random.Random(5))
    h = HandState.deal(rules, 1, deal)
    for s in range(5):
        h.apply_expose(s, 0)
    assert h.turn == 1  # hand 1's dealer is seat 0
    assert h.legal_play_mask(1) == deal[1]  # any card at all, nothing exposed


def test_the_game_ends_after_the_hand_that_reaches_the_limit() -> None:
    rules = gz(limit=300)
    game = Game(rules)
    rng = random.Random(16)
    while not game.over:
        assert game.number < 40
        game.start_hand(deal_hands(rules, game.number + 1, rng))
        finish(game)
        assert game.over == (min(game.totals) <= -300)
    assert game.result == GameResult(
        tuple(game.totals),
        gongzhu_winners(rules, gongzhu_results(rules, game.totals)),
        game.number,
        gongzhu_results(rules, game.totals),
    )
    assert game.result.results == tuple(sum(r.results[s] for r in game.results) for s in range(4))
    assert sum(game.result.results) == 0
    assert game.result.winners == tuple(s for s, r in enumerate(game.result.results) if r > 0)


def clubs_to(seat: int) -> list[int]:
    """SUITS with the clubs dealt to ``seat``: it leads 2♣ and takes every trick (+800)."""
    order = [SUITS[1], SUITS[2], SUITS[3]]
    order.insert(seat, SUITS[0])
    return masks(*order)


@pytest.mark.parametrize(("before", "over"), [(-999, False), (-1000, True)])
def test_the_default_limit_is_minus_1000(before: int, over: bool) -> None:
    rules = gz()
    assert rules.limit == 1000
    game = Game(rules)
    game.totals = [before, 0, 0, 0]  # as if earlier hands had been played
    game.start_hand(clubs_to(2))
    finish(game)
    assert game.totals == [before, 0, 800, 0]
    assert game.over is over


@pytest.mark.parametrize(("partners", "winners"), [(False, (1, 2, 3)), (True, (1, 3))])
def test_partners_win_or_lose_together(partners: bool, winners: tuple[int, ...]) -> None:
    rules = gz(partners=partners)
    game = Game(rules)
    game.totals = [-1000, 0, 0, 0]
    game.start_hand(clubs_to(2))
    finish(game)
    assert game.result == GameResult(
        (-1000, 0, 800, 0), winners, hands=1, results=(-3800, 200, 3400, 200)
    )


def test_all_hearts_played_out_with_the_transformer_and_the_sheep() -> None:
    deal = masks(
        "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2S",
        "2C QS 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD",
        "3S KD AD 5S 6S 7S 8S 9S 10S JS KS AS 2H",
        "4S 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    )
    h = to_play(gz(), deal)
    assert h.turn == 1
    play(h, "2C KD 3H AC")  # seat 0 takes the first trick and then leads its clubs
    clubs = cards("3C 4C 5C 6C 7C 8C 9C 10C JC QC KC")
    diamonds = cards("2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD")
    seat2 = cards("AD 5S 6S 7S 8S 9S 10S JS KS AS 2H")
    hearts = cards("4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    for trick in zip(clubs, diamonds, seat2, hearts, strict=True):
        for c in trick:
            assert h.turn is not None
            h.apply_play(h.turn, c)
    play(h, "2S QS 3S 4S")  # the last trick, heartless: seat 1 takes the pig with it
    assert h.phase is HandPhase.SCORED and h.result is not None
    assert h.result.all_hearts == 0 and h.result.grand_slam is None
    assert h.result.points == ((200 + 100) * 2, -100, 0, 0)
    assert h.result.results == (1900, -900, -500, -500)
