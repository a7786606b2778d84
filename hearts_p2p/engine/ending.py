"""Whether the hand in play is sure to end the game, however it is still played.

The next hand's deck is shuffled during this hand (SPEC 6.3); a game that cannot go on needs
none. The answer errs one way only: True means that every way the rest of the hand can go,
every moon included, leaves a total at the target. Gong Zhu, and ties played on, always answer
False: their end depends on more than one total.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import Moon, Rules, Ties
from .scoring import MOON_MASK, penalty_points

__all__ = ["ends_the_game"]


def ends_the_game(rules: Rules, totals: Sequence[int], taken: Sequence[int]) -> bool:
    """Whether the hand, with ``taken`` the cards each seat has won so far and ``totals`` the
    game's totals before it, ends the game whatever is still played."""
    if rules.is_gongzhu or rules.ties is Ties.PLAY_ON:
        return False
    target = rules.target
    jack = 10 if rules.jack_of_diamonds else 0  # J♦ may still take 10 off anyone
    points = penalty_points(rules, rules.deck_mask)
    # Without a moon a seat keeps what it has taken, and the seats together take every point.
    least = [t + penalty_points(rules, m) - jack for t, m in zip(totals, taken, strict=True)]
    mean = -(-(sum(totals) + points - jack) // rules.players)
    if max(max(least), mean) < target:
        return False
    if rules.moon is Moon.OFF or rules.deck_mask & MOON_MASK != MOON_MASK:
        return True
    won = [m & MOON_MASK for m in taken]
    shooters = [s for s in range(rules.players) if all(w == 0 for o, w in enumerate(won) if o != s)]
    add = rules.moon in (Moon.CLASSIC, Moon.CHOICE)
    subtract = rules.moon in (Moon.NEGATIVE, Moon.CHOICE)
    for s in shooters:
        others = max(t for o, t in enumerate(totals) if o != s)
        if add and others + rules.penalty_total - jack < target:
            return False
        if subtract and others - jack < target:
            return False
    return True
