"""A searched pass: deal the unseen cards, let the others pass, play the hand out, per candidate.

The heuristic pass rates each card alone; what a pass is worth depends on the whole hand left and
on what comes back. So the candidates (the 3-card sets of the cards the heuristic finds most
dangerous, and for a hand that might run every trick the sets of its weakest cards) are each
played in the same sampled worlds (common random numbers): the other seats' hands dealt from the
unseen cards, their passes the heuristic's, then the whole hand played out by the rollout policy,
once as usual and, for a hand that could shoot, once running for the moon. A candidate is worth
its better plan's mean cost by the game standing; the heuristic's own pass wins ties.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable

from ..cards import HEARTS_MASK, cards_of, iter_bits
from ..engine import HandState
from ..rules import Moon, Rules
from .heuristic import choose_pass, danger, moon_keep
from .policy import choose_card, losers
from .rollout import Position, play_out

__all__ = ["PassSearch", "pass_candidates"]

DANGEROUS = 5  # the candidates are the 3-card sets of this many most dangerous cards
WEAKEST = 4  # and, for a hand that might shoot, of this many weakest cards
MOON_LOSERS = 8  # a hand with at most this many losers before passing is searched for a moon too
PLAN_MARGIN = 0.5  # points a moon plan must beat the usual one by, per world, to be chosen


def pass_candidates(hand: int, rules: Rules) -> tuple[list[int], bool]:
    """The passes worth searching (the heuristic's first), and whether to try a moon plan."""
    cards = cards_of(hand)
    heuristic = choose_pass(hand, rules)
    risky = sorted(cards, key=lambda c: (-danger(c, hand, rules), -c))[:DANGEROUS]
    found = [heuristic]
    found += [sum(1 << c for c in combo) for combo in itertools.combinations(risky, 3)]
    moon = rules.moon is not Moon.OFF and losers(hand, rules.deck_mask & ~hand) <= MOON_LOSERS
    if moon:
        weak = sorted(cards, key=lambda c: (moon_keep(c, hand), c))[:WEAKEST]
        found += [sum(1 << c for c in combo) for combo in itertools.combinations(weak, 3)]
    return list(dict.fromkeys(found)), moon and bool(hand & HEARTS_MASK)


class PassSearch:
    """The worlds of one pass decision: our hand, the unseen cards, and who passes to whom."""

    def __init__(self, rules: Rules, number: int, seat: int, hand: int) -> None:
        self.rules = rules
        self.number = number
        self.seat = seat
        self.hand = hand
        self.unseen = list(iter_bits(rules.deck_mask & ~hand))
        n = rules.players
        self.targets = [rules.pass_target(s, number) for s in range(n)]
        self.no_pass = dataclasses.replace(rules, passing=False)

    def deal(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """One world before the pass: every hand, and every other seat's pass (ours left 0)."""
        order = self.unseen[:]
        rng.shuffle(order)
        n = self.rules.players
        each = self.rules.cards_each
        hands = [0] * n
        passes = [0] * n
        at = 0
        for s in range(n):
            if s == self.seat:
                hands[s] = self.hand
                continue
            hands[s] = sum(1 << c for c in order[at : at + each])
            at += each
            passes[s] = choose_pass(hands[s], self.rules)
        return hands, passes

    def cost(
        self,
        hands: list[int],
        passes: list[int],
        mine: int,
        shoots: int,
        cost: Callable[[list[int]], float],
    ) -> float:
        """Our cost when we pass ``mine`` in this world and the hand is played out."""
        passes = passes[:]
        passes[self.seat] = mine
        after = [h & ~p for h, p in zip(hands, passes, strict=True)]
        for s, target in enumerate(self.targets):
            if target is not None:
                after[target] |= passes[s]
        h = HandState.deal(self.no_pass, self.number, after)
        leader = h.turn
        assert leader is not None
        first = choose_card(h, leader)
        return cost(play_out(Position.of(h, leader), after, first, shoots))
