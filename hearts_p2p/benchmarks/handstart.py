"""Hand start over loopback: last card → every peer holding its new hand, and game start.

A bot game between real peer processes (``--players`` of them, one game per count). Two
figures, each as min/median/max over the run: from the last card of a hand leaving its player
to the last peer having taken the next hand's deal (holding its cards), and from the lobby full
(the host's genesis) to the last peer holding its first hand. Each is set against its bound,
measured in the same run: the steps on the critical path, each a loopback hop and its signature
checks, and the E_k work that must happen in sequence, from unit costs timed alone. A hand's
start holds the reveals, the end-of-hand audit and the deal, each peer decrypting its own cards
(the deck was shuffled and locked during the hand before); the game's start holds the seating
and the whole first deck: every seat's shuffle and lock one after the other, each deck decoded
before the next seat can use it. Peers on one machine share its cores: work every peer does
at the same moment counts ``seats / cores`` times in the bound when the seats outnumber them.
A third figure is each peer's resident memory as each hand is dealt: its growth per hand.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from ..deck import HandParams
from ..rules import Rules
from . import network
from .progress import Progress
from .units import cost, loopback_hop, unit_costs

HAND_TARGET = 1.5  # hand start: at most this many times its bound
GAME_TARGET = 2.0  # game start
MEMORY_TARGET = 0.02  # MB a peer's resident memory grows by per hand, after the first


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument(
        "--players", type=int, nargs="+", default=[4], choices=[3, 4, 5, 6], help="seats (4)"
    )
    parser.add_argument("--target", type=int, default=100, help="game end total (100)")
    parser.add_argument("--strategy", default="heuristic", help="bot strategy (heuristic)")


def _cards(players: int) -> int:
    return HandParams.for_rules(Rules(players=players), b"bench", 1, [bytes(32)] * players).size


CriticalPath = tuple[dict[str, int], dict[str, int], int]  # one seat's, every seat's, steps


def deck_path(n: int, m: int) -> CriticalPath:
    """E_k work and steps, in sequence, from the first shuffle to every peer holding its hand:
    each seat shuffles (a key, a multiplication per card) then locks (a key and a
    multiplication per card) in turn, while the others wait; each published deck is decoded by
    every other peer at once before the next seat uses it, then each peer decrypts its own
    cards. Steps: the shuffles, an echo, the locks, an echo, the deal."""
    own = -(-m // n)
    serial = {"derive": n + n * m, "multiply": 2 * n * m}
    everyone = {
        "derive": own,
        "decode": (n - 1) * m + m + n * m,
        "multiply": own,
        "verify": 2 * n + 3 * (n - 1),  # one per single-sender step, n-1 per all-sender step
    }
    return serial, everyone, 2 * n + 3


def hand_start_path(n: int, m: int) -> CriticalPath:
    """After the last card: the reveals, each peer's audit of a clean hand (the other seats'
    remixes: a key and a multiplication per slot; no shuffle is recomputed, SPEC 4.4 step 9),
    then the deal of the next hand's deck, shuffled and locked during the last hand (SPEC 6.3):
    each peer decrypts its own cards. Every peer does all of it at the same moment."""
    own = -(-m // n)
    everyone = {
        "derive": (n - 1) * own + own,
        "decode": own,
        "multiply": (n - 1) * own + own,
        "verify": 2 * (n - 1),  # the reveals, the deal
    }
    return {}, everyone, 2


def game_start_path(n: int, m: int) -> CriticalPath:
    """From the genesis: the accepts, the coin flip's commits and reveals, then the deck."""
    serial, everyone, steps = deck_path(n, m)
    everyone["verify"] += 1 + 3 * (n - 1)
    return serial, everyone, steps + 4


def bound(path: CriticalPath, n: int, cores: int, units: dict[str, float], hop: float) -> float:
    """Seconds the path takes at the least: its hops, one seat's work, and the work every seat
    does at once, which ``n`` peers on ``cores`` cores can do no faster than ``n / cores``
    times one peer's (peers on one machine share its cores; on a LAN, ``cores`` >= ``n``)."""
    serial, everyone, steps = path
    return steps * hop + cost(serial, units) + cost(everyone, units) * max(1.0, n / cores)


def _spread(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ms = [v * 1000 for v in values]
    return {
        "min": round(min(ms), 1),
        "median": round(statistics.median(ms), 1),
        "max": round(max(ms), 1),
    }


def _figure(values: list[float], bound: float, target: float) -> dict[str, Any]:
    spread = _spread(values)
    ratio = None if spread is None else round(spread["median"] / (bound * 1000), 2)
    return {
        "count": len(values),
        "ms": spread,
        "bound_ms": round(bound * 1000, 1),
        "ratio_to_bound": ratio,
        "target_ratio": target,
        "meets_target": None if ratio is None else ratio <= target,
    }


def measure(run: network.NetworkRun, hands: int) -> tuple[list[float], list[float]]:
    """Hand starts (hands 2 on) and the game start, in seconds."""
    starts = []
    for h in range(2, hands + 1):
        held, last = run.all_seen(h, "deal"), run.last_play(h - 1)
        if held is not None and last is not None:
            starts.append(held - last)
    genesis = run.peers[0].seen.get((0, "start"))  # the host's game began: the lobby is full
    first = run.all_seen(1, "deal")
    game = [first - genesis] if genesis is not None and first is not None else []
    return starts, game


def memory(run: network.NetworkRun) -> dict[str, Any] | None:
    """Each peer's resident memory as hands are dealt, after the first: its growth per hand
    (the least-squares slope) and how far it rises above the second hand's, in MB, as
    min/median/max over the peers. Flat memory is a slope near zero however long the game."""
    slopes, rises = [], []
    for p in run.peers:
        points = sorted((h, b / 1e6) for h, b in p.rss.items() if h >= 2)
        if len(points) < 3:
            continue
        mean_h = statistics.fmean(h for h, _ in points)
        mean_m = statistics.fmean(m for _, m in points)
        num = sum((h - mean_h) * (m - mean_m) for h, m in points)
        slopes.append(num / sum((h - mean_h) ** 2 for h, _ in points))
        rises.append(max(m for _, m in points) - points[0][1])
    if not slopes:
        return None

    def spread(values: list[float]) -> dict[str, float]:
        return {k: round(f(values), 3) for k, f in
                (("min", min), ("median", statistics.median), ("max", max))}  # fmt: skip

    growth = spread(slopes)
    return {
        "peers": len(slopes),
        "growth_mb_per_hand": growth,
        "rise_mb": spread(rises),
        "target_mb_per_hand": MEMORY_TARGET,
        "meets_target": growth["median"] <= MEMORY_TARGET,
    }


def _one(players: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hearts-bench-") as tmp:
        run = network.play(Path(tmp), players=players, target=args.target, strategy=args.strategy)
    hands = max(h for p in run.peers for h, step in p.seen if step == "deal")
    starts, game = measure(run, hands)
    units, hop = unit_costs(), loopback_hop()
    m, cores = _cards(players), os.cpu_count() or 1
    hand, game_path = hand_start_path(players, m), game_start_path(players, m)
    return {
        "players": players,
        "cards": m,
        "hands": hands,
        "cores": cores,
        "hand_start": _figure(starts, bound(hand, players, cores, units, hop), HAND_TARGET),
        "memory": memory(run),
        "game_start": _figure(game, bound(game_path, players, cores, units, hop), GAME_TARGET),
        "critical_path": {
            name: {"one_seat": path[0], "every_seat": path[1], "steps": path[2]}
            for name, path in (("hand_start", hand), ("game_start", game_path))
        },
        "unit_us": {k: round(v * 1e6, 1) for k, v in units.items()},
        "loopback_hop_us": round(hop * 1e6, 1),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    progress = Progress(args.quiet)
    results = []
    for n in sorted(set(args.players)):
        progress.show(f"handstart: {n} bot peers in their own processes, a game to {args.target}")
        results.append(_one(n, args))
    progress.close()
    return {
        "benchmark": "handstart",
        "target": args.target,
        "results": results,
    }


def _line(name: str, f: dict[str, Any]) -> str:
    if f["ms"] is None:
        return f"  {name}: not measured (the game had no such moment)"
    s = f["ms"]
    verdict = "meets" if f["meets_target"] else "MISSES"
    return (
        f"  {name} over {f['count']}: median {s['median']} ms (min {s['min']}, max {s['max']});"
        f" bound {f['bound_ms']} ms; ratio {f['ratio_to_bound']} ({verdict} ≤ {f['target_ratio']})"
    )


def _memory_line(m: dict[str, Any] | None) -> str:
    if m is None:
        return "  memory: not measured (too few hands)"
    g, r = m["growth_mb_per_hand"], m["rise_mb"]
    verdict = "meets" if m["meets_target"] else "MISSES"
    return (
        f"  memory of {m['peers']} peers after the first hand: growth per hand median"
        f" {g['median']} MB (min {g['min']}, max {g['max']}); rise at most {r['max']} MB"
        f" (median {r['median']}) ({verdict} ≤ {m['target_mb_per_hand']} MB per hand)"
    )


def render(r: dict[str, Any]) -> str:
    lines = [f"handstart: bot peers in their own processes over loopback TCP, to {r['target']}"]
    for x in r["results"]:
        u = x["unit_us"]
        lines += [
            f"{x['players']} seats on {x['cores']} cores, {x['cards']} cards, {x['hands']} hands "
            f"(units µs: verify {u['verify']}, derive {u['derive']}, decode {u['decode']}, "
            f"multiply {u['multiply']}; hop {x['loopback_hop_us']})",
            _line("last card → all hold the next hand", x["hand_start"]),
            _line("lobby full → all hold the first hand", x["game_start"]),
            _memory_line(x["memory"]),
        ]
    lines.append(
        "(bound: the critical path's steps, signature checks and E_k work in sequence; the work"
        " every peer does at once counted seats/cores times when the peers share fewer cores)"
    )
    return "\n".join(lines)
