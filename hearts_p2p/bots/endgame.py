"""The last tricks solved exactly in one world where every hand is known (max-n search).

Late in a hand a playout policy's mistakes decide most of what is left, while the tree is small:
with three cards each there are at most (3!)^4 ways to play the rest. So for the last tricks the
hard bot plays each sampled world out by exact search instead: every seat, in turn, plays the card
that leaves it the lowest cost of the final result (its points minus the mean of the others', ours
by the game standing). Cards that no live card separates are one choice, as in the search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..cards import SUIT_MASKS
from ..rules import Rules
from .candidates import distinct_plays
from .rollout import Position, Table

__all__ = ["ENDGAME_CARDS", "solve"]

ENDGAME_CARDS = 12  # solve exactly once the seats hold this many cards in all

_SUIT_OF = tuple(SUIT_MASKS[c // 13] for c in range(52))
_NOT_HEARTS = ~SUIT_MASKS[3]

Costs = Callable[[list[int]], tuple[float, ...]]


class _Search:
    def __init__(self, t: Table, rules: Rules, costs: Costs) -> None:
        self.t = t
        self.rules = rules
        self.costs = costs

    def trick(
        self,
        hands: list[int],
        taken: list[int],
        hearts_open: bool,
        leader: int,
        plays: Sequence[int],
    ) -> tuple[float, ...]:
        """The costs once the trick led by ``leader``, with ``plays`` made so far, is played out."""
        t = self.t
        n = t.n
        count = len(plays)
        if count == n:
            return self._next(hands, taken, hearts_open, leader, plays)
        seat = (leader + count) % n
        hand = hands[seat]
        if count:
            legal = hand & _SUIT_OF[plays[0]] or hand
        else:
            legal = hand if hearts_open else hand & _NOT_HEARTS or hand
        live = 0
        for s in range(n):
            if s != seat:
                live |= hands[s]
        for c in plays:
            live |= 1 << c
        best: tuple[float, ...] | None = None
        for c in distinct_plays(legal, hand, live, self.rules):
            hands[seat] = hand ^ (1 << c)
            result = self.trick(hands, taken, hearts_open, leader, (*plays, c))
            if best is None or result[seat] < best[seat]:
                best = result
        hands[seat] = hand
        assert best is not None
        return best

    def _next(
        self,
        hands: list[int],
        taken: list[int],
        hearts_open: bool,
        leader: int,
        plays: Sequence[int],
    ) -> tuple[float, ...]:
        t = self.t
        n = t.n
        led = _SUIT_OF[plays[0]]
        win = max(c for c in plays if led >> c & 1)
        winner = (leader + plays.index(win)) % n
        trick = sum(1 << c for c in plays)
        after = taken[:]
        after[winner] |= trick
        hearts_open = hearts_open or bool(trick & t.opens_hearts)
        rest = 0
        for h in hands:
            rest |= h
        if not rest & t.scoring:
            return self.costs(after)
        if not hands[winner] & (hands[winner] - 1):
            # One card each: the highest of the led suit takes them all.
            suit = _SUIT_OF[hands[winner].bit_length() - 1]
            top = (rest & suit).bit_length() - 1
            for s in range(n):
                if hands[s] >> top & 1:
                    after[s] |= rest
            return self.costs(after)
        return self.trick(hands, after, hearts_open, winner, ())


def solve(
    pos: Position, trick: Sequence[int], hands: list[int], card: int, rules: Rules, costs: Costs
) -> float:
    """Our cost (``pos.seat``'s) once it plays ``card`` to ``trick`` (the cards played to it so
    far, in order) and every seat plays the rest best; ``hands`` is left as it was.

    ``costs`` maps the cards each seat took to each seat's cost.
    """
    seat = pos.seat
    search = _Search(pos.table, rules, costs)
    hands = hands[:]
    hands[seat] ^= 1 << card
    plays = (*trick, card)
    return search.trick(hands, list(pos.taken), pos.hearts_open, pos.leader, plays)[seat]
