"""Child processes: bot peers in a process group of their own, and benchmark peers reaped.

Ctrl-C at the terminal goes to the terminal's whole process group (on Windows, to every process
of the console), and it must make only the player leave: the bots are peers, not part of the
player's program, and the session ends them itself. POSIX starts each in a new session; Windows
in a new process group, which Ctrl-C does not reach.

The peer benchmarks time each peer's CPU. POSIX hands it over with the exit status
(``wait4``); Windows has no ``wait4``, so an ended child is found by polling and its CPU read
from the process, which stays until its last handle closes (``GetProcessTimes``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["CREATE_NEW_PROCESS_GROUP", "Children", "Ended", "NewProcessGroup", "NewSession"]

CREATE_NEW_PROCESS_GROUP = 0x00000200  # <winbase.h>; subprocess names it on Windows only


@dataclass(frozen=True)
class Ended:
    """A child that ended: its place in the list given, its exit code, its CPU seconds."""

    index: int
    code: int
    cpu: float


class Children(Protocol):
    def options(self) -> dict[str, Any]:
        """Keyword arguments for ``open_process`` that keep the terminal's Ctrl-C from a child."""

    def reap(self, procs: Sequence[subprocess.Popen[bytes]]) -> Ended | None:
        """One of ``procs`` that has ended (its ``returncode`` then set), or None: no wait."""


if sys.platform == "win32":
    import ctypes
    from ctypes import wintypes

    def _wait_any(pids: Sequence[int]) -> tuple[int, int, float]:
        raise OSError("no wait4 on Windows")

    def _cpu_seconds(pid: int) -> float:
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.OpenProcess.restype = wintypes.HANDLE
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            raise ctypes.WinError(ctypes.get_last_error())
        times = [wintypes.FILETIME() for _ in range(4)]  # creation, exit, kernel, user
        try:
            if not kernel32.GetProcessTimes(handle, *(ctypes.byref(t) for t in times)):
                raise ctypes.WinError(ctypes.get_last_error())
        finally:
            kernel32.CloseHandle(handle)
        return sum(t.dwHighDateTime << 32 | t.dwLowDateTime for t in times[2:]) / 1e7

else:

    def _wait_any(pids: Sequence[int]) -> tuple[int, int, float]:
        """(pid, exit code, CPU seconds) of one of ``pids`` that has ended, or pid 0 if none
        has. Only those: ``wait4(-1)`` would reap any child of the process, one another part
        of it (a test beside, a thread) is waiting for."""
        for wanted in pids:
            try:
                pid, status, usage = os.wait4(wanted, os.WNOHANG)
            except ChildProcessError:
                continue  # reaped already
            if pid:
                return pid, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime
        return 0, 0, 0.0

    def _cpu_seconds(pid: int) -> float:
        raise OSError("GetProcessTimes is Windows's")


class NewSession:
    """Linux and macOS: ``setsid`` in the child; ``wait4`` for its end."""

    def __init__(
        self, wait_any: Callable[[Sequence[int]], tuple[int, int, float]] = _wait_any
    ) -> None:
        self._wait_any = wait_any

    def options(self) -> dict[str, Any]:
        return {"start_new_session": True}

    def reap(self, procs: Sequence[subprocess.Popen[bytes]]) -> Ended | None:
        pid, code, cpu = self._wait_any([p.pid for p in procs if p.returncode is None])
        if pid == 0:
            return None
        index = next(i for i, p in enumerate(procs) if p.pid == pid)
        procs[index].returncode = code
        return Ended(index, code, cpu)


class NewProcessGroup:
    """Windows: ``CREATE_NEW_PROCESS_GROUP``, which also turns Ctrl-C off in the child."""

    def __init__(self, cpu_seconds: Callable[[int], float] = _cpu_seconds) -> None:
        self._cpu_seconds = cpu_seconds

    def options(self) -> dict[str, Any]:
        return {"creationflags": CREATE_NEW_PROCESS_GROUP}

    def reap(self, procs: Sequence[subprocess.Popen[bytes]]) -> Ended | None:
        for index, p in enumerate(procs):
            if p.returncode is None and (code := p.poll()) is not None:
                return Ended(index, code, self._cpu_seconds(p.pid))
        return None
