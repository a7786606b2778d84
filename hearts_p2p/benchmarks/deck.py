"""CPU time of the mental-poker deck per hand, by phase, against the cost of its E_k work.

All seats run in one process (shuffle, lock, deal, pass, every card opened and verified, one
seat's full audit). The bound counts what the scheme cannot skip, each operation timed alone in
the same run: the key derivations and multiplications of every E_k step, and the point decodes
of every published deck by every seat that receives it; the rest is validation, hashing and
bookkeeping. The remix phase holds each seat's remix, the intermediates of its proof, its
challenge share and its answer, and every other seat's check of that answer (SPEC 4.4 steps
6a-6c); the bench's hands are clean, so their reveals and audit compute nothing.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..deck import HandParams, Loopback, Phase, SeatDeck, new_pass_key
from ..deck.params import PASS_COUNT, PROOF_ROUNDS
from ..deck.passbox import public_bytes
from ..deck.randomness import SeededRandomness
from ..rules import Rules
from .progress import Progress
from .units import cost, unit_costs

TARGET_PLAYERS = 4
TARGET_MS = 600.0  # 250 before the remix proofs, about 350 ms of every seat's CPU together
TARGET_RATIO = 1.5
_PHASES = {
    "shuffle": (Phase.SHUFFLE, Phase.SHUFFLE_ECHO),
    "lock": (Phase.LOCK, Phase.LOCK_ECHO),
    "deal": (Phase.DEAL,),
    "pass": (Phase.PASS_COMMIT, Phase.PASS_REVEAL),
    "remix": (Phase.REMIX, Phase.REMIX_SHARE, Phase.REMIX_ANSWER),
    "play": (Phase.PLAY,),
    "reveal": (Phase.REVEAL,),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--hands", type=int, default=3, help="hands per seat count (default 3)")
    parser.add_argument(
        "--players", type=int, nargs="+", default=[3, 4, 5, 6], choices=[3, 4, 5, 6]
    )


def steps(players: int, size: int, passing: bool) -> dict[str, dict[str, int]]:
    """Operations per hand by phase, all seats together: each seat shuffles (one key, a
    multiplication per card) and locks (a key and a multiplication per card), and every other
    seat decodes the deck it publishes; each holder decrypts its dealt and received cards (a
    key and a multiplication each), then with a pass remixes its hand (a key and a
    multiplication per card, decoded by every other seat) with the R intermediate lists of its
    proof (the same per entry), and every other seat checks its answer (R·H keys and
    multiplications, its held entries decoded and, for the about R/2 rounds opened to the
    output, that round's list); every other seat verifies each open (the same). A clean hand's
    reveals and audit compute nothing (SPEC 4.4 step 9)."""
    n, m = players, size
    passed = PASS_COUNT * n if passing else 0
    remixed = m if passing else 0  # every seat's hand: m cards in all
    rounds = PROOF_ROUNDS if passing else 0
    made = remixed * (1 + rounds)
    checked = (n - 1) * remixed * rounds
    return {
        "shuffle": {"derive": n, "multiply": n * m, "decode": n * (n - 1) * m},
        "lock": {"derive": n * m, "multiply": n * m, "decode": n * (n - 1) * m},
        "deal": {"derive": m, "multiply": m},
        "pass": {"derive": passed, "multiply": passed},
        "remix": {
            "derive": made + checked,
            "multiply": made + checked,
            "decode": (n - 1) * remixed * (2 + rounds // 2),
        },
        "play": {"derive": (n - 1) * m, "multiply": (n - 1) * m},
        "reveal": {},
        "audit": {},
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
    unit = unit_costs()
    results = []
    progress = Progress(args.quiet)
    for players in sorted(set(args.players)):
        totals: dict[str, float] = {}
        params: HandParams | None = None
        for index in range(hands):
            progress.show(f"deck: {players} seats, hand {index + 1} of {hands}")
            phases, params = _hand(players, index)
            for name, seconds in phases.items():
                totals[name] = totals.get(name, 0.0) + seconds
        assert params is not None
        count = steps(players, params.size, params.passing)
        per_hand = {name: 1000 * s / hands for name, s in totals.items()}
        total = sum(per_hand.values())
        ops = {
            op: sum(c.get(op, 0) for c in count.values()) for op in ("derive", "decode", "multiply")
        }
        bound = 1000 * cost(ops, unit)
        results.append(
            {
                "players": players,
                "cards": params.size,
                "hands": hands,
                "cpu_ms_per_hand": round(total, 2),
                "phases_ms": {k: round(v, 2) for k, v in per_hand.items()},
                "operations": ops,
                "operations_by_phase": count,
                "bound_ms": round(bound, 2),
                "ratio_to_bound": round(total / bound, 3),
                "proof_rounds": PROOF_ROUNDS if params.passing else 0,
            }
        )
    progress.close()
    target = next((r for r in results if r["players"] == TARGET_PLAYERS), None)
    meets = None
    if target is not None:
        meets = target["cpu_ms_per_hand"] <= TARGET_MS and target["ratio_to_bound"] <= TARGET_RATIO
    return {
        "unit_us": {op: round(unit[op] * 1e6, 2) for op in ("derive", "decode", "multiply")},
        "results": results,
        "target": {"players": TARGET_PLAYERS, "max_ms": TARGET_MS, "max_ratio": TARGET_RATIO},
        "meets_target": meets,
    }


def render(result: dict[str, Any]) -> str:
    names = [*_PHASES, "audit"]
    lines = [
        "deck: µs CPU per derive {derive}, decode {decode}, multiply {multiply}".format(
            **result["unit_us"]
        ),
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
    lines.append(
        "(ms of CPU per hand, all seats; bound = derives, decodes, multiplications × cost;"
        f" remix: with its proof of {PROOF_ROUNDS} rounds)"
    )
    t = result["target"]
    if result["meets_target"] is not None:
        verdict = "meets" if result["meets_target"] else "MISSES"
        lines.append(
            f"{verdict} the target for {t['players']} seats: ≤ {t['max_ms']:.0f} ms per hand and"
            f" ≤ {t['max_ratio']}× the bound"
        )
    return "\n".join(lines)
