"""What one Gong Zhu seat knows about the hidden cards, from its ``SeatView`` alone.

The public replay starts from the exposures, so an exposed card is known to be its owner's until
it is played (it is pinned to that seat when worlds are dealt). A seat that did not follow is void
in the led suit; Gong Zhu has no other lead or first-trick rule a play could reveal.
"""

from __future__ import annotations

from ..cards import SUIT_MASKS, mask_of
from ..engine import HandPhase, HandState, SeatView
from .knowledge import Knowledge

__all__ = ["gongzhu_knowledge_of"]


def gongzhu_knowledge_of(view: SeatView) -> Knowledge:
    """Replay ``view``'s Gong Zhu hand in public and collect what the plays revealed."""
    if view.phase not in (HandPhase.PLAYING, HandPhase.SCORED) or not view.rules.is_gongzhu:
        raise ValueError("Gong Zhu knowledge of hidden cards starts once every card is exposed")
    rules = view.rules
    n = rules.players
    seat = view.seat
    plays = [p for t in view.tricks for p in t.plays]
    if view.trick is not None:
        plays.extend(view.trick.plays)
    hands: list[int | None] = [None] * n
    hands[seat] = mask_of(view.hand) | mask_of(c for s, c in plays if s == seat)
    state = HandState.deal(rules, view.hand_number, hands)
    for s, cards in enumerate(view.exposed):
        state.apply_expose(s, mask_of(cards))
    forbidden = [0] * n
    played_count = [0] * n
    for s, c in plays:
        played_count[s] += 1
        if s != seat and state.trick and c // 13 != state.trick[0] // 13:
            forbidden[s] |= SUIT_MASKS[state.trick[0] // 13]
        state.play(s, c)
    unseen = rules.deck_mask & ~state.played & ~state.hands[seat]
    pinned = [(mask_of(e) & unseen) if s != seat else 0 for s, e in enumerate(view.exposed)]
    counts = tuple(rules.cards_each - played_count[s] for s in range(n))
    forbidden[seat] = unseen
    for s in range(n):
        if s != seat:
            forbidden[s] |= _pinned_elsewhere(pinned, s)
    return Knowledge(seat, state, unseen, counts, tuple(forbidden), tuple(pinned))


def _pinned_elsewhere(pinned: list[int], seat: int) -> int:
    m = 0
    for s, p in enumerate(pinned):
        if s != seat:
            m |= p
    return m
