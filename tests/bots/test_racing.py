"""The race among a search's candidates: only a candidate proven worse is dropped."""

from __future__ import annotations

import random

from hearts_p2p.bots.racing import DROP_FROM, Race


def _run(race: Race[str], rng: random.Random, means: dict[str, float], worlds: int) -> None:
    for w in range(1, worlds + 1):
        luck = rng.gauss(0, 10)  # the deal's luck, shared by every candidate (the same world)
        for arm, mean in means.items():
            if race.live(arm):
                race.add(arm, mean + luck + rng.gauss(0, 1))
        race.settle(w)


def test_a_candidate_worse_in_the_same_worlds_is_dropped_and_the_close_ones_stay() -> None:
    race = Race(["best", "close", "bad"])
    _run(race, random.Random(1), {"best": 0.0, "close": 0.02, "bad": 2.0}, 400)
    assert set(race.costs) == {"best", "close"}
    assert len(race.costs["best"]) == len(race.costs["close"]) == 400


def test_nothing_is_dropped_before_enough_worlds() -> None:
    race = Race(["best", "bad"])
    for w in range(1, DROP_FROM + 1):
        assert set(race.costs) == {"best", "bad"}
        race.add("best", 0.0)
        race.add("bad", 50.0)
        race.settle(w)
    assert set(race.costs) == {"best"}


def test_the_luck_of_the_deal_does_not_drop_an_equal_candidate() -> None:
    # Large shared luck, equal means: paired by world, neither is proven worse.
    for seed in range(20):
        race = Race(["a", "b"])
        _run(race, random.Random(seed), {"a": 0.0, "b": 0.0}, 300)
        assert set(race.costs) == {"a", "b"}
