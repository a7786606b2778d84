"""Hand scoring: hearts, Q♠, J♦, spot values, and the moon in all four modes."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import HEARTS_MASK, mask_of, parse_cards
from hearts_p2p.engine import (
    ChooseMoon,
    Game,
    HandPhase,
    HandResult,
    IllegalActionError,
    PlayCard,
    penalty_points,
    score_hand,
)
from hearts_p2p.rules import Moon, Rules

from .engine_helpers import SUITS, masks, play_lowest

ALL_POINTS = HEARTS_MASK | mask_of(parse_cards("QS"))


def took(*specs: str) -> list[int]:
    return masks(*specs)


def test_hearts_one_each_and_queen_thirteen() -> None:
    r = score_hand(Rules(), took("2H 3H QS 2C", "AH", "", "4H 5H 6H 7H 8H 9H 10H JH QH KH JD"))
    assert r == HandResult((15, 1, 0, 10))
    assert sum(r.points) == 26


def test_spot_hearts_values_and_queen_twenty_five() -> None:
    rules = Rules(spot_hearts=True)
    assert (
        penalty_points(rules, mask_of(parse_cards("2H 10H JH QH KH AH")))
        == 2 + 10 + 11 + 12 + 13 + 14
    )
    assert penalty_points(rules, mask_of(parse_cards("QS 2H"))) == 27
    r = score_hand(rules, took("2H 3H 4H 5H 6H 7H 8H 9H 10H", "JH QH KH AH QS", "", ""))
    assert r.points == (54, 75, 0, 0)
    assert sum(r.points) == 129


def test_jack_of_diamonds_minus_ten_only_with_the_option() -> None:
    hands = took("JD 2H", "QS", "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", "")
    assert score_hand(Rules(), hands).points == (1, 13, 12, 0)
    assert score_hand(Rules(jack_of_diamonds=True), hands).points == (-9, 13, 12, 0)


@pytest.mark.parametrize(
    ("moon", "points"),
    [
        (Moon.CLASSIC, (0, 26, 26, 26)),
        (Moon.NEGATIVE, (-26, 0, 0, 0)),
        (Moon.OFF, (26, 0, 0, 0)),
    ],
)
def test_moon_modes(moon: Moon, points: tuple[int, ...]) -> None:
    r = score_hand(Rules(moon=moon), [ALL_POINTS, 0, 0, 0])
    assert r.points == points
    assert r.moon == (None if moon is Moon.OFF else 0)


def test_moon_choice_is_pending_until_chosen() -> None:
    rules = Rules(moon=Moon.CHOICE)
    taken = [0, ALL_POINTS, 0, 0]
    pending = score_hand(rules, taken)
    assert pending.moon == 1 and pending.moon_added_to_others is None
    assert score_hand(rules, taken, add_to_others=True).points == (26, 0, 26, 26)
    assert score_hand(rules, taken, add_to_others=False).points == (0, -26, 0, 0)


def test_all_hearts_without_the_queen_is_no_moon() -> None:
    r = score_hand(Rules(), [HEARTS_MASK, mask_of(parse_cards("QS")), 0, 0])
    assert r == HandResult((13, 13, 0, 0))


def test_moon_with_spot_hearts_is_129() -> None:
    assert score_hand(Rules(spot_hearts=True), [0, 0, ALL_POINTS, 0]).points == (129, 129, 0, 129)
    neg = Rules(spot_hearts=True, moon=Moon.NEGATIVE)
    assert score_hand(neg, [0, 0, ALL_POINTS, 0]).points == (0, 0, -129, 0)


def test_jack_of_diamonds_counts_apart_from_the_moon() -> None:
    rules = Rules(jack_of_diamonds=True)
    jd = mask_of(parse_cards("JD"))
    # The moon needs only hearts and Q♠; J♦ goes to whoever took it.
    assert score_hand(rules, [ALL_POINTS, jd, 0, 0]).points == (0, 16, 26, 26)
    assert score_hand(rules, [ALL_POINTS | jd, 0, 0, 0]).points == (-10, 26, 26, 26)
    neg = Rules(jack_of_diamonds=True, moon=Moon.NEGATIVE)
    assert score_hand(neg, [ALL_POINTS, jd, 0, 0]).points == (-26, -10, 0, 0)
    off = Rules(jack_of_diamonds=True, moon=Moon.OFF)
    assert score_hand(off, [ALL_POINTS | jd, 0, 0, 0]).points == (16, 0, 0, 0)


def moon_game(rules: Rules) -> Game:
    """A game whose first hand seat 0 shoots (see SUITS), played to the end of the tricks."""
    game = Game(rules)
    game.start_hand(masks(*SUITS))
    play_lowest(game)
    return game


@pytest.mark.parametrize(
    ("moon", "points"),
    [
        (Moon.CLASSIC, (0, 26, 26, 26)),
        (Moon.NEGATIVE, (-26, 0, 0, 0)),
        (Moon.OFF, (26, 0, 0, 0)),
    ],
)
def test_moon_played_out(moon: Moon, points: tuple[int, ...]) -> None:
    game = moon_game(Rules(moon=moon, passing=False))
    assert game.hand is not None and game.hand.phase is HandPhase.SCORED
    assert game.results[0].points == points
    assert game.totals == list(points)


@pytest.mark.parametrize("add_to_others", [True, False])
def test_moon_choice_is_the_shooters_action(add_to_others: bool) -> None:
    game = moon_game(Rules(moon=Moon.CHOICE, passing=False))
    h = game.hand
    assert h is not None and h.phase is HandPhase.MOON_CHOICE
    assert game.to_act() == [0]
    assert game.legal_actions(0) == [ChooseMoon(True), ChooseMoon(False)]
    assert game.legal_actions(1) == []
    assert game.results == [] and game.totals == [0, 0, 0, 0]
    for seat in (1, 2, 3):
        with pytest.raises(IllegalActionError, match="only the moon shooter chooses"):
            game.apply(seat, ChooseMoon(add_to_others))
    with pytest.raises(IllegalActionError):
        game.apply(0, PlayCard(parse_cards("AC")[0]))
    game.apply(0, ChooseMoon(add_to_others))
    assert h.phase is HandPhase.SCORED
    assert game.totals == ([0, 26, 26, 26] if add_to_others else [-26, 0, 0, 0])
    assert game.results[0].moon_added_to_others is add_to_others
    with pytest.raises(IllegalActionError, match="no moon"):
        game.apply(0, ChooseMoon(add_to_others))


def test_moon_with_spot_hearts_and_jack_played_out() -> None:
    game = moon_game(Rules(passing=False, spot_hearts=True, jack_of_diamonds=True))
    assert game.totals == [-10, 129, 129, 129]
