"""Hand-made deals and small drivers shared by the engine tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hearts_p2p.cards import Card, cards_of, mask_of, parse_cards
from hearts_p2p.engine import (
    Action,
    ChooseMoon,
    Game,
    HandPhase,
    HandState,
    PassCards,
    PlayCard,
    deal_hands,
)
from hearts_p2p.rules import Rules

# Seat 0 all clubs, seat 1 all diamonds, seat 2 all spades, seat 3 all hearts. Seat 0 leads 2♣
# and wins every trick, since nobody else ever holds the led suit: a moon for seat 0.
SUITS = ("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
         "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
         "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
         "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")  # fmt: skip


def masks(*specs: str) -> list[int]:
    return [mask_of(parse_cards(s)) for s in specs]


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def card(text: str) -> Card:
    return parse_cards(text)[0]


def fill(rules: Rules, partial: dict[int, str]) -> list[int]:
    """A deal where ``partial`` fixes some seats' cards; the rest go out in deck order."""
    hands = [mask_of(parse_cards(partial.get(s, ""))) for s in range(rules.players)]
    rest = cards_of(rules.deck_mask & ~sum(hands))
    for s in range(rules.players):
        while hands[s].bit_count() < rules.cards_each:
            hands[s] |= 1 << rest.pop(0)
    assert not rest
    return hands


def no_pass_hand(rules: Rules) -> int:
    """The first hand number without a pass for these rules."""
    n = 1
    while rules.pass_target(0, n) is not None:
        n += 1
    return n


def playing(rules: Rules, hands: Sequence[int | None], number: int | None = None) -> HandState:
    """A hand dealt straight into play (a no-pass hand unless ``number`` says otherwise)."""
    h = HandState.deal(rules, number or no_pass_hand(rules), hands)
    assert h.phase is HandPhase.PLAYING
    return h


def play(h: HandState, text: str) -> None:
    """Play ``text``'s cards in turn order through the checked path."""
    for c in parse_cards(text):
        assert h.turn is not None
        h.apply_play(h.turn, c)


def play_lowest(game: Game) -> None:
    """Finish the current hand: every seat passes and plays its lowest legal cards."""
    h = game.hand
    assert h is not None
    while h.phase is HandPhase.PASSING:
        s = game.to_act()[0]
        game.apply(s, PassCards(tuple(cards_of(h.hands[s])[:3])))
    while h.phase is HandPhase.PLAYING:
        s = game.to_act()[0]
        game.apply(s, PlayCard(cards_of(h.legal_play_mask(s))[0]))


Record = tuple[list[list[int]], list[tuple[int, Action]]]


def random_game(rules: Rules, seed: int, max_hands: int = 30) -> Record:
    """A whole game of random legal actions: the deals and the actions, in order."""
    rng = random.Random(seed)
    game = Game(rules)
    deals: list[list[int]] = []
    actions: list[tuple[int, Action]] = []
    while not game.over and game.number < max_hands:
        deal = deal_hands(rules, game.number + 1, rng)
        deals.append(deal)
        game.start_hand(list(deal))
        h = game.hand
        assert h is not None
        while h.phase is not HandPhase.SCORED:
            seat = rng.choice(game.to_act())
            if h.phase is HandPhase.PASSING:
                action: Action = PassCards(tuple(rng.sample(cards_of(h.hands[seat]), 3)))
            elif h.phase is HandPhase.MOON_CHOICE:
                action = ChooseMoon(rng.random() < 0.5)
            else:
                action = PlayCard(rng.choice(cards_of(h.legal_play_mask(seat))))
            game.apply(seat, action)
            actions.append((seat, action))
    return deals, actions


def replay(rules: Rules, deals: list[list[int]], actions: list[tuple[int, Action]]) -> Game:
    """Replay a recorded game through the checked path."""
    game = Game(rules)
    it = iter(actions)
    for deal in deals:
        game.start_hand(list(deal))
        h = game.hand
        assert h is not None
        while h.phase is not HandPhase.SCORED:
            game.apply(*next(it))
    assert next(it, None) is None
    return game


def seat_of_card(hands: list[int], c: int) -> int:
    return next(s for s, m in enumerate(hands) if m >> c & 1)
