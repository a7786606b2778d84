"""Bot strength: duplicate deals with every strategy in every seat, points per hand with 95% CIs."""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..bots import STRATEGIES, Bot, MonteCarloBot, make_bot
from ..bots.knowledge import POINTS_MASK
from ..engine import Game, HandPhase, HandState, SeatView, deal_hands
from ..rules import PRESETS, Rules

# (better, worse): how many points per hand ``better`` must save against ``worse`` (issue 6).
TARGETS = {("heuristic", "random"): 4.0, ("montecarlo", "heuristic"): 1.0}
# A hand where one seat took this many of the point cards and someone else the rest: moon stopped.
NEAR_MOON = 10
_Z95 = 1.96


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=2000, help="deals to play (default 2000)")
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
        help="montecarlo worlds per move: deterministic (default: use --budget-ms)",
    )
    parser.add_argument(
        "--budget-ms", type=float, default=200.0, help="montecarlo wall time per move (default 200)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")


@dataclass(frozen=True, slots=True)
class _Setup:
    rules: Rules
    lineups: tuple[tuple[str, ...], ...]
    seed: int
    samples: int | None
    budget_ms: float


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


def _bot(name: str, seed: int, setup: _Setup) -> Bot:
    if name == "montecarlo":
        return make_bot(name, seed, budget_ms=setup.budget_ms, samples=setup.samples)
    return make_bot(name, seed)


def _play_deals(setup: _Setup, deals: range) -> list[dict[str, list[float]]]:
    """Per deal and strategy: [points, seat-hands, moons made, moons stopped, searches, seconds]."""
    rules = setup.rules
    out = []
    for d in deals:
        number = d % 12 + 1  # every pass direction for 3 to 6 players
        deal = deal_hands(rules, number, random.Random(setup.seed * 1_000_003 + d))
        tally: dict[str, list[float]] = {}
        for r, lineup in enumerate(setup.lineups):
            bots = [
                _bot(name, (setup.seed * 1_000_003 + d) * 64 + r * 8 + s, setup)
                for s, name in enumerate(lineup)
            ]
            hand = play_hand(rules, number, deal, bots)
            assert hand.result is not None
            stoppers = _stoppers(hand)
            for s, name in enumerate(lineup):
                t = tally.setdefault(name, [0.0] * 6)
                t[0] += hand.result.points[s]
                t[1] += 1
                t[2] += hand.result.moon == s
                t[3] += s in stoppers
                bot = bots[s]
                if isinstance(bot, MonteCarloBot):
                    t[4] += bot.searches
                    t[5] += bot.search_seconds
        out.append(tally)
    return out


def _stoppers(hand: HandState) -> set[int]:
    """Seats that took the few points that kept another seat from shooting the moon."""
    counts = [(t & POINTS_MASK).bit_count() for t in hand.taken]
    if hand.result is None or hand.result.moon is not None or max(counts) < NEAR_MOON:
        return set()
    top = counts.index(max(counts))
    return {s for s, c in enumerate(counts) if c and s != top}


def _mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, _Z95 * math.sqrt(var / n)


def run(args: argparse.Namespace) -> dict[str, Any]:
    names = [s.strip() for s in args.strategies.split(",") if s.strip()]
    unknown = [s for s in names if s not in STRATEGIES]
    if unknown or len(set(names)) < 2:
        raise SystemExit(
            f"hearts bench bots: --strategies needs two or more of {', '.join(sorted(STRATEGIES))}"
        )
    if args.hands < 2 or args.jobs < 1:
        raise SystemExit("hearts bench bots: --hands must be at least 2 and --jobs at least 1")
    rules = Rules(**{**PRESETS[args.preset].to_dict(), "players": args.players, "target": 0})
    setup = _Setup(
        rules, tuple(lineups(names, args.players)), args.seed, args.samples, args.budget_ms
    )
    start, cpu = time.perf_counter(), time.process_time()
    if args.jobs == 1:
        tallies = _play_deals(setup, range(args.hands))
    else:
        chunks = [range(i, args.hands, args.jobs) for i in range(args.jobs)]
        with ProcessPoolExecutor(args.jobs) as pool:
            parts = list(pool.map(_play_deals, [setup] * args.jobs, chunks))
        tallies = [parts[d % args.jobs][d // args.jobs] for d in range(args.hands)]
    wall = time.perf_counter() - start
    strategies = {}
    per_deal = {}
    for name in dict.fromkeys(names):
        per_deal[name] = [t[name][0] / t[name][1] for t in tallies]
        mean, ci = _mean_ci(per_deal[name])
        strategies[name] = {
            "points_per_hand": round(mean, 3),
            "ci95": round(ci, 3),
            "seat_hands": int(sum(t[name][1] for t in tallies)),
            "moons_made": int(sum(t[name][2] for t in tallies)),
            "moons_stopped": int(sum(t[name][3] for t in tallies)),
        }
        searches = sum(t[name][4] for t in tallies)
        if searches:
            seconds = sum(t[name][5] for t in tallies)
            strategies[name]["ms_per_searched_move"] = round(1000 * seconds / searches, 1)
    comparisons = []
    for (better, worse), target in TARGETS.items():
        if better not in per_deal or worse not in per_deal:
            continue
        diffs = [w - b for b, w in zip(per_deal[better], per_deal[worse], strict=True)]
        mean, ci = _mean_ci(diffs)
        sb, sw = strategies[better], strategies[worse]
        apart = sb["points_per_hand"] + sb["ci95"] < sw["points_per_hand"] - sw["ci95"]
        comparisons.append(
            {
                "better": better,
                "worse": worse,
                "points_saved_per_hand": round(mean, 3),
                "ci95": round(ci, 3),
                "target": target,
                "ratio_to_target": round(mean / target, 3),
                "intervals_apart": apart,
                "meets_target": mean >= target and apart,
            }
        )
    return {
        "benchmark": "bots",
        "players": args.players,
        "preset": args.preset,
        "deals": args.hands,
        "table_hands": args.hands * len(setup.lineups),
        "lineups": [list(lu) for lu in setup.lineups],
        "seed": args.seed,
        "montecarlo": _montecarlo_setting(args) if "montecarlo" in names else None,
        "jobs": args.jobs,
        "wall_seconds": round(wall, 2),
        "parent_cpu_seconds": round(time.process_time() - cpu, 2),
        "strategies": strategies,
        "comparisons": comparisons,
    }


def _montecarlo_setting(args: argparse.Namespace) -> dict[str, Any]:
    return {"samples": args.samples} if args.samples else {"budget_ms": args.budget_ms}


def render(r: dict[str, Any]) -> str:
    mc = r["montecarlo"]
    if mc is None:
        budget = ""
    elif "samples" in mc:
        budget = f"; montecarlo at {mc['samples']} worlds/move"
    else:
        budget = f"; montecarlo at {mc['budget_ms']:g} ms/move"
    lines = [
        f"bots: {r['deals']} duplicate deals ({r['table_hands']} hands), {r['players']} players, "
        f"{r['preset']} rules, seed {r['seed']}",
        f"  tables: {'; '.join(' '.join(lu) for lu in r['lineups'])}",
        f"  {r['wall_seconds']} s wall with {r['jobs']} job(s){budget}",
    ]
    for name, s in r["strategies"].items():
        lines.append(
            f"  {name:<11} {s['points_per_hand']:7.3f} ± {s['ci95']:.3f} points/hand "
            f"(95% CI, {s['seat_hands']} seat-hands); moons made {s['moons_made']}, "
            f"stopped {s['moons_stopped']}"
        )
        if "ms_per_searched_move" in s:
            lines.append(f"  {name:<11} {s['ms_per_searched_move']} ms wall per searched move")
    for c in r["comparisons"]:
        verdict = "meets" if c["meets_target"] else "MISSES"
        apart = "apart" if c["intervals_apart"] else "overlapping"
        lines.append(
            f"  {c['better']} saves {c['points_saved_per_hand']:.3f} ± {c['ci95']:.3f} "
            f"points/hand against {c['worse']}: {c['ratio_to_target']}× the target of "
            f"{c['target']} ({apart} intervals): {verdict} it"
        )
    return "\n".join(lines)
