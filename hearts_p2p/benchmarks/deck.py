"""CPU time of the mental-poker deck per hand, by phase, against the cost of its E_k steps.

All seats run in one process (shuffle, lock, deal, pass, every card opened and verified, one
seat's full audit). The bound is the number of E_k steps the scheme needs times the cost of one
step (derive a key, decode a point, multiply) measured in the same run; the rest is validation,
hashing and bookkeeping.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..deck import HandParams, Loopback, Phase, SeatDeck, new_pass_key
from ..deck.curve import CARD_POINTS, ORDER, load_x, multiply, scalar_key
from ..deck.params import PASS_COUNT
from ..deck.passbox import public_bytes
from ..deck.randomness import SeededRandomness
from ..rules import Rules

TARGET_PLAYERS = 4
TARGET_MS = 250.0
TARGET_RATIO = 1.5
_PHASES = {
    "shuffle": (Phase.SHUFFLE, Phase.SHUFFLE_ECHO),
    "lock": (Phase.LOCK, Phase.LOCK_ECHO),
    "deal": (Phase.DEAL,),
    "pass": (Phase.PASS_COMMIT, Phase.PASS_REVEAL),
    "play": (Phase.PLAY,),
    "reveal": (Phase.REVEAL,),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=3, help="hands per seat count (default 3)")
    parser.add_argument(
        "--players", type=int, nargs="+", default=[3, 4, 5, 6], choices=[3, 4, 5, 6]
    )


def _unit_cost(samples: int = 300) -> float:
    """Seconds of CPU for one E_k step with a fresh key: derive, decode, multiply."""
    rng = SeededRandomness(b"bench unit")
    scalars = [1 + rng.randbelow(ORDER - 1) for _ in range(samples)]
    start = time.process_time()
    for i, k in enumerate(scalars):
        multiply(scalar_key(k), load_x(CARD_POINTS[i % 52]))
    return (time.process_time() - start) / samples


def steps(players: int, size: int, passing: bool) -> dict[str, int]:
    """E_k steps per hand: every seat shuffles and locks the deck, each holder decrypts its
    dealt and received cards, every other seat verifies each open, one seat audits the other
    seats' shuffle and lock steps."""
    return {
        "shuffle": players * size,
        "lock": players * size,
        "deal": size,
        "pass": PASS_COUNT * players if passing else 0,
        "play": (players - 1) * size,
        "reveal": 0,
        "audit": 2 * (players - 1) * size,
    }


def _hand(players: int, index: int) -> tuple[dict[str, float], HandParams]:
    seed = b"bench %d %d" % (players, index)
    keys = [new_pass_key(SeededRandomness(seed + b"key %d" % s)) for s in range(players)]
    params = HandParams.for_rules(
        Rules(players=players), b"bench", 1, [public_bytes(k) for k in keys]
    )
    seats = [
        SeatDeck(params, s, keys[s], SeededRandomness(seed + b"seat %d" % s))
        for s in range(players)
    ]
    table = Loopback(seats, measure=True)
    table.run()
    start = time.process_time()
    seats[0].audit()
    audit = time.process_time() - start
    if table.errors:
        raise RuntimeError(f"an honest bench hand failed: {table.errors}")
    out = {name: sum(table.cpu.get(p, 0.0) for p in phases) for name, phases in _PHASES.items()}
    out["audit"] = audit
    return out, params


def run(args: argparse.Namespace) -> dict[str, Any]:
    hands = max(1, args.hands)
    unit = _unit_cost()
    results = []
    for players in sorted(set(args.players)):
        totals: dict[str, float] = {}
        params: HandParams | None = None
        for index in range(hands):
            phases, params = _hand(players, index)
            for name, seconds in phases.items():
                totals[name] = totals.get(name, 0.0) + seconds
        assert params is not None
        count = steps(players, params.size, params.passing)
        per_hand = {name: 1000 * s / hands for name, s in totals.items()}
        total = sum(per_hand.values())
        bound = 1000 * unit * sum(count.values())
        results.append(
            {
                "players": players,
                "cards": params.size,
                "hands": hands,
                "cpu_ms_per_hand": round(total, 2),
                "phases_ms": {k: round(v, 2) for k, v in per_hand.items()},
                "ek_steps": sum(count.values()),
                "ek_steps_by_phase": count,
                "bound_ms": round(bound, 2),
                "ratio_to_bound": round(total / bound, 3),
            }
        )
    target = next((r for r in results if r["players"] == TARGET_PLAYERS), None)
    meets = None
    if target is not None:
        meets = target["cpu_ms_per_hand"] <= TARGET_MS and target["ratio_to_bound"] <= TARGET_RATIO
    return {
        "ek_step_us": round(unit * 1e6, 2),
        "results": results,
        "target": {"players": TARGET_PLAYERS, "max_ms": TARGET_MS, "max_ratio": TARGET_RATIO},
        "meets_target": meets,
    }


def render(result: dict[str, Any]) -> str:
    names = [*_PHASES, "audit"]
    lines = [
        f"deck: one E_k step = {result['ek_step_us']:.1f} µs CPU (derive, decode, multiply)",
        f"{'seats':>5} {'cards':>5} "
        + " ".join(f"{n:>8}" for n in names)
        + f" {'total':>8} {'bound':>8} {'ratio':>6}",
    ]
    for r in result["results"]:
        phases = " ".join(f"{r['phases_ms'][n]:8.1f}" for n in names)
        lines.append(
            f"{r['players']:>5} {r['cards']:>5} {phases} {r['cpu_ms_per_hand']:8.1f}"
            f" {r['bound_ms']:8.1f} {r['ratio_to_bound']:6.2f}"
        )
    lines.append("(ms of CPU per hand, all seats; bound = E_k steps × one step)")
    t = result["target"]
    if result["meets_target"] is not None:
        verdict = "meets" if result["meets_target"] else "MISSES"
        lines.append(
            f"{verdict} the target for {t['players']} seats: ≤ {t['max_ms']:.0f} ms per hand and"
            f" ≤ {t['max_ratio']}× the bound"
        )
    return "\n".join(lines)
