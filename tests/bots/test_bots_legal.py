"""Every bot answers every view with one of its legal actions, under every rule and table size."""

from __future__ import annotations

import dataclasses
import random

import pytest

from hearts_p2p.benchmarks.bots import play_hand
from hearts_p2p.bots import BotError, HeuristicBot, MonteCarloBot, RandomBot, make_bot
from hearts_p2p.engine import ChooseMoon, Game, HandPhase, HandState, SeatView, deal_hands
from hearts_p2p.rules import Moon, Rules

from .bots_helpers import CheckedBot, view_to_act

OPTIONS = {
    "standard": {},
    "jack": {"jack_of_diamonds": True},
    "spot": {"spot_hearts": True},
    "moon choice": {"moon": Moon.CHOICE},
    "moon negative": {"moon": Moon.NEGATIVE},
    "moon off": {"moon": Moon.OFF},
    "queen breaks": {"queen_breaks_hearts": True},
    "no passing": {"passing": False},
}


def _lineup(players: int, seed: int) -> list[CheckedBot]:
    bots = [RandomBot(seed), HeuristicBot(seed), MonteCarloBot(seed, samples=2)]
    return [CheckedBot(bots[(s + seed) % 3]) for s in range(players)]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_bots_play_legally(players: int, option: str) -> None:
    rules = Rules(players=players, **OPTIONS[option])
    for number in range(1, 5):
        deal = deal_hands(rules, number, random.Random(number * 31 + players))
        hand = play_hand(rules, number, deal, _lineup(players, number))
        assert hand.phase is HandPhase.SCORED


def test_heuristic_tables_play_legally_across_many_deals() -> None:
    rules = Rules(jack_of_diamonds=True, queen_breaks_hearts=True)
    for d in range(40):
        deal = deal_hands(rules, d % 4 + 1, random.Random(d))
        bots = [CheckedBot(HeuristicBot()) for _ in range(4)]
        play_hand(rules, d % 4 + 1, deal, bots)


def test_every_bot_makes_the_moon_choice() -> None:
    rules = Rules(moon=Moon.CHOICE)
    for d in range(500):
        game = Game(rules)
        game.hand = HandState.deal(rules, 4, deal_hands(rules, 4, random.Random(d)))
        bots = [RandomBot(d * 4 + s) for s in range(4)]
        while game.hand.phase is HandPhase.PLAYING:
            seat = game.to_act()[0]
            game.apply(seat, bots[seat].choose(SeatView.of(game, seat)))
        if game.hand.phase is HandPhase.MOON_CHOICE:
            break
    else:
        pytest.fail("no moon in 500 random hands")
    view = view_to_act(game)
    for name in ("random", "heuristic", "montecarlo", "montecarlo-v1"):
        action = make_bot(name, 1).choose(view)
        assert isinstance(action, ChooseMoon) and action in view.legal


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("option", ["standard", "jack", "moon choice", "queen breaks"])
def test_montecarlo_is_deterministic_with_a_sample_count(players: int, option: str) -> None:
    rules = Rules(players=players, **OPTIONS[option])
    deal = deal_hands(rules, 2, random.Random(5 + players))
    first = [MonteCarloBot(9 + s, samples=3) for s in range(players)]
    second = [MonteCarloBot(9 + s, samples=3) for s in range(players)]
    a = play_hand(rules, 2, deal, [CheckedBot(b) for b in first])
    b = play_hand(rules, 2, deal, [CheckedBot(b) for b in second])
    assert [t.cards for t in a.tricks] == [t.cards for t in b.tricks]
    assert all(bot.worlds == 3 * bot.searches > 0 for bot in first)


def test_montecarlo_respects_a_wall_clock_budget() -> None:
    rules = dataclasses.replace(Rules(), passing=False)
    game = Game(rules)
    game.hand = HandState.deal(rules, 1, deal_hands(rules, 1, random.Random(3)))
    bot = MonteCarloBot(1, budget_ms=20)
    while game.hand.phase is HandPhase.PLAYING:
        seat = game.to_act()[0]
        game.apply(seat, bot.choose(SeatView.of(game, seat)))


def test_unknown_strategy_and_idle_seat_are_refused() -> None:
    with pytest.raises(BotError, match="no bot strategy"):
        make_bot("oracle")
    game = Game(Rules())
    game.start_hand(deal_hands(Rules(), 1, random.Random(1)))
    game.apply(0, make_bot("heuristic").choose(SeatView.of(game, 0)))
    with pytest.raises(BotError, match="no legal action"):
        make_bot("heuristic").choose(SeatView.of(game, 0))
