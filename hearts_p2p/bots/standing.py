"""What a hand's points are worth to one seat given the game's standing: play to win the game.

Early in a game a hand is worth its zero-sum payoff, our points minus the mean of the others'.
Near the end what counts is whether we win the game. A hand that ends it (some total reaches the
target) is worth exactly that: a moon that puts a rival over the target while we are lowest is
good, one that ends the game with someone else lowest is a loss however few points we took. A
hand that leaves the game going is worth our chance of winning from the totals it leaves
(``win_chance``): ten points given to the rival just below us matter more than ten to a rival far
behind, and the same points matter more the fewer hands are left. Both are scaled so that a sure
win and a sure loss lie ``2 * GAME_LOSS`` apart, on top of the payoff.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import Rules, Ties

__all__ = ["GAME_LOSS", "Standing", "win_chance"]

GAME_LOSS = 52.0  # the worth of losing the game, in points of payoff: two moons
# A seat's points over the hands left are taken as normal, with a spread per hand of this share
# of the hand's penalty (7.8 of 26: Q♠ and the moon make a hand's points spread wide), while the
# highest total climbs by about this share a hand (10.4 of 26).
SPREAD = 0.3
CLIMB = 0.4


# Our own points to come, in standard deviations, and each one's weight: the normal density on
# a grid, normalised.
_GRID = [z / 2 for z in range(-7, 8)]
_WEIGHTS = [math.exp(-z * z / 2) / sum(math.exp(-y * y / 2) for y in _GRID) for z in _GRID]


@functools.lru_cache(maxsize=4096)
def win_chance(totals: tuple[int, ...], seat: int, target: int, penalty: int) -> float:
    """The chance that ``seat`` ends the game lowest from ``totals``, none at the target yet.

    Every seat's points over the hands left are independent normals alike, so the chance is,
    over our own points to come, the product of each rival's chance to take more than that gap.
    """
    hands = max(1.0, (target - max(totals)) / (CLIMB * penalty))
    spread = SPREAD * penalty * math.sqrt(hands) * math.sqrt(2)  # erf's unit
    mine = totals[seat]
    gaps = [(t - mine) / spread for s, t in enumerate(totals) if s != seat]
    chance = 0.0
    for z, w in zip(_GRID, _WEIGHTS, strict=True):
        p = w
        for g in gaps:
            p *= 0.5 * (1 + math.erf(g + z / math.sqrt(2)))
        chance += p
    return chance


@dataclass(frozen=True, slots=True)
class Standing:
    """One seat's view of the game: the totals before this hand and where the game ends."""

    seat: int
    totals: tuple[int, ...]
    target: int
    reach: int  # the most one hand adds to a total: the penalty a moon gives
    ties_shared: bool

    @classmethod
    def of(cls, rules: Rules, totals: Sequence[int], seat: int) -> Standing:
        shared = rules.ties is Ties.SHARED
        return cls(seat, tuple(totals), rules.target, rules.penalty_total, shared)

    @property
    def live(self) -> bool:
        """Whether this hand can end the game, so that its points are not all that counts."""
        return max(self.totals) + self.reach >= self.target

    def cost(self, points: Sequence[int]) -> float:
        """What ``points`` (this hand's, by seat) cost us: lower is better."""
        seat = self.seat
        mine = points[seat]
        cost = mine - (sum(points) - mine) / (len(points) - 1)
        if not self.live:
            return cost
        totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        low = min(totals)
        lowest = totals.count(low)
        if max(totals) < self.target or (lowest > 1 and not self.ties_shared):
            chance = win_chance(tuple(totals), seat, self.target, self.reach)
        elif totals[seat] > low:
            chance = 0.0
        else:
            chance = 1 / lowest
        return cost + 2 * GAME_LOSS * (0.5 - chance)
