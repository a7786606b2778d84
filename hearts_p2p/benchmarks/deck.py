"""CPU time of the mental-poker deck per hand, by phase, against the cost of its E_k work.

All seats run in one process (shuffle, lock, deal, pass, every card opened and verified, one
seat's full audit). The bound counts what the scheme cannot skip, each operation timed alone in
the same run: the key derivations and multiplications of every E_k step, and the point decodes
of every published deck by every seat that receives it; the rest is validation, hashing and
bookkeeping.

The private pass's proofs (issue 11 item 7, not yet part of the hand) are timed beside it: each
seat's split and remix made with ``--proof-rounds`` rounds, and checked by every other seat.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..deck import HandParams, Loopback, Phase, SeatDeck, new_pass_key
from ..deck.curve import CARD_POINTS, encrypt
from ..deck.params import PASS_COUNT
from ..deck.passbox import public_bytes
from ..deck.passmix import Proven, remix, split
from ..deck.randomness import SeededRandomness, random_scalar
from ..deck.shuffleproof import challenge_bits, check_commitment, check_response, respond
from ..rules import Rules
from .units import cost, unit_costs

TARGET_PLAYERS = 4
TARGET_MS = 250.0
TARGET_RATIO = 1.5
_PHASES = {
    "shuffle": (Phase.SHUFFLE, Phase.SHUFFLE_ECHO),
    "lock": (Phase.LOCK, Phase.LOCK_ECHO),
    "deal": (Phase.DEAL,),
    "pass": (Phase.PASS_COMMIT, Phase.PASS_REVEAL, Phase.REMIX),
    "play": (Phase.PLAY,),
    "reveal": (Phase.REVEAL,),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=3, help="hands per seat count (default 3)")
    parser.add_argument(
        "--players", type=int, nargs="+", default=[3, 4, 5, 6], choices=[3, 4, 5, 6]
    )
    parser.add_argument(
        "--proof-rounds",
        type=int,
        default=16,
        help="rounds of the private pass's proofs timed beside the hand (default 16; 0: none)",
    )


def steps(players: int, size: int, passing: bool) -> dict[str, dict[str, int]]:
    """Operations per hand by phase, all seats together: each seat shuffles (one key, a
    multiplication per card) and locks (a key and a multiplication per card), and every other
    seat decodes the deck it publishes; each holder decrypts its dealt and received cards (a
    key and a multiplication each), then with a pass remixes its hand (a key and a
    multiplication per card, decoded by every other seat); every other seat verifies each open
    (the same); one seat audits the other seats' shuffles, locks and remixes."""
    n, m = players, size
    passed = PASS_COUNT * n if passing else 0
    remixed = m if passing else 0  # every seat's hand: m cards in all
    return {
        "shuffle": {"derive": n, "multiply": n * m, "decode": n * (n - 1) * m},
        "lock": {"derive": n * m, "multiply": n * m, "decode": n * (n - 1) * m},
        "deal": {"derive": m, "multiply": m},
        "pass": {
            "derive": passed + remixed,
            "multiply": passed + remixed,
            "decode": (n - 1) * remixed,
        },
        "play": {"derive": (n - 1) * m, "multiply": (n - 1) * m},
        "reveal": {},
        "audit": {
            "derive": (n - 1) * (m + 1) + remixed * (n - 1) // n,
            "multiply": 2 * (n - 1) * m + remixed * (n - 1) // n,
        },
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


def _checked(xs: tuple[bytes, ...], proven: Proven, rounds: int) -> None:
    bits = challenge_bits(bytes(32), b"bench", xs, proven.entries, proven.commitment)
    answer = respond(proven.witness, proven.rounds, bits)
    why = check_commitment(xs, proven.entries, proven.commitment, rounds) or check_response(
        xs, proven.entries, proven.commitment, answer, bits
    )
    if why is not None:
        raise RuntimeError(f"an honest bench proof failed: {why}")


def _pass_proofs(players: int, size: int, rounds: int) -> dict[str, float]:
    """ms of CPU per hand, all seats, of the private pass's proofs: each seat makes its split and
    its remix (its own ``K ‖ O`` stands in for the ``O`` it receives: the same sizes), and each
    other seat checks both (timed once, counted for each of them)."""
    rng = SeededRandomness(b"bench proofs %d" % players)
    share = size // players
    make = check = 0.0
    for s in range(players):
        totals = [random_scalar(rng) for _ in range(share)]
        dealt = tuple(encrypt(t, CARD_POINTS[s * share + j]) for j, t in enumerate(totals))
        start = time.process_time()
        cut = split(dealt, totals, range(PASS_COUNT), rounds, rng)
        mixed = remix(cut.entries, cut.openings, rounds, rng)
        made = time.process_time()
        _checked(dealt, cut, rounds)
        _checked(cut.entries, mixed, rounds)
        make += made - start
        check += (time.process_time() - made) * (players - 1)
    return {"make_ms": 1000 * make, "check_ms": 1000 * check}


def run(args: argparse.Namespace) -> dict[str, Any]:
    hands = max(1, args.hands)
    unit = unit_costs()
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
        ops = {
            op: sum(c.get(op, 0) for c in count.values()) for op in ("derive", "decode", "multiply")
        }
        bound = 1000 * cost(ops, unit)
        rounds = args.proof_rounds
        proofs = _pass_proofs(players, params.size, rounds) if rounds and params.passing else None
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
                "pass_proofs": None
                if proofs is None
                else {
                    "rounds": rounds,
                    **{k: round(v, 2) for k, v in proofs.items()},
                    "share_of_hand": round(
                        sum(proofs.values()) / (total + sum(proofs.values())), 3
                    ),
                },
            }
        )
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
        "(ms of CPU per hand, all seats; bound = derives, decodes, multiplications × cost)"
    )
    for r in result["results"]:
        if (p := r["pass_proofs"]) is not None:
            lines.append(
                f"{r['players']:>5} seats: the private pass's proofs (R = {p['rounds']}, not yet"
                f" in the hand) make {p['make_ms']:.1f} + check {p['check_ms']:.1f} ms,"
                f" {100 * p['share_of_hand']:.0f} % of a hand with them"
            )
    t = result["target"]
    if result["meets_target"] is not None:
        verdict = "meets" if result["meets_target"] else "MISSES"
        lines.append(
            f"{verdict} the target for {t['players']} seats: ≤ {t['max_ms']:.0f} ms per hand and"
            f" ≤ {t['max_ratio']}× the bound"
        )
    return "\n".join(lines)
