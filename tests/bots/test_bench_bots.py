"""The strength benchmark's bookkeeping: balanced seating, figures and their rendering."""

from __future__ import annotations

import argparse
import io
import json
import math
import time

import pytest

from hearts_p2p.benchmarks import bots as bench
from hearts_p2p.bots.policy import losers
from hearts_p2p.bots.search import SearchBot
from hearts_p2p.cards import HEARTS_MASK
from hearts_p2p.rules import Rules


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
    one_against_three = bench.lineups(["a", "b", "b", "b"], 4)
    assert len(one_against_three) == 4
    assert sorted(lu.index("a") for lu in one_against_three) == [0, 1, 2, 3]


def test_estimate_gives_mean_standard_error_and_interval() -> None:
    e = bench.estimate([1.0, 2.0, 3.0, 4.0])
    se = math.sqrt((1.5**2 + 0.5**2) * 2 / 3 / 4)
    assert e["mean"] == 2.5 and e["se"] == round(se, 3)
    assert e["ci95"] == round(1.96 * se, 3)
    assert e["interval"] == [round(2.5 - 1.96 * se, 3), round(2.5 + 1.96 * se, 3)]
    assert bench.estimate([3.0])["se"] == math.inf


def test_run_reports_means_intervals_and_ratio_to_target() -> None:
    r = bench.run(_args(hands=6, strategies="heuristic,random"))
    assert r["table_hands"] == 12 and r["montecarlo"] is None
    assert set(r["strategies"]) == {"heuristic", "random"}
    for s in r["strategies"].values():
        assert s["seat_hands"] == 24 and s["ci95"] >= 0
        p = s["points"]
        assert p["interval"][0] <= p["mean"] <= p["interval"][1]
    (c,) = r["comparisons"]
    assert (c["better"], c["worse"], c["target"]) == ("heuristic", "random", 4.0)
    assert c["ratio_to_target"] == round(c["points_saved_per_hand"] / 4.0, 3)
    text = bench.render(r)
    assert "heuristic saves" in text and "× the target of 4.0" in text
    json.dumps(r)


def test_payoff_is_zero_sum_and_moons_add_up() -> None:
    r = bench.run(_args(hands=12, strategies="heuristic,random"))
    h, x = r["strategies"]["heuristic"], r["strategies"]["random"]
    # Every hand's payoffs (others' mean minus own) add up to zero over the table.
    total = h["payoff"]["mean"] * h["seat_hands"] + x["payoff"]["mean"] * x["seat_hands"]
    assert abs(total) < 0.01 * (h["seat_hands"] + x["seat_hands"])
    # Two seats of each strategy: each moon one of them makes, both seats of the other concede.
    assert x["moons"]["conceded"] == 2 * h["moons"]["completed"]
    assert h["moons"]["conceded"] == 2 * x["moons"]["completed"]
    for s in (h, x):
        assert s["moons"]["completed"] <= s["moons"]["attempted"]
        t = s["ms_per_move"]
        assert 0 <= t["p50"] <= t["p99"] and t["moves"] == 13 * s["seat_hands"]


def test_percentile_is_the_nearest_rank() -> None:
    xs = [float(i) for i in range(1, 101)]
    assert bench._percentile(xs, 0.5) == 50.0 and bench._percentile(xs, 0.99) == 99.0
    assert bench._percentile([7.0], 0.99) == 7.0


def test_run_is_reproducible_with_montecarlo_samples_and_jobs() -> None:
    one = bench.run(_args(hands=2, strategies="montecarlo,heuristic", samples=2, players=3))
    two = bench.run(_args(hands=2, strategies="montecarlo,heuristic", samples=2, players=3, jobs=2))
    for name in ("montecarlo", "heuristic"):
        a, b = one["strategies"][name], two["strategies"][name]
        assert a["points_per_hand"] == b["points_per_hand"] and a["ci95"] == b["ci95"]
        assert a["payoff"] == b["payoff"] and a["moons"] == b["moons"]
    mc = one["strategies"]["montecarlo"]
    assert mc["ms_per_searched_move"] > 0 and mc["worlds_per_searched_move"] == 2
    assert "2 worlds/move" in bench.render(one)


def test_speed_compares_both_searches_on_the_same_positions() -> None:
    r = bench.run(_args(speed=True, positions=3, samples=4))
    assert r["benchmark"] == "bots-speed" and r["positions"] == 3
    for name in bench.MONTECARLO:
        w = r["strategies"][name]["worlds_per_move"]
        assert w["min"] == w["median"] == w["max"] == 4
        assert r["strategies"][name]["worlds_per_second"] > 0
    lo, hi = r["speedup_range"]
    assert lo <= r["speedup"] <= hi
    assert r["meets_worlds_target"] == (r["strategies"]["hard"]["worlds_per_200ms"] >= 1300)
    text = bench.render(r)
    assert "worlds/s of montecarlo-v1" in text and "hard searches" in text


def test_progress_only_where_someone_watches(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    bench.run(_args(hands=2, strategies="heuristic,random"))
    assert "2/2 deals" in screen.getvalue()
    quiet = Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    bench.run(_args(hands=2, strategies="heuristic,random", quiet=True))
    assert quiet.getvalue() == ""
    plain = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", plain)
    bench.run(_args(hands=2, strategies="heuristic,random"))
    assert plain.getvalue() == ""


def test_bad_options_are_refused() -> None:
    with pytest.raises(SystemExit, match="--strategies"):
        bench.run(_args(strategies="heuristic"))
    with pytest.raises(SystemExit, match="--positions"):
        bench.run(_args(speed=True, positions=0))


def test_gongzhu_run_reports_points_and_the_result_formula() -> None:
    r = bench.run(_args(game="gongzhu", hands=4, strategies="heuristic,random"))
    assert r["game"] == "gongzhu" and r["table_hands"] == 8
    h, x = r["strategies"]["heuristic"], r["strategies"]["random"]
    for s in (h, x):
        assert s["seat_hands"] == 16 and "moons" not in s
        z = s["result"]
        assert z["interval"][0] <= z["mean"] <= z["interval"][1]
        assert s["taken"]["pig"] <= 16
    # The seed's formula is zero-sum: with two seats each, the two strategies' means cancel.
    assert abs(h["result"]["mean"] + x["result"]["mean"]) < 0.01
    # Every hand one seat takes the pig.
    assert h["taken"]["pig"] + x["taken"]["pig"] == 8
    (c,) = r["comparisons"]
    assert (c["better"], c["worse"], c["target"]) == ("heuristic", "random", 200.0)
    assert c["ratio_to_target"] == round(c["result_gained_per_hand"] / 200.0, 3)
    text = bench.render(r)
    assert "Gong Zhu, 4 players" in text and "result/hand over random" in text
    json.dumps(r)


def test_gongzhu_run_with_montecarlo_five_players_and_options() -> None:
    r = bench.run(
        _args(
            game="gongzhu",
            hands=2,
            players=5,
            options="same_colour_discard,force_fourth",
            strategies="montecarlo,heuristic",
            samples=2,
        )
    )
    assert "same-colour discards" in r["rules"] and "fourth forced" in r["rules"]
    mc = r["strategies"]["montecarlo"]
    assert mc["worlds_per_searched_move"] == 2 and mc["ms_per_searched_move"] > 0
    assert "2 worlds/move" in bench.render(r)


def test_gongzhu_bad_options_are_refused() -> None:
    with pytest.raises(SystemExit, match="--strategies"):
        bench.run(_args(game="gongzhu", strategies="montecarlo-v1,heuristic"))
    with pytest.raises(SystemExit, match="--options from"):
        bench.run(_args(game="gongzhu", options="moon"))
    with pytest.raises(SystemExit, match="4 or 5 --players"):
        bench.run(_args(game="gongzhu", players=3))
    with pytest.raises(SystemExit, match="partners needs 4 players"):
        bench.run(_args(game="gongzhu", players=5, options="partners"))
    with pytest.raises(SystemExit, match="Gong Zhu's"):
        bench.run(_args(options="partners"))
    with pytest.raises(SystemExit, match="--speed"):
        bench.run(_args(game="gongzhu", speed=True))


def test_whole_games_count_each_win_once_and_give_win_rates() -> None:
    r = bench.run(_args(games=3, strategies="heuristic,random"))
    assert r["games"] == 3 and r["deals"] is None
    h, x = r["strategies"]["heuristic"], r["strategies"]["random"]
    # 3 games at each of 2 rotations, every game won once (a shared win by shares).
    assert h["games"]["played"] == x["games"]["played"] == 12
    assert h["games"]["won"] + x["games"]["won"] == pytest.approx(6)
    rate = h["games"]["win_rate"]
    assert rate["interval"][0] <= rate["mean"] <= rate["interval"][1]
    # Every hand of every game is counted: the seat-hands are the table's hands times 4 seats.
    assert h["seat_hands"] + x["seat_hands"] == 4 * r["table_hands"]
    assert r["table_hands"] >= 6 * 4  # a game to 100 takes more than four hands
    assert "seat-games" in bench.render(r)
    json.dumps(r)


def test_games_compare_the_win_rate_of_hard_with_its_target() -> None:
    strategies = {"hard": {"games": {"win_rate": bench.estimate([0.5, 0.25, 0.5, 0.75])}}}
    c = bench._compare_games("hard", "montecarlo-v1", 0.35, strategies, 4)
    assert c["par"] == 0.25 and c["win_rate"] == 0.5 and c["target"] == 0.35
    assert c["meets_target"] == c["interval_above_par"] == (c["interval"][0] > 0.25)


def test_moons_per_400_seat_hands_have_intervals() -> None:
    r = bench.run(_args(hands=4, strategies="heuristic,random"))
    per = r["strategies"]["heuristic"]["moons"]["per_400"]
    assert set(per) == {"attempted", "completed", "conceded"}
    assert per["completed"]["mean"] == 400 * r["strategies"]["heuristic"]["moons"]["completed"] / 16


def test_games_are_hearts_only() -> None:
    with pytest.raises(SystemExit, match="--games"):
        bench.run(_args(games=2, game="gongzhu", strategies="heuristic,random"))
    with pytest.raises(SystemExit, match="--games"):
        bench.run(_args(games=1, strategies="heuristic,random"))


def test_hunting_deals_give_the_hunter_a_hand_that_could_shoot() -> None:
    rules = Rules()
    for seat in range(4):
        deal = bench.hunting_deal(rules, 1, seat, seat + 10)
        hand = deal[seat]
        assert sum(h.bit_count() for h in deal) == 52 and hand & HEARTS_MASK
        assert losers(hand, rules.deck_mask & ~hand) <= bench.HUNT_LOSERS
    assert bench.hunting_deal(rules, 1, 2, 7) == bench.hunting_deal(rules, 1, 2, 7)


def test_hunt_counts_the_moons_each_defence_concedes_on_the_same_deals() -> None:
    args = _args(hunter="montecarlo-v1", strategies="montecarlo-v1,hard", hands=2, samples=2)
    r = bench.run(args)
    assert r["benchmark"] == "bots-hunt" and r["deals"] == 2
    assert set(r["defences"]) == {"montecarlo-v1", "hard"}
    for f in r["defences"].values():
        assert 0 <= f["moons_conceded"] <= f["moons_attempted"] <= 2
        assert f["conceded_per_400"]["mean"] == 200 * f["moons_conceded"]
    (c,) = r["comparisons"]
    assert (c["better"], c["worse"], c["target_share"]) == ("hard", "montecarlo-v1", 0.5)
    assert "concedes" in bench.render(r)
    json.dumps(r)
    assert bench.run(args)["defences"] == r["defences"]


def test_hunt_refuses_what_it_cannot_measure() -> None:
    with pytest.raises(SystemExit, match="--hunter is one of"):
        bench.run(_args(hunter="nobody", strategies="heuristic,random"))
    with pytest.raises(SystemExit, match="--hunter plays Hearts only"):
        bench.run(_args(hunter="heuristic", strategies="heuristic,random", game="gongzhu"))


def test_the_cpu_clock_budgets_every_search_by_its_cpu_time() -> None:
    for name in bench.MONTECARLO:
        bot = bench._playing(bench._bot(name, 1, 50.0, None, cpu=True), False)
        assert isinstance(bot, SearchBot) and bot.clock is time.process_time
        assert bench._playing(bench._bot(name, 1, 50.0, None), False).clock is time.perf_counter
    r = bench.run(_args(hands=2, strategies="hard,heuristic", budget_ms=5.0, cpu_clock=True))
    assert r["montecarlo"] == {"budget_ms": 5.0, "clock": "cpu"}
    assert "5 ms of CPU/move" in bench.render(r)


def test_samples_for_fixes_the_worlds_of_the_named_strategies_and_gives_each_deal() -> None:
    """``--samples-for`` searches the named strategies on fixed worlds however long a world takes
    (a budget of 0 ms would stop them at the minimum), so the run repeats deal by deal."""
    args = _args(
        hands=2,
        strategies="hard,montecarlo-v1",
        players=3,
        budget_ms=0.0,
        samples_for=bench.samples_for("hard=6, montecarlo-v1=5"),
    )
    one, two = bench.run(args), bench.run(args)
    assert one["montecarlo"] == {
        "budget_ms": 0.0,
        "clock": "wall",
        "samples_for": {"hard": 6, "montecarlo-v1": 5},
    }
    assert "hard 6 worlds; montecarlo-v1 5 worlds" in bench.render(one)
    v1 = one["strategies"]["montecarlo-v1"]
    assert v1["worlds_per_searched_move"] == 5
    for name in ("hard", "montecarlo-v1"):
        by_deal = one["strategies"][name]["payoff_by_deal"]
        assert len(by_deal) == 2 and by_deal == two["strategies"][name]["payoff_by_deal"]
    with pytest.raises(argparse.ArgumentTypeError, match="NAME=N"):
        bench.samples_for("hard=0")
    with pytest.raises(argparse.ArgumentTypeError, match="NAME=N"):
        bench.samples_for("hard")
