"""The table's player for a taken-over seat: a few fixed rules every peer computes alike.

Its choices are not sent: each peer and the offline audit compute them from the public state,
so they must be exactly the same everywhere, in every implementation. That is why it is a short
rule list (protocol/SPEC.md 6.12 states it), not one of the search bots, whose choices depend on
sampling and timing. It plays sensibly: it ducks, sheds Q♠ and hearts when void, and passes its
most dangerous cards.
"""

from __future__ import annotations

from ..cards import CLUB_2, HEARTS_MASK, QUEEN_SPADES, SUIT_MASKS
from ..engine import HandState

__all__ = ["table_moon", "table_pass", "table_play"]

_HIGH_SPADES = frozenset({QUEEN_SPADES, QUEEN_SPADES + 1, QUEEN_SPADES + 2})  # Q♠ K♠ A♠


def _ids(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def _rank(card: int) -> int:
    return card % 13


def table_pass(hand: HandState, seat: int) -> list[int]:
    """Q♠, K♠ and A♠ first, then the highest ranks (the higher card id first on a tie)."""
    cards = _ids(hand.hands[seat])
    cards.sort(key=lambda c: (c not in _HIGH_SPADES, -_rank(c), -c))
    return sorted(cards[:3])


def table_play(hand: HandState, seat: int) -> int | None:
    """The card to play, or None when the seat may not play now."""
    if hand.turn is None:
        return CLUB_2 if hand.hands[seat] >> CLUB_2 & 1 else None
    legal = _ids(hand.legal_play_mask(seat))
    if not legal:
        return None
    low = min(legal, key=lambda c: (_rank(c), c))
    high = max(legal, key=lambda c: (_rank(c), c))
    if not hand.trick:
        return low  # lead the lowest card
    led = hand.trick[0] // 13
    if legal[0] // 13 != led:  # void in the led suit: shed the worst card
        if QUEEN_SPADES in legal:
            return QUEEN_SPADES
        hearts = [c for c in legal if 1 << c & HEARTS_MASK]
        return max(hearts) if hearts else high
    top = max(c for c in hand.trick if 1 << c & SUIT_MASKS[led])
    under = [c for c in legal if c < top]
    if under:
        return max(under)  # the highest card that still loses the trick
    last = len(hand.trick) == hand.n - 1
    return high if last else low


def table_moon(hand: HandState, seat: int) -> bool:
    """A moon shot by the table's seat adds to the others (the Microsoft default)."""
    return True
