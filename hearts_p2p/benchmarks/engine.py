"""Random full hands per second through the rules engine (deal, pass, every trick, score)."""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from ..cards import cards_of
from ..engine import HandPhase, HandState, deal_hands
from ..rules import PRESETS, Rules
from .progress import Progress

TARGET_HANDS_PER_SECOND = 2500


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=5000, help="hands to play (default 5000)")
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5, 6))
    parser.add_argument("--preset", choices=sorted(PRESETS), default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def play_random_hand(rules: Rules, number: int, rng: random.Random) -> HandState:
    """Deal, pass and play one hand with uniformly random legal choices."""
    h = HandState.deal(rules, number, list(deal_hands(rules, number, rng)))
    if h.phase is HandPhase.PASSING:
        for s in range(rules.players):
            chosen = rng.sample(cards_of(h.hands[s]), 3)
            h.apply_pass(s, (1 << chosen[0]) | (1 << chosen[1]) | (1 << chosen[2]))
    while h.phase is HandPhase.PLAYING:
        seat = h.turn
        assert seat is not None
        h.play(seat, rng.choice(cards_of(h.legal_play_mask(seat))))
    if h.phase is HandPhase.MOON_CHOICE:
        assert h.result is not None and h.result.moon is not None
        h.apply_moon_choice(h.result.moon, rng.random() < 0.5)
    return h


def _floor_hand(rules: Rules, number: int, rng: random.Random) -> int:
    """The same random choices with no rules at all: the floor any engine pays."""
    hands = deal_hands(rules, number, rng)
    lists = [cards_of(m) for m in hands]
    for cards in lists:
        rng.sample(cards, 3)
    total = 0
    for _ in range(rules.cards_each):
        for cards in lists:
            total += cards.pop(rng.randrange(len(cards)))
    return total


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.hands < 1:
        raise SystemExit("hearts bench engine: --hands must be at least 1")
    rules = Rules(**{**PRESETS[args.preset].to_dict(), "players": args.players, "target": 0})
    progress = Progress(args.quiet)
    rng = random.Random(args.seed)
    start = time.process_time()
    moons = 0
    for i in range(args.hands):
        h = play_random_hand(rules, i % 4 + 1, rng)
        moons += h.result is not None and h.result.moon is not None
        if i % 500 == 0:
            progress.show(f"engine: {i}/{args.hands} hands")
    engine_s = time.process_time() - start
    progress.show("engine: the same random choices with no rules")
    rng = random.Random(args.seed)
    start = time.process_time()
    for i in range(args.hands):
        _floor_hand(rules, i % 4 + 1, rng)
    floor_s = time.process_time() - start
    progress.close()
    rate = args.hands / engine_s
    return {
        "benchmark": "engine",
        "players": args.players,
        "preset": args.preset,
        "hands": args.hands,
        "cpu_seconds": round(engine_s, 4),
        "hands_per_second": round(rate, 1),
        "target_hands_per_second": TARGET_HANDS_PER_SECOND,
        "ratio_to_target": round(rate / TARGET_HANDS_PER_SECOND, 3),
        "floor_hands_per_second": round(args.hands / floor_s, 1),
        "ratio_to_floor": round(engine_s / floor_s, 3),
        "moons": moons,
        "meets_target": rate >= TARGET_HANDS_PER_SECOND,
    }


def render(r: dict[str, Any]) -> str:
    verdict = "meets" if r["meets_target"] else "MISSES"
    return (
        f"engine: {r['hands']} random hands, {r['players']} players, {r['preset']} rules\n"
        f"  {r['hands_per_second']:,.0f} hands/s on one core ({r['cpu_seconds']} s CPU)\n"
        f"  {r['ratio_to_target']}× the target of {r['target_hands_per_second']:,} hands/s: "
        f"{verdict} it\n"
        f"  {r['ratio_to_floor']}× the time of the same random choices with no rules "
        f"({r['floor_hands_per_second']:,.0f} hands/s)\n"
        f"  moons: {r['moons']}"
    )
