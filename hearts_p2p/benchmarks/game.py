"""A whole 4-bot game over loopback TCP between 4 processes, against the same in one process.

Every peer runs every check (signatures, deck cryptography, rules, end-of-hand audits) in its
own OS process. Two parts, each against its own bound measured in the same run. The game
itself, from the lobby full to the last peer taking the last entry, against the same kind of
game with all four seats in one process and no network, per hand. The processes around it
(starting, the lobby, lingering for late peers, exiting) against the start-up of one ``hearts``
process plus the bench's stagger between the host and the others. Play latency is measured
from a play leaving its sender to the last peer having verified it (all peers share one
monotonic clock, being on one machine).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..bots import make_bot
from ..game import LocalTable, Status
from ..identity import Identity
from ..rules import Rules
from . import network
from .progress import Progress

TARGET_RATIO = 1.3
TARGET_P50_MS = 3.0
TARGET_P99_MS = 15.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", type=int, default=100, help="game end total (100)")
    parser.add_argument("--strategy", default="heuristic", help="bot strategy (heuristic)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--leaver",
        action="store_true",
        help="kill one bot peer for good at a random point (seeded) and measure the takeover",
    )
    parser.add_argument(
        "--timeout", type=float, default=3.0, help="each peer's --timeout with --leaver (3 s)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def hand_now(timings: Path) -> int:
    """The hand the host's last timing record is in (0 before the first)."""
    try:
        with open(timings, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 200))
            lines = f.read().splitlines()
    except OSError:
        return 0
    for line in reversed(lines):
        try:
            return int(json.loads(line)["step"].split(":")[0])
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return 0


def network_game(
    args: argparse.Namespace, tmp: Path, progress: Progress, hands_expected: int
) -> dict[str, Any]:
    start = time.monotonic()

    def tick() -> None:
        elapsed = time.monotonic() - start
        progress.show(f"game: hand {hand_now(tmp / 't0')} over loopback, {elapsed:.0f} s")

    kill = None
    if args.leaver:
        rng = random.Random(args.seed)
        # A bot, killed after that many entries: somewhere in the first half of the game.
        kill = (rng.randrange(1, 4), rng.randrange(40, max(41, 60 * hands_expected)))
    run = network.play(
        tmp, players=4, target=args.target, strategy=args.strategy, tick=tick, kill=kill,
        timeout=args.timeout if args.leaver else None,
    )  # fmt: skip
    alive = [p for i, p in enumerate(run.peers) if run.killed is None or i != run.killed[0]]
    hands = max(h for p in alive for h, step in p.seen if step == "deal")  # not a deck ahead
    sent = {k: t for p in alive for k, t in p.sent.items()}
    latencies = []
    for key, t in sent.items():
        times = [p.seen.get(key) for p in alive]
        if None not in times:
            latencies.append((max(x for x in times if x is not None) - t) * 1000)
    game_start = run.peers[0].seen[(0, "start")]
    in_game = run.last_seen() - game_start
    takeover = None
    if run.killed is not None:
        host = run.peers[0].seen
        recovered = max((t for (h, s), t in host.items() if s == "recover"), default=None)
        again = min((t for t in host.values() if recovered is not None and t > recovered),
                    default=None)  # fmt: skip
        takeover = {
            "killed_peer": run.killed[0],
            "killed_after_entries": kill[1] if kill else None,
            "kill_to_playing_seconds": (
                round(again - run.killed[1], 3) if again is not None else None
            ),
        }
    return {
        "wall": run.wall,
        "in_game": in_game,
        "before": game_start - run.start,
        "after": max(run.exits) - run.last_seen(),
        "cpu": run.cpu,
        "hands": hands,
        "latencies": sorted(latencies),
        "takeover": takeover,
    }


def in_process_game(args: argparse.Namespace) -> dict[str, Any]:
    """The bound: the same kind of game, four seats in one process, messages passed by hand."""
    rules = Rules(target=args.target)
    n = rules.players
    ids = [Identity.generate() for _ in range(n)]
    secrets = [os.urandom(32) for _ in range(n)]
    bots = [make_bot(args.strategy, args.seed + i) for i in range(n)]
    table = LocalTable(rules, ids, secrets, os.urandom(16), bots, seed=args.seed)
    start = time.monotonic()
    cpu = time.process_time()
    table.run()
    if any(p.status is not Status.FINISHED for p in table.protos):
        raise SystemExit("hearts bench game: the in-process game did not finish")
    game = table.protos[0].game
    assert game is not None
    return {
        "wall": time.monotonic() - start,
        "cpu": time.process_time() - cpu,
        "hands": game.number,
    }


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(q * len(values)))]


def run(args: argparse.Namespace) -> dict[str, Any]:
    progress = Progress(args.quiet)
    progress.show("game: the bound, four seats in one process")
    bound = in_process_game(args)
    with tempfile.TemporaryDirectory(prefix="hearts-bench-") as tmp:
        try:
            net = network_game(args, Path(tmp), progress, bound["hands"])
        finally:
            progress.close()
    startup = network.startup_seconds()
    per_hand = net["in_game"] / net["hands"]
    bound_per_hand = bound["wall"] / bound["hands"]
    lat = net["latencies"]
    p50, p99 = _pct(lat, 0.50), _pct(lat, 0.99)
    ratio = per_hand / bound_per_hand
    around = net["before"] + net["after"]
    around_bound = network.STAGGER + startup
    return {
        "benchmark": "game",
        "target": args.target,
        "hands": net["hands"],
        "wall_seconds": round(net["wall"], 2),
        "in_game_seconds": round(net["in_game"], 2),
        "wall_per_hand_ms": round(per_hand * 1000, 1),
        "cpu_seconds_per_peer": [round(c, 2) for c in net["cpu"]],
        "plays_measured": len(lat),
        "play_latency_p50_ms": round(p50, 2),
        "play_latency_p99_ms": round(p99, 2),
        "play_latency_max_ms": round(lat[-1], 2) if lat else None,
        "bound_hands": bound["hands"],
        "bound_wall_per_hand_ms": round(bound_per_hand * 1000, 1),
        "bound_cpu_seconds": round(bound["cpu"], 2),
        "ratio_to_bound": round(ratio, 3),
        "processes": {
            "start_to_lobby_full_seconds": round(net["before"], 3),
            "last_entry_to_exit_seconds": round(net["after"], 3),
            "bound_seconds": round(around_bound, 3),
            "startup_seconds": round(startup, 3),
            "stagger_seconds": network.STAGGER,
            "ratio_to_bound": round(around / around_bound, 2),
        },
        "takeover": _takeover(net["takeover"], args.timeout),
        "meets_ratio_target": ratio <= TARGET_RATIO,
        "meets_latency_targets": p50 <= TARGET_P50_MS and p99 <= TARGET_P99_MS,
    }


def _takeover(t: dict[str, Any] | None, timeout: float) -> dict[str, Any] | None:
    """The kill, and how soon after it the table played again, against the timeout + 1 s."""
    if t is None:
        return None
    seconds = t["kill_to_playing_seconds"]
    bound = timeout + 1.0
    return {
        **t,
        "timeout_seconds": timeout,
        "bound_seconds": bound,
        "ratio_to_bound": round(seconds / bound, 2) if seconds is not None else None,
        "meets_target": seconds is not None and seconds <= bound,
    }


def render(r: dict[str, Any]) -> str:
    def verdict(ok: bool) -> str:
        return "meets" if ok else "MISSES"

    cpu = ", ".join(f"{c:.1f}" for c in r["cpu_seconds_per_peer"])
    p = r["processes"]
    return (
        f"game: 4 bot peers in 4 processes over loopback TCP, to {r['target']}\n"
        f"  {r['hands']} hands; {r['wall_seconds']} s in all, {r['in_game_seconds']} s from the "
        f"lobby full to the last entry: {r['wall_per_hand_ms']} ms per hand\n"
        f"  CPU per peer (s): {cpu}\n"
        f"  in-game bound (4 seats in one process, no network): {r['bound_wall_per_hand_ms']} ms "
        f"per hand over {r['bound_hands']} hands\n"
        f"  in-game ratio to the bound: {r['ratio_to_bound']} "
        f"({verdict(r['meets_ratio_target'])} the target of {TARGET_RATIO})\n"
        f"  processes: {p['start_to_lobby_full_seconds']} s from the first start to the lobby "
        f"full, {p['last_entry_to_exit_seconds']} s from the last entry to the last exit; "
        f"bound {p['bound_seconds']} s (start-up {p['startup_seconds']} s + stagger "
        f"{p['stagger_seconds']} s), ratio {p['ratio_to_bound']}\n"
        f"  play latency over {r['plays_measured']} plays: p50 {r['play_latency_p50_ms']} ms, "
        f"p99 {r['play_latency_p99_ms']} ms, max {r['play_latency_max_ms']} ms "
        f"({verdict(r['meets_latency_targets'])} the targets {TARGET_P50_MS} / "
        f"{TARGET_P99_MS} ms)"
    ) + _takeover_text(r["takeover"], verdict)


def _takeover_text(t: dict[str, Any] | None, verdict: Callable[[bool], str]) -> str:
    if t is None:
        return ""
    return (
        f"\n  leaver: peer {t['killed_peer']} killed for good after {t['killed_after_entries']} "
        f"entries; the table played again {t['kill_to_playing_seconds']} s later, the bound "
        f"being the timeout + 1 s = {t['bound_seconds']} s: ratio {t['ratio_to_bound']} "
        f"({verdict(t['meets_target'])} it)"
    )
