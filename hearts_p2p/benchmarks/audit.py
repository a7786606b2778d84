"""Speed of ``hearts audit``: a whole logged game, in one process and with worker processes.

The log is a bot game played in this process (``--target`` points). The bound is the
cryptography an audit cannot skip, measured in the same run: each entry's signature, and per
hand every published deck's points decoded (each must be a point) and the E_k step of every open
and remix with its key derivation; a clean hand recomputes no shuffle (SPEC 4.4 step 9), and
every hand of a bot game is clean. It is shared out over the processes used. The rest is the
replay: rules, hashing, parsing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ..bots import make_bot
from ..deck import HandParams
from ..deck.randomness import SeededRandomness
from ..game import LocalTable, Status
from ..identity import Identity
from ..log import GameLog
from ..rules import Rules
from .units import cost, unit_costs

TARGET_HANDS_PER_SECOND = 50.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", type=int, default=100, help="game end total (100)")
    parser.add_argument("--players", type=int, default=4, choices=[3, 4, 5, 6])
    parser.add_argument("--runs", type=int, default=3, help="audits of the log per mode (3)")
    parser.add_argument("--workers", type=int, help="worker processes (default: one per core)")
    parser.add_argument("--seed", type=int, default=1)


def _game_log(path: Path, rules: Rules, seed: int) -> int:
    """Play a bot game in this process and write its log; the number of hands."""
    n = rules.players
    rng = SeededRandomness(b"bench audit %d" % seed)
    ids = [Identity.from_seed(rng.token_bytes(32)) for _ in range(n)]
    secrets = [rng.token_bytes(32) for _ in range(n)]
    bots = [make_bot("heuristic", seed + i) for i in range(n)]
    table = LocalTable(rules, ids, secrets, rng.token_bytes(16), bots, seed=seed)
    table.run()
    proto = table.protos[0]
    if proto.status is not Status.FINISHED or proto.game is None:
        raise SystemExit("hearts bench audit: the bench game did not finish")
    log = GameLog.open(path)
    for entry in proto.entries:
        log.append(entry)
    log.close()
    return proto.game.number


def operations(rules: Rules, hands: int, entries: int) -> dict[str, int]:
    """What an audit of clean hands must compute: a signature check per entry; per hand, every
    published deck decoded once and each open a key and a multiplication; per hand with a pass,
    every seat's remix too (a key, a decode and a multiplication per card)."""
    n = rules.players
    m = HandParams.for_rules(rules, b"bench", 1, [bytes(32)] * n).size
    remixed = m * sum(1 for h in range(1, hands + 1) if rules.pass_target(0, h) is not None)
    return {
        "verify": entries,
        "derive": hands * m + remixed,
        "decode": hands * 2 * n * m + remixed,
        "multiply": hands * m + remixed,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    from ..audit import audit_log  # not loaded for every command that builds the parser
    from ..auditwork import default_workers

    rules = Rules(players=args.players, target=args.target)
    runs = max(1, args.runs)
    with tempfile.TemporaryDirectory(prefix="hearts-bench-audit-") as tmp:
        path = Path(tmp) / "game.log"
        hands = _game_log(path, rules, args.seed)
        entries = len(GameLog.open(path).entries)
        workers = args.workers if args.workers is not None else max(2, default_workers(10**9))
        walls: dict[int, list[float]] = {0: [], workers: []}
        for _ in range(runs):
            for w in walls:
                start = time.monotonic()
                report = audit_log(path, workers=w)
                walls[w].append(time.monotonic() - start)
                if not report.valid:
                    raise SystemExit(f"hearts bench audit: the bench log fails: {report.problems}")
    unit = unit_costs()
    ops = operations(rules, hands, entries)
    crypto = cost(ops, unit)
    cores = min(workers, os.cpu_count() or 1)
    modes: list[dict[str, Any]] = []
    for w, times in walls.items():
        procs = 1 if w <= 1 else min(w, cores)
        bound = crypto / procs
        best, median, worst = min(times), statistics.median(times), max(times)
        modes.append(
            {
                "workers": w,
                "seconds": [round(best, 3), round(median, 3), round(worst, 3)],
                "hands_per_second": round(hands / median, 1),
                "entries_per_second": round(entries / median),
                "bound_seconds": round(bound, 3),
                "ratio_to_bound": round(median / bound, 2),
            }
        )
    pooled = modes[-1]
    return {
        "benchmark": "audit",
        "players": rules.players,
        "target": rules.target,
        "hands": hands,
        "entries": entries,
        "runs": runs,
        "cores": os.cpu_count(),
        "unit_us": {k: round(v * 1e6, 1) for k, v in unit.items()},
        "operations": ops,
        "modes": modes,
        "speedup": round(modes[0]["seconds"][1] / pooled["seconds"][1], 2),
        "meets_target": pooled["hands_per_second"] >= TARGET_HANDS_PER_SECOND,
    }


def render(r: dict[str, Any]) -> str:
    u = r["unit_us"]
    lines = [
        f"audit: a {r['players']}-seat game to {r['target']}: {r['hands']} hands, "
        f"{r['entries']} entries, {r['runs']} runs per mode, {r['cores']} cores",
        f"  unit costs (µs CPU): verify {u['verify']}, derive {u['derive']}, decode "
        f"{u['decode']}, multiply {u['multiply']}",
        "  bound: the signatures and E_k work an audit cannot skip, shared over its processes",
    ]
    for m in r["modes"]:
        lo, med, hi = m["seconds"]
        who = "one process" if m["workers"] <= 1 else f"{m['workers']} workers"
        lines.append(
            f"  {who:>12}: {med:.3f} s (min {lo:.3f}, max {hi:.3f}), {m['hands_per_second']} "
            f"hands/s, {m['entries_per_second']} entries/s; bound {m['bound_seconds']:.3f} s, "
            f"ratio {m['ratio_to_bound']}"
        )
    verdict = "meets" if r["meets_target"] else "MISSES"
    lines.append(
        f"  speed-up from the workers: {r['speedup']}× ({verdict} the target of "
        f"{TARGET_HANDS_PER_SECOND:.0f} hands/s)"
    )
    return "\n".join(lines)
