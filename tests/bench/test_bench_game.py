"""`hearts bench game` runs a real 4-process game and reports its figures (no time asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def test_bench_game_json() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "bench", "game", "--target", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env={"HEARTS_INTERFACE": "lo", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    assert r["hands"] >= 1 and r["bound_hands"] >= 1
    assert r["plays_measured"] >= 13 * r["hands"] * 4 * 0.9
    assert len(r["cpu_seconds_per_peer"]) == 4
    assert r["ratio_to_bound"] > 0 and r["play_latency_p50_ms"] > 0
