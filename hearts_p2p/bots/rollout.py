"""Playouts built for simulation: the rest of a hand, every seat playing the heuristic, on ints.

The Monte-Carlo search spends almost all its time here, thousands of playouts per move, so this
is the engine's play loop and ``policy.choose_card`` rewritten for speed and nothing else: the
state lives in local ints (hands, cards played, led suit, winning card), cards are bits, the
legal cards are one mask expression, a forced card needs no policy call, nothing is allocated per
card, the last trick is settled at once, and a playout stops as soon as no card that scores is
left to play. Tests check that it plays and scores exactly as the engine with
``policy.choose_card`` does.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES, SUIT_MASKS
from ..engine import HandState
from ..rules import Moon, Rules
from .knowledge import POINTS_MASK
from .policy import SHOOT_WITH_ONE_LOSER_AT, STOP_AT

__all__ = ["Position", "Table", "play_out", "score", "table_of"]

_QS = 1 << QUEEN_SPADES
_JD = 1 << JACK_DIAMONDS
_CLUBS, _DIAMONDS, _SPADES, _HEARTS = SUIT_MASKS
_GUARDS = (1 << (QUEEN_SPADES + 1)) | (1 << (QUEEN_SPADES + 2))  # K♠ A♠
_LOW_SPADES = _SPADES & (_QS - 1)
_ABOVE_JD = _DIAMONDS & ~((_JD << 1) - 1)
_NOT_POINTS = ~POINTS_MASK
_NOT_HEARTS = ~HEARTS_MASK
_SUIT_OF = tuple(SUIT_MASKS[c // 13] for c in range(52))
# ``policy._lead``'s risk of leading under ``below`` of ``k`` outstanding cards of the suit, and
# its bonus for a short suit of ``length``, computed once by the policy's own arithmetic.
_RISKS = {
    n: tuple(
        tuple(10.0 * below / k + (3.0 if k < n - 1 else 0.0) for below in range(k + 1)) if k else ()
        for k in range(14)
    )
    for n in range(3, 7)
}
_SHORT = tuple(0.2 * (4 - length) for length in range(14))
# For each table size and leader: (place in the trick, seat) of the seats that follow the lead.
_FOLLOWERS = {
    n: tuple(tuple((i, (leader + i) % n) for i in range(1, n)) for leader in range(n))
    for n in range(3, 7)
}
_MINORS = _CLUBS | _DIAMONDS
# Bit k of a heart's rank, over the 13 hearts: spot values add up by weighted bit counts.
_RANK_BIT = tuple(sum(1 << (39 + r) for r in range(13) if r >> k & 1) for k in range(4))


@dataclass(frozen=True, slots=True)
class Table:
    """What a playout needs of the rules, read once per rules value."""

    n: int
    deck: int
    cards_each: int
    jack: bool
    moon: Moon
    queen_breaks_hearts: bool
    spot: bool
    queen_points: int
    penalty_total: int
    scoring: int  # the cards that change a score: hearts, Q♠, and J♦ when it counts
    opens_hearts: int  # the cards that open hearts for leading: hearts, and Q♠ if it breaks them


@functools.cache
def table_of(rules: Rules) -> Table:
    return Table(
        rules.players,
        rules.deck_mask,
        rules.cards_each,
        rules.jack_of_diamonds,
        rules.moon,
        rules.queen_breaks_hearts,
        rules.spot_hearts,
        rules.queen_points,
        rules.penalty_total,
        POINTS_MASK | (_JD if rules.jack_of_diamonds else 0),
        HEARTS_MASK | (_QS if rules.queen_breaks_hearts else 0),
    )


@dataclass(frozen=True, slots=True)
class Position:
    """The public state of a hand at ``seat``'s turn, in the shape ``play_out`` reads."""

    table: Table
    seat: int
    played: int
    start: int  # the cards played before the trick in progress
    taken: tuple[int, ...]
    pts_seats: int  # the seats that have taken points, as bits
    tricks_done: int
    hearts_open: bool
    plays_in_trick: int
    leader: int  # of the trick in progress (``seat`` when it leads)
    led: int  # the suit led, as a mask (0 when ``seat`` leads)
    win: int  # the card winning the trick so far (-1 when ``seat`` leads)
    winner: int

    @classmethod
    def of(cls, h: HandState, seat: int) -> Position:
        n = h.n
        leader = winner = h.trick_leader if h.trick_leader is not None else seat
        start = h.played
        led = 0
        win = -1
        for i, c in enumerate(h.trick):
            start &= ~(1 << c)
            if i == 0:
                win, led = c, SUIT_MASKS[c // 13]
            elif led >> c & 1 and c > win:
                win, winner = c, (leader + i) % n
        pts_seats = sum(1 << s for s, x in enumerate(h.taken) if x & POINTS_MASK)
        return cls(
            table_of(h.rules), seat, h.played, start, tuple(h.taken), pts_seats, len(h.tricks),
            h.hearts_open, len(h.trick), leader, led, win, winner,
        )  # fmt: skip


def play_out(
    pos: Position,
    hands: list[int],
    card: int,
    shoots: int = -1,
    watched: int = -1,
    watchers: int = -1,
) -> list[int]:
    """The cards each seat has taken once ``pos.seat`` plays ``card`` and the rest is played.

    ``hands`` holds every seat's cards; the playout uses it up. Seat ``shoots`` (if any) runs for
    the moon whatever its cards, for as long as nobody else has taken a point: the playout of a
    moon attempt, or of a rival's that we must stop. The seats of ``watchers`` (a mask, every
    seat unless told) defend against seat ``watched`` (if any) from the first card, not only once
    it has taken ``STOP_AT`` points, and keep their stoppers (``_moon_play``'s ``keep``): the
    playout of a hunt that the defence has seen coming. A hunt that only we have seen is played
    out with ``watchers`` ours alone: the other seats wait for its points as the policy does.

    One function on purpose (radon grades it F): it is the bots' hot loop, run thousands of
    times a decision, and each call or attribute lookup a split would add costs there; locals
    stand in for globals and attributes below for the same reason (``hearts bench bots``).
    """
    t = pos.table
    n = t.n
    deck = t.deck
    moon = t.moon is not Moon.OFF
    opens = t.opens_hearts
    scoring = t.scoring
    suit_of = _SUIT_OF
    points_mask = POINTS_MASK
    not_points = _NOT_POINTS
    not_hearts = _NOT_HEARTS
    followers = _FOLLOWERS[n]
    taken = list(pos.taken)
    played = pos.played
    start = pos.start
    first = pos.tricks_done == 0
    left = t.cards_each - pos.tricks_done
    hearts_open = pos.hearts_open
    leader = pos.leader
    pts_seats = pos.pts_seats
    # Whether anyone may be running for the moon: nobody, or only one seat, has taken points;
    # and the one seat that has, if it has taken enough that the others must stop it.
    watch = moon and not pts_seats & (pts_seats - 1)
    rival = _rival(taken, pts_seats, watched) if watch else -1
    if watched < 0:
        watchers = 0
    # The rival of the seats that do not watch: the same one unless a hunt is watched.
    unseen = _rival(taken, pts_seats, -1) if watch and watched >= 0 else rival
    seat = pos.seat
    bit = 1 << card
    hands[seat] ^= bit
    played |= bit
    if pos.plays_in_trick:
        led, win, winner = pos.led, pos.win, pos.winner
        if bit & led and card > win:
            win, winner = card, seat
        order = followers[leader][pos.plays_in_trick :]
    else:
        win, winner, led = card, seat, suit_of[card]
        order = followers[leader]
    top = 1 << win  # the winning card, as a bit
    while True:
        for count, seat in order:
            hand = hands[seat]
            bit = hand & led or (hand & not_points or hand if first else hand)
            if bit & (bit - 1):
                legal = bit
                out = deck & ~played & ~hand
                if watch:
                    keep = watchers >> seat & 1
                    r = rival if keep else unseen
                    if (pts_seats and not pts_seats >> seat & 1) or 0 <= r != seat:
                        shooter = r
                    elif seat == shoots or _can_shoot(hand, out, first, taken[seat]):
                        shooter = seat
                    else:
                        shooter = -1
                else:
                    shooter = -1
                if shooter >= 0:
                    card = _moon_play(t, hand, legal, seat, shooter, out, first, count,
                                      top.bit_length() - 1, winner, played ^ start, leader,
                                      played, keep)  # fmt: skip
                elif legal & led:
                    card = _follow(t, legal, led, out, first, count, top, start, played)
                else:
                    card = _discard(t, hand, legal, out)
                bit = 1 << card
            hands[seat] = hand ^ bit
            played |= bit
            if bit > top and bit & led:
                top, winner = bit, seat
        trick = played ^ start
        taken[winner] |= trick
        if trick & points_mask:
            pts_seats |= 1 << winner
            watch = moon and not pts_seats & (pts_seats - 1)
            if watch:
                rival = _rival(taken, pts_seats, watched)
                unseen = _rival(taken, pts_seats, -1) if watched >= 0 else rival
        if trick & opens:
            hearts_open = True
        left -= 1
        rest = deck & ~played
        if not left or not scoring & rest:
            return taken
        leader = seat = winner
        if left == 1:
            # One card each: the highest of the led suit takes them all.
            top = rest & suit_of[hands[leader].bit_length() - 1]
            top = 1 << (top.bit_length() - 1)
            for s in range(n):
                if hands[s] & top:
                    taken[s] |= rest
            return taken
        first = False
        start = played
        hand = hands[seat]
        legal = hand if hearts_open else hand & not_hearts or hand
        if legal & (legal - 1):
            out = deck & ~played & ~hand
            if watch:
                keep = watchers >> seat & 1
                r = rival if keep else unseen
                if (pts_seats and not pts_seats >> seat & 1) or 0 <= r != seat:
                    shooter = r
                elif seat == shoots or _can_shoot(hand, out, first, taken[seat]):
                    shooter = seat
                else:
                    shooter = -1
            else:
                shooter = -1
            if shooter >= 0:
                card = _moon_play(t, hand, legal, seat, shooter, out, first, 0, -1, seat, 0, seat,
                                  played, keep)  # fmt: skip
            else:
                card = _lead(t, hand, legal, out)
        else:
            card = legal.bit_length() - 1
        top = 1 << card
        hands[seat] = hand ^ top
        played |= top
        led = suit_of[card]
        order = followers[leader]


def _rival(taken: list[int], pts_seats: int, watched: int) -> int:
    """The one seat that has taken points, if it has taken enough that every other seat sees it
    running for the moon (``policy.moon_shooter``), else -1; or ``watched``, while nobody else
    has taken points."""
    if watched >= 0 and not pts_seats & ~(1 << watched):
        return watched
    if not pts_seats:
        return -1
    who = pts_seats.bit_length() - 1
    return who if (taken[who] & POINTS_MASK).bit_count() >= STOP_AT else -1


def _moon_play(
    t: Table,
    hand: int,
    legal: int,
    seat: int,
    shooter: int,
    out: int,
    first: bool,
    count: int,
    win: int,
    winner: int,
    tmask: int,
    leader: int,
    played: int,
    keep: int = 0,
) -> int:
    """The policy's play while ``shooter`` (maybe this seat) is running for the moon; a defender
    that ``keep``s its stoppers plays its lowest card under the shooter's and, with only points
    left to throw on it, its lowest heart, so that its high hearts are there to take a trick."""
    if not count:
        if shooter == seat:
            return _lead_to_win(legal, out)
        hearts = legal & HEARTS_MASK
        if hearts and hearts.bit_length() > (out & HEARTS_MASK).bit_length():
            return hearts.bit_length() - 1
        return _lead(t, hand, legal, out)
    if legal & SUIT_MASKS[win // 13]:
        if shooter == seat:
            over = legal & ~((2 << win) - 1)
            if not over:
                return (legal & -legal).bit_length() - 1
            if count == t.n - 1:
                return (over & -over).bit_length() - 1
            return over.bit_length() - 1
        if winner == shooter:
            over = legal & ~((2 << win) - 1)
            if over and tmask & POINTS_MASK:
                return over.bit_length() - 1
            if keep and not over:
                return (legal & -legal).bit_length() - 1
        return _follow(
            t, legal, SUIT_MASKS[win // 13], out, first, count, 1 << win, played & ~tmask, played
        )
    if shooter == seat:
        m = legal & _NOT_POINTS or legal
        return (m & -m).bit_length() - 1
    if winner == shooter or (shooter - leader) % t.n > count:
        if keep and not legal & _NOT_POINTS:
            hearts = legal & HEARTS_MASK
            if hearts & (hearts - 1):
                return (hearts & -hearts).bit_length() - 1
            return QUEEN_SPADES if legal & _QS else hearts.bit_length() - 1
        return _discard(t, hand, legal & _NOT_POINTS or legal, out)
    return _discard(t, hand, legal, out)


def _can_shoot(hand: int, out: int, first: bool, taken: int) -> bool:
    # Most hands have two low cards that some outstanding card beats: two losers, no moon.
    low = hand & -hand
    if out & _SUIT_OF[low.bit_length() - 1] & ~((low << 1) - 1):
        rest = hand ^ low
        low = rest & -rest
        if low and out & _SUIT_OF[low.bit_length() - 1] & ~((low << 1) - 1):
            return False
    lost = 0
    for suit in SUIT_MASKS:
        o = out & suit
        if o:
            lost += (hand & suit & ((1 << (o.bit_length() - 1)) - 1)).bit_count()
            if lost > 1:
                return False
    if not lost:
        return not first or (hand & HEARTS_MASK).bit_count() >= 4
    return (taken & POINTS_MASK).bit_count() >= SHOOT_WITH_ONE_LOSER_AT


def _follow(
    t: Table,
    legal: int,
    led: int,
    out: int,
    first: bool,
    count: int,
    top: int,
    start: int,
    played: int,
) -> int:
    """Following suit with a choice: ``policy._follow``; ``legal`` is all of the ``led`` suit,
    ``top`` the winning card as a bit, ``start`` the cards played before this trick."""
    if led == _SPADES:
        if legal & _QS and top > _QS:
            return QUEEN_SPADES
    elif t.jack and led == _DIAMONDS:
        tmask = played & ~start
        if not tmask & POINTS_MASK:
            last = count == t.n - 1
            od = out & _DIAMONDS
            if legal & _JD and top < _JD and (last or not od & _ABOVE_JD):
                return JACK_DIAMONDS
            over = legal & ~((top << 1) - 1)
            if tmask & _JD and over and (last or over.bit_length() > od.bit_length()):
                return over.bit_length() - 1
        if legal & ~_JD:
            legal &= ~_JD
    if first:
        return (legal & ~_QS or legal).bit_length() - 1
    under = legal & (top - 1)
    if under:
        # A high card wins at no cost in the first round of a minor suit with no points in it.
        if (
            led & _MINORS
            and not played & ~start & (POINTS_MASK | _JD)
            and not start & led
            and (out & led).bit_count() >= 2 * (t.n - 1 - count)
        ):
            return legal.bit_length() - 1
        return under.bit_length() - 1
    if led == _SPADES:
        legal = legal & ~_QS or legal
        if out & _QS and count != t.n - 1:
            return (legal & -legal).bit_length() - 1
    return legal.bit_length() - 1


def _discard(t: Table, hand: int, legal: int, out: int) -> int:
    if legal & _QS:
        return QUEEN_SPADES
    if out & _QS and legal & _GUARDS:
        return (legal & _GUARDS).bit_length() - 1
    hearts = legal & HEARTS_MASK
    if hearts:
        return hearts.bit_length() - 1
    if t.jack and legal & ~_JD:
        legal &= ~_JD
    best, best_score = -1, -1000
    for suit in (_SPADES, _DIAMONDS, _CLUBS):  # no hearts are left to discard by now
        m = legal & suit
        if m:
            c = m.bit_length() - 1
            # The highest card of each suit; prefer high ranks and short suits (to make a void).
            score = (c % 13) * 4 - (hand & suit).bit_count()
            if score > best_score:
                best, best_score = c, score
    return best


def _lead(t: Table, hand: int, legal: int, out: int) -> int:
    """``policy._lead``: flush Q♠, cash J♦, else the least risky suit's lowest card.

    The four suits are written out one after the other (not looped over) because this runs
    at nearly every lead of every playout; the arithmetic is the policy's, in its order, so
    the same risks compare the same way.
    """
    qs_out = out & _QS
    flush = legal & _LOW_SPADES
    if qs_out and flush and out & _SPADES & ~_QS:
        return flush.bit_length() - 1
    jack = t.jack and legal & _JD
    if jack and out & _DIAMONDS and not out & _ABOVE_JD:
        return JACK_DIAMONDS
    lowest = legal & -legal
    if not legal & ~_SUIT_OF[lowest.bit_length() - 1]:
        return lowest.bit_length() - 1  # one suit to lead from: its lowest card
    risks = _RISKS[t.n]
    void_risk = 50.0 if out & POINTS_MASK else 0.0  # everyone else discards onto it
    best, best_risk = 0, 1e9
    m = legal & _CLUBS
    if m:
        low = m & -m
        o = out & _CLUBS
        risk = risks[o.bit_count()][(o & (low - 1)).bit_count()] if o else void_risk
        best, best_risk = low, risk - _SHORT[(hand & _CLUBS).bit_count()]
    m = legal & _DIAMONDS
    if m:
        low = m & -m
        o = out & _DIAMONDS
        risk = risks[o.bit_count()][(o & (low - 1)).bit_count()] if o else void_risk
        if jack and low == _JD:
            risk += 10.0
        risk -= _SHORT[(hand & _DIAMONDS).bit_count()]
        if risk < best_risk:
            best, best_risk = low, risk
    m = legal & _SPADES
    if m:
        low = m & -m
        o = out & _SPADES
        risk = risks[o.bit_count()][(o & (low - 1)).bit_count()] if o else void_risk
        if hand & _QS:
            risk += 5.0
        elif qs_out and low > _QS:
            risk += 20.0
        risk -= _SHORT[(hand & _SPADES).bit_count()]
        if risk < best_risk:
            best, best_risk = low, risk
    m = legal & _HEARTS
    if m:
        low = m & -m
        o = out & _HEARTS
        risk = risks[o.bit_count()][(o & (low - 1)).bit_count()] if o else void_risk
        risk += 2.0
        risk -= _SHORT[(hand & _HEARTS).bit_count()]
        if risk < best_risk:
            best = low
    return best.bit_length() - 1


def _lead_to_win(legal: int, out: int) -> int:
    """Lead a sure winner, hearts first once open, to draw the points in."""
    for suit in (_HEARTS, _SPADES, _DIAMONDS, _CLUBS):
        m = legal & suit
        if m and m.bit_length() > (out & suit).bit_length():
            return m.bit_length() - 1
    return legal.bit_length() - 1


def score(t: Table, taken: list[int], moon_adds: Sequence[bool]) -> list[int]:
    """Each seat's points for the cards it took; under ``moon=choice`` a shooter ``s`` adds the
    penalty to the others if ``moon_adds[s]``."""
    points = []
    moon = -1
    for s, x in enumerate(taken):
        if x & POINTS_MASK == POINTS_MASK:
            moon = s
        hearts = x & HEARTS_MASK
        if t.spot:
            p = 2 * hearts.bit_count() + sum(
                (hearts & m).bit_count() << k for k, m in enumerate(_RANK_BIT)
            )
        else:
            p = hearts.bit_count()
        if x & _QS:
            p += t.queen_points
        if t.jack and x & _JD:
            p -= 10
        points.append(p)
    if moon < 0 or t.moon is Moon.OFF:
        return points
    add = t.moon is Moon.CLASSIC or (t.moon is Moon.CHOICE and moon_adds[moon])
    total = t.penalty_total
    jack = [-10 if t.jack and x & _JD else 0 for x in taken]
    if add:
        return [j + (0 if s == moon else total) for s, j in enumerate(jack)]
    return [j - (total if s == moon else 0) for s, j in enumerate(jack)]
