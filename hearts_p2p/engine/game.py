"""A whole game: hands in turn, running totals, the end at the target, winners and ties.

A Gong Zhu game ends once a total reaches the limit below zero, and its winners are the seats
(or, with partners, the team) whose result by the seed's formula is positive.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import CARDS, cards_of, mask_of
from ..rules import Rules, Ties, check_rules, position_owner
from .actions import Action, ChooseMoon, Claim, Expose, IllegalActionError, PassCards, PlayCard
from .hand import DealError, HandPhase, HandState, check_seat
from .scoring import HandResult, gongzhu_results, gongzhu_winners

__all__ = ["Game", "GameResult", "deal_hands", "position_owner"]


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a finished game ended: the totals and the seats that share the lowest.

    In Gong Zhu, ``results`` holds each seat's result by the formula and ``winners`` the seats
    with a positive one (by team with partners).
    """

    totals: tuple[int, ...]
    winners: tuple[int, ...]
    hands: int
    results: tuple[int, ...] = ()


def deal_hands(rules: Rules, number: int, rng: random.Random) -> list[int]:
    """A random deal for hand ``number`` as one mask per seat (for bots, tests and benchmarks)."""
    check_rules(rules)
    if not isinstance(rng, random.Random):
        raise DealError(f"deal_hands needs a random.Random, not {rng!r}")
    deck = list(rules.deck_cards)
    rng.shuffle(deck)
    n = rules.players
    dealer = rules.dealer(number)
    hands = [0] * n
    for i in range(n):
        # Deck position i, i + n, i + 2n, ... goes to the same seat (see position_owner).
        m = 0
        for c in deck[i::n]:
            m |= 1 << c
        hands[position_owner(i, n, dealer)] = m
    return hands


class Game:
    """The game state machine. ``start_hand`` with a deal, then ``apply`` each seat's actions."""

    def __init__(self, rules: Rules) -> None:
        self.rules = check_rules(rules)
        self.totals = [0] * rules.players
        self.results: list[HandResult] = []
        self.hand: HandState | None = None
        self.result: GameResult | None = None

    @property
    def number(self) -> int:
        """The number of the current (or last) hand; 0 before the first deal."""
        return self.hand.number if self.hand else 0

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def awaiting_deal(self) -> bool:
        return not self.over and (self.hand is None or self.hand.phase is HandPhase.SCORED)

    def start_hand(self, hands: Sequence[int | None]) -> HandState:
        if not self.awaiting_deal:
            raise IllegalActionError("a hand is in progress" if not self.over else "game over")
        self.hand = HandState.deal(self.rules, self.number + 1, hands)
        return self.hand

    def to_act(self) -> list[int]:
        """Seats whose action the game waits for (several while passing or exposing)."""
        h = self.hand
        if h is None or self.over:
            return []
        if h.phase is HandPhase.PASSING:
            return h.to_pass()
        if h.phase is HandPhase.EXPOSE:
            return h.to_expose()
        if h.phase in (HandPhase.PLAYING, HandPhase.MOON_CHOICE) and h.turn is not None:
            return [h.turn]
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (all 3-card choices while passing, every allowed
        set of cards while exposing)."""
        check_seat(seat, self.rules.players)
        h = self.hand
        if h is None or self.over or not h.is_known(seat):
            return []
        if h.phase is HandPhase.PASSING:
            if h.passed[seat] is not None:
                return []
            combos = itertools.combinations(cards_of(h.hands[seat]), 3)
            return [PassCards(c) for c in combos]
        if h.phase is HandPhase.EXPOSE:
            return [Expose(tuple(cards_of(m))) for m in h.legal_exposures(seat)]
        if h.phase is HandPhase.PLAYING:
            plays: list[Action] = [PlayCard(c) for c in cards_of(h.legal_play_mask(seat))]
            if self._may_claim(seat):
                plays.append(Claim(tuple(cards_of(h.hands[seat]))))
            return plays
        if h.phase is HandPhase.MOON_CHOICE and h.turn == seat:
            return [ChooseMoon(True), ChooseMoon(False)]
        return []

    def may_act(self, seat: int) -> bool:
        """Whether ``legal_actions(seat)`` is not empty, without building the actions: a
        passing seat has 286 of them, and a peer asks after every message."""
        check_seat(seat, self.rules.players)
        h = self.hand
        if h is None or self.over or not h.is_known(seat):
            return False
        if h.phase is HandPhase.PASSING:
            return h.passed[seat] is None and h.hands[seat].bit_count() >= 3
        if h.phase is HandPhase.EXPOSE:
            return bool(h.legal_exposures(seat))
        if h.phase is HandPhase.PLAYING:
            return bool(h.legal_play_mask(seat)) or self._may_claim(seat)
        return h.phase is HandPhase.MOON_CHOICE and h.turn == seat

    def _may_claim(self, seat: int) -> bool:
        """Whether ``seat`` (known) is on lead with a claim that holds."""
        h = self.hand
        assert h is not None
        if not h.claims_allowed or h.turn != seat or h.trick or not h.tricks:
            return False
        if h.hands[seat] & h.played:
            return False  # another seat opened a card of this hand: a deck is false (SPEC 6.7)
        return h.claim_refusal(seat, h.hands[seat]) is None

    def apply(self, seat: int, action: Action) -> None:
        """Apply one action, checked; an illegal one raises and changes nothing."""
        h = self.hand
        if h is None or self.over:
            raise IllegalActionError("game over" if self.over else "no hand dealt yet")
        if isinstance(action, PlayCard):
            h.apply_play(seat, CARDS[action.card])
        elif isinstance(action, PassCards):
            h.apply_pass(seat, None if action.cards is None else mask_of(action.cards))
        elif isinstance(action, ChooseMoon):
            h.apply_moon_choice(seat, action.add_to_others)
        elif isinstance(action, Expose):
            h.apply_expose(seat, mask_of(action.cards))
        elif isinstance(action, Claim):
            h.apply_claim(seat, mask_of(action.cards))
        else:
            raise IllegalActionError(f"unknown action {action!r}", seat)
        self.settle()

    def void_hand(self, number: int) -> None:
        """Hand ``number``, being dealt or played (or just scored), counts for nothing: two seats
        left it at once and their keys are lost, so it can be neither finished nor checked. It
        is recorded as scoring zero everywhere; the next deal is the next number."""
        if self.over and (self.hand is None or self.hand.number != number):
            raise IllegalActionError("game over")
        h = self.hand
        if h is None or h.number != number:
            if number != self.number + 1:
                raise IllegalActionError(f"hand {number} is not the hand in play")
            h = self.hand = HandState.deal(self.rules, number, [None] * self.rules.players)
        if len(self.results) == number:  # scored already: its points come off again
            for s, p in enumerate(self.results.pop().points):
                self.totals[s] -= p
            self.result = None
        h.phase = HandPhase.SCORED
        h.turn = None
        h.result = HandResult((0,) * self.rules.players)
        self.results.append(h.result)

    def close(self) -> None:
        """End the game now on the totals so far: too few players are left to play on."""
        if self.over:
            return
        totals = tuple(self.totals)
        if self.rules.is_gongzhu:
            results = gongzhu_results(self.rules, self.totals)
            winners = gongzhu_winners(self.rules, results)
            self.result = GameResult(totals, winners, self.number, results)
            return
        low = min(totals)
        self.result = GameResult(
            totals, tuple(s for s, t in enumerate(totals) if t == low), self.number
        )

    def settle(self) -> None:
        """Add a scored hand to the totals and decide whether the game is over."""
        h = self.hand
        if h is None or h.phase is not HandPhase.SCORED or len(self.results) == h.number:
            return
        assert h.result is not None
        self.results.append(h.result)
        for s, p in enumerate(h.result.points):
            self.totals[s] += p
        if self.rules.is_gongzhu:
            if min(self.totals) > -self.rules.limit:
                return
            results = gongzhu_results(self.rules, self.totals)
            winners = gongzhu_winners(self.rules, results)
            self.result = GameResult(tuple(self.totals), winners, h.number, results)
            return
        if max(self.totals) < self.rules.target:
            return
        low = min(self.totals)
        winners = tuple(s for s, t in enumerate(self.totals) if t == low)
        if len(winners) > 1 and self.rules.ties is Ties.PLAY_ON:
            return
        self.result = GameResult(tuple(self.totals), winners, h.number)
