"""Runs of the simulator: one seed (replayable exactly), many seeds, and a failing seed shrunk
to the fewest faults and attacks that still break the promise."""

from __future__ import annotations

import dataclasses
import hashlib
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from ..deck import group
from .fastgroup import FastGroup
from .invariants import Broken, Violation, check
from .memo import remembered_signatures
from .scenario import Scenario, draw
from .world import World, scored

__all__ = [
    "Campaign",
    "RunResult",
    "campaign",
    "real_group_for",
    "replay_command",
    "run_scenario",
    "run_seed",
    "shrink",
]


@dataclass
class RunResult:
    seed: int
    scenario: Scenario
    violations: list[Violation]
    entries: int  # the longest honest log
    events: int
    seconds: float  # simulated
    hands: int  # hands scored
    ending: str  # finished / aborted / running (the hands asked were played)
    combos: set[tuple[str, str, str]]
    milestones: Counter[str]
    fingerprint: str  # every peer's log, hashed: the same seed plays the same, byte for byte
    trace: list[str] = field(default_factory=list)


def run_scenario(scenario: Scenario, *, real_group: bool = False) -> RunResult:
    """Play ``scenario`` and check it. ``real_group``: the deck on P-256, not the stand-in."""
    with nullcontext() if real_group else group.using(FastGroup()), remembered_signatures():
        world = World(scenario)
        failure = None
        try:
            world.run()
            violations, report = check(world)
        except Exception:
            failure = traceback.format_exc(limit=-4)
            violations, report = [Violation(Broken.FAILED, failure)], None
    honest = [p for p in world.honest() if p.alive]
    milestones = Counter(world.coverage.milestones)
    hands = max((scored(p.protocol) for p in honest), default=0)
    ending = "running"
    if honest and all(p.finished for p in honest):
        ending = honest[0].protocol.status.value
    if report is not None:
        milestones["hand boundary"] += max(0, len(report.hands))
        milestones["seat taken over"] += len(report.takeovers)
        milestones["seat taken back"] += sum(1 for r in report.returns if r.back)
        milestones["hand voided"] += len(report.voids)
    milestones[f"game {ending}"] += 1
    return RunResult(
        scenario.seed, scenario, violations,
        max((len(p.log) for p in honest), default=0), world.clock.processed,
        world.clock.now, hands, ending, set(world.coverage.combos), milestones,
        fingerprint(world), world.trace,
    )  # fmt: skip


def fingerprint(world: World) -> str:
    """A digest of every peer's log, hostile ones included, in seat order. A change meant to
    keep behaviour (a refactor) leaves every seed's fingerprint, so a campaign's, unchanged."""
    h = hashlib.sha256()
    for peer in world.peers:
        for raw in peer.log:
            h.update(len(raw).to_bytes(4, "big") + raw)
        h.update(b"\xff" * 4)  # no record is that long: it ends one peer's log
    return h.hexdigest()[:16]


def real_group_for(seed: int, real_every: int) -> bool:
    """Whether ``seed`` runs on P-256: every ``real_every``-th seed (0: none), by the seed
    alone, so a replay of one runs on the same group."""
    return bool(real_every) and seed % real_every == 0


def run_seed(
    seed: int,
    *,
    players: int | None = None,
    adversaries: int | None = None,
    real_group: bool = False,
) -> RunResult:
    return run_scenario(draw(seed, players=players, adversaries=adversaries), real_group=real_group)


def replay_command(r: RunResult, players: int | None, adversaries: int | None) -> str:
    parts = ["hearts sim", f"--seed {r.seed}"]
    if players is not None:
        parts.append(f"--players {players}")
    if adversaries is not None:
        parts.append(f"--adversaries {adversaries}")
    return " ".join(parts)


def shrink(r: RunResult, *, real_group: bool = False) -> Scenario:
    """The smallest scenario, by dropping faults and attacks one at a time, that still breaks
    the same part of the promise."""
    broken = {v.broken for v in r.violations}
    best = r.scenario

    def fails(s: Scenario) -> bool:
        got = run_scenario(s, real_group=real_group)
        return bool(broken & {v.broken for v in got.violations})

    changed = True
    while changed:
        changed = False
        for i in range(len(best.faults)):
            trial = dataclasses.replace(best, faults=best.faults[:i] + best.faults[i + 1 :])
            if fails(trial):
                best, changed = trial, True
                break
        if changed:
            continue
        for p, attacks in best.hostile.items():
            for a in sorted(attacks):
                fewer = attacks - {a}
                hostile = (
                    {**best.hostile, p: fewer}
                    if fewer
                    else {q: v for q, v in best.hostile.items() if q != p}
                )
                trial = dataclasses.replace(best, hostile=hostile)
                if fails(trial):
                    best, changed = trial, True
                    break
            if changed:
                break
    return best


@dataclass
class Campaign:
    """Many seeds, summed up."""

    runs: int = 0
    entries: int = 0
    events: int = 0
    wall: float = 0.0
    real: int = 0  # runs on P-256
    combos: set[tuple[str, str, str]] = field(default_factory=set)
    milestones: Counter[str] = field(default_factory=Counter)
    by_players: Counter[int] = field(default_factory=Counter)
    by_adversaries: Counter[int] = field(default_factory=Counter)
    failures: list[RunResult] = field(default_factory=list)
    fingerprints: dict[int, str] = field(default_factory=dict)  # by seed

    def merge(self, other: Campaign) -> None:
        """Add another campaign's runs (a worker's share of the seeds)."""
        self.runs += other.runs
        self.real += other.real
        self.entries += other.entries
        self.events += other.events
        self.combos |= other.combos
        self.milestones.update(other.milestones)
        self.by_players.update(other.by_players)
        self.by_adversaries.update(other.by_adversaries)
        self.failures += other.failures
        self.fingerprints.update(other.fingerprints)
        self.failures.sort(key=lambda r: r.seed)

    def add(self, r: RunResult, real: bool) -> None:
        self.runs += 1
        self.real += real
        self.entries += r.entries
        self.events += r.events
        self.combos |= r.combos
        self.milestones.update(r.milestones)
        self.by_players[r.scenario.n] += 1
        self.by_adversaries[len(r.scenario.hostile)] += 1
        self.fingerprints[r.seed] = r.fingerprint
        if r.violations:
            self.failures.append(r)
        else:
            r.trace = []

    @property
    def violations(self) -> int:
        return sum(len(r.violations) for r in self.failures)

    @property
    def fingerprint(self) -> str:
        """Every run's fingerprint, in seed order, hashed: however the seeds were shared
        between workers, the same seeds on the same code give the same one."""
        h = hashlib.sha256()
        for seed in sorted(self.fingerprints):
            h.update(b"%d %s\n" % (seed, self.fingerprints[seed].encode()))
        return h.hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "real_group_runs": self.real,
            "steps": self.entries,
            "events": self.events,
            "combinations": len(self.combos),
            "milestones": dict(sorted(self.milestones.items())),
            "by_players": {str(k): v for k, v in sorted(self.by_players.items())},
            "by_adversaries": {str(k): v for k, v in sorted(self.by_adversaries.items())},
            "violations": self.violations,
            "failing_seeds": [r.seed for r in self.failures],
            "failures": [
                {
                    "seed": r.seed,
                    "broken": sorted({v.broken.value for v in r.violations}),
                    "detail": r.violations[0].detail.splitlines()[0][:300],
                }
                for r in self.failures
            ],
            "reached": sorted(list(c) for c in self.combos),
            "fingerprint": self.fingerprint,
            "runs_per_second": round(self.runs / self.wall, 2) if self.wall else None,
        }


def campaign(
    seeds: Iterable[int],
    *,
    players: int | None = None,
    adversaries: int | None = None,
    real_every: int = 0,
    progress: Callable[[Campaign, RunResult], None] | None = None,
) -> Campaign:
    """Run every seed; every ``real_every``-th on P-256 (0: none)."""
    c = Campaign()
    start = time.perf_counter()
    for seed in seeds:
        real = real_group_for(seed, real_every)
        r = run_seed(seed, players=players, adversaries=adversaries, real_group=real)
        c.add(r, real)
        c.wall = time.perf_counter() - start
        if progress is not None:
            progress(c, r)
    return c
