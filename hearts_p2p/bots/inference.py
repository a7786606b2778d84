"""What the plays suggest, beyond what they prove: soft evidence that narrows the sampled worlds.

``knowledge`` holds what a legal play proves (voids, first-trick and hearts-lead evidence, our
pass). Players also reveal what they choose: a seat void in the led suit that throws a harmless
card while Q♠ is still out almost never holds Q♠, since dropping it on someone else is the play
every sound player makes (and every bot here does). The hard bot deals its worlds with such a seat
kept from Q♠, unless that leaves no consistent world, when the hard facts alone decide.
"""

from __future__ import annotations

import dataclasses

from ..cards import QUEEN_SPADES
from ..engine import SeatView
from .knowledge import POINTS_MASK, Knowledge

__all__ = ["with_signals"]

_QS = 1 << QUEEN_SPADES


def with_signals(view: SeatView, k: Knowledge) -> Knowledge:
    """``k`` with the cards each seat has signalled it does not hold also kept from it."""
    if not k.unseen & _QS:
        return k
    shed = 0  # seats that threw a harmless card instead of Q♠
    plays = [t.plays for t in view.tricks]
    if view.trick is not None:
        plays.append(view.trick.plays)
    for i, trick in enumerate(plays):
        if i == 0:
            continue  # no points may go on the first trick: its discards say nothing of Q♠
        led = trick[0][1] // 13
        for s, c in trick[1:]:
            if c // 13 != led and not (1 << c) & POINTS_MASK:
                shed |= 1 << s
    shed &= ~(1 << k.seat)
    if not shed:
        return k
    forbidden = tuple(f | _QS if shed >> s & 1 else f for s, f in enumerate(k.forbidden))
    if all(forbidden[s] & _QS for s in range(len(forbidden))):
        return k
    if any(k.pinned[s] & _QS for s in range(len(forbidden)) if shed >> s & 1):
        return k  # we passed it Q♠: we know better
    return dataclasses.replace(k, forbidden=forbidden)
