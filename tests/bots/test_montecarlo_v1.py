"""``montecarlo-v1`` is a fixed baseline: its play on seeded deals is pinned card for card."""

from __future__ import annotations

import random

import pytest

from hearts_p2p.benchmarks.bots import play_hand
from hearts_p2p.bots import make_bot
from hearts_p2p.cards import CARDS
from hearts_p2p.engine import deal_hands
from hearts_p2p.rules import Moon, Rules

# (rules, hand number, deal seed): the cards of every trick in play order, as the bot played
# them when it was the only Monte-Carlo bot (4 worlds per move, seat s seeded seed * 10 + s).
PINNED = [
    (
        Rules(),
        1,
        3,
        "2C 4C QC 8C 3C KS 7C KD 2D 6D 5D 4D 2S 8S AS 5S 3S KH 10S 9S AD 9D 7D 3D 6H 4H AH 10H "
        "8D 10C QS 10D 5C JD JC 9H 3H 4S 2H 7H 8H 5H 6S QH 6C JH KC 7S AC JS 9C QD",
    ),
    (
        Rules(players=3, jack_of_diamonds=True),
        2,
        4,
        "4D AD 3D QD 5D 2D 9D KD JD 7D KC 10D JS 10S 3S 6S KS QS 3C AC 6C 7C 8C 4C 2S 8D 5S 7S "
        "4S 10H 8S AS 8H 10C 5C QH JC 9C KH 4H 2H 6H 7H JH 3H AH 5H 9H 6D QC 9S",
    ),
    (
        Rules(players=6, moon=Moon.CHOICE),
        3,
        5,
        "3D QD JD KS KD 3S 6S KC AH 4C JS 7S 6C JC AC 5C 10H 10C 4D 3H 6D 5D QS 7H 5H 8H 9C 2H "
        "9S 6H 9H 7C 4H 10S JH 7D QH 10D 9D 4S QC AS KH AD 8C 5S 8S 8D",
    ),
    (
        Rules(spot_hearts=True, queen_breaks_hearts=True),
        4,
        6,
        "2C KC AC 10C 10S 7S 9S KS QS 4S 8S 5S 2S KH 3S 6S AD 10D KD QD 7C 3C 10H JC QC 8C 4C "
        "5H 8D 6D JD 9D 8H 4H 7H 6H 5C 2H JH 9C 3H QH 3D 4D 9H 5D JS AH 2D 6C 7D AS",
    ),
]


@pytest.mark.parametrize(("rules", "number", "seed", "plays"), PINNED)
def test_montecarlo_v1_plays_as_pinned(rules: Rules, number: int, seed: int, plays: str) -> None:
    deal = deal_hands(rules, number, random.Random(seed))
    bots = [make_bot("montecarlo-v1", seed * 10 + s, samples=4) for s in range(rules.players)]
    hand = play_hand(rules, number, deal, bots)
    assert " ".join(CARDS[c].ascii for t in hand.tricks for c in t.cards) == plays
