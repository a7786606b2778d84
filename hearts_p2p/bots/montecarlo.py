"""The Monte-Carlo bot: deal the unseen cards many ways, play each choice out, keep the best.

It searches as ``montecarlo-v1`` does, with the same rollout policy, but on the fast playouts of
``rollout`` and the ``sampler.Dealer``, so the same time buys several times the worlds. (The
dealer draws its worlds differently from v1's sampler, so a seed gives other worlds than v1's.)
Every world is consistent with what this seat knows, and every candidate card is played out in
the same worlds (common random numbers), so their comparison is not drowned by the luck of the
deal. The rest of the hand is played by the heuristic policy for every seat, and a card is worth
the mean of our points minus the mean of the others' (Hearts is won on the standing, and a moon
hurts by what it gives everyone else). Cards that no unseen card separates are one choice.
Passing and the moon choice use the heuristic.
"""

from __future__ import annotations

from ..cards import CARDS
from ..engine import Action, HandPhase, PlayCard, SeatView
from ..rules import Moon
from .base import check_turn, register
from .candidates import distinct_plays
from .heuristic import choose_moon
from .knowledge import Knowledge, knowledge_of
from .policy import choose_card
from .rollout import Position, play_out, score
from .sampler import Dealer
from .search import MIN_WORLDS, SearchBot

__all__ = ["MonteCarloBot"]

_CLOCK_EVERY = 4  # worlds between looks at the clock


@register("montecarlo")
class MonteCarloBot(SearchBot):
    """Search by sampling; ``samples`` fixes the worlds per move (deterministic), else a budget."""

    name = "montecarlo"

    def choose(self, view: SeatView) -> Action:
        check_turn(view)
        if view.phase is not HandPhase.PLAYING:
            return self.fallback.choose(view)
        k = knowledge_of(view)
        h = k.state
        trick = sum(1 << c for c in h.trick)
        options = distinct_plays(
            h.legal_play_mask(view.seat), h.hands[view.seat], k.unseen | trick, view.rules
        )
        if len(options) == 1:
            return PlayCard(CARDS[options[0]])
        return self.timed(lambda: self._search(view, k, options))

    def _search(self, view: SeatView, k: Knowledge, options: list[int]) -> int:
        deadline = self.deadline()
        # The heuristic's own pick wins ties, so too few worlds cannot make us worse than it.
        default = choose_card(k.state, view.seat, k.forbidden)
        seat = view.seat
        pos = Position.of(k.state, seat)
        t = pos.table
        rules = view.rules
        moon_adds = [
            rules.moon is Moon.CHOICE and choose_moon(rules, view.totals, s) for s in range(t.n)
        ]
        others = t.n - 1
        value = dict.fromkeys(options, 0.0)
        rng = self.rng
        dealer = Dealer(k)
        worlds = 0
        limit = self.samples
        while True:
            if limit is not None:
                if worlds >= limit:
                    break
            elif worlds >= MIN_WORLDS and not worlds % _CLOCK_EVERY and self.clock() >= deadline:
                break
            hands = dealer.deal(rng)
            for c in options:
                points = score(t, play_out(pos, hands[:], c), moon_adds)
                mine = points[seat]
                value[c] += mine - (sum(points) - mine) / others
            worlds += 1
        self.worlds += worlds
        return min(options, key=lambda c: (value[c], c != default))
