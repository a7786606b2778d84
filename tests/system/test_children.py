"""Child processes: the options that keep Ctrl-C from a bot, and reaping a benchmark's peers
with their CPU time, POSIX's by ``wait4`` and Windows's by polling, on real child processes
(Windows's ``GetProcessTimes`` faked)."""

from __future__ import annotations

import subprocess
import sys
import time

from hearts_p2p.system.children import (
    CREATE_NEW_PROCESS_GROUP,
    Children,
    Ended,
    NewProcessGroup,
    NewSession,
)


def test_bots_leave_the_terminals_process_group() -> None:
    assert NewSession().options() == {"start_new_session": True}
    assert NewProcessGroup().options() == {"creationflags": CREATE_NEW_PROCESS_GROUP}


def _reap_all(children: Children, codes: list[int]) -> list[Ended]:
    procs = [subprocess.Popen([sys.executable, "-c", f"raise SystemExit({c})"]) for c in codes]
    ended: list[Ended] = []
    deadline = time.monotonic() + 60
    while len(ended) < len(procs):
        assert time.monotonic() < deadline, "children never reaped"
        if (one := children.reap(procs)) is None:
            time.sleep(0.02)
        else:
            ended.append(one)
    assert [p.returncode for p in procs] == codes
    return sorted(ended, key=lambda e: e.index)


def test_posix_reaps_each_child_with_its_code_and_cpu() -> None:
    ended = _reap_all(NewSession(), [0, 3])
    assert [(e.index, e.code) for e in ended] == [(0, 0), (1, 3)]
    assert all(e.cpu > 0 for e in ended)


def test_windows_polls_each_child_and_reads_its_cpu() -> None:
    asked: list[int] = []

    def cpu_seconds(pid: int) -> float:
        asked.append(pid)
        return 0.25

    ended = _reap_all(NewProcessGroup(cpu_seconds=cpu_seconds), [2, 0])
    assert [(e.index, e.code, e.cpu) for e in ended] == [(0, 2, 0.25), (1, 0, 0.25)]
    assert len(asked) == 2
