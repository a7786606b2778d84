"""``ends_the_game`` errs one way only: when it says the hand ends the game, every way of
playing the rest of the hand ends it. It must also say so often enough to be of use."""

from __future__ import annotations

import copy
import random

from hearts_p2p.cards import cards_of
from hearts_p2p.engine import ChooseMoon, Game, HandPhase, PassCards, PlayCard, deal_hands
from hearts_p2p.engine.ending import ends_the_game
from hearts_p2p.rules import Moon, Rules, Ties

from .engine_helpers import SUITS, masks, play_lowest

VARIANTS = [
    Rules(target=10),
    Rules(target=26),
    Rules(players=3, target=20),
    Rules(players=5, target=12, jack_of_diamonds=True),
    Rules(players=6, target=15, moon=Moon.NEGATIVE),
    Rules(target=30, moon=Moon.CHOICE, spot_hearts=True),
    Rules(target=40, moon=Moon.OFF, queen_breaks_hearts=True),
]


def _act(game: Game, rng: random.Random) -> None:
    h = game.hand
    assert h is not None
    seat = rng.choice(game.to_act())
    if h.phase is HandPhase.PASSING:
        game.apply(seat, PassCards(tuple(rng.sample(cards_of(h.hands[seat]), 3))))
    elif h.phase is HandPhase.MOON_CHOICE:
        game.apply(seat, ChooseMoon(rng.random() < 0.5))
    else:
        game.apply(seat, PlayCard(rng.choice(cards_of(h.legal_play_mask(seat)))))


def _finish(game: Game, rng: random.Random) -> bool:
    """Play the hand out at random; whether the game is then over."""
    h = game.hand
    assert h is not None
    while h.phase is not HandPhase.SCORED:
        _act(game, rng)
    return game.over


def test_a_hand_said_to_end_the_game_ends_it_however_it_is_played() -> None:
    sure = 0
    for seed in range(60):
        rules = VARIANTS[seed % len(VARIANTS)]
        rng = random.Random(seed)
        game = Game(rules)
        while not game.over and game.number < 12:
            game.start_hand(deal_hands(rules, game.number + 1, rng))
            h = game.hand
            assert h is not None
            while h.phase is not HandPhase.SCORED:
                if h.phase is HandPhase.PLAYING and ends_the_game(rules, game.totals, h.taken):
                    sure += 1
                    for k in range(3):  # other ways of playing the rest, from here
                        assert _finish(copy.deepcopy(game), random.Random(seed * 7 + k))
                _act(game, rng)
    assert sure > 100  # it does say so, often


def test_a_moon_still_possible_keeps_the_game_going() -> None:
    """Seat 0 has taken every point so far: it may yet shoot, and 26 for each of the others
    leaves them under 30, so the hand is not sure to end the game, although seat 0 is past it."""
    rules = Rules(target=30, passing=False)
    game = Game(rules)
    game.totals = [20, 0, 0, 0]
    game.start_hand(masks(*SUITS))
    h = game.hand
    assert h is not None
    while h.phase is HandPhase.PLAYING and h.taken[0] == 0:
        game.apply(game.to_act()[0], PlayCard(cards_of(h.legal_play_mask(game.to_act()[0]))[0]))
    assert not ends_the_game(rules, game.totals, h.taken)
    play_lowest(game)
    assert h.result is not None and h.result.moon == 0
    assert not game.over  # 20, 26, 26, 26: the game goes on


def test_the_first_hand_of_a_game_to_seven_ends_it_before_a_card_is_played() -> None:
    """Four seats share 26 points, so one of them takes at least 7; a moon gives 26 to three."""
    assert ends_the_game(Rules(target=7), [0] * 4, [0] * 4)
    assert not ends_the_game(Rules(target=8), [0] * 4, [0] * 4)
    assert not ends_the_game(Rules(target=7, moon=Moon.NEGATIVE), [0] * 4, [0] * 4)
    assert not ends_the_game(Rules(target=7, ties=Ties.PLAY_ON), [0] * 4, [0] * 4)
