"""Candidates dropped once the worlds prove them worse, so the search's time goes to close calls.

A search plays every candidate (a card, or a card with a plan for the moon) out in the same
worlds. Most decisions have one or two candidates that are plainly bad after a few dozen worlds;
playing them out in every later world buys nothing. So each candidate keeps its cost in every
world, and from time to time each is compared with the best so far, world by world (the same
worlds, so the luck of the deal cancels): one whose mean is worse by ``DROP_Z`` standard errors
of that paired difference is dropped for the rest of the decision. Every candidate still in the
race has been played in every world, so their means stay comparable. The checks come at a
growing spacing, so they cost a small fraction of the playouts they save.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

__all__ = ["DROP_FROM", "DROP_Z", "Race"]

DROP_FROM = 48  # worlds before any candidate may be dropped
DROP_Z = 3.0  # standard errors of the paired difference a dropped candidate is worse by

A = TypeVar("A", bound=Hashable)


class Race(Generic[A]):
    """The per-world costs of the candidates still in the race (lower is better)."""

    def __init__(self, arms: Sequence[A]) -> None:
        self.costs: dict[A, list[float]] = {a: [] for a in arms}
        self._check_at = DROP_FROM

    def live(self, arm: A) -> bool:
        return arm in self.costs

    def add(self, arm: A, cost: float) -> None:
        self.costs[arm].append(cost)

    def mean(self, arm: A) -> float:
        costs = self.costs[arm]
        return sum(costs) / len(costs)

    def settle(self, worlds: int) -> None:
        """After world ``worlds``: drop the candidates proven worse than the best, when due."""
        if worlds < self._check_at or len(self.costs) < 2:
            return
        self._check_at = worlds + max(DROP_FROM // 2, worlds // 2)
        best = min(self.costs, key=self.mean)
        ref = self.costs[best]
        for arm in [a for a in self.costs if a != best]:
            diffs = [x - y for x, y in zip(self.costs[arm], ref, strict=True)]
            n = len(diffs)
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            if mean > DROP_Z * math.sqrt(var / n):
                del self.costs[arm]
