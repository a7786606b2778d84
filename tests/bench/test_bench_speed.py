"""`hearts bench handstart`, `audit` and `deck` run at tiny sizes and report their bounds (no
time asserted)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

import pytest

from hearts_p2p.benchmarks import audit as audit_bench
from hearts_p2p.benchmarks import deck, handstart
from hearts_p2p.benchmarks.network import NetworkRun, PeerTimes


def bench(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "bench", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env={"HEARTS_INTERFACE": "lo", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.slow
def test_bench_handstart_json() -> None:
    r = bench("handstart", "--players", "3", "--target", "10")
    (x,) = r["results"]
    assert x["players"] == 3 and x["cards"] == 51 and x["hands"] >= 1
    game = x["game_start"]
    assert game["count"] == 1 and game["bound_ms"] > 0 and game["ratio_to_bound"] > 0
    assert x["hand_start"]["count"] == x["hands"] - 1
    # The next deck is shuffled and locked during the hand before: the reveal and the deal
    # remain; the first hand's start holds the seating's four steps and the whole deck.
    assert x["critical_path"]["hand_start"]["steps"] == 2 and x["cores"] >= 1
    assert x["critical_path"]["game_start"]["steps"] == 4 + 2 * 3 + 3


def test_bench_audit_json() -> None:
    r = bench("audit", "--target", "5", "--runs", "1", "--workers", "2")
    assert r["hands"] >= 1 and r["entries"] > 0
    assert [m["workers"] for m in r["modes"]] == [0, 2]
    assert all(m["bound_seconds"] > 0 and m["hands_per_second"] > 0 for m in r["modes"])
    assert r["operations"]["verify"] == r["entries"]


def test_the_deck_bound_counts_every_decode() -> None:
    r = deck.run(argparse.Namespace(hands=1, players=[3], quiet=True))
    (x,) = r["results"]
    assert x["proof_rounds"] == 16 and x["phases_ms"]["remix"] > 0
    assert "remix: with its proof of 16 rounds" in deck.render(r)
    # Each of the 3 seats' shuffled and locked decks is decoded by the 2 other seats, and so is
    # its remixed hand of 17, twice (its entries, and its held entries to check its proof's
    # answer), with the 8 of its 16 rounds counted as opened to the output.
    assert x["operations"]["decode"] == 2 * 3 * 2 * 51 + 2 * 3 * 17 * (2 + 8)
    assert x["ratio_to_bound"] > 0


def test_the_audit_bound_counts_what_no_audit_can_skip() -> None:
    from hearts_p2p.rules import Rules

    seating = [(0, "genesis"), *[(0, "accept")] * 4, *[(0, "flip_commit")] * 4]
    deck = [(1, k) for k in ("shuffle", "echo_shuffle", "lock", "echo_lock") for _ in range(4)]
    passing = ("deal", "pass_commit", "pass_reveal", "remix", "remix_share", "remix_answer")
    hand = [*deck, *[(1, k) for k in passing] * 4]
    hand += [(1, "play")] * 52 + [(1, "reveal")] * 4
    ahead = [(2, kind) for _, kind in deck]  # the next deck, shuffled ahead; the game ended
    ops = audit_bench.operations(Rules(), seating + hand + ahead)
    # A clean hand: no shuffle recomputed, its 8 decks decoded, 52 opens, the 52 remixed
    # entries decoded, and the 4 remix proofs' answers checked (16 rounds of 13, the held
    # entries and 8 rounds' lists decoded); no pass box is opened; the deck ahead's 8 decks
    # decoded too.
    assert ops == {"verify": 9 + 96 + 16, "derive": 52 + 16 * 52, "decode": 416 + 52 + 9 * 52 + 416,
                   "multiply": 52 + 16 * 52, "unseal": 0}  # fmt: skip
    assert audit_bench.unseal_cost(samples=2) > 0


def test_hand_start_is_timed_from_the_last_card_to_the_last_peer_holding_its_hand() -> None:
    peers = [PeerTimes(), PeerTimes()]
    peers[0].sent[(1, "play.50")] = 9.0
    peers[1].sent[(1, "play.51")] = 10.0
    peers[0].seen.update({(0, "start"): 1.0, (1, "deal"): 2.0, (2, "deal"): 10.25})
    peers[1].seen.update({(1, "deal"): 2.5, (2, "deal"): 10.5})
    run = NetworkRun(0.0, [11.0, 11.0], [1.0, 1.0], peers, log=None)  # type: ignore[arg-type]
    starts, game = handstart.measure(run, hands=2)
    assert starts == [0.5] and game == [1.5]


def test_the_start_bounds_count_the_cores_the_peers_share() -> None:
    """Work every peer does at once takes seats/cores times one peer's on a shared machine;
    a seat's shuffle and lock, done while the others wait, does not."""
    units = {"derive": 1.0, "decode": 1.0, "multiply": 1.0, "verify": 1.0}
    hand = handstart.hand_start_path(4, 52)
    assert handstart.bound(hand, 4, 2, units, 0.0) == 2 * handstart.bound(hand, 4, 8, units, 0.0)
    serial, everyone, steps = handstart.game_start_path(4, 52)
    shared = handstart.bound((serial, everyone, steps), 4, 2, units, 1.0)
    assert shared == steps + sum(serial.values()) + 2 * sum(everyone.values())
