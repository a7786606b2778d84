"""Speed of ``hearts audit``: a whole logged game, in one process and with worker processes.

The log is a bot game played in this process (``--target`` points). The bound is the
cryptography an audit cannot skip, counted from the log and measured in the same run: each
entry's signature; every deck the log publishes decoded (each entry must be a point), the deck
shuffled ahead for a hand the game never played included; the E_k step of every open and of every
remixed entry, with its key derivation; each pass's box opened. A clean hand recomputes no
shuffle (SPEC 4.4 step 9), and every hand of a bot game is clean. It is shared out over the
processes used. The rest is the replay: rules, hashing, parsing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ..bots import make_bot
from ..deck import HandParams
from ..deck.params import PROOF_ROUNDS
from ..deck.passbox import open_box, public_bytes, seal_box
from ..deck.randomness import SeededRandomness
from ..game import LocalTable, Status
from ..identity import Identity
from ..log import GameLog, read_log
from ..rules import Rules
from ..wire import decode_frame
from .progress import Progress
from .units import cost, unit_costs

TARGET_HANDS_PER_SECOND = 50.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", type=int, default=100, help="game end total (100)")
    parser.add_argument("--players", type=int, default=4, choices=[3, 4, 5, 6])
    parser.add_argument("--runs", type=int, default=3, help="audits of the log per mode (3)")
    parser.add_argument("--workers", type=int, help="worker processes (default: one per core)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def game_log(path: Path, rules: Rules, seed: int) -> int:
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


def operations(rules: Rules, entries: Iterable[tuple[int, str]]) -> dict[str, int]:
    """What an audit of a log of clean hands must compute, from each entry's (hand, kind): a
    signature check per entry; each shuffled or locked deck decoded once; each open a key and a
    multiplication; each remix its entries decoded; each remix answer R keys and
    multiplications per entry, the seat's held entries decoded and, for the about R/2 rounds
    opened to the output, that round's list. A clean remixed hand opens no pass box."""
    n = rules.players
    m = HandParams.for_rules(rules, b"bench", 1, [bytes(32)] * n).size
    share = m // n
    ops = dict.fromkeys(("verify", "derive", "decode", "multiply", "unseal"), 0)
    for hand, kind in entries:
        ops["verify"] += 1
        if hand < 1:
            continue
        if kind in ("shuffle", "lock"):
            ops["decode"] += m
        elif kind == "play":
            ops["derive"] += 1
            ops["multiply"] += 1
        elif kind == "remix":
            ops["decode"] += share
        elif kind == "remix_answer":
            ops["derive"] += PROOF_ROUNDS * share
            ops["multiply"] += PROOF_ROUNDS * share
            ops["decode"] += share * (1 + PROOF_ROUNDS // 2)
    return ops


def unseal_cost(samples: int = 50) -> float:
    """Seconds of CPU for one pass's box as the audit opens it: the revealed X25519 key and its
    public half, the shared secret, the box decrypted."""
    rng = SeededRandomness(b"bench unseal")
    receiver = X25519PrivateKey.from_private_bytes(rng.token_bytes(32))
    rules = Rules()
    keys = [public_bytes(receiver)] * rules.players
    params = HandParams.for_rules(rules, b"bench", 1, keys)
    secret = rng.token_bytes(32)
    ephemeral = X25519PrivateKey.from_private_bytes(secret)
    positions = params.positions_of(0)[:3]
    box = seal_box(
        params, 0, positions, [(rng.token_bytes(32), rng.token_bytes(16))] * 3, ephemeral
    )
    start = time.process_time()
    for _ in range(samples):
        revealed = X25519PrivateKey.from_private_bytes(secret)
        shown = public_bytes(revealed)
        open_box(params, 0, positions, shown, box, revealed, keys[1])
    return (time.process_time() - start) / samples


def _kinds(path: Path) -> list[tuple[int, str]]:
    return [(e.hand, e.kind) for e in (decode_frame(r).envelope for r in read_log(path).entries)]


def run(args: argparse.Namespace) -> dict[str, Any]:
    from ..audit import audit_log  # not loaded for every command that builds the parser
    from ..auditwork import default_workers

    rules = Rules(players=args.players, target=args.target)
    runs = max(1, args.runs)
    progress = Progress(args.quiet)
    with tempfile.TemporaryDirectory(prefix="hearts-bench-audit-") as tmp:
        path = Path(tmp) / "game.log"
        progress.show(f"audit: playing a game to {args.target} for its log")
        hands = game_log(path, rules, args.seed)
        kinds = _kinds(path)
        entries = len(kinds)
        workers = args.workers if args.workers is not None else max(2, default_workers(10**9))
        walls: dict[int, list[float]] = {0: [], workers: []}
        for k in range(runs):
            for w in walls:
                progress.show(f"audit: run {k + 1} of {runs}, {w or 'no'} worker processes")
                start = time.monotonic()
                report = audit_log(path, workers=w)
                walls[w].append(time.monotonic() - start)
                if not report.valid:
                    raise SystemExit(f"hearts bench audit: the bench log fails: {report.problems}")
    progress.close()
    unit = {**unit_costs(), "unseal": unseal_cost()}
    ops = operations(rules, kinds)
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
        f"{u['decode']}, multiply {u['multiply']}, unseal {u['unseal']}",
        "  bound: the signatures, decodes, E_k steps and pass boxes the log needs, shared over "
        "the processes",
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
