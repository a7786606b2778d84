"""Scoring one hand: hearts, Q♠, the optional J♦, spot values, and the moon in all four modes."""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES, check_mask
from ..rules import Moon, Rules, check_rules

__all__ = ["HandResult", "score_hand"]

_QS_BIT = 1 << QUEEN_SPADES
_JD_BIT = 1 << JACK_DIAMONDS
_MOON_MASK = HEARTS_MASK | _QS_BIT
_SPOT_VALUES = tuple(r + 2 for r in range(13))


@dataclass(frozen=True, slots=True)
class HandResult:
    """The points each seat scores for a hand, and who shot the moon (if anyone)."""

    points: tuple[int, ...]
    moon: int | None = None
    moon_added_to_others: bool | None = None


def penalty_points(rules: Rules, taken: int) -> int:
    """Points of the hearts and Q♠ in ``taken`` (J♦ is counted apart)."""
    check_rules(rules)
    check_mask(taken)
    hearts = taken & HEARTS_MASK
    if rules.spot_hearts:
        pts = sum(_SPOT_VALUES[i] for i in range(13) if hearts >> (39 + i) & 1)
    else:
        pts = hearts.bit_count()
    if taken & _QS_BIT:
        pts += rules.queen_points
    return pts


def score_hand(rules: Rules, taken: list[int], add_to_others: bool | None = None) -> HandResult:
    """Score a finished hand from the cards each seat took.

    With ``moon=choice`` and a shooter, pass ``add_to_others`` once the shooter has chosen; until
    then the result carries the shooter and the points as if counted plainly.
    """
    check_rules(rules)
    if add_to_others is not None and not isinstance(add_to_others, bool):
        raise ValueError(f"add_to_others is true, false or None, not {add_to_others!r}")
    if not isinstance(taken, list | tuple) or len(taken) != rules.players:
        raise ValueError(f"need the cards taken by {rules.players} seats, not {taken!r}")
    for t in taken:
        check_mask(t)
    jack = [(-10 if rules.jack_of_diamonds and t & _JD_BIT else 0) for t in taken]
    shooters = [s for s, t in enumerate(taken) if t & _MOON_MASK == _MOON_MASK]
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
