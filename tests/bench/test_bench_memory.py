"""The memory figure of ``hearts bench game``: each peer's RSS by hand, as its runner records
it beside its timings, and the growth per hand read from it as a slope."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from hearts_p2p.benchmarks import memory
from hearts_p2p.benchmarks.game import frames_written, rss_by_hand, rss_grown, rss_growth
from hearts_p2p.node.runner import resident_bytes, rss_path


def test_a_peer_records_are_read_by_hand_and_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    timings = tmp_path / "t0"
    lines = [json.dumps({"hand": h, "rss": 40_000_000 + 10_000 * h}) for h in range(1, 6)]
    rss_path(timings).write_text("\n".join(lines) + '\n{"hand": 6, "rs')
    by_hand = rss_by_hand(timings)
    assert sorted(by_hand) == [1, 2, 3, 4, 5]
    assert rss_growth(by_hand) == pytest.approx(0.01)
    assert rss_grown(by_hand) == pytest.approx(0.03)


def test_the_frames_a_peer_wrote_are_read_from_its_last_record(tmp_path: Path) -> None:
    """The runner's closing record (frames, writes) beside the hands' RSS; none if it never
    closed (a peer killed)."""
    timings = tmp_path / "t0"
    rss_path(timings).write_text('{"hand": 1, "rss": 10}\n')
    assert frames_written(timings) is None
    with rss_path(timings).open("a") as f:
        f.write('{"frames": 900, "writes": 400}\n')
    assert frames_written(timings) == (900, 400)
    assert rss_by_hand(timings) == {1: 10}  # the closing record is no hand's


def test_the_slope_starts_at_hand_two_and_one_odd_sample_does_not_make_it() -> None:
    by_hand = {1: 30_000_000, **{h: 40_000_000 for h in range(2, 12)}}
    by_hand[7] += 500_000  # what happened to be alive at one hand's start
    assert rss_growth(by_hand) == pytest.approx(0.0, abs=0.01)
    assert rss_grown(by_hand) == 0


def test_too_short_a_game_has_no_figure(tmp_path: Path) -> None:
    assert rss_by_hand(tmp_path / "none") == {}
    assert rss_growth({1: 1, 2: 2}) is None
    assert rss_grown({1: 1}) is None


def test_this_process_has_a_resident_size() -> None:
    assert resident_bytes() > 1_000_000


def test_the_traced_table_names_what_grew_and_what_each_protocol_holds() -> None:
    args = argparse.Namespace(target=50, strategy="heuristic", seed=1, frames=2)
    r = memory.trace(args)
    assert r["to_hand"] > r["from_hand"] == 2
    assert r["sites"] and all(len(site["where"]) <= 2 for site in r["sites"])
    assert [sorted(h) for h in r["held_to"]] == [sorted(h) for h in r["held_from"]]
    assert r["log_mb_per_hand"] > 0
    assert "held by each protocol" in memory.render(r)
