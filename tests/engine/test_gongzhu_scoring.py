"""Gong Zhu scoring: card values, 全红, 大满贯, the transformer, exposure doubling, 按点计分, and
the result formula."""

from __future__ import annotations

import pytest

from hearts_p2p.cards import DECK_MASK, HEARTS_MASK, mask_of, parse_cards
from hearts_p2p.engine import (
    GONGZHU_SCORING_MASK,
    HandResult,
    gongzhu_points,
    gongzhu_results,
    gongzhu_winners,
    penalty_points,
    score_hand,
)
from hearts_p2p.rules import Rules

GZ = Rules(game="gongzhu")  # type: ignore[arg-type]
BY_RANK = Rules(game="gongzhu", hearts_by_rank=True)  # type: ignore[arg-type]


def m(text: str) -> int:
    return mask_of(parse_cards(text))


def points(taken: str, exposed: str = "", rules: Rules = GZ) -> int:
    return gongzhu_points(rules, m(taken), m(exposed))


@pytest.mark.parametrize(
    ("taken", "score"),
    [
        ("", 0),
        ("2C KS AD", 0),  # cards that do not score
        ("2H 3H 4H", 0),
        ("5H", -10),
        ("10H", -10),
        ("JH", -20),
        ("QH", -30),
        ("KH", -40),
        ("AH", -50),
        ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", -150),
        ("QS", -100),
        ("JD", 100),
        ("QS JD", 0),
        ("QS 5H", -110),
    ],
)
def test_card_values(taken: str, score: int) -> None:
    assert points(taken) == score


def test_all_hearts_count_plus_200() -> None:
    hearts = "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"
    assert points(hearts) == 200
    assert points(hearts + " QS") == 100
    assert points(hearts, exposed="AH") == 400


def test_the_transformer_doubles_or_scores_50_alone() -> None:
    assert points("10C") == 50
    assert points("10C 2C 3D") == 50  # other cards do not score at all
    assert points("10C", exposed="10C") == 100
    assert points("10C QS") == -200
    assert points("10C JD 5H") == 180
    assert points("10C QS", exposed="10C") == -400
    assert points("10C QS", exposed="10C QS") == -800
    assert points("10C 2H") == 0  # 2♥ is a scoring card worth 0: no +50


def test_exposure_doubles_each_card_wherever_it_goes() -> None:
    assert points("QS", exposed="QS") == -200
    assert points("JD", exposed="JD") == 200
    assert points("AH", exposed="AH") == -100
    assert points("5H JH", exposed="AH") == -60  # an exposed A♥ doubles every heart
    assert points("QS JD 10C", exposed="QS JD 10C AH") == 0  # −200 + 200, quadrupled
    assert points("QS 10C 5H", exposed="QS 10C AH") == (-20 - 200) * 4
    assert points("QS", exposed="JD 10C AH") == -100


def test_grand_slam_is_plus_800_and_exposure_multiplies_it() -> None:
    every = "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH QS JD 10C"
    assert m(every) == GONGZHU_SCORING_MASK
    assert points(every) == 800
    assert points(every, exposed="QS") == 1000
    assert points(every, exposed="10C") == 1600
    assert points(every, exposed="QS JD 10C AH") == 3200


def test_hearts_by_rank() -> None:
    hearts = ["2H", "3H", "4H", "5H", "9H", "10H", "JH", "AH"]
    assert [points(c, rules=BY_RANK) for c in hearts] == [-2, -3, -10, -5, -9, -10, -20, -50]
    assert points("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", rules=BY_RANK) == -150
    assert points("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", rules=BY_RANK) == 200
    assert points("10C 2H", rules=BY_RANK) == -4


def test_penalty_points_of_a_gong_zhu_trick_count_nothing_exposed() -> None:
    assert penalty_points(GZ, m("QS 10C")) == -200


def test_score_hand_gives_results_that_sum_to_zero() -> None:
    taken = [m("QS 5H"), m("JD 10C"), m("AH KH"), DECK_MASK & ~m("QS 5H JD 10C AH KH")]
    r = score_hand(GZ, taken)
    assert r.points == (-110, 200, -90, -100)
    assert r.results == (-440 + 100, 800 + 100, -360 + 100, -400 + 100)
    assert sum(r.results) == 0 and r.all_hearts is None and r.grand_slam is None
    exposed = score_hand(GZ, taken, exposed=m("QS 10C"))
    assert exposed.points == (-210, 400, -90, -100)


def test_all_hearts_and_grand_slam_are_named_in_the_result() -> None:
    taken = [m("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"), m("QS"), m("JD"), m("10C")]
    taken[3] |= DECK_MASK & ~sum(taken)
    assert score_hand(GZ, taken) == HandResult(
        (200, -100, 100, 50), results=(550, -650, 150, -50), all_hearts=0
    )
    slam = score_hand(GZ, [DECK_MASK, 0, 0, 0])
    assert slam == HandResult((800, 0, 0, 0), results=(2400, -800, -800, -800), all_hearts=0,
                              grand_slam=0)  # fmt: skip
    assert HEARTS_MASK & taken[0] == HEARTS_MASK


def test_the_seeds_partners_example() -> None:
    """Seed 002's example: East, South, West, North seated 0 to 3."""
    rules = Rules(game="gongzhu", partners=True)  # type: ignore[arg-type]
    east = m("AH 6H 7H 9H 10H")
    south = m("QS")
    west = m("2H 3H 4H 5H 8H JH QH KH 10C")
    north = m("JD")
    rest = DECK_MASK & ~(east | south | west | north)
    r = score_hand(rules, [east | rest, south, west, north])
    assert r.points == (-90, -100, -220, 100)
    assert r.results == (-50, -90, -570, 710)
    assert r.results[0] + r.results[2] == -620 and r.results[1] + r.results[3] == 620
    assert gongzhu_winners(rules, r.results) == (1, 3)
    assert gongzhu_winners(GZ, r.results) == (3,)


def test_the_formula_for_five_players_sums_to_zero() -> None:
    five = Rules(game="gongzhu", players=5)  # type: ignore[arg-type]
    results = gongzhu_results(five, [-100, 50, 0, 0, -150])
    assert results == (5 * -100 + 200, 5 * 50 + 200, 200, 200, 5 * -150 + 200)
    assert sum(results) == 0
    assert gongzhu_winners(five, (0, 0, 0, 0, 0)) == ()
