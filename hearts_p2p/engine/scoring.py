"""Scoring one hand: hearts, Q♠, the optional J♦, spot values, and the moon in all four modes;
and Gong Zhu's: the pig, the sheep, the transformer, 全红, 大满贯, exposure and the result formula.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import ACE_HEARTS, HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES, TEN_CLUBS, check_mask
from ..rules import Moon, Rules, check_rules

__all__ = [
    "EXPOSABLE_MASK",
    "GONGZHU_SCORING_MASK",
    "MOON_MASK",
    "HandResult",
    "gongzhu_points",
    "gongzhu_results",
    "gongzhu_winners",
    "penalty_points",
    "score_hand",
    "trick_points",
]

_QS_BIT = 1 << QUEEN_SPADES
_JD_BIT = 1 << JACK_DIAMONDS
_TC_BIT = 1 << TEN_CLUBS
_AH_BIT = 1 << ACE_HEARTS
EXPOSABLE_MASK = _QS_BIT | _JD_BIT | _TC_BIT | _AH_BIT
"""The four cards a Gong Zhu seat may expose: Q♠ (the pig), J♦ (the sheep), 10♣, A♥."""
GONGZHU_SCORING_MASK = HEARTS_MASK | EXPOSABLE_MASK
"""Gong Zhu's sixteen scoring cards; 2♥ 3♥ 4♥ score 0 but are scoring cards all the same."""
# Hearts 2..A: the seed's values, and 按点计分's (minus the rank up to 10♥, 4♥ −10).
_GZ_HEARTS = (0, 0, 0, -10, -10, -10, -10, -10, -10, -20, -30, -40, -50)
_GZ_HEARTS_BY_RANK = (-2, -3, -10, -5, -6, -7, -8, -9, -10, -20, -30, -40, -50)
MOON_MASK = HEARTS_MASK | _QS_BIT
"""The cards a moon shooter must take: every heart and Q♠."""
_SPOT_VALUES = tuple(r + 2 for r in range(13))


@dataclass(frozen=True, slots=True)
class HandResult:
    """The points each seat scores for a hand, and who shot the moon (if anyone)."""

    points: tuple[int, ...]
    moon: int | None = None
    moon_added_to_others: bool | None = None
    # Gong Zhu only: each seat's result by the formula, who took every heart (全红), and who took
    # every scoring card (大满贯, also the 全红 seat).
    results: tuple[int, ...] = ()
    all_hearts: int | None = None
    grand_slam: int | None = None


def penalty_points(rules: Rules, taken: int) -> int:
    """Points of the hearts and Q♠ in ``taken`` (J♦ is counted apart).

    For Gong Zhu, the score of ``taken`` with nothing exposed.
    """
    check_rules(rules)
    check_mask(taken)
    if rules.is_gongzhu:
        return gongzhu_points(rules, taken)
    hearts = taken & HEARTS_MASK
    if rules.spot_hearts:
        pts = sum(_SPOT_VALUES[i] for i in range(13) if hearts >> (39 + i) & 1)
    else:
        pts = hearts.bit_count()
    if taken & _QS_BIT:
        pts += rules.queen_points
    return pts


def trick_points(rules: Rules, taken: int, exposed: int = 0) -> int:
    """What the cards of ``taken`` score: Hearts' penalty points, or their Gong Zhu score."""
    if rules.is_gongzhu:
        return gongzhu_points(rules, taken, exposed)
    return penalty_points(rules, taken)


def score_hand(
    rules: Rules, taken: list[int], add_to_others: bool | None = None, *, exposed: int = 0
) -> HandResult:
    """Score a finished hand from the cards each seat took (and, in Gong Zhu, those exposed).

    With ``moon=choice`` and a shooter, pass ``add_to_others`` once the shooter has chosen; until
    then the result carries the shooter and the points as if counted plainly.
    """
    check_rules(rules)
    check_mask(exposed)
    if rules.is_gongzhu:
        return _score_gongzhu(rules, taken, exposed)
    if add_to_others is not None and not isinstance(add_to_others, bool):
        raise ValueError(f"add_to_others is true, false or None, not {add_to_others!r}")
    if not isinstance(taken, list | tuple) or len(taken) != rules.players:
        raise ValueError(f"need the cards taken by {rules.players} seats, not {taken!r}")
    for t in taken:
        check_mask(t)
    jack = [(-10 if rules.jack_of_diamonds and t & _JD_BIT else 0) for t in taken]
    shooters = [s for s, t in enumerate(taken) if t & MOON_MASK == MOON_MASK]
    shooter = shooters[0] if shooters and rules.moon is not Moon.OFF else None
    if shooter is None:
        return HandResult(
            tuple(penalty_points(rules, t) + j for t, j in zip(taken, jack, strict=True))
        )
    if rules.moon is Moon.CLASSIC:
        add_to_others = True
    elif rules.moon is Moon.NEGATIVE:
        add_to_others = False
    elif add_to_others is None:
        plain = tuple(penalty_points(rules, t) + j for t, j in zip(taken, jack, strict=True))
        return HandResult(plain, moon=shooter)
    total = rules.penalty_total
    points = tuple(
        j + (0 if s == shooter else total) if add_to_others else j + (-total if s == shooter else 0)
        for s, j in enumerate(jack)
    )
    return HandResult(points, moon=shooter, moon_added_to_others=add_to_others)


def gongzhu_points(rules: Rules, taken: int, exposed: int = 0) -> int:
    """The Gong Zhu score of the cards in ``taken``, with the cards of ``exposed`` doubled.

    Hearts add up (+200 instead of −200 when all thirteen are taken: 全红, doubled by an exposed
    A♥), then Q♠ −100 and J♦ +100, then 10♣ doubles the lot, or is +50 alone. Taking all sixteen
    scoring cards (大满贯) turns Q♠ to +100 as well.
    """
    scoring = taken & GONGZHU_SCORING_MASK
    if not scoring:
        return 0
    hearts = taken & HEARTS_MASK
    if hearts == HEARTS_MASK:
        pts = 200
    else:
        values = _GZ_HEARTS_BY_RANK if rules.hearts_by_rank else _GZ_HEARTS
        pts = sum(values[i] for i in range(13) if hearts >> (39 + i) & 1)
    if exposed & _AH_BIT:
        pts *= 2
    if taken & _QS_BIT:
        pts += (100 if scoring == GONGZHU_SCORING_MASK else -100) * (2 if exposed & _QS_BIT else 1)
    if taken & _JD_BIT:
        pts += 100 * (2 if exposed & _JD_BIT else 1)
    if taken & _TC_BIT:
        factor = 4 if exposed & _TC_BIT else 2
        return 25 * factor if scoring == _TC_BIT else pts * factor
    return pts


def gongzhu_results(rules: Rules, scores: Sequence[int]) -> tuple[int, ...]:
    """The seed's result formula: own score × 3 − the others' (× (N − 1) for N seats).

    It is linear, so the results of the game's totals are the sums of the hands' results, and
    they always add up to zero.
    """
    n = check_rules(rules).players
    total = sum(scores)
    return tuple(n * s - total for s in scores)


def gongzhu_winners(rules: Rules, results: Sequence[int]) -> tuple[int, ...]:
    """Seats with a positive result; with partners, the seats of the team whose sum is positive.

    Seats on zero draw and the rest lose; no seat wins when every result is zero.
    """
    n = check_rules(rules).players
    if rules.partners:
        return tuple(s for s in range(n) if results[s] + results[(s + 2) % n] > 0)
    return tuple(s for s in range(n) if results[s] > 0)


def _score_gongzhu(rules: Rules, taken: list[int], exposed: int) -> HandResult:
    if not isinstance(taken, list | tuple) or len(taken) != rules.players:
        raise ValueError(f"need the cards taken by {rules.players} seats, not {taken!r}")
    for t in taken:
        check_mask(t)
    points = tuple(gongzhu_points(rules, t, exposed) for t in taken)
    all_hearts = next((s for s, t in enumerate(taken) if t & HEARTS_MASK == HEARTS_MASK), None)
    slam = next(
        (s for s, t in enumerate(taken) if t & GONGZHU_SCORING_MASK == GONGZHU_SCORING_MASK), None
    )
    return HandResult(
        points, results=gongzhu_results(rules, points), all_hearts=all_hearts, grand_slam=slam
    )
