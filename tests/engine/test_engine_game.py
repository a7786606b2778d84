"""A whole game: running totals, the end at the target, winners, ties, dealer rotation."""

from __future__ import annotations

import pytest

from hearts_p2p.engine import Game, GameResult, HandPhase, IllegalActionError, PassCards
from hearts_p2p.rules import Moon, Rules, Ties

from .engine_helpers import SUITS, card, fill, masks, play_lowest


def rotated(k: int) -> list[int]:
    """SUITS with the clubs (and so every trick) at seat ``k``: seat k takes all 26 points."""
    return masks(*SUITS[-k:], *SUITS[:-k]) if k else masks(*SUITS)


def play_hand(game: Game, taker: int) -> None:
    game.start_hand(rotated(taker))
    play_lowest(game)
    assert game.hand is not None and game.hand.phase is HandPhase.SCORED


def test_running_totals_and_the_end_after_the_hand_that_reaches_the_target() -> None:
    game = Game(Rules(moon=Moon.OFF, passing=False))
    for n in range(1, 4):
        play_hand(game, 0)
        assert game.totals == [26 * n, 0, 0, 0]
        assert not game.over and game.awaiting_deal
    play_hand(game, 0)  # 104 >= 100
    assert game.over and not game.awaiting_deal
    assert game.result == GameResult((104, 0, 0, 0), winners=(1, 2, 3), hands=4)
    with pytest.raises(IllegalActionError, match="game over"):
        game.start_hand(rotated(0))
    with pytest.raises(IllegalActionError, match="game over"):
        game.apply(0, PassCards(None))
    assert game.to_act() == [] and game.legal_actions(0) == []


def test_reaching_the_target_exactly_ends_the_game() -> None:
    game = Game(Rules(moon=Moon.OFF, passing=False, target=52))
    play_hand(game, 1)
    assert not game.over
    play_hand(game, 2)
    assert not game.over  # 26 each for seats 1 and 2: below 52
    play_hand(game, 1)
    assert game.result == GameResult((0, 52, 26, 0), winners=(0, 3), hands=3)


def test_a_single_lowest_total_wins() -> None:
    game = Game(Rules(passing=False, target=52))  # classic moon: the taker scores 0
    play_hand(game, 3)
    play_hand(game, 3)
    assert game.result == GameResult((52, 52, 52, 0), winners=(3,), hands=2)


def test_play_on_keeps_playing_until_one_lowest_total() -> None:
    game = Game(Rules(moon=Moon.OFF, passing=False, target=52, ties=Ties.PLAY_ON))
    play_hand(game, 0)
    play_hand(game, 0)
    assert game.totals == [52, 0, 0, 0] and not game.over  # three-way tie for lowest
    play_hand(game, 1)
    assert not game.over  # seats 2 and 3 still tie
    play_hand(game, 2)
    assert game.result == GameResult((52, 26, 26, 0), winners=(3,), hands=4)


def test_shared_winners_by_default() -> None:
    game = Game(Rules(moon=Moon.OFF, passing=False, target=52))
    play_hand(game, 0)
    play_hand(game, 0)
    assert game.result is not None and game.result.winners == (1, 2, 3)


def test_negative_totals_with_negative_moons() -> None:
    game = Game(Rules(moon=Moon.NEGATIVE, passing=False))
    play_hand(game, 2)
    play_hand(game, 2)
    assert game.totals == [0, 0, -52, 0] and not game.over


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_dealer_rotates_each_hand(players: int) -> None:
    rules = Rules(players=players, target=10_000)
    game = Game(rules)
    dealers = []
    for _ in range(players + 1):
        game.start_hand(fill(rules, {}))
        assert game.hand is not None
        dealers.append(game.hand.dealer)
        play_lowest(game)
    assert dealers == [*range(players), 0]
    assert game.number == players + 1


def test_a_hand_in_progress_refuses_a_new_deal() -> None:
    game = Game(Rules())
    assert game.awaiting_deal and game.number == 0 and game.to_act() == []
    with pytest.raises(IllegalActionError, match="no hand dealt yet"):
        game.apply(0, PassCards(None))
    game.start_hand(rotated(0))
    with pytest.raises(IllegalActionError, match="a hand is in progress"):
        game.start_hand(rotated(0))


def test_clone_is_independent() -> None:
    game = Game(Rules(passing=False))
    h = game.start_hand(rotated(0))
    h.apply_play(0, card("2C"))
    copy = h.clone()
    copy.apply_play(1, card("AD"))
    assert len(h.trick) == 1 and len(copy.trick) == 2
    assert h.hands[1] != copy.hands[1] and h.played != copy.played


def test_a_voided_hand_scores_nothing_and_the_next_deal_is_the_next_number() -> None:
    """Voided before its deal, mid-play, or once scored (its points come off again, and a game
    it ended goes on); then the game can be closed on the totals so far."""
    game = Game(Rules(moon=Moon.OFF, passing=False, target=50))
    play_hand(game, 1)
    game.void_hand(2)  # not dealt yet
    assert game.number == 2 and game.awaiting_deal and game.totals == [0, 26, 0, 0]
    game.start_hand(rotated(2))
    assert game.hand is not None and game.hand.number == 3
    game.void_hand(3)  # mid-play
    play_hand(game, 1)  # hand 4: 52 ends the game
    assert game.over
    game.void_hand(4)  # scored, and it had ended the game: it goes on
    assert not game.over and game.totals == [0, 26, 0, 0]
    assert [r.points for r in game.results] == [(0, 26, 0, 0), (0,) * 4, (0,) * 4, (0,) * 4]
    with pytest.raises(IllegalActionError):
        game.void_hand(7)
    game.close()
    assert game.result == GameResult((0, 26, 0, 0), winners=(0, 2, 3), hands=4)
