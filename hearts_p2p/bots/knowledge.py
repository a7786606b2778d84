"""What one seat knows about the hidden cards, derived from its ``SeatView`` alone.

Bots replay the public plays into a ``HandState`` that knows only their own hand, and read off
what every play revealed: a seat that did not follow is void in the led suit, a heart led before
hearts were open means only hearts were left, and the cards this seat passed are known to be
with the seat it passed them to until they are played.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..cards import CLUB_2, DECK_MASK, HEARTS_MASK, QUEEN_SPADES, SUIT_MASKS, mask_of
from ..engine import HandPhase, HandState, SeatView

__all__ = ["POINTS_MASK", "Knowledge", "knowledge_of"]

POINTS_MASK = HEARTS_MASK | (1 << QUEEN_SPADES)


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The public state of the hand plus every constraint on the cards this seat cannot see."""

    seat: int
    state: HandState  # the hand replayed with only this seat's cards known
    unseen: int  # cards in the other seats' hands
    counts: tuple[int, ...]  # cards each seat still holds
    forbidden: tuple[int, ...]  # per seat: cards it has shown it cannot hold
    pinned: tuple[int, ...]  # per seat: unseen cards it must hold (what this seat passed it)

    def allowed(self, seat: int) -> int:
        """The unseen cards ``seat`` might hold."""
        return self.unseen & ~self.forbidden[seat]


def knowledge_of(view: SeatView) -> Knowledge:
    """Replay ``view``'s hand in public and collect what the plays revealed."""
    if view.phase not in (HandPhase.PLAYING, HandPhase.MOON_CHOICE, HandPhase.SCORED):
        raise ValueError("knowledge of hidden cards starts once the cards are passed")
    rules = view.rules
    n = rules.players
    seat = view.seat
    plays = [p for t in view.tricks for p in t.plays]
    if view.trick is not None:
        plays.extend(view.trick.plays)
    mine_played = mask_of(c for s, c in plays if s == seat)
    hands: list[int | None] = [None] * n
    hands[seat] = mask_of(view.hand) | mine_played
    # The pass is already reflected in the view's hand, so the replay starts at the first lead.
    state = HandState.deal(dataclasses.replace(rules, passing=False), view.hand_number, hands)
    forbidden = [0] * n
    played_count = [0] * n
    for s, c in plays:
        played_count[s] += 1
        if s != seat:
            forbidden[s] |= _revealed(state, c) & DECK_MASK
        state.play(s, c)
    unseen = rules.deck_mask & ~state.played & ~state.hands[seat]
    pinned = [0] * n
    if view.pass_target is not None and view.passed:
        pinned[view.pass_target] = mask_of(view.passed) & unseen
    counts = tuple(rules.cards_each - played_count[s] for s in range(n))
    forbidden[seat] = unseen
    return Knowledge(seat, state, unseen, counts, tuple(forbidden), tuple(pinned))


def _revealed(state: HandState, card: int) -> int:
    """Cards the player of ``card`` cannot have held, given that the play was legal."""
    bit = 1 << card
    first = not state.tricks
    if state.trick:
        led = state.trick[0] // 13
        if card // 13 == led:
            return 0
        # Off suit: void in the led suit, and on the first trick a point card means nothing else.
        return SUIT_MASKS[led] | (~POINTS_MASK if first and bit & POINTS_MASK else 0)
    if first:
        if state.rules.deck_mask >> CLUB_2 & 1:  # 2♣ leads: it tells nothing
            return 0
        if bit & HEARTS_MASK:
            return ~HEARTS_MASK
        return ~POINTS_MASK if bit & POINTS_MASK else 0
    if bit & HEARTS_MASK and not state.hearts_open:
        return ~HEARTS_MASK
    return 0
