"""The ``hint`` command: what the Monte-Carlo bot would do from this seat now, and why, in a line.

The bot sees exactly the player's view, so a hint reveals nothing the player could not know. The
reason is read off the position (ducking, taking, throwing a card away), not from the search, so
it says in the player's terms what the chosen card does.
"""

from __future__ import annotations

from hearts_p2p.bots import GongZhuMonteCarloBot, MonteCarloBot
from hearts_p2p.cards import QUEEN_SPADES, Card, Suit
from hearts_p2p.engine import Action, ChooseMoon, Claim, Expose, PassCards, PlayCard, SeatView
from hearts_p2p.engine.scoring import trick_points

from .render import Style, points_text

__all__ = ["best_action", "hint_line"]


def best_action(view: SeatView) -> tuple[Action, int]:
    """The Monte-Carlo bot's choice for ``view`` and how many deals it searched (slow: a thread)."""
    if view.rules.is_gongzhu:
        gongzhu = GongZhuMonteCarloBot(seed=view.hand_number)
        return gongzhu.choose(view), gongzhu.worlds
    bot = MonteCarloBot(seed=view.hand_number)
    action = bot.choose(view)
    return action, bot.worlds


def hint_line(view: SeatView, action: Action, deals: int, style: Style) -> str:
    """``hint: 4♣ — stays under A♣: the trick goes to someone else (Monte-Carlo, 310 deals)``."""
    source = f"Monte-Carlo, {deals} deals" if deals else "Monte-Carlo bot"
    if isinstance(action, PassCards):
        cards = style.cards(action.cards or ())
        return f"hint: pass {cards} — the cards most likely to take points for you ({source})"
    if isinstance(action, Claim):
        return f"hint: claim — every card of yours wins a trick: take the rest now ({source})"
    if isinstance(action, Expose):
        if not action.cards:
            return f"hint: none — exposing would double what you stand to lose ({source})"
        cards = style.cards(action.cards)
        return f"hint: expose {cards} — doubling their score pays off from your hand ({source})"
    if isinstance(action, ChooseMoon):
        if action.add_to_others:
            return f"hint: a — adding to the others helps your standing most ({source})"
        return f"hint: s — taking the points off your own total helps you most ({source})"
    assert isinstance(action, PlayCard)
    return f"hint: {style.card(action.card)} — {_why(view, action.card, style)} ({source})"


def _why(view: SeatView, card: Card, style: Style) -> str:
    legal = [a.card for a in view.legal if isinstance(a, PlayCard)]
    if len(legal) == 1:
        return "your only playable card"
    trick = view.trick
    if trick is None:
        same = [c for c in view.hand if c.suit == card.suit]
        if card == min(same):
            return f"a low lead: your lowest {style.suit(card.suit)} leaves the trick to others"
        return f"of your leads, {style.suit(card.suit)} costs you least in the deals searched"
    led = trick.led_suit
    if card.suit != led:
        if card == QUEEN_SPADES:
            return "you cannot follow: Q♠ goes to whoever takes this trick"
        if card.suit == Suit.HEARTS:
            return f"you cannot follow {style.suit(led)}: a heart goes to whoever takes the trick"
        return f"you cannot follow {style.suit(led)}: away with a card that could take points later"
    best = max(c for _, c in trick.plays if c.suit == led)
    if card < best:
        return f"stays under {style.card(best)}: the trick goes to someone else"
    points = trick_points(view.rules, sum(1 << c for _, c in trick.plays))
    if len(trick.plays) == view.players - 1:
        taken = points_text(points) if points else "no points"
        return f"you play last: take the trick with {taken} in it"
    return f"takes the trick with {style.card(card)}: staying under would cost more later"
