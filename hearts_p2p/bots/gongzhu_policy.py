"""The Gong Zhu heuristic, on masks, for any seat of a ``HandState``: exposure and card play.

It reads only the seat's own hand and public information (exposures included), so the heuristic
bot uses it on the public replay of its view and the Monte-Carlo bot for every seat of a sampled
world. The rules of thumb: expose a card only with the cover to keep it safe (the pig with length
in spades, the sheep with the diamonds above it); capture the sheep when no diamond above it is
out and hunt it with top diamonds; flush the pig by leading spades below it; drop the pig on a
higher spade; take 10♣ only onto a positive score and hand it to a seat that is losing; dump the
pig, K♠ A♠ while the pig is out, and high hearts when void; duck otherwise. With partners the
partner counts as ourselves. Gong Zhu scores go up for the good cards, so a card's *gain* for a
seat is its score after taking the cards minus before (exact, exposures and 10♣ included).
"""

from __future__ import annotations

from ..cards import ACE_HEARTS, JACK_DIAMONDS, QUEEN_SPADES, SUIT_MASKS, TEN_CLUBS, Suit
from ..engine import GONGZHU_SCORING_MASK, HandState, gongzhu_points
from ..rules import Rules

__all__ = ["choose_exposure", "gongzhu_card", "partner_of"]

_QS = 1 << QUEEN_SPADES
_JD = 1 << JACK_DIAMONDS
_TC = 1 << TEN_CLUBS
_AH = 1 << ACE_HEARTS
_CLUBS, _DIAMONDS, _SPADES, _HEARTS = SUIT_MASKS
_GUARDS = (1 << (QUEEN_SPADES + 1)) | (1 << (QUEEN_SPADES + 2))  # K♠ A♠
_LOW_SPADES = _SPADES & (_QS - 1)
_ABOVE_JD = _DIAMONDS & ~((_JD << 1) - 1)
_LOW_CLUBS = _CLUBS & (_TC - 1)
_BAD = GONGZHU_SCORING_MASK & ~_JD & ~_TC  # hearts and the pig
# The colour of each suit (♣ ♠ black, ♦ ♥ red), as the mask of that colour's cards.
_COLOUR = (_CLUBS | _SPADES, _DIAMONDS | _HEARTS, _CLUBS | _SPADES, _DIAMONDS | _HEARTS)


def _low(m: int) -> int:
    return (m & -m).bit_length() - 1


def _high(m: int) -> int:
    return m.bit_length() - 1


def _below(card: int) -> int:
    return ((1 << card) - 1) & SUIT_MASKS[card // 13]


def _above(card: int) -> int:
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def partner_of(rules: Rules, seat: int) -> int:
    """The seat across with 打对家, else -1 (nobody)."""
    return (seat + 2) % 4 if rules.partners else -1


# -- exposure ------------------------------------------------------------------------------------


def choose_exposure(hand: int, legal: list[int]) -> int:
    """Of the ``legal`` exposures (masks), the one closest to what this hand wants to show.

    The pig is shown with five spades or more, three of them below it, so that it can be held
    until it can be dropped on someone else at double cost; the sheep when at most one diamond
    above it is out of our hand and we hold three diamonds, so we will likely take it ourselves
    at double gain, and then 10♣ too (it will double a positive score). A♥ never: it takes the
    first heart trick it is played to, and its holder usually takes the hearts it doubles.
    """
    spades = hand & _SPADES
    diamonds = hand & _DIAMONDS
    want = 0
    if hand & _QS and spades.bit_count() >= 5 and (spades & _LOW_SPADES).bit_count() >= 3:
        want |= _QS
    if hand & _JD and (_ABOVE_JD & ~hand).bit_count() <= 1 and diamonds.bit_count() >= 3:
        want |= _JD
        if hand & _TC and (hand & _LOW_CLUBS).bit_count() >= 2:
            want |= _TC
    return min(legal, key=lambda m: ((m ^ want).bit_count(), m))


# -- card play -----------------------------------------------------------------------------------


def _gain(h: HandState, seat: int, cards: int) -> int:
    """How much ``seat``'s score changes if it takes ``cards`` on top of what it has taken."""
    if not cards & GONGZHU_SCORING_MASK:
        return 0
    before = h.taken[seat]
    return gongzhu_points(h.rules, before | cards, h.exposed) - gongzhu_points(
        h.rules, before, h.exposed
    )


def _trick_mask(h: HandState) -> int:
    m = 0
    for c in h.trick:
        m |= 1 << c
    return m


def _winning_index(h: HandState, trick: list[int]) -> int:
    """The index of the card winning ``trick`` so far (under 同色垫牌, the first off-colour one)."""
    led = trick[0] // 13
    if h.rules.same_colour_discard:
        for i, c in enumerate(trick):
            if (c // 13 ^ led) & 1:
                return i
    best = 0
    for i, c in enumerate(trick):
        if c // 13 == led and c > trick[best]:
            best = i
    return best


def _takes(h: HandState, card: int) -> bool:
    """Whether ``card`` would win the trick so far."""
    return _winning_index(h, [*h.trick, card]) == len(h.trick)


def _winner_seat(h: HandState) -> int:
    """The seat winning the trick so far."""
    assert h.trick_leader is not None
    return (h.trick_leader + _winning_index(h, h.trick)) % h.n


def gongzhu_card(h: HandState, seat: int, forbidden: tuple[int, ...] | None = None) -> int:
    """The card ``seat`` plays now (one of its legal plays)."""
    legal = h.legal_play_mask(seat)
    if not legal & (legal - 1):
        return _low(legal)
    if not h.trick:
        return _lead(h, seat, legal)
    if legal & SUIT_MASKS[h.trick[0] // 13]:
        return _follow(h, seat, legal, forbidden)
    return _discard(h, seat, legal)


def _out(h: HandState, seat: int) -> int:
    return h.rules.deck_mask & ~h.played & ~h.hands[seat]


def _lead(h: HandState, seat: int, legal: int) -> int:
    hand = h.hands[seat]
    out = _out(h, seat)
    if legal & _JD and not out & _ABOVE_JD:
        return JACK_DIAMONDS  # nothing can take the sheep from us
    top_diamond = legal & _DIAMONDS & ~_JD
    if out & _JD and top_diamond and _high(top_diamond) > _high(out & _DIAMONDS):
        return _high(top_diamond)  # hunt the sheep: strip its holder's diamonds
    flush = legal & _LOW_SPADES
    if out & _QS and flush and out & _SPADES & ~_QS:
        return _high(flush)  # flush the pig
    best, best_risk = -1, 1e9
    n = h.n
    for suit in range(4):
        m = legal & SUIT_MASKS[suit]
        if not m:
            continue
        c = _low(m & ~(_QS | _JD | _TC) or m)
        o = out & SUIT_MASKS[suit]
        if not o:
            risk = 50.0 if out & _BAD else 0.0
        else:
            risk = 10.0 * (o & _below(c)).bit_count() / o.bit_count()
            if o.bit_count() < n - 1:
                risk += 3.0
        if suit == Suit.HEARTS:
            risk += 2.0 + (c % 13 > 2) * 4.0
        elif suit == Suit.SPADES:
            if hand & _QS:
                risk += 5.0
            elif out & _QS and c > QUEEN_SPADES:
                risk += 20.0
        elif suit == Suit.CLUBS and c == TEN_CLUBS:
            risk += 8.0
        elif suit == Suit.DIAMONDS and c == JACK_DIAMONDS:
            risk += 10.0
        risk -= 0.2 * (4 - (hand & SUIT_MASKS[suit]).bit_count())
        if risk < best_risk:
            best, best_risk = c, risk
    return best


def _sure(h: HandState, seat: int, card: int, last: bool) -> bool:
    """Whether ``card`` keeps the trick: we play last, or nothing out beats it in its suit."""
    return last or not _out(h, seat) & _above(card)


def _follow(h: HandState, seat: int, legal: int, forbidden: tuple[int, ...] | None) -> int:
    led = h.trick[0] // 13
    legal &= SUIT_MASKS[led]
    if not legal & (legal - 1):
        return _low(legal)
    last = len(h.trick) == h.n - 1
    trick = _trick_mask(h)
    special = _special_follow(h, seat, legal, last, trick)
    if special is not None:
        return special
    return _plain_follow(h, seat, legal, led, last, trick, forbidden)


def _special_follow(h: HandState, seat: int, legal: int, last: bool, trick: int) -> int | None:
    """The pig, the sheep or the transformer, where following with it pays; else None."""
    partner = partner_of(h.rules, seat)
    ws = _winner_seat(h)
    if legal & _QS and not _takes(h, QUEEN_SPADES) and ws != partner:
        return QUEEN_SPADES  # a higher spade takes the pig
    if legal & _JD:
        if _takes(h, JACK_DIAMONDS) and _sure(h, seat, JACK_DIAMONDS, last):
            return JACK_DIAMONDS
        if ws == partner and not _takes(h, JACK_DIAMONDS) and last:
            return JACK_DIAMONDS
    if legal & _TC:
        mine = _gain(h, seat, trick | _TC)
        if _takes(h, TEN_CLUBS):
            if mine > 0 and _sure(h, seat, TEN_CLUBS, last):
                return TEN_CLUBS
        elif ws != partner and _gain(h, ws, trick | _TC) < 0 and last:
            return TEN_CLUBS  # doubles a losing score
    return None


def _plain_follow(
    h: HandState,
    seat: int,
    legal: int,
    led: int,
    last: bool,
    trick: int,
    forbidden: tuple[int, ...] | None,
) -> int:
    """Following suit with anything but the sheep and the transformer, where it can."""
    rest = legal & ~(_JD | _TC) or legal
    taking = [c for c in _bits(rest) if _takes(h, c)]
    # A trick worth having (the sheep, or 10♣ onto a good score): take it if it stays ours.
    if taking and _gain(h, seat, trick | (1 << taking[0])) > 0:
        sure = [c for c in taking if _sure(h, seat, c, last)]
        if sure:
            return sure[0] if last else sure[-1]
    under = rest & ~_mask(taking)
    if under:
        if not trick & GONGZHU_SCORING_MASK and _safe_to_play_high(h, seat, led, forbidden):
            return _high(rest & ~_QS or rest)
        return _high(under & ~_QS or under)  # the pig under a partner's spade: keep it
    rest = rest & ~_QS or rest
    if led == Suit.SPADES and _out(h, seat) & _QS and not last:
        return _low(rest)  # the pig's holder may still drop it on a higher spade
    return _high(rest)


def _bits(m: int) -> list[int]:
    out = []
    while m:
        c = _low(m)
        out.append(c)
        m &= m - 1
    return out


def _mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _safe_to_play_high(
    h: HandState, seat: int, led: int, forbidden: tuple[int, ...] | None
) -> bool:
    """Whether a high card can take this trick at no cost: the first round of a minor suit."""
    if led in (Suit.SPADES, Suit.HEARTS) or h.suits_led >> led & 1:
        return False
    assert h.trick_leader is not None
    behind = [(h.trick_leader + i) % h.n for i in range(len(h.trick) + 1, h.n)]
    suit = SUIT_MASKS[led]
    if forbidden is not None and any(forbidden[s] & suit == suit for s in behind):
        return False
    out = _out(h, seat) & suit
    return out.bit_count() >= 2 * len(behind)


def _discard(h: HandState, seat: int, legal: int) -> int:
    led = h.trick[0] // 13
    partner = partner_of(h.rules, seat)
    trick = _trick_mask(h)
    if h.rules.same_colour_discard and not trick & ~_COLOUR[led]:
        off = legal & ~_COLOUR[led]
        same = legal & _COLOUR[led]
        if off & _JD and _gain(h, seat, trick | _JD) > 0:
            return JACK_DIAMONDS  # an off-colour discard takes the trick: take the sheep with it
        if not same:
            return _least_harm(h, seat, legal, trick)
        legal = same
    ws = _winner_seat(h)
    if ws == partner:
        if legal & _JD:
            return JACK_DIAMONDS
        return _shed(h, seat, legal & ~_BAD & ~_TC or legal)
    if legal & _QS:
        return QUEEN_SPADES
    if _out(h, seat) & _QS and legal & _GUARDS:
        return _high(legal & _GUARDS)
    if legal & _TC and _gain(h, ws, trick | _TC) < 0:
        return TEN_CLUBS
    hearts = legal & _HEARTS
    if hearts & _AH:
        return ACE_HEARTS
    keep = legal & ~_JD & ~_TC or legal
    if hearts and _high(hearts) % 13 >= 3:
        return _high(hearts)
    return _shed(h, seat, keep)


def _least_harm(h: HandState, seat: int, legal: int, trick: int) -> int:
    """The card to take a trick with: the one our score minds least."""
    return max(_bits(legal), key=lambda c: (_gain(h, seat, trick | 1 << c), c % 13))


def _shed(h: HandState, seat: int, legal: int) -> int:
    """The highest card of a short suit: high cards take tricks later, short suits make voids."""
    hand = h.hands[seat]
    best, best_score = -1, -1e9
    m = legal
    while m:
        c = _high(m)
        m &= ~SUIT_MASKS[c // 13]
        score = (c % 13) * 4 - (hand & SUIT_MASKS[c // 13]).bit_count()
        if score > best_score:
            best, best_score = c, score
    return best
