"""The last tricks solved exactly in one world where every hand is known (max-n search).

Late in a hand a playout policy's mistakes decide most of what is left, while the tree is small:
with three cards each there are at most (3!)^4 ways to play the rest. So for the last tricks the
hard bot plays each sampled world out by exact search instead: every seat, in turn, plays the card
that leaves it the lowest cost of the final result (its points minus the mean of the others', ours
by the game standing). Cards that no live card separates are one choice, as in the search.

One ``Endgame`` serves a whole decision, so what its worlds share is worked out once: the worlds
repeat (few ways remain to deal a dozen cards), positions at a trick's start recur across worlds
and candidate cards, and the result's costs depend only on who took which point card. Each is
remembered; the search itself runs on ints and allocates nothing per card.
"""

from __future__ import annotations

from collections.abc import Callable

from ..cards import HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES, SUIT_MASKS
from ..rules import Rules
from .rollout import Position

__all__ = ["ENDGAME_CARDS", "Endgame"]

ENDGAME_CARDS = 12  # solve exactly once the seats hold this many cards in all

_SUIT_OF = tuple(SUIT_MASKS[c // 13] for c in range(52))
_NOT_HEARTS = ~HEARTS_MASK

Costs = Callable[[list[int]], tuple[float, ...]]


class Endgame:
    """Exact solves of one decision's worlds: ``pos.seat`` to play to ``trick`` (in order)."""

    def __init__(self, pos: Position, trick: tuple[int, ...], rules: Rules, costs: Costs) -> None:
        t = pos.table
        self.pos = pos
        self.n = t.n
        self.costs = costs
        self.scoring = t.scoring
        self.opens = t.opens_hearts
        # Cards that score apart from their neighbours are never folded into a run.
        self.special = 1 << QUEEN_SPADES
        if rules.jack_of_diamonds:
            self.special |= 1 << JACK_DIAMONDS
        if rules.spot_hearts:
            self.special |= HEARTS_MASK
        self.trick = trick
        self.tmask = sum(1 << c for c in trick)
        self.led = _SUIT_OF[trick[0]] if trick else 0
        win = max((c for c in trick if self.led >> c & 1), default=-1)
        self.top = 1 << win if win >= 0 else 0
        self.winner = (pos.leader + trick.index(win)) % t.n if trick else pos.seat
        self.worlds: dict[tuple[int, ...], float] = {}
        self.starts: dict[tuple[object, ...], tuple[float, ...]] = {}
        self.leaves: dict[tuple[int, ...], tuple[float, ...]] = {}

    def solve(self, hands: list[int], card: int) -> float:
        """Our cost once we play ``card`` and every seat plays the rest best; ``hands`` (every
        seat's cards, ours with ``card``) is left as it was."""
        pos = self.pos
        seat = pos.seat
        key = (*hands, card)
        known = self.worlds.get(key)
        if known is not None:
            return known
        hands = hands[:]
        bit = 1 << card
        hands[seat] ^= bit
        count = len(self.trick)
        if count:
            led, top, winner = self.led, self.top, self.winner
            if bit & led and bit > top:
                top, winner = bit, seat
        else:
            led, top, winner = _SUIT_OF[card], bit, seat
        value = self._after(
            hands, list(pos.taken), pos.hearts_open, pos.leader, count + 1, self.tmask | bit,
            led, top, winner,
        )[seat]  # fmt: skip
        self.worlds[key] = value
        return value

    def _play(
        self,
        hands: list[int],
        taken: list[int],
        hearts_open: bool,
        leader: int,
        count: int,
        tmask: int,
        led: int,
        top: int,
        winner: int,
    ) -> tuple[float, ...]:
        """The costs once the seat ``count`` places after ``leader`` plays its best card to the
        trick ``tmask`` (``led`` its suit, ``top`` its winning card, won by ``winner``)."""
        n = self.n
        seat = (leader + count) % n
        hand = hands[seat]
        legal = hand & led or (hand if count or hearts_open else hand & _NOT_HEARTS or hand)
        live = tmask
        for s in range(n):
            if s != seat:
                live |= hands[s]
        special = self.special
        best: tuple[float, ...] | None = None
        prev = 0
        while legal:
            bit = legal & -legal
            legal ^= bit
            # One of each run of its suit that no live card separates.
            if (
                prev
                and not live & (bit - 1) & ~(prev - 1)
                and not (bit | prev) & special
                and _SUIT_OF[prev.bit_length() - 1] & bit
            ):
                prev = bit
                continue
            prev = bit
            hands[seat] = hand ^ bit
            if count:
                if bit & led and bit > top:
                    result = self._after(hands, taken, hearts_open, leader, count + 1,
                                         tmask | bit, led, bit, seat)  # fmt: skip
                else:
                    result = self._after(hands, taken, hearts_open, leader, count + 1,
                                         tmask | bit, led, top, winner)  # fmt: skip
            else:
                card = bit.bit_length() - 1
                result = self._after(hands, taken, hearts_open, leader, 1, bit, _SUIT_OF[card],
                                     bit, seat)  # fmt: skip
            if best is None or result[seat] < best[seat]:
                best = result
        hands[seat] = hand
        assert best is not None
        return best

    def _after(
        self,
        hands: list[int],
        taken: list[int],
        hearts_open: bool,
        leader: int,
        count: int,
        tmask: int,
        led: int,
        top: int,
        winner: int,
    ) -> tuple[float, ...]:
        """The costs once ``count`` cards are in the trick: the next play, or the next trick."""
        n = self.n
        if count < n:
            return self._play(hands, taken, hearts_open, leader, count, tmask, led, top, winner)
        rest = 0
        for h in hands:
            rest |= h
        scoring = self.scoring
        taken[winner] |= tmask
        try:
            if not rest & scoring:
                return self._leaf(taken)
            last = hands[winner]
            if not last & (last - 1):
                # One card each: the highest of the led suit takes them all.
                high = 1 << ((rest & _SUIT_OF[last.bit_length() - 1]).bit_length() - 1)
                for s in range(n):
                    if hands[s] & high:
                        taken[s] |= rest
                        result = self._leaf(taken)
                        taken[s] ^= rest
                        return result
            hearts_open = hearts_open or bool(tmask & self.opens)
            key = (*hands, *[x & scoring for x in taken], winner, hearts_open)
            known = self.starts.get(key)
            if known is None:
                known = self._play(hands, taken, hearts_open, winner, 0, 0, 0, 0, winner)
                self.starts[key] = known
            return known
        finally:
            taken[winner] ^= tmask

    def _leaf(self, taken: list[int]) -> tuple[float, ...]:
        """The costs of the final result: they depend only on who took the cards that score."""
        scoring = self.scoring
        key = tuple(x & scoring for x in taken)
        known = self.leaves.get(key)
        if known is None:
            known = self.leaves[key] = self.costs(list(key))
        return known
