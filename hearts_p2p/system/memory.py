"""This process's resident memory, as ``hearts bench handstart`` reports it hand by hand.

Linux reads the current size from ``/proc``; macOS has no ``/proc`` and tells the peak alone
(``getrusage``, in bytes there), which is the resident size for a process whose memory only
grows, as a peer's does; Windows tells the working set (``GetProcessMemoryInfo``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Protocol

__all__ = ["LinuxMemory", "MacMemory", "MemoryProbe", "WindowsMemory"]


class MemoryProbe(Protocol):
    def resident(self) -> int:
        """Bytes of this process in memory now (or at its peak, where only that is known)."""


def _statm() -> bytes:
    with open("/proc/self/statm", "rb") as f:
        return f.read()


if sys.platform == "win32":

    def _page_size() -> int:
        raise OSError("no sysconf on Windows")

    def _max_rss() -> int:
        raise OSError("no getrusage on Windows")

    def _working_set() -> int:
        import ctypes
        from ctypes import wintypes

        class Counters(ctypes.Structure):  # PROCESS_MEMORY_COUNTERS, <psapi.h>
            _fields_ = [
                ("cb", wintypes.DWORD),
                ("PageFaultCount", wintypes.DWORD),
                *((f, ctypes.c_size_t) for f in (
                    "PeakWorkingSetSize", "WorkingSetSize", "QuotaPeakPagedPoolUsage",
                    "QuotaPagedPoolUsage", "QuotaPeakNonPagedPoolUsage", "QuotaNonPagedPoolUsage",
                    "PagefileUsage", "PeakPagefileUsage",
                )),
            ]  # fmt: skip

        counters = Counters()
        counters.cb = ctypes.sizeof(counters)
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.GetCurrentProcess.restype = wintypes.HANDLE
        process = kernel32.GetCurrentProcess()
        if not kernel32.K32GetProcessMemoryInfo(process, ctypes.byref(counters), counters.cb):
            raise ctypes.WinError(ctypes.get_last_error())
        return int(counters.WorkingSetSize)

else:

    def _page_size() -> int:
        return os.sysconf("SC_PAGE_SIZE")

    def _max_rss() -> int:
        """``ru_maxrss``: KiB on Linux, bytes on macOS."""
        import resource  # here, not above: importing this module must not need a Unix

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def _working_set() -> int:
        raise OSError("GetProcessMemoryInfo is Windows's")


class LinuxMemory:
    """``/proc/self/statm``'s resident pages; the peak where ``/proc`` is not mounted."""

    def __init__(
        self,
        statm: Callable[[], bytes] = _statm,
        page_size: Callable[[], int] = _page_size,
        max_rss: Callable[[], int] = _max_rss,
    ) -> None:
        self._statm, self._page_size, self._max_rss = statm, page_size, max_rss

    def resident(self) -> int:
        try:
            return int(self._statm().split()[1]) * self._page_size()
        except (OSError, ValueError, IndexError):
            return self._max_rss() * 1024


class MacMemory:
    def __init__(self, max_rss: Callable[[], int] = _max_rss) -> None:
        self._max_rss = max_rss

    def resident(self) -> int:
        return self._max_rss()


class WindowsMemory:
    def __init__(self, working_set: Callable[[], int] = _working_set) -> None:
        self._working_set = working_set

    def resident(self) -> int:
        return self._working_set()
