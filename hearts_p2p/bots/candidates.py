"""The cards worth searching: one of each run of legal cards that play the same."""

from __future__ import annotations

from ..cards import HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES
from ..rules import Rules

__all__ = ["distinct_plays"]


def distinct_plays(legal: int, hand: int, unseen_or_in_trick: int, rules: Rules) -> list[int]:
    """The legal cards, keeping one of each run that no other live card separates.

    Two cards of a suit with nothing between them but our own or already played cards win and lose
    the same tricks, so trying both is wasted work. Cards that score differently stay apart.
    """
    special = 1 << QUEEN_SPADES
    if rules.jack_of_diamonds:
        special |= 1 << JACK_DIAMONDS
    if rules.spot_hearts:
        special |= HEARTS_MASK
    kept: list[int] = []
    prev = -1
    m = legal
    while m:
        c = (m & -m).bit_length() - 1
        m &= m - 1
        between = ((1 << c) - 1) & ~((2 << prev) - 1) if prev >= 0 else 0
        same = prev >= 0 and prev // 13 == c // 13 and not between & unseen_or_in_trick
        if not (same and not (1 << c | 1 << prev) & special):
            kept.append(c)
        prev = c
    return kept
