"""One hand as an explicit state machine: pass → 13 tricks → (moon choice) → scored for Hearts,
exposure → 13 tricks → scored for Gong Zhu.

Hands are 52-bit masks and the legal plays one mask expression, which is what lets bots simulate
thousands of hands per move. The state is mutable (``clone`` is cheap) and pure: no I/O, no
randomness; the same deal and actions always give the same state.

A peer during play knows only its own cards. Seats whose cards are not known are marked unknown:
their plays are checked against what is public (turn, card not yet seen, the 2♣ lead), and the
hand-dependent rules (follow suit, first-trick points, leading hearts) are checked when the hand
is replayed with every card revealed. Gong Zhu exposures are public, so an unknown seat's exposed
cards count as known to be its own, like the cards this peer passed it in Hearts.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from ..cards import (
    CARDS,
    CLUB_2,
    HEARTS_MASK,
    JACK_DIAMONDS,
    QUEEN_SPADES,
    SUIT_MASKS,
    cards_of,
    check_mask,
)
from ..cards import card as checked_card
from ..rules import Moon, Rules, check_rules
from .actions import IllegalActionError
from .scoring import EXPOSABLE_MASK, GONGZHU_SCORING_MASK, HandResult, score_hand

__all__ = ["DealError", "HandPhase", "HandState", "Trick", "check_seat"]

_QS_BIT = 1 << QUEEN_SPADES
_POINTS_MASK = HEARTS_MASK | _QS_BIT
_C2_BIT = 1 << CLUB_2
_JD_BIT = 1 << JACK_DIAMONDS


class DealError(ValueError):
    """Hands that are not a deal of these rules (wrong count, sizes, cards or types)."""


def check_seat(seat: object, players: int) -> int:
    """``seat`` itself if it is a seat number of a ``players``-seat table, else an error."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
        raise IllegalActionError(f"there is no seat {seat!r}")
    return seat


class HandPhase(Enum):
    PASSING = "passing"
    EXPOSE = "expose"  # Gong Zhu's 亮牌, in the pass's place
    PLAYING = "playing"
    MOON_CHOICE = "moon_choice"
    SCORED = "scored"


class Trick:
    """A finished trick: who led, the cards in play order, who took it."""

    __slots__ = ("cards", "leader", "winner")

    def __init__(self, leader: int, cards: tuple[int, ...], winner: int) -> None:
        self.leader = leader
        self.cards = cards
        self.winner = winner

    def seat_of(self, i: int, n: int) -> int:
        return (self.leader + i) % n

    def __repr__(self) -> str:
        cards = " ".join(str(CARDS[c]) for c in self.cards)
        return f"Trick(leader={self.leader}, {cards}, winner={self.winner})"


class HandState:
    """The state of one hand. Build with ``HandState.deal``; drive with the ``apply_*`` methods."""

    __slots__ = (
        "claimed",
        "dealer",
        "exposed",
        "exposures",
        "first_leader",
        "forced",
        "gongzhu",
        "hands",
        "hearts_broken",
        "known",
        "n",
        "number",
        "pass_targets",
        "passed",
        "phase",
        "played",
        "private",
        "queen_played",
        "received",
        "result",
        "rules",
        "suits_led",
        "taken",
        "trick",
        "trick_leader",
        "tricks",
        "turn",
    )

    rules: Rules
    n: int
    number: int
    dealer: int
    hands: list[int]
    known: int
    private: int  # seats whose hands only this peer knows (its own): never used against another
    pass_targets: list[int] | None
    passed: list[int | None]
    received: list[int]
    phase: HandPhase
    first_leader: int | None
    turn: int | None
    trick_leader: int | None
    trick: list[int]
    tricks: list[Trick]
    played: int
    taken: list[int]
    hearts_broken: bool
    queen_played: bool
    result: HandResult | None
    gongzhu: bool
    exposures: list[int | None]
    exposed: int
    forced: int
    suits_led: int
    claimed: int | None

    @classmethod
    def deal(cls, rules: Rules, number: int, hands: Sequence[int | None]) -> HandState:
        """Start hand ``number`` (1-based) with each seat's cards as a mask, None where unknown."""
        n = check_rules(rules).players
        if not isinstance(hands, list | tuple) or len(hands) != n:
            raise DealError(f"a deal is a list of {n} hands, not {hands!r}")
        seen = 0
        for seat, h in enumerate(hands):
            if h is None:
                continue
            if (
                not isinstance(h, int)
                or isinstance(h, bool)
                or h < 0
                or h.bit_count() != rules.cards_each
                or h & ~rules.deck_mask
                or h & seen
            ):
                raise DealError(
                    f"seat {seat}'s hand is not {rules.cards_each} distinct cards of this deck"
                )
            seen |= h
        self = cls.__new__(cls)
        self.rules = rules
        self.n = n
        self.number = number
        self.dealer = rules.dealer(number)
        self.hands = [h or 0 for h in hands]
        self.known = sum(1 << s for s, h in enumerate(hands) if h is not None)
        self.private = 0
        targets = [rules.pass_target(s, number) for s in range(n)]
        self.pass_targets = None if targets[0] is None else [t for t in targets if t is not None]
        self.passed = [None] * n
        self.received = [0] * n
        self.tricks = []
        self.trick = []
        self.played = 0
        self.taken = [0] * n
        self.hearts_broken = False
        self.queen_played = False
        self.result = None
        self.turn = None
        self.trick_leader = None
        self.first_leader = None
        self.gongzhu = rules.is_gongzhu
        self.exposures = [None] * n  # each seat's exposed cards, None until it has declared
        self.exposed = 0
        self.forced = 0
        self.suits_led = 0  # a bit per suit led in a finished trick
        self.claimed = None  # the seat whose claim (摊牌) ended the hand
        if self.gongzhu:
            self.phase = HandPhase.EXPOSE
        elif self.pass_targets is None:
            self._start_play()
        else:
            self.phase = HandPhase.PASSING
        return self

    def clone(self) -> HandState:
        other = HandState.__new__(HandState)
        for name in HandState.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = self.hands[:]
        other.passed = self.passed[:]
        other.received = self.received[:]
        other.tricks = self.tricks[:]
        other.trick = self.trick[:]
        other.taken = self.taken[:]
        other.exposures = self.exposures[:]
        return other

    # -- queries -------------------------------------------------------------------------------

    def is_known(self, seat: int) -> bool:
        """Whether this peer knows ``seat``'s cards."""
        return bool(self.known >> check_seat(seat, self.n) & 1)

    @property
    def first_trick(self) -> bool:
        return not self.tricks

    @property
    def hearts_open(self) -> bool:
        """Whether hearts may be led: broken, or Q♠ played under queen_breaks_hearts."""
        return self.hearts_broken or (self.rules.queen_breaks_hearts and self.queen_played)

    def to_pass(self) -> list[int]:
        """Seats that still owe their pass."""
        if self.phase is not HandPhase.PASSING:
            return []
        return [s for s in range(self.n) if self.passed[s] is None]

    def to_expose(self) -> list[int]:
        """Seats that still owe their exposure (Gong Zhu).

        Every seat declares once, in any order. Under ``force_fourth`` a last exposure may be owed
        by the holder of the fourth card, listed only when this peer knows who that is.
        """
        if self.phase is not HandPhase.EXPOSE:
            return []
        if self.forced:
            return [] if self.turn is None else [self.turn]
        return [s for s in range(self.n) if self.exposures[s] is None]

    def legal_exposures(self, seat: int) -> list[int]:
        """Every exposure ``seat`` may make now, as masks (the empty one included when allowed)."""
        if seat not in self.to_expose() or not self.is_known(seat):
            return []
        if self.forced:
            return [self.forced]
        mine = self.hands[seat] & EXPOSABLE_MASK
        must = self._must_expose(mine)
        free = mine & ~must & ~(_JD_BIT if self.rules.expose_all_but_sheep else 0)
        options = [must]
        for c in cards_of(free):
            options += [o | 1 << c for o in options]
        return sorted(options)

    def _must_expose(self, h: int) -> int:
        """The cards of ``h`` that its holder must expose in the first round."""
        if self.rules.expose_all:
            return h & EXPOSABLE_MASK
        if self.rules.expose_all_but_sheep:
            return h & EXPOSABLE_MASK & ~_JD_BIT
        return 0

    def legal_play_mask(self, seat: int) -> int:
        """The cards ``seat`` may play now, as a mask (0 when it is not that seat's turn)."""
        if self.phase is not HandPhase.PLAYING or self.turn != seat:
            return 0
        return self._legal(self.hands[seat])

    def _legal(self, h: int) -> int:
        """The legal plays now from hand ``h``.

        Monotone in ``h``: a card refused from part of a hand is refused from the whole of it,
        which is what lets an unknown seat be checked against the cards known to be its own.
        """
        if self.gongzhu:
            return self._legal_gongzhu(h)
        if self.trick:
            follow = h & SUIT_MASKS[self.trick[0] // 13]
            if follow:
                return follow
            if not self.tricks:
                return (h & ~_POINTS_MASK) or h
            return h
        if not self.tricks:
            if self.rules.deck_mask & _C2_BIT:
                return h & _C2_BIT
            return (h & ~_POINTS_MASK) or (h & ~HEARTS_MASK) or h
        if not self.hearts_open:
            return (h & ~HEARTS_MASK) or h
        return h

    def _legal_gongzhu(self, h: int) -> int:
        """Gong Zhu: follow suit, 2♣ leads, and an exposed card sits out the first trick of its
        suit unless it is its holder's only card of that suit."""
        if self.trick:
            led = self.trick[0] // 13
            follow = h & SUIT_MASKS[led]
            if not follow:
                return h
            if self.suits_led >> led & 1:
                return follow
            return (follow & ~self.exposed) or follow
        if not self.tricks and self.rules.deck_mask & _C2_BIT:
            return h & _C2_BIT
        return h & ~self._exposed_sitting_out(h)

    def _exposed_sitting_out(self, h: int) -> int:
        """Exposed cards of ``h`` that may not lead: their suit not yet led, and not alone in it."""
        barred = 0
        for c in cards_of(h & self.exposed):
            suit = SUIT_MASKS[c // 13]
            if not self.suits_led >> (c // 13) & 1 and h & suit != 1 << c:
                barred |= 1 << c
        return barred

    def why_illegal(self, seat: int, card: int) -> str:
        """The rule a play of ``card`` by ``seat`` breaks, as a player would say it."""
        check_seat(seat, self.n)
        card = checked_card(card)
        if self.phase is HandPhase.PASSING:
            return "no cards are played while passing"
        if self.phase is HandPhase.EXPOSE:
            return "no cards are played while exposing"
        if self.phase is not HandPhase.PLAYING:
            return "the hand is over"
        if self.turn is not None and self.turn != seat:
            return "not your turn"
        bit = 1 << card
        if self.played & bit:
            return f"{CARDS[card]} has been played already"
        if self.is_known(seat) and not self.hands[seat] & bit:
            return f"you do not hold {CARDS[card]}"
        return self._rule_broken(self.hands[seat], card)

    def _rule_broken(self, h: int, card: int) -> str:
        """Which rule forbids ``card`` from hand ``h`` (``card`` not being in ``_legal(h)``)."""
        bit = 1 << card
        if self.gongzhu:
            return self._gongzhu_rule_broken(h, card)
        if self.trick:
            led = self.trick[0] // 13
            if h & SUIT_MASKS[led]:
                return f"you must follow {'♣♦♠♥'[led]}"
            return "no points on the first trick"
        if not self.tricks and self.rules.deck_mask & _C2_BIT:
            return "you must lead 2♣"
        if not self.tricks and bit & _POINTS_MASK and h & ~_POINTS_MASK:
            return "no points on the first trick"
        return "hearts are not broken"

    def _gongzhu_rule_broken(self, h: int, card: int) -> str:
        suit = card // 13
        if self.trick:
            led = self.trick[0] // 13
            if suit != led:
                return f"you must follow {'♣♦♠♥'[led]}"
        elif not self.tricks and self.rules.deck_mask & _C2_BIT:
            return "you must lead 2♣"
        return f"exposed {CARDS[card]} may not be played to the first {'♣♦♠♥'[suit]} trick"

    # -- actions -------------------------------------------------------------------------------

    def apply_expose(self, seat: int, cards: int) -> None:
        """Record ``seat``'s exposure (Gong Zhu): ``cards`` is a mask, 0 to expose nothing."""
        check_seat(seat, self.n)
        if self.phase is not HandPhase.EXPOSE:
            raise IllegalActionError("no exposing now", seat)
        check_mask(cards)
        if cards & ~EXPOSABLE_MASK:
            bad = CARDS[cards_of(cards & ~EXPOSABLE_MASK)[0]]
            raise IllegalActionError(f"{bad} cannot be exposed, only Q♠ J♦ 10♣ A♥", seat)
        if self.forced:
            if self.turn is not None and seat != self.turn:
                raise IllegalActionError("not your turn", seat)
            if cards != self.forced:
                raise IllegalActionError(
                    f"three cards are exposed: expose {CARDS[cards_of(self.forced)[0]]}", seat
                )
        elif self.exposures[seat] is not None:
            raise IllegalActionError("you have exposed already", seat)
        if self.is_known(seat):
            if cards & ~self.hands[seat]:
                raise IllegalActionError(
                    f"you do not hold {CARDS[cards_of(cards & ~self.hands[seat])[0]]}", seat
                )
        elif cards & self._placed_elsewhere(seat):
            taken = CARDS[cards_of(cards & self._placed_elsewhere(seat))[0]]
            raise IllegalActionError(f"{taken} is in another seat's hand", seat)
        if self.rules.expose_all_but_sheep and cards & _JD_BIT:
            raise IllegalActionError("J♦ may not be exposed", seat)
        if self.is_known(seat):
            missing = self._must_expose(self.hands[seat]) & ~cards
            if missing:
                raise IllegalActionError(f"you must expose {CARDS[cards_of(missing)[0]]}", seat)
        self.exposures[seat] = (self.exposures[seat] or 0) | cards
        self.exposed |= cards
        if self.forced:
            self.forced = 0
            self._start_play()
        elif all(e is not None for e in self.exposures):
            self._after_exposures()

    def _after_exposures(self) -> None:
        """逼明: once three exposable cards are out, the fourth's holder owes one more exposure."""
        if self.rules.force_fourth and self.exposed.bit_count() == 3:
            self.forced = EXPOSABLE_MASK & ~self.exposed
            holders = [
                s for s in range(self.n) if self.known >> s & 1 and self.hands[s] & self.forced
            ]
            self.turn = holders[0] if holders else None
            return
        self._start_play()

    def apply_pass(self, seat: int, cards: int | None) -> None:
        """Record a pass: ``cards`` is a 3-card mask, None where this peer may not see it.

        Passes are exchanged only once every seat has passed (all give before any receives).
        """
        check_seat(seat, self.n)
        if self.phase is not HandPhase.PASSING:
            raise IllegalActionError("no passing now", seat)
        if self.passed[seat] is not None:
            raise IllegalActionError("you have passed already", seat)
        if cards is None:
            if self.is_known(seat):
                raise IllegalActionError("a known seat's pass must name its cards", seat)
            cards = 0
        else:
            check_mask(cards)
            if cards.bit_count() != 3:
                raise IllegalActionError("pass exactly 3 cards", seat)
            if cards & ~self.rules.deck_mask:
                missing = cards_of(cards & ~self.rules.deck_mask)
                raise IllegalActionError(f"{CARDS[missing[0]]} is not in this deck", seat)
            if self.is_known(seat) and cards & ~self.hands[seat]:
                missing = cards_of(cards & ~self.hands[seat])
                raise IllegalActionError(f"you do not hold {CARDS[missing[0]]}", seat)
            if not self.is_known(seat) and cards & self._known_cards():
                raise IllegalActionError("passed a card another seat holds", seat)
        self.passed[seat] = cards
        if all(p is not None for p in self.passed):
            self._exchange()

    def begin_after_pass(self) -> None:
        """Start play with the hands dealt taken as the hands after the pass, which stays
        unseen: the end-of-hand replay of a hand whose passes stay private starts from each
        seat's cards after the pass (SPEC 6.8)."""
        if self.phase is not HandPhase.PASSING:
            raise IllegalActionError("no passing now", 0)
        self._start_play()

    def apply_play(self, seat: int, card: int) -> None:
        """Play ``card`` for ``seat``, checking every rule this peer can check."""
        check_seat(seat, self.n)
        card = checked_card(card)
        bit = 1 << card
        if self.is_known(seat):
            if not self.legal_play_mask(seat) & bit:
                raise IllegalActionError(self.why_illegal(seat, card), seat)
        else:
            self._check_public_play(seat, card)
        self.play(seat, card)

    def play(self, seat: int, card: int) -> None:
        """Play without checks: for replays of already-validated actions and bot simulations."""
        bit = 1 << card
        self.hands[seat] &= ~bit
        self.played |= bit
        trick = self.trick
        if not trick:
            self.trick_leader = seat
        trick.append(card)
        if bit & HEARTS_MASK:
            self.hearts_broken = True
        elif bit == _QS_BIT:
            self.queen_played = True
        n = self.n
        if len(trick) < n:
            self.turn = (seat + 1) % n
            return
        # The highest card of the led suit: above the lead, below the next suit's first card.
        first = trick[0]
        top = first
        above_suit = first - first % 13 + 13
        mask = 0
        for c in trick:
            mask |= 1 << c
            if top < c < above_suit:
                top = c
        leader = self.trick_leader
        assert leader is not None
        winner = (leader + trick.index(top)) % n
        if self.gongzhu:
            led = first // 13
            self.suits_led |= 1 << led
            if self.rules.same_colour_discard:
                # 同色垫牌: the first discard off the led colour takes the trick (and leads next).
                for i, c in enumerate(trick):
                    if (c // 13 ^ led) & 1:
                        winner = (leader + i) % n
                        break
        self.taken[winner] |= mask
        self.tricks.append(Trick(leader, tuple(trick), winner))
        self.trick = []
        self.trick_leader = None
        self.turn = winner
        if len(self.tricks) == self.rules.cards_each:
            self._finish()

    @property
    def claims_allowed(self) -> bool:
        """Whether these rules let the seat on lead claim the rest: always in Gong Zhu (摊牌),
        in Hearts with the ``claims`` option."""
        return self.gongzhu or self.rules.claims

    def claim_refusal(self, seat: int, cards: int) -> str | None:
        """Why ``seat``, on lead and showing ``cards`` as its whole hand, may not take the rest:
        None when it may.

        A claim holds when every card shown is above every card of its suit still out, so the
        claimer wins each trick it leads whatever the others hold (with no trumps a discard
        never wins), or when no scoring card is left to take, so who takes the rest changes
        nothing. Under 同色垫牌 a discard can take a trick, so only the second holds there.
        Raises ``IllegalActionError`` for a claim no honest seat can make: out of turn, or
        cards that are not its hand.
        """
        self._check_claim(seat, cards)
        rest = self.rules.deck_mask & ~self.played
        if not rest & self._scoring_mask():
            return None
        if self.rules.same_colour_discard:
            return "with same-colour discards no claim holds while a scoring card is out"
        out = rest & ~cards
        for suit_mask in SUIT_MASKS:
            mine, theirs = cards & suit_mask, out & suit_mask
            if mine and theirs and (mine & -mine).bit_length() < theirs.bit_length():
                low = CARDS[(mine & -mine).bit_length() - 1]
                high = CARDS[theirs.bit_length() - 1]
                return f"{low} does not win every trick: {high} is still out"
        return None

    def _check_claim(self, seat: int, cards: int) -> None:
        check_seat(seat, self.n)
        check_mask(cards)
        if not self.claims_allowed:
            raise IllegalActionError("these rules have no claims", seat)
        if self.phase is not HandPhase.PLAYING or self.turn != seat or self.trick:
            raise IllegalActionError("only the seat on lead may claim", seat)
        if not self.tricks:
            raise IllegalActionError("no claim before the first trick is played", seat)
        if self.is_known(seat):
            if cards != self.hands[seat]:
                raise IllegalActionError("a claim shows the whole hand", seat)
            return
        if cards.bit_count() != self.rules.cards_each - len(self.tricks):
            raise IllegalActionError("a claim shows the whole hand", seat)
        if cards & ~self.rules.deck_mask or cards & self.played:
            raise IllegalActionError("a claim shows cards no hand holds", seat)
        if cards & self._placed_elsewhere(seat):
            taken = CARDS[cards_of(cards & self._placed_elsewhere(seat))[0]]
            raise IllegalActionError(f"{taken} is in another seat's hand", seat)

    def _scoring_mask(self) -> int:
        """The cards whose taker matters to the score."""
        if self.gongzhu:
            return GONGZHU_SCORING_MASK
        return _POINTS_MASK | (_JD_BIT if self.rules.jack_of_diamonds else 0)

    def apply_claim(self, seat: int, cards: int) -> None:
        """``seat`` takes every card still out (摊牌): the hand is scored at once."""
        refusal = self.claim_refusal(seat, cards)
        if refusal is not None:
            raise IllegalActionError(refusal, seat)
        rest = self.rules.deck_mask & ~self.played
        self.taken[seat] |= rest
        self.played |= rest
        self.hands = [0] * self.n
        self.claimed = seat
        self._finish()

    def apply_moon_choice(self, seat: int, add_to_others: bool) -> None:
        check_seat(seat, self.n)
        if not isinstance(add_to_others, bool):
            raise IllegalActionError("the moon choice is true or false", seat)
        if self.phase is not HandPhase.MOON_CHOICE:
            raise IllegalActionError("there is no moon to choose for", seat)
        assert self.result is not None
        if seat != self.result.moon:
            raise IllegalActionError("only the moon shooter chooses", seat)
        self.result = score_hand(self.rules, self.taken, add_to_others=add_to_others)
        self.phase = HandPhase.SCORED

    # -- internals -----------------------------------------------------------------------------

    def _known_cards(self) -> int:
        m = 0
        for s in range(self.n):
            if self.known >> s & 1:
                m |= self.hands[s]
        return m

    def _placed_elsewhere(self, seat: int) -> int:
        """Unplayed cards this peer knows to be in a hand other than ``seat``'s.

        With ``private`` set (a peer at a table with remixed hands), only what every peer knows:
        a card this peer holds or passed can be shown by another seat with a true proof when a
        remix is false, and refusing it on this peer's word alone would split the table; the
        deck's audit names that seat instead.
        """
        m = 0
        for s in range(self.n):
            if s != seat:
                if self.known >> s & 1:
                    m |= 0 if self.private >> s & 1 else self.hands[s]
                elif not self.private:
                    m |= self.received[s]
                m |= self.exposures[s] or 0
        return m & ~self.played

    def _check_public_play(self, seat: int, card: int) -> None:
        """Check an unknown seat's play against everything this peer knows.

        That is the public record, the cards this peer holds, and the cards it saw passed to
        ``seat`` or ``seat`` exposed (still in its hand until played), which suffice to refuse a
        renege.
        """
        if self.phase is not HandPhase.PLAYING:
            raise IllegalActionError(self.why_illegal(seat, card), seat)
        bit = 1 << card
        if self.turn is None:
            # The first lead by the unseen holder of 2♣: only 2♣ itself can be it.
            if card != CLUB_2:
                raise IllegalActionError("you must lead 2♣", seat)
        elif self.turn != seat:
            raise IllegalActionError("not your turn", seat)
        if not self.rules.deck_mask & bit:
            raise IllegalActionError(f"{CARDS[card]} is not in this deck", seat)
        if self.played & bit:
            raise IllegalActionError(f"{CARDS[card]} has been played already", seat)
        if self._placed_elsewhere(seat) & bit:
            raise IllegalActionError(f"{CARDS[card]} is in another seat's hand", seat)
        if not self.tricks and not self.trick and self.rules.deck_mask & _C2_BIT and bit != _C2_BIT:
            raise IllegalActionError("you must lead 2♣", seat)
        held = ((self.received[seat] | (self.exposures[seat] or 0)) & ~self.played) | bit
        if not self._legal(held) & bit:
            raise IllegalActionError(self._rule_broken(held, card), seat)
        shown_out = self._shown_out(seat, card // 13)
        if shown_out:
            suit = "♣♦♠♥"[card // 13]
            raise IllegalActionError(f"showed out of {suit} in trick {shown_out}: a renege", seat)
        if self.turn is None:
            self.turn = self.first_leader = seat

    def _shown_out(self, seat: int, suit: int) -> int:
        """The first trick in which ``seat`` did not follow ``suit`` (0 if none): holding a card
        of it now proves that was a renege, as soon as the card is played."""
        n = self.n
        for k, t in enumerate(self.tricks, 1):
            if t.cards[0] // 13 != suit:
                continue
            i = (seat - t.leader) % n
            if t.cards[i] // 13 != suit:
                return k
        return 0

    def _exchange(self) -> None:
        assert self.pass_targets is not None
        for s in range(self.n):
            p = self.passed[s] or 0
            t = self.pass_targets[s]
            if self.known >> s & 1:
                self.hands[s] &= ~p
            self.received[t] |= p
        for s in range(self.n):
            if self.known >> s & 1:
                self.hands[s] |= self.received[s]
        self._start_play()

    def _start_play(self) -> None:
        self.phase = HandPhase.PLAYING
        if self.rules.deck_mask & _C2_BIT:
            # Known seats hold their received cards; for unknown seats, received is what this
            # peer saw passed to them.
            holders = [s for s in range(self.n) if (self.hands[s] | self.received[s]) & _C2_BIT]
            self.turn = holders[0] if holders else None
        else:
            self.turn = (self.dealer + 1) % self.n
        self.first_leader = self.turn

    def _finish(self) -> None:
        result = score_hand(self.rules, self.taken, exposed=self.exposed)
        if result.moon is not None and self.rules.moon is Moon.CHOICE:
            self.result = result
            self.phase = HandPhase.MOON_CHOICE
            self.turn = result.moon
            return
        self.result = result
        self.phase = HandPhase.SCORED
        self.turn = None
