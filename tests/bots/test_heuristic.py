"""The heuristic's rules of thumb, each on a hand-made position."""

from __future__ import annotations

from hearts_p2p.bots import HeuristicBot
from hearts_p2p.bots.heuristic import choose_moon, choose_pass
from hearts_p2p.cards import Card, mask_of, parse_cards
from hearts_p2p.engine import Game, PassCards, PlayCard
from hearts_p2p.rules import Moon, Rules

from .bots_helpers import no_pass, position, view_to_act

# Seat 1 wins the first trick; seat 2 is void in diamonds and holds Q♠; seat 3 holds A♠.
QUEEN_DEAL = [
    "2C 5C 6C 7C 8C 9C 10C 2D 3D 4D 5D 6D 7D",
    "AC KC QC JC KS 2S 3S 4S 8D 9D 10D JD QD",
    "3C QS 8S JS 5S 7H 8H 9H 10H JH QH KH AH",
    "4C AS 9S 6S 7S 10S 2H 3H 4H 5H 6H KD AD",
]
# Seat 1 runs its clubs while seats 2 and 3, void, feed it six hearts; then it leads 9♦.
MOON_DEAL = [
    "2C 5C 6C 7C 8C 9C 10C 2D 4D 5D 2S 3S 4S",
    "AC KC QC JC 9D 6D AH KH QH 8S 9S 10S JS",
    "3C 2H 3H 4H 5H 9H 10H JH QS KS AS 5S 6S",
    "4C AD 3D 6H 7H 8H 7D 8D 10D JD QD KD 7S",
]
MOON_PLAYS = "2C AC 3C 4C  KC 2H 6H 5C  QC 3H 7H 6C  JC 4H 8H 7C  9D 5H"


def _play(game: Game) -> Card:
    action = HeuristicBot().choose(view_to_act(game))
    assert isinstance(action, PlayCard)
    return action.card


def test_dumps_queen_of_spades_when_void() -> None:
    game = position(no_pass(Rules()), 4, QUEEN_DEAL, "2C AC 3C 4C 8D")
    assert _play(game) == Card.parse("QS")


def test_drops_its_queen_under_a_higher_spade() -> None:
    game = position(no_pass(Rules()), 4, QUEEN_DEAL, "2C AC 3C 4C KS")
    assert _play(game) == Card.parse("QS")


def test_ducks_rather_than_eat_the_queen() -> None:
    game = position(no_pass(Rules()), 4, QUEEN_DEAL, "2C AC 3C 4C KS QS")
    assert _play(game) == Card.parse("10S")


def test_stops_a_moon_by_taking_a_heart() -> None:
    game = position(no_pass(Rules()), 4, MOON_DEAL, MOON_PLAYS)
    assert _play(game) > Card.parse("9D")


def test_ducks_the_same_trick_when_nobody_is_shooting() -> None:
    game = position(no_pass(Rules(moon=Moon.OFF)), 4, MOON_DEAL, MOON_PLAYS)
    assert _play(game) == Card.parse("8D")


def test_passes_the_queen_with_few_low_spades() -> None:
    hand = mask_of(parse_cards("QS 3S AC KC QC 2D 3D 4D 5D 2C 3C 4C 5C"))
    assert choose_pass(hand, Rules()) & (1 << Card.parse("QS"))


def test_keeps_the_queen_covered_by_low_spades() -> None:
    hand = mask_of(parse_cards("QS 2S 3S 4S 5S AC KC QC 2D 3D 4D 2C 3C"))
    passed = choose_pass(hand, Rules())
    assert not passed & (1 << Card.parse("QS"))
    assert passed == mask_of(parse_cards("AC KC QC"))


def test_bot_pass_is_one_of_the_legal_passes() -> None:
    game = position(Rules(), 1, QUEEN_DEAL)
    view = view_to_act(game)
    action = HeuristicBot().choose(view)
    assert isinstance(action, PassCards) and action in view.legal


def test_moon_choice_follows_the_standing() -> None:
    rules = Rules()
    # Adding 26 to the others ends the game with the shooter lowest: end it.
    assert choose_moon(rules, (60, 80, 75, 90), 0) is True
    # Adding 26 would end it with the shooter behind: take 26 off instead.
    assert choose_moon(rules, (70, 40, 75, 90), 0) is False
    # No end in sight: the leader speeds the game up, the others slow it down.
    assert choose_moon(rules, (10, 20, 30, 40), 0) is True
    assert choose_moon(rules, (30, 20, 10, 40), 0) is False
