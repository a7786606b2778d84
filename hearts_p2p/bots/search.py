"""What every sampling bot shares: its budget, its own random numbers, and the counters the
bot bench reads. Each bot says how it searches one move; this says how long it may."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from ..cards import CARDS
from ..engine import PlayCard
from .heuristic import HeuristicBot

__all__ = ["DEFAULT_BUDGET_MS", "MIN_WORLDS", "SearchBot"]

DEFAULT_BUDGET_MS = 200
MIN_WORLDS = 4  # below this the wall-clock budget is not allowed to stop the search


class SearchBot:
    """``samples`` fixes the worlds per move (deterministic), else ``budget_ms`` bounds it."""

    def __init__(
        self, seed: int = 0, budget_ms: float = DEFAULT_BUDGET_MS, samples: int | None = None
    ) -> None:
        if samples is not None and samples < 1:
            raise ValueError("samples must be at least 1")
        self.rng = random.Random(seed)
        self.budget_ms = budget_ms
        self.samples = samples
        self.fallback = HeuristicBot(seed)  # where there is nothing to search (a pass, a moon)
        # What the budget is measured on: the wall clock, as a player waits. A benchmark on a
        # busy machine may use the process's CPU time instead, which an idle machine gives alike.
        self.clock: Callable[[], float] = time.perf_counter
        # Moves decided by search, the wall time and the worlds they took, for benchmarks.
        self.searches = 0
        self.search_seconds = 0.0
        self.worlds = 0

    def deadline(self, share: float = 1.0) -> float:
        """When a search started now, given ``share`` of the budget, must stop (unless
        ``samples`` decides)."""
        return self.clock() + share * self.budget_ms / 1000

    def enough(self, worlds: int, deadline: float) -> bool:
        """Whether a search that has sampled ``worlds`` stops here."""
        if self.samples is not None:
            return worlds >= self.samples
        return worlds >= MIN_WORLDS and self.clock() >= deadline

    def timed(self, search: Callable[[], int]) -> PlayCard:
        """Play the card ``search`` finds, counting the search for the bench."""
        start = time.perf_counter()
        card = search()
        self.searches += 1
        self.search_seconds += time.perf_counter() - start
        return PlayCard(CARDS[card])
