"""The Gong Zhu Monte-Carlo bot: deal the unseen cards many ways, play each choice out.

Every world is consistent with what this seat knows (voids, and each exposed card with its
exposer), dealt by ``sampler.Dealer``; every candidate card is played out in the same worlds
(common random numbers) on the engine itself, every seat playing the Gong Zhu heuristic, and a
playout stops once no scoring card is left to take. A card is worth the mean of our result by the
seed's formula (own score × (N − 1) − the others'), with partners our team's: the game is won on
that. Cards that no live card separates are one choice; the scoring cards are always tried apart.
Exposure uses the heuristic.
"""

from __future__ import annotations

from ..cards import CARDS
from ..engine import (
    GONGZHU_SCORING_MASK,
    Action,
    HandPhase,
    HandState,
    PlayCard,
    SeatView,
    gongzhu_results,
    score_hand,
)
from .base import BotError, check_turn, register
from .gongzhu_heuristic import choose_expose
from .gongzhu_knowledge import gongzhu_knowledge_of
from .gongzhu_policy import gongzhu_card, partner_of
from .knowledge import Knowledge
from .sampler import Dealer
from .search import SearchBot

__all__ = ["GongZhuMonteCarloBot", "distinct_gongzhu_plays", "play_out"]


def distinct_gongzhu_plays(legal: int, unseen_or_in_trick: int) -> list[int]:
    """The legal cards, one of each run of a suit that no live card separates.

    Scoring cards stay apart: they score differently even when they win the same tricks.
    """
    kept: list[int] = []
    prev = -1
    m = legal
    while m:
        c = (m & -m).bit_length() - 1
        m &= m - 1
        if prev >= 0 and prev // 13 == c // 13:
            between = ((1 << c) - 1) & ~((2 << prev) - 1)
            if not between & unseen_or_in_trick and not (1 << c | 1 << prev) & GONGZHU_SCORING_MASK:
                prev = c
                continue
        kept.append(c)
        prev = c
    return kept


def play_out(world: HandState, seat: int, card: int) -> tuple[int, ...]:
    """Each seat's hand score after ``seat`` plays ``card`` and the heuristic plays the rest."""
    h = world.clone()
    h.play(seat, card)
    while h.phase is HandPhase.PLAYING:
        if not h.trick and not GONGZHU_SCORING_MASK & ~h.played:
            return score_hand(h.rules, h.taken, exposed=h.exposed).points
        s = h.turn
        assert s is not None
        h.play(s, gongzhu_card(h, s))
    assert h.result is not None
    return h.result.points


@register("gongzhu-montecarlo", gongzhu=True)
class GongZhuMonteCarloBot(SearchBot):
    """Search by sampling; ``samples`` fixes the worlds per move (deterministic), else a budget."""

    name = "gongzhu-montecarlo"

    def choose(self, view: SeatView) -> Action:
        check_turn(view)
        if not view.rules.is_gongzhu:
            raise BotError(f"{self.name} plays Gong Zhu, not {view.rules.game.value}")
        if view.phase is HandPhase.EXPOSE:
            return choose_expose(view)
        k = gongzhu_knowledge_of(view)
        h = k.state
        trick = sum(1 << c for c in h.trick)
        options = distinct_gongzhu_plays(h.legal_play_mask(view.seat), k.unseen | trick)
        if len(options) == 1:
            return PlayCard(CARDS[options[0]])
        return self.timed(lambda: self._search(view, k, options))

    def _search(self, view: SeatView, k: Knowledge, options: list[int]) -> int:
        deadline = self.deadline()
        # The heuristic's own pick wins ties, so too few worlds cannot make us worse than it.
        default = gongzhu_card(k.state, view.seat, k.forbidden)
        seat = view.seat
        rules = view.rules
        partner = partner_of(rules, seat)
        value = dict.fromkeys(options, 0)
        dealer = Dealer(k)
        world = k.state.clone()
        world.known = (1 << world.n) - 1
        worlds = 0
        while not self.enough(worlds, deadline):
            world.hands = dealer.deal(self.rng)
            for c in options:
                results = gongzhu_results(rules, play_out(world, seat, c))
                value[c] += results[seat] + (results[partner] if partner >= 0 else 0)
            worlds += 1
        self.worlds += worlds
        return max(options, key=lambda c: (value[c], c == default))
