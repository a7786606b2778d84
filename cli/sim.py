"""``hearts sim``: play many seeded tables on a simulated network, with faults and adversaries,
and check the promise after each (``hearts_p2p.sim``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .overview import COMMANDS

EXIT_VIOLATED = 4  # as an audit that fails: a check did not hold


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sim",
        help=COMMANDS["sim"],
        description="Play seeded tables of real peers on a simulated network and clock, with "
        "crashes, partitions, quits, slow clocks and hostile peers, and check after each run "
        "that no honest seat is named, honest peers agree, the table is never held, and every "
        "honest log audits. Exits 4 if any run breaks that.",
        epilog="examples: hearts sim --seeds 2000 --jobs 2    hearts sim --seed 1106 --trace",
    )
    p.add_argument("--seeds", type=_count, default=200, help="how many seeds to run (200)")
    p.add_argument("--from", dest="first", type=int, default=1, help="the first seed (1)")
    p.add_argument("--seed", type=int, help="run this one seed and show what happened")
    p.add_argument("--players", type=int, choices=range(3, 7), help="seats (drawn: 3..6)")
    p.add_argument(
        "--adversaries",
        type=int,
        help="hostile seats, 0..players − 2 (drawn: 0, 1 or n − 2; at most n − 2 of each table)",
    )
    p.add_argument(
        "--real-every",
        type=int,
        default=10,
        metavar="M",
        help="every M-th seed on P-256, the rest on the fast stand-in group (10; 0: none)",
    )
    p.add_argument("--jobs", type=_count, default=1, help="worker processes (1)")
    p.add_argument("--trace", action="store_true", help="with --seed: print the run's trace")
    p.add_argument("--shrink", action="store_true", help="with --seed: the fewest faults that fail")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return n


def run(args: argparse.Namespace) -> int:
    from hearts_p2p.sim import Campaign

    if args.adversaries is not None and args.adversaries < 0:
        sys.stderr.write("hearts sim: --adversaries is 0 or more\n")
        return 2
    if args.players is not None and (args.adversaries or 0) > args.players - 2:
        sys.stderr.write(
            f"hearts sim: --adversaries is at most {args.players - 2} at {args.players} seats "
            "(the promise covers n − 2 colluders)\n"
        )
        return 2
    if args.real_every < 0:
        sys.stderr.write("hearts sim: --real-every is 0 (none on P-256) or more\n")
        return 2
    if args.seed is not None:
        return _one(args)
    seeds = range(args.first, args.first + args.seeds)
    start = time.perf_counter()
    total = Campaign()
    jobs = min(args.jobs, os.cpu_count() or 1, len(seeds))
    chunks = [seeds[i::jobs] for i in range(jobs)]
    show = sys.stderr.isatty() and not args.json
    if jobs == 1:
        total = _chunk(list(seeds), args.players, args.adversaries, args.real_every, show)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            futures = [
                pool.submit(_chunk, list(c), args.players, args.adversaries, args.real_every, False)
                for c in chunks
            ]
            for f in futures:
                total.merge(f.result())
    total.wall = time.perf_counter() - start
    if show:
        sys.stderr.write("\r" + " " * 60 + "\r")
    if args.json:
        json.dump(total.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(_render(total, args) + "\n")
    return EXIT_VIOLATED if total.failures else 0


def _chunk(
    seeds: list[int], players: int | None, adversaries: int | None, real_every: int, show: bool
) -> Any:
    from hearts_p2p.sim import RunResult, campaign
    from hearts_p2p.sim.run import Campaign

    last = [0.0]

    def progress(c: Campaign, r: RunResult) -> None:
        now = time.perf_counter()
        if show and now - last[0] > 0.5:
            last[0] = now
            sys.stderr.write(f"\r{c.runs}/{len(seeds)} runs, {len(c.failures)} failing")
            sys.stderr.flush()

    return campaign(
        seeds, players=players, adversaries=adversaries, real_every=real_every, progress=progress
    )


def _render(c: Any, args: argparse.Namespace) -> str:
    from hearts_p2p.sim import replay_command

    data = c.to_json()
    lines = [
        f"{data['runs']} runs ({data['real_group_runs']} on P-256), {data['steps']} logged "
        f"steps, {data['events']} events, {data['runs_per_second']} runs/s",
        f"seats: {_counts(data['by_players'])}; hostile seats: {_counts(data['by_adversaries'])}",
        f"reached: {data['combinations']} (step, message, fault) combinations; "
        + ", ".join(f"{k} {v}" for k, v in data["milestones"].items()),
        f"violations: {data['violations']}",
        f"fingerprint: {data['fingerprint']} (every log of every run, hashed)",
    ]
    for r in c.failures[:20]:
        lines.append(f"  seed {r.seed}: " + "; ".join(v.broken.value for v in r.violations))
        lines.append(f"    {r.violations[0].detail.splitlines()[0][:200]}")
        lines.append(f"    replay: {replay_command(r, args.players, args.adversaries)} --trace")
    return "\n".join(lines)


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in d.items())


def _one(args: argparse.Namespace) -> int:
    from hearts_p2p.sim import draw, run_scenario, shrink
    from hearts_p2p.sim.run import real_group_for

    scenario = draw(args.seed, players=args.players, adversaries=args.adversaries)
    real = real_group_for(args.seed, args.real_every)
    result = run_scenario(scenario, real_group=real)
    if args.shrink and result.violations:
        scenario = shrink(result, real_group=real)
        result = run_scenario(scenario, real_group=real)
    trace = result.trace
    if args.json:
        out = {
            "seed": args.seed,
            "scenario": scenario.describe(),
            "ending": result.ending,
            "hands": result.hands,
            "entries": result.entries,
            "seconds": round(result.seconds, 3),
            "fingerprint": result.fingerprint,
            "violations": [
                {"broken": v.broken.value, "detail": v.detail} for v in result.violations
            ],
            **({"trace": trace} if args.trace else {}),
        }
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        lines = [scenario.describe()]
        if args.trace:
            lines += trace
        lines.append(
            f"ended {result.ending} after {result.seconds:.1f} simulated s, {result.hands} hands, "
            f"{result.entries} log entries"
        )
        lines += [f"VIOLATION {v.broken.value}: {v.detail}" for v in result.violations]
        lines.append("the promise held" if not result.violations else "")
        sys.stdout.write("\n".join(x for x in lines if x) + "\n")
    return EXIT_VIOLATED if result.violations else 0
