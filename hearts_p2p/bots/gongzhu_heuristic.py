"""The Gong Zhu heuristic bot: ``gongzhu_policy``'s rules of thumb, no search."""

from __future__ import annotations

from ..cards import CARDS, cards_of, mask_of
from ..engine import Action, Expose, HandPhase, PlayCard, SeatView
from .base import BotError, check_turn, register
from .gongzhu_knowledge import gongzhu_knowledge_of
from .gongzhu_policy import choose_exposure, gongzhu_card

__all__ = ["GongZhuHeuristicBot", "choose_expose"]


def choose_expose(view: SeatView) -> Expose:
    """The exposure to declare: one of ``view.legal``, as ``choose_exposure`` prefers."""
    options = [mask_of(a.cards) for a in view.legal if isinstance(a, Expose)]
    chosen = choose_exposure(mask_of(view.hand), options)
    return Expose(tuple(cards_of(chosen)))


@register("gongzhu-heuristic", gongzhu=True)
class GongZhuHeuristicBot:
    """Rules of thumb. It is deterministic, so ``seed`` is taken only for the common interface."""

    name = "gongzhu-heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: SeatView) -> Action:
        check_turn(view)
        if not view.rules.is_gongzhu:
            raise BotError(f"{self.name} plays Gong Zhu, not {view.rules.game.value}")
        if view.phase is HandPhase.EXPOSE:
            return choose_expose(view)
        k = gongzhu_knowledge_of(view)
        return PlayCard(CARDS[gongzhu_card(k.state, view.seat, k.forbidden)])
