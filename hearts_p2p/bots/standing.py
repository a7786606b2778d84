"""What a hand's points are worth to one seat given the game's standing: play to win the game.

A hand alone is worth its zero-sum payoff, our points minus the mean of the others'. But a hand
that ends the game (some total reaches the target) is worth only whether we win it: a moon that
puts a rival over the target while we are lowest is good, one that ends the game with someone else
lowest is a loss however few points we took. So a hand that ends the game adds ``GAME_LOSS``
points of payoff when we are not among the lowest and takes it off when we alone are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import Rules

__all__ = ["GAME_LOSS", "Standing"]

GAME_LOSS = 52.0  # the worth of losing the game, in points of payoff: two moons


@dataclass(frozen=True, slots=True)
class Standing:
    """One seat's view of the game: the totals before this hand and where the game ends."""

    seat: int
    totals: tuple[int, ...]
    target: int
    reach: int  # the most one hand adds to a total: the penalty a moon gives

    @classmethod
    def of(cls, rules: Rules, totals: Sequence[int], seat: int) -> Standing:
        return cls(seat, tuple(totals), rules.target, rules.penalty_total)

    @property
    def live(self) -> bool:
        """Whether this hand can end the game, so that its points are not all that counts."""
        return max(self.totals) + self.reach >= self.target

    def cost(self, points: Sequence[int]) -> float:
        """What ``points`` (this hand's, by seat) cost us: lower is better."""
        seat = self.seat
        mine = points[seat]
        cost = mine - (sum(points) - mine) / (len(points) - 1)
        totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        if max(totals) < self.target:
            return cost
        low = min(totals)
        if totals[seat] > low:
            return cost + GAME_LOSS
        if totals.count(low) > 1:
            return cost  # a shared win, or (ties play on) no end yet
        return cost - GAME_LOSS
