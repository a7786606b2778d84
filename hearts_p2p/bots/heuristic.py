"""The heuristic bot: the strategy notes of RULES.md as rules of thumb, no search.

Passing gives away the cards most likely to take points (Q♠ and its guards when short of low
spades, high hearts, high cards of short suits so as to make a void); a hand that can run every
trick keeps its winners and passes its losers instead. Card play is ``policy.choose_card``.
"""

from __future__ import annotations

from ..cards import CARDS, HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES, SUIT_MASKS, Suit, cards_of
from ..engine import Action, ChooseMoon, HandPhase, PassCards, PlayCard, SeatView
from ..rules import Rules
from .base import check_turn, register
from .knowledge import knowledge_of
from .policy import choose_card, losers

__all__ = ["HeuristicBot", "choose_moon", "choose_pass", "danger", "moon_keep"]

_QS_BIT = 1 << QUEEN_SPADES
_LOW_SPADES = SUIT_MASKS[Suit.SPADES] & ((1 << QUEEN_SPADES) - 1)


def choose_pass(hand: int, rules: Rules) -> int:
    """The 3 cards (as a mask) to pass from ``hand``."""
    cards = cards_of(hand)
    if losers(hand, rules.deck_mask & ~hand) <= 3 and (hand & HEARTS_MASK).bit_count() >= 4:
        rating = {c: -moon_keep(c, hand) for c in cards}  # a moon hand: pass the losers
    else:
        rating = {c: danger(c, hand, rules) for c in cards}
    chosen = sorted(cards, key=lambda c: (-rating[c], -c))[:3]
    return sum(1 << c for c in chosen)


def moon_keep(card: int, hand: int) -> float:
    """How much a moon hand wants to keep ``card``: its top cards in each suit, hearts most."""
    suit = SUIT_MASKS[card // 13]
    higher_out = suit & ~hand & ~((2 << card) - 1)
    return (card % 13) - 20 * higher_out.bit_count() + (5 if card // 13 == Suit.HEARTS else 0)


def danger(card: int, hand: int, rules: Rules) -> float:
    """How likely ``card`` is to take points for us if we keep it."""
    rank = card % 13
    suit = card // 13
    low_spades = (hand & _LOW_SPADES).bit_count()
    if card == QUEEN_SPADES:
        return 100.0 if low_spades <= 3 else -5.0
    if suit == Suit.SPADES:
        if rank > 10:  # K♠ A♠ catch Q♠ unless we hold it with enough low spades to cover
            return 80.0 if low_spades <= 2 or hand & _QS_BIT else 20.0 + rank
        return -20.0  # low spades protect against Q♠
    if rules.jack_of_diamonds and card == JACK_DIAMONDS:
        return -30.0
    length = (hand & SUIT_MASKS[suit]).bit_count()
    if suit == Suit.HEARTS:
        return 2.0 * rank - 4.0 - length
    # High cards of short minor suits go first: that is how voids are made.
    return 2.0 * rank + 4.0 * max(0, 4 - length) - 8.0


def choose_moon(rules: Rules, totals: tuple[int, ...], seat: int) -> bool:
    """The shooter's pick, for its standing: True adds the penalty to the others.

    Adding to the others ends the game sooner, which suits a seat that would win then; taking it
    off our own total keeps the game going, which suits a seat that is behind.
    """
    total = rules.penalty_total
    added = [t + (0 if s == seat else total) for s, t in enumerate(totals)]
    if max(added) >= rules.target:
        return added[seat] == min(added)
    return totals[seat] == min(totals)


@register("heuristic")
class HeuristicBot:
    """Rules of thumb. It is deterministic, so ``seed`` is taken only for the common interface."""

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: SeatView) -> Action:
        check_turn(view)
        if view.phase is HandPhase.PASSING:
            chosen = choose_pass(sum(1 << c for c in view.hand), view.rules)
            return PassCards(tuple(cards_of(chosen)))
        if view.phase is HandPhase.MOON_CHOICE:
            return ChooseMoon(choose_moon(view.rules, view.totals, view.seat))
        k = knowledge_of(view)
        return PlayCard(CARDS[choose_card(k.state, view.seat, k.forbidden)])
