"""The hard bot: legal and reproducible everywhere, and each of its parts does what it says."""

from __future__ import annotations

import random

import pytest

from hearts_p2p.benchmarks.bots import play_hand, speed_positions
from hearts_p2p.bots import GameSwitch, GongZhuMonteCarloBot, HardBot, HeuristicBot, make_bot
from hearts_p2p.bots.endgame import Endgame
from hearts_p2p.bots.hard import (
    BOLD_HUNT,
    FRESH_TRIES,
    HUNT_TRIES,
    HuntWorlds,
    _hunter_in,
    _proven_best,
    moon_hunters,
)
from hearts_p2p.bots.inference import with_signals
from hearts_p2p.bots.knowledge import knowledge_of
from hearts_p2p.bots.passing import PassSearch, pass_candidates
from hearts_p2p.bots.rollout import Position, play_out, score, table_of
from hearts_p2p.bots.sampler import Dealer
from hearts_p2p.bots.standing import GAME_LOSS, Standing, win_chance
from hearts_p2p.cards import HEARTS_MASK, QUEEN_SPADES, cards_of, parse_cards
from hearts_p2p.engine import (
    Game,
    HandPhase,
    HandState,
    PassCards,
    PlayCard,
    SeatView,
    deal_hands,
)
from hearts_p2p.rules import Moon, Rules

from .bots_helpers import CheckedBot, no_pass, position, view_to_act
from .test_bots_legal import OPTIONS


def _plays(hand: HandState) -> list[tuple[int, tuple[int, ...]]]:
    return [(t.leader, t.cards) for t in hand.tricks]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_hard_plays_legally_under_every_rule(players: int, option: str) -> None:
    rules = Rules(players=players, **OPTIONS[option])
    for number in range(1, 4):
        deal = deal_hands(rules, number, random.Random(number * 7 + players))
        bots = [
            CheckedBot(HardBot(number + s, samples=2) if s % 2 == 0 else HeuristicBot())
            for s in range(players)
        ]
        assert play_hand(rules, number, deal, bots).phase is HandPhase.SCORED


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_hard_decides_the_same_for_the_same_seed_and_samples(players: int) -> None:
    rules = Rules(players=players, moon=Moon.CHOICE, jack_of_diamonds=True)
    deal = deal_hands(rules, 1, random.Random(players))
    runs = []
    for _ in range(2):
        bots = [make_bot("hard", 5 + s, samples=3) for s in range(players)]
        runs.append(_plays(play_hand(rules, 1, deal, bots)))
    assert runs[0] == runs[1]


def test_hard_ends_a_search_once_one_card_is_left_in_the_race_and_stays_reproducible() -> None:
    views = speed_positions(Rules(), 8, 1)
    worlds = []
    for view in views:
        first, second = HardBot(3, samples=120), HardBot(3, samples=120)
        assert first.choose(view) == second.choose(view)
        assert first.worlds == second.worlds <= 120
        worlds.append(first.worlds)
    # Some decisions are plain after a few dozen worlds, some stay close to the end.
    assert min(worlds) < 120 and max(worlds) == 120


def _reference(h: HandState, seat: int) -> tuple[float, ...]:
    """Max-n by the engine itself: every seat plays the legal card best for its own payoff."""
    if h.phase is HandPhase.SCORED:
        assert h.result is not None
        points = h.result.points
        n = len(points)
        return tuple(p - (sum(points) - p) / (n - 1) for p in points)
    turn = h.turn
    assert turn is not None
    best: tuple[float, ...] | None = None
    for c in cards_of(h.legal_play_mask(turn)):
        child = h.clone()
        child.play(turn, c)
        value = _reference(child, seat)
        if best is None or value[turn] < best[turn]:
            best = value
    assert best is not None
    return best


@pytest.mark.parametrize("seed", range(12))
def test_endgame_solve_agrees_with_exhaustive_search_by_the_engine(seed: int) -> None:
    rng = random.Random(seed)
    rules = Rules(
        players=rng.choice([3, 4]),
        moon=Moon.CLASSIC,
        spot_hearts=seed % 4 == 1,
        jack_of_diamonds=bool(seed % 2),
        queen_breaks_hearts=bool(seed % 3 == 0),
    )
    rules = no_pass(rules)
    game = Game(rules)
    game.hand = h = HandState.deal(rules, 1, deal_hands(rules, 1, rng))
    bot = HeuristicBot()

    def step() -> None:
        assert h.turn is not None
        game.apply(h.turn, bot.choose(SeatView.of(game, h.turn)))

    while len(cards_of(h.hands[h.turn or 0])) > 2 + seed % 2:  # two or three cards left
        step()
    for _ in range(rng.randrange(rules.players)):  # somewhere into that trick
        step()
    seat = h.turn
    assert seat is not None
    pos = Position.of(h, seat)
    t = table_of(rules)
    adds = [False] * rules.players

    def costs(taken: list[int]) -> tuple[float, ...]:
        points = score(t, taken, adds)
        n = len(points)
        return tuple(p - (sum(points) - p) / (n - 1) for p in points)

    # One solver for every world of the decision, as the bot uses it: the true deal, then the
    # others' cards dealt again, so what it remembers from one world is tried on the next.
    endgame = Endgame(pos, tuple(h.trick), rules, costs)
    others = [s for s in range(rules.players) if s != seat]
    for _ in range(4):
        for c in cards_of(h.legal_play_mask(seat)):
            child = h.clone()
            child.play(seat, c)
            assert endgame.solve(h.hands[:], c) == pytest.approx(_reference(child, seat)[seat])
        cards = [c for s in others for c in cards_of(h.hands[s])]
        rng.shuffle(cards)
        for s in others:
            count = h.hands[s].bit_count()
            h.hands[s] = sum(1 << c for c in cards[:count])
            cards = cards[count:]


@pytest.mark.parametrize("players", [3, 4])
def test_an_endgame_solver_remembers_nothing_that_changes_a_later_world(players: int) -> None:
    # Worlds of one decision often reach the same hands at a trick's start with other cards
    # taken: what the solver remembers must tell them apart.
    rules = Rules(players=players, jack_of_diamonds=True)
    t = table_of(rules)

    def costs(taken: list[int]) -> tuple[float, ...]:
        points = score(t, taken, [False] * players)
        return tuple(p - (sum(points) - p) / (players - 1) for p in points)

    views = [
        v
        for v in speed_positions(rules, 60, 3)
        if 12 <= sum(knowledge_of(v).counts) <= 14 and v.tricks
    ]
    assert len(views) >= 2
    for view in views[:2]:
        k = knowledge_of(view)
        h = k.state
        pos = Position.of(h, view.seat)
        shared = Endgame(pos, tuple(h.trick), rules, costs)
        dealer = Dealer(k)
        rng = random.Random(2)
        for _ in range(12):
            hands = dealer.deal(rng)
            for c in cards_of(h.legal_play_mask(view.seat)):
                fresh = Endgame(pos, tuple(h.trick), rules, costs)
                assert shared.solve(hands, c) == fresh.solve(hands, c)


def _first_lead(hands: list[str]) -> tuple[HandState, Position, int]:
    """Hand 1 of ``hands``, no pass, at its first lead: the hand, the position of the seat that
    holds 2♣, and 2♣."""
    h = position(no_pass(Rules()), 1, hands).hand
    assert h is not None and h.turn is not None
    (two,) = parse_cards("2C")
    return h, Position.of(h, h.turn), two


def test_a_forced_shooter_takes_every_trick_it_can() -> None:
    h, pos, two = _first_lead(
        ["AH KH QH JH TH 9H 8H 7H AS KS QS AD 3C", "2C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D",
         "6H 5H 4H 3H 2H 3D 4D 5D 6D 7D 8D 9D TD", "JS TS 9S 8S 7S 6S 5S 4S 3S 2S JD QD KD"]
    )  # fmt: skip
    # One loser (3♣ under the clubs out): the policy alone would not run, a forced shooter does.
    taken = play_out(pos, h.hands[:], two, 0)
    assert taken[0] & (1 << QUEEN_SPADES) and score(table_of(h.rules), taken, [False] * 4)[0] == 0


def test_a_hunt_the_defence_watches_from_the_first_card_is_stopped() -> None:
    """``play_out``'s ``watched``: the defenders who wait for the hunter's points let this moon
    through; the same defenders watching it from the first card stop it."""
    h, pos, two = _first_lead(
        ["6C TC JC QC KC AC 5D KD JS JH QH KH AH", "8C 9C 2D 9D QD AD 6S 7S TS KS AS 5H 8H",
         "2C 5C 3D 6D TD JD 5S 2H 4H 6H 7H 9H TH", "3C 4C 7C 4D 7D 8D 2S 3S 4S 8S 9S QS 3H"]
    )  # fmt: skip
    late = play_out(pos, h.hands[:], two, 0)
    watched = play_out(pos, h.hands[:], two, 0, 0)
    points = (1 << QUEEN_SPADES) | HEARTS_MASK
    assert late[0] & points == points
    assert watched[0] & points != points


def test_the_hunters_are_every_rival_until_one_alone_shows_points() -> None:
    """Before any point every rival may be hunting, in the worlds that deal it a strong hand; then
    only the one who alone has points, in every world, the likelier the more it shows, a point or
    two weighing little in a weak world; once two seats have points nobody can."""
    rules = no_pass(Rules())
    hands = [" ".join(r + suit for r in "23456789TJQKA") for suit in "CDSH"]
    start = position(rules, 1, hands)
    assert start.hand is not None
    rivals, early, anyway, bold = moon_hunters(knowledge_of(SeatView.of(start, 1)), 1)
    assert rivals == (0, 2, 3) and 0 < early < 1 and anyway == 0 and bold == 0
    # Seat 0 takes the first two tricks (clubs are its alone), seat 3 throwing a heart on each.
    shown = position(rules, 1, hands, "2C 2D 2S 2H 3C 3D 3S 3H")
    assert shown.hand is not None and shown.hand.taken[0]
    rivals, strong, weak, bold = moon_hunters(knowledge_of(SeatView.of(shown, 1)), 1)
    assert rivals == (0,) and strong > early and 0 < weak < 0.1 and bold == 0
    assert moon_hunters(knowledge_of(SeatView.of(shown, 0)), 0) == ((), 0.0, 0.0, 0)


def test_a_rival_leading_what_only_a_hunter_leads_is_hunted_whatever_its_hand() -> None:
    """Seat 3, the lone taker, leads K♥ while A♥ is out (an ordinary lead), then A♥, the top
    heart: a bold lead, so it is hunted in every world, the weak ones too, at ``BOLD_HUNT``."""
    hands = [
        "5C 4D 9D QD 2S KS 3H 4H 5H 7H 9H TH JH",
        "4C 8C 2D 3D 6D 8D 3S 5S 6S 7S 8S 2H QH",
        "3C 6C 7C 5D 7D TD JD 4S 9S TS QS AS 6H",
        "2C 9C TC JC QC KC AC KD AD JS 8H KH AH",
    ]
    plays = ("2C 5C 8C 3C 5S 9S JS KS 2S 6S TS 9C 4S TC QD 3S 7D KD 9D 8D AD 4D 6D 5D "
             "JC 9H 4C 6C KH TH QH 6H")  # fmt: skip
    before = position(Rules(), 8, hands, plays)
    assert moon_hunters(knowledge_of(SeatView.of(before, 0)), 0)[3] == 0
    led = position(Rules(), 8, hands, plays + " AH")
    rivals, _, shown, bold = moon_hunters(knowledge_of(SeatView.of(led, 0)), 0)
    assert rivals == (3,) and bold == 1 << 3 and shown == BOLD_HUNT
    weak = [0, 0, 0, 0]  # a world where seat 3's hand could not run the rest
    weak[3] = sum(1 << c for c in parse_cards("2H 3C 4C 5C"))
    weak[1] = sum(1 << c for c in parse_cards("6C 7C 8C 9H"))
    assert _hunter_in(weak, rivals, 1.0, shown, bold) == (3, BOLD_HUNT)


def test_a_hunt_we_alone_watch_is_stopped_by_the_heart_we_keep() -> None:
    """``play_out``'s ``watchers``: seat 0 runs for the moon; a table that waits for its points
    lets it through. We alone watching it from the first card keep K♥ under its A♥ and take
    its Q♥ with it; the other seats still play as the policy does."""
    h, pos, two = _first_lead(
        ["AH QH JH TH 9H 2H AC KC QC AD KD AS KS", "KH 3H 2C 3C 4C 2D 3D 4D 2S 3S 4S 5S 6S",
         "4H 5H 6H 7H 8H 5C 6C 7C 5D 6D 7D 7S 8S", "JC TC 9C 8C 8D 9D TD JD QD 9S TS JS QS"]
    )  # fmt: skip
    points = (1 << QUEEN_SPADES) | HEARTS_MASK
    kept = sum(1 << c for c in parse_cards("KH QH"))
    (low,) = parse_cards("3H")
    late = play_out(pos, h.hands[:], two, 0)
    assert late[0] & points == points
    ours = play_out(pos, h.hands[:], two, 0, 0, 1 << 1)
    # 3♥ went under A♥, K♥ took Q♥: the moon is stopped.
    assert ours[0] & 1 << low and ours[1] & kept == kept and ours[0] & points != points


class _OneWorld:
    """A dealer of one world, counting what it deals."""

    def __init__(self, world: list[int]) -> None:
        self.world = world
        self.dealt = 0

    def deal(self, rng: random.Random) -> list[int]:
        self.dealt += 1
        return self.world[:]


def test_a_hunt_is_played_in_a_world_where_its_moon_runs_or_not_at_all() -> None:
    """``HuntWorlds`` keeps a world in which the hunter's moon runs against a table that waits
    for its points, and plays a world found again once fresh ones stop fitting; for a hunter
    whose moon runs in none of ``HUNT_TRIES`` worlds it deals no more in this decision."""
    h, pos, _ = _first_lead(
        ["AH KH QH JH TH 9H 8H AC KC QC AD KD AS", "2H 3H 2C 3C 4C 2D 3D 4D 2S 3S 4S 5S 6S",
         "4H 5H 6H 7H 5C 6C 7C 5D 6D 7D 7S 8S KS", "JC TC 9C 8C 8D 9D TD JD QD 9S TS JS QS"]
    )  # fmt: skip
    options = list(cards_of(h.legal_play_mask(1)))
    runs = h.hands[:]
    one = _OneWorld(runs)
    hunts = HuntWorlds(pos, one, options)  # type: ignore[arg-type]
    rng = random.Random(1)
    assert hunts.deal(runs, 0, rng) == runs and one.dealt == 0
    # Seat 2 cannot run: each world tried is the same, none fits; the next ask deals nothing.
    assert hunts.deal(runs, 2, rng) is None and one.dealt == HUNT_TRIES - 1
    assert hunts.deal(runs, 2, rng) is None and one.dealt == HUNT_TRIES - 1
    # A world where seat 0 cannot run either: fresh ones are tried, then the one found is kept.
    weak = runs[:]
    weak[0], weak[2] = runs[2], runs[0]
    other = _OneWorld(weak)
    hunts.dealer = other  # type: ignore[assignment]
    assert hunts.deal(weak, 0, rng) == runs and other.dealt == FRESH_TRIES - 1


@pytest.mark.parametrize(
    ("hands", "plays", "stops"),
    [
        (
            ["3C AC 3D 5D 6D 8D 2S 3S 6S AS 4H 7H AH", "4C 8C TC JC QC 2D 7D 5S 9S JS KS 3H QH",
             "6C 7C 9C 4D TD JD QD KD AD 7S 8H 9H KH", "2C 5C KC 9D 4S 8S TS QS 2H 5H 6H TH JH"],
            "2C AC TC 9C 8D 7D 4D 9D KC 3C 8C 6C TS 2S JS 7S 2D TD QS 3D 7C 5C AH",
            "JC QC",
        ),
        (
            ["2C 4S 7S 9S JS QS KS AS 5H 7H 9H JH QH", "7C 2D 5D 9D 2S 3S 5S 8S 3H 4H 8H TH AH",
             "TC QC AC 6D 8D TD JD QD KD AD 6S 6H KH", "3C 4C 5C 6C 8C 9C JC KC 3D 4D 7D TS 2H"],
            "2C 7C AC KC TD 7D QS 9D 6S TS 9S 2S 3D JH 2D 6D 8D 4D QH 5D QC JC 9H 8H JD 2H 7H",
            "3S 5S 8S 3H 4H TH",
        ),
    ],
)  # fmt: skip
def test_a_defender_stops_the_moon_of_a_lone_queen_holder_whose_hand_runs(
    hands: list[str], plays: str, stops: str
) -> None:
    """Seat 2 alone has points, Q♠ among them, and its cards run every trick left unless seat 1
    stops it. Seat 1 takes A♥ with J♣ for a point instead of ducking under 7♣; or, void in the
    suit led, throws anything but A♥, the one card that beats the hunter's K♥. (The version
    that played each hunt in a world strengthened for the hunter, everyone defending, ducked
    with 4♣ and threw A♥: its hunts failed on their own.)"""
    game = position(no_pass(Rules()), 1, hands, plays)
    view = view_to_act(game)
    assert view.seat == 1
    for seed in range(3):
        action = make_bot("hard", seed, samples=200).choose(view)
        assert isinstance(action, PlayCard) and action.card in parse_cards(stops)


def test_the_standing_makes_a_game_ending_loss_cost_more_than_points() -> None:
    standing = Standing.of(Rules(), (60, 95, 70, 80), 0)
    assert standing.live
    # We take 5 and the game ends with us lowest: a win, worth more than the points cost.
    assert standing.cost((5, 10, 6, 5)) < -GAME_LOSS / 2
    # A moon by seat 2 ends the game: seat 2 is lowest, we lose the game.
    assert standing.cost((26, 26, 0, 26)) > GAME_LOSS
    # Early in a game the points alone count.
    early = Standing.of(Rules(), (0, 0, 0, 0), 0)
    assert not early.live and early.cost((3, 3, 0, 0)) == 3 - 1
    # Near the end, a hand that leaves the game going: points given to the rival just below us
    # are worth more than as many given to one far behind, and more to us than early on.
    near = Standing.of(Rules(), (70, 90, 80, 62), 0)
    assert near.live
    assert near.cost((0, 0, 0, 10)) < near.cost((0, 0, 10, 0)) < near.cost((0, 0, 0, 0))
    assert near.cost((8, 0, 0, 0)) - near.cost((0, 0, 0, 0)) > 8 + 4 * 1.0


def test_the_chance_to_win_is_shared_by_equals_and_falls_with_our_total() -> None:
    """``win_chance``: the seats' chances add up to one, equal totals share it equally, and more
    points of ours, or fewer hands left to make them up, make it smaller."""
    chances = [win_chance((50, 60, 70, 80), s, 100, 26) for s in range(4)]
    assert sum(chances) == pytest.approx(1, abs=1e-3)
    assert win_chance((80, 80, 80, 80), 2, 100, 26) == pytest.approx(0.25, abs=1e-3)
    assert win_chance((85, 80, 80, 80), 0, 100, 26) < win_chance((45, 40, 40, 40), 0, 100, 26)
    assert (
        win_chance((85, 80, 80, 80), 0, 100, 26) < 0.25 < win_chance((75, 80, 80, 80), 0, 100, 26)
    )


def test_a_seat_that_throws_a_harmless_card_is_kept_from_the_queen() -> None:
    rules = no_pass(Rules())
    game = position(
        rules,
        1,
        ["2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
         "2S 3S 4S 5S 6S 7S 8S 9S TS JS AH KS AS", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH QS"],
        "2C 2D 2S 2H 3C 3D",
    )  # fmt: skip
    view = view_to_act(game)
    k = knowledge_of(view)
    soft = with_signals(view, k)
    # Seat 2 looks on: seat 1 threw 3♦ on a club, not Q♠, so it is dealt no Q♠; the others may.
    assert view.seat == 2
    assert soft.forbidden[1] >> QUEEN_SPADES & 1 and not k.forbidden[1] >> QUEEN_SPADES & 1
    assert soft.forbidden[0] == k.forbidden[0] and soft.forbidden[3] == k.forbidden[3]


def test_the_searched_pass_is_three_held_cards_and_reproducible() -> None:
    rules = Rules()
    deal = deal_hands(rules, 1, random.Random(3))
    candidates, _ = pass_candidates(deal[0], rules)
    assert len(candidates) >= 10 and all(
        c & deal[0] == c and c.bit_count() == 3 for c in candidates
    )
    picks = []
    for _ in range(2):
        game = Game(rules)
        game.hand = HandState.deal(rules, 1, deal)
        action = HardBot(9, samples=4).choose(SeatView.of(game, 0))
        assert isinstance(action, PassCards) and action in SeatView.of(game, 0).legal
        picks.append(action)
    assert picks[0] == picks[1]
    search = PassSearch(rules, 1, 0, deal[0])
    hands, passes = search.deal(random.Random(1))
    assert hands[0] == deal[0] and not passes[0]
    assert all(p & hands[s] == p and p.bit_count() == 3 for s, p in enumerate(passes) if s)


def test_hard_plays_gong_zhu_through_the_gong_zhu_search() -> None:
    bot = make_bot("hard", 1, samples=2)
    assert isinstance(bot, GameSwitch) and bot.name == "hard"
    assert isinstance(bot.hearts, HardBot) and isinstance(bot.gongzhu, GongZhuMonteCarloBot)


def test_a_pass_replaces_the_heuristic_s_only_when_its_worlds_prove_it_better() -> None:
    """``_proven_best``: a candidate whose lower mean is within the noise of its paired worlds
    leaves the heuristic's pick (the first); one lower in world after world replaces it."""
    worlds = {
        1: [0.0, 10.0, 0.0, 10.0, 0.0, 10.0],  # the heuristic's pass
        2: [6.0, 2.0, 6.0, 2.0, 6.0, 2.0],  # a point lower on the mean, by luck of the worlds
        3: [-2.0, 8.0, -2.0, 8.0, -2.0, 8.0],  # two points lower in every world
    }
    assert _proven_best([1, 2], worlds.__getitem__) == 1
    assert _proven_best([1, 2, 3], worlds.__getitem__) == 3
    assert _proven_best([1], worlds.__getitem__) == 1
