"""A whole 4-bot game over loopback TCP between 4 processes, against the same in one process.

Every peer runs every check (signatures, deck cryptography, rules, end-of-hand audits) in its
own OS process. The bound is the same kind of game with all four seats in one process and no
network: the network costs what the game takes beyond that, per hand. Play latency is measured
from a play leaving its sender to the last peer having verified it (all peers share one
monotonic clock, being on one machine).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..bots import make_bot
from ..game import LocalTable, Status
from ..identity import Identity
from ..log import read_log
from ..rules import Rules
from ..wire import decode_frame
from .progress import Progress

TARGET_RATIO = 2.0
TARGET_P50_MS = 5.0
TARGET_P99_MS = 25.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", type=int, default=100, help="game end total (100)")
    parser.add_argument("--strategy", default="heuristic", help="bot strategy (heuristic)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _hearts(*args: str) -> list[str]:
    return [sys.executable, "-m", "hearts_p2p.cli.main", *args]


def network_game(args: argparse.Namespace, tmp: Path, progress: Progress) -> dict[str, Any]:
    port = str(_free_port(socket.SOCK_STREAM))
    common = ["--interface", "lo", "--discovery-port", str(_free_port(socket.SOCK_DGRAM))]
    host = _hearts(
        "host",
        "--headless",
        "--table",
        "bench",
        "--target",
        str(args.target),
        "--port",
        port,
        "--name",
        "p0",
        "--data-dir",
        str(tmp / "p0"),
        "--timings",
        str(tmp / "t0"),
        "--bot-strategy",
        args.strategy,
        *common,
    )
    cmds = [host] + [
        _hearts(
            "bot",
            "--peer",
            f"127.0.0.1:{port}",
            "--name",
            f"p{i}",
            "--seed",
            str(i),
            "--data-dir",
            str(tmp / f"p{i}"),
            "--timings",
            str(tmp / f"t{i}"),
            "--quiet",
            "--strategy",
            args.strategy,
            *common,
        )
        for i in (1, 2, 3)
    ]
    env = {**os.environ, "HEARTS_INTERFACE": "lo"}
    start = time.monotonic()
    procs = [subprocess.Popen(cmds[0], env=env, stdout=subprocess.DEVNULL)]
    time.sleep(0.3)
    procs += [subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL) for c in cmds[1:]]
    codes, cpu = _wait_all(procs, lambda: progress.show(
        f"game: hand {hand_now(tmp / 't0')} over loopback, {time.monotonic() - start:.0f} s"
    ))  # fmt: skip
    wall = time.monotonic() - start
    if codes != [0, 0, 0, 0]:
        raise SystemExit(f"hearts bench game: peers exited with {codes}")
    log = next((tmp / "p0" / "games").glob("*.log"))
    hands = _hands(read_log(log).entries)
    sent: dict[str, float] = {}
    seen: dict[str, list[float]] = {}
    for i in range(4):
        for line in (tmp / f"t{i}").read_text().splitlines():
            rec = json.loads(line)
            if "sent" in rec:
                sent[rec["step"]] = rec["sent"]
            else:
                seen.setdefault(rec["step"], []).append(rec["seen"])
    latencies = sorted(
        (max(seen[k]) - t) * 1000 for k, t in sent.items() if len(seen.get(k, [])) == 4
    )
    return {"wall": wall, "cpu": cpu, "hands": hands, "latencies": latencies}


def _wait_all(
    procs: list[subprocess.Popen[bytes]], tick: Callable[[], None]
) -> tuple[list[int], list[float]]:
    """Every peer's exit code and CPU seconds, calling ``tick`` while they run."""
    codes: dict[int, int] = {}
    cpu: dict[int, float] = {}
    while len(codes) < len(procs):
        for i, p in enumerate(procs):
            if i in codes:
                continue
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                p.returncode = codes[i] = os.waitstatus_to_exitcode(status)
                cpu[i] = usage.ru_utime + usage.ru_stime
        tick()
        time.sleep(0.25)
    return [codes[i] for i in range(len(procs))], [cpu[i] for i in range(len(procs))]


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


def _hands(entries: list[bytes]) -> int:
    return max(decode_frame(e).envelope.hand for e in entries)


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
            net = network_game(args, Path(tmp), progress)
        finally:
            progress.close()
    per_hand = net["wall"] / net["hands"]
    bound_per_hand = bound["wall"] / bound["hands"]
    lat = net["latencies"]
    p50, p99 = _pct(lat, 0.50), _pct(lat, 0.99)
    ratio = per_hand / bound_per_hand
    return {
        "benchmark": "game",
        "target": args.target,
        "hands": net["hands"],
        "wall_seconds": round(net["wall"], 2),
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
        "meets_ratio_target": ratio <= TARGET_RATIO,
        "meets_latency_targets": p50 <= TARGET_P50_MS and p99 <= TARGET_P99_MS,
    }


def render(r: dict[str, Any]) -> str:
    def verdict(ok: bool) -> str:
        return "meets" if ok else "MISSES"

    cpu = ", ".join(f"{c:.1f}" for c in r["cpu_seconds_per_peer"])
    return (
        f"game: 4 bot peers in 4 processes over loopback TCP, to {r['target']}\n"
        f"  {r['hands']} hands in {r['wall_seconds']} s: {r['wall_per_hand_ms']} ms per hand\n"
        f"  CPU per peer (s): {cpu}\n"
        f"  bound (4 seats in one process, no network): {r['bound_wall_per_hand_ms']} ms per "
        f"hand over {r['bound_hands']} hands\n"
        f"  ratio to the bound: {r['ratio_to_bound']} ({verdict(r['meets_ratio_target'])} "
        f"the target of {TARGET_RATIO})\n"
        f"  play latency over {r['plays_measured']} plays: p50 {r['play_latency_p50_ms']} ms, "
        f"p99 {r['play_latency_p99_ms']} ms, max {r['play_latency_max_ms']} ms "
        f"({verdict(r['meets_latency_targets'])} the targets {TARGET_P50_MS} / "
        f"{TARGET_P99_MS} ms)"
    )
