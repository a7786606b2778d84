"""The strength benchmark's bookkeeping: balanced seating, figures and their rendering."""

from __future__ import annotations

import argparse

from hearts_p2p.benchmarks import bots as bench


def _args(**over: object) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args([])
    for k, v in over.items():
        setattr(args, k, v)
    return args


def test_lineups_put_every_strategy_in_every_seat() -> None:
    assert bench.lineups(["a", "b"], 4) == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    three = bench.lineups(["a", "b"], 3)
    assert len(three) == 3
    for seat in range(3):
        assert sorted(lu[seat] for lu in three) == ["a", "a", "b"]


def test_run_reports_means_intervals_and_ratio_to_target() -> None:
    r = bench.run(_args(hands=6, strategies="heuristic,random"))
    assert r["table_hands"] == 12 and r["montecarlo"] is None
    assert set(r["strategies"]) == {"heuristic", "random"}
    for s in r["strategies"].values():
        assert s["seat_hands"] == 24 and s["ci95"] >= 0
    (c,) = r["comparisons"]
    assert (c["better"], c["worse"], c["target"]) == ("heuristic", "random", 4.0)
    assert c["ratio_to_target"] == round(c["points_saved_per_hand"] / 4.0, 3)
    text = bench.render(r)
    assert "heuristic saves" in text and "× the target of 4.0" in text


def test_run_is_reproducible_with_montecarlo_samples_and_jobs() -> None:
    one = bench.run(_args(hands=2, strategies="montecarlo,heuristic", samples=2, players=3))
    two = bench.run(_args(hands=2, strategies="montecarlo,heuristic", samples=2, players=3, jobs=2))
    for name in ("montecarlo", "heuristic"):
        a, b = one["strategies"][name], two["strategies"][name]
        assert a["points_per_hand"] == b["points_per_hand"] and a["ci95"] == b["ci95"]
    assert one["strategies"]["montecarlo"]["ms_per_searched_move"] > 0
    assert "2 worlds/move" in bench.render(one)
