"""Bot strength: duplicate deals with every strategy in every seat; points, payoff, intervals.

Every deal is played once per rotation of the table, so each strategy holds every seat's cards
equally often and the luck of the deal cancels out; a deal is the unit of the statistics (its
seat-hands are not independent). The payoff is zero-sum: the mean of the others' points minus
one's own, so positive is good. ``--games`` plays whole games to the target instead, each game's
deals the same for every rotation, and counts the games each strategy wins (a shared win counts
its share). ``--speed`` instead measures how many worlds the searching bots search in the same
move budget, on the same positions, in the same run. ``--hunter`` seats one strategy on hands
that could shoot the moon against each defence in turn, on the same deals, and counts the moons
each defence concedes. ``--cpu-clock`` budgets each search by its process's CPU time, so a
shared machine measures what an idle one would.

``--game gongzhu`` plays Gong Zhu deals the same way: points are Gong Zhu scores (higher is
better) and the payoff is the seed's result formula (own score × (N − 1) − the others'), which
is zero-sum too; the comparisons are on it.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..bots import (
    GONGZHU_STRATEGIES,
    STRATEGIES,
    Bot,
    GameSwitch,
    GongZhuMonteCarloBot,
    HardBot,
    MonteCarloBot,
    MonteCarloV1Bot,
    make_bot,
)
from ..bots.candidates import distinct_plays
from ..bots.heuristic import HeuristicBot
from ..bots.knowledge import POINTS_MASK, knowledge_of
from ..bots.policy import losers
from ..bots.search import SearchBot
from ..cards import HEARTS_MASK, JACK_DIAMONDS, QUEEN_SPADES
from ..engine import Action, Game, GameResult, HandPhase, HandState, SeatView, deal_hands
from ..rules import PRESETS, GameKind, Rules

# (better, worse): how many points per hand ``better`` must save against ``worse`` (issues 6, 14).
TARGETS = {
    ("heuristic", "random"): 4.0,
    ("montecarlo", "heuristic"): 1.0,
    ("montecarlo-v1", "heuristic"): 1.0,
    ("montecarlo", "montecarlo-v1"): 1.0,
    ("hard", "montecarlo-v1"): 1.0,
    ("hard", "heuristic"): 1.0,
}
# Whole games: the share of games ``better`` must win against ``worse`` (par is 1 / players).
GAME_TARGETS = {("hard", "montecarlo-v1"): 0.35}
# Gong Zhu: how much of the result formula per hand ``better`` must gain against ``worse``.
GONGZHU_TARGETS = {
    ("heuristic", "random"): 200.0,
    ("montecarlo", "heuristic"): 20.0,
    ("gongzhu-heuristic", "random"): 200.0,
    ("gongzhu-montecarlo", "gongzhu-heuristic"): 20.0,
}
GONGZHU_OPTIONS = (
    "expose_all",
    "expose_all_but_sheep",
    "hearts_by_rank",
    "force_fourth",
    "same_colour_discard",
    "partners",
)
MONTECARLO = ("montecarlo-v1", "montecarlo", "hard")  # the Hearts searches, oldest first
_SEARCHING = (*MONTECARLO, "gongzhu-montecarlo")
SPEED_TARGET = 4.0  # the new search must reach this many times v1's worlds per move (issue 14)
WORLDS_TARGET = 1300  # and the hard bot this many worlds per 200 ms move (issue 14)
MAX_GAME_HANDS = 200  # a game still going after this many hands is counted as won by nobody
# A seat that took this many of the 14 point cards went for the moon; with someone else taking
# the rest, the moon was stopped.
NEAR_MOON = 10
_Z95 = 1.96


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        choices=[g.value for g in GameKind],
        default=GameKind.HEARTS.value,
        help="the game to play (default hearts)",
    )
    parser.add_argument(
        "--options",
        default="",
        help=f"Gong Zhu: comma-separated options to turn on ({', '.join(GONGZHU_OPTIONS)})",
    )
    parser.add_argument("--hands", type=int, default=2000, help="deals to play (default 2000)")
    parser.add_argument(
        "--games",
        type=int,
        default=0,
        help="Hearts: play this many whole games to the target instead of --hands deals",
    )
    parser.add_argument(
        "--strategies",
        default="heuristic,random",
        help="comma-separated strategies seated in turn round the table (default heuristic,random)",
    )
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5, 6))
    parser.add_argument("--preset", choices=sorted(PRESETS), default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--samples",
        type=int,
        default=None,
        help="Monte-Carlo worlds per move: deterministic (default: use --budget-ms)",
    )
    parser.add_argument(
        "--samples-for",
        type=samples_for,
        default=(),
        metavar="NAME=N,...",
        help="fixed worlds per move for the named strategies (e.g. hard=200,montecarlo-v1=30), "
        "whatever the others get: deterministic, so two versions of a bot compare deal by deal",
    )
    parser.add_argument(
        "--budget-ms", type=float, default=200.0, help="Monte-Carlo wall time per move (200)"
    )
    parser.add_argument(
        "--cpu-clock",
        action="store_true",
        help="measure --budget-ms in each process's CPU time, not the wall clock: on a busy "
        "machine every search still gets what an idle one would give it",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--speed",
        action="store_true",
        help=f"measure the worlds {' and '.join(MONTECARLO)} search per move, on the same "
        "positions, instead of playing",
    )
    parser.add_argument(
        "--positions", type=int, default=20, help="positions searched by --speed (default 20)"
    )
    parser.add_argument(
        "--hunter",
        default=None,
        help="Hearts: one seat plays this strategy on a hand that can shoot, every other seat "
        "each of --strategies in turn: the moons each defence concedes to it",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


@dataclass(frozen=True, slots=True)
class _Setup:
    rules: Rules
    lineups: tuple[tuple[str, ...], ...]
    seed: int
    samples: int | None
    budget_ms: float
    games: bool = False
    cpu_clock: bool = False
    hunter: str | None = None  # --hunter: its strategy; ``lineups`` holds the one defence list
    samples_for: tuple[tuple[str, int], ...] = ()  # --samples-for

    def worlds(self, name: str) -> int | None:
        """The fixed worlds per move of strategy ``name``, or None for the budget."""
        return dict(self.samples_for).get(name, self.samples)


@dataclass(slots=True)
class _Tally:
    """One strategy's figures over the seat-hands it played in one deal."""

    seat_hands: int = 0
    points: float = 0.0
    payoff: float = 0.0
    moons_attempted: int = 0
    moons_completed: int = 0
    moons_conceded: int = 0
    moons_stopped: int = 0
    games: int = 0  # seat-games played, and the wins among them (a shared win its share)
    wins: float = 0.0
    searches: int = 0
    search_seconds: float = 0.0
    worlds: int = 0
    move_seconds: list[float] = field(default_factory=list)
    # Gong Zhu: the result formula, and how often the pig and the sheep were taken or exposed.
    result: float = 0.0
    pigs: int = 0
    sheep: int = 0
    exposed: int = 0


class _Timed:
    """A bot whose card plays are timed, as a player waits for them."""

    def __init__(self, bot: Bot, into: list[float]) -> None:
        self.bot = bot
        self.name = bot.name
        self.into = into

    def choose(self, view: SeatView) -> Action:
        start = time.perf_counter()
        action = self.bot.choose(view)
        if view.phase is HandPhase.PLAYING:
            self.into.append(time.perf_counter() - start)
        return action


def samples_for(text: str) -> tuple[tuple[str, int], ...]:
    """``--samples-for``: its NAME=N pairs."""
    pairs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, count = part.partition("=")
        if not sep or not count.strip().isdigit() or int(count) < 1:
            raise argparse.ArgumentTypeError(f"expected NAME=N with N at least 1, not {part!r}")
        pairs.append((name.strip(), int(count)))
    return tuple(pairs)


def lineups(strategies: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The distinct rotations of the table: each strategy takes every seat equally often."""
    base = tuple(strategies[i % len(strategies)] for i in range(players))
    out: list[tuple[str, ...]] = []
    for r in range(players):
        rotated = base[r:] + base[:r]
        if rotated not in out:
            out.append(rotated)
    return out


def play_hand(rules: Rules, number: int, deal: Sequence[int], bots: Sequence[Bot]) -> HandState:
    """Play hand ``number`` of ``deal`` to its score, each seat asking its bot with its own view."""
    game = Game(rules)
    # Set the hand directly so that a deal can be any hand number, and so any pass direction.
    game.hand = hand = HandState.deal(rules, number, list(deal))
    while hand.phase is not HandPhase.SCORED:
        seat = game.to_act()[0]
        game.apply(seat, bots[seat].choose(SeatView.of(game, seat)))
    return hand


def _bot(name: str, seed: int, budget_ms: float, samples: int | None, cpu: bool = False) -> Bot:
    if name not in _SEARCHING:
        return make_bot(name, seed)
    bot = make_bot(name, seed, budget_ms=budget_ms, samples=samples)
    if cpu:
        for b in (bot.hearts, bot.gongzhu) if isinstance(bot, GameSwitch) else (bot,):
            if isinstance(b, SearchBot):
                b.clock = time.process_time
    return bot


def _deal(setup: _Setup, d: int) -> tuple[int, list[int]]:
    number = d % 12 + 1  # every pass direction for 3 to 6 players
    return number, deal_hands(setup.rules, number, random.Random(setup.seed * 1_000_003 + d))


def _play_unit(setup: _Setup, d: int) -> dict[str, _Tally]:
    """Every rotation of the table on deal ``d`` (game ``d`` with ``--games``): each strategy's
    tally."""
    tally: dict[str, _Tally] = {}
    for r, lineup in enumerate(setup.lineups):
        bots = [
            _bot(
                name,
                (setup.seed * 1_000_003 + d) * 64 + r * 8 + s,
                setup.budget_ms,
                setup.worlds(name),
                setup.cpu_clock,
            )
            for s, name in enumerate(lineup)
        ]
        timed = [
            _Timed(b, tally.setdefault(lineup[s], _Tally()).move_seconds)
            for s, b in enumerate(bots)
        ]
        if setup.games:
            _count_game(play_game(setup.rules, setup.seed * 1_000_003 + d, timed), lineup, tally)
        else:
            number, deal = _deal(setup, d)
            _count(play_hand(setup.rules, number, deal, timed), lineup, tally)
        _count_searches(lineup, bots, tally, setup.rules.is_gongzhu)
    return tally


def play_game(rules: Rules, seed: int, bots: Sequence[Bot]) -> tuple[list[HandState], GameResult]:
    """A whole game to the target, hand ``i``'s deal drawn from ``seed`` and ``i`` alone (so
    every rotation of the table gets the same deals); its hands and how it ended."""
    game = Game(rules)
    hands: list[HandState] = []
    while not game.over and len(hands) < MAX_GAME_HANDS:
        number = game.number + 1
        hand = game.start_hand(deal_hands(rules, number, random.Random(seed * 1_009 + number)))
        while hand.phase is not HandPhase.SCORED:
            seat = game.to_act()[0]
            game.apply(seat, bots[seat].choose(SeatView.of(game, seat)))
        hands.append(hand)
    result = game.result or GameResult(tuple(game.totals), (), len(hands))
    return hands, result


def _count_game(
    played: tuple[list[HandState], GameResult], lineup: tuple[str, ...], tally: dict[str, _Tally]
) -> None:
    hands, result = played
    for hand in hands:
        _count(hand, lineup, tally)
    for s, name in enumerate(lineup):
        t = tally[name]
        t.games += 1
        if s in result.winners:
            t.wins += 1 / len(result.winners)


def _count_searches(
    lineup: tuple[str, ...], bots: list[Bot], tally: dict[str, _Tally], gongzhu: bool
) -> None:
    for s, name in enumerate(lineup):
        bot = _playing(bots[s], gongzhu)
        if isinstance(bot, MonteCarloBot | MonteCarloV1Bot | HardBot | GongZhuMonteCarloBot):
            t = tally[name]
            t.searches += bot.searches
            t.search_seconds += bot.search_seconds
            t.worlds += bot.worlds


def _count(hand: HandState, lineup: tuple[str, ...], tally: dict[str, _Tally]) -> None:
    result = hand.result
    assert result is not None
    for s, name in enumerate(lineup):
        t = tally[name]
        t.seat_hands += 1
        t.points += result.points[s]
    if hand.gongzhu:
        _count_gongzhu(hand, lineup, tally)
    else:
        _count_hearts(hand, lineup, tally)


def _count_hearts(hand: HandState, lineup: tuple[str, ...], tally: dict[str, _Tally]) -> None:
    result = hand.result
    assert result is not None
    points = result.points
    n = len(points)
    cards = [(t & POINTS_MASK).bit_count() for t in hand.taken]
    stoppers = _stoppers(hand)
    for s, name in enumerate(lineup):
        t = tally[name]
        t.payoff += (sum(points) - points[s]) / (n - 1) - points[s]
        t.moons_attempted += cards[s] >= NEAR_MOON
        t.moons_completed += result.moon == s
        t.moons_conceded += result.moon is not None and lineup[result.moon] != name
        t.moons_stopped += s in stoppers


def _count_gongzhu(hand: HandState, lineup: tuple[str, ...], tally: dict[str, _Tally]) -> None:
    result = hand.result
    assert result is not None
    for s, name in enumerate(lineup):
        t = tally[name]
        t.result += result.results[s]
        t.pigs += bool(hand.taken[s] >> QUEEN_SPADES & 1)
        t.sheep += bool(hand.taken[s] >> JACK_DIAMONDS & 1)
        t.exposed += (hand.exposures[s] or 0).bit_count()


def _playing(bot: Bot, gongzhu: bool) -> Bot:
    """The bot that plays the game, inside one that plays both."""
    if isinstance(bot, GameSwitch):
        return bot.gongzhu if gongzhu else bot.hearts
    return bot


def _stoppers(hand: HandState) -> set[int]:
    """Seats that took the few points that kept another seat from shooting the moon."""
    counts = [(t & POINTS_MASK).bit_count() for t in hand.taken]
    if hand.result is None or hand.result.moon is not None or max(counts) < NEAR_MOON:
        return set()
    top = counts.index(max(counts))
    return {s for s, c in enumerate(counts) if c and s != top}


def estimate(xs: Sequence[float]) -> dict[str, Any]:
    """Mean, standard error and 95% interval of independent samples ``xs``."""
    n = len(xs)
    mean = sum(xs) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n) if n > 1 else math.inf
    ci = _Z95 * se
    return {
        "mean": round(mean, 3),
        "se": round(se, 3),
        "ci95": round(ci, 3),
        "interval": [round(mean - ci, 3), round(mean + ci, 3)],
    }


def _percentile(xs: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0 < q <= 1) of ``xs``."""
    ordered = sorted(xs)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


class _Progress:
    """One updating line on stderr while the bench runs, only where someone is watching."""

    def __init__(self, quiet: bool, total: int, what: str) -> None:
        self.on = not quiet and sys.stderr.isatty()
        self.total = total
        self.what = what
        self.start = time.perf_counter()

    def step(self, done: int) -> None:
        if self.on:
            took = time.perf_counter() - self.start
            left = took / done * (self.total - done)
            sys.stderr.write(
                f"\rbots: {done}/{self.total} {self.what}, {took:.0f} s, about {left:.0f} s left "
            )
            sys.stderr.flush()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\n")


def _strategies(args: argparse.Namespace) -> list[str]:
    names = [s.strip() for s in args.strategies.split(",") if s.strip()]
    gongzhu = args.game == GameKind.GONGZHU.value
    known = sorted(s for s in STRATEGIES | GONGZHU_STRATEGIES if _plays(s, gongzhu))
    if any(s not in known for s in names) or len(set(names)) < 2:
        raise SystemExit(f"hearts bench bots: --strategies needs two or more of {', '.join(known)}")
    return names


def _plays(strategy: str, gongzhu: bool) -> bool:
    """Whether ``strategy`` plays the game: Gong Zhu needs a Gong Zhu variant or ``random``."""
    if strategy in ("random", "heuristic", "montecarlo", "hard"):
        return True
    return strategy.startswith("gongzhu-") == gongzhu


def _rules(args: argparse.Namespace) -> Rules:
    if args.game == GameKind.GONGZHU.value:
        options = [o.strip() for o in args.options.split(",") if o.strip()]
        unknown = [o for o in options if o not in GONGZHU_OPTIONS]
        if unknown or args.preset != "standard" or args.players not in (4, 5):
            raise SystemExit(
                "hearts bench bots: --game gongzhu takes 4 or 5 --players, no --preset, and "
                f"--options from {', '.join(GONGZHU_OPTIONS)}"
            )
        try:
            flags: dict[str, Any] = dict.fromkeys(options, True)
            return Rules(game=GameKind.GONGZHU, players=args.players, **flags)
        except ValueError as e:
            raise SystemExit(f"hearts bench bots: {e}") from None
    if args.options:
        raise SystemExit("hearts bench bots: --options are Gong Zhu's (with --game gongzhu)")
    return Rules(**{**PRESETS[args.preset].to_dict(), "players": args.players, "target": 0})


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.jobs < 1:
        raise SystemExit("hearts bench bots: --jobs must be at least 1")
    if args.speed:
        if args.game != GameKind.HEARTS.value:
            raise SystemExit("hearts bench bots: --speed compares the Hearts searches only")
        return run_speed(args)
    if args.hunter is not None:
        return run_hunt(args)
    names = _strategies(args)
    games = args.games > 0
    units = args.games if games else args.hands
    if units < 2:
        raise SystemExit(
            f"hearts bench bots: {'--games' if games else '--hands'} must be at least 2"
        )
    rules = _rules(args)
    if games and rules.is_gongzhu:
        raise SystemExit("hearts bench bots: --games plays Hearts games only")
    targets = GONGZHU_TARGETS if rules.is_gongzhu else TARGETS
    setup = _Setup(
        rules,
        tuple(lineups(names, args.players)),
        args.seed,
        args.samples,
        args.budget_ms,
        games,
        args.cpu_clock,
        samples_for=args.samples_for,
    )
    progress = _Progress(args.quiet, units, "games" if games else "deals")
    start, cpu = time.perf_counter(), time.process_time()
    tallies = list(_tallies(setup, units, args.jobs, progress.step))
    progress.close()
    wall = time.perf_counter() - start
    strategies = {name: _figures(name, tallies, rules.is_gongzhu) for name in dict.fromkeys(names)}
    compare = _compare_results if rules.is_gongzhu else _compare
    comparisons = [
        compare(better, worse, target, tallies, strategies)
        for (better, worse), target in targets.items()
        if better in strategies and worse in strategies
    ]
    if games:
        comparisons += [
            _compare_games(better, worse, target, strategies, args.players)
            for (better, worse), target in GAME_TARGETS.items()
            if better in strategies and worse in strategies
        ]
    return {
        "benchmark": "bots",
        "game": rules.game.value,
        "rules": rules.summary(),
        "players": args.players,
        "preset": args.preset,
        "deals": None if games else args.hands,
        "games": args.games if games else None,
        "table_hands": sum(t.seat_hands for u in tallies for t in u.values()) // args.players,
        "lineups": [list(lu) for lu in setup.lineups],
        "seed": args.seed,
        "montecarlo": _montecarlo_setting(args) if set(_SEARCHING) & set(names) else None,
        "jobs": args.jobs,
        "wall_seconds": round(wall, 2),
        "parent_cpu_seconds": round(time.process_time() - cpu, 2),
        "strategies": strategies,
        "comparisons": comparisons,
    }


def _tallies(
    setup: _Setup,
    hands: int,
    jobs: int,
    step: Callable[[int], None],
    unit: Callable[[_Setup, int], dict[str, _Tally]] | None = None,
) -> Iterator[dict[str, _Tally]]:
    """Each deal's tallies (``unit``'s, by default every rotation's) in deal order, reporting
    progress as deals finish."""
    play = unit or _play_unit
    if jobs == 1:
        for d in range(hands):
            yield play(setup, d)
            step(d + 1)
        return
    with ProcessPoolExecutor(jobs) as pool:
        for d, tally in enumerate(pool.map(play, [setup] * hands, range(hands))):
            yield tally
            step(d + 1)


def _figures(name: str, tallies: Sequence[dict[str, _Tally]], gongzhu: bool) -> dict[str, Any]:
    mine = [t[name] for t in tallies]
    points = estimate([t.points / t.seat_hands for t in mine])
    figures: dict[str, Any] = {
        "points_per_hand": points["mean"],
        "ci95": points["ci95"],
        "points": points,
        "seat_hands": sum(t.seat_hands for t in mine),
    }
    if gongzhu:
        figures["result"] = estimate([t.result / t.seat_hands for t in mine])
        figures["taken"] = {"pig": sum(t.pigs for t in mine), "sheep": sum(t.sheep for t in mine)}
        figures["cards_exposed"] = sum(t.exposed for t in mine)
    else:
        figures["payoff"] = estimate([t.payoff / t.seat_hands for t in mine])
        # Deal by deal, so that two runs on the same deals (two versions of a bot) can be paired.
        figures["payoff_by_deal"] = [round(t.payoff / t.seat_hands, 4) for t in mine]
        figures["moons"] = {
            "attempted": sum(t.moons_attempted for t in mine),
            "completed": sum(t.moons_completed for t in mine),
            "conceded": sum(t.moons_conceded for t in mine),
            "stopped": sum(t.moons_stopped for t in mine),
            # Per 400 seat-hands (the unit), each with its interval over the deals.
            "per_400": {
                what: estimate([400 * getattr(t, f"moons_{what}") / t.seat_hands for t in mine])
                for what in ("attempted", "completed", "conceded")
            },
        }
    if any(t.games for t in mine):
        figures["games"] = {
            "played": sum(t.games for t in mine),
            "won": round(sum(t.wins for t in mine), 2),
            "win_rate": estimate([t.wins / t.games for t in mine]),
        }
    moves = [s for t in mine for s in t.move_seconds]
    if moves:
        figures["ms_per_move"] = {
            "p50": round(1000 * _percentile(moves, 0.5), 2),
            "p99": round(1000 * _percentile(moves, 0.99), 2),
            "moves": len(moves),
        }
    searches = sum(t.searches for t in mine)
    if searches:
        seconds = sum(t.search_seconds for t in mine)
        worlds = sum(t.worlds for t in mine)
        figures["ms_per_searched_move"] = round(1000 * seconds / searches, 1)
        figures["worlds_per_searched_move"] = round(worlds / searches, 1)
        figures["worlds_per_second"] = round(worlds / seconds) if seconds else None
    return figures


def _compare_results(
    better: str,
    worse: str,
    target: float,
    tallies: Sequence[dict[str, _Tally]],
    strategies: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """Gong Zhu: how much of the result formula per hand ``better`` gains over ``worse``."""
    diffs = [
        t[better].result / t[better].seat_hands - t[worse].result / t[worse].seat_hands
        for t in tallies
    ]
    gained = estimate(diffs)
    rb, rw = strategies[better]["result"], strategies[worse]["result"]
    apart = rb["interval"][0] > rw["interval"][1]
    return {
        "better": better,
        "worse": worse,
        "result_gained_per_hand": gained["mean"],
        "se": gained["se"],
        "ci95": gained["ci95"],
        "interval": gained["interval"],
        "target": target,
        "ratio_to_target": round(gained["mean"] / target, 3),
        "intervals_apart": apart,
        "meets_target": gained["mean"] >= target and apart,
    }


def _compare(
    better: str,
    worse: str,
    target: float,
    tallies: Sequence[dict[str, _Tally]],
    strategies: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """How many points per hand ``better`` saves against ``worse``, paired deal by deal."""
    diffs = [
        t[worse].points / t[worse].seat_hands - t[better].points / t[better].seat_hands
        for t in tallies
    ]
    saved = estimate(diffs)
    sb, sw = strategies[better]["points"], strategies[worse]["points"]
    apart = sb["interval"][1] < sw["interval"][0]
    return {
        "better": better,
        "worse": worse,
        "points_saved_per_hand": saved["mean"],
        "se": saved["se"],
        "ci95": saved["ci95"],
        "interval": saved["interval"],
        "target": target,
        "ratio_to_target": round(saved["mean"] / target, 3),
        "intervals_apart": apart,
        "meets_target": saved["mean"] >= target and apart,
    }


def _compare_games(
    better: str, worse: str, target: float, strategies: dict[str, dict[str, Any]], players: int
) -> dict[str, Any]:
    """Whether ``better`` wins its target share of whole games, its interval above par."""
    rate = strategies[better]["games"]["win_rate"]
    par = 1 / players
    above = rate["interval"][0] > par
    return {
        "better": better,
        "worse": worse,
        "win_rate": rate["mean"],
        "ci95": rate["ci95"],
        "interval": rate["interval"],
        "par": round(par, 3),
        "target": target,
        "interval_above_par": above,
        "meets_target": rate["mean"] >= target and above,
    }


def _budget_text(mc: dict[str, Any]) -> str:
    if "samples" in mc:
        text = f"{mc['samples']} worlds"
    else:
        text = f"{mc['budget_ms']:g} ms" + (" of CPU" if mc.get("clock") == "cpu" else "")
    fixed = mc.get("samples_for", {})
    return "; ".join([text, *(f"{name} {n} worlds" for name, n in fixed.items())])


def _montecarlo_setting(args: argparse.Namespace) -> dict[str, Any]:
    setting: dict[str, Any]
    if args.samples:
        setting = {"samples": args.samples}
    else:
        setting = {"budget_ms": args.budget_ms, "clock": "cpu" if args.cpu_clock else "wall"}
    if args.samples_for:
        setting["samples_for"] = dict(args.samples_for)
    return setting


# -- moon defence --------------------------------------------------------------------------------

HUNT_LOSERS = 4  # a hunting hand has at most this many losers as dealt
HUNT_TARGET = 0.5  # the hard defence must concede at most this share of v1's moons (issue 14)


def hunting_deal(rules: Rules, number: int, seat: int, seed: int) -> list[int]:
    """The first deal from ``seed`` in which ``seat`` holds a hand that could run every trick:
    at most ``HUNT_LOSERS`` cards that an outstanding card of their suit beats, and hearts."""
    rng = random.Random(seed)
    while True:
        deal = deal_hands(rules, number, rng)
        hand = deal[seat]
        if hand & HEARTS_MASK and losers(hand, rules.deck_mask & ~hand) <= HUNT_LOSERS:
            return deal


def _hunt_unit(setup: _Setup, d: int) -> dict[str, _Tally]:
    """Deal ``d``, the hunter's seat turning with it, played once against each defence: the
    hunter's tally by defence."""
    rules = setup.rules
    n = rules.players
    number = d % 12 + 1
    at = d % n
    seed = setup.seed * 1_000_003 + d
    deal = hunting_deal(rules, number, at, seed)
    tally: dict[str, _Tally] = {}
    for r, defence in enumerate(setup.lineups[0]):
        names = [setup.hunter if s == at else defence for s in range(n)]
        bots = [
            _bot(
                name or "",
                seed * 64 + r * 8 + s,
                setup.budget_ms,
                setup.worlds(name or ""),
                setup.cpu_clock,
            )
            for s, name in enumerate(names)
        ]
        hand = play_hand(rules, number, deal, bots)
        result = hand.result
        assert result is not None
        t = tally[defence] = _Tally(seat_hands=1, points=result.points[at])
        t.moons_attempted = (hand.taken[at] & POINTS_MASK).bit_count() >= NEAR_MOON
        t.moons_completed = result.moon == at
    return tally


def run_hunt(args: argparse.Namespace) -> dict[str, Any]:
    """Each defence against one moon-hunting seat, on the same hunting deals."""
    if args.game != GameKind.HEARTS.value:
        raise SystemExit("hearts bench bots: --hunter plays Hearts only")
    defences = _strategies(args)
    if args.hunter not in STRATEGIES:
        raise SystemExit(f"hearts bench bots: --hunter is one of {', '.join(sorted(STRATEGIES))}")
    if args.hands < 2:
        raise SystemExit("hearts bench bots: --hands must be at least 2")
    rules = _rules(args)
    setup = _Setup(
        rules,
        (tuple(defences),),
        args.seed,
        args.samples,
        args.budget_ms,
        cpu_clock=args.cpu_clock,
        hunter=args.hunter,
        samples_for=args.samples_for,
    )
    progress = _Progress(args.quiet, args.hands, "hunting deals")
    start, cpu = time.perf_counter(), time.process_time()
    tallies = list(_tallies(setup, args.hands, args.jobs, progress.step, _hunt_unit))
    progress.close()
    figures = {}
    for name in defences:
        mine = [t[name] for t in tallies]
        figures[name] = {
            "moons_conceded": sum(t.moons_completed for t in mine),
            "moons_attempted": sum(t.moons_attempted for t in mine),
            "conceded_per_400": estimate([400.0 * t.moons_completed for t in mine]),
            "hunter_points": estimate([t.points for t in mine]),
        }
    comparisons = []
    if "montecarlo-v1" in defences and "hard" in defences:
        old = [t["montecarlo-v1"].moons_completed for t in tallies]
        new = [t["hard"].moons_completed for t in tallies]
        fewer = estimate([400.0 * (a - b) for a, b in zip(old, new, strict=True)])
        share = sum(new) / sum(old) if sum(old) else None
        comparisons.append(
            {
                "better": "hard",
                "worse": "montecarlo-v1",
                "fewer_per_400": fewer,
                "share_conceded": None if share is None else round(share, 3),
                "target_share": HUNT_TARGET,
                "interval_excludes_0": fewer["interval"][0] > 0,
                "meets_target": share is not None
                and share <= HUNT_TARGET
                and fewer["interval"][0] > 0,
            }
        )
    return {
        "benchmark": "bots-hunt",
        "players": args.players,
        "preset": args.preset,
        "seed": args.seed,
        "deals": args.hands,
        "hunter": args.hunter,
        "hunt_losers": HUNT_LOSERS,
        "montecarlo": _montecarlo_setting(args),
        "wall_seconds": round(time.perf_counter() - start, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
        "defences": figures,
        "comparisons": comparisons,
    }


def _render_hunt(r: dict[str, Any]) -> str:
    mc = r["montecarlo"]
    setting = _budget_text(mc)
    lines = [
        f"bots --hunter {r['hunter']}: {r['deals']} deals in which its seat holds at most "
        f"{r['hunt_losers']} losers, {r['players']} players, {r['preset']} rules, seed "
        f"{r['seed']}, {setting} per move, {r['wall_seconds']} s wall",
    ]
    for name, f in r["defences"].items():
        c, p = f["conceded_per_400"], f["hunter_points"]
        lines.append(
            f"  defended by {name:<13} conceded {f['moons_conceded']} moons "
            f"({c['mean']:.1f} ± {c['ci95']:.1f} per 400 hunting hands; "
            f"{f['moons_attempted']} attempted), the hunter took {p['mean']:.2f} ± "
            f"{p['ci95']:.2f} points/hand"
        )
    for c in r["comparisons"]:
        f = c["fewer_per_400"]
        share = "n/a" if c["share_conceded"] is None else f"{100 * c['share_conceded']:.0f}%"
        verdict = "meets" if c["meets_target"] else "MISSES"
        lines.append(
            f"  {c['better']} concedes {share} of the moons {c['worse']} does "
            f"({f['mean']:.1f} ± {f['ci95']:.1f} fewer per 400): {verdict} the target of at "
            f"most {100 * c['target_share']:.0f}% with the interval above 0"
        )
    return "\n".join(lines)


# -- speed ---------------------------------------------------------------------------------------


def speed_positions(rules: Rules, count: int, seed: int) -> list[SeatView]:
    """``count`` views in which a seat has a real choice, from hands the heuristic plays."""
    views: list[SeatView] = []
    d = 0
    while len(views) < count:
        number = d % 12 + 1
        game = Game(rules)
        game.hand = hand = HandState.deal(
            rules, number, deal_hands(rules, number, random.Random(seed * 1_000_003 + d))
        )
        bot = HeuristicBot()
        step = 0
        while hand.phase is not HandPhase.SCORED:
            seat = game.to_act()[0]
            view = SeatView.of(game, seat)
            # Every fifth searched move, so the sample spans early, middle and late tricks.
            if hand.phase is HandPhase.PLAYING and _searched(view):
                if step % 5 == d % 5 and len(views) < count:
                    views.append(view)
                step += 1
            game.apply(seat, bot.choose(view))
        d += 1
    return views


def _searched(view: SeatView) -> bool:
    k = knowledge_of(view)
    h = k.state
    trick = sum(1 << c for c in h.trick)
    legal = h.legal_play_mask(view.seat)
    return len(distinct_plays(legal, h.hands[view.seat], k.unseen | trick, view.rules)) > 1


def run_speed(args: argparse.Namespace) -> dict[str, Any]:
    """Each Monte-Carlo strategy searches the same positions in turn, under the same budget."""
    if args.positions < 1:
        raise SystemExit("hearts bench bots: --positions must be at least 1")
    rules = _rules(args)
    views = speed_positions(rules, args.positions, args.seed)
    worlds: dict[str, list[int]] = {name: [] for name in MONTECARLO}
    seconds: dict[str, list[float]] = {name: [] for name in MONTECARLO}
    # The CPU each search got: on a busy machine a wall-clock budget buys less of it.
    cpu_seconds = dict.fromkeys(MONTECARLO, 0.0)
    progress = _Progress(args.quiet, len(views), "positions")
    start, cpu = time.perf_counter(), time.process_time()
    for i, view in enumerate(views):
        # Alternate who goes first, so a change in the machine's load falls on both alike.
        for name in MONTECARLO if i % 2 == 0 else MONTECARLO[::-1]:
            bot = _playing(
                _bot(name, args.seed + i, args.budget_ms, args.samples, args.cpu_clock), False
            )
            assert isinstance(bot, MonteCarloBot | MonteCarloV1Bot | HardBot)
            used = time.process_time()
            bot.choose(view)
            cpu_seconds[name] += time.process_time() - used
            worlds[name].append(bot.worlds)
            seconds[name].append(bot.search_seconds)
        progress.step(i + 1)
    progress.close()
    figures: dict[str, dict[str, Any]] = {}
    per_second = {name: sum(worlds[name]) / sum(seconds[name]) for name in MONTECARLO}
    for name in MONTECARLO:
        w = worlds[name]
        figures[name] = {
            "worlds_per_move": {
                "min": min(w),
                "median": statistics.median(w),
                "max": max(w),
                "mean": round(sum(w) / len(w), 1),
            },
            "worlds_per_second": round(per_second[name]),
            "worlds_per_200ms": round(per_second[name] * 0.2),
            "worlds_per_200ms_cpu": round(sum(w) / cpu_seconds[name] * 0.2)
            if cpu_seconds[name]
            else None,
            "cpu_share": round(cpu_seconds[name] / sum(seconds[name]), 2),
            "ms_per_move": round(1000 * sum(seconds[name]) / len(w), 1),
        }
    old, new, hard = MONTECARLO
    # Each position's ratio of worlds/s (of worlds, under a budget): late positions, where worlds
    # are cheap, do not swamp the early ones as they do in the pooled worlds/s.
    rates = {
        name: [w / t for w, t in zip(worlds[name], seconds[name], strict=True)]
        for name in MONTECARLO
    }
    ratios = [b / a for a, b in zip(rates[old], rates[new], strict=True)]
    ratio = statistics.median(ratios)
    return {
        "benchmark": "bots-speed",
        "players": args.players,
        "preset": args.preset,
        "seed": args.seed,
        "positions": len(views),
        "montecarlo": _montecarlo_setting(args),
        "wall_seconds": round(time.perf_counter() - start, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
        "strategies": figures,
        "speedup": round(ratio, 2),
        "speedup_range": [round(min(ratios), 2), round(max(ratios), 2)],
        "speedup_pooled": round(per_second[new] / per_second[old], 2),
        "target": SPEED_TARGET,
        "meets_target": ratio >= SPEED_TARGET,
        "worlds_target": WORLDS_TARGET,
        "meets_worlds_target": figures[hard]["worlds_per_200ms"] >= WORLDS_TARGET,
        "meets_worlds_target_cpu": (figures[hard]["worlds_per_200ms_cpu"] or 0) >= WORLDS_TARGET,
    }


# -- rendering -----------------------------------------------------------------------------------


def render(r: dict[str, Any]) -> str:
    if r["benchmark"] == "bots-speed":
        return _render_speed(r)
    if r["benchmark"] == "bots-hunt":
        return _render_hunt(r)
    mc = r["montecarlo"]
    budget = "" if mc is None else f"; Monte-Carlo at {_budget_text(mc)}/move"
    gongzhu = r["game"] == GameKind.GONGZHU.value
    rules = r["rules"] if gongzhu else f"{r['players']} players, {r['preset']} rules"
    payoff = (
        "points and result = own × (N − 1) − others' (the seed's formula): higher is better"
        if gongzhu
        else "payoff = others' mean − own, higher is better"
    )
    units = f"{r['games']} duplicate games" if r["games"] else f"{r['deals']} duplicate deals"
    lines = [
        f"bots: {units} ({r['table_hands']} hands), {rules}, seed {r['seed']}",
        f"  tables: {'; '.join(' '.join(lu) for lu in r['lineups'])}",
        f"  {r['wall_seconds']} s wall with {r['jobs']} job(s){budget}",
        f"  per hand, mean ± 95% CI (standard error); {payoff}",
    ]
    for name, s in r["strategies"].items():
        lines += _render_strategy(name, s, gongzhu)
    for c in r["comparisons"]:
        verdict = "meets" if c["meets_target"] else "MISSES"
        if "win_rate" in c:
            above = "above" if c["interval_above_par"] else "not above"
            lines.append(
                f"  {c['better']} wins {100 * c['win_rate']:.1f}% ± {100 * c['ci95']:.1f}% of the "
                f"games against {c['worse']} (par {100 * c['par']:.0f}%, interval {above} it): "
                f"{verdict} the target of {100 * c['target']:.0f}%"
            )
            continue
        apart = "apart" if c["intervals_apart"] else "overlapping"
        if gongzhu:
            what = f"gains {c['result_gained_per_hand']:.1f} ± {c['ci95']:.1f} result/hand over"
        else:
            what = f"saves {c['points_saved_per_hand']:.3f} ± {c['ci95']:.3f} points/hand against"
        lines.append(
            f"  {c['better']} {what} {c['worse']}: {c['ratio_to_target']}× the target of "
            f"{c['target']} ({apart} intervals): {verdict} it"
        )
    return "\n".join(lines)


def _render_strategy(name: str, s: dict[str, Any], gongzhu: bool) -> list[str]:
    p = s["points"]
    if gongzhu:
        z, t = s["result"], s["taken"]
        lines = [
            f"  {name:<13} points {p['mean']:+8.2f} ± {p['ci95']:.2f} ({p['se']:.2f})  "
            f"result {z['mean']:+8.2f} ± {z['ci95']:.2f} ({z['se']:.2f})  "
            f"[{s['seat_hands']} seat-hands]"
        ]
        line = (
            f"  {'':<13} took the pig {t['pig']}, the sheep {t['sheep']} times; "
            f"exposed {s['cards_exposed']} cards"
        )
    else:
        z, m = s["payoff"], s["moons"]
        lines = [
            f"  {name:<13} points {p['mean']:7.3f} ± {p['ci95']:.3f} ({p['se']:.3f})  "
            f"payoff {z['mean']:+7.3f} ± {z['ci95']:.3f} ({z['se']:.3f})  "
            f"[{s['seat_hands']} seat-hands]"
        ]
        c = m["per_400"]["completed"]
        line = (
            f"  {'':<13} moons attempted {m['attempted']}, completed {m['completed']} "
            f"({c['mean']:.1f} ± {c['ci95']:.1f} per 400 seat-hands), "
            f"conceded {m['conceded']}, stopped {m['stopped']}"
        )
    if "ms_per_move" in s:
        t = s["ms_per_move"]
        line += f"; ms/move p50 {t['p50']:g}, p99 {t['p99']:g}"
    lines.append(line)
    if "games" in s:
        g = s["games"]
        w = g["win_rate"]
        lines.append(
            f"  {'':<13} won {g['won']:g} of {g['played']} seat-games: "
            f"{100 * w['mean']:.1f}% ± {100 * w['ci95']:.1f}%"
        )
    if "ms_per_searched_move" in s:
        lines.append(
            f"  {'':<13} {s['worlds_per_searched_move']:g} worlds and "
            f"{s['ms_per_searched_move']} ms wall per searched move, "
            f"{s['worlds_per_second']} worlds/s"
        )
    return lines


def _render_speed(r: dict[str, Any]) -> str:
    mc = r["montecarlo"]
    setting = _budget_text(mc)
    lines = [
        f"bots --speed: {r['positions']} positions, {r['players']} players, {r['preset']} rules, "
        f"seed {r['seed']}, {setting} per move, {r['wall_seconds']} s wall",
    ]
    for name, s in r["strategies"].items():
        w = s["worlds_per_move"]
        lines.append(
            f"  {name:<13} {s['worlds_per_second']:>6} worlds/s = {s['worlds_per_200ms']:>5} per "
            f"200 ms move ({s['worlds_per_200ms_cpu']} per 200 ms of CPU, "
            f"{100 * s['cpu_share']:.0f}% of the wall time); "
            f"worlds/move min {w['min']} median {w['median']:g} max {w['max']}; "
            f"{s['ms_per_move']} ms/move"
        )
    verdict = "meets" if r["meets_target"] else "MISSES"
    old, new, hard = MONTECARLO
    lo, hi = r["speedup_range"]
    lines.append(
        f"  {new} searches {r['speedup']}× the worlds/s of {old} (median over positions; range "
        f"{lo:g}× to {hi:g}×, pooled {r['speedup_pooled']:g}×): "
        f"{verdict} the target of {r['target']:g}×"
    )
    verdict = "meets" if r["meets_worlds_target"] else "MISSES"
    cpu = "meets" if r["meets_worlds_target_cpu"] else "MISSES"
    h = r["strategies"][hard]
    lines.append(
        f"  {hard} searches {h['worlds_per_200ms']} worlds per 200 ms move: {verdict} the "
        f"target of {r['worlds_target']}; per 200 ms of CPU (a move on an idle core) "
        f"{h['worlds_per_200ms_cpu']}: {cpu} it"
    )
    return "\n".join(lines)
