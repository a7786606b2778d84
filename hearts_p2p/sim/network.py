"""The simulated network and clock: one seeded event queue decides every delivery and every
timer, so a run replays exactly from its seed.

Each ordered pair of peers is a connection that keeps its order, as a TCP stream does: a frame
arrives after the ones sent before it on that connection, after a drawn delay. A connection that
breaks (a partition, a peer's crash) loses what was in flight; both ends see it down at once, as
a reset or a keepalive tells a node, and ask each other for the log when it is up again.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable

__all__ = ["Clock", "Network"]


class Clock:
    """Simulated time and the events due in it, in (time, order of scheduling) order."""

    def __init__(self) -> None:
        self.now = 0.0
        self._events: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0
        self.processed = 0

    def at(self, when: float, action: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._events, (max(when, self.now), self._seq, action))

    def after(self, delay: float, action: Callable[[], None]) -> None:
        self.at(self.now + delay, action)

    def step(self, until: float) -> bool:
        """Run the next event due by ``until``; False when there is none."""
        if not self._events or self._events[0][0] > until:
            return False
        self.now, _, action = heapq.heappop(self._events)
        self.processed += 1
        action()
        return True


class Network:
    """Connections between ``n`` peers: up or down, each keeping its order."""

    def __init__(
        self,
        clock: Clock,
        rng: random.Random,
        n: int,
        deliver: Callable[[int, int, bytes], None],
        changed: Callable[[int, int, bool], None],
        delay: tuple[float, float] = (0.001, 0.05),
    ) -> None:
        """``deliver(sender, receiver, frame)``; ``changed(peer, other, up)`` tells ``peer``
        that its connection to ``other`` went up or down."""
        self.clock = clock
        self.rng = rng
        self.n = n
        self._deliver = deliver
        self._changed = changed
        self.delay = delay
        self.duplicates = 0.0  # the chance a frame comes twice (a relay's copy, late)
        self._up = {(i, j): True for i in range(n) for j in range(n) if i != j}
        self._gen = dict.fromkeys(self._up, 0)
        self._last = dict.fromkeys(self._up, 0.0)
        self.frames = 0
        self.quiet: frozenset[int] = frozenset()  # senders whose frames no longer leave

    def up(self, i: int, j: int) -> bool:
        return self._up[(i, j)]

    def send(self, i: int, j: int, frame: bytes) -> None:
        """Frame from ``i`` to ``j``; lost if their connection is down or breaks before it
        arrives."""
        if i == j or not self._up[(i, j)] or i in self.quiet:
            return
        self.frames += 1
        lo, hi = self.delay
        when = max(self._last[(i, j)], self.clock.now + self.rng.uniform(lo, hi))
        self._last[(i, j)] = when
        gen = self._gen[(i, j)]

        def arrive() -> None:
            if self._gen[(i, j)] == gen:
                self._deliver(i, j, frame)

        self.clock.at(when, arrive)
        if self.duplicates and self.rng.random() < self.duplicates:
            self.clock.at(when + self.rng.uniform(lo, hi), arrive)

    def set_link(self, i: int, j: int, up: bool) -> None:
        """Bring the connection between ``i`` and ``j`` (both ways) up or down."""
        if self._up[(i, j)] == up:
            return
        for a, b in ((i, j), (j, i)):
            self._up[(a, b)] = up
            self._gen[(a, b)] += 1  # what was in flight is lost with the connection
            self._last[(a, b)] = self.clock.now
        self._changed(i, j, up)
        self._changed(j, i, up)
