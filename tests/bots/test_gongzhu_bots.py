"""The Gong Zhu bots: legal in every phase for 4 and 5 players and every option, deterministic
with a sample count, and the rules of thumb on hand-made deals."""

from __future__ import annotations

import random

import pytest

from hearts_p2p.benchmarks.bots import play_hand
from hearts_p2p.bots import (
    GONGZHU_STRATEGIES,
    STRATEGIES,
    BotError,
    GameSwitch,
    GongZhuHeuristicBot,
    GongZhuMonteCarloBot,
    HeuristicBot,
    make_bot,
)
from hearts_p2p.bots.gongzhu_knowledge import gongzhu_knowledge_of
from hearts_p2p.bots.gongzhu_montecarlo import distinct_gongzhu_plays
from hearts_p2p.bots.sampler import Dealer
from hearts_p2p.cards import Card, mask_of, parse_cards
from hearts_p2p.engine import Expose, Game, HandPhase, PlayCard, SeatView, deal_hands
from hearts_p2p.rules import GameKind, Rules

from .bots_helpers import CheckedBot, gongzhu_position, view_to_act

OPTIONS: dict[str, dict[str, bool]] = {
    "standard": {},
    "expose all": {"expose_all": True},
    "expose all but sheep": {"expose_all_but_sheep": True},
    "hearts by rank": {"hearts_by_rank": True},
    "force fourth": {"force_fourth": True},
    "same colour discard": {"same_colour_discard": True},
    "partners": {"partners": True},
    "fourth, colour, rank": {
        "force_fourth": True,
        "same_colour_discard": True,
        "hearts_by_rank": True,
    },
}


def gz(players: int = 4, **options: bool) -> Rules:
    return Rules(game=GameKind.GONGZHU, players=players, **options)


def c(text: str) -> Card:
    return parse_cards(text)[0]


# Seat 1 holds J♦ under all four diamonds above it; seat 0 Q♠ with two low spades only.
DEAL_A = [
    "2C 3C QS 2S 3S 2D 3D 4D 5D 6D 7D 8D 9D",
    "4C 5C 6C 4S 5S 6S 10D JD QD KD AD 2H 3H",
    "7C 8C 9C 7S 8S 9S 10S 4H 5H 6H 7H 8H 9H",
    "10C JC QC KC AC JS KS AS 10H JH QH KH AH",
]
# Seat 0 holds Q♠ with four low spades, seat 1 J♦ under Q♦ K♦ A♦.
DEAL_C = [
    "2C QS 2S 3S 4S 5S 2D 3D 4D 5D 6D 7D 8D",
    "3C 4C 5C 6C 6S 7S 8S 9D 10D JD QD KD AD",
    "7C 8C 9C 10C JC 9S 10S JS 2H 3H 4H 5H 6H",
    "QC KC AC KS AS 7H 8H 9H 10H JH QH KH AH",
]


def _lineup(players: int, seed: int, names: tuple[str, ...]) -> list[CheckedBot]:
    def bot(name: str, s: int) -> CheckedBot:
        options = {"samples": 2} if "montecarlo" in name else {}
        return CheckedBot(make_bot(name, seed * 10 + s, **options))

    return [bot(names[(s + seed) % len(names)], s) for s in range(players)]


@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_gongzhu_bots_play_legally(players: int, option: str) -> None:
    if players == 5 and "partners" in OPTIONS[option]:
        pytest.skip("partners needs 4 players")
    rules = gz(players, **OPTIONS[option])
    names = ("random", "heuristic", "montecarlo", "gongzhu-heuristic", "gongzhu-montecarlo")
    for number in range(1, 4):
        deal = deal_hands(rules, number, random.Random(number * 31 + players))
        hand = play_hand(rules, number, deal, _lineup(players, number, names))
        assert hand.phase is HandPhase.SCORED


@pytest.mark.parametrize("option", ["expose all", "force fourth", "same colour discard"])
def test_heuristic_tables_play_legally_across_many_deals(option: str) -> None:
    for players in (4, 5):
        rules = gz(players, **OPTIONS[option])
        for d in range(30):
            deal = deal_hands(rules, d % 5 + 1, random.Random(d))
            bots = [CheckedBot(GongZhuHeuristicBot()) for _ in range(players)]
            play_hand(rules, d % 5 + 1, deal, bots)


def test_a_forced_fourth_exposure_is_made() -> None:
    rules = gz(force_fourth=True)
    game = gongzhu_position(rules, DEAL_C)
    for seat, shown in ((0, "QS"), (1, "JD"), (2, "10C"), (3, "")):
        game.apply(seat, Expose(tuple(parse_cards(shown))))
    assert game.to_act() == [3]  # seat 3 kept A♥ back; with three shown it owes the fourth
    view = SeatView.of(game, 3)
    action = GongZhuHeuristicBot().choose(view)
    assert action == Expose((c("AH"),)) and action in view.legal


@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("option", ["standard", "expose all", "same colour discard", "partners"])
def test_montecarlo_is_deterministic_with_a_sample_count(players: int, option: str) -> None:
    if players == 5 and option == "partners":
        pytest.skip("partners needs 4 players")
    rules = gz(players, **OPTIONS[option])
    deal = deal_hands(rules, 2, random.Random(5 + players))
    first = [GongZhuMonteCarloBot(9 + s, samples=3) for s in range(players)]
    second = [GongZhuMonteCarloBot(9 + s, samples=3) for s in range(players)]
    a = play_hand(rules, 2, deal, [CheckedBot(b) for b in first])
    b = play_hand(rules, 2, deal, [CheckedBot(b) for b in second])
    assert [t.cards for t in a.tricks] == [t.cards for t in b.tricks]
    assert a.exposures == b.exposures
    assert all(bot.worlds == 3 * bot.searches > 0 for bot in first)


def test_montecarlo_respects_a_wall_clock_budget() -> None:
    rules = gz()
    game = gongzhu_position(rules, DEAL_C)
    bot = GongZhuMonteCarloBot(1, budget_ms=1)
    while game.hand is not None and game.hand.phase is not HandPhase.SCORED:
        seat = game.to_act()[0]
        game.apply(seat, bot.choose(SeatView.of(game, seat)))
    assert bot.searches and bot.worlds >= 4 * bot.searches


def test_make_bot_plays_the_game_of_the_view() -> None:
    hearts = Game(Rules())
    hearts.start_hand(deal_hands(Rules(), 1, random.Random(1)))
    gongzhu = gongzhu_position(gz(), DEAL_A)
    for name in ("heuristic", "montecarlo"):
        bot = make_bot(name, 3, **({"samples": 2} if name == "montecarlo" else {}))
        assert isinstance(bot, GameSwitch) and bot.name == name
        for game in (hearts, gongzhu):
            view = SeatView.of(game, 0)
            assert bot.choose(view) in view.legal
    assert isinstance(make_bot("heuristic").hearts, HeuristicBot)  # type: ignore[attr-defined]
    # The Gong Zhu-only names are not offered where a Hearts table picks its bots.
    assert set(GONGZHU_STRATEGIES) == {"gongzhu-heuristic", "gongzhu-montecarlo"}
    assert not set(GONGZHU_STRATEGIES) & set(STRATEGIES)
    assert isinstance(make_bot("gongzhu-heuristic"), GongZhuHeuristicBot)
    with pytest.raises(BotError, match="plays Gong Zhu, not hearts"):
        make_bot("gongzhu-heuristic").choose(SeatView.of(hearts, 0))
    with pytest.raises(BotError, match="plays Gong Zhu"):
        make_bot("gongzhu-montecarlo").choose(SeatView.of(hearts, 0))


# -- exposure ------------------------------------------------------------------------------------


def _exposures(rules: Rules, deal: list[str]) -> list[str]:
    game = gongzhu_position(rules, deal)
    out = []
    for seat in range(rules.players):
        view = SeatView.of(game, seat)
        action = GongZhuHeuristicBot().choose(view)
        assert isinstance(action, Expose) and action in view.legal
        out.append(" ".join(str(x) for x in action.cards))
    return out


def test_the_pig_is_shown_only_with_cover_and_the_sheep_with_control() -> None:
    # DEAL_A: Q♠ with two low spades stays hidden; J♦ under A♦ K♦ Q♦ is shown; A♥ never.
    assert _exposures(gz(), DEAL_A) == ["", "J♦", "", ""]
    # DEAL_C: Q♠ with four low spades is shown.
    assert _exposures(gz(), DEAL_C) == ["Q♠", "J♦", "", ""]


def test_forced_exposures_are_made_and_the_barred_sheep_kept() -> None:
    assert _exposures(gz(expose_all=True), DEAL_A) == ["Q♠", "J♦", "", "10♣ A♥"]
    assert _exposures(gz(expose_all_but_sheep=True), DEAL_A) == ["Q♠", "", "", "10♣ A♥"]


# -- card play -----------------------------------------------------------------------------------


def test_the_pig_drops_on_a_higher_spade_unless_exposed() -> None:
    # Trick 1 to seat 3's A♣; it leads A♠ and seat 0 holds Q♠.
    game = gongzhu_position(gz(), DEAL_A, {}, plays="2C 4C 7C AC AS")
    assert GongZhuHeuristicBot().choose(view_to_act(game)) == PlayCard(c("QS"))
    # Exposed, Q♠ sits out the first spade trick: the bot plays a legal spade.
    game = gongzhu_position(gz(), DEAL_A, {0: "QS"}, plays="2C 4C 7C AC AS")
    view = view_to_act(game)
    action = GongZhuHeuristicBot().choose(view)
    assert action in view.legal and action != PlayCard(c("QS"))


def test_the_pig_is_flushed_with_spades_below_it() -> None:
    # Seat 3 leads after A♣: Q♠ is out, so it leads J♠ (below the pig), not a heart.
    game = gongzhu_position(gz(), DEAL_A, {}, plays="2C 4C 7C AC")
    assert GongZhuHeuristicBot().choose(view_to_act(game)) == PlayCard(c("JS"))


def test_the_sheep_is_led_when_no_diamond_above_it_is_out() -> None:
    deal = DEAL_A[:]
    deal[1], deal[3] = deal[1].replace("6C", "AC"), deal[3].replace("AC", "6C")
    game = gongzhu_position(gz(), deal, {}, plays="2C AC 7C 6C")
    assert game.to_act() == [1]
    assert GongZhuHeuristicBot().choose(view_to_act(game)) == PlayCard(c("JD"))


def test_knowledge_pins_exposed_cards_to_their_owners_and_reads_voids() -> None:
    # Seat 3 takes trick 1 and leads 7♥; seats 0 and 1 show out of hearts.
    game = gongzhu_position(gz(), DEAL_C, {0: "QS", 1: "JD"}, plays="2C 3C 7C QC 7H 2D 9D 2H")
    k = gongzhu_knowledge_of(SeatView.of(game, 2))
    assert k.pinned[0] == 1 << c("QS") and k.pinned[1] == 1 << c("JD")
    hearts = mask_of(parse_cards("8H 9H 10H JH QH KH AH"))
    assert k.forbidden[0] & hearts == hearts and k.forbidden[1] & hearts == hearts
    dealer = Dealer(k)
    rng = random.Random(4)
    for _ in range(50):
        hands = dealer.deal(rng)
        assert hands[0] >> c("QS") & 1 and hands[1] >> c("JD") & 1
        assert not (hands[0] | hands[1]) & hearts and hands[3] & hearts == hearts
        assert sum(h.bit_count() for h in hands) == sum(k.counts)
    assert distinct_gongzhu_plays(mask_of(parse_cards("2H 3H 4H")), 0) == parse_cards("2H 3H 4H")
    assert distinct_gongzhu_plays(mask_of(parse_cards("2C 3C 5C")), 0) == [c("2C")]
    live = 1 << c("4C")
    assert distinct_gongzhu_plays(mask_of(parse_cards("2C 3C 5C")), live) == [c("2C"), c("5C")]


def test_a_void_seat_dumps_the_pig_on_the_winner() -> None:
    # Seat 3 takes trick 1 with Q♣ and leads 7♥; seat 0 has no heart and drops Q♠ on it.
    game = gongzhu_position(gz(), DEAL_C, {}, plays="2C 3C 7C QC 7H")
    assert GongZhuHeuristicBot().choose(view_to_act(game)) == PlayCard(c("QS"))
    # Seat 1, void too, keeps its sheep from seat 3, but gives it to seat 3 as its partner.
    plays = "2C 3C 7C QC 7H QS"
    game = gongzhu_position(gz(), DEAL_C, {}, plays=plays)
    assert GongZhuHeuristicBot().choose(view_to_act(game)) != PlayCard(c("JD"))
    game = gongzhu_position(gz(partners=True), DEAL_C, {}, plays=plays)
    assert GongZhuHeuristicBot().choose(view_to_act(game)) == PlayCard(c("JD"))


def test_the_pig_is_never_dropped_on_a_partner() -> None:
    # Seat 1 holds Q♠ 6♠ 7♠; seat 3 leads K♠. Alone it drops the pig; as seat 3's partner not.
    deal = DEAL_C[:]
    deal[0], deal[1] = deal[0].replace("QS", "8S"), deal[1].replace("8S", "QS")
    plays = "2C 3C 7C QC KS 2S"
    game = gongzhu_position(gz(), deal, {}, plays=plays)
    assert GongZhuHeuristicBot().choose(view_to_act(game)) == PlayCard(c("QS"))
    game = gongzhu_position(gz(partners=True), deal, {}, plays=plays)
    assert GongZhuHeuristicBot().choose(view_to_act(game)) == PlayCard(c("7S"))
