"""The first Monte-Carlo bot, kept unchanged as ``montecarlo-v1``: the baseline for every gain.

It deals the unseen cards many ways, plays each choice out and keeps the best.

Every world is consistent with what this seat knows (``sampler``); all candidate cards are tried in
the same worlds, so their comparison is not drowned by the luck of the deal. The rest of the hand
is played by the heuristic policy for every seat, and a card is worth the mean of our points
minus the mean of the others' (Hearts is won on the standing, and a moon hurts by what it gives
everyone else). Cards that no unseen card separates are one choice. Passing and the moon choice
use the heuristic. Its decisions for a seed and sample count are pinned by a test, so that a
change to the code it shares (knowledge, sampler, policy) cannot move the baseline unnoticed.
"""

from __future__ import annotations

from ..cards import CARDS
from ..engine import Action, HandPhase, HandState, PlayCard, SeatView, score_hand
from .base import check_turn, register
from .candidates import distinct_plays
from .heuristic import choose_moon
from .knowledge import Knowledge, knowledge_of
from .policy import choose_card
from .sampler import sample_world
from .search import SearchBot

__all__ = ["MonteCarloV1Bot"]


@register("montecarlo-v1")
class MonteCarloV1Bot(SearchBot):
    """Search by sampling; ``samples`` fixes the worlds per move (deterministic), else a budget."""

    name = "montecarlo-v1"

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
        value = {c: 0.0 for c in options}
        worlds = 0
        while not self.enough(worlds, deadline):
            world = sample_world(k, self.rng)
            for c in options:
                value[c] += _play_out(world, view.seat, c, view.totals)
            worlds += 1
        self.worlds += worlds
        return min(options, key=lambda c: (value[c], c != default))


def _play_out(world: HandState, seat: int, card: int, totals: tuple[int, ...]) -> float:
    """Our points minus the others' mean after playing ``card`` and the heuristic to the end."""
    h = world.clone()
    h.play(seat, card)
    while h.phase is HandPhase.PLAYING:
        s = h.turn
        assert s is not None
        h.play(s, choose_card(h, s))
    result = h.result
    assert result is not None
    if h.phase is HandPhase.MOON_CHOICE and result.moon is not None:
        add = choose_moon(h.rules, totals, result.moon)
        result = score_hand(h.rules, h.taken, add_to_others=add)
    points = result.points
    mine = points[seat]
    return mine - (sum(points) - mine) / (h.n - 1)
