"""Deterministic simulation of whole tables: the real core on a simulated network and clock,
with seeded faults and adversaries, and the promise checked after every run (``hearts sim``)."""

from .invariants import Broken, Violation
from .run import Campaign, RunResult, campaign, replay_command, run_scenario, run_seed, shrink
from .scenario import Attack, Fault, FaultKind, Scenario, draw

__all__ = [
    "Attack",
    "Broken",
    "Campaign",
    "Fault",
    "FaultKind",
    "RunResult",
    "Scenario",
    "Violation",
    "campaign",
    "draw",
    "replay_command",
    "run_scenario",
    "run_seed",
    "shrink",
]
