"""Deal the cards a seat cannot see into worlds consistent with everything it knows.

Each world gives every other seat exactly as many cards as it still holds, never a card of a suit
it has shown void in, and always the cards this seat passed it. Cards are placed most-constrained
first, each to an eligible seat with probability proportional to the room it has left, which is
close to uniform over consistent worlds and cheap enough to do thousands of times per move.

``Dealer`` does the same faster, for the search that deals thousands of worlds from one
``Knowledge``: it groups the cards once by the seats that may hold them, deals the groups most
constrained first, and the last group (usually every card no constraint touches) by one shuffle.
"""

from __future__ import annotations

import random

from ..cards import iter_bits
from ..engine import HandState
from .knowledge import Knowledge

__all__ = ["Dealer", "sample_hands", "sample_world"]

_GREEDY_TRIES = 20


def sample_hands(k: Knowledge, rng: random.Random) -> list[int]:
    """Every seat's current hand in one random world consistent with ``k``."""
    n = len(k.counts)
    pinned = 0
    for p in k.pinned:
        pinned |= p
    free = list(iter_bits(k.unseen & ~pinned))
    room = [k.counts[s] - k.pinned[s].bit_count() for s in range(n)]
    room[k.seat] = 0
    allowed = [k.allowed(s) for s in range(n)]
    eligible = {c: [s for s in range(n) if allowed[s] >> c & 1] for c in free}
    for _ in range(_GREEDY_TRIES):
        hands = _greedy(free, eligible, room[:], rng)
        if hands is not None:
            break
    else:
        hands = _matching(free, eligible, room, rng)
    for s in range(n):
        hands[s] |= k.pinned[s]
    hands[k.seat] = k.state.hands[k.seat]
    return hands


def sample_world(k: Knowledge, rng: random.Random) -> HandState:
    """The public state with every hand filled in: a full-information hand to play out."""
    world = k.state.clone()
    world.hands = sample_hands(k, rng)
    world.known = (1 << world.n) - 1
    return world


class Dealer:
    """Deals worlds consistent with one ``Knowledge``, the work that depends on it done once."""

    def __init__(self, k: Knowledge) -> None:
        self.knowledge = k
        n = len(k.counts)
        pinned = 0
        for p in k.pinned:
            pinned |= p
        self.base = [k.pinned[s] for s in range(n)]
        self.base[k.seat] = k.state.hands[k.seat]
        self.room = [k.counts[s] - k.pinned[s].bit_count() for s in range(n)]
        self.room[k.seat] = 0
        allowed = [k.allowed(s) if s != k.seat else 0 for s in range(n)]
        groups: dict[tuple[int, ...], list[int]] = {}
        for c in iter_bits(k.unseen & ~pinned):
            seats = tuple(s for s in range(n) if allowed[s] >> c & 1)
            groups.setdefault(seats, []).append(1 << c)
        self.groups = sorted(groups.items(), key=lambda g: (len(g[0]), g[0]))

    def deal(self, rng: random.Random) -> list[int]:
        """Every seat's current hand in one random world."""
        for _ in range(_GREEDY_TRIES):
            hands = self._deal(rng)
            if hands is not None:
                return hands
        return sample_hands(self.knowledge, rng)

    def _deal(self, rng: random.Random) -> list[int] | None:
        hands = self.base[:]
        room = self.room[:]
        rnd = rng.random
        last = len(self.groups) - 1
        for i, (seats, bits) in enumerate(self.groups):
            if len(seats) == 1:
                (s,) = seats
                if room[s] < len(bits):
                    return None
                room[s] -= len(bits)
                hands[s] |= sum(bits)
                continue
            if i == last and sum(room[s] for s in seats) == len(bits):
                # The seats take exactly what room they have left: a shuffle and a split.
                order = sorted(bits, key=lambda _: rnd())
                at = 0
                for s in seats:
                    if room[s]:
                        hands[s] |= sum(order[at : at + room[s]])
                        at += room[s]
                        room[s] = 0
                continue
            # Each card to a seat with chance in proportion to its room: any order is as good.
            for b in bits:
                total = 0
                for s in seats:
                    total += room[s]
                if not total:
                    return None
                r = rnd() * total
                for s in seats:
                    r -= room[s]
                    if r < 0 and room[s]:
                        break
                room[s] -= 1
                hands[s] |= b
        return hands


def _greedy(
    free: list[int], eligible: dict[int, list[int]], room: list[int], rng: random.Random
) -> list[int] | None:
    order = free[:]
    rng.shuffle(order)
    order.sort(key=lambda c: len(eligible[c]))
    hands = [0] * len(room)
    for c in order:
        seats = [s for s in eligible[c] if room[s]]
        if not seats:
            return None
        s = seats[0] if len(seats) == 1 else rng.choices(seats, [room[s] for s in seats])[0]
        room[s] -= 1
        hands[s] |= 1 << c
    return hands


def _matching(
    free: list[int], eligible: dict[int, list[int]], room: list[int], rng: random.Random
) -> list[int]:
    """A consistent deal by augmenting paths, for the rare knot the greedy pass cannot untie."""
    slots = [s for s in range(len(room)) for _ in range(room[s])]
    owner: list[int | None] = [None] * len(slots)
    order = free[:]
    rng.shuffle(order)

    def place(c: int, seen: set[int]) -> bool:
        for i, s in enumerate(slots):
            if s in eligible[c] and i not in seen:
                seen.add(i)
                held = owner[i]
                if held is None or place(held, seen):
                    owner[i] = c
                    return True
        return False

    for card in order:
        if not place(card, set()):
            raise ValueError("no deal of the unseen cards fits what this seat knows")
    hands = [0] * len(room)
    for i, held in enumerate(owner):
        if held is not None:
            hands[slots[i]] |= 1 << held
    return hands
