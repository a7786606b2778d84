"""The heuristic's card play, on masks, for any seat of a ``HandState``.

It reads only the seat's own hand and public information, so the heuristic bot uses it on the
public replay of its view and the Monte-Carlo bot uses it for every seat of a sampled world, where
speed matters most. The play follows the notes in RULES.md: duck under the winning card with your
highest card that still loses, never take Q♠ when you can duck, play high while nobody can discard
points yet, flush Q♠ by leading spades below it, dump Q♠ then A♠/K♠ then high hearts when void,
run for the moon only when the remaining tricks are (nearly) sure, and stop a rival's moon by
letting anyone else take a point.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ..cards import HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES, SUIT_MASKS, Suit
from ..engine import HandState
from ..rules import Moon, deck_mask
from .knowledge import POINTS_MASK

__all__ = ["SHOOT_WITH_ONE_LOSER_AT", "STOP_AT", "choose_card", "losers", "moon_shooter"]

_QS_BIT = 1 << QUEEN_SPADES
_JD_BIT = 1 << JACK_DIAMONDS
_SPADES = SUIT_MASKS[Suit.SPADES]
_DIAMONDS = SUIT_MASKS[Suit.DIAMONDS]
_SPADE_GUARDS = (1 << (QUEEN_SPADES + 1)) | (1 << (QUEEN_SPADES + 2))  # K♠ A♠
_LOW_SPADES = _SPADES & ((1 << QUEEN_SPADES) - 1)
_deck = functools.cache(deck_mask)  # Rules.deck_mask rebuilds the mask on every call
# A rival is treated as shooting once it alone holds this many point cards (6 of 14).
STOP_AT = 6
# Run for the moon with one possible loser only after taking this many point cards.
SHOOT_WITH_ONE_LOSER_AT = 10


def _low(m: int) -> int:
    return (m & -m).bit_length() - 1


def _high(m: int) -> int:
    return m.bit_length() - 1


def _below(card: int) -> int:
    """Cards of ``card``'s suit that rank lower."""
    return ((1 << card) - 1) & SUIT_MASKS[card // 13]


def _above(card: int) -> int:
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def losers(hand: int, out: int) -> int:
    """Cards of ``hand`` that some outstanding card (``out``) of their suit beats."""
    n = 0
    for suit_mask in SUIT_MASKS:
        o = out & suit_mask
        if o:
            n += (hand & _below(_high(o))).bit_count()
    return n


def moon_shooter(h: HandState, seat: int) -> int | None:
    """Who, as ``seat`` sees it, is running for the moon: ``seat`` itself, a rival, or nobody."""
    if h.rules.moon is Moon.OFF:
        return None
    who = -1
    for s in range(h.n):
        if h.taken[s] & POINTS_MASK:
            if who >= 0:
                return None
            who = s
    if who < 0 or who == seat:
        return seat if _can_shoot(h, seat) else None
    pts = h.taken[who] & POINTS_MASK
    count = pts.bit_count()
    return who if count >= STOP_AT else None


def _can_shoot(h: HandState, seat: int) -> bool:
    hand = h.hands[seat]
    out = _deck(h.n) & ~h.played & ~hand
    lost = losers(hand, out)
    if lost == 0:
        return bool(h.tricks) or (hand & HEARTS_MASK).bit_count() >= 4
    taken = (h.taken[seat] & POINTS_MASK).bit_count()
    return lost == 1 and taken >= SHOOT_WITH_ONE_LOSER_AT


def choose_card(h: HandState, seat: int, forbidden: Sequence[int] | None = None) -> int:
    """The card ``seat`` plays now.

    ``forbidden`` (per seat, the cards it has shown it cannot hold) lets it see known voids;
    rollouts leave it out for speed.
    """
    legal = h.legal_play_mask(seat)
    if not legal & (legal - 1):
        return _low(legal)
    shooter = moon_shooter(h, seat)
    if h.trick:
        if legal & SUIT_MASKS[h.trick[0] // 13]:
            if shooter == seat:
                return _follow_to_win(h, legal)
            if shooter is not None:
                stop = _follow_to_stop(h, legal, shooter)
                if stop is not None:
                    return stop
            return _follow(h, seat, legal, forbidden)
        if shooter == seat:
            return _low(legal & ~POINTS_MASK or legal)
        if shooter is not None and (_winner(h) == shooter or shooter in _still_to_play(h)):
            return _discard(h, legal & ~POINTS_MASK or legal, seat)
        return _discard(h, legal, seat)
    if shooter == seat:
        return _lead_to_win(h, seat, legal)
    if shooter is not None:
        hearts = legal & HEARTS_MASK
        out = _deck(h.n) & ~h.played & ~h.hands[seat] & HEARTS_MASK
        if hearts and _high(hearts) > _high(out):
            return _high(hearts)
    return _lead(h, seat, legal)


def _winning_card(h: HandState) -> int:
    trick = h.trick
    led = trick[0] // 13
    best = trick[0]
    for c in trick:
        if c // 13 == led and c > best:
            best = c
    return best


def _winner(h: HandState) -> int:
    assert h.trick_leader is not None
    return (h.trick_leader + h.trick.index(_winning_card(h))) % h.n


def _still_to_play(h: HandState) -> list[int]:
    assert h.trick_leader is not None
    return [(h.trick_leader + i) % h.n for i in range(len(h.trick) + 1, h.n)]


def _trick_mask(h: HandState) -> int:
    m = 0
    for c in h.trick:
        m |= 1 << c
    return m


def _follow(h: HandState, seat: int, legal: int, forbidden: Sequence[int] | None) -> int:
    win = _winning_card(h)
    led = win // 13
    last = len(h.trick) == h.n - 1
    if led == Suit.SPADES and legal & _QS_BIT and win > QUEEN_SPADES:
        return QUEEN_SPADES  # someone above it takes Q♠
    if h.rules.jack_of_diamonds and led == Suit.DIAMONDS:
        jack = _follow_for_jack(h, h.hands[seat], legal, win, last)
        if jack is not None:
            return jack
        if legal & ~_JD_BIT:
            legal &= ~_JD_BIT  # never hand J♦ to someone else
    if not h.tricks:
        return _high(legal & ~_QS_BIT or legal)  # no points can come on the first trick
    under = legal & _below(win)
    if under:
        if _safe_to_play_high(h, seat, led, forbidden):
            return _high(legal)
        return _high(under)
    if led == Suit.SPADES:
        legal = legal & ~_QS_BIT or legal  # win with a guard, not with Q♠
        qs_out = not (h.played | h.hands[seat]) & _QS_BIT
        if qs_out and not last:
            return _low(legal)  # the holder of Q♠ may still be forced to drop it on us
    return _high(legal)


def _safe_to_play_high(h: HandState, seat: int, led: int, forbidden: Sequence[int] | None) -> bool:
    """Whether a high card can win this trick at no cost: first round of a minor suit, no points."""
    if led in (Suit.SPADES, Suit.HEARTS) or _trick_mask(h) & (POINTS_MASK | _JD_BIT):
        return False
    suit = SUIT_MASKS[led]
    if h.played & suit & ~_trick_mask(h):
        return False
    behind = _still_to_play(h)
    if forbidden is not None and any(forbidden[s] & suit == suit for s in behind):
        return False
    out = _deck(h.n) & ~h.played & ~h.hands[seat] & suit
    return out.bit_count() >= 2 * len(behind)


def _follow_for_jack(h: HandState, hand: int, legal: int, win: int, last: bool) -> int | None:
    """Take J♦ (−10) when it is safely ours: we are last, or our card cannot be beaten."""
    trick = _trick_mask(h)
    if trick & POINTS_MASK:
        return None
    out = _deck(h.n) & ~h.played & ~hand & _DIAMONDS
    if legal & _JD_BIT and win < JACK_DIAMONDS and (last or not out & _above(JACK_DIAMONDS)):
        return JACK_DIAMONDS
    over = legal & _above(win)
    if trick & _JD_BIT and over and (last or _high(over) > _high(out)):
        return _high(over)
    return None


def _follow_to_win(h: HandState, legal: int) -> int:
    over = legal & _above(_winning_card(h))
    if not over:
        return _low(legal)
    return _low(over) if len(h.trick) == h.n - 1 else _high(over)


def _follow_to_stop(h: HandState, legal: int, shooter: int) -> int | None:
    """Overtake the shooter on a trick with points in it, which costs a little and saves 26."""
    if _winner(h) != shooter or not _trick_mask(h) & POINTS_MASK:
        return None
    over = legal & _above(_winning_card(h))
    return _high(over) if over else None


def _discard(h: HandState, legal: int, seat: int) -> int:
    if legal & _QS_BIT:
        return QUEEN_SPADES
    qs_out = not (h.played | h.hands[seat]) & _QS_BIT
    if qs_out and legal & _SPADE_GUARDS:
        return _high(legal & _SPADE_GUARDS)
    hearts = legal & HEARTS_MASK
    if hearts:
        return _high(hearts)
    if h.rules.jack_of_diamonds and legal & ~_JD_BIT:
        legal &= ~_JD_BIT
    hand = h.hands[seat]
    best, best_score = -1, -1e9
    m = legal
    while m:
        c = _high(m)
        m &= ~SUIT_MASKS[c // 13]
        # The highest card of each suit; prefer high ranks and short suits (to make a void).
        score = (c % 13) * 4 - (hand & SUIT_MASKS[c // 13]).bit_count()
        if score > best_score:
            best, best_score = c, score
    return best


def _lead(h: HandState, seat: int, legal: int) -> int:
    hand = h.hands[seat]
    out = _deck(h.n) & ~h.played & ~hand
    qs_out = bool(out & _QS_BIT)
    flush = legal & _LOW_SPADES
    if qs_out and flush and out & _SPADES & ~_QS_BIT:
        return _high(flush)
    jack = h.rules.jack_of_diamonds and legal & _JD_BIT
    if jack and out & _DIAMONDS and not out & _above(JACK_DIAMONDS):
        return JACK_DIAMONDS
    best, best_risk = -1, 1e9
    for suit in range(4):
        m = legal & SUIT_MASKS[suit]
        if not m:
            continue
        c = _low(m)
        o = out & SUIT_MASKS[suit]
        if not o:
            risk = 50.0 if out & POINTS_MASK else 0.0  # everyone else discards onto it
        else:
            risk = 10.0 * (o & _below(c)).bit_count() / o.bit_count()
            if o.bit_count() < h.n - 1:
                risk += 3.0  # someone is probably void and will discard points
        if suit == Suit.HEARTS:
            risk += 2.0
        elif suit == Suit.SPADES:
            if hand & _QS_BIT:
                risk += 5.0
            elif qs_out and c > QUEEN_SPADES:
                risk += 20.0
        elif jack and c == JACK_DIAMONDS:
            risk += 10.0
        risk -= 0.2 * (4 - (hand & SUIT_MASKS[suit]).bit_count())  # empty short suits first
        if risk < best_risk:
            best, best_risk = c, risk
    return best


def _lead_to_win(h: HandState, seat: int, legal: int) -> int:
    """Lead a sure winner, hearts first once open, to draw the points in."""
    out = _deck(h.n) & ~h.played & ~h.hands[seat]
    order = (Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS)
    for suit in order:
        m = legal & SUIT_MASKS[suit]
        if m and _high(m) > _high(out & SUIT_MASKS[suit]):
            return _high(m)
    return _high(legal)
