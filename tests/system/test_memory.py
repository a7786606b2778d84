"""The memory probe: Linux's from /proc for real, macOS's and Windows's from their OS call's
answer, and the runner reporting whichever this platform has."""

from __future__ import annotations

from hearts_p2p.node.runner import _rss
from hearts_p2p.system.memory import LinuxMemory, MacMemory, WindowsMemory

from .conftest import Simulate


def test_linux_counts_resident_pages() -> None:
    with open("/proc/self/statm", "rb") as f:
        pages = int(f.read().split()[1])
    probe = LinuxMemory(page_size=lambda: 4096)
    assert abs(probe.resident() - pages * 4096) < 64 << 20


def test_linux_without_proc_falls_back_to_the_peak_in_kib() -> None:
    def no_proc() -> bytes:
        raise FileNotFoundError("/proc/self/statm")

    assert LinuxMemory(statm=no_proc, max_rss=lambda: 1000).resident() == 1_024_000


def test_macos_peak_is_already_in_bytes() -> None:
    assert MacMemory(max_rss=lambda: 52_428_800).resident() == 52_428_800


def test_the_runner_reports_the_platforms_figure(simulate: Simulate) -> None:
    simulate("win32", memory=WindowsMemory(working_set=lambda: 73_400_320))
    assert _rss() == 73_400_320
    simulate("darwin", memory=MacMemory(max_rss=lambda: 41_943_040))
    assert _rss() == 41_943_040
