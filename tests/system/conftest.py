from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

import hearts_p2p.system as system
from hearts_p2p.system import OSName, Platform, platform_for

Simulate = Callable[..., Platform]


@pytest.fixture
def simulate(monkeypatch: pytest.MonkeyPatch) -> Simulate:
    """``simulate("win32", interfaces=...)``: everything above ``current()`` now runs with that
    OS's implementations, the ones given (their OS calls faked) in place of the real ones."""

    def install(name: OSName, **fakes: Any) -> Platform:
        chosen = dataclasses.replace(platform_for(name), **fakes)
        monkeypatch.setattr(system, "_platform", chosen)
        return chosen

    return install
